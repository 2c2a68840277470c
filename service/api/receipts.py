"""The receipt of an accepted answer read back from the store, signed again: answers are stored
without their receipts (events.records.compact.result_value), and what a receipt signs, the
head hash and time at the answer's last seq, is in the record."""

from __future__ import annotations

from typing import Any

from fastapi.concurrency import run_in_threadpool

from events.store.commandids import shown_id
from service.api.parts import ApiParts


def as_sent(answer: dict[str, Any]) -> dict[str, Any]:
    """`answer` naming its command by the id its sender wrote, not the store's key of it (the
    key names the principal: events.store.commandids)."""
    cid = answer.get("id")
    if not isinstance(cid, str) or shown_id(cid) == cid:
        return answer
    return {**answer, "id": shown_id(cid)}


async def with_receipt(p: ApiParts, gid: str, answer: dict[str, Any]) -> dict[str, Any]:
    """`answer` (`as_sent`) with its receipt, when it is an accepted one that lacks it and keys
    are set."""
    answer = as_sent(answer)
    seqs = answer.get("seq")
    if p.keys is None or answer.get("status") != "accepted" or "receipt" in answer \
            or not isinstance(seqs, list) or not seqs or not isinstance(seqs[-1], int):
        return answer
    last = seqs[-1]
    envs = await run_in_threadpool(p.store.read, gid, last, last)
    if not envs:
        return answer
    env = envs[0]
    return {**answer, "receipt": p.keys.receipt(gid, env.seq, env.hash, env.at)}
