"""What the end-of-game journey does besides acts.py's: a Dragon Dale game (the quickest of the
three to end by its own rules: some 100 to 200 random legal commands for two) whose seats two
players hold, played to its end with legal commands picked at random."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx

from tests.integration.helpers import bearer
from tests.journeys.acts import Game, Person, send


def dragondale(c: httpx.Client, seats: list[Person]) -> Game:
    """A two-seat Dragon Dale game whose seats the `seats` players claim, in order."""
    r = c.post("/v1/games", json={"game": "dragondale", "seats": [p.name for p in seats]})
    assert r.status_code == 201, r.text
    made = r.json()
    game = Game(made["id"], [s["token"] for s in made["seats"]], made["admin_token"],
                {p.name: i for i, p in enumerate(seats)})
    for p, token in zip(seats, game.tokens, strict=True):
        r = c.post(f"/v1/games/{game.id}/claim", json={"token": token}, headers=bearer(p.key))
        assert r.status_code == 200, r.text
    return game


def play_to_the_end(c: httpx.Client, game: Game, seed: int = 36, timeout: float = 300.0) -> dict[str, Any]:
    """Each seat the prompt names plays one of its legal commands, picked at random, until the
    rules end the game; its summary then."""
    pick = random.Random(seed)
    seq = 1
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        summary: dict[str, Any] = c.get(f"/v1/games/{game.id}", params={"min_seq": seq}).json()
        if summary["status"] != "active":
            return summary
        seat = summary["prompt"]["seats"][0]
        legal = c.get(f"/v1/games/{game.id}/legal", params={"min_seq": summary["seq"]},
                      headers=bearer(game.tokens[seat])).json()["commands"]
        m = pick.choice(legal)
        r = send(c, game.id, game.tokens[seat], m["type"], m["args"])
        assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
        seq = int(r.json()["seq"][1])
    raise AssertionError(f"game {game.id} did not end in {timeout} s")
