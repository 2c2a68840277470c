"""A game's record as a text move list, for people: a header (game, options, seats, result, key
id), one numbered line per move in notation with its random results, and the signed trailer.

The JSON Lines record is the proof; this is its reading copy. It ends with the trailer's line
as the JSON record has it, so its hash and signature can be checked against the service's key.
Before the end it shows what a spectator may see (no seat's secrets), after it everything.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from events.records.codec import canonical
from events.records.envelope import Envelope
from events.records.export import trailer_of
from events.records.origin import origin_record
from events.records.signing import Signer
from projections.moves import move_entries


def record_text(envelopes: Sequence[Envelope], signer: Signer | None, status: str | None,
                origin: bytes | None) -> Iterator[str]:
    """The text record as exported here: signed with `signer`, or for an imported game
    (`origin`, the store's) with the trailer it came with and its countersignatures."""
    if origin is None:
        return text_lines(envelopes, trailer_of(envelopes, signer, status))
    came = origin_record(origin)
    return text_lines(envelopes, came.trailer or {}, came.countersignatures)


def text_lines(envelopes: Sequence[Envelope], trailer: Mapping[str, Any],
               countersignatures: Sequence[Mapping[str, Any]] = ()) -> Iterator[str]:
    """`countersignatures`: an imported record's, beside the trailer its origin signed."""
    if not envelopes:
        return
    gid = envelopes[0].game
    over = trailer.get("status") not in (None, "active")
    entries, match = move_entries(envelopes, gid, None, admin=over)
    created = envelopes[0].data
    yield f"# boardlog record of game {gid} ({created.get('game')})"
    yield f"# options: {canonical(created.get('options') or {}).decode()}"
    if match is not None:
        seats = ", ".join(f"{s.seat} {s.name}" for s in match.seats)
        yield f"# seats: {seats}"
        outcome = match.outcome()
        if outcome is None:
            yield f"# result: not over (at seq {len(envelopes)}); secrets are left out until the end"
        else:
            names = {s.seat: s.name for s in match.seats}
            winners = ", ".join(names.get(w, str(w)) for w in outcome.winners) or "nobody"
            scores = " ".join(f"{names.get(i, i)}={v}" for i, v in enumerate(outcome.scores))
            yield f"# result: {trailer.get('status')}; won by {winners}" + (f"; scores {scores}" if scores else "") \
                + (f" ({outcome.reason})" if outcome.reason else "")
    yield f"# signed by key: {trailer.get('key') or 'none (unsigned)'}"
    for c in countersignatures:
        yield f"# imported and countersigned by key: {c.get('key')} ({c.get('verdict')} on import, {c.get('at')})"
    yield ""
    for e in entries:
        seqs = f"[{e['seq_from']}]" if e["seq_from"] == e["seq_to"] else f"[{e['seq_from']}-{e['seq_to']}]"
        draws = f"  {{{'; '.join(e['draws'])}}}" if e.get("draws") else ""
        struck = f"  (undone at seq {e['undone']})" if e.get("undone") else ""
        if e.get("move") is not None:
            move = e.get("notation") or e.get("text")
            yield f"{e['move']}. {e.get('who') or '-'}: {move}{draws}{struck}  {seqs}"
        else:
            # a heading (the game's own step), or a chat line or table action: unnumbered, by its author
            yield f"   -- {e.get('heading') or e.get('who') or 'game'}: {e.get('text')}{draws}{struck}  {seqs}"
    yield ""
    yield f"# head: seq {trailer.get('seq', trailer.get('events'))} hash {trailer.get('head')}"
    yield f"# signature: {trailer.get('sig') or 'none'}"
    yield "# trailer: " + canonical({"trailer": dict(trailer)}).decode()
    for c in countersignatures:
        yield "# countersignature: " + canonical({"countersignature": dict(c)}).decode()
