"""What-if forks: an analysis game started from another game's position at a seq.

The fork's opening is its own: a GameCreated naming the origin game, seq and head hash (and the
rules version, the same as the origin's: its state is that version's), with the fork's own seed
committed and no draws yet; then a ForkedFrom carrying the origin's folded state at that seq
(events.domain.provenance). No set-up runs. The origin is only read.

Who may fork at a seq: anyone who may view it with nothing hidden, since every seat of the fork
(and so every secret of its starting state) goes to the forker, and everything in a fork is
public once the fork ends. So a fork is refused where the origin's record up to that seq holds
anything a spectator does not see (a hidden unit, a face-down card) until the origin is over.
"""

from __future__ import annotations

from collections.abc import Sequence

from events.domain.match import COMMAND_ACCEPTED, GAME_CREATED, Match, commitment, fold_match
from events.domain.platform.base import NEW_GAMES
from events.domain.provenance import fork_matches_origin, forked_event, provenance, provenance_of
from events.records.envelope import Envelope
from rules.core import Command, Event, RulesVersionUnavailable, get_game


class ForkRefused(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def hidden_before(match: Match, envs: Sequence[Envelope]) -> int | None:
    """The first seq among `envs` a spectator does not see as logged; None when none."""
    game = match.rules
    prefix = game.name + "."
    for env in envs:
        if env.type == COMMAND_ACCEPTED and not env.data["type"].startswith("boardlog."):
            cmd = Command(env.data["type"], env.data["args"], env.seat)
            if game.redact_command(cmd, None) != cmd:
                return env.seq
        elif env.type.startswith(prefix) and game.redact(env.event, None) != env.event:
            return env.seq
    return None


def check_fork(origin: Match, origin_over: bool, envs: Sequence[Envelope], head_seq: int) -> None:
    """Refuse a fork at `origin.seq` (the match folded to it; `envs` the record up to it and the
    one event after it, if any) with a code and a reason; return for an allowed one."""
    at = origin.seq
    try:  # a fork plays on under its origin's rules, never silently under this build's others
        get_game(origin.game, origin.rules_version)
    except RulesVersionUnavailable as e:
        raise ForkRefused(e.code, f"the game was {e.message}: it cannot be forked here") from None
    if origin.over:
        raise ForkRefused("nothing_to_play", f"the game is over at seq {at}: fork an earlier seq")
    if at < head_seq and (len(envs) <= at or envs[at].type != COMMAND_ACCEPTED):
        raise ForkRefused("inside_a_command", f"seq {at} falls inside a command's events: fork at a seq where a "
                                              "command's events end (the move list's seq_to)")
    if not origin_over:
        seq = hidden_before(origin, envs[:at])
        if seq is not None:
            raise ForkRefused("fork_would_reveal", f"seq {seq} holds what a spectator may not see, and a fork gives "
                              "every seat's secrets to its forker: fork this game once it is over")


def fork_opening(origin_gid: str, head: str, origin: Match, seed: bytes, names: Sequence[str]) -> list[Event]:
    """The fork's first two events, from the origin's match at the seq named (its head `head`)."""
    where = (origin_gid, origin.seq, head)
    created = Event(GAME_CREATED, {
        "game": origin.game,
        "seats": [{"seat": i, "name": n} for i, n in enumerate(names)],
        "options": dict(origin.options),
        "commitment": commitment(seed),
        "entropy": ["" for _ in names],
        "draws": 0,
        # a fork's voided dispute draws afresh too (events.domain.platform.disputes)
        "platform": dict(NEW_GAMES),
        **provenance(origin.rules, None, where),
    })
    return [created, forked_event(where, origin.state)]


def origin_problem(fork: Sequence[Envelope], origin: Sequence[Envelope]) -> str | None:
    """What the fork's own audit cannot prove, checked against the origin's record: None when the
    origin's hash at the seq the fork names is the one it names and the fork's starting state is
    the origin's folded state there; else why not. (Each record's chain is its own audit's job.)"""
    if not fork or not origin:
        return "a record is empty"
    where = provenance_of(fork[0].event.data)[2] if fork[0].type == GAME_CREATED else None
    if where is None:
        return "the first record is not a fork"
    gid, seq, head = where
    if origin[0].game != gid:
        return f"the fork names game {gid}, not {origin[0].game}"
    if len(origin) < seq:
        return f"the origin's record ends at seq {len(origin)}, before the fork's seq {seq}"
    if origin[seq - 1].hash != head:
        return f"the origin's hash at seq {seq} is {origin[seq - 1].hash[:16]}…, not the {head[:16]}… the fork names"
    start = fold_match((e.event for e in fork[:2]), fork[0].game)
    at = fold_match((e.event for e in origin[:seq]), gid)
    if not fork_matches_origin(start.state, at.state):
        return f"the fork's starting state is not the origin's at seq {seq}"
    return None
