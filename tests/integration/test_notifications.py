"""Notifications (issue #19) through real processes and real local receivers: the API, a command
worker, the projector and the notifier (feed follower and notify jobs) over a real Redis; mail
to aiosmtpd; Apprise json:// and signed webhooks to a local HTTP server."""

from __future__ import annotations

import ipaddress
import re
import signal
import smtplib
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import feedparser
import httpx
import orjson
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from events.store.errors import StoreUnavailable
from events.store.store import EventStore
from service.runtime.embedded import free_port
from service.stores.notifications import Target, TargetStore
from service.usecases.notifications.channels import SendFailed
from service.usecases.notifications.config import NotifyConfig
from service.usecases.notifications.egress import Egress, networks
from service.usecases.notifications.notices import Notice
from tests.conftest import Stack, child_env, start_api, wait_for
from tests.integration.helpers import bearer, command, player, table
from tests.support.receivers import MailBox, Web
from workers.notifications.jobs import Sender, holding

pytestmark = pytest.mark.integration

METRICS_TOKEN = "scrape-secret-7c1f"  # this stack's /metrics answers only it
MAILS_AN_HOUR = 6  # this stack's BOARDLOG_MAILS_PER_ADDRESS_HOUR


@pytest.fixture(scope="module")
def mailbox() -> Iterator[MailBox]:
    box = MailBox().start()
    yield box
    box.stop()


