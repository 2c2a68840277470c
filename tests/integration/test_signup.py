"""Signing up and keeping seats (issue #36, items 1 and 2) through a real API, a real Redis and a
real SMTP receiver: a sign-up's mailed link makes the player once, answers never tell whether an
address is known, mailed links are limited per client and per address, a link keeps the seat it
was asked from, and the referee token's holder keeps the role on their account."""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from collections.abc import Iterator
from email.message import EmailMessage

import httpx
import pytest
import redis

from tests.conftest import Stack, child_env, start_api, wait_for
from tests.integration.helpers import bearer, player
from tests.support.receivers import MailBox

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def mailbox() -> Iterator[MailBox]:
    box = MailBox().start()
    yield box
    box.stop()


@pytest.fixture(scope="module")
def api(redis_url: str, mailbox: MailBox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The API alone: every mail of these tests is the API's own."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_SMTP_HOST="127.0.0.1", BOARDLOG_SMTP_PORT=str(mailbox.port),
                    BOARDLOG_SMTP_TLS="none", BOARDLOG_PLAYERS_PER_MINUTE="0",
                    BOARDLOG_PUBLIC_URL="http://boardlog.test")
    s = Stack("", env, logdir=tmp_path_factory.mktemp("signup"))
    try:
        start_api(s, ns)
        yield s
    finally:
        for name in list(s.procs):
            s.stop(name)
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"{ns}:*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


def device(s: Stack) -> httpx.Client:
    """A client of its own network address (uvicorn takes X-Forwarded-For from 127.0.0.1), so the
    per-client limits of one test never spend another's."""
    n = uuid.uuid4().int % (1 << 24)
    return s.client(headers={"X-Forwarded-For": f"10.{n >> 16}.{(n >> 8) & 255}.{n & 255}"})


def address(who: str) -> str:
    return f"{who}-{uuid.uuid4().hex[:8]}@example.org"


