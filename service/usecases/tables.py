"""Games whose seats name players: invites by name, and open tables that wait for players.

A seat of `POST /v1/games` is one of
- a name (`"ann"`, `{"name": "ann", "entropy": "..."}`): its token is in the answer, as ever;
- a player (`{"player": "<player id or name>", "name"?: "...", "entropy"?: "..."}`): the seat is
  claimed for that player (no token in the answer: they play it signed in); entropy only for
  the creator's own seat;
- open (`{"open": true}`): a signed-in player takes it later (`POST /v1/tables/<id>/join`).

With no open seat the game is set up at once. With one, it is a forming table
(service/stores/tables.py): the game's id, seed and tokens are fixed at creation, but its set
up (GameCreated and the game's own set-up events) runs only when the last seat is taken, with
every seat's entropy, so the audit re-derives it from the joiners' contributions.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import structlog
from fastapi.concurrency import run_in_threadpool

from events.domain.names import display_name, name_key
from events.domain.wallclock import utcnow
from events.store.layout import new_game_id
from events.store.store import EventStore
from rules.core import InvalidCommand, SeatInfo, get_game
from service.stores.players import Player, PlayerStore, digest
from service.stores.tables import Table, TableSeat, TableStore
from service.usecases.errors import UseCaseError
from service.usecases.matches import (
    MAX_ENTROPY,
    REFEREE,
    check_setup,
    referee_field,
    referee_of,
    store_match,
    unknown_fields,
)
from service.usecases.referees import referee_player

log = structlog.get_logger("boardlog.api")

_PLAYER_ID = re.compile(r"^[0-9a-f]{16}$")
JOIN_TRIES = 8


@dataclass(frozen=True, slots=True)
class Ask:
    """One seat as the create request asks for it."""

    kind: str  # "named", "player", "open"
    name: str | None
    player: str | None
    entropy: str


def has_player_seats(raw: object) -> bool:
    """Whether a create request's seats invite players or leave seats open (a signed-in creator's
    game), rather than only naming them."""
    return isinstance(raw, list) and any(isinstance(s, dict) and ("open" in s or "player" in s) for s in raw)


def _entropy(raw: object, i: int) -> str:
    if not isinstance(raw, str) or len(raw) > MAX_ENTROPY:
        raise InvalidCommand("bad_seats", f"seat {i}: entropy is a string of at most {MAX_ENTROPY} characters")
    return raw


def _asks(raw: list[Any]) -> list[Ask]:
    out = []
    for i, s in enumerate(raw):
        if isinstance(s, str):
            out.append(Ask("named", display_name(s, f"seat {i}'s name"), None, ""))
            continue
        if not isinstance(s, dict):
            raise InvalidCommand("bad_seats", f"seat {i} must be a name, {{name}}, {{player}} or {{open: true}}")
        keys = set(s)
        if "open" in s:
            if s["open"] is not True or keys != {"open"}:
                raise InvalidCommand("bad_seats", f"seat {i}: an open seat is exactly {{\"open\": true}}")
            out.append(Ask("open", None, None, ""))
        elif "player" in s:
            if keys - {"player", "name", "entropy"} or not isinstance(s["player"], str) or not s["player"].strip():
                raise InvalidCommand("bad_seats", f"seat {i}: an invited seat is {{player, name?, entropy?}}, "
                                                  "the player by id or name")
            name = None if s.get("name") is None else display_name(s["name"], f"seat {i}'s name")
            out.append(Ask("player", name, s["player"].strip(), _entropy(s.get("entropy", ""), i)))
        else:
            if keys - {"name", "entropy"} or not isinstance(s.get("name"), str):
                raise InvalidCommand("bad_seats", f"seat {i} must be a name, {{name}}, {{player}} or {{open: true}}")
            out.append(Ask("named", display_name(s["name"], f"seat {i}'s name"), None,
                           _entropy(s.get("entropy", ""), i)))
    return out


async def _invitee(players: PlayerStore, asked: str, i: int) -> Player:
    """The player a seat invites: by id, else by name (which must be one player's)."""
    if _PLAYER_ID.match(asked):
        found = await players.player(asked)
        if found is not None:
            return found
    ids = await players.named(asked)
    if not ids:
        raise UseCaseError("bad_input", "unknown_player", f"seat {i}: no player has the id or name {asked!r}")
    if len(ids) > 1:
        raise UseCaseError("bad_input", "ambiguous_player",
                           f"seat {i}: {len(ids)} players are named {asked!r}; invite one by their player id")
    player = await players.player(ids[0])
    if player is None:
        raise UseCaseError("bad_input", "unknown_player", f"seat {i}: no player has the id or name {asked!r}")
    return player


def _distinct(names: Mapping[int, str]) -> None:
    """Seat names distinct by name_key, naming both seats (as names.require_distinct does)."""
    first: dict[str, int] = {}
    for seat, name in sorted(names.items()):
        j = first.setdefault(name_key(name), seat)
        if j != seat:
            raise InvalidCommand("name_taken",
                                 f"seat {seat}'s name {name!r} is taken by seat {j}: names in one game must differ")


def _new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True, slots=True)
class Plan:
    """A create request with player or open seats, checked: nothing is written yet."""

    name: str
    asks: list[Ask]
    options: dict[str, Any]
    invited: dict[int, Player]
    names: dict[int, str]
    expires_in: float
    referee: tuple[str, str | None] | None = None  # (name, player id or None: a referee token)


