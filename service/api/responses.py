"""JSON answers, in the canonical encoding the store uses (sorted keys, compact), and the
headers every HTML page is served with."""

from __future__ import annotations

from typing import Any

from fastapi.responses import HTMLResponse, Response

from events.records.codec import canonical


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(canonical(body), status_code=status, media_type="application/json", headers=headers)


# The pages show what players wrote (names, table talk, notation) and hold seat tokens in their
# address: should any of it ever reach the page as markup, it runs no script and sends nothing
# off this origin, and no other site frames a page to click Resign under a decoy. Scripts come
# only from /static (none inline); styles may be inline (style attributes the drawing sets).
# A file is what its type says, never sniffed into a page (the scripts, styles, content, records).
NOSNIFF = {"X-Content-Type-Options": "nosniff"}
SECURITY_HEADERS = {
    **NOSNIFF,
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    # A seat link's token rides in the fragment, which no referrer carries; the path and query
    # still say which game a player looked at, so no other site is told even that.
    "Referrer-Policy": "same-origin",
}


def html_page(body: str, status_code: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status_code=status_code, headers=SECURITY_HEADERS)
