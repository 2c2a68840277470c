"""The game contract, run over every registered game: a new game gets these tests for free.

In the spirit of eventsourcing's backend suites: one suite, parametrised over every game in the
registry (`rules.catalog.load()` then `rules.core.games()`, with the test game `race` that
tests/conftest.py registers) and over every seat count from `min_seats` to `max_seats`, with the
default options. Each case plays a short seeded random game through `play_random` (which already
checks the chosen command, notation and JSON round trips, replay == live and the audit re-run),
and this suite checks, along that game (the costly checks at every EVERY-th state):

- setup works for each seat count (and refuses one seat too few or too many);
- every command `legal_commands` lists for a prompted seat is accepted by the platform's
  `rules.decider.decide`, and its notation prints and parses back to the same command;
- a seat the prompt does not name has no legal command, and a legal command sent from it is
  refused with `not_your_turn` (without a seat, `seat_required`; after the end, `game_over`);
- `view` and `redact` never change the state or the event (their repr before and after);
- the same seed gives the same events in a second Python process (another hash seed, so an
  order that hangs on set or dict hashing shows up);
- no seat's secret reaches another seat, by two checks that need no knowledge of the game:
  * events: the game's own `redact` says what each seat may see. Where `redact(e, j)` shows more
    than the public `redact(e, None)` (a leaf that differs or is absent there), that is seat
    j's secret, and `redact(e, i)` for every other seat i shows the public value there
    (an event's secret belongs to one seat);
  * views: any part of a view that names another seat under `"seat"` or `"owner"` (a player's
    panel, a piece) is seat k's, and a seat i != k sees exactly what the spectator sees of it:
    `view(s, i)` equals `view(s, None)` there. So no seat sees more of another seat's hand,
    hidden units or face-down cards than a spectator does; the viewer's own parts may differ.
  Both are relative checks: a secret shown to everyone, spectators included, or one a view
  keeps outside any seat-named part (race's own `charm`), is each game's own tests' to catch.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from rules import catalog
from rules.core import (
    Command,
    Event,
    Game,
    IllegalCommand,
    InvalidCommand,
    Rng,
    SeatInfo,
    fold,
    games,
)
from rules.decider import decide
from tests.support.randomplay import PlayRecord, play_random

ROOT = Path(__file__).resolve().parents[2]
SEED = 13
COMMANDS = 300  # a short game: the contract, not the ending (random-play tests play to the end)
# How many of a state's legal commands are re-sent from other seats (each is refused the same way).
RESENT = 3
# The costly checks (every legal command decided, every viewer's view) look at every EVERY-th
# state: one command seldom changes much, and each case's game is hundreds of states long.
EVERY = 2

catalog.load()
GAMES: dict[str, Game] = dict(sorted(games().items()))
CASES = [(name, n) for name, g in GAMES.items() for n in range(g.min_seats, g.max_seats + 1)]
IDS = [f"{name}-{n}" for name, n in CASES]
MISSING = object()


def _seats(n: int) -> list[SeatInfo]:
    return [SeatInfo(i, f"p{i}") for i in range(n)]


@cache
def _record(name: str, n: int) -> PlayRecord:
    return play_random(GAMES[name], {}, [s.name for s in _seats(n)], SEED, max_commands=COMMANDS,
                       require_end=False)


def transcripts() -> dict[str, list[Any]]:
    """Every case's events as JSON: what a second process must produce from the same seed."""
    return {f"{name}-{n}": [e.to_json() for e in _record(name, n).events] for name, n in CASES}


def _walk(game: Game, rec: PlayRecord) -> Iterator[tuple[Any, list[Event]]]:
    """(state, the events that led to it from the state before): after setup, then after
    each command of the record."""
    cuts = [seq for seq, _ in rec.steps] + [len(rec.events)]
    state = fold(game, rec.events[: cuts[0]])
    yield state, rec.events[: cuts[0]]
    for start, end in itertools.pairwise(cuts):
        state = fold(game, rec.events[start:end], state)
        yield state, rec.events[start:end]


def _json(x: Any) -> Any:
    return orjson.loads(orjson.dumps(x, option=orjson.OPT_NON_STR_KEYS))


