"""A referee every seat can trust (issue #42 item 9), through a real API, a real Redis and a real
SMTP receiver: a referee named with their address is mailed an invitation and the create answer
holds no referee token; the mailed link is accepted once, by one signed-in player; the summary
says how the referee holds the role (invited by mail, a player, or the creator's token); bad
input names the rule and writes nothing."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from service.runtime.embedded import free_port
from tests.conftest import Stack, child_env, start_api, wait_for
from tests.integration.helpers import bearer, player
from tests.support.receivers import MailBox

pytestmark = pytest.mark.integration

INVITES_PER_MINUTE = 3


@pytest.fixture(scope="module")
def mailbox() -> Iterator[MailBox]:
    box = MailBox().start()
    yield box
    box.stop()


@pytest.fixture(scope="module")
def api(redis_url: str, mailbox: MailBox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_SMTP_HOST="127.0.0.1", BOARDLOG_SMTP_PORT=str(mailbox.port),
                    BOARDLOG_SMTP_TLS="none", BOARDLOG_PLAYERS_PER_MINUTE="0",
                    BOARDLOG_SIGNIN_MAILS_PER_MINUTE=str(INVITES_PER_MINUTE),
                    BOARDLOG_PUBLIC_URL="http://boardlog.test")
    s = Stack("", env, logdir=tmp_path_factory.mktemp("refinvite"))
    s.namespace = ns  # type: ignore[attr-defined]
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


def address(who: str) -> str:
    return f"{who}-{uuid.uuid4().hex[:8]}@example.org"


def _race(c: httpx.Client, referee: object) -> httpx.Response:
    return c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "options": {"target": 1000},
                                     "referee": referee})


def _code(box: MailBox, to: str) -> tuple[str, str]:
    """The game id and the code of the one invitation mailed to `to`."""
    wait_for(lambda: box.to(to), timeout=10)
    mails = box.to(to)
    assert len(mails) == 1, [m["Subject"] for m in mails]
    text = mails[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
    found = re.search(r"http://boardlog\.test/games/([\w-]+)#referee=([\w-]+)", text)
    assert found, text
    assert "as carol" in text and "ann, bob" in text
    return found.group(1), found.group(2)


def _games(redis_url: str, ns: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return len(list(client.scan_iter(match=f"{ns}:{{p*}}:g:*:meta", count=1000)))
    finally:
        client.close()


def test_a_referee_invited_by_mail_holds_the_only_link_and_it_works_once(api: Stack, mailbox: MailBox) -> None:
    to = address("carol")
    with api.client() as c:
        carol, mallory, ann = player(c, "carol"), player(c, "mallory"), player(c, "ann")
        r = _race(c, {"name": "carol", "email": to})
        assert r.status_code == 201, r.text
        made: dict[str, Any] = r.json()
        # The creator's answer: seats and admin tokens, and no referee token anywhere.
        assert made["referee"] == {"name": "carol", "appointed": "mail", "mailed": True}
        gid, code = _code(mailbox, to)
        assert gid == made["id"] and code not in r.text
        summary = c.get(f"/v1/games/{gid}").json()
        assert summary["refereed"] is True and summary["referee"] == {"name": "carol", "appointed": "mail"}
        created = c.get(f"/v1/games/{gid}/events?from=1&to=1").json()["events"][0]
        assert created["data"]["referee"] == {"name": "carol", "appointed": "mail"}  # in the signed record
        # The link's code opens nothing by itself: it is no bearer token.
        assert c.get(f"/v1/games/{gid}/view", headers=bearer(code)).status_code == 401
        assert c.get(f"/v1/games/{gid}/seat", headers=bearer(carol["key"])).status_code == 404
        # A seat's player cannot take it up, a wrong code is no invitation: nothing is written.
        seat0 = made["seats"][0]["token"]
        assert c.post(f"/v1/games/{gid}/claim", headers=bearer(ann["key"]), json={"token": seat0}).status_code == 200
        seated = c.post(f"/v1/games/{gid}/referee-invitation", headers=bearer(ann["key"]), json={"code": code})
        assert seated.status_code == 409 and seated.json()["error"]["code"] == "referee_not_seat", seated.text
        wrong = c.post(f"/v1/games/{gid}/referee-invitation", headers=bearer(carol["key"]), json={"code": code + "x"})
        assert wrong.status_code == 404 and wrong.json()["error"]["code"] == "no_invitation", wrong.text
        anonymous = c.post(f"/v1/games/{gid}/referee-invitation", json={"code": code})
        assert anonymous.status_code == 401, anonymous.text
        assert c.get(f"/v1/games/{gid}/seat", headers=bearer(carol["key"])).status_code == 404
        # Carol accepts, signed in: the role is her account's, the console's view hers.
        got = c.post(f"/v1/games/{gid}/referee-invitation", headers=bearer(carol["key"]), json={"code": code})
        assert got.status_code == 200 and got.json() == {"game": gid, "role": "referee", "seat": None,
                                                         "claimed": True}, got.text
        assert c.get(f"/v1/games/{gid}/seat", headers=bearer(carol["key"])).json()["role"] == "referee"
        view = c.get(f"/v1/games/{gid}/view", headers=bearer(carol["key"])).json()
        assert view.get("referee") is True, view
        assert [g["id"] for g in c.get("/v1/me/games", headers=bearer(carol["key"])).json()["games"]] == [gid]
        again = c.post(f"/v1/games/{gid}/referee-invitation", headers=bearer(carol["key"]), json={"code": code})
        assert again.status_code == 200 and again.json()["claimed"] is False
        # Once: anyone else holding a copy of the mail is refused, and gets nothing.
        used = c.post(f"/v1/games/{gid}/referee-invitation", headers=bearer(mallory["key"]), json={"code": code})
        assert used.status_code == 409 and used.json()["error"]["code"] == "invitation_used", used.text
        assert c.get(f"/v1/games/{gid}/seat", headers=bearer(mallory["key"])).status_code == 404
        assert c.get(f"/v1/games/{gid}/view", headers=bearer(mallory["key"])).json().get("referee") is not True


def test_the_summary_says_how_each_referee_holds_the_role(api: Stack) -> None:
    with api.client() as c:
        rex = player(c, "rex")
        by_name = _race(c, "rita")
        assert by_name.status_code == 201, by_name.text
        ref = by_name.json()["referee"]
        assert ref["appointed"] == "creator" and ref["token"]
        as_player = _race(c, {"player": rex["id"]})
        assert as_player.status_code == 201, as_player.text
        assert as_player.json()["referee"] == {"name": "rex", "player": rex["id"], "appointed": "player"}
        assert "token" not in as_player.json()["referee"]
        said = {c.get(f"/v1/games/{g.json()['id']}").json()["referee"]["appointed"] for g in (by_name, as_player)}
        assert said == {"creator", "player"}
        # The token the creator was handed still referees: the seats are told who holds it.
        gid = by_name.json()["id"]
        assert c.get(f"/v1/games/{gid}/view", headers=bearer(ref["token"])).json().get("referee") is True


@pytest.mark.parametrize(("referee", "code"), [
    ({"name": "carol", "email": "not an address"}, "bad_email"),
    ({"name": "carol", "email": "@example.org"}, "bad_email"),
    ({"name": "carol", "email": 7}, "bad_email"),
    ({"email": "carol@example.org"}, "bad_referee"),
    ({"name": "carol", "email": "carol@example.org", "player": "x"}, "bad_referee"),
    ({"name": "ann", "email": "ann@example.org"}, "name_taken"),
])
def test_a_bad_referee_invitation_is_refused_naming_the_rule_and_writes_and_mails_nothing(
        api: Stack, mailbox: MailBox, redis_url: str, referee: dict[str, Any], code: str) -> None:
    ns = api.namespace  # type: ignore[attr-defined]
    before = _games(redis_url, ns)
    with api.client() as c:
        r = _race(c, referee)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == code, r.text
    assert _games(redis_url, ns) == before
    email = referee.get("email")
    assert not (isinstance(email, str) and mailbox.to(email))


def test_one_address_gets_at_most_the_minutes_invitations_whoever_asks(
        api: Stack, mailbox: MailBox, redis_url: str) -> None:
    to = address("carol")
    for _ in range(INVITES_PER_MINUTE):
        with api.client() as c:
            assert _race(c, {"name": "carol", "email": to}).status_code == 201
    wait_for(lambda: len(mailbox.to(to)) == INVITES_PER_MINUTE, timeout=10)
    ns = api.namespace  # type: ignore[attr-defined]
    before = _games(redis_url, ns)
    with api.client() as c:
        r = _race(c, {"name": "carol", "email": to.upper()})
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", r.text
    assert "Retry-After" in r.headers
    assert _games(redis_url, ns) == before
    assert len(mailbox.to(to)) == INVITES_PER_MINUTE


def test_an_invitation_that_cannot_be_mailed_makes_no_game(redis_url: str, tmp_path: Path) -> None:
    """The SMTP server is away: 503 `mail_unavailable`, and no game waits on a referee who was
    never told."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_SMTP_HOST="127.0.0.1", BOARDLOG_SMTP_PORT=str(free_port()),
                    BOARDLOG_SMTP_TLS="none", BOARDLOG_PUBLIC_URL="http://boardlog.test")
    s = Stack("", env, logdir=tmp_path)
    try:
        start_api(s, ns)
        with s.client() as c:
            r = _race(c, {"name": "carol", "email": address("carol")})
            assert r.status_code == 503 and r.json()["error"]["code"] == "mail_unavailable", r.text
            assert _games(redis_url, ns) == 0
            assert _race(c, "rita").status_code == 201  # the same stack makes games all the same
            assert _games(redis_url, ns) == 1
    finally:
        for name in list(s.procs):
            s.stop(name)