async def plan_table(players: PlayerStore, creator: Player, body: Mapping[str, Any], longest: float) -> Plan:
    """Check a create request whose seats invite players or stay open; refuse it (an unknown
    game, bad seats or options, an invitee nobody or many are named) before anything is written.
    `longest`: the most seconds a table may wait for players (BOARDLOG_TABLE_EXPIRY_SECONDS)."""
    name = body.get("game")
    if not isinstance(name, str):
        raise InvalidCommand("bad_request", "'game' must be a game name")
    game = get_game(name)
    raw = body.get("seats")
    if not isinstance(raw, list) or not raw:
        raise InvalidCommand("bad_seats", "seats must be a non-empty list")
    if not game.min_seats <= len(raw) <= game.max_seats:
        raise InvalidCommand("bad_seats", f"{name} takes {game.min_seats} to {game.max_seats} seats")
    asks = _asks(raw)
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise InvalidCommand("bad_options", "'options' must be an object")
    unknown_fields(body, {"game", "seats", "options", "expires_in", "referee"})
    expires_in = body.get("expires_in", longest)
    if isinstance(expires_in, bool) or not isinstance(expires_in, int | float) or not 1 <= expires_in <= longest:
        raise InvalidCommand("bad_expiry", f"'expires_in' is how long the table waits for players: 1 to {longest:g} "
                                           "seconds (the deployment's BOARDLOG_TABLE_EXPIRY_SECONDS)")
    invited: dict[int, Player] = {}
    for i, a in enumerate(asks):
        if a.kind == "player" and a.player is not None:
            invited[i] = await _invitee(players, a.player, i)
            if a.entropy and invited[i].id != creator.id:
                raise InvalidCommand("bad_seats", f"seat {i}: entropy is the seat holder's own; "
                                                  "an invited player adds theirs by joining an open seat instead")
    seen: dict[str, int] = {}
    for i, who in invited.items():
        j = seen.setdefault(who.id, i)
        if j != i:
            raise InvalidCommand("player_twice", f"seats {j} and {i} invite the same player: one seat a player")
    names = {i: (a.name or invited[i].name) for i, a in enumerate(asks) if a.kind != "open"}
    _distinct(names)
    _, named = await referee_player(players, body)  # (id, name) of a player as referee
    referee: tuple[str, str | None] | None = None if named is None else (named[1], named[0])
    if referee is None:
        ref_name = referee_of(body.get("referee"))
        referee = None if ref_name is None else (ref_name, None)
    elif any(referee[1] == who.id for who in invited.values()):
        raise InvalidCommand("bad_referee", "the referee is not a seat: that player is invited to one")
    if referee is not None:
        same = [i for i, n in names.items() if name_key(n) == name_key(referee[0])]
        if same:
            raise InvalidCommand("name_taken", f"the referee's name {referee[0]!r} is seat {same[0]}'s: "
                                               "names in one game must differ")
    check_setup(game, options, len(asks))
    return Plan(name, asks, options, invited, names, float(expires_in), referee)


