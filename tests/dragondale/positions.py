"""Hand-built Dragon Dale positions for rule tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.core import Command, Event, Prompt, Rng, SeatInfo, fold
from rules.decider import decide
from rules.dragondale import GAME
from rules.dragondale.decide import run
from rules.dragondale.flow import Flow
from rules.dragondale.state import State, Token, TribeState, Unit

TURN_TAIL = [{"k": "end_turn"}, {"k": "step_f"}, {"k": "step_e"}, {"k": "step_d"}, {"k": "step_c"}]


def new_game(tribes: list[str], seed: int = 1, **opts: Any) -> State:
    rng = Rng(b"test", b"", f"pos-{seed}")
    events = GAME.setup({"tribes": tribes, **opts}, [SeatInfo(i, t) for i, t in enumerate(tribes)], rng)
    return fold(GAME, events)


def tribe(s: State, seat: int, **kw: Any) -> State:
    tribes = list(s.tribes)
    tribes[seat] = replace(tribes[seat], **kw)
    return replace(s, tribes=tuple(tribes))


def unit_id(s: State, seat: int, utype: str, nth: int = 0) -> str:
    return [u.id for u in s.tribes[seat].units if u.type == utype][nth]


def place(s: State, seat: int, where: dict[str, str | None], hidden: bool | None = None) -> State:
    """Move the given unit ids to territories (None: dispelled); other units keep their place."""
    units = tuple(
        Unit(u.id, u.type, where[u.id], u.hidden if hidden is None else (hidden and u.type != "ox"))
        if u.id in where else u
        for u in s.tribes[seat].units
    )
    return tribe(s, seat, units=units)


def park(s: State, seat: int) -> State:
    """Send every unit of a tribe home to its encampment."""
    t: TribeState = s.tribes[seat]
    return place(s, seat, {u.id: t.camp for u in t.units})


def tokens(*spec: str, hidden: bool = True) -> tuple[Token, ...]:
    """Tokens from "owner:type" strings."""
    return tuple(Token(x.split(":")[0], x.split(":")[1], hidden) for x in spec)


def at_action(s: State, seat: int, n: int = 1) -> State:
    """The position where `seat` chooses its n-th main action of a turn."""
    stack: list[dict[str, Any]] = [*TURN_TAIL]
    if n == 1:
        stack.append({"k": "action", "seat": seat, "n": 2})
    stack.append({"k": "action", "seat": seat, "n": n})
    ctl = {"stack": stack, "prompt": {"seats": [seat], "kind": "action", "options": {"action": n}},
           "enc": None, "turn": seat}
    return replace(s, ctl=ctl, prompt=Prompt((seat,), "action", {"action": n}), turn_no=max(s.turn_no, s.n + 1))


def at_task(s: State, seat: int, task: dict[str, Any], kind: str | None = None, turn: int | None = None) -> State:
    """The position where `task` is on top of an otherwise finished turn of `turn`."""
    stack = [*TURN_TAIL, task]
    k = kind or task["k"]
    ctl = {"stack": stack, "prompt": {"seats": [seat], "kind": k, "options": {}}, "enc": None,
           "turn": seat if turn is None else turn}
    return replace(s, ctl=ctl, prompt=Prompt((seat,), k, {}), turn_no=max(s.turn_no, s.n + 1))


def play(s: State, cmd: Command, seed: int = 7) -> tuple[State, list[Event]]:
    """Run a command through the platform's checks and the rules: the new state and its events."""
    d = decide(GAME, s, cmd, Rng(b"play", b"", f"p{seed}"))
    return d.state, d.events


def play_on(s: State, cmd: Command, seed: int = 7) -> tuple[State, list[Event]]:
    """`play`, then a pass on every bright-border card prompt it leads to (rules version 3: the
    holder is asked before an encounter), for tests of what comes after: their events together."""
    s, events = play(s, cmd, seed)
    while s.prompt is not None and s.prompt.kind == "bright":
        s, more = play(s, GAME.parse_command("dragondale.skip", {}, s.prompt.seats[0]), seed)
        events = [*events, *more]
    return s, events


def end_actions(s: State, seed: int = 7) -> tuple[State, list[Event]]:
    """From a main-action prompt, steps C-F of the turn as if the action were done: a test's way
    on to them, since the rules let a seat pass an action only when it has none to take."""
    stack = list(s.ctl["stack"])
    assert stack[-1]["k"] == "action"
    stack.pop()
    f = Flow(replace(s, ctl={**s.ctl, "stack": stack, "prompt": None}, prompt=None), Rng(b"play", b"", f"p{seed}"))
    run(f)
    d = f.finish()
    return d.state, d.events


def cmd(seat: int, verb: str, **args: Any) -> Command:
    return GAME.parse_command("dragondale." + verb, args, seat)


def text(seat: int, t: str) -> Command:
    return GAME.parse_text(t, seat)


def types_of(events: list[Event]) -> list[str]:
    return [e.type.split(".", 1)[1] for e in events]


def first(events: list[Event], typ: str) -> Event:
    return next(e for e in events if e.type == "dragondale." + typ)
