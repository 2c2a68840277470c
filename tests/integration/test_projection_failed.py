"""Failures as data: a game whose rules raise while it is projected keeps its last good read
models, its summary and lobby row carry `projection_failed` (the seq and an error id that is
also in the log line), and every other game's read models go on."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
import structlog

from events.domain.match import COMMAND_ACCEPTED
from events.records.chain import seal
from events.records.codec import loads
from events.store.store import EventStore
from projections.lobby import lobby_rows
from projections.projector import Projector, rebuild
from projections.readmodels import view_field
from projections.replay import match_at
from rules.core import Event
from service.usecases.matches import create_match
from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, new_race
from tests.support import racegame
from tests.support.racegame import VIEW_BUG_NOTE
from tests.support.records import prev_hash
from workers.commands import CommandHandler

pytestmark = pytest.mark.integration


def note(store: EventStore, gid: str, text: str) -> int:
    """Play a race note as seat 0; the seq it reached."""
    cid = str(uuid.uuid4())
    store.put_pending(gid, cid, {"type": "race.note", "args": {"text": text}, "seat": 0, "expect": None})
    answer = CommandHandler(store).handle(gid, cid)
    assert answer is not None and answer["status"] == "accepted", answer
    return match_at(store, gid).seq


def views(store: EventStore, gid: str) -> dict[str, bytes | None]:
    return {f: store.read_model(gid, f) for f in (view_field(None), view_field(0), view_field(1))}


def summary(store: EventStore, gid: str) -> dict[str, Any]:
    raw = store.read_model(gid, "summary")
    assert raw is not None
    out: dict[str, Any] = loads(raw)
    return out


def lobby_row(store: EventStore, gid: str) -> dict[str, Any]:
    rows, _ = lobby_rows(store, 100)
    return next(r for r in rows if r["id"] == gid)


def drain(p: Projector) -> None:
    while p.step():
        pass


def new_race_game(store: EventStore) -> str:
    gid: str = create_match(store, {"game": "race", "seats": ["a", "b"]})["id"]
    return gid


def test_a_game_whose_view_raises_keeps_its_last_good_views_and_is_marked(store: EventStore) -> None:
    broken, fine = new_race_game(store), new_race_game(store)
    p = Projector(store, block_ms=10, min_gap_ms=0)
    p.ensure_groups()
    good_seq = note(store, broken, "fine so far")
    drain(p)
    good_views = views(store, broken)
    assert summary(store, broken)["seq"] == good_seq and "projection_failed" not in summary(store, broken)
    with structlog.testing.capture_logs() as logs:
        bug_seq = note(store, broken, VIEW_BUG_NOTE)
        note(store, fine, "n1")
        drain(p)
    failed = [x for x in logs if x["event"] == "projector.failed"]
    assert [x["game"] for x in failed] == [broken]
    marker = summary(store, broken)["projection_failed"]
    assert marker == {"seq": bug_seq, "error": failed[0]["error"], "type": "RuntimeError"}
    assert failed[0]["seq"] == bug_seq
    assert views(store, broken) == good_views  # the last good board, not a half-written one
    assert store.checkpoint(broken) == good_seq and summary(store, broken)["seq"] == good_seq
    assert lobby_row(store, broken)["projection_failed"] == marker
    # Every other game goes on; and each later event of the broken one fails (and says so) again.
    later = note(store, broken, "still broken")
    note(store, fine, "n2")
    drain(p)
    assert store.checkpoint(fine) == match_at(store, fine).seq
    assert "projection_failed" not in summary(store, fine) and "projection_failed" not in lobby_row(store, fine)
    assert summary(store, broken)["projection_failed"]["seq"] == later
    assert views(store, broken) == good_views


def test_a_rebuild_marks_the_game_again_and_drops_the_marker_once_the_rules_are_fixed(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken, fine = new_race_game(store), new_race_game(store)
    note(store, broken, "fine so far")
    bug_seq = note(store, broken, VIEW_BUG_NOTE)
    note(store, fine, "n1")
    assert rebuild(store) == 2  # no read models at all now: the rebuild goes past the broken game
    assert store.checkpoint(fine) == match_at(store, fine).seq
    marked = summary(store, broken)
    assert marked["projection_failed"]["seq"] == bug_seq
    assert lobby_row(store, broken)["projection_failed"] == marked["projection_failed"]
    assert views(store, broken) == dict.fromkeys(views(store, broken))  # no good view to keep
    # The fix is deployed (the view no longer trips over the note) and the read models rebuilt.
    buggy = racegame.RaceGame.view

    def fixed(self: racegame.RaceGame, state: racegame.RaceState, seat: int | None) -> dict[str, Any]:
        return buggy(self, dataclasses.replace(state, broken_view=False), seat)

    monkeypatch.setattr(racegame.RaceGame, "view", fixed)
    rebuild(store)
    assert "projection_failed" not in summary(store, broken)
    assert "projection_failed" not in lobby_row(store, broken)
    assert store.checkpoint(broken) == bug_seq and all(views(store, broken).values())
    # A projector still running the buggy rules cannot mark what the fixed ones projected.
    monkeypatch.undo()
    assert not Projector(store, consumer="old-rules").project(broken)
    assert "projection_failed" not in summary(store, broken)


def test_an_event_its_evolve_cannot_fold_marks_that_seq_and_later_events_cannot_clear_it(
    store: EventStore,
) -> None:
    gid = new_race_game(store)
    p = Projector(store, block_ms=10, min_gap_ms=0)
    p.ensure_groups()
    drain(p)
    good = views(store, gid), store.checkpoint(gid)
    # An event the game's evolve does not know (as a rules change that dropped a case would
    # leave), then a good one after it.
    match = match_at(store, gid)
    accepted = {"type": "race.note", "args": {}, "rng": [match.draws, match.draws]}
    envs = seal(gid, match.seq + 1, prev_hash(store, gid, match.seq),
                [Event(COMMAND_ACCEPTED, {**accepted, "id": "c1"}, 0), Event("race.Vanished", {}, 0),
                 Event(COMMAND_ACCEPTED, {**accepted, "id": "c2"}, 0), Event("race.NoteWritten", {"text": "x"}, 0)],
                None, "2026-11-29T00:00:00.000Z")
    assert store.append(gid, match.seq, envs[:2], "c1", {}).status == "ok"
    drain(p)
    assert summary(store, gid)["projection_failed"]["seq"] == envs[1].seq
    assert store.append(gid, envs[1].seq, envs[2:], "c2", {}).status == "ok"
    drain(p)
    assert summary(store, gid)["projection_failed"]["seq"] == envs[1].seq
    assert summary(store, gid)["projection_failed"]["type"] == "ValueError"
    assert (views(store, gid), store.checkpoint(gid)) == good
    # A new projector (or a restart) reaches the same verdict, from no cache.
    fresh = Projector(store, consumer="fresh")
    assert not fresh.project(gid)
    assert summary(store, gid)["projection_failed"]["seq"] == envs[1].seq
    assert (views(store, gid), store.checkpoint(gid)) == good


def test_the_marker_is_in_the_api_summary_and_lobby_and_its_error_id_in_the_log(stack: Stack) -> None:
    with stack.client() as c:
        broken, tokens, _ = new_race(c)
        fine, fine_tokens, _ = new_race(c)
        r = command(c, broken, tokens[0], "race.note", {"text": "fine so far"})
        assert r.status_code == 200, r.text
        good_seq = r.json()["seq"][1]
        wait_for(lambda: c.get(f"/v1/games/{broken}").json()["seq"] >= good_seq)
        good_view = c.get(f"/v1/games/{broken}/view", headers=bearer(tokens[0])).json()
        r = command(c, broken, tokens[0], "race.note", {"text": VIEW_BUG_NOTE})
        assert r.status_code == 200, r.text
        bug_seq = r.json()["seq"][1]
        wait_for(lambda: "projection_failed" in c.get(f"/v1/games/{broken}").json())
        s = c.get(f"/v1/games/{broken}").json()
        assert s["projection_failed"]["seq"] == bug_seq and s["seq"] == good_seq
        assert set(s["projection_failed"]) == {"seq", "error", "type"}  # no traceback for clients
        row = next(g for g in c.get("/v1/games").json()["games"] if g["id"] == broken)
        assert row["projection_failed"] == s["projection_failed"]
        assert c.get(f"/v1/games/{broken}/view", headers=bearer(tokens[0])).json() == good_view
        r = command(c, fine, fine_tokens[0])
        assert r.status_code == 200, r.text
        wait_for(lambda: c.get(f"/v1/games/{fine}").json()["seq"] >= r.json()["seq"][1])
        assert "projection_failed" not in c.get(f"/v1/games/{fine}").json()
    assert stack.logdir is not None
    logged = [orjson.loads(x) for x in (Path(stack.logdir) / "projector.log").read_text().splitlines()
              if x.startswith("{")]
    failed = [x for x in logged if x.get("event") == "projector.failed"]
    assert [(x["game"], x["seq"], x["error"]) for x in failed] == [(broken, bug_seq, s["projection_failed"]["error"])]
    assert "RuntimeError" in failed[0]["exception"]  # the traceback is in the log, for operators