def link(mail: EmailMessage, kind: str) -> str:
    found = re.search(rf"/signin#{kind}=([\w-]+)", mail.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert found, mail
    return found.group(1)


def one_mail(box: MailBox, to: str) -> EmailMessage:
    wait_for(lambda: box.to(to), timeout=10)
    mails = box.to(to)
    assert len(mails) == 1, [m["Subject"] for m in mails]
    return mails[0]


def test_a_sign_up_link_makes_the_player_once_with_the_address_confirmed(api: Stack, mailbox: MailBox) -> None:
    to = address("ann")
    with device(api) as c, device(api) as other:
        asked = c.post("/v1/signup", json={"name": "ann", "email": to, "next": "/me"})
        assert asked.status_code == 202, asked.text
        token = link(one_mail(mailbox, to), "signup")
        assert "&next=/me" in one_mail(mailbox, to).get_body(("plain",)).get_content()  # type: ignore[union-attr]
        made = c.post("/v1/signup/complete", json={"token": token})
        assert made.status_code == 201, made.text
        assert made.json()["key"] and made.json()["claimed"] is None
        me = c.get("/v1/me").json()  # the cookie the answer set signs this device in
        assert (me["name"], me["email"], me["email_confirmed"]) == ("ann", to, True)
        again = other.post("/v1/signup/complete", json={"token": token})
        assert again.status_code == 401 and again.json()["error"]["code"] == "bad_signup_link"
        assert other.get("/v1/me").status_code == 401  # nothing signed in, nothing made
        # The address is the player's from the link on: it takes sign-in links at once.
        assert other.post("/v1/signin-mail", json={"email": to}).status_code == 202
        wait_for(lambda: len(mailbox.to(to)) == 2, timeout=10)
        magic = link(mailbox.to(to)[1], "magic")
        assert other.post("/v1/sessions/magic", json={"token": magic}).json()["player"]["id"] == me["id"]
        used = other.post("/v1/sessions/magic", json={"token": magic})
        assert used.status_code == 401 and used.json()["error"]["code"] == "bad_magic_link"


def test_a_sign_up_for_a_known_address_answers_the_same_and_mails_a_sign_in_link(api: Stack, mailbox: MailBox) -> None:
    known, fresh = address("bob"), address("cat")
    with device(api) as c:
        made = c.post("/v1/signup/complete", json={"token": link(_signed_up(c, mailbox, "bob", known), "signup")})
        bob = made.json()["player"]
        first = c.post("/v1/signup", json={"name": "bob again", "email": known})
        second = c.post("/v1/signup", json={"name": "cat", "email": fresh})
        assert first.status_code == second.status_code == 202 and first.json() == second.json()
        wait_for(lambda: len(mailbox.to(known)) == 2, timeout=10)
        mail = mailbox.to(known)[1]
        assert mail["Subject"] == "boardlog: your sign-in link"
        signed = c.post("/v1/sessions/magic", json={"token": link(mail, "magic")})
        assert signed.json()["player"] == bob  # the same player, no second one made


def _signed_up(c: httpx.Client, box: MailBox, name: str, to: str) -> EmailMessage:
    assert c.post("/v1/signup", json={"name": name, "email": to}).status_code == 202
    return one_mail(box, to)


def test_an_expired_sign_up_link_makes_nothing(api: Stack, mailbox: MailBox, redis_url: str) -> None:
    to = address("dan")
    with device(api) as c:
        token = link(_signed_up(c, mailbox, "dan", to), "signup")
        r = redis.Redis.from_url(redis_url)
        key = f"{api.env['BOARDLOG_NAMESPACE']}:{{players}}:signup:{hashlib.sha256(token.encode()).hexdigest()}"
        assert r.pexpire(key, 1)  # its 15 minutes are up, as Redis counts them
        r.close()
        time.sleep(0.05)
        late = c.post("/v1/signup/complete", json={"token": token})
        assert late.status_code == 401 and late.json()["error"]["code"] == "bad_signup_link"
        assert "sign up again" in late.json()["error"]["message"]
        assert c.get("/v1/me").status_code == 401


def test_a_malformed_sign_up_is_refused_saying_why_and_mails_nothing(api: Stack, mailbox: MailBox) -> None:
    with device(api) as c:
        for body, code in (({"name": "eve", "email": "eve-at-example.org"}, "bad_email"),
                           ({"name": "eve", "email": "eve@@example.org"}, "bad_email"),
                           ({"name": "", "email": "eve@example.org"}, "name_empty"),
                           ({"name": "eve", "email": "eve@example.org", "next": "//evil.example/x"}, "bad_next"),
                           ({"name": "eve", "email": "eve@example.org", "next": "https://evil.example/"}, "bad_next")):
            r = c.post("/v1/signup", json=body)
            assert r.status_code == 422 and r.json()["error"]["code"] == code, (body, r.text)
        time.sleep(0.3)
        assert not mailbox.to("eve@example.org") and not mailbox.to("eve-at-example.org")


def test_mailed_links_are_limited_per_client_and_per_address(api: Stack, mailbox: MailBox) -> None:
    """The default, 5 a minute each: a sixth to one address from five other clients, and a sixth
    from one client to five other addresses, are 429 and mail nothing."""
    target = address("fay")
    codes = []
    for _ in range(6):
        with device(api) as c:
            codes.append(c.post("/v1/signup", json={"name": "fay", "email": target}).status_code)
    assert codes == [202] * 5 + [429]
    with device(api) as c:
        spread = [c.post("/v1/signin-mail", json={"email": address("gus")}).status_code for _ in range(6)]
        late = address("gus")
        refused = c.post("/v1/signup", json={"name": "gus", "email": late})
    assert spread == [202] * 5 + [429] and refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited" and refused.headers["Retry-After"]
    time.sleep(0.3)
    assert len(mailbox.to(target)) == 5 and not mailbox.to(late)


def _race(c: httpx.Client, **extra: object) -> dict[str, object]:
    r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], **extra})
    assert r.status_code == 201, r.text
    out: dict[str, object] = r.json()
    return out


