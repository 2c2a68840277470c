"""What the projector writes for a game: its summary and one board view per viewer."""

from __future__ import annotations

from typing import Any, NamedTuple

from events.domain.match import COMMAND_ACCEPTED, GAME_CREATED, SEED_REVEALED, Match
from events.domain.platform.clock import deadline_view
from events.domain.platform.conduct import conduct_summary
from events.domain.platform.takeback import TAKEN_BACK
from events.domain.positiontext import headline
from events.domain.provenance import provenance_of
from events.records.codec import canonical
from events.records.envelope import Envelope
from events.store.archive import packed_view
from rules.core import Command, Event, Game, Outcome, Prompt

PUBLIC = "public"


class Seen(NamedTuple):
    """What every read model of a match at one seq says alike, worked out once: the projector
    writes a summary and a view per viewer of each projection, and each asked the match for its
    rules (a catalog lookup), outcome (the rules' is_over and conduct's) and prompt again, a
    dozen outcomes a projection."""

    rules: Game
    status: str
    prompt: Prompt | None
    outcome: Outcome | None
    names: list[str]


def seen(match: Match) -> Seen:
    return Seen(match.rules, match.status, match.prompt, match.outcome(), [s.name for s in match.seats])


def summary_of(match: Match, created: str, updated: str, imported: dict[str, Any] | None = None,
               facts: Seen | None = None) -> dict[str, Any]:
    """`imported`: how a record loaded by `boardlog import` came here (the store's meta, not
    the log, which stays byte for byte as its own deployment signed it); None for one made here.
    `facts`: `seen(match)`, when the caller has it."""
    rules, status, prompt, outcome, names = facts or seen(match)
    return {
        "id": match.gid,
        "game": match.game,
        # The game as players call it, as every view has it (the public view's words: no secret).
        "headline": headline(rules, rules.view(match.state, None), names),
        "status": status,
        "seats": [{"seat": s.seat, "name": s.name} for s in match.seats],
        # `text`: what the game asks, in its words as anyone may read them ("bob (Goblins): take
        # an action, use a power or pass (round 2)."), so a lobby row says more than a kind code
        "prompt": None if prompt is None else {
            "seats": list(prompt.seats), "kind": prompt.kind,
            "text": rules.describe_prompt(match.state, None, names)},
        "seq": match.seq,
        "outcome": None if outcome is None else outcome.to_json(),
        "created": created,
        "updated": updated,
        **provenance_summary(match.rules_version, match.referee, match.origin, match.referee_appointed),
        "clock": deadline_view(match),
        "conduct": conduct_summary(match),
        "imported": imported,
    }


def provenance_summary(version: int, referee: str | None, origin: tuple[str, int, str] | None,
                       appointed: str | None = None) -> dict[str, Any]:
    """What every seat is told of the game's provenance: its rules version, whether it is
    refereed, by whom and how they were appointed (`appointed`, when the record says), and
    whether it is an analysis game forked from another."""
    return {
        "rules_version": version,
        "refereed": referee is not None,
        "referee": None if referee is None else {"name": referee, **({"appointed": appointed} if appointed else {})},
        "analysis": origin is not None,
        "fork": None if origin is None else {"game": origin[0], "seq": origin[1], "head": origin[2]},
    }


def unfolded_summary(gid: str, created: Envelope) -> dict[str, Any]:
    """The summary of a game not even its opening folds for (its game unknown here, or its rules
    failing from the start): what the GameCreated event says, at seq 0."""
    d = created.data
    return {
        "id": gid,
        "game": d.get("game"),
        "status": "active",
        "seats": list(d.get("seats", [])),
        "prompt": None,
        "seq": 0,
        "outcome": None,
        "created": created.at,
        "updated": created.at,
        **provenance_summary(*_provenance(created)),
    }


def _provenance(created: Envelope) -> tuple[int, str | None, tuple[str, int, str] | None]:
    try:
        return provenance_of(created.event.data)
    except (KeyError, TypeError, ValueError):  # an opening that does not fold may not read either
        return 1, None, None


def with_failure(summary: dict[str, Any], seq: int, error: str, kind: str) -> dict[str, Any]:
    """`summary` marked as stuck: the rules raised projecting event `seq` (the log line
    `projector.failed` with this `error` id has the traceback; `kind` is the exception's class)."""
    return {**summary, "projection_failed": {"seq": seq, "error": error, "type": kind}}


def view_of(match: Match, seat: int | None, facts: Seen | None = None) -> dict[str, Any]:
    """The board for one viewer, with the match's position and whose move it is (`facts`:
    `seen(match)`, when the caller has it)."""
    rules, status, prompt, outcome, names = facts or seen(match)
    board = rules.view(match.state, seat)
    return {
        "game": match.game,
        # The game as players call it ("Rite: ann vs bob, round 5"): the pages' header and title.
        "headline": headline(rules, board, names),
        "names": names,  # the seats' display names, by seat: what the text of the board names them by
        "seq": match.seq,
        "seat": seat,
        "status": status,
        "prompt": None if prompt is None else prompt.to_json(),
        "prompt_text": None if prompt is None else rules.describe_prompt(match.state, seat, names),
        "outcome": None if outcome is None else outcome.to_json(),
        "board": board,
    }


def view_field(seat: int | None) -> str:
    return "view:" + (PUBLIC if seat is None else str(seat))


def read_model_fields(match: Match, created: str, updated: str,
                      imported: dict[str, Any] | None = None) -> dict[str, bytes]:
    """The summary (JSON: the lobby and the archiver read it as it is) and the views, stored
    compressed (the store's reads give them back as JSON)."""
    facts = seen(match)
    fields = {"summary": canonical(summary_of(match, created, updated, imported, facts))}
    for seat in [None, *range(len(match.seats))]:
        fields[view_field(seat)] = packed_view(canonical(view_of(match, seat, facts)))
    return fields


def redact_envelope(match: Match, env: Envelope, viewer: int | None) -> dict[str, Any] | None:
    """An envelope as `viewer` may see it (None: nothing of it); the hash stays the original."""
    game = match.rules
    out = env.to_json()
    if env.type == COMMAND_ACCEPTED:
        cmd = Command(env.data["type"], env.data["args"], env.seat)
        seen = game.redact_command(cmd, viewer) if not env.data["type"].startswith("boardlog.") else cmd
        if seen is None:
            return None
        data = {**env.data, "type": seen.type, "args": dict(seen.args)}
        if seen != cmd:
            out["redacted"] = True
        else:
            data["text"] = (
                game.format_text(cmd) if not cmd.type.startswith("boardlog.") else cmd.type
            )
        out["data"] = data
        return out
    if env.type == TAKEN_BACK and "state" in env.data:
        # The state it returns to is the whole game's, every seat's secrets included: the fold
        # needs it, a viewer does not (the views say what each may see of that position).
        out.update(data={k: v for k, v in env.data.items() if k != "state"}, redacted=True)
        return out
    if env.type in (GAME_CREATED, SEED_REVEALED) or env.type.startswith("boardlog."):
        return out
    seen_event = game.redact(Event(env.type, env.data, env.seat), viewer)
    if seen_event is None:
        return None
    if seen_event.data != env.data or seen_event.type != env.type:
        out.update(type=seen_event.type, data=dict(seen_event.data), redacted=True)
    return out
