"""Table talk and conditional moves through the real API, worker and projector (issue #15 items
6 and 7): the refusals change nothing, spectators read but cannot post, the admin hides, a
command's comment follows it, a queued answer is played when its guard matches and dropped when
the opponent plays something else, and a seat's queue is in nobody else's view, log or stream."""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

import httpx
import pytest

from events.domain.audit import audit
from events.records.export import read_record
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, new_race

# One stack for the module's tests, each on games of its own.
pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def _seq(c: httpx.Client, gid: str) -> int:
    head = c.get(f"/v1/games/{gid}/events", params={"from": 1}).json()["events"]
    return int(head[-1]["seq"])


def _post(c: httpx.Client, gid: str, token: str | None, text: str) -> httpx.Response:
    return c.post(f"/v1/games/{gid}/messages", headers=bearer(token) if token else {}, json={"text": text})


def test_messages_are_posted_by_seats_read_by_anyone_and_refused_with_a_reason(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, admin = new_race(c)
        r = _post(c, gid, tokens[1], "<script>alert(1)</script> good luck")
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        seq = _seq(c, gid)
        # Refused, and nothing written: too long, empty, a spectator, the admin, a bad token.
        for token, text, status, code in ((tokens[0], "x" * 2001, 422, "message_too_long"),
                                          (tokens[0], "   ", 422, "message_empty"),
                                          (None, "hi", 403, "seat_required"),
                                          (admin, "hi", 403, "seat_required"),
                                          ("nope", "hi", 401, "bad_token")):
            r = _post(c, gid, token, text)
            assert (r.status_code, r.json()["error"]["code"]) == (status, code), r.text
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[0]),
                   json={"id": "long-1", "type": "boardlog.post", "args": {"text": "y" * 2001}})
        assert (r.status_code, r.json()["error"]["code"]) == (422, "message_too_long")
        assert _seq(c, gid) == seq
        # 2,000 characters exactly are a message; anyone reads them, oldest first.
        assert _post(c, gid, tokens[0], "z" * 2000).status_code == 200
        listed = c.get(f"/v1/games/{gid}/messages").json()
        assert [(m["who"], m["text"][:8]) for m in listed["messages"]] == [("p1", "<script>"), ("p0", "zzzzzzzz")]
        assert listed["muted"] is None
        after = listed["messages"][0]["seq"]
        assert [m["seq"] for m in c.get(f"/v1/games/{gid}/messages", params={"after": after}).json()["messages"]] \
            == [listed["messages"][1]["seq"]]
        # The log and the move list say it in words.
        words = [e["text"] for m in c.get(f"/v1/games/{gid}/moves").json()["entries"] for e in m["events"]]
        assert "p1 writes: <script>alert(1)</script> good luck" in words
        replayed = c.get(f"/v1/games/{gid}/replay", params={"at": 2}).json()["entry"]
        assert replayed["who"] == "p1" and replayed["events"][0]["text"].startswith("p1 writes: <script>")