def _leaves(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(x, dict) and x:
        for k, v in x.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(x, list) and x:
        for k, v in enumerate(x):
            yield from _leaves(v, (*path, k))
    else:
        yield path, x


def _at(x: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        if (isinstance(x, dict) and k in x) or (isinstance(x, list) and isinstance(k, int) and k < len(x)):
            x = x[k]
        else:
            return MISSING
    return x


def _panels(x: Any, viewer: int, seats: int, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], int]]:
    """(path, seat) of each part of a view that names a seat other than `viewer`."""
    if isinstance(x, dict):
        for key in ("seat", "owner"):
            k = x.get(key)
            if type(k) is int and 0 <= k < seats and k != viewer:
                yield path, k
                return
        for k, v in x.items():
            yield from _panels(v, viewer, seats, (*path, k))
    elif isinstance(x, list):
        for k, v in enumerate(x):
            yield from _panels(v, viewer, seats, (*path, k))


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_setup_for_each_seat_count(name: str, n: int) -> None:
    game = GAMES[name]
    events = game.setup({}, _seats(n), Rng(b"contract-setup"))
    assert events, "setup lays out the match in events"
    state = fold(game, events)
    assert game.is_over(state) is None
    assert state.prompt is not None and state.prompt.seats, "a new game prompts someone"
    assert set(state.prompt.seats) <= set(range(n))
    for seat in state.prompt.seats:
        assert list(game.legal_commands(state, seat)), f"prompted seat {seat} has no legal command"
    for viewer in [None, *range(n)]:
        orjson.dumps(game.view(state, viewer), option=orjson.OPT_NON_STR_KEYS)
    if n == game.min_seats:  # once per game: one seat too few, one too many
        for wrong in {game.min_seats - 1, game.max_seats + 1} - {0}:
            with pytest.raises(InvalidCommand):
                game.setup({}, _seats(wrong), Rng(b"contract-setup"))


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_random_play_keeps_the_contract(name: str, n: int) -> None:
    rec = _record(name, n)  # play_random raises on any breach it checks
    assert rec.commands, "the random game played no command"


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_every_listed_legal_command_is_accepted(name: str, n: int) -> None:
    game = GAMES[name]
    for k, (state, _) in enumerate(_walk(game, _record(name, n))):
        if k % EVERY or game.is_over(state) is not None:
            continue
        for seat in state.prompt.seats:
            for cmd in game.legal_commands(state, seat):
                text = game.format_text(cmd)
                assert game.parse_text(text, seat) == cmd, f"notation does not round-trip: {text!r}"
                try:
                    decision = decide(game, state, cmd, Rng(b"contract"))
                except (IllegalCommand, InvalidCommand) as e:
                    raise AssertionError(f"listed legal command {cmd} ({text!r}) refused: {e}") from e
                assert decision.events, f"an accepted command produced no event: {cmd}"


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_only_the_prompted_seats_may_act(name: str, n: int) -> None:
    game = GAMES[name]
    state: Any = None
    for state, _ in _walk(game, _record(name, n)):
        if game.is_over(state) is not None:
            break
        prompted = set(state.prompt.seats)
        sample = [c for s in sorted(prompted) for c in game.legal_commands(state, s)][:RESENT]
        for cmd in sample:
            with pytest.raises(IllegalCommand) as refused:
                decide(game, state, Command(cmd.type, cmd.args, None), Rng(b"contract"))
            assert refused.value.code == "seat_required"
        for other in sorted(set(range(n)) - prompted):
            assert list(game.legal_commands(state, other)) == [], f"seat {other} is not prompted"
            for cmd in sample:
                with pytest.raises(IllegalCommand) as refused:
                    decide(game, state, Command(cmd.type, cmd.args, other), Rng(b"contract"))
                assert refused.value.code == "not_your_turn", f"{cmd} from seat {other}: {refused.value}"
    rec = _record(name, n)
    if rec.outcome is not None:
        for seat in range(n):
            assert list(game.legal_commands(state, seat)) == [], "nobody may act after the end"
        last = rec.commands[-1]
        with pytest.raises(IllegalCommand) as refused:
            decide(game, state, last, Rng(b"contract"))
        assert refused.value.code == "game_over"


@dataclass
class Seen:
    """What every viewer was shown along a case's game, and what showing it changed."""

    changed: list[str] = field(default_factory=list)
    # per event: its redaction for each viewer (None, then each seat) as JSON, None when hidden
    events: list[tuple[str, dict[int | None, Any]]] = field(default_factory=list)
    # per looked-at state: each viewer's view as JSON
    views: list[dict[int | None, Any]] = field(default_factory=list)
    # per looked-at state: the prompt in words for each viewer (the summary shows the spectator's)
    prompts: list[dict[int | None, str]] = field(default_factory=list)


