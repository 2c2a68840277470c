"""Every shipped game (and the test game) plays through the real API, worker and projector.

Bots pick among `GET .../legal` and post the command unchanged with `expect` = that seq:
every listed command must be accepted. Then the admin aborts, and the export audits.
"""

from __future__ import annotations

import random
import uuid

import pytest

from events.domain.audit import audit
from events.records.export import read_record
from rules import catalog
from rules.core import get_game
from tests.conftest import Stack
from tests.integration.helpers import bearer

pytestmark = [pytest.mark.integration, pytest.mark.shared_stack]  # each test plays only its own game

catalog.load()
GAMES = ["race", *(m.rsplit(".", 1)[1] for m in catalog.SHIPPED)]


@pytest.mark.parametrize("name", GAMES)
def test_a_game_plays_through_the_service(stack: Stack, name: str) -> None:
    game = get_game(name)
    bot = random.Random(name)
    seats = [f"p{i}" for i in range(max(2, game.min_seats))]
    with stack.client() as c:
        r = c.post("/v1/games", json={"game": name, "seats": seats})
        assert r.status_code == 201, r.text
        gid, tokens, admin = r.json()["id"], [s["token"] for s in r.json()["seats"]], r.json()["admin_token"]
        for _ in range(40):
            # /legal reads the live state (the summary may trail it by a projection).
            options = [(seat, legal["seq"], cmd)
                       for seat, tok in enumerate(tokens)
                       for legal in [c.get(f"/v1/games/{gid}/legal", headers=bearer(tok)).json()]
                       for cmd in legal["commands"]]
            if not options:
                break
            assert len({seq for _, seq, _ in options}) == 1
            seat, seq, cmd = bot.choice(options)
            body = {"id": str(uuid.uuid4()), "type": cmd["type"], "args": cmd["args"], "expect": seq}
            r = c.post(f"/v1/games/{gid}/commands?wait=1", headers=bearer(tokens[seat]), json=body)
            assert r.status_code == 200, (cmd, r.text)
            # The same command in notation reads back to the same command.
            assert game.parse_text(cmd["text"], seat) == game.parse_command(cmd["type"], cmd["args"], seat)
        for seat, tok in enumerate(tokens):
            v = c.get(f"/v1/games/{gid}/view", headers=bearer(tok)).json()
            assert v["seat"] == seat and "board" in v["board"]
        ended = not any(c.get(f"/v1/games/{gid}/legal", headers=bearer(t)).json()["commands"] for t in tokens)
        r = c.post(f"/v1/games/{gid}/abort", headers=bearer(admin))
        assert (r.status_code, r.json().get("error", {}).get("code")) == ((409, "game_over") if ended else (200, None))
        export = c.get(f"/v1/games/{gid}/export", headers=bearer(tokens[0]))
        assert export.status_code == 200
        report = audit(read_record(export.content.splitlines()))
        assert report.ok, report.line()
