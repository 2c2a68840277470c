"""Takebacks with consent, and the compensating `TakenBack` event a voided dispute uses too.

A seat asks to take back its last command (`boardlog.takeback`); every other remaining seat
accepts (`boardlog.accept`, conduct's) or refuses. The last accept appends `TakenBack`, which
carries the state at `to_seq` as snapshot data, so that every incremental fold (the projector,
the cache, replay) gets there from the event alone; the worker reads that state from the store
and the audit folds it from the record, and the audit compares the two byte for byte.

Refused with a code, before anyone is asked:
- `takeback_off`: the game was created with the platform option `takeback: false`;
- `takeback_not_last`: the seat's command is not the game's last (someone else acted since);
- `takeback_after_draw`: something random was drawn since (the undo would be a re-roll);
- `takeback_after_reveal`: something hidden was revealed since (it would be a peek): some
  viewer's view shares more with another's than before (`revealed`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import orjson

from events.domain.matchstate import Match
from events.domain.platform.base import Context, Fold, OptionCheck, PlatformCommand
from events.domain.platform.conduct import (
    TAKEBACK,
    Proposal,
    conduct_of,
    open_proposal,
    require_no_dispute,
    require_seat,
    with_conduct,
)
from events.domain.provenance import forked_state
from events.records.snapshot import encode
from rules.core import Command, Event, IllegalCommand, InvalidCommand

ASK = "boardlog.takeback"
TAKEBACK_ASKED = "boardlog.TakebackAsked"
TAKEN_BACK = "boardlog.TakenBack"


def allowed(match: Match) -> bool:
    """The platform option `takeback` (default on)."""
    return bool(match.settings.get("takeback", True))


def decide_ask(match: Match, command: Command, context: Context) -> list[Event]:
    if command.args:
        raise IllegalCommand("bad_args", f"{ASK} takes no arguments")
    seat = require_seat(match, command)
    if not allowed(match):
        raise IllegalCommand("takeback_off", "takebacks are off in this game (its option takeback: false)")
    require_no_dispute(match)
    if open_proposal(match) is not None:
        raise IllegalCommand("proposal_open", "another proposal is open: accept or refuse it first")
    last = match.last_command
    if last is None or last[0] != seat:
        raise IllegalCommand("takeback_not_last", "only your own last command can be taken back, "
                                                  "before anyone else acted")
    before = _before(match, last[1] - 1, context)
    check_undoable(before, match)
    # A secret shown for a moment (a stake revealed, then paid away) shows in no final view:
    # each state the command passed through is compared too.
    assert context.match_at is not None
    if any(revealed(before, context.match_at(k)) for k in range(last[1] + 1, last[2])):
        raise _peek()
    return [Event(TAKEBACK_ASKED, {"seat": seat, "to_seq": last[1] - 1, "first": last[1], "last": last[2]}, seat)]


def _before(match: Match, seq: int, context: Context) -> Match:
    if context.match_at is None:
        raise IllegalCommand("takeback_unavailable", "the game's past cannot be read here")
    return context.match_at(seq)


def check_undoable(before: Match, after: Match) -> None:
    """Refuse to return from `after` to `before` when it would let a player re-roll or peek."""
    if before.draws != after.draws:
        raise IllegalCommand("takeback_after_draw", f"{after.draws - before.draws} random draw(s) were made "
                                                    "since: taking it back would be a re-roll")
    if revealed(before, after):
        raise _peek()


def _peek() -> IllegalCommand:
    return IllegalCommand("takeback_after_reveal", "something hidden was revealed since: taking it "
                                                   "back would let a player peek")


def fold_asked(match: Match, event: Event) -> Match:
    seat = int(event.data["seat"])
    command = (seat, int(event.data["first"]), int(event.data["last"]))
    p = Proposal(TAKEBACK, seat, match.seq, frozenset({seat}), int(event.data["to_seq"]), command)
    return with_conduct(match, replace(conduct_of(match), proposal=p))


def taken_back(match: Match, p: Proposal, context: Context) -> Event:
    """The TakenBack the last accept of a takeback appends (checked again on that match)."""
    assert p.command is not None
    before = _before(match, p.to_seq, context)
    if before.draws != match.draws:  # the command is still the last one (open_proposal): no new draw
        raise IllegalCommand("takeback_after_draw", "something random was drawn since the takeback was asked")
    return compensating(before, p.command[1], p.command[2], {"takeback": p.seq})


def compensating(before: Match, first: int, last: int, why: Mapping[str, Any], draws: int | None = None) -> Event:
    """The event that returns the game to `before` (the match after seq `first - 1`), undoing
    the seqs `first`..`last`: the state as snapshot data and the last command as they were, and
    the draws counter at `draws` (a void's: where it is now, so nothing seen is drawn again) or,
    by default, as it was. `why` names the takeback's or the dispute's seq."""
    lc = before.last_command
    return Event(TAKEN_BACK, {
        "to_seq": first - 1, "first": first, "last": last, **why,
        "draws": before.draws if draws is None else draws, "last_command": None if lc is None else list(lc),
        "state": orjson.loads(encode(before.state)),
    })


def fold_taken_back(match: Match, event: Event) -> Match:
    d = event.data
    try:
        state = forked_state(match.rules, event)
    except ValueError as e:
        raise ValueError(f"TakenBack at seq {match.seq}: {e}") from None
    lc = d.get("last_command")
    c = conduct_of(match)
    c = replace(c, proposal=None, undone=(*c.undone, (int(d["first"]), int(d["last"]), match.seq)))
    back = replace(match, state=state, draws=int(d["draws"]),
                   last_command=None if lc is None else (lc[0], int(lc[1]), int(lc[2])))
    return with_conduct(back, c)


# -- what is hidden ----------------------------------------------------------------------


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        yield path, value


def _views(match: Match) -> list[dict[tuple[Any, ...], str]]:
    viewers: list[int | None] = [None, *range(len(match.seats))]
    return [{p: orjson.dumps(x).decode() for p, x in _leaves(match.rules.view(match.state, v)) if x is not None}
            for v in viewers]


def _private(views: list[dict[tuple[Any, ...], str]]) -> dict[tuple[int, int], Counter[str]]:
    """For each ordered pair of viewers (v, w): what v sees that w does not (the values at the
    paths where w sees another value or nothing), as a multiset of values."""
    return {(i, j): Counter(x for p, x in v.items() if w.get(p) != x)
            for i, v in enumerate(views) for j, w in enumerate(views) if i != j}


def _known(match: Match, views: list[dict[tuple[Any, ...], str]]) -> list[Counter[str]]:
    """What each viewer knew: its board's values, and a seat's also the arguments of the
    commands it could send (the stance cards it may choose from are its own knowledge)."""
    out = [Counter(v.values()) for v in views]
    if match.prompt is not None:
        for seat in match.prompt.seats:
            for c in match.rules.legal_commands(match.state, seat):
                out[seat + 1].update(orjson.dumps(x).decode() for _, x in _leaves(dict(c.args)) if x is not None)
    return out


def revealed(before: Match, after: Match) -> bool:
    """Whether something hidden from some viewer in `before` was shown to it by `after`. Only the
    games' own views say what is hidden: for a pair of viewers (each seat, and a spectator), a
    value one sees and the other does not. Something was shown when
    - the other now sees such a value more often than it did (a hidden unit turned up, a card
      played from a hand, a stance or a stake shown), or
    - a viewer now sees privately a value it knew nowhere before, on its board or in the
      commands it could send (a peek at the Dragon's deck, a tree's underside checked).
    Values are counted, not placed, so that a hidden unit walking to another cell keeps them;
    only names count (a unit type, a card), not numbers or flags, which coincide by chance. It
    errs on the side of refusing: a visible unit of the same type as a hidden one coming into
    sight counts as shown. A game without secrets shows every viewer the same board, so nothing
    in it is ever revealed."""
    views_before, views_after = _views(before), _views(after)
    was, now = _private(views_before), _private(views_after)
    seen_before = [Counter(v.values()) for v in views_before]
    seen_after = [Counter(v.values()) for v in views_after]
    for (_, j), private in was.items():
        if any(_named(x) and seen_after[j][x] > seen_before[j][x] for x in private):
            return True
    known = _known(before, views_before)
    return any(_named(x) for (i, _), private in now.items() for x in private - known[i])


def _named(value: str) -> bool:
    """Whether a view's value names something (a unit type, a card): numbers and flags coincide
    by chance too often (a count of 1 here, a seat 1 there) to say that a secret was shown."""
    return value.startswith('"')


def check_option(value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidCommand("bad_options", "takeback: true (players may take a move back with consent) or false")
    return value


COMMANDS: Mapping[str, PlatformCommand] = {ASK: PlatformCommand(decide_ask)}
OPTIONS: Mapping[str, OptionCheck] = {"takeback": check_option}
EVENTS: Mapping[str, Fold] = {TAKEBACK_ASKED: fold_asked, TAKEN_BACK: fold_taken_back}

__all__ = ["COMMANDS", "EVENTS", "TAKEN_BACK", "compensating", "revealed", "taken_back"]
