"""A whole match of the test game through HTTP -> dramatiq worker -> Redis -> projector."""

from __future__ import annotations

import uuid

import orjson
import pytest

from events.domain.audit import audit
from events.records.export import read_record
from tests.conftest import Stack, wait_for
from tests.support import brokers

pytestmark = pytest.mark.integration

broker_stack = brokers.broker_stack  # the stack on each broker: dramatiq's Redis one and RabbitMQ


def test_whole_match_through_http_worker_redis_projector(broker_stack: Stack) -> None:
    stack = broker_stack
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "options": {"target": 12}})
        assert r.status_code == 201, r.text
        game = r.json()
        gid = game["id"]
        tokens = [s["token"] for s in game["seats"]]
        summary = c.get(f"/v1/games/{gid}").json()
        assert summary["prompt"] == {"seats": [0], "kind": "roll", "text": "ann: roll the die."}
        moves = 0
        while True:
            s = c.get(f"/v1/games/{gid}").json()
            if s["status"] != "active":
                break
            seat = s["prompt"]["seats"][0]
            h = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = c.get(f"/v1/games/{gid}/legal", headers=h).json()
            cmd = legal["commands"][0]
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=h,
                       json={"id": str(uuid.uuid4()), "type": cmd["type"], "args": cmd["args"], "expect": legal["seq"]})
            assert r.status_code == 200, r.text
            seq = r.json()["seq"][1]
            wait_for(lambda seq=seq: c.get(f"/v1/games/{gid}").json()["seq"] >= seq)
            moves += 1
            assert moves < 100
        s = c.get(f"/v1/games/{gid}").json()
        assert s["status"] == "over" and s["outcome"]["winners"]
        view = c.get(f"/v1/games/{gid}/view", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
        assert "charm" in view["board"]
        public = c.get(f"/v1/games/{gid}/view").json()
        assert "charm" not in public["board"]
        early = c.get(f"/v1/games/{gid}/view?at=3").json()
        assert early["seq"] == 3
        events = c.get(f"/v1/games/{gid}/events").json()["events"]
        assert events[-1]["type"] == "boardlog.SeedRevealed"
        export = c.get(f"/v1/games/{gid}/export")
        assert export.status_code == 200
        report = audit(read_record(export.content.splitlines()))
        assert report.ok, report.line()
        assert c.get(f"/v1/games/{gid}/audit").json()["ok"]
        lobby = c.get("/v1/games").json()["games"]
        assert any(g["id"] == gid for g in lobby)
    # The worker's log: JSON lines, and each about a command carries game id, seq and command id.
    lines = [ln for f in sorted(stack.logdir.glob("*.log")) for ln in f.read_text().splitlines()]  # type: ignore[union-attr]
    about = [r for r in map(_json_or_none, lines) if r and str(r.get("event", "")).startswith("command.")]
    ours = [r for r in about if r.get("game") == gid]
    assert len(ours) >= moves, "\n".join(lines[-20:])
    assert all(r.get("command") and r.get("seq") is not None and r.get("level") for r in ours), ours


def _json_or_none(line: str) -> dict[str, object] | None:
    try:
        v = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return v if isinstance(v, dict) else None
