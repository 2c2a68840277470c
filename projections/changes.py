"""What one replay step changed on the board: pieces moved, added, removed or turned over, and
each seat's numbers (energy, gold, VP, ...) that went up or down.

Pure: it compares two views of the same viewer (`Game.view` as `view_of` wraps it), so it says
only what that viewer could see on both boards. A piece is known by its label and owner; the
same piece leaving one cell and reaching another is a move (paired first with the cells the
step's command touched, so a move reads as its own from and to), a piece gone from a cell and
another of the same owner arriving in the same cell is a piece turned over (a hidden unit
revealed), and what is left is added or removed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

PieceKey = tuple[str, Any]


def _cells(view: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    if not view:
        return []
    board = view.get("board")
    inner = board.get("board") if isinstance(board, Mapping) else None
    cells = inner.get("cells") if isinstance(inner, Mapping) else None
    return [c for c in cells if isinstance(c, Mapping)] if isinstance(cells, list) else []


def _key(piece: Mapping[str, Any]) -> PieceKey:
    owner = piece.get("owner")
    return str(piece.get("label", "")), owner if isinstance(owner, int) and not isinstance(owner, bool) else None


def _pieces(view: Mapping[str, Any] | None) -> dict[str, Counter[PieceKey]]:
    out: dict[str, Counter[PieceKey]] = {}
    for c in _cells(view):
        pieces = c.get("pieces")
        if isinstance(pieces, list):
            counted: Counter[PieceKey] = Counter(_key(p) for p in pieces if isinstance(p, Mapping))
            if counted:
                out[str(c.get("id"))] = counted
    return out


def _piece(key: PieceKey) -> dict[str, Any]:
    return {"label": key[0], "owner": key[1]}


def board_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None,
                  touched: Iterable[str] = ()) -> dict[str, Any]:
    """`moved` [{label, owner, from, to}], `added` and `removed` [{label, owner, cell}], `turned`
    [{cell, from, to}] (a piece that reads otherwise now, each side {label, owner}), `relabelled`
    [{cell, from, to}] (a cell's own label), `terrain` [{cell, from, to}] (the ground under a cell,
    where the game's cells carry one: a Factions tile laid in set-up), `scores` [{seat, what,
    before, after}] and `cells`: every cell any of them names."""
    was, now = _pieces(before), _pieces(after)
    lost: list[tuple[str, PieceKey]] = []
    gained: list[tuple[str, PieceKey]] = []
    for cell in sorted(set(was) | set(now)):
        a, b = was.get(cell, Counter()), now.get(cell, Counter())
        for k in sorted(set(a) | set(b), key=repr):
            d = b[k] - a[k]
            lost += [(cell, k)] * max(0, -d)
            gained += [(cell, k)] * max(0, d)
    hot = set(touched)
    moved: list[dict[str, Any]] = []
    # A move between two touched cells first, then any other way the same piece went.
    for pass_ in (0, 1):
        for item in list(lost):
            cell, k = item
            if pass_ == 0 and cell not in hot:
                continue
            options = [g for g in gained if g[1] == k and g[0] != cell and (pass_ == 1 or g[0] in hot)]
            if options:
                g = options[0]
                gained.remove(g)
                lost.remove(item)
                moved.append({**_piece(k), "from": cell, "to": g[0]})
    turned: list[dict[str, Any]] = []
    # In one cell, a piece that reads otherwise now: its owner's piece revealed (same owner), or
    # the same piece under another player's control (same label).
    for same in (lambda g, k: g[1][1] == k[1], lambda g, k: g[1][0] == k[0]):
        for item in list(lost):
            cell, k = item
            found = [g for g in gained if g[0] == cell and same(g, k)]
            if found:
                g = found[0]
                gained.remove(g)
                lost.remove(item)
                turned.append({"cell": cell, "from": _piece(k), "to": _piece(g[1])})
    removed = [{**_piece(k), "cell": c} for c, k in lost]
    added = [{**_piece(k), "cell": c} for c, k in gained]
    relabelled = _changed_field(before, after, "label")
    terrain = _changed_field(before, after, "terrain")
    cells: list[str] = []
    for x in [*(m["from"] for m in moved), *(m["to"] for m in moved), *(t["cell"] for t in turned),
              *(r["cell"] for r in removed), *(a["cell"] for a in added), *(r["cell"] for r in relabelled),
              *(t["cell"] for t in terrain)]:
        if x not in cells:
            cells.append(x)
    return {"moved": moved, "added": added, "removed": removed, "turned": turned, "relabelled": relabelled,
            "terrain": terrain, "scores": score_changes(before, after), "cells": cells}


def _changed_field(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None,
                   field: str) -> list[dict[str, Any]]:
    """Cells whose `field` changed: their own label (a tile activated, a Resource Center placed,
    a count moved) or their terrain (a tile laid)."""
    if not before:
        return []
    was = {str(c.get("id")): c.get(field) for c in _cells(before)}
    out = []
    for c in _cells(after):
        cid = str(c.get("id"))
        if cid in was and was[cid] != c.get(field):
            out.append({"cell": cid, "from": was[cid], "to": c.get(field)})
    return out


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _seat_rows(view: Mapping[str, Any] | None) -> dict[tuple[str, int], Mapping[str, Any]]:
    """Per-seat rows of the game's view: the dicts with a "seat" in its top-level lists."""
    board = view.get("board") if view else None
    if not isinstance(board, Mapping):
        return {}
    out: dict[tuple[str, int], Mapping[str, Any]] = {}
    for name, value in board.items():
        if isinstance(value, list):
            for row in value:
                if isinstance(row, Mapping) and isinstance(row.get("seat"), int):
                    out[(str(name), row["seat"])] = row
    return out