def test_the_admin_hides_a_message_and_the_record_keeps_it(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, admin = new_race(c, target=2)
        assert _post(c, gid, tokens[0], "something abusive").status_code == 200
        msg = c.get(f"/v1/games/{gid}/messages").json()["messages"][0]
        r = c.post(f"/v1/games/{gid}/messages/{msg['seq']}/hide", headers=bearer(tokens[1]), json={})
        assert (r.status_code, r.json()["error"]["code"]) == (403, "admin_only")
        r = c.post(f"/v1/games/{gid}/messages/{msg['seq']}/hide", headers=bearer(admin), json={"reason": "abuse"})
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        seen = c.get(f"/v1/games/{gid}/messages").json()["messages"][0]
        assert (seen["text"], seen["hidden"]) == (None, "hidden by the admin")
        assert c.get(f"/v1/games/{gid}/messages", headers=bearer(admin)).json()["messages"][0]["text"] \
            == "something abusive"
        logged = [e for e in c.get(f"/v1/games/{gid}/events").json()["events"] if e["seq"] == msg["seq"]]
        assert logged[0]["data"]["text"] is None and logged[0]["redacted"] is True
        words = [e["text"] for m in c.get(f"/v1/games/{gid}/moves").json()["entries"] for e in m["events"]]
        assert "A message hidden by the admin." in words and not any("abusive" in w for w in words)
        entries = c.get(f"/v1/games/{gid}/moves").json()["entries"]
        step = next(e["n"] for e in entries if any(x["seq"] == msg["seq"] for x in e["events"]))
        replayed = c.get(f"/v1/games/{gid}/replay", params={"at": step}).json()["entry"]
        assert [x["text"] for x in replayed["events"]] == ["A message hidden by the admin."]
        r = c.post(f"/v1/games/{gid}/messages/999/hide", headers=bearer(admin), json={})
        assert r.json()["error"]["code"] == "unknown_message"
        # Talk goes on after the end; the finished record, hide and all, audits.
        for _ in range(4):
            s = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[0])).json()
            turn = 0 if s["commands"] else 1
            if command(c, gid, tokens[turn]).json().get("status") != "accepted":
                break
            if c.get(f"/v1/games/{gid}/events", params={"from": 1}).json()["events"][-1]["type"] \
                    == "boardlog.SeedRevealed":
                break
        assert _post(c, gid, tokens[1], "gg").status_code == 200
        export = c.get(f"/v1/games/{gid}/export")
        assert export.status_code == 200, export.text
        record = read_record(export.content.splitlines())
        assert any(e.type == "boardlog.MessagePosted" and e.data["text"] == "something abusive"
                   for e in record.envelopes)
        report = audit(record)
        assert report.ok, report.line()


def test_a_comment_follows_its_command(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[0]),
                   json={"id": "roll-1", "type": "race.roll", "args": {}, "comment": "here goes"})
        assert r.status_code == 200, r.text
        first, last = r.json()["seq"]
        events = c.get(f"/v1/games/{gid}/events", params={"from": first}).json()["events"]
        posted = [e for e in events if e["type"] == "boardlog.MessagePosted"]
        assert posted and posted[0]["seq"] == last + 2 and posted[0]["data"]["on"] == first, events
        assert posted[0]["command"] == "seat:0/roll-1.comment"  # the seat's key (events.store.commandids)
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[1]),
                   json={"id": "roll-2", "type": "race.roll", "args": {}, "comment": "q" * 2001})
        assert (r.status_code, r.json()["error"]["code"]) == (422, "message_too_long")


def test_a_comment_names_its_move_long_after_it(stack: Stack) -> None:
    """The board keeps the newest page of the move list (40); a message on an older move is still
    numbered, by the API, as the move list numbers that move."""
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        assert command(c, gid, tokens[0]).status_code == 200
        r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[1]),
                   json={"id": "early", "type": "race.roll", "args": {}, "comment": "an early one"})
        assert r.status_code == 200, r.text
        on = r.json()["seq"][0]
        for k in range(60):
            assert command(c, gid, tokens[k % 2]).status_code == 200
        assert _post(c, gid, tokens[0], "a plain one").status_code == 200
        moves = c.get(f"/v1/games/{gid}/moves", params={"limit": 500}).json()["entries"]
        [entry] = [e for e in moves if e["seq_from"] == on]
        assert entry["move"] == 2 and len(moves) >= 62
        for token in (None, tokens[0], tokens[1]):
            listed = c.get(f"/v1/games/{gid}/messages", headers=bearer(token) if token else {}).json()["messages"]
            assert [(m["text"], m["on"], m["move"]) for m in listed] == [("an early one", on, 2), ("a plain one", None, None)]


