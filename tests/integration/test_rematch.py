"""Play again over HTTP (issue #36 item 6): a finished game's rematch is a new game of the same
type with the same seats and options and a new seed; a seat held by a player is theirs in it at
once, a seat played by its token alone gets a new token in the answer, to share. One rematch a
game, however many ask; refused before the end, to a spectator and to the admin, writing nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, command, new_race, player

pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def _race_held_by(c: httpx.Client, key: str) -> tuple[str, list[str], str]:
    """A race to 1 (the first roll ends it) whose seat 0 the player of `key` holds; seat 1 is
    played by its token alone."""
    gid, tokens, admin = new_race(c, seats=2, target=1)
    r = c.post(f"/v1/games/{gid}/claim", json={"token": tokens[0]}, headers=bearer(key))
    assert r.status_code == 200, r.text
    return gid, tokens, admin


def _events(c: httpx.Client, gid: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = c.get(f"/v1/games/{gid}/events").json()["events"]
    return out


def _code(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, str(r.json()["error"]["code"])


def test_rematch_of_an_active_game_by_a_spectator_or_the_admin_is_refused_and_writes_nothing(stack: Stack) -> None:
    with stack.client() as c:
        ann = player(c, "ann")
        gid, tokens, admin = _race_held_by(c, ann["key"])
        before = _events(c, gid)
        assert _code(c.post(f"/v1/games/{gid}/rematch", headers=bearer(tokens[0]))) == (409, "game_active")
        assert _code(c.post(f"/v1/games/{gid}/rematch", headers=bearer(ann["key"]))) == (409, "game_active")
        assert command(c, gid, tokens[0]).status_code == 200  # the roll that ends it
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["status"] == "over", timeout=10)
        ended = _events(c, gid)
        assert _code(c.post(f"/v1/games/{gid}/rematch")) == (401, "token_required")
        assert _code(c.post(f"/v1/games/{gid}/rematch", headers=bearer(admin))) == (403, "seat_required")
        assert _code(c.post(f"/v1/games/{gid}/rematch", headers=bearer("not-a-token"))) == (401, "bad_token")
        outsider = player(c, "carl")  # a player holding no seat here: their key is no credential of this game
        assert _code(c.post(f"/v1/games/{gid}/rematch", headers=bearer(outsider["key"]))) == (401, "bad_token")
        assert _code(c.post("/v1/games/p01-000000000000/rematch", headers=bearer(tokens[0]))) == (404, "unknown_game")
        # Nothing was written: no rematch, and the game's log is as the roll left it.
        assert _code(c.get(f"/v1/games/{gid}/rematch")) == (404, "no_rematch")
        assert len(before) < len(ended) and _events(c, gid) == ended


def test_play_again_makes_a_new_game_with_the_same_seats_and_options_each_invited(stack: Stack) -> None:
    with stack.client() as c:
        ann = player(c, "ann")
        gid, tokens, _ = _race_held_by(c, ann["key"])
        assert command(c, gid, tokens[0]).status_code == 200
        # seat 1, by its token: it made the rematch, and holds the new links of token seats.
        r = c.post(f"/v1/games/{gid}/rematch", headers=bearer(tokens[1]))
        assert r.status_code == 201, r.text
        made = r.json()
        new = made["game"]
        assert (made["created"], made["of"], made["by"], made["seat"]) == (True, gid, "p1", 1)
        held, by_token = made["seats"]
        assert (held["name"], held["held"], held.get("token")) == ("p0", True, None)
        assert (by_token["name"], by_token["held"]) == ("p1", False)
        assert by_token["link"] == f"/games/{new}#token={by_token['token']}"
        summary = c.get(f"/v1/games/{new}").json()
        assert summary["game"] == "race" and summary["status"] == "active"
        assert [s["name"] for s in summary["seats"]] == ["p0", "p1"]
        first_old, first_new = _events(c, gid)[0]["data"], _events(c, new)[0]["data"]
        assert first_new["options"] == first_old["options"] == {"target": 1}
        assert first_new["commitment"] != first_old["commitment"]  # a new seed
        # ann's seat is hers in the new game, without a link; the new token plays seat 1.
        assert c.get(f"/v1/games/{new}/seat", headers=bearer(ann["key"])).json()["seat"] == 0
        assert c.get(f"/v1/games/{new}/view", headers=bearer(by_token["token"])).json()["seat"] == 1
        assert c.get(f"/v1/games/{new}/view", headers=bearer(tokens[1])).status_code == 401  # the old one is not
        # ann asks after: pointed at the same game, to join; no token is handed out again.
        again = c.post(f"/v1/games/{gid}/rematch", headers=bearer(ann["key"]))
        assert again.status_code == 200, again.text
        later = again.json()
        assert (later["game"], later["created"], later["by"], later["join"]) == (new, False, "p1", f"/games/{new}")
        assert "admin_token" not in later and not any("token" in s for s in later["seats"])
        told = c.get(f"/v1/games/{gid}/rematch").json()
        assert (told["game"], told["by"], told["ready"]) == (new, "p1", True)
        # A click twice by the one who made it: the same game, nothing new.
        twice = c.post(f"/v1/games/{gid}/rematch", headers=bearer(tokens[1])).json()
        assert (twice["game"], twice["created"], twice["join"]) == (new, False, None)


def test_two_seats_asking_at_once_make_one_rematch(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2, target=1)
        assert command(c, gid, tokens[0]).status_code == 200

        def ask(token: str) -> dict[str, Any]:
            with stack.client() as own:
                r = own.post(f"/v1/games/{gid}/rematch", headers=bearer(token))
                assert r.status_code in (200, 201), r.text
                out: dict[str, Any] = r.json()
                return out

        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(ask, [tokens[0], tokens[1], tokens[0], tokens[1]]))
        assert len({a["game"] for a in answers}) == 1
        assert sum(a["created"] for a in answers) == 1
        [maker] = [a for a in answers if a["created"]]
        new = maker["game"]
        # The game the pointer names is the one whose tokens were handed out.
        for s in maker["seats"]:
            view = c.get(f"/v1/games/{new}/view", headers=bearer(s["token"]))
            assert view.status_code == 200 and view.json()["seat"] == s["seat"], view.text
