"""The rules-core contract: the Game protocol and the values it trades in.

Nothing here does I/O, reads a clock or keeps global mutable state beyond the
game registry, which is filled once at import.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

JSON = Any
Options = Mapping[str, Any]
T = TypeVar("T")

# The `viewer` of the words functions for a reader who is shown everything (the referee, the
# replay and move list after the end): no seat's "you", every hidden thing named. Not a seat
# index, so any `viewer == seat` test is false for it, and never given to `view` or `redact`.
EVERYTHING_SHOWN = -1


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat at the table: its index (from 0) and the player's display name."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Command:
    """A request from a seat, e.g. `Command("rite.move", {"path": ["c4", "d5"]}, seat=0)`."""

    type: str
    args: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "args": dict(self.args), "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Event:
    """A past-tense fact, e.g. `Event("rite.UnitMoved", {...}, seat=0)`; `data` is JSON-able."""

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "data": dict(self.data), "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Prompt:
    """Who may act now and on what; `options` is public detail the clients may show."""

    seats: tuple[int, ...]
    kind: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"seats": list(self.seats), "kind": self.kind, "options": dict(self.options)}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: winners (seats), final scores by seat, and why."""

    winners: tuple[int, ...]
    scores: tuple[int, ...] = ()
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "scores": list(self.scores), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Decision:
    """What `decide` hands back: the events a command causes and the state they fold to."""

    events: list[Event]
    state: Any


@dataclass(frozen=True, slots=True)
class Told:
    """An event in words for one viewer (`Game.describe_event`).

    `heading` is set on an event that opens a step the game drives on its own (the volcano, the
    end of a round): the move list files it and what follows under that heading instead of under
    the last command. `draw` is the random result the event records, in words ("volcano die 4").
    `quiet` marks bookkeeping a reader may skip (whose turn it is now, a step of the round
    beginning): a headed entry's summary leaves it out.
    """

    text: str
    heading: str | None = None
    draw: str | None = None
    quiet: bool = False


