"""Every function of the service is under 80 lines (issue #39): a longer one is several steps
that want names of their own."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOST_LINES = 79


def long_functions(source: str) -> list[tuple[str, int]]:
    """(name, lines) of each function in `source` over MOST_LINES lines, nested ones included."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > MOST_LINES
    ]


def test_every_function_of_the_service_is_under_80_lines() -> None:
    found = [f"{path.relative_to(ROOT)}: {name} ({n} lines)"
             for path in sorted((ROOT / "service").rglob("*.py"))
             for name, n in long_functions(path.read_text())]
    assert found == []


def test_the_count_includes_the_def_line_and_nested_functions() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    assert long_functions(f"def f():\n{body}\n") == [("f", 80)]
    assert long_functions(f"class C:\n  async def g(self):\n{body}\n") == [("g", 80)]
    assert long_functions("def short():\n    return 1\n") == []
