"""The audit's verdict on a record: verified, unverifiable or failed.

`audit` (events/domain/audit.py) checks what the record proves about itself: the chain, the
seed commitment and every command re-run. Anyone can rebuild a chain, so this adds what only
the service's key proves: the signed trailer (the head seq and hash, the status and the seed
as the service exported them) and any receipts a player kept (the head hash the service
answered at a seq). Only a trailer signed by a key the caller trusts makes a record verified;
the key named in the file itself proves nothing, so that gives "unverifiable".

An imported record (events/records/origin.py) keeps its origin's trailer and carries each
importer's countersignature: each must hold for the key it names (or the key given for its id),
and the verdict names both ("trailer signed by key A, imported and countersigned by key B").
The origin's key given alone verifies it; so does an importer's key given alone, when its
countersignature says it verified the trailer of that origin key on import.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from events.domain.audit import AuditReport, audit
from events.domain.match import SEED_REVEALED, fold_match
from events.records.export import Record
from events.records.origin import countersignature_problem, countersigner_key
from events.records.signing import RECEIPT, TRAILER, key_id, valid

Verdict = Literal["verified", "unverifiable", "failed"]


@dataclass
class Judgement:
    verdict: Verdict
    game: str | None = None
    events: int = 0
    seq: int | None = None  # failed: the first seq that does not hold
    reason: str = ""  # failed: why; unverifiable: what is not proven
    checked: list[str] = field(default_factory=list)
    status: str | None = None  # as the events say: active, over, aborted
    key: str | None = None  # the trailer's key id
    complete: bool = False  # a finished game with every draw re-derived
    receipts: int = 0
    draws: int | None = None  # a game in progress: the draws made so far, checkable at the end
    countersigned: list[str] = field(default_factory=list)  # importers' key ids, in order

    @property
    def verified(self) -> bool:
        return self.verdict == "verified"

    def summary(self) -> str:
        """One sentence that says exactly what was checked (or what failed)."""
        if self.verdict == "failed":
            return f"failed at seq {self.seq}: {self.reason}" if self.seq is not None else f"failed: {self.reason}"
        what = ", ".join(self.checked)
        if self.verdict == "unverifiable":
            return f"unverifiable: {self.reason} (checked: {what})"
        if self.complete:
            return f"verified: {what}"
        drawn = f"; {self.draws} draws checkable when the game ends" if self.draws is not None else ""
        return (f"verified up to seq {self.events}, draws not yet checkable until the seed is revealed: "
                f"{what} intact{drawn}")

    def short(self) -> str:
        """The summary in a few words, for a table row."""
        if self.verdict == "failed":
            return self.summary()
        if self.verdict == "unverifiable":
            return self.reason.split(":")[0].split(",")[0]
        if self.complete:
            return "complete: " + ", ".join(c for c in self.checked if "re-run" in c or "re-derived" in c)
        return f"up to seq {self.events}; draws not yet checkable"

    def line(self) -> str:
        return f"{self.verdict.upper()} {self.game or '?'}: {self.summary()}"

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.verified, "verdict": self.verdict, "summary": self.summary(), "game": self.game,
                "events": self.events, "seq": self.seq, "reason": self.reason, "checked": self.checked,
                "status": self.status, "key": self.key, "complete": self.complete, "receipts": self.receipts,
                "draws": self.draws, "countersigned_by": self.countersigned}


def _failed(j: Judgement, seq: int | None, reason: str) -> Judgement:
    j.verdict, j.seq, j.reason = "failed", seq, reason
    return j


def judge(record: Record, keys: Mapping[str, bytes] | None = None,
          receipts: Sequence[Mapping[str, Any]] = ()) -> Judgement:
    """`keys`: the public keys the caller trusts, by key id (None or empty: none, the file's own
    key is tried). `receipts`: receipts the caller holds for this record's game."""
    if record.redacted:
        return Judgement("unverifiable", record.envelopes[0].game if record.envelopes else None,
                         len(record.envelopes), reason=(
                             "this is a redacted log (exported before the end by a seat or the admin), not the "
                             "record: its hidden events do not hash to the chain and nothing in it is signed; "
                             "the record is exported after the end, or by the referee"))
    # The trailer is judged here, after the receipts, with its own messages.
    base: AuditReport = audit(Record(record.envelopes, None, record.problem))
    j = Judgement("failed", base.game, base.events, checked=list(base.checked))
    if base.not_rerun is not None:  # made under a rules version this build lacks: not a divergence
        j.verdict, j.reason = "unverifiable", base.not_rerun
        return j
    if not base.ok:
        return _failed(j, base.seq, base.reason)
    envs = record.envelopes
    gid = envs[0].game
    revealed = any(e.type == SEED_REVEALED for e in envs)
    if revealed:
        # The re-run reached the end: the seed is revealed only by the command that ends a game.
        j.status = "aborted" if any(e.type == "boardlog.GameAborted" for e in envs) else "over"
        j.complete = True
    else:
        try:
            match = fold_match((e.event for e in envs), gid)
        except Exception as err:  # a crafted record can feed the fold anything
            return _failed(j, None, f"the events cannot be folded into a game: {err!r}")
        j.status, j.draws = match.status, match.draws
        if match.over:
            return _failed(j, envs[-1].seq, f"the game is {match.status} at seq {match.seq} but its seed is "
                           "not revealed: the SeedRevealed event is missing, so no draw can be checked")
    trusted = dict(keys or {})
    # Receipts first: one beyond the end shows a cut, which the trailer may not (it can be dropped).
    for r in receipts:
        bad = _receipt_problem(r, gid, envs, trusted, record.trailer)
        if bad is not None:
            return _failed(j, *bad)
        j.receipts += 1
    if j.receipts:
        j.checked.append(f"{j.receipts} receipt{'s' if j.receipts != 1 else ''} match")
    t = record.trailer
    for c in record.countersignatures:
        altered = countersignature_problem(c, t, envs, trusted)
        if altered is not None:
            return _failed(j, None, altered)
        j.countersigned.append(str(c.get("key")))
    if t is None:
        j.verdict = "unverifiable"
        j.reason = ("the record has no trailer: nothing signed says where it ends or that the service "
                    "wrote it (an export made before records were signed, or one cut short)")
        return _with_importers(j)
    wrong = _trailer_problem(t, gid, envs, j.status)
    if wrong is not None:
        return _failed(j, *wrong)
    if "sig" not in t:
        j.verdict = "unverifiable"
        j.reason = "the trailer is not signed (an export made before records were signed)"
        return _with_importers(j)
    j.key = str(t.get("key"))
    if trusted:
        return _judge_trailer(j, t, trusted, record.countersignatures)
    own = _own_key(t)
    if own is None or not valid(TRAILER, t, own):
        return _failed(j, None, "the trailer's signature is not valid for the key it names")
    j.checked.append(f"trailer signature matches the key in the file ({j.key})" + _importers(j))
    j.verdict = "unverifiable"
    j.reason = (f"no key was given, so the key the file names ({j.key}) was used, and anyone can make a key "
                "and sign a forged record with it; give the service's key (--key, from /v1/keys)")
    return j


