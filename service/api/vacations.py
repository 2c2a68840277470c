"""A player's vacation (issue #15 item 3): see it, start it, end it, from /me or with a player key.

While away, their clock stops in every active game of theirs (each game's log says so, and its
summary lists the seat under `clock.vacation`); a vacation ends when the player ends it or when
its days run out. Each player has `BOARDLOG_VACATION_DAYS` days a calendar year (UTC).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from service.api.auth import Caller, current_player
from service.api.errors import ApiError
from service.api.parts import parts
from service.api.responses import json_response
from service.stores.ratelimit import give_back, pause, unpause
from service.stores.vacations import VacationRefused

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]
# How long an answer waits for each game's vacation command to be applied (its clock stopped).
ANSWER_WAIT = 5.0
DAY = 86400


class VacationIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    days: float | None = Field(None, gt=0, le=366, description="how long (days, fractions allowed); omitted: "
                                                               "every day left this year")


def _answer(request: Request, pid: str, status: int = 200) -> Response:
    return json_response(parts(request).vacations.shown(pid), status)


@router.get("/v1/me/vacation", summary="The signed-in player's vacation: running or not, days used and left")
async def my_vacation(who: Me, request: Request) -> Response:
    return await run_in_threadpool(_answer, request, who.player.id)


@router.post("/v1/me/vacation", summary="Start a vacation: the player's clocks stop in every game")
async def start_vacation(body: VacationIn, who: Me, request: Request) -> Response:
    v = parts(request).vacations
    async with _toggle(request, who.player.id):
        try:
            await run_in_threadpool(v.start, who.player.id, body.days, ANSWER_WAIT)
        except VacationRefused as e:
            raise ApiError(409 if e.code == "vacation_on" else 422, e.code, e.message) from None
    return await run_in_threadpool(_answer, request, who.player.id)


@router.delete("/v1/me/vacation", summary="End the running vacation: the player's clocks run again")
async def end_vacation(who: Me, request: Request) -> Response:
    v = parts(request).vacations
    async with _toggle(request, who.player.id):
        ended = await run_in_threadpool(v.end, who.player.id, None, ANSWER_WAIT)
        if ended is None:
            raise ApiError(409, "no_vacation", "no vacation is running")
    return await run_in_threadpool(_answer, request, who.player.id)


@asynccontextmanager
async def _toggle(request: Request, pid: str) -> AsyncIterator[None]:
    """Within the player's share of toggles, before any work: each start or end appends a
    command to every active game of theirs, so a toggle inside `BOARDLOG_VACATION_TOGGLE_SECONDS`
    of the last is refused (429 `vacation_too_soon`) and at most `BOARDLOG_VACATION_TOGGLES_PER_DAY`
    are made a day (429 `rate_limited`). A toggle refused for what it asks (no vacation to end)
    counts for neither."""
    p = parts(request)
    s = p.settings
    wait = await pause(p.limits, "vacation", pid, s.vacation_toggle_seconds)
    if wait:
        raise ApiError(429, "vacation_too_soon", f"a vacation was started or ended less than "
                       f"{s.vacation_toggle_seconds:g} s ago; try again in {wait} s", {"Retry-After": str(wait)})
    wait = await p.limits.take("vacation", pid, s.vacation_toggles_per_day, window=DAY)
    if wait:
        await unpause(p.limits, "vacation", pid)
        raise ApiError(429, "rate_limited", f"vacations are started or ended at most {s.vacation_toggles_per_day} "
                       f"times a day; try again in {wait} s", {"Retry-After": str(wait)})
    try:
        yield
    except ApiError:
        await unpause(p.limits, "vacation", pid)
        if s.vacation_toggles_per_day > 0:
            await give_back(p.limits, "vacation", pid, DAY)
        raise
