"""The player's own email address (where sign-in links go): change it or remove it.

A confirmed address is not given up for one nobody has confirmed: the new address waits as
`email_pending`, and the link mailed to it makes the change (the old address is then told of
it). An address not confirmed yet, or none, is simply replaced.
"""

from __future__ import annotations

from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from service.api.auth import Caller, current_player
from service.api.body import json_body
from service.api.errors import ApiError
from service.api.mails import ask_confirmation
from service.api.parts import parts
from service.api.players import EMAIL_CHARS, email_of, only
from service.api.responses import json_response
from service.stores.players import Player
from service.usecases.notifications.channels import masked

log = structlog.get_logger("boardlog.api")

router = APIRouter()

Me = Annotated[Caller, Depends(current_player)]


async def email_json(request: Request, player: Player) -> dict[str, Any]:
    """The player's address as their own answers show it."""
    return {"email": player.email, "email_confirmed": await parts(request).players.email_confirmed(player),
            "email_pending": player.email_pending}


@router.put("/v1/me/email", summary="Change the player's own email address (a confirmed one holds until the new one "
                                    "is confirmed)")
async def change_email(who: Me, request: Request) -> Response:
    """200 when the address is the player's at once (they confirmed it before); 202 when its
    confirmation link is on its way, `confirmation_mailed` saying whether the mail left."""
    body = await json_body(request)
    only(body, {"email"})
    if not isinstance(body.get("email"), str) or len(body["email"]) > EMAIL_CHARS:
        raise ApiError(422, "bad_email", f"'email': the new address, at most {EMAIL_CHARS} characters "
                       "(DELETE /v1/me/email removes yours)")
    address = email_of(body["email"].strip())
    assert address is not None
    store, me = parts(request).players, who.player
    if (me.email is not None and me.email.casefold() == address.casefold() and me.email_pending is None
            and await store.email_confirmed(me)):
        raise ApiError(409, "already_yours", f"{me.email} is your address already, and confirmed")
    mailed = None
    if not await store.known_address(me.id, address):
        mailed = await ask_confirmation(request, me.id, me.name, address)  # 429 before anything is written
    now = await store.change_email(me.id, address)
    log.info("email.changed" if now else "email.change_asked", player=me.id, to=masked(address))
    fresh = await store.player(me.id)
    out = await email_json(request, fresh or me)
    if mailed is not None:
        out["confirmation_mailed"] = mailed
    return json_response(out, 200 if mailed is None else 202, {"Cache-Control": "no-store"})


@router.delete("/v1/me/email", status_code=204, summary="Remove the player's own email address (and a pending one)")
async def remove_email(who: Me, request: Request) -> Response:
    """From now on no sign-in link is mailed for this player; their email targets stay."""
    if not await parts(request).players.remove_email(who.player.id):
        raise ApiError(404, "no_email", "your player has no email address")
    log.info("email.removed", player=who.player.id)
    return Response(status_code=204)