async def create_with_players(players: PlayerStore, tables: TableStore, store: EventStore, creator: Player,
                              plan: Plan) -> tuple[dict[str, Any], str]:
    """A game whose seats invite players or stay open, as planned; the answer and where the game
    (or the table) is read."""
    name, asks, options, invited, names = plan.name, plan.asks, plan.options, plan.invited, plan.names
    gid = new_game_id(store.partitions)
    seed = secrets.token_bytes(32)
    admin = _new_token()
    tokens = {i: _new_token() for i, a in enumerate(asks) if a.kind == "named"}
    seats = [TableSeat(i, names.get(i), invited[i].id if i in invited else None, a.entropy,
                       digest(tokens[i]) if i in tokens else None, a.kind == "open") for i, a in enumerate(asks)]
    answer_seats = [
        {"seat": s.seat, "name": s.name, "open": s.open, **({"token": tokens[s.seat]} if s.seat in tokens else {}),
         **({"player": invited[s.seat].name} if s.seat in invited else {})}
        for s in seats
    ]
    out: dict[str, Any] = {"id": gid, "game": name, "seats": answer_seats, "admin_token": admin}
    referee: dict[str, Any] | None = None
    if plan.referee is not None:
        ref_name, ref_player = plan.referee
        ref_token = None if ref_player is not None else _new_token()
        referee = {"name": ref_name, "player": ref_player, "token": None if ref_token is None else digest(ref_token)}
        out["referee"] = {"name": ref_name, **({"player": ref_player} if ref_player else {"token": ref_token})}
        if ref_player is not None:
            await players.name_referee(gid, ref_player)  # before the game or table: /v1/me lists it
    if all(s.name is not None for s in seats):
        table = Table(gid, name, options, creator.id, creator.name, 0.0, 0.0, "full", "0", tuple(seats), seed,
                      digest(admin), utcnow(), referee)
        await _claim_all(players, table)  # first, as a table's start does
        out["status"] = await _set_up(store, table)
        log.info("game.created", game=gid, type=name, seats=len(seats), invited=len(invited))
        return out, f"/v1/games/{gid}"
    expires = tables.clock() + plan.expires_in
    await tables.open(gid, name, options, (creator.id, creator.name), expires, seats, seed, digest(admin), referee)
    out.update(status="forming", expires=expires)
    log.info("table.opened", game=gid, type=name, seats=len(seats), open=sum(1 for s in seats if s.open),
             player=creator.id)
    return out, f"/v1/tables/{gid}"


async def _set_up(store: EventStore, table: Table) -> str:
    """Store the game of a full table (idempotent: a game already stored is left as it is)."""
    if table.seed is None or table.filled_at is None:
        raise ValueError(f"table {table.gid} is not full")
    seed, at = table.seed, table.filled_at
    game = get_game(table.game)
    seats = [SeatInfo(s.seat, s.name or "") for s in table.seats]
    auth = {s.token: f"seat:{s.seat}" for s in table.seats if s.token is not None}
    auth[table.admin] = "admin"
    ref = table.referee
    if ref is not None:
        auth[referee_field(ref["player"]) if ref.get("player") else ref["token"]] = REFEREE

    def stored() -> str:
        head = store.head(table.gid)
        if head is not None:
            return head.status
        return store_match(store, table.gid, game, seats, table.options, seed, [s.entropy for s in table.seats],
                           auth, at, None if ref is None else str(ref["name"]))

    return await run_in_threadpool(stored)


async def _claim_all(players: PlayerStore, table: Table) -> None:
    for s in table.seats:
        if s.player is not None:
            await players.claim(table.gid, s.seat, s.player)


async def start(tables: TableStore, store: EventStore, table: Table) -> str:
    """A full table's players' seats claimed and its game set up; the game's status. The claims
    come first, so that what follows the game's first events (the notifier) finds its players."""
    await tables.started(table, final=False)
    status = await _set_up(store, table)
    await tables.started(table)
    log.info("table.started", game=table.gid, type=table.game, seats=len(table.seats))
    return status


async def table_now(tables: TableStore, store: EventStore, gid: str) -> Table:
    """The table as it is now: an expired one closed, a full one (its start cut short) started."""
    table = await tables.get(gid)
    if table is None:
        raise UseCaseError("not_found", "unknown_table", f"no table {gid!r}")
    if table.status == "forming" and table.expires <= tables.clock():
        await tables.close(gid, "expired", table.expires)
        table = await tables.get(gid) or table
    elif table.status == "full":
        await start(tables, store, table)
        table = await tables.get(gid) or table
    return table


