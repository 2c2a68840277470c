"""Small pieces of English the games' describe modules share: seats by name, lists, articles.

Pure functions of their arguments; no game's content lives here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any


def seat_name(names: Sequence[str], seat: Any) -> str:
    """A seat by its player's name ("seat 3" when the name is unknown, "someone" without a seat)."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
        return names[seat]
    return f"seat {seat}" if isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0 else "someone"


def listing(items: Iterable[str], empty: str = "nothing", joint: str = "and") -> str:
    """"a", "a and b", "a, b and c" (`joint` "or": "a, b or c")."""
    xs = list(items)
    if not xs:
        return empty
    if len(xs) == 1:
        return xs[0]
    return ", ".join(xs[:-1]) + f" {joint} " + xs[-1]


def split_camel(name: str) -> str:
    """"TurnTimedOut" -> "turn timed out"."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()


def titled(key: str) -> str:
    """A content key as a name: "great_hunt" -> "Great Hunt", "dark_faery" -> "Dark Faery"."""
    return " ".join(w[:1].upper() + w[1:] for w in re.split(r"[_\s]+", str(key)) if w)


def article(noun: str) -> str:
    """"a Knight", "an Angel"."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def plural(n: int, one: str, many: str | None = None) -> str:
    """"1 unit", "3 units"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def sentence(text: str, cap: bool = True) -> str:
    """A full stop at the end (unless it already ends a sentence) and, with `cap`, a capital
    first letter (never with a player's name first: names are written as their players wrote them)."""
    text = text.strip()
    if not text:
        return text
    if cap:
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def event_name(type: str) -> str:
    """An event type as words, the fallback sentence: "rite.RockPlaced" -> "Rock placed."."""
    return sentence(split_camel(type.rpartition(".")[2]))


# Where a command's arguments and an event's data name board places, in from-to-target order.
PLACE_KEYS = ("from", "path", "at", "to", "target", "targets", "space", "where", "tiles")


def places(*sources: Any, keys: Sequence[str] = PLACE_KEYS, valid: Any = None) -> list[str]:
    """The place ids under `keys` in each mapping of `sources`, in order, without repeats;
    `valid` (a container), when given, keeps only the ids it holds."""
    out: list[str] = []
    for src in sources:
        if not hasattr(src, "get"):
            continue
        for k in keys:
            v = src.get(k)
            for x in v if isinstance(v, (list, tuple)) else [v]:
                if isinstance(x, str) and x and x not in out and (valid is None or x in valid):
                    out.append(x)
    return out


def opening(text: str) -> str:
    """A sentence that starts with an article or "their" gets its capital; one that starts with
    a player's name is left as the player wrote it."""
    for w in ("a ", "an ", "the ", "their "):
        if text.startswith(w):
            return text[0].upper() + text[1:]
    return text


def asked(prompt_sentence: str) -> str:
    """What a prompt sentence asks, without the names it starts with and its full stop:
    "bob (Goblins): take an action (round 2)." -> "take an action (round 2)"."""
    return prompt_sentence.partition(": ")[2].strip().rstrip(".")


def plain(key: str) -> str:
    """A key no table names, as words at least: "stay_choice:2" -> "stay choice 2"."""
    return re.sub(r"[_:+\-]+", " ", str(key)).strip()
