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

from events.domain.match import COMMAND_ACCEPTED, GAME_CREATED, Match, commitment
from events.domain.provenance import forked_event, provenance
from events.mapping.envelope import Envelope
from rules.core import Command, Event


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
        **provenance(origin.rules, None, where),
    })
    return [created, forked_event(where, origin.state)]
