"""Golden playthrough: a seeded game's per-seat and public views after every command.

Regenerate with BOARDLOG_REGOLD=1 (only when a change of the views is intended).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

from rules.core import Rng, SeatInfo, fold
from rules.dragondale import GAME

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "dragondale" / "playthrough.json"
OPTIONS = {"tribes": ["celts", "dark_faery", "vikings"], "experienced": True}
SEED = 11
FULL_AT = (0, 1, 2, 3, 10, 25, 50)


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def record() -> dict[str, Any]:
    n = len(OPTIONS["tribes"])
    rng = Rng(SEED.to_bytes(8, "big"), b"", "golden")
    s = fold(GAME, GAME.setup(OPTIONS, [SeatInfo(i, f"p{i}") for i in range(n)], rng))
    bot = random.Random(SEED)
    steps: list[dict[str, Any]] = []
    full: dict[str, Any] = {}
    k = 0
    while True:
        views = {str(v): GAME.view(s, v) for v in [*range(n), None]}
        steps.append({v: hashlib.sha256(_canon(x).encode()).hexdigest()[:16] for v, x in views.items()})
        if k in FULL_AT or GAME.is_over(s) is not None:
            full[str(k)] = views
        if GAME.is_over(s) is not None:
            break
        assert s.prompt is not None
        seat = bot.choice(list(s.prompt.seats))
        cmd = bot.choice(list(GAME.legal_commands(s, seat)))
        steps[-1]["command"] = f"{seat}: {GAME.format_text(cmd)}"
        for e in GAME.decide(s, cmd, rng):
            s = GAME.evolve(s, e)
        k += 1
    return {"options": OPTIONS, "seed": SEED, "steps": steps, "views": full,
            "outcome": GAME.is_over(s).to_json()}  # type: ignore[union-attr]


def test_golden_playthrough() -> None:
    got = json.loads(_canon(record()))
    if os.environ.get("BOARDLOG_REGOLD") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, sort_keys=True, indent=None, separators=(",", ":")) + "\n")
    want = json.loads(GOLDEN.read_text())
    for i, (a, b) in enumerate(zip(got["steps"], want["steps"], strict=False)):
        assert a == b, f"views differ after command {i}: {b.get('command')}"
    for k, views in want["views"].items():
        assert got["views"][k] == views, f"full views differ at step {k}"
    assert got["outcome"] == want["outcome"] and len(got["steps"]) == len(want["steps"])
