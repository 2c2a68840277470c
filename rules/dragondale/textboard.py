"""Dragon Dale's position as plain text, and its headline: built from a viewer's view alone, so
hidden units, insight, cards and stances read as that viewer sees them ("a hidden unit" where it
cannot know). The board page ("Board as text"), `GET …/view.txt` and the turn mail all print this
text (events.domain.positiontext), in the rulebook's words: Turn, VP, Fury, Encampment, insight
tokens, stance cards, the Dragon, trees and rune stones, territories by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.words import listing, plural, seat_name

from .describe import (
    card_name,
    fury_name,
    stance_name,
    territory,
    tree_name,
    tribe_name,
    unit_type_name,
)

TREE_STATES = {"unaltered": "unaltered", "felled": "felled", "grown": "grown", "burnt": "burnt"}


def _side(side: Any) -> str:
    return "the Dragon" if side == "dragon" else tribe_name(side)


def _where(at: Any, camps: Mapping[str, str]) -> str:
    """A territory by name; an Encampment by its tribe's."""
    key = str(at)
    return f"the Encampment of the {camps[key]}" if key in camps else territory(key)


def _unit(u: Mapping[str, Any], tribe: str, who: str) -> str:
    if u.get("type") is None:
        return f"a hidden unit ({who})"
    return f"{unit_type_name(tribe, u['type'])} ({who}{', hidden' if u.get('hidden') else ''})"


def _insight(tokens: Sequence[Mapping[str, Any]]) -> str:
    said = [f"{tribe_name(t.get('owner'))} {t['type']}" if t.get("type") else f"{tribe_name(t.get('owner'))} face down"
            for t in tokens]
    return listing(said, empty="none")


def headline(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """ "Dragon Dale: ann vs bob, turn 3" (the rulebook counts turns)."""
    who = " vs ".join(names)
    turn = view.get("turn_no")
    return f"Dragon Dale: {who}" + (f", turn {turn}" if turn else "")


def _tribe_line(t: Mapping[str, Any], who: str) -> str:
    line = (f"  {who} ({t.get('name')}): {t.get('vp', 0)} VP, Fury {t.get('fury')}, "
            f"{plural(int(t.get('hand_count') or 0), 'card')} in hand, {t.get('library_count', 0)} in the Library, "
            f"insight tokens: {_insight(t.get('insight') or [])}")
    if t.get("staked"):
        line += f"; staked: {plural(len(t['staked']), 'insight token')}"
    if t.get("revealed_stances"):
        line += f"; stances shown: {listing(stance_name(x) for x in t['revealed_stances'])}"
    if "hand" in t:  # the viewer's own tribe: its cards and stances
        line += f"; your hand: {listing((card_name(c) for c in t['hand']), empty='empty')}"
        stances = t.get("stances") or {}
        if stances:
            line += "; your stances: " + ", ".join(
                f"{unit_type_name(str(t.get('tribe')), k)} {stance_name(v)}" for k, v in sorted(stances.items()))
    return line + "."


def text_board(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """Turn order and dominance, the Dragon, the Fury track's revealed cards, each tribe's VP,
    Fury, cards and insight, then every territory with its units, the Dragon, rune stones and
    trees: "Fog 1: Warriors (ann, hidden), a hidden unit (bob), Tree 2 (unaltered)"."""
    tribes = view.get("tribes") or []
    if not tribes:
        return "The game has not started."
    out = []
    order = view.get("order") or []
    if order:
        out.append("Turn order: " + ", ".join(seat_name(names, s) for s in order) + ".")
    if view.get("dominance"):
        out.append("Dominance: " + " > ".join(_side(x) for x in view["dominance"]) + ".")
    camps = {str(t.get("camp")): str(t.get("name")) for t in tribes}
    dragon = view.get("dragon") or {}
    line = f"The Dragon: in {_where(dragon.get('at'), camps)}" if dragon.get("at") else "The Dragon: not on the board"
    if dragon.get("vp") is not None:
        line += f", {dragon['vp']} VP"
    out.append(line + f"; {plural(int(dragon.get('deck_count') or 0), 'movement card')} left.")
    fury = [f"{s['level']} {fury_name(s['card'])}" for s in (view.get("fury_track") or {}).get("spaces", [])
            if s.get("revealed") and s.get("card")]
    if fury:
        out.append(f"Fury cards revealed: {', '.join(fury)}.")
    out.append("Tribes:")
    places: dict[str, list[str]] = {}
    for t in tribes:
        who = seat_name(names, t.get("seat"))
        out.append(_tribe_line(t, who))
        for u in t.get("units", []):
            places.setdefault(str(u.get("at")), []).append(_unit(u, str(t.get("tribe")), who))
    by_seat = {t.get("seat"): seat_name(names, t.get("seat")) for t in tribes}
    for cell in (view.get("board") or {}).get("cells", []):
        for pc in cell.get("pieces") or []:
            label = str(pc.get("label"))
            if label == "Dragon":
                places.setdefault(str(cell["id"]), []).append("the Dragon")
            elif label.startswith("Rune stone"):
                holder = by_seat.get(pc.get("owner"))
                places.setdefault(str(cell["id"]), []).append(f"a rune stone{f' (conquered by {holder})' if holder else ''}")
            elif label.startswith("insight:"):
                places.setdefault(str(cell["id"]), []).append(f"a {tribe_name(label[8:])} insight token")
    for tree in view.get("trees") or []:
        state = TREE_STATES.get(str(tree.get("state")), str(tree.get("state")))
        by = by_seat.get(tree.get("by"))
        said = f"{tree_name(tree.get('id'))} ({state}{f' by {by}' if by else ''}{', poisoned' if tree.get('poisoned') else ''}"
        said += f"{', protected' if tree.get('protected') else ''})"
        for at in tree.get("in") or []:
            places.setdefault(str(at), []).append(said)
    order_of = {str(c.get("id")): i for i, c in enumerate((view.get("board") or {}).get("cells", []))}
    out.append("Territories:")
    out += [f"  {_where(at, camps)}: {', '.join(things)}"
            for at, things in sorted(places.items(), key=lambda x: (order_of.get(x[0], len(order_of)), x[0]))]
    return "\n".join(out)