def test_a_flood_of_messages_is_refused_with_retry_after(stack: Stack) -> None:
    """BOARDLOG_MESSAGES_PER_MINUTE (20) a seat and game: 45 posts at once cross at most one
    minute's boundary, so at most 40 are taken, and the rest answer 429 with Retry-After."""
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        answers = [c.post(f"/v1/games/{gid}/messages?wait=0", headers=bearer(tokens[0]), json={"text": f"m{i}"})
                   for i in range(45)]
        taken = [r for r in answers if r.status_code == 202]
        refused = [r for r in answers if r.status_code == 429]
        assert len(taken) + len(refused) == 45 and 20 <= len(taken) <= 40
        assert refused[0].json()["error"]["code"] == "rate_limited" and int(refused[0].headers["Retry-After"]) >= 1
        # The other seat has its own share.
        assert _post(c, gid, tokens[1], "me too").status_code == 200


def test_a_seat_mutes_the_chat_for_itself(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        r = c.put(f"/v1/games/{gid}/messages/mute", headers=bearer(tokens[0]), json={"muted": True})
        assert r.json() == {"muted": True}
        assert c.get(f"/v1/games/{gid}/messages", headers=bearer(tokens[0])).json()["muted"] is True
        assert c.get(f"/v1/games/{gid}/messages", headers=bearer(tokens[1])).json()["muted"] is False
        assert c.put(f"/v1/games/{gid}/messages/mute", json={"muted": True}).status_code == 401


# --- conditional moves ----------------------------------------------------------------------

def _rite(c: httpx.Client) -> tuple[str, list[str], str]:
    r = c.post("/v1/games", json={"game": "rite", "seats": ["ann", "bob"]})
    assert r.status_code == 201, r.text
    g = r.json()
    return g["id"], [s["token"] for s in g["seats"]], g["admin_token"]


def _legal(c: httpx.Client, gid: str, token: str) -> dict[str, Any]:
    out: dict[str, Any] = c.get(f"/v1/games/{gid}/legal", headers=bearer(token)).json()
    return out


def _play(c: httpx.Client, gid: str, token: str, text: str) -> dict[str, Any]:
    r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(token), json={"id": str(uuid.uuid4()), "text": text})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_queued_answer_is_played_when_its_guard_matches(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, admin = _rite(c)
        knights = [x["text"] for x in _legal(c, gid, tokens[0])["commands"] if x["text"].startswith("summon")]
        r = c.put(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1]), json={"queue": [
            {"if": knights[1], "then": "summon fighter b3"},   # an answer to a move not made
            {"if": knights[0], "then": "summon fighter g4"},
            {"then": "pass"},                                  # for the prompt after
        ]})
        assert r.status_code == 200, r.text
        assert [e["then"] for e in r.json()["queue"]] == ["summon fighter b3", "summon fighter g4", "pass"]
        mine = _play(c, gid, tokens[0], knights[0])
        wait_for(lambda: _legal(c, gid, tokens[0])["commands"] != [], timeout=15)
        events = c.get(f"/v1/games/{gid}/events", params={"from": mine["seq"][1] + 1}).json()["events"]
        accepted = [e for e in events if e["type"] == "boardlog.CommandAccepted"]
        assert accepted[0]["seat"] == 1 and accepted[0]["data"]["text"] == "summon fighter g4", events
        assert accepted[0]["command"].startswith(f"bl-auto-{mine['seq'][1]}-queued-1-")  # the platform's id
        entries = c.get(f"/v1/games/{gid}/moves").json()["entries"]
        assert [e.get("queued", False) for e in entries if e.get("seat") is not None] == [False, True]
        left = c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1])).json()
        assert [e["then"] for e in left["queue"]] == ["pass"] and left["dropped"] is None
        # The queued command is an ordinary command of the record: the audit re-runs it.
        assert c.post(f"/v1/games/{gid}/abort", headers=bearer(admin)).status_code == 200
        record = read_record(c.get(f"/v1/games/{gid}/export").content.splitlines())
        report = audit(record)
        assert report.ok and any(e.command == accepted[0]["command"] for e in record.envelopes), report.line()