def test_a_sign_up_from_a_seat_link_lands_the_new_player_in_that_seat(api: Stack, mailbox: MailBox) -> None:
    to = address("hal")
    with device(api) as c:
        game = _race(c)
        gid, token = game["id"], game["seats"][1]["token"]  # type: ignore[index]
        r = c.post("/v1/signup", json={"name": "hal", "email": to, "next": f"/games/{gid}",
                                       "seat": {"game": gid, "token": token}})
        assert r.status_code == 202
        made = c.post("/v1/signup/complete", json={"token": link(one_mail(mailbox, to), "signup")})
        assert made.json()["claimed"] == {"game": gid, "role": "seat", "seat": 1, "claimed": True}
        assert c.get(f"/v1/games/{gid}/seat").json() == {"game": gid, "role": "seat", "seat": 1}


def test_an_invitation_mails_the_seat_link_to_the_address(api: Stack, mailbox: MailBox) -> None:
    to = address("ivy")
    with device(api) as c:
        ann = player(c, "ann")
        game = _race(c)
        gid, token = game["id"], game["seats"][1]["token"]  # type: ignore[index]
        bad = c.post(f"/v1/games/{gid}/invitations", headers=bearer(ann["key"]),
                     json={"token": "not-a-seat", "email": to})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad_seat_token"
        sent = c.post(f"/v1/games/{gid}/invitations", headers=bearer(ann["key"]), json={"token": token, "email": to})
        assert sent.status_code == 202, sent.text
        mail = one_mail(mailbox, to)
        assert mail["Subject"].startswith("boardlog: ann invites you")
        assert f"http://boardlog.test/games/{gid}#token={token}" in mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        nobody = c.post(f"/v1/games/{gid}/invitations", json={"token": token, "email": to})
        assert nobody.status_code == 401  # only a signed-in player invites


def test_the_referee_token_keeps_the_role_on_one_players_account(api: Stack) -> None:
    with device(api) as c:
        carol, dave, ann = player(c, "carol"), player(c, "dave"), player(c, "ann")
        game = _race(c, referee="judge")
        gid, ref = game["id"], game["referee"]["token"]  # type: ignore[index]
        seat0 = game["seats"][0]["token"]  # type: ignore[index]
        assert c.post(f"/v1/games/{gid}/claim", headers=bearer(ann["key"]), json={"token": seat0}).status_code == 200
        seated = c.post(f"/v1/games/{gid}/claim", headers=bearer(ann["key"]), json={"token": ref})
        assert seated.status_code == 409 and seated.json()["error"]["code"] == "referee_not_seat"
        got = c.post(f"/v1/games/{gid}/claim", headers=bearer(carol["key"]), json={"token": ref})
        assert got.json() == {"game": gid, "role": "referee", "seat": None, "claimed": True}
        assert c.get(f"/v1/games/{gid}/seat", headers=bearer(carol["key"])).json()["role"] == "referee"
        assert [g["id"] for g in c.get("/v1/me/games", headers=bearer(carol["key"])).json()["games"]] == [gid]
        same = c.post(f"/v1/games/{gid}/claim", headers=bearer(carol["key"]), json={"token": ref})
        assert same.json()["claimed"] is False
        taken = c.post(f"/v1/games/{gid}/claim", headers=bearer(dave["key"]), json={"token": ref})
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "referee_claimed"
        as_seat = c.post(f"/v1/games/{gid}/claim", headers=bearer(carol["key"]),
                         json={"token": game["seats"][1]["token"]})  # type: ignore[index]
        assert as_seat.status_code == 409 and as_seat.json()["error"]["code"] == "referee_not_seat"
        assert c.get(f"/v1/games/{gid}/seat", headers=bearer(dave["key"])).status_code == 404


def test_every_page_tells_no_other_site_where_it_was(api: Stack) -> None:
    with device(api) as c:
        gid = _race(c)["id"]
        for path in ("/", "/signin", "/me", "/rules/rite", f"/games/{gid}", f"/games/{gid}/replay"):
            r = c.get(path)
            assert r.status_code == 200 and r.headers["Referrer-Policy"] == "same-origin", path
