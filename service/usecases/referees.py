"""Players a game names beside its seat tokens: a referee, or a fork's invited seats, resolved to
their accounts before the game is made.

A referee named by a name alone gets a referee token in the create answer (service/usecases/matches.py);
a referee named as `{"player": id or name}` reads the game signed in as that player.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from service.stores.players import Player, PlayerStore
from service.usecases.errors import UseCaseError

_PLAYER_ID = re.compile(r"^[0-9a-f]{16}$")  # as service/usecases/tables.py reads an invitee


async def find_player(players: PlayerStore, asked: object, what: str) -> Player:
    """The player `asked` names: by id, else by a name only one player has (refused as bad
    input otherwise)."""
    if not isinstance(asked, str) or not asked:
        raise UseCaseError("bad_input", "bad_request", f"{what}: a player is named by their id or name")
    found = await players.player(asked) if _PLAYER_ID.match(asked) else None
    if found is None:
        ids = await players.named(asked)
        if len(ids) > 1:
            raise UseCaseError("bad_input", "ambiguous_player",
                               f"{what}: {len(ids)} players are named {asked!r}; name one by id")
        found = await players.player(ids[0]) if ids else None
    if found is None:
        raise UseCaseError("bad_input", "unknown_player", f"{what}: no player has the id or name {asked!r}")
    return found


async def referee_player(players: PlayerStore,
                         body: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, str] | None]:
    """`body` without a `{"player": ...}` referee, and that player's (id, name); the body as it
    is and None when the referee, if any, is not a player."""
    raw = body.get("referee")
    if not (isinstance(raw, dict) and "player" in raw):
        return dict(body), None
    if set(raw) != {"player"} or not isinstance(raw["player"], str):
        raise UseCaseError("bad_input", "bad_referee", "a player as referee is {\"player\": their id or name}")
    found = await find_player(players, raw["player"], "the referee")
    return {k: v for k, v in body.items() if k != "referee"}, (found.id, found.name)
