"""What a seat (or a spectator) sees: the public board, tracks, and power cards face down as numbers."""

from __future__ import annotations

from typing import Any

from .chaos_control import target
from .content import FACTIONS
from .primal_base import underneath
from .state import BOARD, CARD, RESERVE, VOLCANO, State

_FILL = {
    "basic": "#d9c89e", "firelord": "#b22222", "firefly": "#f0c419", "earth": "#8b5a2b", "fire": "#e25822",
    "shrine": "#9ec9f0", "banner": "#6fa8dc", "beacon": "#f4a582", "tunnel": "#a0522d", "rune": "#9e9e9e",
    "boneyard": "#5f5f5f", "summon": "#c8e6c9", "fog": "#e7b8e0", "jungle": "#3a7d44", "": "#ffffff",
}
_SHORT = {"earth": "EE", "fire": "FE", "firelord": "FL", "firefly": "FF", "summon": "S"}


def _tile_label(s: State, i: int) -> str:
    k = s.kinds[i]
    lab = s.geo.labels[i]
    if not k or k == "basic":
        return lab
    tag = _SHORT.get(k, k[:3])
    if k == "firefly":
        tag += str(s.tnum[i])
    elif k in ("earth", "fire"):
        tag += f"r{s.tnum[i]}"
    elif k == "summon":
        tag += FACTIONS[s.tfac[i]]["code"]
    if i in s.activated:
        tag += "*"
    return f"{lab} {tag}"


def _cards(s: State, seat: int, viewer: int | None) -> list[dict[str, Any]]:
    p = s.players[seat]
    out = []
    for i, name in enumerate(FACTIONS[p.faction]["powers"]):
        number = 5 * (i + 1)
        up = p.level >= number
        out.append(
            {
                "number": number,
                "face_up": up,
                "power": name if up or viewer == seat else None,
                "slots_left": max(0, p.level // 5 - i) - p.used[i] if up else 0,
            }
        )
    return out


def view(s: State, seat: int | None) -> dict[str, Any]:
    if s.phase == "new":
        return {"game": "rite", "phase": "new", "board": {"kind": "hex", "cells": []}, "prompt": None}
    geo = s.geo
    chaos = "chaos" in s.factions
    cells = []
    for i in range(geo.size):
        x, y = geo.xy(i)
        pieces: list[dict[str, Any]] = []
        v = s.occ[i]
        if v >= 0:
            u = s.units[v]
            piece: dict[str, Any] = {"label": u.kind, "owner": None if u.controller == VOLCANO else u.controller}
            if u.controller != VOLCANO and chaos:
                # "owner" stays the controller (the colour shown); with Chaos both are told apart.
                piece.update(controller=u.controller, owned_by=u.owner, flipped=u.controller != u.owner)
            if s.under and underneath(s, v):  # Evolve: the enemy units lying underneath this Primal unit
                piece["under"] = [s.units[x].kind for x in underneath(s, v)]
            pieces.append(piece)
        if i in s.rocks:
            pieces.append({"label": "rock", "owner": None})
        if i in s.fire:
            pieces.append({"label": "fire", "owner": None})
        cells.append(
            {"id": geo.labels[i], "x": x, "y": y, "label": _tile_label(s, i), "fill": _FILL.get(s.kinds[i], ""), "pieces": pieces}
        )
    players = []
    need = target(s)
    for k, p in enumerate(s.players):
        reserve: dict[str, int] = {}
        card: dict[str, int] = {}
        for u in s.units:
            if u.owner == k:
                if u.where == RESERVE:
                    reserve[u.kind] = reserve.get(u.kind, 0) + 1
                elif u.where == CARD:
                    card[u.kind] = card.get(u.kind, 0) + 1
        players.append(
            {
                "seat": k,
                "faction": p.faction,
                "round_energy": p.round_e,
                "reserve_energy": p.reserve_e,
                "faction_energy": p.faction_e,
                "rage": p.rage,
                "passed": p.passed,
                "powers": _cards(s, k, seat),
                "reserve": reserve,
                "on_cards": card,
                "on_board": sum(1 for u in s.units if u.owner == k and u.where == BOARD),
            }
        )
        if p.faction == "chaos":
            scored = s.scored or (0,) * len(s.factions)
            players[-1]["controlled_units_points"] = {
                f: scored[i] for i, f in enumerate(s.factions) if i != k
            }
            players[-1]["controlled_target"] = need
        if p.faction == "primals":
            players[-1]["consumed"] = s.consumed  # consumed units points (Primal objective)
            players[-1]["charge_used"] = "charge" in s.rflags  # the tapped Ultimatosaur card
    prompt = s.prompt
    return {
        "game": "rite",
        "phase": s.phase,
        "seat": seat,
        "round": s.round,
        "turn_order": list(s.order),
        "pass_track": list(s.passed),
        "active": s.active,
        "actions_taken": s.actions,
        "round_powers": sorted(x for x in s.rflags if x not in ("presence", "charge")),
        "volcano": {"last_die": s.die, "rolls": list(s.history)},
        "players": players,
        "hands": [list(h) for h in s.hands],
        "board": {"kind": "hex", "cells": cells},
        "prompt": prompt.to_json() if prompt else None,
        "winner": s.winner if s.phase == "over" else None,
        "reason": s.reason,
    }
