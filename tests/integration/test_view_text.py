"""GET /v1/games/{gid}/view.txt: the position as text, for the caller as GET …/view serves it
(issue #40): a seat reads its own secret (race's charm), a spectator never; 404 for no such
game, 401 for a token that is none, 422 for a bad seq; text/plain in UTF-8."""

from __future__ import annotations

import pytest

from tests.conftest import Stack
from tests.integration.helpers import bearer, command, new_race

pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]


def test_a_seat_reads_its_own_text_and_a_spectator_the_public_one(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c, seats=2)
        moved = command(c, gid, tokens[0])
        assert moved.status_code == 200
        seq = moved.json()["seq"][1]  # (first, last) of the command's events
        for tok in tokens:
            got = c.get(f"/v1/games/{gid}/view.txt?min_seq={seq}", headers=bearer(tok))
            assert got.status_code == 200, got.text
            assert got.headers["content-type"] == "text/plain; charset=utf-8"
            view = c.get(f"/v1/games/{gid}/view?min_seq={seq}", headers=bearer(tok)).json()
            lines = got.text.splitlines()
            assert lines[0] == view["headline"] == f"Race: {' vs '.join(view['names'])}"
            assert lines[1].startswith(f"To play: {view['names'][view['prompt']['seats'][0]]}.")
            assert f"Your charm: {view['board']['charm']}" in lines
        public = c.get(f"/v1/games/{gid}/view.txt?min_seq={seq}")
        assert public.status_code == 200 and "charm" not in public.text
        assert public.text.splitlines()[0] == c.get(f"/v1/games/{gid}/view").json()["headline"]
        old = c.get(f"/v1/games/{gid}/view.txt?at=2", headers=bearer(tokens[1]))
        assert old.status_code == 200 and "Your charm" in old.text


def test_refusals_are_clear_4xx(stack: Stack) -> None:
    with stack.client() as c:
        gid, _, _ = new_race(c, seats=2)
        missing = c.get("/v1/games/p00-000000000000/view.txt")
        assert missing.status_code == 404 and missing.json()["error"]["code"]
        bad = c.get(f"/v1/games/{gid}/view.txt", headers=bearer("not-a-token"))
        assert bad.status_code == 401, bad.text
        assert c.get(f"/v1/games/{gid}/view.txt?at=0").status_code == 422
        assert c.get(f"/v1/games/{gid}/view.txt?min_seq=0").status_code == 422


def test_the_referee_reads_every_seats_text(stack: Stack) -> None:
    with stack.client() as c:
        made = c.post("/v1/games", json={"game": "race", "seats": ["p0", "p1"], "options": {"target": 1000},
                                         "referee": "rita"}).json()
        gid, ref = made["id"], made["referee"]["token"]
        seq = command(c, gid, made["seats"][0]["token"]).json()["seq"][1]
        got = c.get(f"/v1/games/{gid}/view.txt?min_seq={seq}", headers=bearer(ref))
        assert got.status_code == 200, got.text
        view = c.get(f"/v1/games/{gid}/view", headers=bearer(ref)).json()
        lines = got.text.splitlines()
        for seat, board in enumerate(view["seat_boards"]):
            at = lines.index(f"As p{seat} sees it:")
            assert f"Your charm: {board['charm']}" in lines[at:at + 4]
        admin = c.get(f"/v1/games/{gid}/view.txt?min_seq={seq}", headers=bearer(made["admin_token"]))
        assert admin.status_code == 200 and "charm" not in admin.text  # the admin is no referee
