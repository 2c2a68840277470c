"""Bad input gets a 4xx JSON error with a code, and writes no event."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from events.store.store import EventStore
from tests.conftest import Stack
from tests.integration.helpers import bearer, command, new_race
from tests.support.racegame import RULES_BUG_NOTE, VIEW_BUG_NOTE

pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


@pytest.fixture
def game(stack: Stack, store: EventStore) -> Iterator[tuple[httpx.Client, str, list[str], str]]:
    with stack.client() as c:
        gid, tokens, admin = new_race(c, target=6)
        yield c, gid, tokens, admin


def assert_error(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]


def post(c: httpx.Client, gid: str, token: str | None, content: bytes | None = None, body: Any = None) -> httpx.Response:
    headers = {"Content-Type": "application/json", **(bearer(token) if token else {})}
    if content is None:
        return c.post(f"/v1/games/{gid}/commands?wait=1", headers=headers, json=body)
    return c.post(f"/v1/games/{gid}/commands?wait=1", headers=headers, content=content)


def test_every_bad_command_is_refused_and_writes_nothing(game: tuple[httpx.Client, str, list[str], str], store: EventStore) -> None:
    c, gid, tokens, _ = game
    before = len(store.read(gid))
    cases = [
        (post(c, gid, tokens[0], content=b"{not json"), 400, "bad_json"),
        (post(c, gid, tokens[0], content=b"[1, 2]"), 400, "bad_json"),
        (post(c, gid, tokens[0], body={"id": "x1", "type": "race.fly", "args": {}}), 422, "unknown_command"),
        (post(c, gid, tokens[0], body={"id": "x2", "type": "race.note", "args": {}}), 422, "bad_args"),
        (post(c, gid, tokens[0], body={"id": "x3", "type": "race.note", "args": {"text": 5}}), 422, "bad_args"),
        (post(c, gid, tokens[0], body={"id": "x4", "type": 7}), 422, "bad_request"),
        (post(c, gid, tokens[0], body={"type": "race.roll"}), 422, "bad_command_id"),
        (post(c, gid, tokens[0], body={"id": "x5", "args": "nope", "type": "race.roll"}), 422, "bad_args"),
        (post(c, gid, tokens[0], body={"id": "x6", "text": "jump"}), 422, "bad_notation"),
        (post(c, gid, tokens[0], body={"id": "x7", "type": "race.roll", "expect": "3"}), 422, "bad_expect"),
        (post(c, gid, tokens[0], body={"id": "x8", "type": "race.roll", "color": "red"}), 422, "bad_request"),
        (post(c, gid, None, body={"id": "x9", "type": "race.roll"}), 401, "token_required"),
        (post(c, gid, "wrong-token", body={"id": "x10", "type": "race.roll"}), 401, "bad_token"),
        (c.post(f"/v1/games/{gid}/commands", headers={"Authorization": "Basic abc"}, json={}), 401, "bad_token"),
        (post(c, gid, tokens[0], content=b'{"id": "x11", "type": "race.note", "args": {"text": "' + b"a" * 70_000 + b'"}}'),
         413, "body_too_large"),
        (post(c, "p01-doesnotexist", tokens[0], body={"id": "x12", "type": "race.roll"}), 404, "unknown_game"),
        (post(c, "../../etc", tokens[0], body={"id": "x13", "type": "race.roll"}), 404, "not_found"),
    ]
    for r, status, code in cases:
        assert_error(r, status, code)
    # A missing id and an unknown field say what to send.
    assert "a command needs an 'id' of your making" in cases[6][0].json()["error"]["message"]
    assert cases[10][0].json()["error"]["message"] == ("unknown fields ['color']: a command takes args, comment, expect, "
                                                      "id, text, type")
    # A command for another seat: seat 1 may not roll on seat 0's turn (the rules refuse it).
    r = command(c, gid, tokens[1])
    assert_error(r, 422, "not_your_turn")
    assert len(store.read(gid)) == before


def test_a_seat_cannot_command_as_another_seat(game: tuple[httpx.Client, str, list[str], str], store: EventStore) -> None:
    c, gid, tokens, _ = game
    # The seat comes from the token; a body claiming another seat is refused as an unknown field.
    r = post(c, gid, tokens[1], body={"id": "s1", "type": "race.roll", "args": {}, "seat": 0})
    assert_error(r, 422, "bad_request")
    _, other_tokens, _ = new_race(c)
    r = command(c, gid, other_tokens[0])  # a token of another game
    assert_error(r, 401, "bad_token")


def test_a_command_on_a_finished_game_is_refused(game: tuple[httpx.Client, str, list[str], str], store: EventStore) -> None:
    c, gid, tokens, admin = game
    r = c.post(f"/v1/games/{gid}/abort", headers=bearer(admin))
    assert r.status_code == 200, r.text
    assert c.get(f"/v1/games/{gid}").json()["status"] in ("aborted", "active")
    n = len(store.read(gid))
    assert store.read(gid)[-1].type == "boardlog.SeedRevealed"
    r = command(c, gid, tokens[0])
    assert_error(r, 409, "game_over")
    assert len(store.read(gid)) == n


def test_a_bug_in_the_rules_answers_500_at_once_and_changes_nothing(
    game: tuple[httpx.Client, str, list[str], str], store: EventStore, stack: Stack
) -> None:
    c, gid, tokens, _ = game
    n = len(store.read(gid))
    t0 = time.monotonic()
    r = command(c, gid, tokens[0], "race.note", {"text": RULES_BUG_NOTE}, cid="bug-1")
    assert time.monotonic() - t0 < 5  # answered, not retried by dramatiq until dead-lettered
    assert_error(r, 500, "internal_error")
    assert r.json()["status"] == "failed"
    assert len(store.read(gid)) == n
    assert_error(c.get(f"/v1/games/{gid}/commands/bug-1", headers=bearer(tokens[0])), 500, "internal_error")  # stored: asked again
    assert command(c, gid, tokens[0], "race.note", {"text": "after"}).status_code == 200
    logged = [orjson.loads(line) for line in (stack.logdir / "worker.log").read_text().splitlines()]  # type: ignore[operator]
    [failed] = [x for x in logged if x["event"] == "command.failed"]
    assert failed["command"] == "seat:0/bug-1" and failed["game"] == gid and failed["seq"] == n
    assert "a deliberate bug in the rules" in failed["exception"]


def test_a_bug_in_a_view_answers_the_standard_json_error(
    game: tuple[httpx.Client, str, list[str], str], stack: Stack
) -> None:
    c, gid, tokens, _ = game
    r = command(c, gid, tokens[0], "race.note", {"text": VIEW_BUG_NOTE})
    assert r.status_code == 200, r.text
    head = r.json()["seq"][1]
    assert_error(c.get(f"/v1/games/{gid}/view?at={head}", headers=bearer(tokens[0])), 500, "internal_error")
    assert c.get(f"/v1/games/{gid}/view?at={head - 2}", headers=bearer(tokens[0])).status_code == 200
    logged = [orjson.loads(line) for line in (stack.logdir / "api.log").read_text().splitlines()]  # type: ignore[operator]
    assert any("a deliberate bug in the view" in x.get("exception", "") for x in logged)


def test_only_the_admin_may_abort_and_early_exports_are_redacted(game: tuple[httpx.Client, str, list[str], str]) -> None:
    c, gid, tokens, admin = game
    assert_error(c.post(f"/v1/games/{gid}/abort", headers=bearer(tokens[0])), 403, "admin_only")
    assert_error(c.get(f"/v1/games/{gid}/export"), 403, "game_not_over")
    # Before the end a seat or the admin (no referee) exports the log it may see, marked redacted.
    for token in (tokens[0], admin):
        r = c.get(f"/v1/games/{gid}/export", headers=bearer(token))
        assert r.status_code == 200 and b'"redacted"' in r.content.splitlines()[-1]


def test_bad_create_requests(stack: Stack) -> None:
    with stack.client() as c:
        chess = c.post("/v1/games", json={"game": "chess", "seats": ["a", "b"]})
        assert_error(chess, 404, "unknown_game")
        assert "the games are dragondale, factions, " in chess.json()["error"]["message"]  # what to write instead
        assert_error(c.post("/v1/games", json={"game": "race", "seats": []}), 422, "bad_seats")
        assert_error(c.post("/v1/games", json={"game": "race", "seats": ["a"] * 7}), 422, "bad_seats")
        assert_error(c.post("/v1/games", json={"game": "race", "seats": [""]}), 422, "name_empty")
        assert_error(c.post("/v1/games", json={"game": "race", "seats": ["a"], "options": {"target": "x"}}), 422, "bad_options")
        assert_error(c.post("/v1/games", json={"game": "race", "seats": ["a"], "options": []}), 422, "bad_options")
        # An unknown option or field names what the request may hold instead.
        typo = c.post("/v1/games", json={"game": "factions", "seats": ["a", "b"], "options": {"takebacks": False}})
        assert_error(typo, 422, "bad_options")
        assert typo.json()["error"]["message"] == ("unknown option 'takebacks': the game's options are factions, "
                                                   "resource_centers; with any game, clock, takeback")
        beside = c.post("/v1/games", json={"game": "rite", "seats": ["a", "b"], "clock": {"per_move": "1d"}})
        assert_error(beside, 422, "bad_request")
        assert beside.json()["error"]["message"] == ("unknown fields ['clock']: a new game takes game, options, "
                                                     "referee, seats; 'clock' goes in 'options'")
        assert_error(c.post("/v1/games", json={"seats": ["a"]}), 422, "bad_request")
        assert_error(c.post("/v1/games", content=b"nope", headers={"Content-Type": "application/json"}), 400, "bad_json")
        assert_error(c.get("/v1/games/p01-aaaaaaaaaaaa"), 404, "unknown_game")
        # the game is looked up first: an unknown one is 404 whatever its `at` (a bad one is bad_seq)
        assert_error(c.get("/v1/games/p01-aaaaaaaaaaaa/view?at=x"), 404, "unknown_game")


def test_a_page_for_an_unknown_game_is_an_html_404(stack: Stack) -> None:
    with stack.client() as c:
        for path in ("/games/p01-aaaaaaaaaaaa", "/games/p01-aaaaaaaaaaaa/replay", "/games/nonsense"):
            r = c.get(path)
            assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
            assert "No such game" in r.text


def test_openapi_is_served(stack: Stack) -> None:
    with stack.client() as c:
        spec = c.get("/openapi.json").json()
        assert "/v1/games/{gid}/commands" in spec["paths"]
