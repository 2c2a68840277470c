"""Rite's position as plain text, and its headline: built from a viewer's view alone (what
`view(state, viewer)` holds), so they never tell more than that viewer's board shows. The board
page ("Board as text"), `GET …/view.txt` and the turn mail all print this text
(events.domain.positiontext); the words are the rulebook's (Round, energy, rage, reserve, power
cards, tiles by name)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rules.words import listing, plural, seat_name

from .content import FACTIONS as FACTION_CONTENT
from .describe import FACTIONS, power_name, tile_key_name, tile_name, unit_name

# The view's tile tag (rules/rite/view.py `_tile_label`) back to its kind: the first three letters,
# or the short codes of the Elementals, the Firelord, Fireflies and summoning tiles.
_TAGS = {"EE": "earth", "FE": "fire", "FL": "firelord", "FF": "firefly", "shr": "shrine", "ban": "banner",
         "bea": "beacon", "tun": "tunnel", "run": "rune", "bon": "boneyard", "fog": "fog", "jun": "jungle"}
_SUMMON_CODES = {str(f.get("code")): key for key, f in FACTION_CONTENT.items()}
_TAG = re.compile(r"^(EE|FE)r(\d+)|^FF(\d+)|^FL|^S(\w+)|^([a-z]{3})")


def _tile(label: str) -> str:
    """ "d2 bea" -> "fire beacon tile"; "c3 FEr5*" -> "Fire Elemental (range 5), activated"."""
    tag = label.partition(" ")[2]
    if not tag:
        return ""
    active = tag.endswith("*")
    tag = tag.rstrip("*")
    m = _TAG.match(tag)
    if m is None:
        said = tag
    elif m.group(1):
        said = f"{tile_name(_TAGS[m.group(1)])} (range {m.group(2)})"
    elif m.group(3):
        said = f"{tile_name('firefly')} {m.group(3)}"
    elif tag == "FL":
        said = tile_name("firelord")
    elif m.group(4):
        faction = _SUMMON_CODES.get(m.group(4), "")
        said = f"{FACTIONS.get(faction, m.group(4))} summoning tile"
    else:
        said = tile_name(_TAGS.get(m.group(5), m.group(5)))
    return said + (", activated" if active else "")


def _who(owner: Any, names: Sequence[str]) -> str:
    return "the volcano" if owner is None else seat_name(names, owner)


def _units(counts: Mapping[str, int]) -> str:
    return listing((plural(n, unit_name(k)) for k, n in sorted(counts.items()) if n), empty="none")


def _power(card: Mapping[str, Any]) -> str:
    name = power_name(str(card["power"])) if card.get("power") else "face down"
    if card.get("face_up"):
        left = card.get("slots_left", 0)
        return f"{card.get('number')} {name} ({plural(left, 'use')} left)"
    return f"{card.get('number')} {name}" + (" (yours, face down)" if card.get("power") else "")


def _piece(pc: Mapping[str, Any], names: Sequence[str]) -> str:
    label = str(pc.get("label"))
    if label in ("rock", "fire"):
        return "a rock" if label == "rock" else "a fire token"
    said = f"{unit_name(label)} ({_who(pc.get('owner'), names)}"
    if pc.get("flipped"):
        said += f", owned by {_who(pc.get('owned_by'), names)}"
    said += ")"
    under = pc.get("under") or []
    if under:
        said += f" over {listing(unit_name(str(u)) for u in under)}"
    return said


def headline(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """ "Rite: ann vs bob, round 5" (before the set-up: no round yet)."""
    who = " vs ".join(names)
    if view.get("phase") == "new" or not view.get("round"):
        return f"Rite: {who}"
    return f"Rite: {who}, round {view.get('round')}"


def text_board(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """The actions taken this turn, the turn order, the volcano, each player's energy, rage, units in reserve and on power cards
    and power cards, the tiles in each player's hand, then every occupied tile: "c3 (Fire
    Elemental (range 5)): Knight (ann)"."""
    if view.get("phase") == "new":
        return "The game has not started."
    out = [] if view.get("phase") == "over" else [f"Actions taken this turn: {view.get('actions_taken', 0)}."]
    order = view.get("turn_order") or []
    if order:
        out.append("Turn order: " + ", ".join(seat_name(names, s) for s in order) + ".")
    passed = view.get("pass_track") or []
    if passed:
        out.append("Passed: " + ", ".join(seat_name(names, s) for s in passed) + ".")
    die = (view.get("volcano") or {}).get("last_die")
    out.append(f"The volcano's last roll: {die}." if die else "The volcano has not rolled yet.")
    out.append("Players:")
    hands = view.get("hands") or []
    for p in view.get("players", []):
        seat = p.get("seat")
        line = (f"  {seat_name(names, seat)} ({FACTIONS.get(str(p.get('faction')), p.get('faction'))})"
                f"{', passed' if p.get('passed') else ''}: energy {p.get('round_energy', 0)} this round, "
                f"{p.get('reserve_energy', 0)} in reserve, {p.get('faction_energy', 0)} faction energy; "
                f"rage {p.get('rage', 0)}; {plural(p.get('on_board', 0), 'unit')} on the board; "
                f"reserve: {_units(p.get('reserve') or {})}")
        if p.get("on_cards"):
            line += f"; on power cards: {_units(p['on_cards'])}"
        line += "; power cards: " + ", ".join(_power(c) for c in p.get("powers", []))
        if "controlled_units_points" in p:
            line += f"; controlled units points {sum(p['controlled_units_points'].values())} of {p.get('controlled_target')}"
        if "consumed" in p:
            line += f"; consumed units points {p['consumed']}"
        if isinstance(seat, int) and seat < len(hands) and hands[seat]:
            line += f"; tiles in hand: {listing(tile_key_name(str(t)) for t in hands[seat])}"
        out.append(line + ".")
    tiles = []
    for cell in (view.get("board") or {}).get("cells", []):
        pieces = cell.get("pieces") or []
        if not pieces:
            continue
        kind = _tile(str(cell.get("label", "")))
        tiles.append(f"  {cell.get('id')}{f' ({kind})' if kind else ''}: {', '.join(_piece(pc, names) for pc in pieces)}")
    out.append("Board:" if tiles else "Board: no unit on it yet.")
    return "\n".join(out + tiles)
