"""Answering a proposal: `boardlog.accept` and `boardlog.refuse` (conduct's draws and
abandonments, and takebacks). The last accept appends what was agreed: `DrawAgreed`,
`AbandonmentAgreed`, or the takeback's `TakenBack`. Its own module, since it reads both
conduct's state and the takeback's compensating event."""

from __future__ import annotations

from collections.abc import Mapping

from events.domain.matchstate import Match
from events.domain.platform.base import Context, PlatformCommand
from events.domain.platform.conduct import (
    ABANDON,
    ABANDONMENT_AGREED,
    DRAW,
    DRAW_AGREED,
    PROPOSAL_ACCEPTED,
    PROPOSAL_REFUSED,
    Proposal,
    open_proposal,
    remaining,
    require_no_dispute,
    require_seat,
)
from events.domain.platform.takeback import taken_back
from rules.core import Command, Event, IllegalCommand

ACCEPT = "boardlog.accept"
REFUSE = "boardlog.refuse"


def _answered(match: Match, command: Command) -> tuple[int, Proposal]:
    extra = set(command.args) - {"proposal"}
    if extra:
        raise IllegalCommand("bad_args", f"{command.type} takes only proposal, not {sorted(extra)}")
    seat = require_seat(match, command)
    p = open_proposal(match)
    if p is None:
        raise IllegalCommand("no_proposal", "there is no open proposal to answer")
    named = command.args.get("proposal")
    if named is not None and named != p.seq:
        raise IllegalCommand("proposal_changed", f"the open proposal is the one of seq {p.seq}, not {named}")
    return seat, p


def decide_accept(match: Match, command: Command, context: Context) -> list[Event]:
    seat, p = _answered(match, command)
    require_no_dispute(match)  # an agreement waits for the ruling too (refusing one does not)
    if seat in p.accepted:
        raise IllegalCommand("already_accepted", "this seat has already accepted the proposal")
    events = [Event(PROPOSAL_ACCEPTED, {"seat": seat, "kind": p.kind, "proposal": p.seq}, seat)]
    if set(remaining(match)) <= p.accepted | {seat}:
        events.append(_agreed(match, p, context))
    return events


def _agreed(match: Match, p: Proposal, context: Context) -> Event:
    if p.kind == DRAW:
        return Event(DRAW_AGREED, {"proposal": p.seq, "seats": remaining(match)})
    if p.kind == ABANDON:
        return Event(ABANDONMENT_AGREED, {"proposal": p.seq, "seats": remaining(match)})
    return taken_back(match, p, context)


def decide_refuse(match: Match, command: Command, context: Context) -> list[Event]:
    seat, p = _answered(match, command)
    # The proposer refusing its own proposal withdraws it.
    return [Event(PROPOSAL_REFUSED, {"seat": seat, "kind": p.kind, "proposal": p.seq}, seat)]


COMMANDS: Mapping[str, PlatformCommand] = {
    ACCEPT: PlatformCommand(decide_accept),
    REFUSE: PlatformCommand(decide_refuse),
}
