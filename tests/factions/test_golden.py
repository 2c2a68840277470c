"""Golden playthrough: a seeded random game's views after each command, compared with the stored file.

Regenerate with BOARDLOG_REGOLD=1. Views are public, so every seat's view must equal the public
one apart from the `viewer` field; the file stores the public view for the first FULL commands and
the final view and outcome.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from rules.core import Rng, SeatInfo, fold
from rules.factions import GAME

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "factions" / "playthrough.json"
SEED = 2026
FULL = 120


def _record() -> dict[str, Any]:
    seats = [SeatInfo(0, "ann"), SeatInfo(1, "bob")]
    rng = Rng(b"golden", b"", "golden-factions")
    options = {"factions": ["zyan", "zermano"]}
    state = fold(GAME, GAME.setup(options, seats, rng))
    bot = random.Random(SEED)
    steps: list[dict[str, Any]] = []
    commands: list[str] = []
    while GAME.is_over(state) is None:
        assert state.prompt is not None
        seat = bot.choice(list(state.prompt.seats))
        cmd = bot.choice(list(GAME.legal_commands(state, seat)))
        for e in GAME.decide(state, cmd, rng):
            state = GAME.evolve(state, e)
        public = GAME.view(state, None)
        for s in range(2):
            mine = GAME.view(state, s)
            assert {**mine, "viewer": None} == public, "views must be public"
        commands.append(f"{seat}: {GAME.format_text(cmd)}")
        if len(commands) <= FULL:
            # The cards never change: the final view stores them once.
            slim = {**public, "players": [{k: v for k, v in p.items() if k != "cards"} for p in public["players"]]}
            steps.append({"command": commands[-1], "view": slim})
    out = GAME.is_over(state)
    assert out is not None
    return {"options": options, "commands": commands, "steps": steps,
            "final": GAME.view(state, None), "outcome": out.to_json()}


def test_golden_playthrough() -> None:
    got = json.loads(json.dumps(_record()))
    if os.environ.get("BOARDLOG_REGOLD") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, separators=(",", ":"), sort_keys=True) + "\n")
    assert GOLDEN.exists(), "no golden file: run with BOARDLOG_REGOLD=1"
    want = json.loads(GOLDEN.read_text())
    assert got["commands"] == want["commands"]
    for i, (a, b) in enumerate(zip(got["steps"], want["steps"], strict=True)):
        assert a == b, f"view differs after command {i + 1}: {a['command']}"
    assert got["final"] == want["final"] and got["outcome"] == want["outcome"]