def _importers(j: Judgement) -> str:
    """", imported and countersigned by key B" (and C...) for an imported record, else ""."""
    if not j.countersigned:
        return ""
    return ", imported and countersigned by key " + ", then by key ".join(j.countersigned)


def _with_importers(j: Judgement) -> Judgement:
    if j.countersigned:
        j.checked.append(f"imported and countersigned by key {', then by key '.join(j.countersigned)}")
    return j


def _judge_trailer(j: Judgement, t: Mapping[str, Any], trusted: Mapping[str, bytes],
                   countersignatures: Sequence[Mapping[str, Any]]) -> Judgement:
    """The trailer's signature with keys given: by a key given, or by the origin key a trusted
    importer's countersignature says it verified on import."""
    assert j.key is not None
    public = trusted.get(j.key)
    if public is not None:
        if not valid(TRAILER, t, public):
            return _failed(j, None, f"the trailer's signature is not valid for key {j.key}"
                           + (": the trailer was altered after it was signed" if j.countersigned else ""))
        j.checked.append(f"trailer signed by key {j.key}" + _importers(j))
        j.verdict = "verified"
        return j
    vouching = [c for c in countersignatures if countersigner_key(c, trusted)[1] and c.get("origin_key") == j.key]
    if not vouching:
        return _failed(j, None, f"the trailer is signed by key {j.key}, not by a key given "
                       f"({', '.join(sorted(trusted))})" + (_importers(j) and f" (it was{_importers(j)[1:]})"))
    own = _own_key(t)
    if own is None or not valid(TRAILER, t, own):
        return _failed(j, None, f"the trailer's signature is not valid for the key it names ({j.key}): "
                       "the trailer was altered after it was signed")
    verified_by = [str(c.get("key")) for c in vouching if c.get("verdict") == "verified"]
    if not verified_by:
        by = str(vouching[0].get("key"))
        j.checked.append(f"trailer signature matches the key in the file ({j.key})" + _importers(j))
        j.verdict = "unverifiable"
        j.reason = (f"the trailer is signed by key {j.key}, not a key given, and key {by} imported the "
                    "record without verifying it (--unverified); give the origin's key (--key, from its /v1/keys)")
        return j
    j.checked.append(f"trailer signed by key {j.key}{_importers(j)} (key {j.key} trusted through the "
                     f"countersignature of key {verified_by[0]}, which verified the trailer with it on import)")
    j.verdict = "verified"
    return j