def test_a_queue_is_dropped_when_the_opponent_plays_something_else(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = _rite(c)
        knights = [x["text"] for x in _legal(c, gid, tokens[0])["commands"] if x["text"].startswith("summon")]
        queue = [{"if": knights[1], "then": "summon fighter b3"}]
        assert c.put(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1]), json={"queue": queue}).status_code == 200
        mine = _play(c, gid, tokens[0], knights[0])

        def dropped() -> dict[str, Any] | None:
            got: dict[str, Any] | None = c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1])).json()["dropped"]
            return got

        wait_for(lambda: dropped() is not None, timeout=15)
        notice = dropped()
        assert notice is not None and notice["seq"] == mine["seq"][1] and notice["last"] == knights[0]
        assert notice["entries"] == [{"if": knights[1], "then": "summon fighter b3"}]
        assert c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1])).json()["queue"] == []
        assert _seq(c, gid) == mine["seq"][1]  # nothing was played for bob
        assert _legal(c, gid, tokens[1])["commands"]


def test_a_queue_is_its_seats_alone(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, admin = _rite(c)
        secret = "summon fighter a7"
        r = c.put(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1]), json={"queue": [{"then": secret}]})
        assert r.status_code == 200
        # Others ask for the queue: they get their own, or nothing.
        assert c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[0])).json()["queue"] == []
        for h in ({}, bearer(admin)):
            assert c.get(f"/v1/games/{gid}/conditional", headers=h).status_code in (401, 403)
        # Refusals say why and change nothing.
        for body in ({"queue": [{"then": "fly to the moon"}]}, {"queue": "pass"}, {"entries": []}):
            r = c.put(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1]), json=body)
            assert (r.status_code, r.json()["error"]["code"]) == (422, "bad_queue"), r.text
        assert [e["then"] for e in c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1])).json()["queue"]] \
            == [secret]
        # Nowhere in what seat 0, a spectator or the admin reads, the stream included.
        streamed: list[str] = []
        got_one = threading.Event()

        def listen() -> None:
            with httpx.Client(base_url=stack.url, timeout=10) as s, s.stream("GET", f"/v1/games/{gid}/stream") as r:
                for line in r.iter_lines():
                    streamed.append(line)
                    if line.startswith("data:"):
                        got_one.set()
                        return

        t = threading.Thread(target=listen, daemon=True)
        t.start()
        assert got_one.wait(10)
        for token in (tokens[0], None, admin):
            h = bearer(token) if token else {}
            for path in ("", "/view", "/events", "/moves", "/messages"):
                body = c.get(f"/v1/games/{gid}{path}", headers=h).text
                assert "fighter a7" not in body, (token, path)
        assert not any("fighter a7" in line for line in streamed)
        # The seat's own view neither: the queue is read only from /conditional.
        assert "fighter a7" not in c.get(f"/v1/games/{gid}/view", headers=bearer(tokens[1])).text
        r = c.delete(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1]))
        assert r.status_code == 204
        assert c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1])).json()["queue"] == []
        assert json.loads(c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1])).text)["seat"] == 1


def test_the_referee_posts_to_the_table_talk_as_the_referee(stack: Stack) -> None:
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "referee": "rex",
                                      "options": {"target": 1000}})
        assert r.status_code == 201, r.text
        g = r.json()
        gid, ref = g["id"], g["referee"]["token"]
        r = _post(c, gid, ref, "please keep it civil")
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        [m] = c.get(f"/v1/games/{gid}/messages").json()["messages"]
        assert (m["who"], m["seat"], m["referee"], m["text"]) == ("The referee (rex)", None, True, "please keep it civil")
        # the admin still hides rather than posts
        r = _post(c, gid, g["admin_token"], "hi")
        assert (r.status_code, r.json()["error"]["code"]) == (403, "seat_required"), r.text
