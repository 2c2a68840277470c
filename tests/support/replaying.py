"""Playing a Rite game over HTTP up to its first unit move, for the replay tests."""

from __future__ import annotations

import random
from typing import Any

import httpx

from tests.conftest import wait_for
from tests.integration.helpers import bearer, command


def new_rite(c: httpx.Client) -> tuple[str, list[str]]:
    r = c.post("/v1/games", json={"game": "rite", "seats": ["ann", "bob"], "options": {}})
    assert r.status_code == 201, r.text
    g: dict[str, Any] = r.json()
    return g["id"], [s["token"] for s in g["seats"]]


def play_rite_until_a_move(c: httpx.Client, gid: str, tokens: list[str], seed: int = 3, limit: int = 80) -> tuple[str, int]:
    """Legal commands (a two-cell move as soon as one is legal, else a summon, else any): the
    move's notation and the seq after it. The prompt is read from the log (`/view?at=`), never
    from the projection, which may lag a moment."""
    rnd = random.Random(seed)
    wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] > 1)
    head = int(c.get(f"/v1/games/{gid}").json()["seq"])
    for _ in range(limit):
        s = c.get(f"/v1/games/{gid}/view", params={"at": head}).json()
        seat = s["prompt"]["seats"][0]
        cmds = c.get(f"/v1/games/{gid}/legal", headers=bearer(tokens[seat])).json()["commands"]
        moves = [x for x in cmds if x["type"] == "rite.move" and len(x["args"].get("path", [])) == 2]
        pick = moves or [x for x in cmds if x["type"] == "rite.summon"] or cmds
        chosen = pick[0] if moves else rnd.choice(pick)
        r = command(c, gid, tokens[seat], chosen["type"], chosen["args"], expect=head)
        assert r.status_code == 200, r.text
        head = int(r.json()["seq"][1])
        if moves:
            return str(chosen["text"]), head
    raise AssertionError("no move within the limit")