def _own_key(t: Mapping[str, Any]) -> bytes | None:
    try:
        raw = bytes.fromhex(str(t.get("public_key")))
    except ValueError:
        return None
    return raw if len(raw) == 32 and key_id(raw) == t.get("key") else None


def _trailer_problem(t: Mapping[str, Any], gid: str, envs: Sequence[Any],
                     status: str | None) -> tuple[int | None, str] | None:
    n = len(envs)
    seq = t.get("seq", t.get("events"))
    if seq != n:
        if isinstance(seq, int) and seq > n:
            return n + 1, f"the trailer says the record ends at seq {seq}, the events end at seq {n}: it was cut short"
        return n, f"the trailer says the record ends at seq {seq}, the events go on to seq {n}"
    if t.get("head") != envs[-1].hash:
        return n, f"the trailer's head hash differs from the hash of seq {n}"
    if "game" in t and t["game"] != gid:
        return None, f"the trailer is of game {t['game']!r}, the events of {gid!r}"
    seed = next((e.data.get("seed") for e in envs if e.type == SEED_REVEALED), None)
    if t.get("seed") != seed:
        return None, ("the trailer names a seed the events do not reveal" if seed is None
                      else "the trailer's seed differs from the revealed one")
    if "status" in t and t["status"] != status:
        return None, f"the trailer says the game is {t['status']}, the events say {status}"
    return None


def _receipt_problem(r: Mapping[str, Any], gid: str, envs: Sequence[Any], trusted: Mapping[str, bytes],
                     trailer: Mapping[str, Any] | None) -> tuple[int | None, str] | None:
    seq = r.get("seq")
    if not isinstance(seq, int) or seq < 1:
        return None, f"a receipt without a seq: {dict(r)}"
    if r.get("game") != gid:
        return seq, f"the receipt for seq {seq} is of game {r.get('game')!r}, not {gid!r}"
    kid = str(r.get("key"))
    public = trusted.get(kid) if trusted else (_own_key(trailer) if trailer is not None
                                               and trailer.get("key") == kid else None)
    if public is None:
        return seq, (f"the receipt for seq {seq} is signed by key {kid}, which is not "
                     + ("a key given" if trusted else "the trailer's (give the service's key with --key)"))
    if not valid(RECEIPT, r, public):
        return seq, f"the receipt for seq {seq} has a signature not valid for key {kid}"
    if seq > len(envs):
        return seq, (f"a receipt shows the game reached seq {seq}, the record ends at seq {len(envs)}: "
                     "it was cut short")
    if envs[seq - 1].hash != r.get("head"):
        return seq, (f"the receipt for seq {seq} names head hash {str(r.get('head'))[:16]}…, the record has "
                     f"{envs[seq - 1].hash[:16]}… there: the record was altered at or before seq {seq}")
    return None
