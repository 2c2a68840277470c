"""Players a game names beside its seat tokens: a referee, or a fork's invited seats, resolved to
their accounts before the game is made; and a referee invited by mail.

Who may hold the referee's role is what every seat must be able to trust (docs/referees-and-forks.md):
a referee named as `{"player": id or name}` reads the game signed in as that player; one named
`{"name", "email"}` is mailed an invitation that no answer returns, accepted signed in; a name
alone gets a referee token in the create answer, the creator's, and the game's first event says
so (service/usecases/matches.py).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
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


EMAIL_CHARS = 254


@dataclass(frozen=True, slots=True)
class Invitation:
    """A referee's invitation: the address it is mailed to and its one secret, the code in the
    mailed link, of which the game keeps only the digest (`field`, an auth field no bearer
    token's digest can equal)."""

    address: str
    code: str

    @property
    def field(self) -> str:
        return invitation_field(self.code)


def invitation_field(code: str) -> str:
    return "invite:" + hashlib.sha256(code.encode()).hexdigest()


def referee_invitation(body: Mapping[str, Any]) -> tuple[dict[str, Any], Invitation | None]:
    """`body` with a referee `{"name", "email"}` named by their name alone, and the invitation to
    mail them; the body as it is and None for any other referee (or none)."""
    raw = body.get("referee")
    if not (isinstance(raw, dict) and "email" in raw):
        return dict(body), None
    if set(raw) != {"name", "email"} or not isinstance(raw["name"], str):
        raise UseCaseError("bad_input", "bad_referee",
                           "a referee invited by mail is {\"name\": their name, \"email\": their address}")
    address = raw["email"]
    if (not isinstance(address, str) or not 3 <= len(address) <= EMAIL_CHARS or address.count("@") != 1
            or not address.isprintable() or any(c.isspace() for c in address)
            or address.startswith("@") or address.endswith("@")):
        raise UseCaseError("bad_input", "bad_email",
                           "the referee's 'email' is an address like name@example.org (at most 254 characters)")
    return {**body, "referee": raw["name"]}, Invitation(address, secrets.token_urlsafe(24))
