"""Legal commands: every command a seat may send now, by prompt (each accepted by `decide`
unchanged), and whether the active player still has something free to do (the engine's turn
hand-over asks)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rules.core import Command

from . import actions as A
from . import chaos as C
from . import powers as P
from . import primals as PR
from .engine import action_limit
from .query import react_choices
from .setup import placements, swap_options
from .state import State


def has_free(s: State) -> bool:
    """Whether the active player still has something to do that costs no energy."""
    seat = s.active
    for _ in P.legal_powers(s, seat):
        return True
    if C.has_free(s):
        return True
    if A.presence_targets(s, seat):
        return True
    for _ in A.legal_move(s, seat, free_only=True):
        return True
    for _ in A.legal_defeat(s, seat, free_only=True):
        return True
    return PR.has_free(s, seat)


def _choose_cmds(seat: int, opts: Iterable[str]) -> Iterator[Command]:
    for o in opts:
        yield Command("rite.choose", {"option": o}, seat)


def legal_commands(s: State, seat: int) -> Iterator[Command]:
    """Every command `seat` may send now; nothing when the prompt does not name it."""
    prompt = s.prompt
    if prompt is None or seat not in prompt.seats:
        return
    m = s.mode
    if m == "place":
        for sp, i, r in placements(s, seat)[0]:
            yield Command("rite.place", {"tile": sp, "at": s.geo.labels[i], "rot": r}, seat)
    elif m == "swap":
        yield from _choose_cmds(seat, swap_options(s))
    elif m == "turn":
        acting = s.actions < action_limit(s)
        if acting:
            yield from A.legal_summon(s, seat)
            yield from A.legal_move(s, seat, free_only=False)
            yield from A.legal_defeat(s, seat)
            yield from A.legal_rock(s, seat)
            yield from A.legal_fly(s, seat)
            yield from A.legal_fireball(s, seat)
            yield from A.legal_breathe(s, seat)
        else:
            yield from A.legal_move(s, seat, free_only=True)
            yield from A.legal_defeat(s, seat, free_only=True)
        yield from PR.legal_turn(s, seat, acting)
        if A.presence_targets(s, seat):
            yield A.cmd("presence", seat)
        yield from P.legal_powers(s, seat)
        yield from C.legal_turn(s, seat, acting)
        if s.actions == 0:
            yield A.cmd("pass", seat)
        else:
            yield A.cmd("end", seat)
    elif m == "fireball":
        yield from A.legal_pay(s, seat)
    elif m == "wings":
        yield from _choose_cmds(seat, A.wing_options(s))
    elif m == "react":
        yield from _choose_cmds(seat, react_choices(s))
    elif m == "firefly":
        yield from _choose_cmds(seat, A.firefly_options(s))
    elif m == "rune":
        yield from _choose_cmds(seat, A.rune_options(s))
    elif m == "rage":
        yield from _choose_cmds(seat, A.rage_options(s))
    elif m == "order":
        yield from _choose_cmds(seat, A.order_options(s))
    elif m in C.MODES:
        yield from C.legal(s, seat)
    else:
        # under Total Control a Primal prompt is answered by Chaos as the Primals (options too)
        yield from _choose_cmds(seat, P.prompt_options(s, C.acting_seat(s, seat)))