@cache
def _seen(name: str, n: int) -> Seen:
    game = GAMES[name]
    viewers: list[int | None] = [None, *range(n)]
    seen = Seen()
    for k, (state, events) in enumerate(_walk(game, _record(name, n))):
        logged = [repr(e) for e in events]
        for e in events:
            shown = {v: game.redact(e, v) for v in viewers}
            seen.events.append((e.type, {v: None if r is None else _json(r.to_json()) for v, r in shown.items()}))
        if k % EVERY == 0:  # (redact never sees the state: only view could change it)
            before = repr(state)
            seen.views.append({v: _json(game.view(state, v)) for v in viewers})
            names = [s.name for s in _seats(n)]
            seen.prompts.append({v: game.describe_prompt(state, v, names) for v in viewers}
                                if game.is_over(state) is None and state.prompt is not None else {})
            if repr(state) != before:
                seen.changed.append(f"the state after {len(seen.events)} events")
        if [repr(e) for e in events] != logged:
            seen.changed.append(f"an event among the {len(seen.events)} first")
    return seen


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_view_and_redact_never_change_state(name: str, n: int) -> None:
    changed = _seen(name, n).changed
    assert not changed, f"view or redact changed {changed[0]} (and {len(changed) - 1} more)"


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_no_other_seats_secret_in_any_event(name: str, n: int) -> None:
    for kind, redacted in _seen(name, n).events:
        shown = {v: dict(_leaves(r["data"])) for v, r in redacted.items() if r is not None}
        public = shown.get(None, {})
        for j in range(n):
            secret = [p for p, x in shown.get(j, {}).items() if public.get(p, MISSING) != x]
            for i in set(shown) - {None, j}:
                for p in secret:
                    assert shown[i].get(p, MISSING) == public.get(p, MISSING), (
                        f"{kind}: seat {i} sees seat {j}'s secret at data{list(p)}"
                    )


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_no_other_seats_secret_in_any_view(name: str, n: int) -> None:
    for views in _seen(name, n).views:
        spectator = views[None]
        for i in range(n):
            mine = views[i]
            for path, owner in _panels(mine, i, n):
                assert _at(mine, path) == _at(spectator, path), (
                    f"seat {i}'s view shows more of seat {owner}'s part at {list(path)} than a spectator's"
                )


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_no_other_seats_secret_in_the_prompts_words(name: str, n: int) -> None:
    """A secret is a word of a seat's own part of its view that the spectator's view does not
    hold there; no other seat's prompt sentence, nor the spectator's (every summary's), says it."""
    seen = _seen(name, n)
    checked = 0
    for views, texts in zip(seen.views, seen.prompts, strict=True):
        if not texts:
            continue
        spectator = views[None]
        for j in range(n):
            secret: set[str] = set()
            for path, owner in _panels(spectator, -1, n):
                if owner == j:
                    secret |= set(_strings(_at(views[j], path))) - set(_strings(_at(spectator, path)))
            for viewer in [None, *(i for i in range(n) if i != j)]:
                checked += 1
                for x in secret:
                    for form in _word_forms(x):
                        assert not re.search(rf"\b{re.escape(form)}\b", texts[viewer]), (
                            f"{viewer}'s prompt sentence holds seat {j}'s secret {x!r}: {texts[viewer]!r}")
    assert checked


