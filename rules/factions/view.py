"""Board views. All information in Factions: Battlegrounds is public (RULINGS.md, Views); while
Terrain Tiles are placed, each panel also carries the patterns of the tiles in that seat's hand
(public already: the hand's tile numbers are, and a faction's tiles are content), so that a page
draws each choice in place before it is made (issue #38 item 10). Every viewer gets them alike:
a pattern only its holder saw would make placing a tile look like a reveal, and refuse its
takeback (events.domain.platform.takeback).

Each card and unit carries where its figures come from (`provenance`, `stats_label`): the
rulebook prints a few names and figures, the rest is the labelled reference set."""

from __future__ import annotations

from typing import Any

from rules.factions.board import space_name, terrain_at, tile_spaces
from rules.factions.content import FACTIONS, REFERENCE_LABEL, Printed, UnitCard
from rules.factions.state import BASE, State

FILL = {"W": "#6fa8dc", "I": "#e6d28a", "P": "#93c47d", "": "#dddddd"}


def _printed(printed: tuple[Printed, ...]) -> dict[str, Any]:
    return {p.field: {"value": p.value, "at_most": p.at_most, "where": p.where} for p in printed}


def provenance(c: UnitCard) -> dict[str, Any]:
    """Where a card's data comes from: the rulebook prints no Faction Overview Sheets (RULINGS.md,
    Content), so a page shows `label` beside every figure listed in `reference`."""
    return {
        "name": "rulebook" if c.source == "named" else "reference",
        "label": REFERENCE_LABEL if c.reference_fields else None,
        "printed": _printed(c.printed),
        "reference": list(c.reference_fields),
        "powers": {pw.code: _printed(pw.printed) for pw in c.powers if pw.printed},
    }


def _piece(s: State, key: str) -> dict[str, Any]:
    u = s.units[key]
    tag = u.code + ("^" if u.flying else "") + (f"-{u.damage}" if u.damage else "")
    return {"label": tag, "owner": u.seat}


def hand_tiles(s: State, seat: int) -> list[dict[str, Any]]:
    """The tiles in a seat's hand with their patterns ('ab/cd', north row first; turned 180° the
    string reads backwards, board.rotate)."""
    tiles = FACTIONS[s.factions[seat]].tiles
    return [{"tile": num, "pattern": tiles[num - 1]} for num in s.hand[seat]]


def view(s: State, seat: int | None) -> dict[str, Any]:
    if s.n == 0:
        return {"game": "factions", "public": True, "board": {"kind": "grid", "cells": []}}
    lay = s.layout
    w, h = lay.width, lay.height
    terrain = [""] * (w * h)
    owner = [-1] * (w * h)
    for spot0, t in enumerate(s.tiles):
        if t is not None:
            for i in tile_spaces(spot0 + 1, lay):
                terrain[i] = terrain_at(t[1], i, w)
                owner[i] = t[0]
    centers = {p: (k, o) for p, k, o in s.centers}
    cells = []
    for i in range(w * h):
        name = space_name(i, w)
        label = name
        if i in centers:
            k, o = centers[i]
            label += " " + ("G" if k == "gold" else "M") + (str(o) if o >= 0 else "")
        pieces = [_piece(s, s.occ[i])] if i in s.occ else []
        cells.append({"id": name, "x": float(i % w), "y": float(h - 1 - i // w), "label": label,
                      "fill": FILL[terrain[i]], "pieces": pieces, "terrain": terrain[i], "home": owner[i]})
    mid_x, mid_y = (w - 1) / 2, (h - 1) / 2
    # Cells use screen rows: y grows southwards, so row 1 is drawn at the bottom.
    camp_xy = {"south": (mid_x, float(h) + 0.5), "north": (mid_x, -1.5), "west": (-1.5, mid_y),
               "east": (float(w) + 0.5, mid_y)}
    for camp_seat, side in enumerate(lay.sides):
        x, y = camp_xy[side]
        pieces = [_piece(s, k) for k, u in sorted(s.units.items()) if u.seat == camp_seat and u.pos == BASE]
        cells.append({"id": f"camp{camp_seat}", "x": float(x), "y": float(y), "label": f"Base Camp {camp_seat}",
                      "fill": "#cccccc", "pieces": pieces, "terrain": "", "home": camp_seat})
    players = []
    for p in range(s.n):
        fac = FACTIONS[s.factions[p]]
        # The Faction Overview Sheet: every seat may read every faction's cards at any time.
        cards = [{"code": c.code, "name": c.name, "cost": c.cost, "rank": c.rank, "captain": c.captain,
                  "movement": c.movement, "attack": c.attack, "range": c.range, "health": c.health,
                  "aerial": c.aerial, "evade": c.evade, "makes": c.makes,
                  "powers": [f"{pw.code} {pw.name}" for pw in c.powers], "provenance": provenance(c)}
                 for c in fac.units.values()]
        players.append({
            "cards": cards,
            "seat": p, "faction": s.factions[p], "name": fac.name, "gold": s.gold[p], "mana": s.mana[p],
            "vp": s.vp[p], "warband": list(s.pool[p]), "set_aside": list(s.aside[p]),
            "eliminated": list(s.eliminated[p]), "tiles_in_hand": list(s.hand[p]),
            "empty_phases": s.empty_phases[p], "out": p in s.out,
            # Only the viewer's own, and only while tiles are placed: what its choices lay down.
            **({"hand_tiles": hand_tiles(s, p)} if s.phase == "tiles" else {}),
        })
    units = []
    for k, u in sorted(s.units.items()):
        c = s.card(u)
        units.append({"id": k, "seat": u.seat, "code": u.code, "name": c.name,
                      "space": space_name(u.pos, w) if u.pos >= 0 else "base", "damage": u.damage,
                      "health": c.health, "flying": u.flying, "activated": u.done, "command": u.commanding,
                      "boost": {"attack": u.atk_boost, "health": u.hp_boost}, "weak": u.weak,
                      "used": {p2: n for p2, n in u.used},
                      "stats_label": REFERENCE_LABEL if c.reference_fields else None})
    prompt = s.prompt
    return {
        "game": "factions",
        "public": True,  # no hidden information: every seat and spectators see the same view
        "viewer": seat,
        "phase": s.phase, "stage": s.stage, "round": s.round, "target": lay.target,
        "prompt": prompt.to_json() if prompt else None,
        "board": {"kind": "grid", "cells": cells},
        "players": players, "units": units,
        "centers": [{"space": space_name(p, w), "kind": k, "owner": o} for p, k, o in s.centers],
        "advantages": {"tile_first": s.tile_first, "resources": s.center_seat, "recruit_last": s.recruit_last,
                       "order": list(s.order)} if s.phase not in ("new", "advantage") else None,
        "winners": list(s.winners) if s.phase == "over" else None,
    }
