"""An event in words from a game's table of event words (each game's `describe_event`).

Pure: the table, the quiet set and the arguments are the game's; no game's content lives here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from dataclasses import replace
from typing import ParamSpec

from rules.core import Told
from rules.words import event_name, opening

P = ParamSpec("P")


def tell(
    table: Mapping[str, Callable[P, Told | str]],
    quiet: Set[str],
    type: str,
    *args: P.args,
    **kwargs: P.kwargs,
) -> Told:
    """An event of `type` told by its entry in `table`, called with the game's arguments (the
    type as words where no entry names it); quiet when the entry says so or `quiet` holds the type.

    The entry's sentence gets its capital by `opening`: an entry may start with an article and
    leave it to this, but a player's name is kept as the player wrote it."""
    words = table.get(type)
    if words is None:
        return Told(event_name(type))
    out = words(*args, **kwargs)
    told = out if isinstance(out, Told) else Told(out)
    return replace(told, text=opening(told.text), quiet=told.quiet or type in quiet)
