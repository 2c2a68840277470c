"""Rewrite every golden playthrough (tests/golden/<game>/*.txt) from the current tree.

Run `python -m scripts.regold` from the repository root only when a change of events or views
is intended, and read the diff: each file is a game's commands and events line by line
(format in tests/support/golden.py). `BOARDLOG_REGOLD=1 pytest tests/*/test_golden.py` does
the same through the tests.
"""

from __future__ import annotations

import importlib

from tests.support.golden import path_of, play, write

# Each module holds its game's GAME and the CASES its golden test compares.
MODULES = ("tests.rite.test_golden", "tests.factions.test_golden", "tests.dragondale.test_golden")


def main() -> None:
    for name in MODULES:
        module = importlib.import_module(name)
        for case in module.CASES:
            path = path_of(module.GAME, case)
            lines = play(module.GAME, case)
            write(path, lines)
            print(f"{path}: {len(lines)} lines, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
