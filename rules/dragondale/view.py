"""What each seat may see: the board view and the redaction of events and commands."""

from __future__ import annotations

from typing import Any

from rules.core import Command, Event
from rules.dragondale.board import board_for
from rules.dragondale.content import LEVELS, LOW, TRIBES
from rules.dragondale.queries import conqueror, vp
from rules.dragondale.state import DRAGON, State

FILL = {"marsh": "#7a9a6a", "mountain": "#9a9490", "thicket": "#4f7a3a", "tunnel": "#8a6a4a",
        "fog": "#c8cfd8", "inner": "#9fd3ff", "camp": "#e8d9a8"}


def _side(s: State, side: int) -> str:
    return "dragon" if side == DRAGON else s.tribes[side].name


def view(s: State, seat: int | None) -> dict[str, Any]:
    if not s.tribes:
        return {"board": {"kind": "areas", "cells": [], "edges": []}, "prompt": None}
    b = board_for(s.n)
    cells = []
    for tid in b.order:
        t = b.terr[tid]
        pieces: list[dict[str, Any]] = []
        for i, tr in enumerate(s.tribes):
            for u in tr.units:
                if u.loc == tid:
                    known = i == seat or not u.hidden
                    label = f"{tr.name}:{u.type}" if known else f"{tr.name}:hidden"
                    pieces.append({"label": label, "owner": i})
        if s.dragon == tid:
            pieces.append({"label": "Dragon", "owner": None})
        if t.rune_stone:
            holder = conqueror(s, tid)
            pieces.append({"label": "Rune stone" + (" (conquered)" if holder is not None else ""), "owner": holder})
        for tree in s.trees:
            if tid in b.trees[tree.id]:
                pieces.append({"label": f"{tree.id}:{tree.state}", "owner": tree.by})
        for tok in s.terr_tokens.get(tid, ()):
            pieces.append({"label": f"insight:{tok.owner}", "owner": None})
        label = tid
        if t.rune:
            label += f" [{t.rune}]"
        if t.arrows:
            label += " " + ",".join(f"{r}->{d}" for r, d in sorted(t.arrows.items()))
        if t.reward:
            label += " (reward)"
        if t.first:
            label += " (1st)"
        cells.append({"id": tid, "x": t.x, "y": t.y, "label": label, "fill": FILL.get(t.kind, ""),
                      "pieces": pieces, "kind": t.kind, "dragon": t.dragon})
    edges = sorted([a, c] for a in b.adj for c in b.adj[a] if a < c)
    tribes = []
    for i, tr in enumerate(s.tribes):
        own = i == seat
        d: dict[str, Any] = {
            "seat": i, "tribe": tr.name, "name": TRIBES[tr.name]["name"], "camp": tr.camp,
            "vp": vp(s, i), "fury": tr.fury,
            "units": [{"id": u.id, "type": u.type if own or not u.hidden else None, "at": u.loc,
                       "hidden": u.hidden} for u in tr.units],
            "insight": [{"owner": k.owner, "type": k.type if own or not k.hidden else None,
                         "hidden": k.hidden} for k in tr.tokens],
            "staked": [{"type": k.type if own or not k.hidden else None, "hidden": k.hidden} for k in tr.staked],
            "hand_count": len(tr.hand), "library_count": len(tr.library),
            "ideas_count": len(tr.ideas), "ideas_top": tr.ideas[-1] if tr.ideas else None,
            "revealed_stances": list(tr.revealed), "tribe_tokens": tr.tribe_tokens, "roots": tr.roots,
            "newcomer": tr.newcomer,
        }
        if own:
            d.update({"hand": list(tr.hand), "library": list(tr.library), "ideas": list(tr.ideas),
                      "stances": dict(tr.stances), "known_trees": dict(tr.known),
                      "dragon_peek": tr.peek, "stances_to_choose": list(tr.stance_todo)})
        tribes.append(d)
    known_trees: dict[str, str] = dict(s.tribes[seat].known) if seat is not None else {}
    trees = [{"id": t.id, "in": list(b.trees[t.id]), "state": t.state,
              "by": t.by, "poisoned": t.poisoned, "protected": t.protected,
              "wood_secured": t.state == "felled" and t.id not in s.wood,
              "underside": t.under if t.shown or t.state != "unaltered" else known_trees.get(t.id)}
             for t in s.trees]
    spaces = []
    for lv in LEVELS:
        card, up = s.fury_cards[lv - LOW]
        ftok = s.fury_tokens.get(str(lv))
        spaces.append({"level": lv, "card": card if up else None, "revealed": up,
                       "tribes": [tr.name for tr in s.tribes if tr.fury == lv],
                       "insight": ftok.owner if ftok else None})
    p = s.prompt
    return {
        "board": {"kind": "areas", "cells": cells, "edges": edges},
        "you": seat, "turn": s.ctl.get("turn"), "turn_no": s.turn_no,
        "prompt": p.to_json() if p else None,
        "order": list(s.order), "dominance": [_side(s, x) for x in s.dominance],
        "dragon": {"at": s.dragon, "stone": s.stone, "vp": s.dragon_vp,
                   "deck_count": len(s.mdeck)},
        "fury_track": {"top": list(s.fury_top), "bottom": list(s.fury_bottom), "spaces": spaces},
        "trees": trees, "tribes": tribes, "bag_count": sum(s.bag.values()),
        "outcome": s.outcome,
    }


def redact(event: Event, seat: int | None) -> Event | None:
    if "secret" not in event.data:
        return event
    if event.seat is not None and seat == event.seat:
        return event
    data = {k: v for k, v in event.data.items() if k != "secret"}
    return Event(event.type, data, event.seat)


def redact_command(cmd: Command, seat: int | None) -> Command | None:
    if cmd.type == "dragondale.stance" and seat != cmd.seat:
        return Command(cmd.type, {"unit": cmd.args["unit"]}, cmd.seat)
    if cmd.type == "dragondale.discard" and seat != cmd.seat:
        # a card discarded under a TOP card is unseen; the CardDiscarded event shows the card
        # to everyone when it lands on top instead
        return Command(cmd.type, {}, cmd.seat)
    if cmd.type == "dragondale.empower" and seat != cmd.seat:
        # the same for an empowered card: under a TOP card it is unseen, on top the
        # CardEmpowered event names it to everyone
        return Command(cmd.type, {"effect": cmd.args.get("effect")}, cmd.seat)
    return cmd
