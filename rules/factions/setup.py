"""Set-up: the options a match is created with, and the advantage roll that opens it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.core import Event, InvalidCommand, Options, Rng, SeatInfo, UnknownOptions
from rules.factions.content import FACTION_IDS

DEFAULT_FACTIONS = ("zyan", "zermano", "baazaria", "doom_sand")
OPTION_KEYS = frozenset({"factions", "resource_centers"})


def _options(options: Options, n: int) -> tuple[list[str], int]:
    if not isinstance(options, Mapping):
        raise InvalidCommand("bad_options", "options must be an object")
    extra = set(options) - OPTION_KEYS
    if extra:
        raise UnknownOptions(extra, OPTION_KEYS)
    if not 2 <= n <= 4:
        raise InvalidCommand("bad_options", "factions is played by 2, 3 or 4 players")
    facs = options.get("factions", list(DEFAULT_FACTIONS[:n]))
    if not isinstance(facs, list | tuple) or len(facs) != n or any(f not in FACTION_IDS for f in facs):
        raise InvalidCommand("bad_options", f"factions must list {n} of {list(FACTION_IDS)}")
    if len(set(facs)) != n:
        raise InvalidCommand("bad_options", "each seat needs a different faction")
    rc = options.get("resource_centers", 6)
    if rc not in (4, 6) or isinstance(rc, bool):
        raise InvalidCommand("bad_options", "resource_centers must be 6 (default) or 4")
    return list(facs), rc


def _ranking(seats: list[int], rng: Rng, rolls: dict[int, list[int]]) -> list[int]:
    """Order seats by die, re-rolling only among tied seats ("roll until a higher number").

    Every roll is appended to `rolls[seat]`, so the event records each seat's re-rolls.
    """
    if len(seats) == 1:
        return seats
    by: dict[int, list[int]] = {}
    for seat in seats:
        r = rng.randint(1, 6)
        rolls[seat].append(r)
        by.setdefault(r, []).append(seat)
    out: list[int] = []
    for r in sorted(by, reverse=True):
        out += _ranking(by[r], rng, rolls)
    return out


def setup(options: Options, seats: Sequence[SeatInfo], rng: Rng, rules: int) -> list[Event]:
    """The set-up event; it names the rules version the match plays from version 2 on (a record of
    version 1 has none, and its state reads 1)."""
    n = len(seats)
    facs, rc = _options(options, n)
    rolls: dict[int, list[int]] = {seat: [] for seat in range(n)}
    order = _ranking(list(range(n)), rng, rolls)
    data = {"factions": facs, "centers": rc, "rolls": [rolls[seat] for seat in range(n)], "ranking": order}
    if rules >= 2:
        data["rules"] = rules
    return [Event("factions.GameSetUp", data)]
