"""A match: the platform's facts (creation, accepted commands, seed reveal) around a game's state.

The same fold and the same `decide_and_fold` serve the worker, the projector, replay and
the offline audit, so what the audit re-runs is exactly what the worker ran.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from events.domain.matchstate import Match
from events.domain.platform import AUTOMATIC as PLATFORM_AUTOMATIC
from events.domain.platform import COMMANDS as PLATFORM_COMMANDS
from events.domain.platform import EVENTS as PLATFORM_EVENTS
from events.domain.platform import Context
from events.domain.platform.conduct import require_no_dispute
from events.domain.provenance import (
    FORKED_FROM,
    appointment_of,
    forked_state,
    provenance,
    provenance_of,
)
from rules.core import (
    Command,
    Event,
    Game,
    IllegalCommand,
    Rng,
    RulesVersionUnavailable,
    SeatInfo,
    get_game,
)
from rules.decider import decide

GAME_CREATED = "boardlog.GameCreated"
COMMAND_ACCEPTED = "boardlog.CommandAccepted"
GAME_ABORTED = "boardlog.GameAborted"
SEED_REVEALED = "boardlog.SeedRevealed"
ENTROPY_ADDED = "boardlog.EntropyAdded"
ABORT = "boardlog.abort"
JOIN = "boardlog.join"
MAX_ENTROPY = 256


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def mix_entropy(contributions: Sequence[str]) -> bytes:
    """One entropy value from every seat's contribution, order-sensitive."""
    h = hashlib.sha256()
    for c in contributions:
        b = c.encode()
        h.update(len(b).to_bytes(4, "big") + b)
    return h.digest()


def created_event(
    gid: str, game: Game, seats: Sequence[SeatInfo], options: Mapping[str, Any], seed: bytes,
    entropy: Sequence[str], referee: str | None = None, platform: Mapping[str, Any] | None = None,
    appointed: str | None = None,
) -> list[Event]:
    """GameCreated then the game's set-up events (set-up draws from the match Rng). `platform`:
    the platform options (events.domain.platform.OPTIONS), written only when some are chosen."""
    rng = Rng(seed, mix_entropy(entropy), gid, 0)
    setup = game.setup(options, seats, rng)
    created = Event(
        GAME_CREATED,
        {
            "game": game.name,
            "seats": [{"seat": s.seat, "name": s.name} for s in seats],
            "options": dict(options),
            "commitment": commitment(seed),
            "entropy": list(entropy),
            "draws": rng.draws,
            **provenance(game, referee, appointed=appointed),
            **({"platform": dict(platform)} if platform else {}),
        },
    )
    return [created, *setup]


def apply(match: Match | None, event: Event) -> Match:
    """Fold one event (platform or game) into the match."""
    if event.type == GAME_CREATED:
        d = event.data
        version, referee, origin = provenance_of(d)
        game = get_game(d["game"])  # raises for a game this build does not have
        with contextlib.suppress(RulesVersionUnavailable):  # else read under this build's rules:
            game = get_game(d["game"], version)  # its moves are refused (decide_and_fold)
        return Match(
            gid="",
            game=d["game"],
            seats=tuple(SeatInfo(s["seat"], s["name"]) for s in d["seats"]),
            options=d["options"],
            commitment=d["commitment"],
            entropy=mix_entropy(d["entropy"]).hex(),
            draws=d["draws"],
            state=game.initial_state(),
            seq=1,
            rules_version=version,
            referee=referee,
            referee_appointed=appointment_of(d),
            origin=origin,
            settings=MappingProxyType(dict(d.get("platform") or {})),
        )
    if match is None:
        raise ValueError(f"the first event must be {GAME_CREATED}, not {event.type}")
    seq = match.seq + 1
    if event.type == COMMAND_ACCEPTED:
        if str(event.data["type"]).startswith("boardlog."):
            return replace(match, draws=event.data["rng"][1], seq=seq)
        return replace(match, draws=event.data["rng"][1], seq=seq, last_command=(event.seat, seq, seq))
    if event.type == SEED_REVEALED:
        return replace(match, seed=event.data["seed"], seq=seq)
    if event.type == FORKED_FROM:
        return replace(match, state=forked_state(match.rules, event), seq=seq)
    if event.type == GAME_ABORTED:
        return replace(match, aborted=event.data["reason"], seq=seq)
    fold = PLATFORM_EVENTS.get(event.type)
    if fold is not None:
        return fold(replace(match, seq=seq), event)
    if event.type == ENTROPY_ADDED:
        # Later draws depend on the entropy so far, chained so that no contribution can be undone.
        mixed = mix_entropy([match.entropy, event.data["entropy"]]).hex()
        return replace(match, entropy=mixed, joined=match.joined | {event.data["seat"]}, seq=seq)
    last = match.last_command
    return replace(match, state=match.rules.evolve(match.state, event), seq=seq,
                   last_command=None if last is None else (last[0], last[1], seq))


