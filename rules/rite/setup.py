"""Set-up: the game options, the events that lay out a new match (Set-Up: Pre-Made, Random and
Player Made), and the commands of a player-made map (placing tiles, the forced swap)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.core import Event, IllegalCommand, InvalidCommand, Options, Rng, SeatInfo, UnknownOptions

from .board import BLOCKING_KINDS
from .content import CODE, FACTIONS, LINEUPS, OBJECTIVE_FACTIONS, TURN_TRACK
from .emitter import RiteEmitter
from .mapgen import (
    centre_tile,
    current_ring,
    deal_hands,
    parse_spec,
    premade_map,
    radius_for,
    random_map,
    violates,
)
from .query import tile
from .state import State

_OPTION_KEYS = {"factions", "map", "volcano", "fireflies", "elementals", "firelord"}
DEFAULT_FACTIONS = {
    2: ["humans", "goblins"],
    3: ["humans", "goblins", "undead"],
    4: ["humans", "goblins", "undead", "chaos"],
    5: ["humans", "goblins", "undead", "chaos", "primals"],
}


def lineups_for(seats: int) -> list[str]:
    """The allowed line-ups for a number of players, as turn-track letter codes (e.g. "HGC")."""
    codes = ("".join(CODE[f] for f in sorted(k, key=TURN_TRACK.index)) for k in LINEUPS if len(k) == seats)
    return sorted(codes, key=lambda c: [TURN_TRACK.index(f) for f in TURN_TRACK if CODE[f] in c])


def check_options(options: Options, seats: int) -> dict[str, Any]:
    """Validate the game options; bad ones raise InvalidCommand("bad_options")."""
    def bad(msg: str) -> InvalidCommand:
        return InvalidCommand("bad_options", msg)

    if not isinstance(options, Mapping):
        raise bad("options must be an object")
    extra = set(options) - _OPTION_KEYS
    if extra:
        raise UnknownOptions(extra, _OPTION_KEYS)
    if seats not in DEFAULT_FACTIONS:
        raise bad(f"Rite is played by 2 to 5 players, not {seats}")
    facs = options.get("factions", DEFAULT_FACTIONS[seats])
    if not isinstance(facs, list) or len(facs) != seats or not all(isinstance(f, str) for f in facs):
        raise bad(f"factions must list one faction per seat ({seats})")
    for f in facs:
        if f not in FACTIONS:
            raise bad(f"faction {f!r} is not a Rite faction (choose from {list(TURN_TRACK)})")
    if len(set(facs)) != len(facs):
        raise bad("each faction may be played once")
    if sum(1 for f in facs if f in OBJECTIVE_FACTIONS) < 2:
        raise bad("at least two players must play Humans, Goblins or Undead (Set-Up, step 2)")
    if frozenset(facs) not in LINEUPS:
        allowed = ", ".join(lineups_for(seats))
        got = "".join(CODE[f] for f in sorted(facs, key=TURN_TRACK.index))
        raise bad(
            f"{got} is not a {seats}-player set-up of the rulebook (Set-Up: Pre-Made); "
            f"allowed line-ups (H humans, G goblins, U undead, C chaos, P primals): {allowed}"
        )
    method = options.get("map", "premade")
    if method not in ("premade", "random", "player"):
        raise bad("map must be premade, random or player")
    out: dict[str, Any] = {"factions": list(facs), "map": method}
    for k in ("volcano", "fireflies", "elementals", "firelord"):
        v = options.get(k, True)
        if not isinstance(v, bool):
            raise bad(f"{k} must be true or false")
        out[k] = v
    return out


def _tiles_data(s: State, tiles: Sequence[tuple[int, tuple[str, str, int]]]) -> list[list[Any]]:
    lab = s.geo.labels
    return [[lab[i], k, f, n] for i, (k, f, n) in tiles]


def setup(options: Options, seats: Sequence[SeatInfo], rng: Rng, rules: int = 2) -> list[Event]:
    """The set-up events; from rules version 3 on, GameStarted names the version (`rules`), so
    that a game made earlier plays on under the rules it was made under."""
    o = check_options(options, len(seats))
    facs = o["factions"]
    order = sorted(range(len(facs)), key=lambda i: TURN_TRACK.index(facs[i]))
    c = RiteEmitter(State(), rng)
    c.emit(
        "GameStarted",
        {
            "factions": facs,
            "map": o["map"],
            "radius": radius_for(facs),
            "order": order,
            "options": {k: o[k] for k in ("volcano", "fireflies", "elementals", "firelord")},
        } | ({"rules": rules} if rules >= 3 else {}),
    )
    opts = c.s.opts
    if o["map"] == "player":
        centre = c.s.geo.rings[0][0]
        c.emit("MapBuilt", {"tiles": _tiles_data(c.s, [(centre, centre_tile(opts))])})
        c.emit("HandsDealt", {"hands": deal_hands(facs, opts, order, rng)})
        return c.events
    tiles = premade_map(facs, opts) if o["map"] == "premade" else random_map(facs, opts, rng)
    c.emit("MapBuilt", {"tiles": _tiles_data(c.s, tiles)})
    _start_play(c)
    return c.events


def _start_play(c: RiteEmitter) -> None:
    c.emit("PlayStarted", {})
    c.emit("TurnStarted", {"seat": c.s.order[0]}, c.s.order[0])


# --- player-made map ---------------------------------------------------------------------------


def placements(s: State, seat: int) -> tuple[list[tuple[str, int, int]], bool]:
    """Every (tile, position, rotation) the placer may choose, and whether the rules are forced."""
    ring = current_ring(s.geo, s.kinds)
    good: list[tuple[str, int, int]] = []
    every: list[tuple[str, int, int]] = []
    for sp in sorted(set(s.hands[seat])):
        t = parse_spec(sp)
        assert t is not None
        rots = range(6) if t[0] in BLOCKING_KINDS else range(1)
        for i in ring:
            ok = not violates(s.geo, s.kinds, i, t[0])
            for r in rots:
                every.append((sp, i, r))
                if ok:
                    good.append((sp, i, r))
    return (good, False) if good else (every, True)


def swap_options(s: State) -> list[str]:
    placed = s.mctx[1]
    k = s.kinds[placed]
    out = []
    for j in range(s.geo.size):
        if s.kinds[j] == "basic" and j != placed:
            sw = list(s.kinds)
            sw[placed], sw[j] = "basic", k
            if not violates(s.geo, sw, placed, "basic") and not violates(s.geo, sw, j, k):
                out.append(s.geo.labels[j])
    return out


def do_place(c: RiteEmitter, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    options, forced = placements(s, seat)
    i = tile(s, a["at"])
    if (a["tile"], i, a["rot"]) not in options:
        raise IllegalCommand("bad_placement", "that tile cannot go there (balance rules, ring order or hand)")
    t = parse_spec(a["tile"])
    assert t is not None
    kind, fac, num = t
    if kind in BLOCKING_KINDS:
        num = a["rot"]
    c.emit("TilePlaced", {"seat": seat, "tile": a["tile"], "at": a["at"], "kind": kind, "faction": fac, "num": num}, seat)
    if forced and violates(c.s.geo, c.s.kinds, i, kind):
        k = s.order.index(seat)
        right = s.order[(k - 1) % len(s.order)]
        c.mode("swap", [right, i])
        if swap_options(c.s):
            return
    _after_place(c)


def _after_place(c: RiteEmitter) -> None:
    if all(c.s.kinds):
        _start_play(c)
    else:
        c.mode("place")


def do_swap(c: RiteEmitter, seat: int, opt: str) -> None:
    s = c.s
    if opt not in swap_options(s):
        raise IllegalCommand("bad_option", f"{opt} is not a basic tile that fixes the placement")
    c.emit("TilesSwapped", {"a": s.geo.labels[s.mctx[1]], "b": opt}, seat)
    _after_place(c)
