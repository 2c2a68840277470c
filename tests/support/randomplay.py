"""Seeded random bots that play a game through `legal_commands`, checking the Game contract.

Every game's random-play test calls `play_random`. It checks, as it goes:
- every command a bot picks from `legal_commands` is accepted by the platform's `decide`,
  and the state its Decision hands back equals its events folded;
- the command's notation round-trips (`parse_text(format_text(c)) == c`) and its JSON
  shape is accepted by `parse_command`;
- events are JSON-able and survive an orjson round trip unchanged;
- `fold(events[:k])` equals the live state at random cut points (replay == live);
- re-running every command from `setup` with a fresh Rng gives the same events (the audit);
- the game ends within `max_commands` (unless `require_end=False`).
A `policy` may weigh the choice (e.g. towards a faction's objective) but still picks one of
the legal commands.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from rules.core import Command, Event, Game, Outcome, Rng, SeatInfo, fold
from rules.decider import decide


@dataclass
class PlayRecord:
    events: list[Event]
    commands: list[Command]
    outcome: Outcome | None
    state: Any
    # (seq before the command, command) pairs, to re-run for the audit
    steps: list[tuple[int, Command]] = field(default_factory=list)
    decide_seconds: float = 0.0
    evolve_seconds: float = 0.0
    legal_seconds_max: float = 0.0
    legal_calls: int = 0


# A bot's way of picking one of the legal commands (the default is a uniform choice).
Policy = Callable[[Any, int, list[Command], random.Random], Command]


def _roundtrip_events(events: Sequence[Event]) -> None:
    for e in events:
        raw = orjson.dumps(e.to_json(), option=orjson.OPT_SORT_KEYS)
        back = orjson.loads(raw)
        assert back == orjson.loads(orjson.dumps(e.to_json())), e
        assert Event(back["type"], back["data"], back["seat"]) == Event(
            e.type, orjson.loads(orjson.dumps(dict(e.data))), e.seat
        ), f"event does not survive JSON: {e}"


def play_random(
    game: Game,
    options: Mapping[str, Any],
    names: Sequence[str],
    seed: int,
    *,
    max_commands: int = 20_000,
    replay_checks: int = 3,
    check_notation: bool = True,
    check_audit: bool = True,
    policy: Policy | None = None,
    require_end: bool = True,
) -> PlayRecord:
    """Play one complete game with random bots; raise AssertionError on any contract breach.
    With `require_end=False` it stops after `max_commands` (a smoke run), still checking replay
    and audit on what was played."""
    seats = [SeatInfo(i, n) for i, n in enumerate(names)]
    bot = random.Random(seed)
    secret = seed.to_bytes(8, "big")
    rng = Rng(secret, b"", f"test-{seed}")
    events = list(game.setup(options, seats, rng))
    _roundtrip_events(events)
    state = fold(game, events)
    rec = PlayRecord(events=events, commands=[], outcome=None, state=state)
    live_at: dict[int, Any] = {}
    for _ in range(max_commands):
        if len(live_at) < replay_checks and bot.random() < 0.05:
            live_at[len(rec.events)] = state
        out = game.is_over(state)
        if out is not None:
            rec.outcome = out
            break
        prompt = state.prompt
        assert prompt is not None and prompt.seats, "a game that is not over must prompt someone"
        seat = bot.choice(list(prompt.seats))
        t0 = time.perf_counter()
        legal = list(game.legal_commands(state, seat))
        dt = time.perf_counter() - t0
        rec.legal_calls += 1
        rec.legal_seconds_max = max(rec.legal_seconds_max, dt)
        assert legal, f"seat {seat} is prompted ({prompt.kind}) but has no legal command"
        if policy is None:
            cmd = bot.choice(legal)
        else:
            cmd = policy(state, seat, legal, bot)
            assert cmd in legal, f"the bot's policy picked a command outside legal_commands: {cmd}"
        assert cmd.seat == seat, f"legal command for seat {seat} carries seat {cmd.seat}"
        if check_notation:
            text = game.format_text(cmd)
            assert game.parse_text(text, seat) == cmd, f"notation does not round-trip: {text!r}"
            again = game.parse_command(cmd.type, orjson.loads(orjson.dumps(dict(cmd.args))), seat)
            assert again == cmd, f"JSON shape does not round-trip: {cmd}"
        t0 = time.perf_counter()
        decision = decide(game, state, cmd, rng)
        rec.decide_seconds += time.perf_counter() - t0
        new = decision.events
        assert new, f"an accepted command produced no event: {cmd}"
        _roundtrip_events(new)
        rec.steps.append((len(rec.events), cmd))
        t0 = time.perf_counter()
        folded = state
        for e in new:
            folded = game.evolve(folded, e)
        rec.evolve_seconds += time.perf_counter() - t0
        assert decision.state == folded, f"decide's state differs from its events folded: {cmd}"
        state = decision.state
        rec.events.extend(new)
        rec.commands.append(cmd)
    else:
        if require_end:
            raise AssertionError(f"game did not end within {max_commands} commands")
    rec.state = state
    # replay == live at the cut points captured while playing (cuts fall between commands)
    for cut, live in live_at.items():
        assert fold(game, rec.events[:cut]) == live, f"replay at seq {cut} differs from live"
    assert fold(game, rec.events) == state, "replay of the whole log differs from the live state"
    if check_audit:
        rerun_rng = Rng(secret, b"", f"test-{seed}")
        again_events = list(game.setup(options, seats, rerun_rng))
        st = fold(game, again_events)
        for _, cmd in rec.steps:
            again = decide(game, st, cmd, rerun_rng)
            st = again.state
            again_events.extend(again.events)
        assert again_events == rec.events, "re-running the commands gave different events"
    return rec
