"""The web pages (lobby, board, replay, sign-in, me) and the scripts and styles they load."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

import rules
from events.store.errors import StoreUnavailable
from service.api.access import game_exists
from service.api.auth import request_scheme
from service.api.credentials import COOKIE, HINT, clear_session_cookies, set_hint
from service.api.errors import ApiError
from service.api.layout import page_html, render
from service.api.parts import parts
from service.api.responses import NOSNIFF, html_page
from service.api.rulings import rulings_html

router = APIRouter()

PAGES = Path(__file__).parent.parent / "pages"
_STATIC = re.compile(r"^[a-z0-9_-]+\.(js|css)$")
# Each game's short rules reference (written for this project) and the content files its
# board page reads for names and card text; all of it is public.
RULES_PAGES = {"rite", "factions", "dragondale"}
# The content files the board pages read: Dragon Dale's unit, card and stance names and its
# territories' words; Rite's words for each kind (texts.json) and its costs, codes and objectives
# (factions.json); Factions' terrain words and which unit code is which stat line (factions.json).
CONTENT = {("dragondale", "tribes.json"), ("dragondale", "territories.json"), ("rite", "texts.json"),
           ("rite", "factions.json"), ("factions", "terrain.json"), ("factions", "factions.json")}
_NO_SUCH_GAME = render(
    '<!--page {"title": "No such game"} -->\n<main id="main"><h1>No such game</h1>'
    "<p>There is no game with that id here. <a href=/>Back to the lobby</a>.</p></main>\n"
)


async def page(name: str, request: Request) -> HTMLResponse:
    response = html_page(page_html(name))
    await _mend_hint(request, response)
    return response


async def _mend_hint(request: Request, response: HTMLResponse) -> None:
    """Keep the pages' signed-in hint (credentials.HINT) true to the session cookie: set beside
    a live session signed in before there was a hint, gone with a session that ended elsewhere
    (the stale cookie too), gone without one."""
    secret, hint = request.cookies.get(COOKIE), request.cookies.get(HINT)
    if not secret:
        if hint:
            response.delete_cookie(HINT, path="/")
        return
    if hint:
        return  # the pages ask /v1/me, and forget the hint on its 401
    try:
        live = await parts(request).players.session(secret) is not None
    except StoreUnavailable:
        return  # the page still loads with Redis away; the next one mends the hint
    if not live:
        clear_session_cookies(response)
        return
    set_hint(response, secure=request_scheme(request) == "https")


async def game_page(request: Request, gid: str, name: str) -> HTMLResponse:
    try:
        await game_exists(parts(request), gid)
    except ApiError:
        return html_page(_NO_SUCH_GAME, 404)
    return await page(name, request)


@router.get("/", include_in_schema=False)
async def lobby_page(request: Request) -> HTMLResponse:
    return await page("lobby.html", request)


@router.get("/signin", include_in_schema=False)
async def signin_page(request: Request) -> HTMLResponse:
    return await page("signin.html", request)


@router.get("/confirm", include_in_schema=False)
async def confirm_page(request: Request) -> HTMLResponse:
    return await page("confirm.html", request)


@router.get("/me", include_in_schema=False)
async def me_page(request: Request) -> HTMLResponse:
    return await page("me.html", request)


@router.get("/games/{gid}", include_in_schema=False)
async def board_page(gid: str, request: Request) -> HTMLResponse:
    return await game_page(request, gid, "board.html")


@router.get("/games/{gid}/replay", include_in_schema=False)
async def replay_page(gid: str, request: Request) -> HTMLResponse:
    return await game_page(request, gid, "replay.html")


@router.get("/static/{name}", include_in_schema=False)
async def static(name: str) -> Response:
    path = PAGES / name
    if not _STATIC.match(name) or not path.is_file():
        raise ApiError(404, "not_found", "no such file")
    media = "text/javascript" if name.endswith(".js") else "text/css"
    return Response(path.read_bytes(), media_type=media, headers=NOSNIFF)


@router.get("/rules/{game}", include_in_schema=False)
async def rules_page(game: str, request: Request) -> HTMLResponse:
    if game not in RULES_PAGES:
        raise ApiError(404, "not_found", "no rules reference for that game")
    return await page(f"rules-{game}.html", request)


@router.get("/rules/{game}/rulings", include_in_schema=False)
async def rulings_page(game: str, request: Request) -> HTMLResponse:
    """The game's RULINGS.md: what this project decided where the rulebook is silent or unclear."""
    if game not in RULES_PAGES:
        raise ApiError(404, "not_found", "no rulings for that game")
    response = html_page(rulings_html(game))
    await _mend_hint(request, response)
    return response


@router.get("/static/content/{game}/{name}", include_in_schema=False)
async def content(game: str, name: str) -> Response:
    """A game's content file (names, unit and card text) for the board page to label pieces."""
    if (game, name) not in CONTENT:
        raise ApiError(404, "not_found", "no such content file")
    path = Path(rules.__file__).parent / game / "content" / name
    return Response(path.read_bytes(), media_type="application/json", headers=NOSNIFF)