@pytest.fixture(scope="module")
def nstack(redis_url: str, mailbox: MailBox, web: Web, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ns = f"t{uuid.uuid4().hex[:12]}"
    env = child_env(redis_url, ns, BOARDLOG_SMTP_HOST="127.0.0.1", BOARDLOG_SMTP_PORT=str(mailbox.port),
                    BOARDLOG_SMTP_TLS="none", BOARDLOG_NOTIFY_BACKOFF_MS="100", BOARDLOG_NOTIFY_MAX_RETRIES="4",
                    BOARDLOG_NOTIFY_CLAIM_MS="1000", BOARDLOG_DIGEST_SECONDS="1", BOARDLOG_PLAYERS_PER_MINUTE="0",
                    BOARDLOG_PUBLIC_URL="http://boardlog.test", BOARDLOG_NOTIFY_TIMEOUT_SECONDS="3",
                    BOARDLOG_REPLY_DOMAIN="play.test", BOARDLOG_MAIL_IN_PORT=str(free_port()),
                    BOARDLOG_METRICS_TOKEN=METRICS_TOKEN, BOARDLOG_DISPUTE_REMINDER_SECONDS="3",
                    # One test mails one address 6 times (2 players, 2 confirmations, 2 sign-ins).
                    BOARDLOG_MAILS_PER_ADDRESS_HOUR=str(MAILS_AN_HOUR))
    s = Stack("", env, logdir=tmp_path_factory.mktemp("nstack"))
    # Every part starts at once (each process's imports take seconds on a busy machine).
    s.start("worker", "worker", "--threads", "4")
    s.start("projector", "projector")
    s.start("notifier", "notifier", "--threads", "4")
    s.start("mail-in", "mail-in")
    try:
        start_api(s, ns)
        wait_notifier(s)
        wait_for(lambda: b"mail_in.started" in (s.logdir / "mail-in.log").read_bytes(), timeout=60, interval=0.1)
        yield s
    finally:
        for name in list(s.procs):
            s.stop(name)
    client = redis.Redis.from_url(redis_url)
    for pattern in (f"{ns}:*", f"{ns}-dramatiq:*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
    client.close()


def own_address() -> str:
    """A client address of its own for the per-address rate limits (uvicorn takes X-Forwarded-For
    from 127.0.0.1, as from a proxy): 2^24 of them, where 250 let two tests of this module share
    one address one run in 250 and spend 7 of its 5 sign-in mails a minute."""
    n = uuid.uuid4().int % (1 << 24)
    return f"10.{n >> 16}.{(n >> 8) & 255}.{n & 255}"


def wait_notifier(s: Stack) -> None:
    """Wait until the notifier follows the feeds (a game made before it first runs is told only
    its latest step)."""
    assert s.logdir is not None
    log = s.logdir / "notifier.log"
    wait_for(lambda: log.exists() and b"notifier.started" in log.read_bytes(), timeout=60, interval=0.1)


def last_seq(r: httpx.Response) -> int:
    """The seq of an accepted command's last event (its answer names the range it wrote)."""
    seq = r.json()["seq"]
    return int(seq[-1] if isinstance(seq, list) else seq)


def add(c: httpx.Client, key: str, **body: Any) -> dict[str, Any]:
    r = c.post("/v1/me/targets", json=body, headers=bearer(key))
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def confirm(c: httpx.Client, mailbox: MailBox, address: str) -> None:
    """Use the latest confirmation link mailed to `address`, as the mailbox's reader would."""
    wait_for(lambda: mailbox.confirmations(address), timeout=10)
    r = c.post("/v1/confirmations", json={"token": mailbox.confirmations(address)[-1]})
    assert r.status_code == 200, r.text


def add_email(c: httpx.Client, mailbox: MailBox, key: str, **body: Any) -> dict[str, Any]:
    """An email target, its address confirmed by the link mailed to it."""
    out = add(c, key, kind="email", **body)
    if not out["target"]["confirmed"]:
        assert out["confirmation_mailed"] is True
        confirm(c, mailbox, out["target"]["address"])
    return out


def verify(hit: Any, secret: str) -> dict[str, Any]:
    out: dict[str, Any] = Webhook(secret).verify(hit.body, {k.lower(): v for k, v in hit.headers.items()})
    return out


# (game, seq) of a notice, by its replay link: Apprise's JSON has no field of ours for them
_APPRISE_KEY = re.compile(r"(p\d+-[a-z0-9]+): your turn.*?/replay\?seq=(\d+)", re.S)


def apprise_keys(hits: list[Any]) -> list[tuple[str, str]]:
    out = []
    for h in hits:
        d = orjson.loads(h.body)
        m = _APPRISE_KEY.search(d["title"] + "\n" + d["message"])
        assert m, d
        out.append((m.group(1), m.group(2)))
    return out


def test_each_prompted_seat_gets_its_notices_in_order_through_a_notifier_killed_mid_burst(
        nstack: Stack, mailbox: MailBox, web: Web) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        hooks: dict[str, str] = {}
        for p in (ann, bob):
            add_email(c, mailbox, p["key"], address=f"{p['id']}@example.org")
            add(c, p["key"], kind="apprise", address=f"json://127.0.0.1:{web.port}/apprise/{p['id']}")
            hooks[p["id"]] = add(c, p["key"], kind="webhook", address=web.url(f"/hook/{p['id']}"))["secret"]
        gid, tokens = table(c, [ann["key"], bob["key"]])
        ids = [ann["id"], bob["id"]]

        # One command: seat 1 (bob) is prompted and told once on each target.
        first = command(c, gid, tokens[0])
        assert first.status_code == 200
        seq = last_seq(first)
        wait_for(lambda: web.at(f"/hook/{bob['id']}") and web.at(f"/apprise/{bob['id']}")
                 and mailbox.to(f"{bob['id']}@example.org"), timeout=15)
        mail = mailbox.to(f"{bob['id']}@example.org")[0]
        assert mail["Subject"] == f"Race {gid}: your turn — roll the die"
        assert mail["X-Boardlog-Notice"] == f"{gid}:{seq}:{bob['id']}:" + mail["X-Boardlog-Notice"].rsplit(":", 1)[1]
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert mail["List-Unsubscribe"].startswith("<http://boardlog.test/unsubscribe/")
        plain, html = mail.get_body(("plain",)).get_content(), mail.get_body(("html",)).get_content()
        assert f"http://boardlog.test/games/{gid}" in plain and f"http://boardlog.test/games/{gid}" in html
        assert "Last move: p0 " in plain  # the move in words, by its seat's name
        replay = f"http://boardlog.test/games/{gid}/replay?seq={seq}"
        assert f"See it in the replay: {replay}" in plain and f'href="{replay}"' in html
        payload = verify(web.at(f"/hook/{bob['id']}")[0], hooks[bob["id"]])
        assert payload["game"] == gid and payload["seq"] == seq and payload["seat"] == 1
        assert payload["type"] == "boardlog.notice.turn" and payload["url"] == f"http://boardlog.test/games/{gid}#seat=1"
        assert not web.at(f"/hook/{ann['id']}")  # ann moved: nothing for her

        # A burst of 50 commands; the notifier (which runs the notify jobs too) is killed with
        # SIGKILL in the middle and started again.
        for i in range(50):
            if i == 20:
                nstack.stop("notifier", signal.SIGKILL)
            if i == 30:
                nstack.start("notifier", "notifier", "--threads", "4")  # not waited for: the burst goes on
            r = command(c, gid, tokens[(i + 1) % 2])
            assert r.status_code == 200, r.text
        head = last_seq(r)
        # Every accepted command (2 events each) prompted the other seat: one notice each.
        expected = {pid: {str(s) for s in range(seq, head + 1, 2) if (s - seq) // 2 % 2 == (0 if pid == bob["id"] else 1)}
                    for pid in ids}
        assert len(expected[ann["id"]]) + len(expected[bob["id"]]) == 51

        channels = ("webhook", "apprise", "email")

        def seqs_of(pid: str) -> tuple[list[str], list[str], list[str]]:
            hooks_ = [str(verify(h, hooks[pid])["seq"]) for h in web.at(f"/hook/{pid}")]
            apprise = [s for _, s in apprise_keys(web.at(f"/apprise/{pid}"))]
            mails = [m["X-Boardlog-Notice"].split(":")[1] for m in mailbox.to(f"{pid}@example.org")]
            return hooks_, apprise, mails

        def dropped() -> set[tuple[str, str, str]]:
            # whichever process ran a notify job logged what it dropped as superseded
            assert nstack.logdir is not None
            lines = [line for f in nstack.logdir.glob("*.log") for line in f.read_text().splitlines()
                     if '"notice.superseded"' in line]
            return {(d["player"], d["channel"], str(d["seq"])) for d in map(orjson.loads, lines)
                    if d.get("event") == "notice.superseded" and d.get("game") == gid}

        def unsettled() -> dict[str, list[list[str]]]:
            # per player and target, the notices neither received nor dropped as superseded (a
            # send that failed is retried, and superseded only when its retry comes)
            gone = dropped()
            return {pid: [sorted((s for s in expected[pid] - set(got) if (pid, ch, s) not in gone), key=int)
                          for ch, got in zip(channels, seqs_of(pid), strict=True)] for pid in ids}

        def complete() -> bool:
            # each player's newest notice reached every target, and no notice is lost
            newest = all(max(expected[pid], key=int) in got for pid in ids for got in seqs_of(pid))
            return newest and not any(any(left) for left in unsettled().values())

        try:
            wait_for(complete, timeout=60, interval=0.3)
        except AssertionError:
            raise AssertionError(f"neither received nor superseded: {unsettled()}\n" + nstack.logs()) from None
        time.sleep(1.5)  # anything sent twice would have arrived by now
        twice = 0
        for pid in ids:
            for channel, got in zip(channels, seqs_of(pid), strict=True):
                counts = Counter(got)
                assert set(counts) <= expected[pid], (channel, sorted(set(counts) - expected[pid]))
                # none after a newer one: the first arrivals come in the game's order
                firsts = list(dict.fromkeys(got))
                assert firsts == sorted(firsts, key=int), (channel, firsts)
                twice += sum(n - 1 for n in counts.values())
        # Sent twice only where the kill fell between a receiver's answer and the notice's mark:
        # at most one send in flight per notify thread (4), each with the same idempotency key
        # (webhook-id, the mail's Message-ID), so the receiver drops it. Before and after the
        # kill, and for every notice the restarted notifier queued again, none twice.
        assert twice <= 4, twice


def test_webhooks_verify_and_fail_verification_when_tampered_or_old(nstack: Stack, web: Web) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        secret = add(c, bob["key"], kind="webhook", address=web.url(f"/hook/{bob['id']}"))["secret"]
        assert secret.startswith("whsec_")
        listed = c.get("/v1/me/targets", headers=bearer(bob["key"])).json()["targets"]
        assert secret not in orjson.dumps(listed).decode()  # shown once, never listed
        gid, tokens = table(c, [ann["key"], bob["key"]])
        assert command(c, gid, tokens[0]).status_code == 200
        wait_for(lambda: web.at(f"/hook/{bob['id']}"), timeout=15)
        hit = web.at(f"/hook/{bob['id']}")[0]
        headers = {k.lower(): v for k, v in hit.headers.items()}
        assert verify(hit, secret)["game"] == gid
        with pytest.raises(WebhookVerificationError):
            Webhook(secret).verify(hit.body.replace(b'"seat":1', b'"seat":0'), headers)
        old = datetime.now(UTC) - timedelta(minutes=6)
        stale = {**headers, "webhook-timestamp": str(int(old.timestamp())),
                 "webhook-signature": Webhook(secret).sign(headers["webhook-id"], old, hit.body.decode())}
        with pytest.raises(WebhookVerificationError):
            Webhook(secret).verify(hit.body, stale)
        with pytest.raises(WebhookVerificationError):
            Webhook("whsec_" + "A" * 32).verify(hit.body, headers)  # another target's secret


def test_a_dropped_queue_of_conditional_moves_is_told_to_its_seat_alone(nstack: Stack, web: Web) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        secrets = {p["id"]: add(c, p["key"], kind="webhook", address=web.url(f"/queue/{p['id']}"))["secret"]
                   for p in (ann, bob)}
        gid, tokens = table(c, [ann["key"], bob["key"]])
        secret_plan = "note if-you-roll-i-win"
        r = c.put(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1]),
                  json={"queue": [{"if": "note hi", "then": secret_plan}]})
        assert r.status_code == 200, r.text
        rolled = command(c, gid, tokens[0])  # not the note bob's guard names: his queue is dropped
        assert rolled.status_code == 200, rolled.text

        def kinds(p: dict[str, str]) -> set[str]:
            return {verify(h, secrets[p["id"]])["type"] for h in web.at(f"/queue/{p['id']}")}

        wait_for(lambda: {"boardlog.notice.dropped", "boardlog.notice.turn"} <= kinds(bob), timeout=20)
        hits = [(verify(h, secrets[bob["id"]]), h.headers) for h in web.at(f"/queue/{bob['id']}")]
        dropped = [(d, h) for d, h in hits if d["type"] == "boardlog.notice.dropped"]
        assert len(dropped) == 1, hits
        body, headers = dropped[0]
        assert body["game"] == gid and body["seat"] == 1 and body["seq"] == last_seq(rolled)
        assert body["asked"] == "none of its answers fitted this turn" and body["last_move"] == "p0: roll"
        turn = next(h for d, h in hits if d["type"] == "boardlog.notice.turn")
        assert headers["webhook-id"] == f"{turn['webhook-id']}:dropped"  # its own key beside the turn's
        shown = c.get(f"/v1/games/{gid}/conditional", headers=bearer(tokens[1])).json()["dropped"]
        assert shown["told"] is True and shown["seq"] == body["seq"]
        # Nobody else hears of it: not ann's receiver, not the log a spectator or ann reads.
        assert "boardlog.notice.dropped" not in kinds(ann)
        for h in ({}, bearer(tokens[0])):
            log = c.get(f"/v1/games/{gid}/events", params={"from": 1}, headers=h).text
            assert "if-you-roll" not in log and "dropped" not in log


def test_a_dispute_notice_names_the_move_as_the_move_list_numbers_it(nstack: Stack, web: Web) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        secret = add(c, bob["key"], kind="webhook", address=web.url(f"/ask/{bob['id']}"))["secret"]
        gid, tokens = table(c, [ann["key"], bob["key"]])
        assert command(c, gid, tokens[0]).status_code == 200
        rolled = command(c, gid, tokens[1])
        assert rolled.status_code == 200
        on = rolled.json()["seq"][0]  # bob's roll: its CommandAccepted
        r = command(c, gid, tokens[0], "boardlog.dispute", {"seq": on, "note": "misclick"})
        assert r.status_code == 200, r.text
        entries = c.get(f"/v1/games/{gid}/moves").json()["entries"]
        n = next(e["move"] for e in entries if e["seq_from"] == on)

        def asks() -> list[dict[str, Any]]:
            return [d for d in (verify(h, secret) for h in web.at(f"/ask/{bob['id']}"))
                    if d["type"] == "boardlog.notice.ask"]

        wait_for(asks, timeout=20)
        [ask] = asks()
        assert ask["asked"] == f"p0 disputes move {n}: misclick", ask
        assert ask["seq"] == last_seq(r)


def test_a_receiver_failing_three_times_gets_the_notice_once_and_one_failing_for_ever_shows_as_failing(
        nstack: Stack, web: Web) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        flaky, broken = f"/flaky/{bob['id']}", f"/broken/{bob['id']}"
        web.fail[flaky], web.fail[broken] = 3, -1
        add(c, bob["key"], kind="webhook", address=web.url(flaky))
        dead = add(c, bob["key"], kind="webhook", address=web.url(broken))["target"]["id"]
        gid, tokens = table(c, [ann["key"], bob["key"]])
        assert command(c, gid, tokens[0]).status_code == 200
        wait_for(lambda: web.at(flaky), timeout=20)
        assert len(web.at(flaky + "#failed")) == 3 and len(web.at(flaky)) == 1

        def gave_up() -> bool:
            t = {x["id"]: x for x in c.get("/v1/me/targets", headers=bearer(bob["key"])).json()["targets"]}
            return bool(t[dead]["failing"] and t[dead]["failing"]["gave_up"])

        wait_for(gave_up, timeout=30, interval=0.2)
        mine = c.get("/v1/me/targets", headers=bearer(bob["key"])).json()
        failing = {x["id"]: x["failing"] for x in mine["targets"]}
        assert failing[dead]["error"] == "HTTP 500 from the receiver"
        assert all(v is None for k, v in failing.items() if k != dead)  # the flaky one recovered
        assert [d["target"] for d in mine["dead_letters"]] == [dead] and mine["dead_letters"][0]["tries"] == 5
        assert not web.at(broken) and len(web.at(broken + "#failed")) == 5  # the first try and 4 retries
        for refused in (c.get("/metrics"), c.get("/metrics", headers=bearer("not-the-token")),
                        c.get("/metrics", headers=bearer(bob["key"]))):
            assert refused.status_code == 401 and refused.json()["error"]["code"] == "metrics_token_required"
            assert refused.headers["WWW-Authenticate"] == "Bearer" and "boardlog_" not in refused.text
        metrics = c.get("/metrics", headers=bearer(METRICS_TOKEN)).text
        assert re.search(r'boardlog_notices_failed_total\{channel="webhook"\} [1-9]', metrics)
        assert re.search(r'boardlog_notices_retried_total\{channel="webhook"\} [1-9]', metrics)
        assert re.search(r'boardlog_notices_sent_total\{channel="webhook"\} [1-9]', metrics)
        assert re.search(r'boardlog_notify_latency_seconds_count\{channel="webhook"\} [1-9]', metrics)
        assert re.search(r'boardlog_commands_total\{outcome="accepted"\} [1-9]', metrics)
        assert "boardlog_command_seconds_bucket" in metrics
        assert re.search(r'boardlog_command_batch_size_bucket\{le="1"\} [1-9]', metrics)  # the group commit's


def test_a_redirect_to_another_host_is_not_followed(nstack: Stack, web: Web) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        moved, there = f"/moved/{bob['id']}", f"/there/{bob['id']}"
        web.redirect[moved] = f"http://localhost:{web.port}{there}"  # another host name
        t = add(c, bob["key"], kind="webhook", address=web.url(moved))["target"]["id"]
        gid, tokens = table(c, [ann["key"], bob["key"]])
        assert command(c, gid, tokens[0]).status_code == 200

        def failing() -> dict[str, Any] | None:
            got = c.get("/v1/me/targets", headers=bearer(bob["key"])).json()["targets"]
            out: dict[str, Any] | None = {x["id"]: x for x in got}[t]["failing"]
            return out

        wait_for(lambda: failing() is not None, timeout=15)
        assert "redirect to another host" in failing()["error"]  # type: ignore[index]
        assert not web.at(there)


def test_the_atom_feed_lists_the_notices_newest_first(nstack: Stack) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        made = add(c, bob["key"], kind="atom")
        url = made["feed_url"]
        gid, tokens = table(c, [ann["key"], bob["key"]])
        for _ in range(3):
            assert command(c, gid, tokens[0]).status_code == 200
            assert command(c, gid, tokens[1]).status_code == 200

        def entries() -> list[Any]:
            r = c.get(url)
            assert r.status_code == 200 and r.headers["content-type"].startswith("application/atom+xml")
            return list(feedparser.parse(r.text).entries)

        wait_for(lambda: len(entries()) == 3, timeout=15)
        feed = feedparser.parse(c.get(url).text)
        assert not feed.bozo, feed.bozo_exception
        seqs = [int(e.id.rsplit(":", 2)[0].rsplit(":", 1)[1]) for e in feed.entries]
        assert seqs == sorted(seqs, reverse=True) and len(set(seqs)) == 3
        assert all(e.title == f"Race {gid}: your turn — roll the die" for e in feed.entries)
        assert feed.entries[0].link == f"http://boardlog.test/games/{gid}"
        assert c.get(url + "x").status_code == 404
        assert c.get("/me/feed.atom").json()["error"]["code"] == "unknown_feed"


def test_a_digest_mails_the_notices_together_and_one_click_unsubscribes(nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob", email="bob-digest@example.org")
        tid = add_email(c, mailbox, bob["key"], digest=True)["target"]["id"]  # the player's own address
        gid, tokens = table(c, [ann["key"], bob["key"]])
        for _ in range(3):
            assert command(c, gid, tokens[0]).status_code == 200
            assert command(c, gid, tokens[1]).status_code == 200
        wait_for(lambda: mailbox.to("bob-digest@example.org"), timeout=15)
        time.sleep(1.5)
        mails = mailbox.to("bob-digest@example.org")
        counted = sum(m.get_body(("plain",)).get_content().count("your turn in Race") for m in mails)
        assert counted == 3 and len(mails) < 3  # grouped (at most one mail a digest period)
        link = mails[0]["List-Unsubscribe"].strip("<>").replace("http://boardlog.test", "")
        assert c.get(link).status_code == 200  # the confirmation page changes nothing
        assert [t["id"] for t in c.get("/v1/me/targets", headers=bearer(bob["key"])).json()["targets"]] == [tid]
        r = c.post(link, content="List-Unsubscribe=One-Click",
                   headers={"content-type": "application/x-www-form-urlencoded"})
        assert r.status_code == 200
        assert c.get("/v1/me/targets", headers=bearer(bob["key"])).json()["targets"] == []
        assert c.post(link, content="List-Unsubscribe=One-Click").status_code == 404


def test_a_target_on_an_internal_address_is_refused_saying_why(nstack: Stack, web: Web) -> None:
    # The stack allows 127.0.0.1 (where the tests' receivers listen) and nothing else internal.
    with nstack.client() as c:
        ann = player(c, "ann")
        h = bearer(ann["key"])
        for body, why in [
            ({"kind": "webhook", "address": "http://169.254.169.254/latest/meta-data/"},
             "169.254.169.254 is a link-local address"),
            ({"kind": "webhook", "address": "http://127.0.0.2:6379/"}, "127.0.0.2 is a loopback address"),
            ({"kind": "webhook", "address": "https://10.1.2.3/hook"}, "10.1.2.3 is a private address"),
            ({"kind": "webhook", "address": "http://[::1]:8000/x"}, "::1 is a loopback address"),
            ({"kind": "webhook", "address": "http://[::ffff:10.0.0.1]/x"}, "10.0.0.1 is a private address"),
            ({"kind": "webhook", "address": "http://0.0.0.0:9/x"}, "0.0.0.0 is the unspecified address"),
            ({"kind": "apprise", "address": "json://192.168.1.5:9/x"}, "192.168.1.5 is a private address"),
            ({"kind": "webhook", "address": "http://127.0.0.1:99999/x"}, "the port is not a number"),
        ]:
            r = c.post("/v1/me/targets", json=body, headers=h)
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_target", (body, r.text)
            assert why in r.json()["error"]["message"], (body, r.text)
        assert c.get("/v1/me/targets", headers=h).json()["targets"] == []
        # The address the operator allows is taken.
        assert add(c, ann["key"], kind="webhook", address=web.url("/allowed"))["target"]["kind"] == "webhook"


def test_a_target_reaching_inside_by_a_name_a_scheme_or_a_character_is_refused(nstack: Stack, web: Web) -> None:
    # The stack allows 127.0.0.1: a loopback name is refused all the same, and every other form.
    with nstack.client() as c:
        eve = player(c, "eve")
        h = bearer(eve["key"])
        for body, why in [
            ({"kind": "webhook", "address": "http://localhost./"}, "localhost. names this machine (a loopback name)"),
            ({"kind": "webhook", "address": f"http://LocalHost:{web.port}/x"}, "localhost names this machine"),
            ({"kind": "webhook", "address": "http://hooks.localhost/x"}, "hooks.localhost names this machine"),
            ({"kind": "webhook", "address": "http://127.0.0.1./x"}, "127.0.0.1. resolves to no address"),
            ({"kind": "webhook", "address": "http://2130706434/x"}, "2130706434 resolves to 127.0.0.2 is a loopback"),
            ({"kind": "webhook", "address": "http://0x7f.2/x"}, "0x7f.2 resolves to 127.0.0.2 is a loopback"),
            ({"kind": "webhook", "address": "http://[2002:a00:1::]/x"}, "10.0.0.1 is a private address"),
            ({"kind": "webhook", "address": "https://no-such-host.invalid/x"}, "resolves to no address"),
            ({"kind": "apprise", "address": "syslog://"}, "syslog:// is not an Apprise service a target may use"),
            ({"kind": "apprise", "address": "rsyslog://10.0.0.1/local0"}, "rsyslog:// is not an Apprise service"),
            ({"kind": "apprise", "address": "windows://"}, "windows:// is not an Apprise service"),
            ({"kind": "apprise", "address": "json://localhost./x"}, "localhost. names this machine"),
            ({"kind": "webhook", "address": f"{web.url('/x')}\u202egnp.exe"},
             "holds U+202E RIGHT-TO-LEFT OVERRIDE at character"),
            ({"kind": "webhook", "address": f"{web.url('/x')}\u200b"}, "holds U+200B ZERO WIDTH SPACE"),
            ({"kind": "email", "address": "ann\u202e@example.org"}, "holds U+202E"),
        ]:
            r = c.post("/v1/me/targets", json=body, headers=h)
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_target", (body, r.text)
            assert why in r.json()["error"]["message"], (body, r.text)
        assert c.get("/v1/me/targets", headers=h).json()["targets"] == []
        # An address in NFD is kept in NFC; the receivers' own address is taken.
        kept = add(c, eve["key"], kind="webhook", address=web.url("/caf") + "e\u0301")["target"]
        assert kept["address"].endswith("/caf\u00e9")


def test_twelve_clients_and_players_mailing_one_address_get_it_its_hours_mails_and_no_more(
        nstack: Stack, mailbox: MailBox) -> None:
    """Sign-in, sign-up and confirmation mails to one address count together, whoever asks:
    12 clients (each its own network address, within every per-client limit) get it 6 mails."""
    victim = f"victim-{uuid.uuid4().hex[:8]}@example.org"
    answers: list[int] = []
    with nstack.client() as c:
        for i in range(12):
            c.headers["X-Forwarded-For"] = own_address()
            if i < 4:  # players naming it as theirs: each a confirmation mail
                r = c.post("/v1/players", json={"name": f"p{i}", "email": victim})
                assert r.status_code == 201, r.text
                answers.append(202 if r.json()["confirmation_mailed"] else 429)
            elif i < 8:
                answers.append(c.post("/v1/signup", json={"name": f"s{i}", "email": victim}).status_code)
            else:
                answers.append(c.post("/v1/signin-mail", json={"email": victim}).status_code)
        assert answers == [202] * MAILS_AN_HOUR + [429] * (12 - MAILS_AN_HOUR)
        wait_for(lambda: mails_to(mailbox, victim) >= MAILS_AN_HOUR, timeout=10)
        time.sleep(0.5)
        assert mails_to(mailbox, victim) == MAILS_AN_HOUR
        # The refusal is the same for an address no player has and for a player's confirmed one.
        known = f"known-{uuid.uuid4().hex[:8]}@example.org"
        unknown = f"unknown-{uuid.uuid4().hex[:8]}@example.org"
        made = c.post("/v1/players", json={"name": "kim", "email": known}).json()
        confirm(c, mailbox, known)  # a mail to it: one of its hour's
        said: dict[str, list[tuple[int, str]]] = {}
        for address in (known, unknown):
            said[address] = []
            for _ in range(MAILS_AN_HOUR + 1):
                c.headers["X-Forwarded-For"] = own_address()
                r = c.post("/v1/signin-mail", json={"email": address})
                said[address].append((r.status_code, re.sub(r"\d+ s\b", "N s", r.text)))
        assert [code for code, _ in said[known]] == [202] * (MAILS_AN_HOUR - 1) + [429] * 2
        assert [code for code, _ in said[unknown]] == [202] * MAILS_AN_HOUR + [429]
        assert said[known][0] == said[unknown][0] and said[known][-1] == said[unknown][-1]
        assert "rate_limited" in said[known][-1][1] and "of the last hour" in said[known][-1][1]
        wait_for(lambda: mails_to(mailbox, known) == MAILS_AN_HOUR, timeout=10)
        assert made["id"] and mails_to(mailbox, unknown) == 0


def mails_to(mailbox: MailBox, address: str) -> int:
    return len(mailbox.to(address)) + len(mailbox.confirmations(address))


def test_targets_refuse_bad_input_and_change_nothing(nstack: Stack, web: Web) -> None:
    with nstack.client() as c:
        ann = player(c, "ann")
        h = bearer(ann["key"])
        for body, code in [
            ({"kind": "webhook", "address": "ftp://example.org/x"}, "bad_target"),
            ({"kind": "webhook", "address": "http://u:p@example.org/x"}, "bad_target"),
            ({"kind": "webhook"}, "bad_target"),
            ({"kind": "apprise", "address": "nosuchservice://x"}, "bad_target"),
            ({"kind": "email"}, "bad_target"),  # no address, and the player has none
            ({"kind": "email", "address": "not-an-address"}, "bad_email"),
            ({"kind": "atom", "address": "x"}, "bad_target"),
            ({"kind": "webhook", "address": web.url("/x"), "digest": True}, "bad_target"),
            ({"kind": "webhook", "address": web.url("/x"), "events": []}, "bad_target"),
            ({"kind": "webhook", "address": web.url("/x"), "events": ["everything"]}, "bad_request"),
            ({"kind": "pigeon", "address": "x"}, "bad_request"),
            ({"kind": "atom", "extra": 1}, "bad_request"),
        ]:
            r = c.post("/v1/me/targets", json=body, headers=h)
            assert r.status_code == 422 and r.json()["error"]["code"] == code, (body, r.text)
        assert c.get("/v1/me/targets", headers=h).json()["targets"] == []
        assert c.post("/v1/me/targets", json={"kind": "atom"}).status_code == 401
        # Signed in by the cookie, another site's page cannot add a target.
        c.post("/v1/sessions", json={"key": ann["key"]})
        r = c.post("/v1/me/targets", json={"kind": "atom"}, headers={"Origin": "https://evil.example"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "cross_origin"
        for body in ({"tz": "Mars/Olympus", "start": "22:00", "end": "07:00"}, {"start": "25:00", "end": "07:00"},
                     {"start": "22:00"}):
            r = c.put("/v1/me/quiet", json=body, headers=h)
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_quiet_hours", r.text
        assert c.get("/v1/me/targets", headers=h).json()["quiet"] == {"tz": "UTC", "start": "", "end": ""}
        assert c.put("/v1/me/quiet", json={"tz": "Europe/Paris", "start": "22:00", "end": "07:30"},
                     headers=h).status_code == 200
        assert c.get("/v1/me/targets", headers=h).json()["quiet"]["tz"] == "Europe/Paris"
        t = add(c, ann["key"], kind="webhook", address=web.url("/x"))["target"]["id"]
        r = c.patch(f"/v1/me/targets/{t}", json={"events": ["over"]}, headers=h)
        assert r.status_code == 200 and r.json()["target"]["events"] == ["over"]
        assert c.delete("/v1/me/targets/nope", headers=h).json()["error"]["code"] == "unknown_target"
        assert c.delete(f"/v1/me/targets/{t}", headers=h).status_code == 204


def test_a_target_can_be_tested_from_the_page(nstack: Stack, web: Web, mailbox: MailBox) -> None:
    with nstack.client() as c:
        ann = player(c, "ann", email="ann-test@example.org")
        ok = add(c, ann["key"], kind="email")["target"]["id"]
        web.fail["/down"] = -1
        bad = add(c, ann["key"], kind="webhook", address=web.url("/down"))["target"]["id"]
        # An address not confirmed gets no test mail either.
        r = c.post(f"/v1/me/targets/{ok}/test", headers=bearer(ann["key"]))
        assert r.status_code == 409 and r.json()["error"]["code"] == "address_unconfirmed", r.text
        assert not mailbox.to("ann-test@example.org")
        confirm(c, mailbox, "ann-test@example.org")
        assert c.post(f"/v1/me/targets/{ok}/test", headers=bearer(ann["key"])).json() == {"sent": True}
        assert "test" in mailbox.to("ann-test@example.org")[-1]["Subject"]
        r = c.post(f"/v1/me/targets/{bad}/test", headers=bearer(ann["key"])).json()
        assert r == {"sent": False, "error": "HTTP 500 from the receiver"}
        listed = {t["id"]: t for t in c.get("/v1/me/targets", headers=bearer(ann["key"])).json()["targets"]}
        assert listed[bad]["failing"]["error"] == "HTTP 500 from the receiver" and listed[ok]["failing"] is None


def test_a_sign_in_link_is_mailed_once_and_works_once(nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c, nstack.client() as device:
        ann = player(c, "ann", email="Ann-Magic@example.org")
        # Not confirmed yet: the address gets no sign-in link (and the answer says nothing).
        first = device.post("/v1/signin-mail", json={"email": "ann-magic@EXAMPLE.org"})
        assert first.status_code == 202
        confirm(c, mailbox, "Ann-Magic@example.org")
        assert not mailbox.to("ann-magic@EXAMPLE.org") and not mailbox.to("Ann-Magic@example.org")
        r = device.post("/v1/signin-mail", json={"email": "ann-magic@EXAMPLE.org"})
        assert r.status_code == 202 and r.json() == first.json()
        nobody = device.post("/v1/signin-mail", json={"email": "nobody@example.org"})
        assert nobody.status_code == 202 and nobody.json() == r.json()  # says nothing of who exists
        wait_for(lambda: mailbox.to("ann-magic@EXAMPLE.org"), timeout=10)
        mail = mailbox.to("ann-magic@EXAMPLE.org")[0]
        token = re.search(r"/signin#magic=([\w-]+)", mail.get_body(("plain",)).get_content()).group(1)  # type: ignore[union-attr]
        assert not mailbox.to("nobody@example.org")
        signed = device.post("/v1/sessions/magic", json={"token": token})
        assert signed.status_code == 201 and signed.json()["player"]["id"] == ann["id"]
        assert device.get("/v1/me").json()["id"] == ann["id"]
        again = c.post("/v1/sessions/magic", json={"token": token})
        assert again.status_code == 401 and again.json()["error"]["code"] == "bad_magic_link"
        # Rate-limited per client (5 a minute by default).
        codes = [device.post("/v1/signin-mail", json={"email": "x@example.org"}).status_code for _ in range(6)]
        assert codes[-1] == 429


def test_an_email_target_is_sent_nothing_until_the_link_mailed_to_its_address_is_used(
        nstack: Stack, mailbox: MailBox, web: Web) -> None:
    with nstack.client() as c, nstack.client() as reader:
        ann, bob = player(c, "ann"), player(c, "bob")
        h = bearer(bob["key"])
        inbox = f"{bob['id']}-unconfirmed@example.org"
        added = add(c, bob["key"], kind="email", address=inbox)
        assert added["target"]["confirmed"] is False and added["confirmation_mailed"] is True
        tid = added["target"]["id"]
        add(c, bob["key"], kind="apprise", address=f"json://127.0.0.1:{web.port}/apprise-c/{bob['id']}")
        gid, tokens = table(c, [ann["key"], bob["key"]])
        # A turn for bob: the Apprise target hears it, the address not confirmed hears nothing.
        assert command(c, gid, tokens[0]).status_code == 200
        wait_for(lambda: web.at(f"/apprise-c/{bob['id']}"), timeout=15)
        time.sleep(1.0)  # the notifier queued both targets' jobs in one pass, if it queued the mail's at all
        assert mailbox.to(inbox) == [] and len(mailbox.confirmations(inbox)) == 1
        assert c.get("/v1/me/targets", headers=h).json()["targets"][0]["confirmed"] is False

        # The link's page, as the mail's reader opens it: nothing is confirmed by the GET.
        token = mailbox.confirmations(inbox)[0]
        page = reader.get("/confirm")
        assert page.status_code == 200 and "/static/confirm.js" in page.text
        assert c.get("/v1/me/targets", headers=h).json()["targets"][0]["confirmed"] is False
        for bad in ("", "x" * 101, 7):
            assert reader.post("/v1/confirmations", json={"token": bad}).status_code == 422
        wrong = reader.post("/v1/confirmations", json={"token": token[:-2] + "zz"})
        assert wrong.status_code == 404 and wrong.json()["error"]["code"] == "bad_confirmation_link"
        assert c.get("/v1/me/targets", headers=h).json()["targets"][0]["confirmed"] is False
        used = reader.post("/v1/confirmations", json={"token": token})
        assert used.status_code == 200 and used.json() == {"address": inbox, "player": "bob"}
        again = reader.post("/v1/confirmations", json={"token": token})
        assert again.status_code == 404 and again.json()["error"]["code"] == "bad_confirmation_link"
        assert c.get("/v1/me/targets", headers=h).json()["targets"][0]["confirmed"] is True

        # Confirmed: bob's next turn reaches the address.
        assert command(c, gid, tokens[1]).status_code == 200
        seq = last_seq(command(c, gid, tokens[0]))
        wait_for(lambda: mailbox.to(inbox), timeout=15)
        assert [m["X-Boardlog-Notice"].split(":")[1] for m in mailbox.to(inbox)] == [str(seq)]

        # Asking for the link again: only for an email target not yet confirmed.
        r = c.post(f"/v1/me/targets/{tid}/confirmation", headers=h)
        assert r.status_code == 409 and r.json()["error"]["code"] == "already_confirmed"
        hook = add(c, bob["key"], kind="webhook", address=web.url("/c-hook"))["target"]["id"]
        r = c.post(f"/v1/me/targets/{hook}/confirmation", headers=h)
        assert r.status_code == 422 and r.json()["error"]["code"] == "not_an_email_target"
        r = c.post("/v1/me/targets/nope/confirmation", headers=h)
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_target"
        assert c.post(f"/v1/me/targets/{tid}/confirmation").status_code == 401
        # Another target of the confirmed address is confirmed at once, and mails no link.
        same = add(c, bob["key"], kind="email", address=inbox, events=["over"])
        assert same["target"]["confirmed"] is True and "confirmation_mailed" not in same
        assert len(mailbox.confirmations(inbox)) == 1


def test_a_player_asks_for_a_few_confirmation_mails_a_minute_and_a_refusal_adds_nothing(
        nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c:
        eve = player(c, "eve")
        h = bearer(eve["key"])
        first = add(c, eve["key"], kind="email", address=f"{eve['id']}-0@example.org")["target"]["id"]
        for i in range(1, 4):
            add(c, eve["key"], kind="email", address=f"{eve['id']}-{i}@example.org")
        assert c.post(f"/v1/me/targets/{first}/confirmation", headers=h).status_code == 202
        assert len(mailbox.confirmations(f"{eve['id']}-0@example.org")) == 2
        # The sixth mail this minute (BOARDLOG_SIGNIN_MAILS_PER_MINUTE, 5): refused, nothing added or mailed.
        r = c.post("/v1/me/targets", json={"kind": "email", "address": f"{eve['id']}-9@example.org"}, headers=h)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited" and r.headers["Retry-After"]
        assert len(c.get("/v1/me/targets", headers=h).json()["targets"]) == 4
        r = c.post(f"/v1/me/targets/{first}/confirmation", headers=h)
        assert r.status_code == 429
        time.sleep(0.5)
        assert not mailbox.confirmations(f"{eve['id']}-9@example.org")
        assert len(mailbox.confirmations(f"{eve['id']}-0@example.org")) == 2


def test_a_players_own_address_is_confirmed_by_the_link_mailed_when_the_player_is_made(
        nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c, nstack.client() as device:
        # A client of its own for the sign-in mail's per-address limit, which the sign-in test
        # spends this minute (uvicorn takes X-Forwarded-For from 127.0.0.1, as from a proxy).
        device.headers["X-Forwarded-For"] = own_address()
        address = f"own-{uuid.uuid4().hex[:8]}@example.org"
        made = c.post("/v1/players", json={"name": "cat", "email": address})
        assert made.status_code == 201 and made.json()["confirmation_mailed"] is True
        cat = made.json()
        h = bearer(cat["key"])
        assert c.get("/v1/me", headers=h).json()["email_confirmed"] is False
        assert c.get("/v1/me/targets", headers=h).json()["email"] == {"address": address, "confirmed": False,
                                                                      "pending": None}
        wait_for(lambda: mailbox.confirmations(address), timeout=10)
        assert c.post("/v1/me/email/confirmation", headers=h).status_code == 202
        assert len(mailbox.confirmations(address)) == 2
        # No sign-in link to an address not confirmed.
        assert device.post("/v1/signin-mail", json={"email": address}).status_code == 202
        assert mailbox.to(address) == []
        assert c.post("/v1/confirmations", json={"token": mailbox.confirmations(address)[0]}).status_code == 200
        assert c.get("/v1/me", headers=h).json()["email_confirmed"] is True
        r = c.post("/v1/me/email/confirmation", headers=h)
        assert r.status_code == 409 and r.json()["error"]["code"] == "already_confirmed"
        own = add(c, cat["key"], kind="email")  # the player's own address: confirmed already
        assert own["target"]["confirmed"] is True and "confirmation_mailed" not in own
        assert device.post("/v1/signin-mail", json={"email": address}).status_code == 202
        wait_for(lambda: mailbox.to(address), timeout=10)
        assert "/signin#magic=" in mailbox.to(address)[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]

        # A second player naming the same address takes its sign-in mail only once that
        # mailbox's reader uses the second player's link too (the latest confirmed holds it).
        dog = c.post("/v1/players", json={"name": "dog", "email": address}).json()
        wait_for(lambda: len(mailbox.confirmations(address)) == 3, timeout=10)
        assert c.get("/v1/me", headers=bearer(dog["key"])).json()["email_confirmed"] is False
        assert c.get("/v1/me", headers=h).json()["email_confirmed"] is True
        assert c.post("/v1/confirmations", json={"token": mailbox.confirmations(address)[2]}).json()["player"] == "dog"
        assert c.get("/v1/me", headers=bearer(dog["key"])).json()["email_confirmed"] is True
        assert device.post("/v1/signin-mail", json={"email": address}).status_code == 202
        wait_for(lambda: len(mailbox.to(address)) == 2, timeout=10)
        magic = re.search(r"/signin#magic=([\w-]+)", mailbox.to(address)[1].get_body(("plain",)).get_content())  # type: ignore[union-attr]
        assert magic and device.post("/v1/sessions/magic", json={"token": magic.group(1)}).json()["player"]["id"] == dog["id"]

        nobody = player(c, "eel")
        r = c.post("/v1/me/email/confirmation", headers=bearer(nobody["key"]))
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_email"


def test_a_confirmed_address_holds_until_the_new_one_is_confirmed_and_is_then_told_of_the_change(
        nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c, nstack.client() as device:
        device.headers["X-Forwarded-For"] = own_address()
        tag = uuid.uuid4().hex[:8]
        old, new = f"old-{tag}@example.org", f"new-{tag}@example.org"
        fox = c.post("/v1/players", json={"name": "fox", "email": old}).json()
        h = bearer(fox["key"])
        confirm(c, mailbox, old)

        r = c.put("/v1/me/email", json={"email": new}, headers=h)
        assert r.status_code == 202, r.text
        assert r.json() == {"email": old, "email_confirmed": True, "email_pending": new, "confirmation_mailed": True}
        assert c.get("/v1/me", headers=h).json()["email_pending"] == new
        assert c.get("/v1/me/targets", headers=h).json()["email"] == {"address": old, "confirmed": True, "pending": new}
        # Until the new address is confirmed the old one still gets the sign-in link, the new none.
        assert device.post("/v1/signin-mail", json={"email": new}).status_code == 202
        assert device.post("/v1/signin-mail", json={"email": old}).status_code == 202
        wait_for(lambda: mailbox.to(old), timeout=10)
        assert mailbox.to(new) == []
        # Asking again mails the pending address.
        assert c.post("/v1/me/email/confirmation", headers=h).status_code == 202
        wait_for(lambda: len(mailbox.confirmations(new)) == 2, timeout=10)

        assert c.post("/v1/confirmations", json={"token": mailbox.confirmations(new)[0]}).status_code == 200
        me = c.get("/v1/me", headers=h).json()
        assert (me["email"], me["email_confirmed"], me["email_pending"]) == (new, True, None)
        wait_for(lambda: any(m["Subject"] == "boardlog: your sign-in address changed" for m in mailbox.to(old)),
                 timeout=10)
        told = next(m for m in mailbox.to(old) if m["Subject"] == "boardlog: your sign-in address changed")
        text = told.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert "ne***@example.org" in text and new not in text
        # The sign-in mail follows: the new address gets it, the old one no longer.
        before = len([m for m in mailbox.to(old) if "sign-in link" in m["Subject"]])
        assert device.post("/v1/signin-mail", json={"email": new}).status_code == 202
        assert device.post("/v1/signin-mail", json={"email": old}).status_code == 202
        wait_for(lambda: any("sign-in link" in m["Subject"] for m in mailbox.to(new)), timeout=10)
        time.sleep(0.3)
        assert len([m for m in mailbox.to(old) if "sign-in link" in m["Subject"]]) == before
        # A second link to the same address is used but changes nothing more.
        assert c.post("/v1/confirmations", json={"token": mailbox.confirmations(new)[1]}).status_code == 200
        assert c.get("/v1/me", headers=h).json()["email"] == new

        # The same address again: nothing to do.
        same = c.put("/v1/me/email", json={"email": new.upper()}, headers=h)
        assert same.status_code == 409 and same.json()["error"]["code"] == "already_yours"
        # Back to the old one: confirmed by this player before, so it is theirs at once, no mail.
        sent = len(mailbox.confirmations(old))
        back = c.put("/v1/me/email", json={"email": old}, headers=h)
        assert back.status_code == 200, back.text
        assert back.json() == {"email": old, "email_confirmed": True, "email_pending": None}
        assert len(mailbox.confirmations(old)) == sent

        # Bad input changes nothing and says why.
        for body in ({"email": "no-at-sign"}, {"email": None}, {"email": 5}, {}, {"email": old, "x": 1}, []):
            r = c.put("/v1/me/email", json=body, headers=h)
            assert r.status_code in (400, 422) and r.json()["error"]["message"], (body, r.text)
        assert c.get("/v1/me", headers=h).json()["email"] == old
        assert c.put("/v1/me/email", json={"email": new}).status_code == 401

        # Removing it: no sign-in mail from now on, and nothing left to remove.
        assert c.delete("/v1/me/email", headers=h).status_code == 204
        me = c.get("/v1/me", headers=h).json()
        assert (me["email"], me["email_confirmed"], me["email_pending"]) == (None, False, None)
        gone = c.delete("/v1/me/email", headers=h)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "no_email"


def test_an_address_not_confirmed_is_replaced_at_once(nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c:
        tag = uuid.uuid4().hex[:8]
        first, second = f"typo-{tag}@exmaple.org", f"right-{tag}@example.org"
        gnu = c.post("/v1/players", json={"name": "gnu", "email": first}).json()
        h = bearer(gnu["key"])
        r = c.put("/v1/me/email", json={"email": second}, headers=h)
        assert r.status_code == 202, r.text
        assert r.json() == {"email": second, "email_confirmed": False, "email_pending": None, "confirmation_mailed": True}
        # The first address's link, used late, confirms it for nothing: it is no longer theirs.
        wait_for(lambda: mailbox.confirmations(first), timeout=10)
        assert c.post("/v1/confirmations", json={"token": mailbox.confirmations(first)[0]}).status_code == 200
        assert c.get("/v1/me", headers=h).json()["email"] == second
        confirm(c, mailbox, second)
        me = c.get("/v1/me", headers=h).json()
        assert (me["email"], me["email_confirmed"]) == (second, True)
        # No old confirmed address to tell.
        assert not [m for m in mailbox.to(first) if "changed" in m["Subject"]]
        # A player with no address adds one the same way.
        hen = player(c, "hen")
        r = c.put("/v1/me/email", json={"email": f"hen-{tag}@example.org"}, headers=bearer(hen["key"]))
        assert r.status_code == 202 and r.json()["email"] == f"hen-{tag}@example.org"


def reply(stack: Stack, to: str, body: str, sender: str = "someone@example.org", subtype: str = "plain") -> None:
    """Send a reply to the reply-to-play listener, as a mail server would."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "Re: your turn"
    msg.set_content(body, subtype=subtype)
    with smtplib.SMTP("127.0.0.1", int(stack.env["BOARDLOG_MAIL_IN_PORT"]), timeout=20) as smtp:
        smtp.send_message(msg)


def test_reply_to_play_applies_the_first_line_once_and_trusts_only_the_token(
        nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        add_email(c, mailbox, bob["key"], address=f"{bob['id']}@example.org")
        gid, tokens = table(c, [ann["key"], bob["key"]])
        inbox = f"{bob['id']}@example.org"
        seq = last_seq(command(c, gid, tokens[0]))
        wait_for(lambda: mailbox.to(inbox), timeout=15)
        turn = mailbox.to(inbox)[0]
        to = turn["Reply-To"]
        assert re.fullmatch(r"play\+[0-9a-f]{32}@play\.test", to), to
        assert "first line" in turn.get_body(("plain",)).get_content()

        # A reply from a forged address to a made-up token is refused at RCPT; nothing changes.
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            reply(nstack, "play+" + "0" * 32 + "@play.test", "roll", sender=inbox)
        assert len(c.get(f"/v1/games/{gid}/events", params={"from": seq + 1}).json()["events"]) == 0

        # The reply: its first line is the move; quoted text and signature below it are ignored.
        reply(nstack, to, "roll\n\n-- \nbob\n\nOn Tue, boardlog wrote:\n> Race: your turn\n", sender="eve@evil.example")
        wait_for(lambda: any("accepted" in m["Subject"] for m in mailbox.to(inbox)), timeout=20)
        answer = next(m for m in mailbox.to(inbox) if "accepted" in m["Subject"])
        assert "Accepted: roll" in answer.get_body(("plain",)).get_content()
        events = c.get(f"/v1/games/{gid}/events", params={"from": seq + 1}).json()["events"]
        rolled = [e for e in events if e["type"] == "race.DieRolled"]
        assert len(rolled) == 1 and rolled[0]["seat"] == 1  # bob rolled, once
        # The same reply delivered again: the token was used, so the listener refuses it.
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            reply(nstack, to, "roll")
        events = c.get(f"/v1/games/{gid}/events", params={"from": seq + 1}).json()["events"]
        assert len([e for e in events if e["type"] == "race.DieRolled"]) == 1

        # A move the rules refuse: the answer gives the reason and the legal commands, and a
        # fresh reply address for the same turn.
        before = len(mailbox.to(inbox))
        head = last_seq(command(c, gid, tokens[0]))
        wait_for(lambda: len(mailbox.to(inbox)) > before, timeout=15)
        second = mailbox.to(inbox)[-1]["Reply-To"]
        reply(nstack, second, "fly away")
        wait_for(lambda: any("not played" in m["Subject"] for m in mailbox.to(inbox)), timeout=20)
        refusal = next(m for m in mailbox.to(inbox) if "not played" in m["Subject"])
        text = refusal.get_body(("plain",)).get_content()
        assert "cannot read 'fly away'" in text and "  roll" in text
        assert refusal["Reply-To"] not in (None, second)
        # Stale: the game moves on (bob plays from the board) before the reply arrives.
        assert command(c, gid, tokens[1]).status_code == 200
        reply(nstack, refusal["Reply-To"], "roll")
        wait_for(lambda: any("too late" in m["Subject"] for m in mailbox.to(inbox)), timeout=20)
        late = next(m for m in mailbox.to(inbox) if "too late" in m["Subject"]).get_body(("plain",)).get_content()
        assert "The game has moved on since that mail: nothing was played." in late, late
        events = c.get(f"/v1/games/{gid}/events", params={"from": head + 1}).json()["events"]
        assert len([e for e in events if e["type"] == "race.DieRolled"]) == 1  # only the board's


def refereed_table(c: httpx.Client, keys: list[str], referee: str) -> tuple[str, list[str]]:
    """A race game refereed by the player `referee` (an id), its seats claimed by `keys`' players."""
    r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"], "options": {"target": 1000},
                                  "referee": {"player": referee}})
    assert r.status_code == 201, r.text
    gid, tokens = r.json()["id"], [s["token"] for s in r.json()["seats"]]
    for key, token in zip(keys, tokens, strict=True):
        assert c.post(f"/v1/games/{gid}/claim", json={"token": token}, headers=bearer(key)).status_code == 200
    return gid, tokens


def test_the_referee_is_told_of_a_dispute_rules_by_reply_and_every_seat_reads_the_reason_once(
        nstack: Stack, mailbox: MailBox, web: Web) -> None:
    with nstack.client() as c:
        ann, bob, carol = player(c, "ann"), player(c, "bob"), player(c, "carol")
        inbox = f"{carol['id']}@example.org"
        add_email(c, mailbox, carol["key"], address=inbox)
        hooks = {p["id"]: add(c, p["key"], kind="webhook", address=web.url(f"/ref/{p['id']}"))["secret"]
                 for p in (ann, bob, carol)}
        gid, tokens = refereed_table(c, [ann["key"], bob["key"]], carol["id"])

        def told(p: dict[str, str], kind: str) -> list[dict[str, Any]]:
            return [d for d in (verify(h, hooks[p["id"]]) for h in web.at(f"/ref/{p['id']}"))
                    if d["type"] == f"boardlog.notice.{kind}" and d["game"] == gid]

        def mails(*words: str) -> list[EmailMessage]:
            # a subject's words, not its spacing: a long one is folded into encoded words
            return [m for m in mailbox.to(inbox) if all(w in m["Subject"] for w in (gid, *words))]

        rolled = command(c, gid, tokens[0])  # ann rolls; bob disputes it
        on = rolled.json()["seq"][0]
        opened = command(c, gid, tokens[1], "boardlog.dispute", {"seq": on, "note": "the die fell off the table"})
        assert opened.status_code == 200, opened.text
        n = next(e["move"] for e in c.get(f"/v1/games/{gid}/moves").json()["entries"] if e["seq_from"] == on)
        wait_for(lambda: mails("a dispute for you to rule") and told(carol, "dispute"), timeout=20)
        [mail] = mails("a dispute for you to rule")
        text = mail.get_body(("plain",)).get_content()
        dispute = last_seq(opened)
        assert f"bob disputes move {n}: the die fell off the table" in text
        assert "The disputed move: " in text and "ann" in text.split("The disputed move: ")[1].splitlines()[0]
        assert f"http://boardlog.test/games/{gid}#dispute={dispute}" in text and '"uphold: <your reason>"' in text
        [hook] = told(carol, "dispute")
        assert (hook["role"], hook["dispute"], hook["url"]) == (
            "referee", dispute, f"http://boardlog.test/games/{gid}#dispute={dispute}")
        wait_for(lambda: told(ann, "conduct"), timeout=20)  # the game waits: ann is told

        # Ruled by a bottom-posted reply from anywhere: the token binds it to this dispute.
        to = mail["Reply-To"]
        reply(nstack, to, "On Tue, boardlog wrote:\n> a dispute for you to rule\n\nUphold - the roll stands\n",
              sender="eve@evil.example")
        wait_for(lambda: mails("ruled, upheld"), timeout=20)
        resolved = [e for e in c.get(f"/v1/games/{gid}/events", params={"from": dispute}).json()["events"]
                    if e["type"] == "boardlog.DisputeResolved"]
        assert [(e["data"]["verdict"], e["data"]["reason"], e["data"]["by"]) for e in resolved] == [
            ("upheld", "the roll stands", "referee")]
        ruling = f"The referee (carol) upholds move {n}: the roll stands"
        wait_for(lambda: len(told(ann, "conduct")) == 2 and told(bob, "conduct"), timeout=20)
        assert [d["asked"] for d in told(bob, "conduct")] == [ruling]  # not told of his own dispute
        assert told(ann, "conduct")[-1]["asked"] == ruling
        # bob's turn came once, with ann's roll: neither the dispute nor the ruling tells it again
        assert len(told(bob, "turn")) == 1 and told(ann, "turn") == []
        with pytest.raises(smtplib.SMTPRecipientsRefused):  # a used reply address
            reply(nstack, to, "void: changed my mind")

        # A second dispute left unruled: the referee is reminded once; a reply that is no ruling
        # is answered with why and writes nothing; ruled on the page meanwhile, the reply is too late.
        on2 = command(c, gid, tokens[1]).json()["seq"][0]
        second = command(c, gid, tokens[0], "boardlog.dispute", {"seq": on2, "note": "bob rolled twice"})
        assert second.status_code == 200, second.text
        talk = command(c, gid, tokens[1], "boardlog.post", {"text": "@referee I rolled once"})
        assert talk.status_code == 200, talk.text
        wait_for(lambda: len(mails("a dispute for you to rule")) == 2
                 and mails("waits for your ruling", "ann disputes"), timeout=30)
        wait_for(lambda: told(carol, "message"), timeout=20)
        assert told(carol, "message")[0]["asked"] == "bob writes: @referee I rolled once"
        head = last_seq(talk)
        reply(nstack, mails("a dispute for you to rule")[-1]["Reply-To"], "I will look tomorrow")
        wait_for(lambda: mails("not ruled"), timeout=20)
        refused = mails("not ruled")[0]
        assert "no ruling" in refused.get_body(("plain",)).get_content() and refused["Reply-To"]
        assert c.get(f"/v1/games/{gid}/events", params={"from": head + 1}).json()["events"] == []
        ruled = command(c, gid, carol["key"], "boardlog.resolve",
                        {"verdict": "voided", "reason": "bob rolled once only"})
        assert ruled.status_code == 200, ruled.text
        reply(nstack, refused["Reply-To"], "uphold: it stands")
        wait_for(lambda: mails("too late"), timeout=20)
        assert "settled already" in mails("too late")[0].get_body(("plain",)).get_content()
        assert [e["type"] for e in c.get(f"/v1/games/{gid}/events", params={"from": last_seq(ruled) + 1})
                .json()["events"]] == []
        time.sleep(1)  # any second reminder would have come by now
        assert len(mails("waits for your ruling", "ann disputes")) == 1
        assert len([d for d in told(carol, "dispute_reminder") if d["dispute"] == last_seq(second)]) == 1


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                     max_leaves=6)
_FIELDS = st.sampled_from(["kind", "address", "events", "digest", "tz", "start", "end", "email", "token", "x"])
_VALUES = st.one_of(_JSON, st.sampled_from(["email", "apprise", "webhook", "atom", "turn", "over", "http://127.0.0.1:9/x",
                                            "json://127.0.0.1:9/x", "a@b.c", "22:00", "Europe/Paris", ""]))
_BODIES = st.one_of(_JSON, st.dictionaries(_FIELDS, _VALUES, max_size=5))
_ENDPOINTS = st.sampled_from([("POST", "/v1/me/targets"), ("PUT", "/v1/me/quiet"), ("PATCH", "/v1/me/targets/{t}"),
                              ("POST", "/v1/me/targets/nope/test"), ("POST", "/v1/signin-mail"),
                              ("POST", "/v1/sessions/magic"), ("DELETE", "/v1/me/targets/{t}x"),
                              ("POST", "/v1/me/targets/{t}/confirmation"), ("POST", "/v1/me/email/confirmation"),
                              ("POST", "/v1/confirmations"), ("PUT", "/v1/me/email"), ("DELETE", "/v1/me/email")])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(st.tuples(_ENDPOINTS, _BODIES), min_size=1, max_size=4))
def test_every_notification_endpoint_answers_4xx_or_2xx_and_a_refusal_writes_nothing(
        nstack: Stack, calls: list[tuple[tuple[str, str], Any]]) -> None:
    with nstack.client() as c:
        who = player(c, "fuzz")
        h = bearer(who["key"])
        t = add(c, who["key"], kind="atom")["target"]["id"]
        for (method, path), body in calls:
            before = c.get("/v1/me/targets", headers=h).json()
            r = c.request(method, path.format(t=t), json=body, headers=h)
            assert r.status_code < 500, (method, path, body, r.text)
            assert "error" in r.json() if r.status_code >= 400 else True
            if r.status_code >= 400:
                assert c.get("/v1/me/targets", headers=h).json() == before, (method, path, body)


def test_a_send_never_connects_to_an_address_the_operator_did_not_allow(store: EventStore, web: Web) -> None:
    # Targets stored as they were before the check at adding (or a name that resolved elsewhere
    # then): the send checks every connect, and the receiver on loopback hears nothing.
    targets = TargetStore(store.r, store.ns)
    pid = f"p-{uuid.uuid4().hex[:8]}"
    hook, _ = targets.add(pid, "webhook", web.url(f"/internal/{pid}"))
    chat, _ = targets.add(pid, "apprise", f"json://127.0.0.1:{web.port}/internal-apprise/{pid}")
    named, _ = targets.add(pid, "webhook", f"http://localhost:{web.port}/internal-named/{pid}")
    notice = Notice("g-egress", "race", 3, 0, "ann", "turn", "roll", "", datetime.now(UTC).isoformat())
    closed = Sender(targets, NotifyConfig(timeout=2, egress=Egress()), lambda *_: None)
    for t in (hook, chat, named):
        with pytest.raises(SendFailed, match=r"loopback (address|name).*: notices go to public addresses only"):
            closed.notify(notice, pid, t.id)
    assert "loopback address" in targets.failing(pid)[hook.id]["error"]
    time.sleep(0.2)
    assert [p for p in list(web.hits) if pid in p] == []
    # The operator allows 127.0.0.1: the same notices go out, but to a loopback name (localhost)
    # none ever does, whatever it resolves to (an operator allowing loopback names its address).
    opened = Sender(targets, NotifyConfig(timeout=2, egress=Egress(networks(["127.0.0.0/8", "::1"]))),
                    lambda *_: None)
    for t in (hook, chat):
        assert opened.notify(notice, pid, t.id) == "sent"
    with pytest.raises(SendFailed, match=r"localhost names this machine \(a loopback name\)"):
        opened.notify(notice, pid, named.id)
    assert sorted(len(web.at(p)) for p in list(web.hits) if pid in p) == [1, 1]


class _Rebinding:
    """A DNS that answers a name with a public address first, then with 127.0.0.1 (rebinding)."""

    def __init__(self, *answers: str) -> None:
        self.answers = [ipaddress.ip_address(a) for a in answers]
        self.asked = 0

    def __call__(self, host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        self.asked += 1
        return [self.answers[min(self.asked, len(self.answers)) - 1]]


def test_a_name_rebound_after_its_check_is_never_connected_to_and_a_send_goes_where_it_checked(
        store: EventStore, web: Web) -> None:
    targets = TargetStore(store.r, store.ns)
    pid = f"p-{uuid.uuid4().hex[:8]}"
    notice = Notice("g-rebind", "race", 3, 0, "ann", "turn", "roll", "", datetime.now(UTC).isoformat())
    for kind, url in (("webhook", f"http://hooks.example.test:{web.port}/rebound/{pid}"),
                      ("apprise", f"json://hooks.example.test:{web.port}/rebound-apprise/{pid}")):
        # Public to the check when the target was added, 127.0.0.1 at the send: refused, unheard.
        egress = Egress(resolver=_Rebinding("93.184.215.14", "127.0.0.1"))
        assert egress.check_host("hooks.example.test", web.port) is None
        t, _ = targets.add(pid, kind, url)
        sender = Sender(targets, NotifyConfig(timeout=2, egress=egress), lambda *_: None)
        with pytest.raises(SendFailed, match=r"hooks\.example\.test resolves to 127\.0\.0\.1 is a loopback address"):
            sender.notify(notice, pid, t.id)
    time.sleep(0.2)
    assert [p for p in list(web.hits) if pid in p] == []
    # Allowed 127.0.0.1 and not 127.0.0.2, a send looks the name up once and connects to what it
    # checked, its Host header the name; the next send looks up again (and is refused).
    resolver = _Rebinding("127.0.0.1", "127.0.0.2")
    pinned = Sender(targets, NotifyConfig(timeout=2, egress=Egress(networks(["127.0.0.1"]), resolver=resolver)),
                    lambda *_: None)
    hook, _ = targets.add(pid, "webhook", f"http://hooks.example.test:{web.port}/pinned/{pid}")
    assert pinned.notify(notice, pid, hook.id) == "sent" and resolver.asked == 1
    [hit] = web.at(f"/pinned/{pid}")
    assert {k.lower(): v for k, v in hit.headers.items()}["host"] == f"hooks.example.test:{web.port}"
    other = Notice("g-rebind", "race", 4, 0, "ann", "turn", "roll", "", datetime.now(UTC).isoformat())
    with pytest.raises(SendFailed, match=r"127\.0\.0\.2 is a loopback address"):
        pinned.notify(other, pid, hook.id)
    assert resolver.asked == 2 and len(web.at(f"/pinned/{pid}")) == 1


class _RedisAwayAtTheMark(TargetStore):
    """A real store whose first sent marks meet Redis out of reach, as when Redis restarts just
    after a receiver took the notice (the chaos soak's kill -9 of Redis found it)."""

    away = 2

    def mark_sent(self, key: str, t: Target, channel: str, latency: float | None) -> None:
        if self.away:
            self.away -= 1
            raise StoreUnavailable("Redis out of reach: Error 111 connecting. Connection refused.")
        super().mark_sent(key, t, channel, latency)


def test_a_notice_the_receiver_took_is_not_sent_again_when_redis_is_away_at_its_mark(
        store: EventStore, web: Web) -> None:
    targets = _RedisAwayAtTheMark(store.r, store.ns)
    pid = f"p-{uuid.uuid4().hex[:8]}"
    hook, _ = targets.add(pid, "webhook", web.url(f"/mark/{pid}"))
    notice = Notice("g-mark", "race", 3, 0, "ann", "turn", "roll", "", datetime.now(UTC).isoformat())
    sender = Sender(targets, NotifyConfig(timeout=2, egress=Egress(networks(["127.0.0.0/8"]))), lambda *_: None)
    # As the notify actor runs it: a Redis out of reach is waited for, not spent as a retry.
    holding(lambda: sender.notify(notice, pid, hook.id, "message-1"))
    assert len(web.at(f"/mark/{pid}")) == 1  # delivered once, marked once Redis answered
    assert targets.sent([notice.key(pid, hook.id)]) == [True] and targets.away == 0
    assert sender.notify(notice, pid, hook.id, "message-1") == "skipped"  # a redelivery sends nothing
    assert len(web.at(f"/mark/{pid}")) == 1


def clocked_table(c: httpx.Client, keys: list[str]) -> tuple[str, list[str]]:
    """A race game with a clock (an hour a move: no deadline falls in the test), its seats
    claimed by `keys`' players: after every move the platform appends the clock's own step."""
    r = c.post("/v1/games", json={"game": "race", "seats": ["ann", "bob"],
                                  "options": {"target": 1000, "clock": {"per_move": 3600}}})
    assert r.status_code == 201, r.text
    gid, tokens = r.json()["id"], [s["token"] for s in r.json()["seats"]]
    for key, token in zip(keys, tokens, strict=True):
        assert c.post(f"/v1/games/{gid}/claim", json={"token": token}, headers=bearer(key)).status_code == 200
    return gid, tokens


def html_reply(stack: Stack, to: str, markup: str) -> None:
    """A reply with an HTML body alone, its quote in a <blockquote>, as some mail programs send."""
    reply(stack, to, markup, subtype="html")


def test_reply_to_play_works_in_a_clocked_game_whose_clock_steps_after_every_move(
        nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        inbox = f"{bob['id']}@example.org"
        add_email(c, mailbox, bob["key"], address=inbox)
        gid, tokens = clocked_table(c, [ann["key"], bob["key"]])
        moved = last_seq(command(c, gid, tokens[0]))

        def turn_mails() -> list[EmailMessage]:
            return [m for m in mailbox.to(inbox) if "your turn" in str(m["Subject"])]

        wait_for(turn_mails, timeout=15)
        # The clock's bookkeeping followed ann's move: the game is past the mail's seq.
        wait_for(lambda: c.get(f"/v1/games/{gid}").json()["seq"] > moved, timeout=15)
        turn = turn_mails()[-1]
        assert "ends at" in turn.get_body(("plain",)).get_content()  # the deadline on bob's clock
        quoted = "\n".join("> " + line for line in turn.get_body(("plain",)).get_content().splitlines())
        # Bottom-posted: the quote first, the move under it.
        reply(nstack, turn["Reply-To"], f"On Tue, boardlog wrote:\n{quoted}\n\nroll\n")
        wait_for(lambda: [m for m in mailbox.to(inbox) if "accepted" in str(m["Subject"])], timeout=20)
        answer = next(m for m in mailbox.to(inbox) if "accepted" in str(m["Subject"]))
        text = answer.get_body(("plain",)).get_content()
        assert "Accepted: roll" in text and "receipt" in text, text
        [attached] = list(answer.iter_attachments())
        receipt = orjson.loads(attached.get_content())
        assert receipt["game"] == gid and receipt["seq"] > moved
        rolled = [e for e in c.get(f"/v1/games/{gid}/events", params={"from": moved + 1}).json()["events"]
                  if e["type"] == "race.DieRolled"]
        assert [e["seat"] for e in rolled] == [1]


def test_a_reply_with_two_moves_plays_neither_and_an_html_only_reply_plays_its_own_line(
        nstack: Stack, mailbox: MailBox) -> None:
    with nstack.client() as c:
        ann, bob = player(c, "ann"), player(c, "bob")
        inbox = f"{bob['id']}@example.org"
        add_email(c, mailbox, bob["key"], address=inbox)
        gid, tokens = clocked_table(c, [ann["key"], bob["key"]])
        moved = last_seq(command(c, gid, tokens[0]))
        wait_for(lambda: [m for m in mailbox.to(inbox) if "your turn" in str(m["Subject"])], timeout=15)
        turn = [m for m in mailbox.to(inbox) if "your turn" in str(m["Subject"])][-1]
        reply(nstack, turn["Reply-To"], "roll\nroll\n")
        wait_for(lambda: [m for m in mailbox.to(inbox) if "not played" in str(m["Subject"])], timeout=20)
        refusal = next(m for m in mailbox.to(inbox) if "not played" in str(m["Subject"]))
        assert "one move a reply" in refusal.get_body(("plain",)).get_content()
        events = c.get(f"/v1/games/{gid}/events", params={"from": moved + 1}).json()["events"]
        assert not [e for e in events if e["type"] == "race.DieRolled"]  # nothing played
        # Answered in HTML alone, the quote in a blockquote: the line above it is the move.
        html_reply(nstack, refusal["Reply-To"],
                   "<html><body><div>roll</div><div>On Tue, boardlog wrote:<blockquote>"
                   "<p>pass</p></blockquote></div></body></html>")
        wait_for(lambda: [m for m in mailbox.to(inbox) if "accepted" in str(m["Subject"])], timeout=20)
        events = c.get(f"/v1/games/{gid}/events", params={"from": moved + 1}).json()["events"]
        assert [e["seat"] for e in events if e["type"] == "race.DieRolled"] == [1]