def fold_match(events: Iterable[Event], gid: str, match: Match | None = None) -> Match:
    """`apply` over many events. The match is rebuilt once at the end, not once an event: a
    replay folds thousands, and a dataclass copy each cost more than the game's own evolve."""
    it = iter(events)
    m = match
    if m is None:
        first = next(it, None)
        if first is None:
            raise ValueError("no events to fold")
        m = apply(None, first)
    evolve = m.rules.evolve
    state, seq, draws, last = m.state, m.seq, m.draws, m.last_command
    changed = False
    for e in it:
        t = e.type
        if t == COMMAND_ACCEPTED:
            draws = e.data["rng"][1]
            seq += 1
            if not e.data["type"].startswith("boardlog."):
                last = (e.seat, seq, seq)
        elif t.startswith("boardlog."):
            # Rare platform facts: through `apply`, on the match as folded so far.
            m = apply(m.played(state, seq, draws, last), e)
            evolve = m.rules.evolve
            state, seq, draws, last = m.state, m.seq, m.draws, m.last_command
            changed = False
            continue
        else:
            state = evolve(state, e)
            seq += 1
            if last is not None:
                last = (last[0], last[1], seq)
        changed = True
    if changed:
        m = m.played(state, seq, draws, last)
    return m if m.gid == gid else replace(m, gid=gid)


def decide_and_fold(
    match: Match, command: Command, command_id: str, seed: bytes, context: Context | None = None
) -> tuple[list[Event], Match]:
    """All events one command appends (CommandAccepted, the game's events, and the seed reveal)
    and the match with them folded in (the fold it needs anyway).
    `context` is what a platform command may read besides the match (the time, past matches)."""
    platform = PLATFORM_COMMANDS.get(command.type)
    if match.over and not (platform is not None and platform.after_end):
        raise IllegalCommand("game_over", "the game is over")
    start = match.draws
    if platform is not None:
        game_events = platform.decide(match, command, context or Context(at=""))
        end = start
    elif command.type == ABORT:
        game_events = [Event(GAME_ABORTED, {"reason": str(command.args.get("reason", "admin"))})]
        end = start
    elif command.type == JOIN:
        seat, entropy = command.seat, command.args.get("entropy")
        if seat is None or not 0 <= seat < len(match.seats):
            raise IllegalCommand("seat_required", "a seat joins with its own token")
        if seat in match.joined:
            raise IllegalCommand("already_joined", f"seat {seat} has already added its entropy")
        if not isinstance(entropy, str) or not 1 <= len(entropy) <= MAX_ENTROPY:
            raise IllegalCommand("bad_entropy", f"entropy is a string of 1 to {MAX_ENTROPY} characters")
        game_events = [Event(ENTROPY_ADDED, {"seat": seat, "entropy": entropy}, seat)]
        end = start
    else:
        require_no_dispute(match)  # the game waits for the ruling
        _require_rules(match)
        rng = Rng(seed, bytes.fromhex(match.entropy), match.gid, start)
        decision = decide(match.rules, match.state, command, rng, [x.name for x in match.seats])
        end = rng.draws
        accepted = _accepted(command, command_id, start, end)
        events = [accepted, *decision.events]
        # The rules folded their events as they made them: take that state, fold nothing again.
        after = match.played(decision.state, match.seq + len(events), end,
                             (command.seat, match.seq + 1, match.seq + len(events)))
        return _revealed(events, after, seed)
    events = [_accepted(command, command_id, start, end), *game_events]
    after = fold_match(events, match.gid, match)
    return _revealed(events, after, seed)


def _require_rules(match: Match) -> None:
    """A game is never switched silently to other rules: a game whose rules version this build
    does not have refuses its moves (docs/referees-and-forks.md, "Rules versions", says how to migrate)."""
    try:
        get_game(match.game, match.rules_version)
    except RulesVersionUnavailable as e:
        raise IllegalCommand(e.code, f"this game was {e.message}: its moves are refused rather than played "
                                     "under other rules (see 'Rules versions' in docs/referees-and-forks.md)") from None


def _accepted(command: Command, command_id: str, start: int, end: int) -> Event:
    return Event(
        COMMAND_ACCEPTED,
        {"id": command_id, "type": command.type, "args": dict(command.args), "rng": [start, end]},
        command.seat,
    )


def _revealed(events: list[Event], after: Match, seed: bytes) -> tuple[list[Event], Match]:
    """The seed is revealed by the command that ends the game."""
    if after.over:
        reveal = Event(SEED_REVEALED, {"seed": seed.hex()})
        events.append(reveal)
        after = apply(after, reveal)
    return events, after


def automatic(match: Match) -> tuple[str, Command] | None:
    """The first command the platform sends by itself on this match (a resigned seat's pass, a
    queued conditional move), with the id part that makes its command id stable, or None."""
    if match.over:
        return None
    for rule in PLATFORM_AUTOMATIC:
        found = rule(match)
        if found is not None:
            return found
    return None


def command_of(event: Event) -> Command:
    """The command a CommandAccepted event records."""
    return Command(event.data["type"], event.data["args"], event.seat)
