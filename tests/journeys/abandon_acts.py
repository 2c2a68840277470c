"""What the abandoned-game journey does besides acts.py's: a clocked Rite game, and the one seat
that still plays, playing whenever the prompt names it until the game ends."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.integration.helpers import bearer
from tests.journeys.acts import Game, Person, send


def clocked_rite(c: httpx.Client, seats: list[Person], clock: dict[str, Any]) -> Game:
    """A two-seat Rite game with `clock`, whose seats the `seats` players claim, in order."""
    r = c.post("/v1/games", json={"game": "rite", "seats": [p.name for p in seats], "options": {"clock": clock}})
    assert r.status_code == 201, r.text
    made = r.json()
    game = Game(made["id"], [s["token"] for s in made["seats"]], made["admin_token"],
                {p.name: i for i, p in enumerate(seats)})
    for p, token in zip(seats, game.tokens, strict=True):
        r = c.post(f"/v1/games/{game.id}/claim", json={"token": token}, headers=bearer(p.key))
        assert r.status_code == 200, r.text
    return game


def play_alone(c: httpx.Client, game: Game, name: str, timeout: float = 75.0) -> dict[str, Any]:
    """`name` passes (or plays) as soon as the prompt names them; the other seat never answers.
    The game's summary once it is over."""
    mine = game.seats[name]
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        summary: dict[str, Any] = c.get(f"/v1/games/{game.id}").json()
        if summary["status"] != "active":
            return summary
        prompt = summary.get("prompt") or {}
        if mine in prompt.get("seats", []):
            legal = c.get(f"/v1/games/{game.id}/legal", params={"min_seq": summary["seq"]},
                          headers=bearer(game.tokens[mine])).json()["commands"]
            passes = [m for m in legal if m["type"].endswith(".pass")]
            if not legal:
                time.sleep(0.1)
                continue  # the prompt moved on since the summary was read
            m = (passes or legal)[0]
            r = send(c, game.id, game.tokens[mine], m["type"], m["args"])
            # A refusal here is a race with the clock (the prompt moved on as the move went in):
            # the summary is read again.
            assert r.status_code in (200, 409, 422), r.text
            continue
        time.sleep(0.2)
    raise AssertionError(f"game {game.id} did not end in {timeout} s")
