"""Conduct: resigning, and agreements every remaining seat accepts (a draw, an abandonment).

The folded state lives under `match.platform["conduct"]` as one frozen `Conduct`. It is also
where a game the platform ends says how (`Conduct.outcome`, read by `Match.outcome`), where
takebacks (events.domain.platform.takeback) keep their open request and the undone seqs, and
where disputes (events.domain.platform.disputes) keep theirs: the clock reads
`Conduct.dispute_open` to stop while one is open.

A resigned seat stays at the table: its units stay where they stand and the platform answers
each of its prompts with the game's default answer (`Game.default_answer`, a pass where the
rules allow one; each game's RULINGS.md says which), through `AUTOMATIC`, so the game goes on
without it. When one seat is left it wins; a two-seat game therefore ends at a resignation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from events.domain.matchstate import Match
from events.domain.platform.base import Automatic, Context, Fold, PlatformCommand
from rules.core import Command, Event, IllegalCommand, Outcome

CONDUCT = "conduct"

RESIGN = "boardlog.resign"
PROPOSE = "boardlog.propose"

RESIGNED = "boardlog.Resigned"
PROPOSED = "boardlog.AgreementProposed"
PROPOSAL_ACCEPTED = "boardlog.ProposalAccepted"
PROPOSAL_REFUSED = "boardlog.ProposalRefused"
DRAW_AGREED = "boardlog.DrawAgreed"
ABANDONMENT_AGREED = "boardlog.AbandonmentAgreed"

DRAW, ABANDON, TAKEBACK = "draw", "abandon", "takeback"
AGREEMENTS = (DRAW, ABANDON)


@dataclass(frozen=True, slots=True)
class Proposal:
    """An open request every other remaining seat must accept: a draw, an abandonment or a
    takeback. `seq` is the seq of the event that opened it (what an accept may name)."""

    kind: str
    by: int
    seq: int
    accepted: frozenset[int] = frozenset()
    # A takeback's: the seq whose state it returns to, and the last command's (seat, first, last).
    to_seq: int = 0
    command: tuple[int | None, int, int] | None = None


@dataclass(frozen=True, slots=True)
class Dispute:
    """A dispute opened by seat `by` at seq `seq` on the command at seq `on`. `verdict` is None
    while open, then "upheld" or "voided"; `votes` are the other seats' verdicts in an unrefereed
    game (it is resolved when all of them name the same one)."""

    seq: int
    by: int
    on: int
    note: str
    verdict: str | None = None
    votes: tuple[tuple[int, str], ...] = ()
    of: int | None = None  # the seat whose command it is (None: not recorded, a record from before)
    step: str = ""  # "" a seat's move; "timeout": the platform's timeout of seat `of`'s turn


@dataclass(frozen=True, slots=True)
class Conduct:
    resigned: tuple[int, ...] = ()
    ended: Outcome | None = None  # set when the platform ended the game
    proposal: Proposal | None = None
    # Seqs undone by a takeback or a voided dispute: (first, last, the seq of the undoing event).
    # The events stay in the log; replay strikes the game's commands in these ranges through.
    undone: tuple[tuple[int, int, int], ...] = ()
    disputes: tuple[Dispute, ...] = ()

    def outcome(self, ruled: Outcome | None) -> Outcome | None:
        """The game's outcome: the platform's when it ended the game, else the rules' with
        resigned seats out of the winners (the best remaining score wins in their place)."""
        if self.ended is not None:
            return self.ended
        if ruled is None or not self.resigned:
            return ruled
        winners = tuple(w for w in ruled.winners if w not in self.resigned)
        if not winners and ruled.winners and ruled.scores:
            left = [s for s in range(len(ruled.scores)) if s not in self.resigned]
            best = max((ruled.scores[s] for s in left), default=None)
            winners = tuple(s for s in left if ruled.scores[s] == best)
        return Outcome(winners, ruled.scores, ruled.reason)

    @property
    def dispute_open(self) -> bool:
        return any(d.verdict is None for d in self.disputes)


NONE = Conduct()


def conduct_of(match: Match) -> Conduct:
    value = match.platform.get(CONDUCT)
    return value if isinstance(value, Conduct) else NONE


def with_conduct(match: Match, conduct: Conduct) -> Match:
    return replace(match, platform=MappingProxyType({**match.platform, CONDUCT: conduct}))


def remaining(match: Match) -> list[int]:
    """The seats still playing (not resigned)."""
    gone = conduct_of(match).resigned
    return [s.seat for s in match.seats if s.seat not in gone]


def open_proposal(match: Match) -> Proposal | None:
    """The proposal open now. A takeback lapses by itself once anyone else acted (the last game
    command is no longer the one it would undo): nothing needs to be appended for that."""
    p = conduct_of(match).proposal
    if p is not None and p.kind == TAKEBACK and match.last_command != p.command:
        return None
    return p


def waiting_on_dispute(match: Match) -> IllegalCommand | None:
    """Why nothing but talk, rulings and resignations is played now (None: it may be): an open
    dispute holds the game where it stands, so that a void undoes only the move disputed and
    the moves before it, never a move played while the referee was still reading."""
    d = next((x for x in conduct_of(match).disputes if x.verdict is None), None)
    if d is None:
        return None
    names = [s.name for s in match.seats]
    who = names[d.by] if 0 <= d.by < len(names) else f"seat {d.by}"
    whose = f"{names[d.of]}'s " if d.of is not None and 0 <= d.of < len(names) else ""
    if d.step == "timeout" and d.of == d.by:
        whose = "their "
    waits = "the referee's ruling" if match.referee is not None else "the other seats' votes"
    # The move list's number for the move is not the core's to know (it counts entries): the
    # note names what is contested, in the disputing seat's words.
    note = d.note if len(d.note) <= 80 else d.note[:79] + "…"
    what = "timeout" if d.step == "timeout" else "move"
    return IllegalCommand("dispute_open", f"{who} disputes {whose or 'a '}{what} ({note!r}): "
                                          f"the game waits for {waits}")


def require_no_dispute(match: Match) -> None:
    refusal = waiting_on_dispute(match)
    if refusal is not None:
        raise refusal


def require_seat(match: Match, command: Command) -> int:
    seat = command.seat
    if seat is None or not 0 <= seat < len(match.seats):
        raise IllegalCommand("seat_required", f"{command.type} is sent by a seat")
    if seat in conduct_of(match).resigned:
        raise IllegalCommand("resigned", "this seat has resigned")
    return seat


def _no_args(command: Command, allowed: frozenset[str] = frozenset()) -> None:
    extra = set(command.args) - allowed
    if extra:
        raise IllegalCommand("bad_args", f"{command.type} takes no {sorted(extra)}")


# -- resign ---------------------------------------------------------------------------------


def decide_resign(match: Match, command: Command, context: Context) -> list[Event]:
    _no_args(command)
    seat = require_seat(match, command)
    return [Event(RESIGNED, {"seat": seat}, seat)]


def fold_resigned(match: Match, event: Event) -> Match:
    c = conduct_of(match)
    seat = int(event.data["seat"])
    resigned = (*c.resigned, seat)
    left = [s.seat for s in match.seats if s.seat not in resigned]
    ended = c.ended
    if len(left) == 1:
        names = ", ".join(match.seats[s].name for s in resigned)
        reason = f"resigned: {names}"
        timeouts = event.data.get("timeouts")
        if isinstance(timeouts, int):
            # A clock's forfeit (events.domain.platform.clock): the reason says it was the clock.
            reason += f"; {match.seats[seat].name} ran out of time {timeouts_words(timeouts)}"
        ended = Outcome((left[0],), (), reason)
    # A resignation withdraws any open proposal: the seats it needed have changed.
    return with_conduct(match, replace(c, resigned=resigned, ended=ended, proposal=None))


def timeouts_words(n: int) -> str:
    return f"{n} turns in a row" if n > 1 else "on their turn"


def resigned_seat_answer(match: Match) -> tuple[str, Command] | None:
    """The default answer for a resigned seat the prompt names (the game goes on without it)."""
    gone = conduct_of(match).resigned
    prompt = match.prompt
    # While a dispute is open the game waits: the answer comes once it is settled.
    if not gone or prompt is None or conduct_of(match).dispute_open:
        return None
    for seat in prompt.seats:
        if seat in gone:
            return f"resigned{seat}", match.rules.default_answer(match.state, seat)
    return None


# -- agreements (draw, abandonment) ---------------------------------------------------------


def decide_propose(match: Match, command: Command, context: Context) -> list[Event]:
    _no_args(command, frozenset({"kind"}))
    seat = require_seat(match, command)
    kind = command.args.get("kind")
    if kind not in AGREEMENTS:
        raise IllegalCommand("bad_args", f"kind: one of {list(AGREEMENTS)}")
    require_no_dispute(match)
    if open_proposal(match) is not None:
        raise IllegalCommand("proposal_open", "another proposal is open: accept or refuse it first")
    return [Event(PROPOSED, {"seat": seat, "kind": kind}, seat)]


def fold_proposed(match: Match, event: Event) -> Match:
    c = conduct_of(match)
    seat = int(event.data["seat"])
    p = Proposal(str(event.data["kind"]), seat, match.seq, frozenset({seat}))
    return with_conduct(match, replace(c, proposal=p))


def fold_accepted(match: Match, event: Event) -> Match:
    c = conduct_of(match)
    if c.proposal is None:
        return match
    p = replace(c.proposal, accepted=c.proposal.accepted | {int(event.data["seat"])})
    return with_conduct(match, replace(c, proposal=p))


def fold_refused(match: Match, event: Event) -> Match:
    return with_conduct(match, replace(conduct_of(match), proposal=None))


def fold_draw(match: Match, event: Event) -> Match:
    return with_conduct(match, replace(conduct_of(match), proposal=None,
                                       ended=Outcome((), (), "draw agreed by every seat")))


def fold_abandoned(match: Match, event: Event) -> Match:
    return with_conduct(match, replace(conduct_of(match), proposal=None,
                                       ended=Outcome((), (), "abandoned by agreement of every seat")))


def conduct_summary(match: Match) -> dict[str, Any]:
    """What every viewer is told of conduct: who resigned, the open proposal, the disputes and
    the undone seqs (the summary, the view and the board page read it)."""
    c = conduct_of(match)
    p = open_proposal(match)
    out: dict[str, Any] = {
        "resigned": list(c.resigned),
        "proposal": None if p is None else {
            "kind": p.kind, "by": p.by, "seq": p.seq, "accepted": sorted(p.accepted),
            "waiting": [s for s in remaining(match) if s not in p.accepted and s != p.by],
            **({"to_seq": p.to_seq} if p.kind == TAKEBACK else {}),
        },
        "undone": [{"first": a, "last": b, "by_seq": by} for a, b, by in c.undone],
        "disputes": [{"seq": d.seq, "by": d.by, "on": d.on, "note": d.note, "verdict": d.verdict, "of": d.of,
                      "votes": [{"seat": s, "verdict": v} for s, v in d.votes],
                      **({"step": d.step} if d.step else {})} for d in c.disputes],
        "takeback": bool(match.settings.get("takeback", True)),
    }
    return out


COMMANDS: Mapping[str, PlatformCommand] = {
    RESIGN: PlatformCommand(decide_resign),
    PROPOSE: PlatformCommand(decide_propose),
}
EVENTS: Mapping[str, Fold] = {
    RESIGNED: fold_resigned,
    PROPOSED: fold_proposed,
    PROPOSAL_ACCEPTED: fold_accepted,
    PROPOSAL_REFUSED: fold_refused,
    DRAW_AGREED: fold_draw,
    ABANDONMENT_AGREED: fold_abandoned,
}
AUTOMATIC: list[Automatic] = [resigned_seat_answer]
