"""Creating matches, and the principal (seat or admin) a bearer token's stored role names."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from events.domain.match import created_event, fold_match
from events.domain.names import display_name, require_distinct
from events.domain.platform import OPTIONS as PLATFORM_OPTIONS
from events.domain.platform.base import split_options
from events.domain.wallclock import utcnow
from events.records.chain import genesis, seal
from events.store.layout import new_game_id
from events.store.store import EventStore
from rules.core import Game, InvalidCommand, Rng, SeatInfo, UnknownOptions, get_game

MAX_ENTROPY = 256


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: a seat, the game's admin, its referee, or nobody (a spectator).

    Only the referee (never a seat) reads every seat's secrets before the end; the admin, who
    may abort the game, reads what a spectator reads."""

    seat: int | None = None
    admin: bool = False
    referee: bool = False


REFEREE = "referee"
# The role an invitation's auth field holds until the referee accepts it signed in: no bearer
# token names it (token fields are hex digests, an invitation's field is "invite:<digest>").
INVITED = "invited-referee"


def referee_field(pid: str) -> str:
    """The auth field naming a player as a game's referee. Token fields are sha256 hex digests,
    so no bearer token's digest can ever equal it."""
    return f"player:{pid}"


def referee_of(raw: object) -> str | None:
    """The referee's name a create request gives: `"name"` or `{"name": ...}` (a referee token
    is made for them); None for none. A player named as referee, or a referee invited by mail,
    is taken out of the request by service/usecases/referees.py first."""
    if raw is None:
        return None
    if isinstance(raw, dict) and set(raw) == {"name"}:
        raw = raw["name"]
    if not isinstance(raw, str):
        raise InvalidCommand("bad_referee", "'referee' is a name, {\"name\": ...} or {\"player\": id or name}")
    return display_name(raw, "the referee's name")


def _seats(raw: object) -> tuple[list[SeatInfo], list[str]]:
    if not isinstance(raw, list) or not raw:
        raise InvalidCommand("bad_seats", "seats must be a non-empty list of names")
    seats, entropy = [], []
    for i, s in enumerate(raw):
        if isinstance(s, str):
            name, ent = s, ""
        elif isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("entropy", ""), str):
            name, ent = s["name"], s.get("entropy", "")
        else:
            raise InvalidCommand("bad_seats", f"seat {i} must be a name or {{name, entropy}}")
        name = display_name(name, f"seat {i}'s name")
        if len(ent) > MAX_ENTROPY:
            raise InvalidCommand("bad_seats", f"seat {i}: entropy of at most {MAX_ENTROPY} characters")
        seats.append(SeatInfo(i, name))
        entropy.append(ent)
    return seats, entropy


def create_match(store: EventStore, body: Mapping[str, Any], referee_player: tuple[str, str] | None = None,
                 name_referee: Callable[[str], None] | None = None, invitation: str | None = None) -> dict[str, Any]:
    """Validate a create request, store the opening events, and return ids and tokens.
    `referee_player` (id, name): the player the request named as referee, resolved by the API
    (the request's own `referee` field is then left out of `body`); `name_referee(gid)` lists the
    game among that player's refereed games (or mails a referee's invitation), called once the
    game is set up, before it is stored: if it raises, nothing is stored. `invitation`: the auth
    field of the referee's mailed invitation (service/usecases/referees.py): then no referee
    token is made, and the answer holds none."""
    name = body.get("game")
    if not isinstance(name, str):
        raise InvalidCommand("bad_request", "'game' must be a game name")
    game = get_game(name)
    seats, entropy = _seats(body.get("seats"))
    if not game.min_seats <= len(seats) <= game.max_seats:
        raise InvalidCommand("bad_seats", f"{name} takes {game.min_seats} to {game.max_seats} seats")
    # After the count, so a list too long for the game is answered as that whatever its names.
    require_distinct([s.name for s in seats])
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise InvalidCommand("bad_options", "'options' must be an object")
    unknown_fields(body, {"game", "seats", "options", "referee"})
    referee = referee_player[1] if referee_player is not None else referee_of(body.get("referee"))
    if referee is not None:
        require_distinct([*(s.name for s in seats), referee])
    gid = new_game_id(store.partitions)
    seed = secrets.token_bytes(32)
    tokens = {s.seat: secrets.token_urlsafe(24) for s in seats}
    admin = secrets.token_urlsafe(24)
    auth = {token_digest(t): f"seat:{seat}" for seat, t in tokens.items()}
    auth[token_digest(admin)] = "admin"
    out: dict[str, Any] = {
        "id": gid,
        "game": name,
        "seats": [{"seat": s.seat, "name": s.name, "token": tokens[s.seat]} for s in seats],
        "admin_token": admin,
    }
    appointed = _appoint(auth, out, referee, referee_player, invitation)
    store_match(store, gid, game, seats, options, seed, entropy, auth, utcnow(), referee, name_referee, appointed)
    return out


