"""A match: the platform's facts (creation, accepted commands, seed reveal) around a game's state.

The same fold and the same `decide_match` serve the worker, the projector, replay and
the offline audit, so what the audit re-runs is exactly what the worker ran.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules.core import (
    Command,
    Event,
    Game,
    IllegalCommand,
    Outcome,
    Prompt,
    Rng,
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


@dataclass(frozen=True, slots=True)
class Match:
    gid: str
    game: str
    seats: tuple[SeatInfo, ...]
    options: Mapping[str, Any]
    commitment: str
    entropy: str
    draws: int
    state: Any
    seq: int = 0
    aborted: str | None = None
    seed: str | None = None
    joined: frozenset[int] = frozenset()

    @property
    def rules(self) -> Game:
        return get_game(self.game)

    def outcome(self) -> Outcome | None:
        if self.aborted is not None:
            return Outcome((), (), f"aborted: {self.aborted}")
        return self.rules.is_over(self.state)

    @property
    def over(self) -> bool:
        return self.outcome() is not None

    @property
    def status(self) -> str:
        """active, over (the rules ended it) or aborted (an admin ended it)."""
        if self.aborted is not None:
            return "aborted"
        return "over" if self.over else "active"

    @property
    def prompt(self) -> Prompt | None:
        return None if self.over else self.state.prompt


def created_event(
    gid: str, game: Game, seats: Sequence[SeatInfo], options: Mapping[str, Any], seed: bytes,
    entropy: Sequence[str],
) -> list[Event]:
    """GameCreated then the game's set-up events (set-up draws from the match Rng)."""
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
        },
    )
    return [created, *setup]


def apply(match: Match | None, event: Event) -> Match:
    """Fold one event (platform or game) into the match."""
    if event.type == GAME_CREATED:
        d = event.data
        game = get_game(d["game"])
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
        )
    if match is None:
        raise ValueError(f"the first event must be {GAME_CREATED}, not {event.type}")
    seq = match.seq + 1
    if event.type == COMMAND_ACCEPTED:
        return replace(match, draws=event.data["rng"][1], seq=seq)
    if event.type == SEED_REVEALED:
        return replace(match, seed=event.data["seed"], seq=seq)
    if event.type == GAME_ABORTED:
        return replace(match, aborted=event.data["reason"], seq=seq)
    if event.type == ENTROPY_ADDED:
        # Later draws depend on the entropy so far, chained so that no contribution can be undone.
        mixed = mix_entropy([match.entropy, event.data["entropy"]]).hex()
        return replace(match, entropy=mixed, joined=match.joined | {event.data["seat"]}, seq=seq)
    return replace(match, state=match.rules.evolve(match.state, event), seq=seq)


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
    state, seq, draws = m.state, m.seq, m.draws
    changed = False
    for e in it:
        t = e.type
        if t == COMMAND_ACCEPTED:
            draws = e.data["rng"][1]
            seq += 1
        elif t in (SEED_REVEALED, GAME_ABORTED, ENTROPY_ADDED, GAME_CREATED):
            # Rare platform facts: through `apply`, on the match as folded so far.
            m = apply(replace(m, state=state, seq=seq, draws=draws), e)
            evolve = m.rules.evolve
            state, seq, draws = m.state, m.seq, m.draws
            changed = False
            continue
        else:
            state = evolve(state, e)
            seq += 1
        changed = True
    if changed:
        m = replace(m, state=state, seq=seq, draws=draws)
    return m if m.gid == gid else replace(m, gid=gid)


def decide_match(match: Match, command: Command, command_id: str, seed: bytes) -> list[Event]:
    """All events one command appends: CommandAccepted, the game's events, and the seed reveal."""
    return decide_and_fold(match, command, command_id, seed)[0]


def decide_and_fold(
    match: Match, command: Command, command_id: str, seed: bytes
) -> tuple[list[Event], Match]:
    """`decide_match`'s events and the match with them folded in (the fold it needs anyway)."""
    if match.over:
        raise IllegalCommand("game_over", "the game is over")
    start = match.draws
    if command.type == ABORT:
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
        rng = Rng(seed, bytes.fromhex(match.entropy), match.gid, start)
        decision = decide(match.rules, match.state, command, rng)
        end = rng.draws
        accepted = _accepted(command, command_id, start, end)
        events = [accepted, *decision.events]
        # The rules folded their events as they made them: take that state, fold nothing again.
        after = replace(match, state=decision.state, seq=match.seq + len(events), draws=end)
        return _revealed(events, after, seed)
    events = [_accepted(command, command_id, start, end), *game_events]
    after = fold_match(events, match.gid, match)
    return _revealed(events, after, seed)


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


def command_of(event: Event) -> Command:
    """The command a CommandAccepted event records."""
    return Command(event.data["type"], event.data["args"], event.seat)