def score_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Each number of a seat's row that changed (`what` is its field, in words)."""
    a, b = _seat_rows(before), _seat_rows(after)
    out: list[dict[str, Any]] = []
    for key in sorted(set(a) & set(b)):
        old, new = a[key], b[key]
        for f in sorted(set(old) & set(new)):
            if f == "seat" or not (_number(old[f]) and _number(new[f])) or old[f] == new[f]:
                continue
            out.append({"seat": key[1], "what": f.replace("_", " "), "before": old[f], "after": new[f]})
    return out


def merged_view(public: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One board with everything shown, from the public view and each seat's own (`seats[i]` is
    seat i's `Game.view`): a piece a seat owns reads as its owner sees it, and each seat's row
    of a per-seat list as that seat sees it. Used after the end and for a referee."""
    out = dict(public)
    board = public.get("board")
    if isinstance(board, Mapping) and isinstance(board.get("cells"), list):
        cells = []
        for j, cell in enumerate(board["cells"]):
            pieces = cell.get("pieces") if isinstance(cell, Mapping) else None
            if not isinstance(pieces, list):
                cells.append(cell)
                continue
            shown = []
            for k, p in enumerate(pieces):
                owner = p.get("owner") if isinstance(p, Mapping) else None
                own = _seat_cell(seats, owner, j)
                shown.append(own[k] if own is not None and len(own) == len(pieces) else p)
            cells.append({**cell, "pieces": shown})
        out["board"] = {**board, "cells": cells}
    n = len(seats)
    for name, value in public.items():
        if name == "board" or not isinstance(value, list) or len(value) != n:
            continue
        rows = []
        for i, row in enumerate(value):
            named = row.get("seat") if isinstance(row, Mapping) else None
            seat: int = named if isinstance(named, int) else i
            theirs = seats[seat].get(name) if 0 <= seat < n else None
            rows.append(theirs[i] if isinstance(theirs, list) and len(theirs) == n else row)
        out[name] = rows
    return out


def _seat_cell(seats: Sequence[Mapping[str, Any]], owner: Any, j: int) -> list[Any] | None:
    if not isinstance(owner, int) or isinstance(owner, bool) or not 0 <= owner < len(seats):
        return None
    board = seats[owner].get("board")
    cells = board.get("cells") if isinstance(board, Mapping) else None
    if not isinstance(cells, list) or j >= len(cells) or not isinstance(cells[j], Mapping):
        return None
    pieces = cells[j].get("pieces")
    return pieces if isinstance(pieces, list) else None
