"""Open tables: the forming ones (the lobby's list), one table, joining a free seat, and the
creator cancelling. A table is opened by `POST /v1/games` with an open seat (games.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from events.store.layout import is_game_id
from service.api.auth import Caller, current_player
from service.api.credentials import COOKIE, bearer_token
from service.api.errors import ApiError
from service.api.parts import parts
from service.api.responses import json_response
from service.usecases import tables
from service.usecases.matches import MAX_ENTROPY

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]


class TableSeatOut(BaseModel):
    seat: int
    name: str | None = Field(description="the seat's name; null while the seat is free")
    open: bool = Field(description="the seat was left open at creation")
    taken: bool


class TableOut(BaseModel):
    id: str = Field(description="the game's id once it starts")
    game: str
    options: dict[str, Any]
    status: str = Field(description="forming, started, cancelled or expired")
    creator: str = Field(description="the name of the player who opened the table")
    created: float
    expires: float = Field(description="when a table still forming closes (Unix time)")
    seats: list[TableSeatOut]
    free: list[int]
    you: int | None = Field(description="the seat the asking player holds here, if any")
    yours: bool = Field(description="the asking player opened this table")


class TablesOut(BaseModel):
    tables: list[TableOut]


class JoinIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    entropy: str = Field("", max_length=MAX_ENTROPY,
                         description="your contribution to the game's randomness (the audit shows it)")
    seat: int | None = Field(None, ge=0, description="the free seat to take; the first free one if omitted")
    name: str | None = Field(None, description="the seat's name; your player name if omitted")


class JoinOut(BaseModel):
    game: str
    seat: int
    name: str | None
    token: str | None = Field(None, description="your seat's token (for API clients and bots); shown once")
    status: str = Field(description="forming (seats still free) or started (yours was the last)")
    free: int


class CancelOut(BaseModel):
    game: str
    status: str


async def viewer(request: Request) -> str | None:
    """The signed-in player asking, if any (a read never fails for a bad or ended session)."""
    if bearer_token(request) is None and not request.cookies.get(COOKIE):
        return None
    try:
        return (await current_player(request)).player.id
    except ApiError:
        return None


def _gid(gid: str) -> str:
    if not is_game_id(gid):
        raise ApiError(404, "unknown_table", f"no table {gid!r}")
    return gid


@router.get("/v1/tables", response_model=TablesOut, summary="Forming tables: games waiting for players")
async def forming(request: Request, mine: int = 0) -> Response:
    """Soonest to expire first. `?mine=1`: only those the asking player opened or sits at."""
    p = parts(request)
    who = await viewer(request)
    rows = [tables.table_json(t, who) for t in await tables.forming(p.tables, p.store)]
    if mine:
        rows = [r for r in rows if r["yours"] or r["you"] is not None]
    return json_response({"tables": rows})


@router.get("/v1/tables/{gid}", response_model=TableOut, summary="One table, forming or closed")
async def one(gid: str, request: Request) -> Response:
    p = parts(request)
    table = await tables.table_now(p.tables, p.store, _gid(gid))
    return json_response(tables.table_json(table, await viewer(request)))


@router.post("/v1/tables/{gid}/join", response_model=JoinOut, summary="Take a free seat of a forming table")
async def join(gid: str, body: JoinIn, who: Me, request: Request) -> Response:
    """Signed in (the cookie, or a player key as Bearer). The last free seat starts the game:
    its set-up runs then, with every seat's entropy."""
    p = parts(request)
    out = await tables.join(p.tables, p.store, who.player, _gid(gid), body.entropy, body.seat, body.name)
    return json_response(out)


@router.post("/v1/tables/{gid}/cancel", response_model=CancelOut, summary="Cancel a forming table (its creator)")
async def cancel(gid: str, who: Me, request: Request) -> Response:
    p = parts(request)
    return json_response(await tables.cancel(p.tables, p.store, who.player, _gid(gid)))