def _appoint(auth: dict[str, str], out: dict[str, Any], referee: str | None,
             player: tuple[str, str] | None, invitation: str | None) -> str | None:
    """Give the referee's role (into `auth`, and the answer's `referee` into `out`); how it was
    appointed, which the game's first event says to every seat: "player" (only that player,
    signed in, holds it), "mail" (the invitation went to the referee's address, never through
    the creator's hands) or "creator" (the token is in this answer, the creator's)."""
    if referee is None:
        return None
    if player is not None:
        auth[referee_field(player[0])] = REFEREE
        out["referee"] = {"name": referee, "player": player[0], "appointed": "player"}
        return "player"
    if invitation is not None:
        auth[invitation] = INVITED
        out["referee"] = {"name": referee, "appointed": "mail", "mailed": True}
        return "mail"
    ref_token = secrets.token_urlsafe(24)
    auth[token_digest(ref_token)] = REFEREE
    out["referee"] = {"name": referee, "token": ref_token, "appointed": "creator"}
    return "creator"


def store_match(
    store: EventStore, gid: str, game: Game, seats: Sequence[SeatInfo], options: Mapping[str, Any], seed: bytes,
    entropy: Sequence[str], auth: dict[str, str], at: str, referee: str | None = None,
    name_referee: Callable[[str], None] | None = None, appointed: str | None = None,
) -> str:
    """Set the game up and store its opening events, seed and token digests; its status.

    The same inputs store the same bytes (the set-up draws only from the seed and the
    entropy, `at` is given), so an open table's start, run twice after a crash, stores the
    game once: the second append finds seq 1 taken and writes nothing."""
    own, platform = split_options(options, PLATFORM_OPTIONS)
    try:
        events = created_event(gid, game, seats, own, seed, entropy, referee, platform, appointed)
    except UnknownOptions as err:
        raise _with_platform(err) from None
    envelopes = seal(gid, 1, genesis(gid), events, None, at)
    status = fold_match(events, gid).status
    if name_referee is not None:
        # Before the record: the player's list never misses a game they referee.
        name_referee(gid)
    store.create(gid, envelopes, status, seed, auth, at)
    return status


def check_setup(game: Game, options: Mapping[str, Any], seats: int) -> None:
    """Refuse options the game's set-up refuses, before a table waits days for its players:
    the set-up is run once on a throwaway seed (its events are dropped)."""
    own, _ = split_options(options, PLATFORM_OPTIONS)  # raises for a bad platform option
    try:
        game.setup(own, [SeatInfo(i, f"seat {i}") for i in range(seats)], Rng(secrets.token_bytes(32), b"", "check", 0))
    except UnknownOptions as err:
        raise _with_platform(err) from None


def unknown_fields(body: Mapping[str, Any], allowed: set[str]) -> None:
    """Refuse a create request's fields besides `allowed`, naming those; an option written
    beside them rather than in "options" is told where it goes."""
    extra = sorted(set(body) - allowed)
    if not extra:
        return
    options = [k for k in extra if k in PLATFORM_OPTIONS]
    where = f"; {', '.join(repr(k) for k in options)} go{'es' if len(options) == 1 else ''} in 'options'" if options else ""
    raise InvalidCommand("bad_request", f"unknown fields {extra}: a new game takes {', '.join(sorted(allowed))}{where}")


def _with_platform(err: UnknownOptions) -> InvalidCommand:
    """The game's refusal of an option it does not take, naming the platform's options too (a
    misspelt "takeback" reaches the game as one of its own)."""
    return InvalidCommand(err.code, f"{err.message}; with any game, {', '.join(sorted(PLATFORM_OPTIONS))}")


# Every command and read turns its stored role into a Principal: a handful of roles ("seat:N",
# "admin", "referee"), each made once (a Principal is frozen, so one instance serves all) instead
# of a decode, a split and a frozen dataclass's init on every request (~10 us on a loaded host).
_ROLES: dict[bytes, Principal | None] = {}
_MAX_ROLES = 1024  # a stored role is any bytes an auth field holds: the cache stays bounded


def principal_of(role: bytes | None) -> Principal | None:
    """The principal a stored role names ("seat:N", "admin" or "referee"); None for no role."""
    if role is None:
        return None
    try:
        return _ROLES[role]
    except KeyError:
        pass
    who = _principal_of(role)
    if len(_ROLES) >= _MAX_ROLES:
        _ROLES.clear()
    _ROLES[bytes(role)] = who
    return who


def _principal_of(role: bytes) -> Principal | None:
    name = role.decode()
    if name == "admin":
        return Principal(admin=True)
    if name == REFEREE:
        return Principal(referee=True)
    if not name.startswith("seat:"):
        return None  # an invitation's role (INVITED) opens nothing
    return Principal(seat=int(name.split(":", 1)[1]))
