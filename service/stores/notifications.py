"""Notification targets of players, and what the notifier keeps: each notice's idempotency mark,
the per-game checkpoint, the failing targets and dead letters, the Atom feeds' entries, the
digests waiting, quiet hours, sign-in mail links and the notices' counters.

Every key shares the players' hash tag (`{players}`), so a target and its player live on one
Redis Cluster slot and each write is one MULTI or script. Sync (the notifier and its worker
threads); the API calls it from its thread pool. Every call raises `StoreUnavailable` when Redis
is out of reach.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson
import redis

from events.store.errors import reports_unavailable
from service.stores.players import PlayerKeys, digest

KINDS = ("email", "apprise", "webhook", "atom")
# What may notify: a turn arriving, and the game's end (its abort included).
EVENTS = ("turn", "over")
# An idempotency mark outlives any redelivery, restart or rebuild a deployment sees.
MARK_SECONDS = 90 * 86400
LEASE_MS = 60_000
FEED_ENTRIES = 100
DEAD_LETTERS = 50
MAGIC_SECONDS = 15 * 60
# A confirmation link waits for its mailbox's owner a few days (mail read after a weekend).
CONFIRM_SECONDS = 3 * 86400
# A reply-to-play token lives as long as a prompt may wait; the seq it carries ends it sooner.
REPLY_SECONDS = 30 * 86400
# Notice latency buckets, seconds (prometheus' histogram: each counts the sends at or below it).
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0)


@dataclass(frozen=True, slots=True)
class Target:
    id: str
    player: str
    kind: str  # one of KINDS
    address: str  # an email address, an Apprise URL, a webhook URL; "" for an Atom feed
    events: tuple[str, ...] = EVENTS
    digest: bool = False  # email only: one mail a day instead of one a notice
    created: float = 0.0
    # Capabilities the sends need: the webhook's signing secret, the unsubscribe link's token.
    secret: str = field(default="", repr=False)
    unsubscribe: str = field(default="", repr=False)
    # An email target is sent nothing until its address is confirmed by the link mailed to
    # it. A target stored before addresses were confirmed has no such field, and counts.
    confirmed: bool = True

    def public(self) -> dict[str, Any]:
        """The target as its player's page lists it: never its secret or tokens."""
        return {"id": self.id, "kind": self.kind, "address": self.address, "events": list(self.events),
                "digest": self.digest, "created": self.created, "confirmed": self.confirmed}


@dataclass(frozen=True, slots=True)
class Quiet:
    """Quiet hours in the player's time zone: notices held from `start` to `end` ("22:00")."""

    tz: str = "UTC"
    start: str = ""
    end: str = ""

    @property
    def on(self) -> bool:
        return bool(self.start and self.end and self.start != self.end)


@dataclass(frozen=True, slots=True)
class Confirmed:
    """What a confirmation link confirmed: `address` for `player`; `replaced` is the player's
    own address that the confirmed one took the place of (a change they asked for), if any."""

    player: str
    address: str
    replaced: str | None = None


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _target(pid: str, raw: bytes) -> Target:
    d = orjson.loads(raw)
    return Target(d["id"], pid, d["kind"], d["address"], tuple(d["events"]), bool(d.get("digest")),
                  float(d["created"]), d.get("secret", ""), d.get("unsubscribe", ""), d.get("confirmed", True))


def _record(t: Target) -> bytes:
    return orjson.dumps({"id": t.id, "kind": t.kind, "address": t.address, "events": list(t.events),
                         "digest": t.digest, "created": t.created, "secret": t.secret,
                         "unsubscribe": t.unsubscribe, "confirmed": t.confirmed})


def webhook_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


# Mark a notice sent and add it to an Atom feed in one step: a feed entry is written once.
_FEED_ONCE = """
if redis.call('SET', KEYS[1], 'sent', 'NX', 'EX', ARGV[1]) then
  redis.call('LPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
  return 1
end
return 0
"""


