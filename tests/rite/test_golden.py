"""Golden playthroughs: seeded random games, their commands, event digest and per-seat views.

Views are stored after each of the first VIEWED commands and at the end (a whole random game
runs to thousands of commands). Regenerate with BOARDLOG_REGOLD=1.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from rules.rite import GAME
from tests.support.randomplay import Policy, play_random

from .bot import seeking

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "rite"
VIEWED = 20
NAMES = ["ann", "bob", "cat", "dan", "eve"]
FIVE = ["humans", "goblins", "undead", "chaos", "primals"]
# file name -> (options, seed, a maker of the bot's policy: None plays uniformly)
CASES: dict[str, tuple[dict[str, Any], int, Callable[[], Policy] | None]] = {
    "playthrough.json": ({"factions": ["humans", "goblins"], "map": "premade"}, 35, None),
    # all five factions, the objective-seeking bot (a uniform game runs to tens of thousands of commands)
    "playthrough-hgucp.json": ({"factions": FIVE, "map": "premade"}, 8, seeking),
}


def _record(name: str) -> dict[str, Any]:
    options, seed, make_policy = CASES[name]
    policy = make_policy() if make_policy else None
    n = len(options["factions"])
    rec = play_random(
        GAME, options, NAMES[:n], seed, max_commands=400_000, replay_checks=0, check_audit=False, policy=policy
    )
    seats = [None, *range(n)]
    state = GAME.initial_state()
    prefix = "rite."
    views: list[dict[str, Any]] = []
    steps = rec.steps
    ends = [seq for seq, _ in steps[1:]] + [len(rec.events)]
    first = steps[0][0]
    for e in rec.events[:first]:
        state = GAME.evolve(state, e)
    views.append({"after": "setup", "views": {str(s): GAME.view(state, s) for s in seats}})
    cur = first
    for k, ((_, cmd), end) in enumerate(zip(steps, ends, strict=True)):
        for e in rec.events[cur:end]:
            if e.type.startswith(prefix):
                state = GAME.evolve(state, e)
        cur = end
        if k < VIEWED:
            views.append({"after": GAME.format_text(cmd), "seat": cmd.seat, "views": {str(s): GAME.view(state, s) for s in seats}})
    final = {str(s): GAME.view(state, s) for s in seats}
    digest = hashlib.sha256(b"".join(orjson.dumps(e.to_json(), option=orjson.OPT_SORT_KEYS) for e in rec.events))
    assert rec.outcome is not None
    return {
        "options": options,
        "seed": seed,
        "commands": [f"{c.seat} {GAME.format_text(c)}" for c in rec.commands],
        "events": len(rec.events),
        "events_sha256": digest.hexdigest(),
        "outcome": rec.outcome.to_json(),
        "views": views,
        "final_views": final,
    }


@pytest.mark.parametrize("name", list(CASES))
def test_golden_playthrough(name: str) -> None:
    got = orjson.loads(orjson.dumps(_record(name)))
    path = GOLDEN / name
    if os.environ.get("BOARDLOG_REGOLD") == "1" or not path.exists():
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(got, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        if os.environ.get("BOARDLOG_REGOLD") != "1":
            raise AssertionError("golden file was missing and has been written; run again")
    want = orjson.loads(path.read_bytes())
    assert got["commands"] == want["commands"]
    assert got["events_sha256"] == want["events_sha256"]
    assert got["outcome"] == want["outcome"]
    for g, w in zip(got["views"], want["views"], strict=True):
        assert g == w, f"view after {w['after']!r} differs"
    assert got["final_views"] == want["final_views"]
