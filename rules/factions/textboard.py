"""Factions' position as plain text, and its headline: built from a viewer's view alone, so they
never tell more than that viewer's board shows (Factions hides nothing: every viewer reads the
same). The board page ("Board as text"), `GET …/view.txt` and the turn mail all print this text
(events.domain.positiontext), in the rulebook's words: Round, Victory Points, gold, mana,
Resource Centers (Gold Mines, Mana Pools), Warband, Base Camp, units by their card's name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.words import listing, plural, seat_name

CENTERS = {"gold": "Gold Mine", "mana": "Mana Pool"}
# The set-up's steps and the round's stages in the rulebook's words (Game Setup; Flow of a Round).
PHASES = {"advantage": "rolling for the advantage", "tiles": "placing Terrain Tiles",
          "centers": "placing the Resource Centers", "aside": "setting aside 3 Units",
          "draft": "choosing the Vanguard", "play": "play", "over": "over"}
STAGES = {"main": "activating Units", "reinforce": "Recruiting New Units and Reinforcement Phase",
          "upkeep": "collecting gold and mana"}


def _who(owner: Any, names: Sequence[str]) -> str:
    return seat_name(names, owner) if isinstance(owner, int) and owner >= 0 else "nobody"


def _cards(view: Mapping[str, Any]) -> dict[tuple[Any, str], Mapping[str, Any]]:
    """Each seat's unit cards by code (the Faction Overview Sheet every viewer may read)."""
    return {(p.get("seat"), str(c.get("code"))): c for p in view.get("players", []) for c in p.get("cards") or []}


def _name(cards: Mapping[tuple[Any, str], Mapping[str, Any]], seat: Any, code: Any) -> str:
    card = cards.get((seat, str(code)))
    return str(card["name"]) if card else "a unit"


def _unit(u: Mapping[str, Any], cards: Mapping[tuple[Any, str], Mapping[str, Any]], names: Sequence[str]) -> str:
    """ "Bowman (ann; attack 1, health 1 of 2, activated)"."""
    card = cards.get((u.get("seat"), str(u.get("code")))) or {}
    boost = u.get("boost") or {}
    health = int(u.get("health") or 0) + int(boost.get("health") or 0)
    attack = card.get("attack")
    stats = [f"attack {int(attack) + int(boost.get('attack') or 0)}"] if isinstance(attack, int) else []
    stats.append(f"health {health - int(u.get('damage') or 0)} of {health}")
    if u.get("flying"):
        stats.append("flying")
    if u.get("command"):
        stats.append("in command")
    if u.get("activated"):
        stats.append("activated")
    return f"{u.get('name') or _name(cards, u.get('seat'), u.get('code'))} ({_who(u.get('seat'), names)}; {', '.join(stats)})"


def headline(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """ "Factions: Battlegrounds: ann vs bob, round 2"."""
    who = " vs ".join(names)
    rnd = view.get("round")
    return f"Factions: Battlegrounds: {who}" + (f", round {rnd}" if rnd else "")


def text_board(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """The phase and target, each player's Victory Points, gold, mana, Warband and tiles, the
    Resource Centers, the units in each Base Camp, then every space with a unit on it."""
    if not view.get("players"):
        return "The game has not started."
    stage = f" ({STAGES.get(str(view['stage']), str(view['stage']))})" if view.get("stage") and view.get("phase") == "play" else ""
    out = [f"Phase: {PHASES.get(str(view.get('phase')), str(view.get('phase')))}{stage}."]
    out.append(f"{view.get('target')} Victory Points win.")
    cards = _cards(view)
    out.append("Players:")
    for p in view.get("players", []):
        seat = p.get("seat")
        line = (f"  {_who(seat, names)} ({p.get('name') or p.get('faction')}){', out of the game' if p.get('out') else ''}: "
                f"{p.get('vp', 0)} Victory Points, {p.get('gold', 0)} gold, {p.get('mana', 0)} mana; "
                f"Warband: {listing((_name(cards, seat, c) for c in p.get('warband') or []), empty='none')}")
        if p.get("eliminated"):
            line += f"; eliminated: {listing(_name(cards, seat, c) for c in p['eliminated'])}"
        if p.get("tiles_in_hand"):
            line += f"; {plural(len(p['tiles_in_hand']), 'Terrain Tile')} in hand"
        out.append(line + ".")
    centers = [f"{c.get('space')} {CENTERS.get(str(c.get('kind')), c.get('kind'))} ({_who(c.get('owner'), names)})"
               for c in view.get("centers") or []]
    if centers:
        out.append("Resource Centers: " + ", ".join(centers) + ".")
    camps: dict[Any, list[str]] = {}
    spaces: dict[str, list[str]] = {}
    for u in view.get("units") or []:
        if u.get("space") == "base":
            camps.setdefault(u.get("seat"), []).append(_unit(u, cards, names))
        else:
            spaces.setdefault(str(u.get("space")), []).append(_unit(u, cards, names))
    for seat, units in camps.items():
        out.append(f"{_who(seat, names)}'s Base Camp: {', '.join(units)}.")
    out.append("Battleground:" if spaces else "Battleground: no unit on it yet.")
    out += [f"  {space}: {', '.join(units)}" for space, units in sorted(spaces.items(), key=lambda x: (x[0][0], int(x[0][1:]) if x[0][1:].isdigit() else 0))]
    return "\n".join(out)