def closed(table: Table) -> UseCaseError:
    why = {"started": "its seats are all taken and the game has started", "cancelled": "its creator cancelled it",
           "expired": "nobody took its free seats in time", "full": "its seats are all taken"}
    return UseCaseError("conflict", "table_closed",
                        f"table {table.gid} is closed: {why.get(table.status, table.status)}")


async def join(tables: TableStore, store: EventStore, player: Player, gid: str, entropy: str, seat: int | None,
               name: str | None) -> dict[str, Any]:
    """Take a free seat of a forming table (the one asked for, else the first free one); the
    last one starts the game. Two players racing for one seat: one takes it, the other is told."""
    for _ in range(JOIN_TRIES):
        table = await table_now(tables, store, gid)
        if table.status != "forming":
            mine = table.seat_of(player.id)
            if mine is not None and table.status == "started":
                return {"game": gid, "seat": mine, "name": table.seats[mine].name, "status": "started", "free": 0}
            raise closed(table)
        held = table.seat_of(player.id)
        if held is not None:
            raise UseCaseError("conflict", "already_seated", f"you already hold seat {held} of this table")
        if table.referee is not None and table.referee.get("player") == player.id:
            raise UseCaseError("conflict", "already_seated", "you referee this table: a referee takes no seat")
        if not table.free:
            raise UseCaseError("conflict", "table_full", "every seat of this table is taken")
        if seat is not None and not 0 <= seat < len(table.seats):
            raise UseCaseError("bad_input", "bad_seat", f"this table has seats 0 to {len(table.seats) - 1}")
        if seat is not None and seat not in table.free:
            raise UseCaseError("conflict", "seat_taken", f"seat {seat} of this table is not free")
        take = table.free[0] if seat is None else seat
        seat_name = display_name(name if name is not None else player.name, "your seat's name")
        _distinct({**{s.seat: s.name for s in table.seats if s.name is not None}, take: seat_name})
        token = _new_token()
        taken = TableSeat(take, seat_name, player.id, entropy, digest(token), True)
        got = await tables.join(table, taken, utcnow())
        if got == "retry" or got.startswith("is:"):
            continue  # the table changed since it was read: read it again, and say what it is now
        log.info("table.joined", game=gid, seat=take, player=player.id)
        status = "forming"
        if got == "full":
            full = await tables.get(gid)
            if full is not None and full.status == "full":
                await start(tables, store, full)
            status = "started"
        left = len(table.free) - 1
        return {"game": gid, "seat": take, "name": seat_name, "token": token, "status": status, "free": left}
    raise UseCaseError("conflict", "table_busy", "this table changed under every try; try again")


async def cancel(tables: TableStore, store: EventStore, player: Player, gid: str) -> dict[str, Any]:
    table = await table_now(tables, store, gid)
    if table.creator != player.id:
        raise UseCaseError("forbidden", "not_creator", "only the player who opened this table may cancel it")
    if table.status != "forming":
        raise closed(table)
    got = await tables.close(gid, "cancelled")
    if got != "ok":
        raise closed(await table_now(tables, store, gid))
    log.info("table.cancelled", game=gid, player=player.id)
    return {"game": gid, "status": "cancelled"}


def table_json(table: Table, viewer: str | None) -> dict[str, Any]:
    """A table as anyone may see it (no token digest, no seed, no player id but the viewer's)."""
    return {
        "id": table.gid, "game": table.game, "options": table.options, "status": table.status,
        "creator": table.creator_name, "created": table.created, "expires": table.expires,
        "seats": [{"seat": s.seat, "name": s.name, "open": s.open, "taken": s.name is not None} for s in table.seats],
        "free": table.free, "you": None if viewer is None else table.seat_of(viewer),
        "yours": viewer is not None and table.creator == viewer,
        "referee": None if table.referee is None else {"name": table.referee["name"]},
    }


async def forming(tables: TableStore, store: EventStore) -> list[Table]:
    """The forming tables, soonest to expire first. On the way, those whose time is up are
    closed, and a full one whose start was cut short (a crash) is started."""
    listed, expired = await tables.forming()
    for gid in expired:
        if await tables.close(gid, "expired", tables.clock()) == "ok":
            log.info("table.expired", game=gid)
        else:
            await table_now(tables, store, gid)
    for t in listed:
        if t.status == "full":
            await table_now(tables, store, t.gid)
    return [t for t in listed if t.status == "forming"]

