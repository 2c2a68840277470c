"""The Rite `Game`: set-up, decide, legal commands and the glue between the rule modules."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from rules.core import (
    Command,
    Event,
    IllegalCommand,
    InvalidCommand,
    Options,
    Outcome,
    Rng,
    SeatInfo,
)

from . import actions as A
from . import chaos as C
from . import powers as P
from . import primals as PR
from .board import BLOCKING_KINDS
from .content import CODE, FACTIONS, LINEUPS, OBJECTIVE_FACTIONS, TURN_TRACK
from .engine import Ctx, action_limit, react_choices, settle
from .evolve import evolve as _evolve
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
from .notation import COMMAND_TYPES, format_text, parse_command, parse_text
from .state import State
from .view import view as _view

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
        raise bad(f"unknown option(s) {sorted(extra)}")
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


def setup(options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
    o = check_options(options, len(seats))
    facs = o["factions"]
    order = sorted(range(len(facs)), key=lambda i: TURN_TRACK.index(facs[i]))
    c = Ctx(State(), rng)
    c.emit(
        "GameStarted",
        {
            "factions": facs,
            "map": o["map"],
            "radius": radius_for(facs),
            "order": order,
            "options": {k: o[k] for k in ("volcano", "fireflies", "elementals", "firelord")},
        },
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


def _start_play(c: Ctx) -> None:
    c.emit("PlayStarted", {})
    c.emit("TurnStarted", {"seat": c.s.order[0]}, c.s.order[0])


# --- player-made map ---------------------------------------------------------------------------


def _placements(s: State, seat: int) -> tuple[list[tuple[str, int, int]], bool]:
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


def _swap_options(s: State) -> list[str]:
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


def _do_place(c: Ctx, seat: int, a: dict[str, Any]) -> None:
    s = c.s
    options, forced = _placements(s, seat)
    i = A.tile(s, a["at"])
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
        if _swap_options(c.s):
            return
    _after_place(c)


def _after_place(c: Ctx) -> None:
    if all(c.s.kinds):
        _start_play(c)
    else:
        c.mode("place")


def _do_swap(c: Ctx, seat: int, opt: str) -> None:
    s = c.s
    if opt not in _swap_options(s):
        raise IllegalCommand("bad_option", f"{opt} is not a basic tile that fixes the placement")
    c.emit("TilesSwapped", {"a": s.geo.labels[s.mctx[1]], "b": opt}, seat)
    _after_place(c)


# --- dispatch ----------------------------------------------------------------------------------

Handler = Callable[[Ctx, int, dict[str, Any]], None]
_TURN: dict[str, Handler] = {
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
    "power": P.do_power,
    "end": A.do_end,
    "pass": A.do_pass,
}


def _choose(c: Ctx, seat: int, a: dict[str, Any]) -> None:
    m = c.s.mode
    opt = a["option"]
    if m == "wings":
        A.do_wings(c, seat, opt)
    elif m == "react":
        A.do_react(c, seat, opt)
    elif m == "firefly":
        A.do_firefly(c, seat, opt)
    elif m == "swap":
        _do_swap(c, seat, opt)
    elif m == "order":
        A.do_order(c, seat, opt)
    else:
        P.do_choose_power(c, seat, opt)


def _handler(mode: str, verb: str) -> Handler | None:
    h = C.handler(mode, verb)
    if h is not None:
        return h
    if mode == "turn":
        return _TURN.get(verb)
    if mode == "place" and verb == "place":
        return _do_place
    if mode == "fireball" and verb == "pay":
        return A.do_pay
    if mode in (
        "wings", "react", "firefly", "order", "swap", "rally", "card", "rpower", "ancestors", "ultimatosaur", "roar",
        "alpha",
    ) and verb == "choose":
        return _choose
    return None


def has_free(s: State) -> bool:
    """Whether the active player still has something to do that costs no energy."""
    seat = s.active
    for _ in P.legal_powers(s, seat):
        return True
    if C.has_free(s):
        return True
    if A._presence_targets(s, seat):
        return True
    for _ in A.legal_move(s, seat, free_only=True):
        return True
    for _ in A.legal_defeat(s, seat, free_only=True):
        return True
    return PR.has_free(s, seat)


def decide(s: State, command: Command, rng: Rng) -> list[Event]:
    seat = command.seat
    if seat is None:
        raise InvalidCommand("bad_seat", "a command needs a seat")
    command = parse_command(command.type, command.args, seat)
    if s.mode == "over":
        raise IllegalCommand("game_over", "the game is over")
    prompt = s.prompt
    if prompt is None or seat not in prompt.seats:
        raise IllegalCommand("not_your_turn", "it is not your turn to act")
    verb = command.type[5:]
    h = _handler(s.mode, verb)
    if h is None:
        raise IllegalCommand("wrong_prompt", f"'{verb}' does not answer the current prompt ({prompt.kind})")
    c = Ctx(s, rng)
    h(c, C.acting_seat(s, seat), dict(command.args))
    C.faction_energy(c, s, verb, dict(command.args))
    if c.s.phase == "play":
        settle(c, has_free)
    return c.events


def _choose_cmds(seat: int, opts: Iterable[str]) -> Iterator[Command]:
    for o in opts:
        yield Command("rite.choose", {"option": o}, seat)


def legal_commands(s: State, seat: int) -> Iterator[Command]:
    prompt = s.prompt
    if prompt is None or seat not in prompt.seats:
        return
    m = s.mode
    if m == "place":
        for sp, i, r in _placements(s, seat)[0]:
            yield Command("rite.place", {"tile": sp, "at": s.geo.labels[i], "rot": r}, seat)
    elif m == "swap":
        yield from _choose_cmds(seat, _swap_options(s))
    elif m == "turn":
        acting = s.actions < action_limit(s)
        if acting:
            yield from A.legal_summon(s, seat)
            yield from A.legal_move(s, seat, free_only=False)
            yield from A.legal_defeat(s, seat)
            yield from A.legal_rock(s, seat)
            yield from A.legal_fly(s, seat)
            lab = s.geo.labels
            for uid in A._movers(s, seat):
                if s.units[uid].kind == "sorcerer":
                    for t in A._fireball_targets(s, seat, uid):
                        yield A.cmd("fireball", seat, **{"from": lab[s.units[uid].tiles[0]], "target": lab[t]})
            yield from A.legal_breathe(s, seat)
        else:
            yield from A.legal_move(s, seat, free_only=True)
            yield from A.legal_defeat(s, seat, free_only=True)
        yield from PR.legal_turn(s, seat, acting)
        if A._presence_targets(s, seat):
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
        yield from _choose_cmds(seat, A._wing_options(s))
    elif m == "react":
        yield from _choose_cmds(seat, react_choices(s))
    elif m == "firefly":
        yield from _choose_cmds(seat, A.firefly_options(s))
    elif m == "order":
        yield from _choose_cmds(seat, A.order_options(s))
    elif m in C.MODES:
        yield from C.legal(s, seat)
    else:
        # under Total Control a Primal prompt is answered by Chaos as the Primals (options too)
        yield from _choose_cmds(seat, P.prompt_options(s, C.acting_seat(s, seat)))


class RiteGame:
    """Rite for 2-5 players as a rules.core.Game (set-ups for every line-up of the rulebook)."""

    name = "rite"
    min_seats = 2
    max_seats = 5
    command_types = COMMAND_TYPES

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        return setup(options, seats, rng)

    def decide(self, state: Any, command: Command, rng: Rng) -> list[Event]:
        return decide(state, command, rng)

    def evolve(self, state: Any, event: Event) -> Any:
        return _evolve(state, event)

    def initial_state(self) -> Any:
        return State()

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        return list(legal_commands(state, seat))

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return _view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        # Every Rite event is public: power cards are named only when flipped or used.
        return event

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        return command

    def is_over(self, state: Any) -> Outcome | None:
        if state.phase != "over":
            return None
        scores = tuple(
            state.consumed if f == "primals" else len([t for t in state.activated if _owner(state, t) == i])
            for i, f in enumerate(state.factions)
        )
        if "chaos" in state.factions and state.scored:
            # Chaos's score: its controlled units points, all factions together
            k = state.seat_of("chaos")
            scores = (*scores[:k], sum(state.scored), *scores[k + 1:])
        return Outcome((state.winner,), scores, state.reason)

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int) -> Command:
        return parse_command(type, args, seat)

    def parse_text(self, text: str, seat: int) -> Command:
        return parse_text(text, seat)

    def format_text(self, command: Command) -> str:
        return format_text(command)


def _owner(s: State, t: int) -> int:
    for i, f in enumerate(s.factions):
        if FACTIONS[f]["objective"] == s.kinds[t]:
            return i
    return -1


GAME = RiteGame()