def _second_process() -> dict[str, list[Any]]:
    """`transcripts()` from a fresh interpreter with a different hash seed."""
    ours = os.environ.get("PYTHONHASHSEED", "")
    path = os.pathsep.join(x for x in (str(ROOT), os.environ.get("PYTHONPATH", "")) if x)
    env = {**os.environ, "PYTHONHASHSEED": str(int(ours) + 1) if ours.isdigit() else "0", "PYTHONPATH": path}
    modules = sorted({type(g).__module__ for g in GAMES.values()})
    code = (
        "import sys, orjson\n"
        "from rules import catalog\n"
        f"catalog.load({modules!r})\n"
        "from tests.contract.test_game_contract import transcripts\n"
        "sys.stdout.buffer.write(orjson.dumps(transcripts()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                         timeout=600, check=False)
    assert out.returncode == 0, out.stderr.decode()[-3000:]
    result: dict[str, list[Any]] = orjson.loads(out.stdout)
    return result


@pytest.fixture(scope="module")
def second_process() -> dict[str, list[Any]]:
    return _second_process()


@pytest.mark.parametrize(("name", "n"), CASES, ids=IDS)
def test_same_seed_same_events_in_another_process(
    name: str, n: int, second_process: dict[str, list[Any]]
) -> None:
    ours = [e.to_json() for e in _record(name, n).events]
    theirs = second_process[f"{name}-{n}"]
    for seq, (a, b) in enumerate(zip(ours, theirs, strict=False), start=1):
        assert _json(a) == b, f"seq {seq} differs in another process: {a} != {b}"
    assert len(ours) == len(theirs)


# --- Words (issue #14): every legal command and every event in a sentence ----------------------
#
# 50 short seeded random games per game (seat counts in turn), played by a plain loop (the
# contract's own random games above are one per seat count, too few); every legal command of a
# prompted seat is described for that seat, and every event for every viewer as `redact` shows it
# to them, on the state it folds onto. A sentence is non-empty and holds no `uid`, no piece of
# code (None, braces, brackets, an underscore, `->`, `a:b`), no raw value of the command's or
# event's data (a content key with a digit, `_`, `-`, `:` or `+`, or a code like `WL`; the board
# coordinates of a game that prints them, `c4`, are how players name places), and, for seat i, no
# word of another seat's secret (a value `redact` shows seat j and not the spectator) that the
# spectator's sentence lacks.

WORDS_GAMES = 50
WORDS_COMMANDS = 30
COORDINATES = {"rite": re.compile(r"^[a-k](1[01]|[1-9])$"), "factions": re.compile(r"^[a-h][1-9]$"),
               "race": re.compile(r"^s\d$")}
_CODE = re.compile(r"\buid\b|\bNone\b|[{}\[\]_]|->|\w:\w")
_RAW = re.compile(r"[\d_:+-]|^[A-Z]{2,3}$")


def _strings(x: Any) -> Iterator[str]:
    for _, v in _leaves(x):
        if isinstance(v, str) and v:
            yield v


def _word_forms(v: str) -> set[str]:
    plain = v.replace("_", " ").replace("-", " ")
    return {v, plain, plain.title()} if len(v) >= 3 else set()


def _bad_words(game: str, text: str, data: Any) -> list[str]:
    found = [f"code {m.group(0)!r}" for m in [_CODE.search(text)] if m]
    coords = COORDINATES.get(game)
    words = set(re.findall(r"[\w:+-]+", text))
    for v in _strings(data):
        if _RAW.search(v) and not (coords and coords.match(v)) and v in words:
            found.append(f"raw value {v!r}")
    return found


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_legal_command_and_event_has_a_sentence(name: str) -> None:
    game = GAMES[name]
    problems: list[str] = []
    described = 0
    for k in range(WORDS_GAMES):
        n = game.min_seats + k % (game.max_seats - game.min_seats + 1)
        seats = _seats(n)
        names = [s.name for s in seats]
        viewers: list[int | None] = [None, *range(n)]
        rng = Rng(b"words-%d" % k)
        bot = random.Random(k)
        state = game.initial_state()
        pending = game.setup({}, seats, rng)
        for _ in range(WORDS_COMMANDS + 1):
            for e in pending:
                shown = {v: game.redact(e, v) for v in viewers}
                public = shown[None]
                texts = {v: game.describe_event(state, r, v, names).text for v, r in shown.items() if r is not None}
                for v, t in texts.items():
                    described += 1
                    if not t.strip():
                        problems.append(f"{e.type}: no sentence for viewer {v}")
                    problems += [f"{e.type} for {v}: {b}: {t!r}" for b in _bad_words(name, t, e.data)]
                pub_text = texts.get(None, "")
                for j in range(n):
                    rj = shown[j]
                    if rj is None:
                        continue
                    pub = dict(_leaves(_json(public.to_json()["data"]))) if public is not None else {}
                    secret = {x for p, x in _leaves(_json(rj.to_json()["data"]))
                              if isinstance(x, str) and pub.get(p, MISSING) != x}
                    for i in set(texts) - {None, j}:
                        for x in secret:
                            for form in _word_forms(x):
                                if re.search(rf"\b{re.escape(form)}\b", texts[i]) and not re.search(
                                        rf"\b{re.escape(form)}\b", pub_text):
                                    problems.append(f"{e.type}: seat {i} reads seat {j}'s secret {x!r}: {texts[i]!r}")
                state = game.evolve(state, e) if e.type.startswith(name + ".") else state
            if game.is_over(state) is not None or state.prompt is None:
                break
            prompt_text = game.describe_prompt(state, state.prompt.seats[0], names)
            if not prompt_text.strip() or _CODE.search(prompt_text):
                problems.append(f"prompt {state.prompt.kind}: {prompt_text!r}")
            chosen = None
            for seat in state.prompt.seats:
                legal = list(game.legal_commands(state, seat))
                for cmd in legal:
                    t = game.describe_command(state, cmd, seat, names)
                    described += 1
                    if not t.strip():
                        problems.append(f"{cmd.type}: no sentence")
                    problems += [f"{cmd.type} {game.format_text(cmd)!r}: {b}: {t!r}"
                                 for b in _bad_words(name, t, cmd.args)]
                    for i in range(n):
                        seen = game.redact_command(cmd, i)
                        if i != seat and seen is not None and seen != cmd:
                            ti = game.describe_command(state, seen, i, names)
                            secret = set(_strings(cmd.args)) - set(_strings(seen.args))
                            problems += [f"{cmd.type}: seat {i} reads the hidden {x!r}: {ti!r}"
                                         for x in secret for f in _word_forms(x) if f in ti]
                if legal and chosen is None:
                    chosen = bot.choice(legal)
            if chosen is None:
                break
            decision = decide(game, state, chosen, rng)
            pending = decision.events
        if len(problems) > 400:
            break
    assert described, "nothing was described"
    assert not problems, f"{len(problems)} problems, the first: " + "\n".join(sorted(set(problems))[:15])
