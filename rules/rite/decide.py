"""Decide: the handler of every command type that answers each prompt kind (one explicit table,
which `answers` reads too), and one command run through its handler to the next prompt.

The platform (`rules.decider.decide`) has already refused a command when the game is over, when
its seat is not one the prompt names, or when its type is not in `answers(prompt)`; it parsed
the command too. The handlers check only the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from rules.core import Command, Decision, Prompt, Rng

from . import actions as A
from . import chaos as C
from . import powers as P
from . import primals as PR
from .emitter import Handler, RiteEmitter
from .engine import settle
from .legal import has_free
from .setup import do_place, do_swap
from .state import State


def _option(choose: Callable[[RiteEmitter, int, str], None]) -> Handler:
    """A handler of `choose <option>` from one that takes the option alone."""

    def handle(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
        choose(c, seat, cast(str, a["option"]))

    return handle


_POWER_PROMPT: dict[str, Handler] = {"choose": _option(P.do_choose_power)}

# prompt kind -> verb (the command type after "rite.") -> handler
ANSWERS: Mapping[str, Mapping[str, Handler]] = {
    "place_tile": {"place": do_place},
    "swap": {"choose": _option(do_swap)},
    "turn": {
        "summon": A.do_summon,
        "move": A.do_move,
        "defeat": A.do_defeat,
        "rock": A.do_rock,
        "fly": A.do_fly,
        "fireball": A.do_fireball,
        "breathe": A.do_breathe,
        "presence": A.do_presence,
        "umove": PR.do_umove,
        "charge": PR.do_charge,
        "roar": PR.do_roar,
        # Chaos's power handler hands every other faction's power on to `powers`.
        "power": C.do_power,
        "thought": C.do_thought,
        "steal": C.do_steal,
        "join": C.do_join,
        "act": C.do_act,
        "end": A.do_end,
        "pass": A.do_pass,
    },
    "fireball": {"pay": A.do_pay},
    "wings": {"choose": _option(A.do_wings)},
    "undead_reaction": {"choose": _option(A.do_react)},
    "firefly": {"choose": _option(A.do_firefly)},
    "rune": {"choose": _option(A.do_rune)},
    "rage": {"choose": _option(A.do_rage)},
    "order": {"choose": _option(A.do_order)},
    "rally": _POWER_PROMPT,
    "card": _POWER_PROMPT,
    "rpower": _POWER_PROMPT,
    "ancestors": _POWER_PROMPT,
    "ultimatosaur": _POWER_PROMPT,
    "roar": _POWER_PROMPT,
    "alpha": _POWER_PROMPT,
    "puppet": C.PUPPET,
    "proxy": C.PROXY,
    "cot": {"choose": C.do_cot},
    "hiverite": {"choose": C.do_hiverite},
    "crise": {"choose": C.do_rise},
    "simultaneous": {"choose": C.do_simul},
}

_TYPES: Mapping[str, frozenset[str]] = {
    kind: frozenset("rite." + verb for verb in table) for kind, table in ANSWERS.items()
}


def answers(prompt: Prompt) -> frozenset[str]:
    """The command types that answer a prompt of this kind."""
    return _TYPES.get(prompt.kind, frozenset())


def decide(s: State, command: Command, rng: Rng, flow_events: bool = False) -> Decision:
    """Run the command's handler, then every automatic step until someone must choose
    (`flow_events`: rules version 1's FlowStepped events, game.py)."""
    prompt = cast(Prompt, s.prompt)  # the platform checked that there is one
    verb = command.type[5:]
    handle = ANSWERS[prompt.kind][verb]
    seat = cast(int, command.seat)  # the platform refuses a command without a seat
    c = RiteEmitter(s, rng, flow_events)
    handle(c, C.acting_seat(s, seat), dict(command.args))
    C.faction_energy(c, s, verb, dict(command.args))
    if c.s.phase == "play":
        settle(c, has_free)
    return c.decision()