class InvalidCommand(ValueError):
    """A command that is malformed before the rules look at it (bad syntax, unknown type)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class UnknownOptions(InvalidCommand):
    """Options a game's set-up does not take: the message names the ones it does (`known`), so
    a caller adding options of its own (the platform's) can name those too."""

    def __init__(self, extra: Iterable[str], known: Iterable[str]) -> None:
        self.extra = sorted(extra)
        self.known = sorted(known)
        words = ", ".join(repr(k) for k in self.extra)
        super().__init__("bad_options", f"unknown option{'s' if len(self.extra) > 1 else ''} {words}: "
                         f"the game's options are {', '.join(self.known)}")


class IllegalCommand(ValueError):
    """The rules refused a well-formed command; `code` is stable, `message` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def preferred_answer(legal: Iterable[Command], preferred: Sequence[str]) -> Command:
    """The first legal command of the first type in `preferred`, else the first legal command
    (a game's `default_answer`); IllegalCommand when the seat has no legal command."""
    first: Command | None = None
    best: tuple[int, Command] | None = None
    rank = {t: i for i, t in enumerate(preferred)}
    for c in legal:
        if first is None:
            first = c
        r = rank.get(c.type)
        if r is not None and (best is None or r < best[0]):
            best = (r, c)
            if r == 0:
                break
    if best is not None:
        return best[1]
    if first is None:
        raise IllegalCommand("no_legal_command", "this seat has no legal command to answer with")
    return first


_MASK64 = (1 << 64) - 1


class Rng:
    """Deterministic draws: draw i is blake2b(seed, entropy, game id, i); draws are counted.

    Replaying the same seed, entropy, game id and starting index yields the same
    outcomes, which is what lets the audit re-derive every die roll.
    """

    __slots__ = ("_prefix", "draws")

    def __init__(self, seed: bytes, entropy: bytes = b"", game_id: str = "", start: int = 0) -> None:
        h = hashlib.blake2b(digest_size=32)
        for part in (seed, entropy, game_id.encode()):
            h.update(len(part).to_bytes(4, "big"))
            h.update(part)
        self._prefix = h.digest()
        self.draws = start

    def _next64(self) -> int:
        d = hashlib.blake2b(self._prefix + self.draws.to_bytes(8, "big"), digest_size=8).digest()
        self.draws += 1
        return int.from_bytes(d, "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), unbiased by rejection."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        if n == 1:
            return 0
        limit = (_MASK64 + 1) - ((_MASK64 + 1) % n)
        while True:
            x = self._next64()
            if x < limit:
                return x % n

    def randint(self, lo: int, hi: int) -> int:
        """A uniform integer in [lo, hi], both ends included (a d6 is `randint(1, 6)`)."""
        return lo + self.below(hi - lo + 1)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.below(len(seq))]

    def weighted(self, weights: Sequence[int]) -> int:
        """An index drawn with probability proportional to its integer weight."""
        total = sum(weights)
        if total <= 0 or any(w < 0 for w in weights):
            raise ValueError("weighted() needs non-negative weights with a positive sum")
        x = self.below(total)
        for i, w in enumerate(weights):
            if x < w:
                return i
            x -= w
        raise AssertionError("unreachable")

    def shuffled(self, seq: Iterable[T]) -> list[T]:
        """A new list holding `seq` in a uniformly random order (Fisher-Yates)."""
        out: MutableSequence[T] = list(seq)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return list(out)

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        return self.shuffled(seq)[:k]


@runtime_checkable
class Game(Protocol):
    """What every game module exposes as a module-level object named `GAME`.

    State is any frozen value with a `prompt: Prompt | None` attribute. `evolve` only
    ever receives events whose type starts with `f"{name}."`; platform events
    (`boardlog.*`) are folded by the platform, not by the game.
    """

    name: str
    min_seats: int
    max_seats: int
    command_types: frozenset[str]
    # The game's rules version (`rules_version(game)` reads it, 1 when absent): bumped by every
    # change that alters a decision, named in each game's first event.

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        """The events that lay out a new match; raises InvalidCommand for bad options."""
        ...

    def decide(self, state: Any, command: Command, rng: Rng) -> Decision:
        """The events a command causes and the state after them; raises IllegalCommand.

        The platform (`rules.decider.decide`) has already checked that the game is not over,
        that the command's seat is one the prompt names, that its type is one `answers` lists
        for the prompt, and has normalised it with `parse_command`: a game checks only its rules.
        """
        ...

    def answers(self, prompt: Prompt) -> frozenset[str]:
        """The command types that answer `prompt` (the platform refuses any other)."""
        ...

    def evolve(self, state: Any, event: Event) -> Any:
        """The state after one event: pure, never draws."""
        ...

    def initial_state(self) -> Any: ...

    def legal_commands(self, state: Any, seat: int) -> Iterable[Command]:
        """Every command `seat` may issue now; each is accepted by `decide` unchanged."""
        ...

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """The board as `seat` may see it (None: a spectator); JSON-able."""
        ...

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """The event as `seat` may see it, or None when that viewer sees nothing of it."""
        ...

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        """The command record as `seat` may see it (the log shows accepted commands)."""
        ...

    def is_over(self, state: Any) -> Outcome | None: ...

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int) -> Command:
        """Check the shape of a JSON command and normalise it; raises InvalidCommand."""
        ...

    def parse_text(self, text: str, seat: int) -> Command:
        """Read the play-by-post notation (`move c4 d5`); raises InvalidCommand."""
        ...

    def default_answer(self, state: Any, seat: int) -> Command:
        """The answer the platform gives for `seat` at a prompt naming it when the seat cannot
        answer itself (it resigned, or its clock ran out under `skip`): a pass where the rules
        allow one, otherwise the deterministic rule the game's RULINGS.md writes. Pure, and
        always one of `legal_commands(state, seat)`."""
        ...

    def format_text(self, command: Command) -> str:
        """Print a command in the notation `parse_text` reads back to an equal command."""
        ...

    # Words (issue #14). `names` are the seats' display names, by seat; `viewer` is a seat or None
    # (a spectator), or EVERYTHING_SHOWN (in the third person, naming every hidden thing: the
    # events come unredacted). Each function is pure and says of hidden things only what `viewer`
    # may know: the events it is given are already redacted for `viewer`, and the state is used
    # only for what `view(state, viewer)` shows.

    def describe_prompt(self, state: Any, viewer: int | None, names: Sequence[str]) -> str:
        """`state.prompt` as a sentence ("ann: place terrain tile 3, choose a spot and a rotation")."""
        ...

    def describe_command(self, state: Any, command: Command, viewer: int | None, names: Sequence[str]) -> str:
        """A command (legal now in `state`, or the one accepted in it) as a sentence."""
        ...

    def describe_event(self, state: Any, event: Event, viewer: int | None, names: Sequence[str]) -> Told:
        """An event, folded onto `state` next, in words."""
        ...

    def touched(self, state: Any, command: Command | None, events: Sequence[Event]) -> list[str]:
        """The board cells or territories (ids as the view has them) that `command`, decided in
        `state`, and its `events` touched: from, to and targets, in that order, no repeats
        (`command` None: a step the game drove, such as the volcano)."""
        ...

    # The position as text (issue #40). `view` is what `view(state, viewer)` gave a viewer: the
    # text says nothing that view does not hold, so every viewer may read its own.

    def text_board(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        """The position as plain text: scores, each area or tile with its pieces in words (unit
        names, owners by `names`, strengths where the view shows them), hands and reserves."""
        ...

    def headline(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        """The game as players call it: "Rite: ann vs bob, round 5" (the game's own turn word)."""
        ...


def fold(game: Game, events: Iterable[Event], state: Any = None) -> Any:
    """Replay: the state after applying `events` (only the game's own) to `state`."""
    prefix = game.name + "."
    s = game.initial_state() if state is None else state
    for e in events:
        if e.type.startswith(prefix):
            s = game.evolve(s, e)
    return s


_REGISTRY: dict[str, Game] = {}
# Every (name, rules version) registered: the newest of a name is the one `get_game` gives; an
# older one is kept only where a deployment registers it for the games still running under it.
_VERSIONS: dict[tuple[str, int], Game] = {}


def rules_version(game: Game) -> int:
    """The rules version a game object plays (its `rules_version`; 1 for a game naming none).

    A change to a game's rules that alters any decision bumps it (rules/<game>/CHANGELOG.md):
    each game's first event names the version it was made under."""
    v = getattr(game, "rules_version", 1)
    return v if isinstance(v, int) and not isinstance(v, bool) else 1


class RulesVersionUnavailable(InvalidCommand):
    """A record or a running game names a rules version this build does not have."""

    def __init__(self, name: str, version: int, have: int | None) -> None:
        here = "no version of it" if have is None else f"rules version {have}"
        super().__init__("rules_version_unavailable",
                         f"made under {name} rules version {version}; this build has {here}")
        self.name, self.version, self.have = name, version, have


def register(game: Game) -> Game:
    """Add a game to the registry by its name and rules version; registering the same object
    twice is a no-op. Another object may share the name only under another version: the newest
    version is the one new games get."""
    key = (game.name, rules_version(game))
    existing = _VERSIONS.get(key)
    if existing is not None and existing is not game:
        raise ValueError(f"a different game is already registered as {game.name!r} rules version {key[1]}")
    _VERSIONS[key] = game
    current = _REGISTRY.get(game.name)
    if current is None or rules_version(current) <= key[1]:
        _REGISTRY[game.name] = game
    return game


def get_game(name: str, version: int | None = None) -> Game:
    """The game of this name: its newest rules, or exactly `version` (RulesVersionUnavailable
    when this build does not have that version)."""
    try:
        current = _REGISTRY[name]
    except KeyError:
        raise InvalidCommand("unknown_game", f"no game named {name!r}; the games are {', '.join(sorted(_REGISTRY))}") from None
    if version is None or rules_version(current) == version:
        return current
    kept = _VERSIONS.get((name, version))
    if kept is None:
        raise RulesVersionUnavailable(name, version, rules_version(current))
    return kept


def games() -> Mapping[str, Game]:
    return dict(_REGISTRY)


def of_the_rules(module: str) -> bool:
    """Whether `module` holds the rules' own classes: this package's, or the package of a game
    registered from outside it (an extra game, the test game). Stored states name their classes'
    modules, and only these may be made from stored data."""
    if module == "rules" or module.startswith("rules."):
        return True
    for game in _REGISTRY.values():
        home = type(game).__module__
        package = home.rpartition(".")[0] or home
        if module == home or module.startswith(package + "."):
            return True
    return False
