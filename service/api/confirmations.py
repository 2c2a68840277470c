"""Confirming an email address: asking for the link again (for the player's own address or an
email target's) and using it (the `/confirm` page posts the token from its fragment).

Until its link is used an address is sent nothing: no notice, and no sign-in link."""

from __future__ import annotations

from typing import Annotated

import structlog
from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from service.api.auth import Caller, check_origin, current_player
from service.api.errors import ApiError
from service.api.mails import ask_confirmation, tell_replaced
from service.api.notifications import own_target
from service.api.parts import parts
from service.api.players import limited
from service.api.responses import json_response
from service.usecases.notifications.channels import masked

log = structlog.get_logger("boardlog.api")

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]


class ConfirmationToken(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # 0 is not false, "1" not 1 (the schema's types)
    token: str = Field(min_length=1, max_length=100, description="the token from the mailed link's #token=")


def _mailed(sent: bool, address: str) -> Response:
    if not sent:
        raise ApiError(503, "mail_unavailable", "the confirmation mail could not be sent just now: try again later")
    return json_response({"mailed": True, "message": f"a confirmation link is on its way to {address}"}, 202)


@router.post("/v1/me/email/confirmation", status_code=202,
             summary="Mail the player's own address its confirmation link again")
async def confirm_own(who: Me, request: Request) -> Response:
    """The sign-in mail goes only to a confirmed address. A new address asked for
    (`email_pending`) is the one mailed while it waits."""
    address = who.player.email_pending or who.player.email
    if address is None:
        raise ApiError(404, "no_email", "your player has no email address")
    if who.player.email_pending is None and await parts(request).players.email_confirmed(who.player):
        raise ApiError(409, "already_confirmed", f"{address} is confirmed already")
    return _mailed(await ask_confirmation(request, who.player.id, who.player.name, address), address)


@router.post("/v1/me/targets/{tid}/confirmation", status_code=202,
             summary="Mail an email target's address its confirmation link again")
async def confirm_target(tid: str, who: Me, request: Request) -> Response:
    t = await own_target(request, who, tid)
    if t.kind != "email":
        raise ApiError(422, "not_an_email_target", f"a {t.kind} target has no address to confirm")
    if t.confirmed:
        raise ApiError(409, "already_confirmed", f"{t.address} is confirmed already")
    return _mailed(await ask_confirmation(request, who.player.id, who.player.name, t.address), t.address)


@router.post("/v1/confirmations", summary="Confirm an email address with its mailed link's token (once)")
async def use_confirmation(body: ConfirmationToken, request: Request) -> Response:
    """No sign-in: the token is the proof that whoever holds it reads the address's mail."""
    if request.headers.get("origin") or request.headers.get("referer"):
        check_origin(request)
    p = parts(request)
    refused = await limited(request, "confirmations", p.settings.signins_per_minute)
    if refused is not None:
        return refused
    got = await run_in_threadpool(p.notifications.targets.confirm, body.token)
    if got is None:
        raise ApiError(404, "bad_confirmation_link",
                       "that confirmation link is used, expired or wrong: ask for another on your player's page")
    pid, address = got.player, got.address
    player = await p.players.player(pid)
    log.info("address.confirmed", player=pid, to=masked(address))
    if got.replaced is not None and player is not None:
        await tell_replaced(p.notifications, player.id, player.name, got.replaced, address)
    return json_response({"address": address, "player": None if player is None else player.name},
                         200, {"Cache-Control": "no-store"})