# Hold a notice for a digest, once: its mark and its entry in one step, and the list's new
# length, so that exactly one of notices held at once finds it was empty and schedules the mail.
_HOLD = """
if redis.call('SET', KEYS[1], 'digest', 'NX', 'EX', ARGV[1]) then
  return redis.call('RPUSH', KEYS[2], ARGV[2])
end
return 0
"""


# Lease a notice's send: nothing if it is marked sent; else take the lease when it is free or
# already this holder's (its message redelivered after its worker died).
_LEASE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return {'sent', 0} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'leased', 0} end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return {'leased', 0}
end
return {'busy', redis.call('PTTL', KEYS[2])}
"""


class TargetKeys:
    def __init__(self, ns: str) -> None:
        self.players = PlayerKeys(ns)
        self.base = self.players.base

    def targets(self, pid: str) -> str:
        return f"{self.base}:targets:{pid}"

    def token(self, token_digest: str) -> str:
        """An unsubscribe or feed token (by digest) -> "pid:tid"."""
        return f"{self.base}:ttoken:{token_digest}"

    def mark(self, key: str) -> str:
        return f"{self.base}:notice:{key}"

    def lease(self, key: str) -> str:
        return f"{self.base}:sending:{key}"

    def checkpoints(self) -> str:
        return f"{self.base}:notified"

    def born(self) -> str:
        return f"{self.base}:notifier-born"

    def failing(self, pid: str) -> str:
        return f"{self.base}:failing:{pid}"

    def dead(self, pid: str) -> str:
        return f"{self.base}:dead:{pid}"

    def feed(self, pid: str, tid: str) -> str:
        return f"{self.base}:feed:{pid}:{tid}"

    def digest(self, pid: str, tid: str) -> str:
        return f"{self.base}:digest:{pid}:{tid}"

    def quiet(self, pid: str) -> str:
        return f"{self.base}:quiet:{pid}"

    def reply(self, token_digest: str) -> str:
        return f"{self.base}:reply:{token_digest}"

    def magic(self, token_digest: str) -> str:
        return f"{self.base}:magic:{token_digest}"

    def metrics(self) -> str:
        return f"{self.base}:notify-metrics"


class TargetStore:
    """Targets and the notifier's records on a sync client; takes its client, never makes one."""

    def __init__(self, r: redis.Redis, namespace: str, clock: Callable[[], float] = time.time) -> None:
        self.r: Any = r
        self.keys = TargetKeys(namespace)
        self.clock = clock
        self._feed_once = self.r.register_script(_FEED_ONCE)
        self._lease = self.r.register_script(_LEASE)
        self._hold = self.r.register_script(_HOLD)

    # -- targets ---------------------------------------------------------------------------

    @reports_unavailable
    def add(self, pid: str, kind: str, address: str, events: Sequence[str] = EVENTS, digest_mail: bool = False,
            confirmed: bool = True) -> tuple[Target, str]:
        """A new target of `pid`, and its one-time secret: the webhook's signing secret, the
        Atom feed's key ("" for the others). An email target not `confirmed` waits for its
        address's link (`confirm`)."""
        t = Target(secrets.token_hex(6), pid, kind, address, tuple(events), digest_mail, self.clock(),
                   webhook_secret() if kind == "webhook" else "", secrets.token_urlsafe(18), confirmed)
        shown = t.secret
        feed_key = secrets.token_urlsafe(24) if kind == "atom" else ""
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self.keys.targets(pid), t.id, _record(t))
        pipe.set(self.keys.token(digest(t.unsubscribe)), f"{pid}:{t.id}")
        if feed_key:
            pipe.set(self.keys.token(digest(feed_key)), f"{pid}:{t.id}")
            shown = feed_key
        pipe.execute()
        return t, shown

    @reports_unavailable
    def targets(self, pid: str) -> list[Target]:
        raw: dict[bytes, bytes] = self.r.hgetall(self.keys.targets(pid))
        return sorted((_target(pid, v) for v in raw.values()), key=lambda t: t.created)

    @reports_unavailable
    def targets_of(self, pids: Iterable[str]) -> dict[str, list[Target]]:
        """Each player's targets, in one round trip."""
        ids = list(dict.fromkeys(pids))
        pipe = self.r.pipeline(transaction=False)
        for pid in ids:
            pipe.hgetall(self.keys.targets(pid))
        return {pid: sorted((_target(pid, v) for v in raw.values()), key=lambda t: t.created)
                for pid, raw in zip(ids, pipe.execute(), strict=True)}

    @reports_unavailable
    def target(self, pid: str, tid: str) -> Target | None:
        raw = self.r.hget(self.keys.targets(pid), tid)
        return None if raw is None else _target(pid, raw)

    @reports_unavailable
    def update(self, t: Target) -> bool:
        """Write a changed target's choices (events, digest) onto the stored one; False when it
        is gone. A transaction: a confirmation meanwhile is kept."""
        key = self.keys.targets(t.player)
        with self.r.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)
                    raw = pipe.hget(key, t.id)
                    if raw is None:
                        return False
                    stored = _target(t.player, raw)
                    pipe.multi()
                    pipe.hset(key, t.id, _record(replace(stored, events=t.events, digest=t.digest)))
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    @reports_unavailable
    def remove(self, pid: str, tid: str) -> bool:
        raw = self.r.hget(self.keys.targets(pid), tid)
        if raw is None:
            return False
        t = _target(pid, raw)
        pipe = self.r.pipeline(transaction=True)
        pipe.hdel(self.keys.targets(pid), tid)
        pipe.delete(self.keys.token(digest(t.unsubscribe)), self.keys.feed(pid, tid), self.keys.digest(pid, tid))
        pipe.hdel(self.keys.failing(pid), tid)
        pipe.execute()
        # A feed key is known by its digest only: its index entry names a removed target, and
        # a lookup finds no target behind it.
        return True

    @reports_unavailable
    def by_token(self, token: str) -> Target | None:
        """The target an unsubscribe token or a feed key opens; None for none."""
        found = self.r.get(self.keys.token(digest(token)))
        if found is None:
            return None
        pid, tid = _text(found).split(":", 1)
        return self.target(pid, tid)

    @reports_unavailable
    def claims(self, gid: str) -> dict[int, str]:
        """Seat -> the player holding it (the players' claims), for the notifier."""
        raw: dict[bytes, bytes] = self.r.hgetall(self.keys.players.claims(gid))
        return {int(k): _text(v) for k, v in raw.items()}

    @reports_unavailable
    def claims_after(self, gid: str) -> dict[int, tuple[str, int]]:
        """Seat -> (the player holding it, the game's seq when they claimed it: 0 for a seat
        claimed before the game's first event), for the notifier: a step up to that seq was
        on the claimant's screen, not news."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hgetall(self.keys.players.claims(gid))
        pipe.hgetall(self.keys.players.claimed_at(gid))
        held, at = pipe.execute()
        seqs = {int(k): int(v) for k, v in at.items()}
        return {int(k): (_text(v), seqs.get(int(k), 0)) for k, v in held.items()}

    # -- quiet hours ------------------------------------------------------------------------

    @reports_unavailable
    def quiet(self, pid: str) -> Quiet:
        raw: dict[bytes, bytes] = self.r.hgetall(self.keys.quiet(pid))
        return Quiet(_text(raw.get(b"tz", b"UTC")), _text(raw.get(b"start", b"")), _text(raw.get(b"end", b"")))

    @reports_unavailable
    def set_quiet(self, pid: str, quiet: Quiet) -> None:
        self.r.hset(self.keys.quiet(pid), mapping={"tz": quiet.tz, "start": quiet.start, "end": quiet.end})

    # -- the notifier's records -------------------------------------------------------------

    @reports_unavailable
    def born(self) -> float:
        """When this deployment's notifier first ran (games older than it are not replayed)."""
        self.r.set(self.keys.born(), repr(self.clock()), nx=True)
        return float(self.r.get(self.keys.born()))

    @reports_unavailable
    def checkpoint(self, gid: str) -> int | None:
        raw = self.r.hget(self.keys.checkpoints(), gid)
        return None if raw is None else int(raw)

    @reports_unavailable
    def set_checkpoint(self, gid: str, seq: int) -> None:
        self.r.hset(self.keys.checkpoints(), gid, seq)

    @reports_unavailable
    def sent(self, keys: Sequence[str]) -> list[bool]:
        """Whether each notice key is marked sent."""
        if not keys:
            return []
        return [v is not None for v in self.r.mget([self.keys.mark(k) for k in keys])]

    @reports_unavailable
    def lease(self, key: str, holder: str, lease_ms: int = LEASE_MS) -> tuple[str, int]:
        """("sent", 0): nothing to do; ("leased", 0): send it now; ("busy", ms): another job's
        send of the same notice holds it for up to `ms` more. A lease its own holder asks for
        again (the same message, redelivered after its worker died) is taken over."""
        got = self._lease(keys=[self.keys.mark(key), self.keys.lease(key)], args=[holder, lease_ms])
        state, ms = _text(got[0]), int(got[1])
        return state, ms

    @reports_unavailable
    def release(self, key: str) -> None:
        self.r.delete(self.keys.lease(key))

    @reports_unavailable
    def mark_sent(self, key: str, t: Target, channel: str, latency: float | None) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.set(self.keys.mark(key), "sent", ex=MARK_SECONDS)
        pipe.delete(self.keys.lease(key))
        pipe.hdel(self.keys.failing(t.player), t.id)
        self._count(pipe, "sent", channel, latency)
        pipe.execute()

    @reports_unavailable
    def feed_once(self, key: str, t: Target, entry: dict[str, Any], latency: float | None) -> bool:
        """Add a notice to an Atom feed, once; False when it was there already."""
        added = bool(self._feed_once(keys=[self.keys.mark(key), self.keys.feed(t.player, t.id)],
                                     args=[MARK_SECONDS, orjson.dumps(entry), FEED_ENTRIES]))
        if added:
            pipe = self.r.pipeline(transaction=False)
            self._count(pipe, "sent", "atom", latency)
            pipe.execute()
        return added

    @reports_unavailable
    def feed_entries(self, pid: str, tid: str) -> list[dict[str, Any]]:
        """The feed's notices, newest first."""
        return [orjson.loads(x) for x in self.r.lrange(self.keys.feed(pid, tid), 0, -1)]

    @reports_unavailable
    def hold_for_digest(self, key: str, t: Target, entry: dict[str, Any]) -> bool:
        """Add a notice to the target's next digest, once; True when the digest was empty (the
        caller schedules its mail). One script: of notices held at once, one is told so."""
        length = self._hold(keys=[self.keys.mark(key), self.keys.digest(t.player, t.id)],
                            args=[MARK_SECONDS, orjson.dumps(entry)])
        return int(length) == 1

    @reports_unavailable
    def digest_entries(self, t: Target) -> list[dict[str, Any]]:
        return [orjson.loads(x) for x in self.r.lrange(self.keys.digest(t.player, t.id), 0, -1)]

    @reports_unavailable
    def digest_sent(self, t: Target, count: int, latency: float | None) -> None:
        """Drop the first `count` entries of the digest (those just mailed)."""
        pipe = self.r.pipeline(transaction=True)
        pipe.ltrim(self.keys.digest(t.player, t.id), count, -1)
        pipe.hdel(self.keys.failing(t.player), t.id)
        self._count(pipe, "sent", "email", latency)
        pipe.execute()

    @reports_unavailable
    def failed(self, key: str, t: Target, channel: str, error: str) -> None:
        """One send failed (it is retried): the target shows as failing with this error."""
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self.keys.failing(t.player), t.id, orjson.dumps({"error": error, "at": self.clock(), "key": key}))
        pipe.delete(self.keys.lease(key))
        self._count(pipe, "error", channel, None)
        pipe.execute()

    @reports_unavailable
    def dead_letter(self, key: str, pid: str, tid: str, channel: str, tries: int) -> None:
        """Every try failed: the notice goes to the player's dead letters with the last error."""
        last = self.r.hget(self.keys.failing(pid), tid)
        error = orjson.loads(last)["error"] if last else "failed"
        letter = {"key": key, "target": tid, "channel": channel, "error": error, "tries": tries, "at": self.clock()}
        pipe = self.r.pipeline(transaction=True)
        pipe.lpush(self.keys.dead(pid), orjson.dumps(letter))
        pipe.ltrim(self.keys.dead(pid), 0, DEAD_LETTERS - 1)
        pipe.hset(self.keys.failing(pid), tid, orjson.dumps({"error": error, "at": self.clock(), "key": key, "dead": True}))
        self._count(pipe, "failed", channel, None)
        pipe.execute()

    @reports_unavailable
    def failing(self, pid: str) -> dict[str, dict[str, Any]]:
        """Target id -> its last error, for the player's targets failing now."""
        return {_text(k): orjson.loads(v) for k, v in self.r.hgetall(self.keys.failing(pid)).items()}

    @reports_unavailable
    def dead_letters(self, pid: str) -> list[dict[str, Any]]:
        return [orjson.loads(x) for x in self.r.lrange(self.keys.dead(pid), 0, -1)]

    # -- counters for /metrics ----------------------------------------------------------------

    def count(self, what: str, channel: str, n: int = 1) -> None:
        pipe = self.r.pipeline(transaction=False)
        self._count(pipe, what, channel, None, n)
        with_errors = reports_unavailable(pipe.execute)
        with_errors()

    def _count(self, pipe: Any, what: str, channel: str, latency: float | None, n: int = 1) -> None:
        key = self.keys.metrics()
        pipe.hincrby(key, f"{what}|{channel}", n)
        if latency is not None:
            pipe.hincrbyfloat(key, f"latency_sum|{channel}", latency)
            pipe.hincrby(key, f"latency_count|{channel}", 1)
            # The one bucket it falls in (the scrape sums them into prometheus' cumulative ones).
            bucket = next((b for b in LATENCY_BUCKETS if latency <= b), None)
            if bucket is not None:
                pipe.hincrby(key, f"latency_in|{channel}|{bucket}", 1)

    @reports_unavailable
    def counters(self) -> dict[str, float]:
        return {_text(k): float(v) for k, v in self.r.hgetall(self.keys.metrics()).items()}

    # -- sign-in by mail --------------------------------------------------------------------

    # -- reply to play --------------------------------------------------------------------

    @reports_unavailable
    def reply_token(self, context: dict[str, Any]) -> str:
        """A one-time token for a notice's Reply-To (play+<token>@...), bound to `context` (game,
        seat, seq, player, address); lower-case hex, as mail systems may fold a local part."""
        token = secrets.token_hex(16)
        self.r.set(self.keys.reply(digest(token)), orjson.dumps(context), ex=REPLY_SECONDS)
        return token

    @reports_unavailable
    def peek_reply(self, token: str) -> bool:
        return bool(self.r.exists(self.keys.reply(digest(token))))

    @reports_unavailable
    def use_reply(self, token: str) -> dict[str, Any] | None:
        """What a reply token is bound to, once (it is deleted as it is read)."""
        raw = self.r.getdel(self.keys.reply(digest(token)))
        return None if raw is None else dict(orjson.loads(raw))

    # -- confirmed addresses ---------------------------------------------------------------

    @reports_unavailable
    def confirm_link(self, pid: str, address: str) -> str:
        """A token for the link that confirms `address` for `pid`, valid CONFIRM_SECONDS."""
        token = secrets.token_urlsafe(24)
        self.r.set(self.keys.players.confirm(digest(token)), orjson.dumps({"player": pid, "address": address}),
                   ex=CONFIRM_SECONDS)
        return token

    @reports_unavailable
    def confirm(self, token: str) -> Confirmed | None:
        """Use a confirmation token, once: its address counts for its player from now on. Their
        email targets of that address are confirmed; if it is the player's own address, or the
        new one they asked for (`email_pending`), the sign-in mail goes to this player (the
        latest to confirm it), and a pending one takes the old one's place. None for a token
        used, expired or wrong. One transaction: a target or the player changed meanwhile makes
        it read again."""
        keys = self.keys.players
        link = keys.confirm(digest(token))
        with self.r.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(link)
                    raw = pipe.get(link)
                    if raw is None:
                        return None
                    d = orjson.loads(raw)
                    pid, address = str(d["player"]), str(d["address"])
                    folded = address.casefold()
                    player = keys.player(pid)
                    pipe.watch(self.keys.targets(pid), player)
                    stored: dict[bytes, bytes] = pipe.hgetall(self.keys.targets(pid))
                    own_raw, pending_raw = pipe.hmget(player, ["email", "email_pending"])
                    own = None if own_raw is None else _text(own_raw)
                    moving = pending_raw is not None and _text(pending_raw).casefold() == folded
                    replaced = own if moving and own is not None and own.casefold() != folded else None
                    old_holder = None
                    if replaced is not None:
                        pipe.watch(keys.email(replaced))
                        old_holder = pipe.get(keys.email(replaced))
                    changed = [replace(t, confirmed=True) for t in (_target(pid, v) for v in stored.values())
                               if t.kind == "email" and not t.confirmed and t.address.casefold() == folded]
                    pipe.multi()
                    pipe.delete(link)
                    pipe.sadd(keys.confirmed(pid), digest(folded))
                    for t in changed:
                        pipe.hset(self.keys.targets(pid), t.id, _record(t))
                    if moving:
                        pipe.hset(player, "email", address)
                        pipe.hdel(player, "email_pending")
                        if replaced is not None and old_holder is not None and _text(old_holder) == pid:
                            pipe.delete(keys.email(replaced))
                    if moving or (own is not None and own.casefold() == folded):
                        pipe.set(keys.email(address), pid)
                    pipe.execute()
                    return Confirmed(pid, address, replaced)
                except redis.WatchError:
                    continue

    @reports_unavailable
    def player_by_email(self, address: str) -> str | None:
        found = self.r.get(self.keys.players.email(address))
        return None if found is None else _text(found)

    @reports_unavailable
    def magic_link(self, pid: str) -> str:
        """A one-time sign-in token for `pid`, valid MAGIC_SECONDS (stored by digest)."""
        token = secrets.token_urlsafe(24)
        self.r.set(self.keys.magic(digest(token)), pid, ex=MAGIC_SECONDS)
        return token

    @reports_unavailable
    def peek_magic(self, token: str) -> str | None:
        """The player a sign-in token names, leaving it usable: the page shows whom it signs in
        as, and waits for a click, before it is used."""
        pid = self.r.get(self.keys.magic(digest(token)))
        return None if pid is None else _text(pid)

    @reports_unavailable
    def use_magic(self, token: str) -> str | None:
        """The player a sign-in token names, once (it is deleted as it is read)."""
        pid = self.r.getdel(self.keys.magic(digest(token)))
        return None if pid is None else _text(pid)


def with_choices(t: Target, events: Sequence[str] | None, digest_mail: bool | None) -> Target:
    return replace(t, events=t.events if events is None else tuple(events),
                   digest=t.digest if digest_mail is None else digest_mail)
