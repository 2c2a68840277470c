"""Sign-in that only the person can start (issue #42 item 7) through a real API, a real Redis and
a real SMTP receiver: a key or mailed link is only shown ("Sign in as <name>?") until it is used
by a click, so opening one signs nothing in, keeps no seat and uses nothing up; a rotated key
stops at once; signing out everywhere retires the key too, answering the new one once."""

from __future__ import annotations

import httpx
import pytest
import redis

from tests.conftest import Stack, wait_for
from tests.integration.helpers import bearer, player
from tests.integration.test_signup import _race, address, api, device, link, mailbox, one_mail
from tests.support.receivers import MailBox

__all__ = ["api", "mailbox"]  # the fixtures of test_signup.py: its API alone, with the SMTP receiver

pytestmark = pytest.mark.integration


def _sessions(c: httpx.Client, key: str) -> list[str]:
    r = c.get("/v1/me/sessions", headers=bearer(key))
    assert r.status_code == 200, r.text
    return [s["id"] for s in r.json()["sessions"]]


def test_an_unclicked_sign_in_link_signs_nothing_in(api: Stack, mailbox: MailBox) -> None:
    """What the sign-in page asks as a link is opened: whom it signs in as, and nothing else. The
    sign-up, the mailed sign-in link and the key each still work once clicked."""
    to = address("ann")
    with device(api) as c, device(api) as opener:
        game = _race(c)
        gid, seat1 = game["id"], game["seats"][1]["token"]  # type: ignore[index]
        assert c.post("/v1/signup", json={"name": "ann", "email": to}).status_code == 202
        signup = link(one_mail(mailbox, to), "signup")
        for _ in range(2):  # shown twice (a mail scanner, then the person): still usable
            seen = opener.post("/v1/sessions/preview", json={"signup": signup})
            assert seen.status_code == 200, seen.text
            assert seen.json() == {"kind": "signup", "name": "ann", "keeps": None}
            assert "set-cookie" not in seen.headers
        assert opener.get("/v1/me").status_code == 401
        made = opener.post("/v1/signup/complete", json={"token": signup})  # the click
        assert made.status_code == 201, made.text
        ann_key = made.json()["key"]

        # A mailed sign-in link asked from a tab holding seat 1's link: shown, it keeps the seat
        # only when used.
        asked = c.post("/v1/signin-mail", json={"email": to, "seat": {"game": gid, "token": seat1}})
        assert asked.status_code == 202
        wait_for(lambda: len(mailbox.to(to)) == 2, timeout=10)
        magic = link(mailbox.to(to)[1], "magic")
        with device(api) as other:
            seen = other.post("/v1/sessions/preview", json={"magic": magic})
            assert seen.json() == {"kind": "magic", "name": "ann", "keeps": {"game": gid, "role": "seat", "seat": 1}}
            assert "set-cookie" not in seen.headers and other.get("/v1/me").status_code == 401
            before = _sessions(c, ann_key)
            unseated = c.get(f"/v1/games/{gid}/seat", headers=bearer(ann_key))
            assert unseated.status_code == 404  # no seat kept by the showing
            signed = other.post("/v1/sessions/magic", json={"token": magic})  # the click
            assert signed.status_code == 201 and signed.json()["claimed"]["seat"] == 1
            assert len(_sessions(c, ann_key)) == len(before) + 1

        # A key: shown by name, no session opened.
        eve = player(c, "eve")
        seen = opener.post("/v1/sessions/preview", json={"key": eve["key"]})
        assert seen.json() == {"kind": "key", "name": "eve", "keeps": None}
        assert _sessions(c, eve["key"]) == []

        # Bad input names why and shows nothing.
        for body, status, code in (({"magic": magic}, 401, "bad_magic_link"),  # used by its click
                                   ({"signup": signup}, 401, "bad_signup_link"),
                                   ({"key": eve["key"] + "x"}, 401, "bad_key"),
                                   ({"key": eve["key"], "magic": "x"}, 422, "bad_request"),
                                   ({}, 422, "bad_request")):
            r = opener.post("/v1/sessions/preview", json=body)
            assert r.status_code == status and r.json()["error"]["code"] == code, (body, r.text)
            assert "set-cookie" not in r.headers
        assert _sessions(c, eve["key"]) == []


def test_a_rotated_key_stops_at_once(api: Stack, redis_url: str) -> None:
    with device(api) as c, device(api) as laptop:
        ann = player(c, "ann")
        old = ann["key"]
        assert laptop.post("/v1/sessions", json={"key": old}).status_code == 201
        r = c.post("/v1/me/key", headers=bearer(old))
        assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
        new = r.json()["key"]
        assert new != old and r.json()["signin_url"] == f"/signin#key={new}"
        gone = c.get("/v1/me", headers=bearer(old))
        assert gone.status_code == 401 and gone.json()["error"]["code"] == "bad_token"
        refused = c.post("/v1/sessions", json={"key": old})
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "bad_key"
        assert c.post("/v1/sessions/preview", json={"key": old}).status_code == 401
        assert c.get("/v1/me", headers=bearer(new)).json()["id"] == ann["id"]
        assert laptop.get("/v1/me").status_code == 200  # signed-in devices stay signed in
        assert c.post("/v1/me/key").status_code == 401  # nobody's: nothing rotated

        # A player made before keys were rotatable (no key digest in their record): the same.
        bob = player(c, "bob")
        r_ = redis.Redis.from_url(redis_url)
        assert r_.hdel(f"{api.env['BOARDLOG_NAMESPACE']}:{{players}}:player:{bob['id']}", "key") == 1
        r_.close()
        assert c.get("/v1/me", headers=bearer(bob["key"])).status_code == 200
        newer = c.post("/v1/me/key", headers=bearer(bob["key"])).json()["key"]
        assert c.get("/v1/me", headers=bearer(bob["key"])).status_code == 401
        assert c.get("/v1/me", headers=bearer(newer)).json()["name"] == "bob"


def test_signing_out_everywhere_retires_the_key(api: Stack) -> None:
    with device(api) as c, device(api) as laptop, device(api) as phone:
        ann = player(c, "ann")
        old = ann["key"]
        for d in (laptop, phone):
            assert d.post("/v1/sessions", json={"key": old}).status_code == 201
        r = c.delete("/v1/me/sessions", headers=bearer(old))
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["signed_out"] == 2 and out["key"] != old and out["signin_url"] == f"/signin#key={out['key']}"
        assert laptop.get("/v1/me").status_code == 401 and phone.get("/v1/me").status_code == 401
        assert c.get("/v1/me", headers=bearer(old)).status_code == 401
        assert c.post("/v1/sessions", json={"key": old}).json()["error"]["code"] == "bad_key"
        assert _sessions(c, out["key"]) == []
        assert c.get("/v1/me", headers=bearer(out["key"])).json()["id"] == ann["id"]
        # By the cookie, from the service's own page: this device is signed out, its cookies cleared.
        assert laptop.post("/v1/sessions", json={"key": out["key"]}).status_code == 201
        by_page = laptop.delete("/v1/me/sessions", headers={"Origin": api.url})
        assert by_page.status_code == 200 and "boardlog_session=" in by_page.headers["set-cookie"]
        assert c.get("/v1/me", headers=bearer(out["key"])).status_code == 401
        assert c.get("/v1/me", headers=bearer(by_page.json()["key"])).status_code == 200
