"""Players, their keys and their sessions, in the deployment's namespace.

A player key and a session are secrets the store never holds: it keeps their sha256 digests
only, and a lookup is by digest (a stolen dump of Redis signs nobody in). A session also has a
public id, to list and revoke it by. Every key of this module shares one hash tag, so each
write is one MULTI on one Redis Cluster slot. Like `AsyncStore`, every call raises
`StoreUnavailable` when Redis is out of reach.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
import redis.asyncio as aioredis
from redis.exceptions import WatchError

from events.domain.names import name_key
from events.store.errors import reaching_redis

T = TypeVar("T")

# 24 random bytes: 192 bits, above the 128 the keys and sessions need.
SECRET_BYTES = 24
USER_AGENT_CHARS = 200
# A session's "last seen" is written again at most this often (not on every request).
TOUCH_SECONDS = 60.0
# A session unused this long ends on its own (the cookie's own life, 400 days).
SESSION_SECONDS = 400 * 86400
# A sign-up link, and the seat a mailed sign-in link keeps, last as long as the sign-in link.
SIGNUP_SECONDS = 15 * 60


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    email: str | None
    created: float
    # A new address asked for while `email` is confirmed: `email` holds until this one's link is used.
    email_pending: str | None = None


@dataclass(frozen=True, slots=True)
class Session:
    id: str  # public: names the session in lists and revocations; never signs anyone in
    player: str
    created: float
    last_seen: float
    user_agent: str


class PlayerKeys:
    """The key names; `{players}` is the hash tag every one of them shares."""

    def __init__(self, ns: str) -> None:
        self.base = f"{ns}:{{players}}"

    def player(self, pid: str) -> str:
        return f"{self.base}:player:{pid}"

    def key(self, key_digest: str) -> str:
        return f"{self.base}:key:{key_digest}"

    def session(self, session_digest: str) -> str:
        return f"{self.base}:session:{session_digest}"

    def sessions(self, pid: str) -> str:
        """The player's sessions: public id -> the session's digest."""
        return f"{self.base}:sessions:{pid}"

    def claims(self, gid: str) -> str:
        """A game's claimed seats: seat number -> player id. Kept with the players (not in the
        game's partition) so a claim and the player's list of games are one script on one slot."""
        return f"{self.base}:claims:{gid}"

    def claimed_at(self, gid: str) -> str:
        """A game's seats claimed by a seat link while it was under way: seat -> the game's seq
        then. Its steps to that seq were on the claimant's screen as they claimed it, not news
        to tell them (a seat claimed before its game's first event has no entry)."""
        return f"{self.base}:claimed-at:{gid}"

    def games(self, pid: str) -> str:
        """The games the player holds a seat of: game id by when the seat was claimed."""
        return f"{self.base}:games:{pid}"

    def refereed(self, pid: str) -> str:
        """The games that name the player as their referee: game id by when it was named. Written
        as the game (or its forming table) is made, before its record, so a game the player
        referees is never missing from their list; a game whose making failed after it has no
        summary, and the list leaves it out."""
        return f"{self.base}:refereed:{pid}"

    def email(self, address: str) -> str:
        """An email address (by the digest of its case-folded form) -> the player whose own
        address it is, confirmed by its mail's link (the sign-in mail goes there); an entry
        written before addresses were confirmed names the first player who set it."""
        return f"{self.base}:email:{digest(address.casefold())}"

    def confirmed(self, pid: str) -> str:
        """The addresses (digests of their case-folded forms) the player confirmed by a link
        mailed to each: notices and sign-in links go only to those."""
        return f"{self.base}:confirmed:{pid}"

    def confirm(self, token_digest: str) -> str:
        """A confirmation link's token (by digest) -> the player and the address it confirms."""
        return f"{self.base}:confirm:{token_digest}"

    def signup(self, token_digest: str) -> str:
        """A mailed sign-up link's token (by digest) -> the name and address it makes a player of,
        and the seat it keeps for them."""
        return f"{self.base}:signup:{token_digest}"

    def held_seat(self, token_digest: str) -> str:
        """A mailed sign-in link's token (by digest) -> the seat the player asked from (its game
        and the digest of its token), claimed for them as the link signs them in."""
        return f"{self.base}:held-seat:{token_digest}"

    def named(self, name: str) -> str:
        """The ids of the players with this name (by name_key: a name may be any player's),
        for inviting a player to a game by their name."""
        return f"{self.base}:named:{name_key(name)}"


# One seat per player per game, one player per seat: checked and written in one script, so two
# claims at once cannot both win.
_CLAIM = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held then
  if held == ARGV[2] then return 'same' end
  return 'claimed'
end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if all[i + 1] == ARGV[2] then return 'seated:' .. all[i] end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
if ARGV[5] ~= '0' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[5]) end
return 'ok'
"""


@dataclass(frozen=True, slots=True)
class HeldSeat:
    """A seat kept for a player through a mailed link: the game and its token's digest (never
    the token itself)."""

    game: str
    token_digest: str


@dataclass(frozen=True, slots=True)
class SignUp:
    """What a sign-up link makes: a player of this name and (confirmed by the link) address."""

    name: str
    email: str
    seat: HeldSeat | None


@dataclass(frozen=True, slots=True)
class Claim:
    """What a claim came to: `ok` (claimed now or before by this player), else why not."""

    ok: bool
    code: str  # "claimed", "same", "seat_claimed" (another player's), "already_seated"
    seat: int  # the seat asked for, or (already_seated) the one the player holds


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _signup(raw: bytes | str) -> SignUp:
    d = orjson.loads(raw)
    seat = HeldSeat(str(d["game"]), str(d["seat_token"])) if "game" in d else None
    return SignUp(str(d["name"]), str(d["email"]), seat)


def _session(record: dict[bytes, bytes]) -> Session:
    return Session(_text(record[b"id"]), _text(record[b"player"]), float(record[b"created"]),
                   float(record[b"last_seen"]), _text(record.get(b"ua", b"")))


class PlayerStore:
    """Players, keys and sessions on the API's async client; takes its client, never makes one."""

    def __init__(self, aio: aioredis.Redis, namespace: str, clock: Callable[[], float] = time.time) -> None:
        self.aio = aio
        self.keys = PlayerKeys(namespace)
        self.clock = clock

    async def _run(self, call: Callable[[], Awaitable[T]]) -> T:
        with reaching_redis():
            return await call()

    async def create(self, name: str, email: str | None, confirmed: bool = False) -> tuple[Player, str]:
        """A new player and their key (the only time the key exists outside its holder).
        `confirmed`: the address is proven theirs already (a sign-up link mailed to it was
        opened), so it counts at once, and takes the sign-in mail unless a player holds it."""
        player = Player(secrets.token_hex(8), name, email, self.clock())
        key = new_secret()
        # The key's digest in the record too: only the current key signs in (rotate_key).
        record = {"name": name, "created": repr(player.created), "key": digest(key)}
        if email is not None:
            record["email"] = email

        # Otherwise the address counts (sign-in mail, notices) once its confirmation link is used.
        async def write() -> None:
            pipe = self.aio.pipeline(transaction=True)
            pipe.hset(self.keys.player(player.id), mapping=record)  # type: ignore[arg-type]
            pipe.set(self.keys.key(digest(key)), player.id)
            pipe.sadd(self.keys.named(name), player.id)
            if email is not None and confirmed:
                pipe.sadd(self.keys.confirmed(player.id), digest(email.casefold()))
                pipe.set(self.keys.email(email), player.id, nx=True)
            await pipe.execute()

        await self._run(write)
        return player, key

    async def hold_signup(self, signup: SignUp) -> str:
        """The token of a sign-up link (valid SIGNUP_SECONDS, once; stored by digest)."""
        token = new_secret()
        record = {"name": signup.name, "email": signup.email}
        if signup.seat is not None:
            record |= {"game": signup.seat.game, "seat_token": signup.seat.token_digest}
        await self._run(lambda: self.aio.set(self.keys.signup(digest(token)), orjson.dumps(record), ex=SIGNUP_SECONDS))
        return token

    async def take_signup(self, token: str) -> SignUp | None:
        """What a sign-up link makes, once (it is deleted as it is read); None: used, expired or wrong."""
        raw = await self._run(lambda: self.aio.getdel(self.keys.signup(digest(token))))
        return None if raw is None else _signup(raw)

    async def hold_seat(self, link_token: str, seat: HeldSeat) -> None:
        """Keep `seat` for whoever opens the mailed sign-in link of `link_token`."""
        value = orjson.dumps({"game": seat.game, "seat_token": seat.token_digest})
        await self._run(lambda: self.aio.set(self.keys.held_seat(digest(link_token)), value, ex=SIGNUP_SECONDS))

    async def peek_signup(self, token: str) -> SignUp | None:
        """What a sign-up link would make, leaving it usable (the page asks before it is used)."""
        raw = await self._run(lambda: self.aio.get(self.keys.signup(digest(token))))
        return None if raw is None else _signup(raw)

    async def peek_seat(self, link_token: str) -> HeldSeat | None:
        """The seat a mailed sign-in link would keep, leaving it kept."""
        raw = await self._run(lambda: self.aio.get(self.keys.held_seat(digest(link_token))))
        if raw is None:
            return None
        d = orjson.loads(raw)
        return HeldSeat(str(d["game"]), str(d["seat_token"]))

    async def take_seat(self, link_token: str) -> HeldSeat | None:
        raw = await self._run(lambda: self.aio.getdel(self.keys.held_seat(digest(link_token))))
        if raw is None:
            return None
        d = orjson.loads(raw)
        return HeldSeat(str(d["game"]), str(d["seat_token"]))

    async def player(self, pid: str) -> Player | None:
        record: dict[bytes, bytes] = await self._run(lambda: self.aio.hgetall(self.keys.player(pid)))  # type: ignore[arg-type, return-value]
        if not record:
            return None
        email, pending = record.get(b"email"), record.get(b"email_pending")
        return Player(pid, _text(record[b"name"]), None if email is None else _text(email), float(record[b"created"]),
                      None if pending is None else _text(pending))

    async def address_confirmed(self, pid: str, address: str) -> bool:
        """Whether `pid` confirmed `address` (or holds it as their own from before addresses
        were confirmed)."""

        async def read() -> list[Any]:
            pipe = self.aio.pipeline(transaction=False)
            pipe.sismember(self.keys.confirmed(pid), digest(address.casefold()))
            pipe.get(self.keys.email(address))
            got: list[Any] = await pipe.execute()
            return got

        member, holder = await self._run(read)
        return bool(member) or (holder is not None and _text(holder) == pid)

    async def email_confirmed(self, player: Player) -> bool:
        """Whether the player's own address is confirmed (no address: False)."""
        return player.email is not None and await self.address_confirmed(player.id, player.email)

    async def change_email(self, pid: str, address: str) -> bool:
        """Make `address` the player's own; whether it took effect now. It does when the player
        confirmed it before, or when their present address is not confirmed (nothing to lose):
        the sign-in mail then follows the new address only once it is confirmed. Otherwise the
        confirmed address holds, and the new one waits as `email_pending` for its link (the
        confirmation moves the sign-in mail over). One transaction against a concurrent change
        or confirmation."""
        keys, folded = self.keys, address.casefold()
        player, confirmed = keys.player(pid), keys.confirmed(pid)

        async def write() -> bool:
            async with self.aio.pipeline(transaction=True) as pipe:
                while True:
                    try:
                        await pipe.watch(player, confirmed)
                        raw = await pipe.hget(player, "email")
                        current = None if raw is None else _text(raw)
                        held = current is not None and await self._holds(pipe, pid, current)
                        same = current is not None and current.casefold() == folded
                        known = (same and held) or await self._known(pipe, pid, address)
                        pipe.multi()
                        if held and not known:
                            pipe.hset(player, "email_pending", address)
                        else:
                            pipe.hset(player, "email", address)
                            pipe.hdel(player, "email_pending")
                            if current is not None and held and not same:
                                pipe.delete(keys.email(current))
                            if known:
                                pipe.set(keys.email(address), pid)
                        await pipe.execute()
                        return not held or known
                    except WatchError:
                        continue

        return await self._run(write)

    async def remove_email(self, pid: str) -> bool:
        """The player has no address from now on (nor a pending one), and the sign-in mail of
        the one they had no longer reaches them; whether they had one."""
        player = self.keys.player(pid)

        async def write() -> bool:
            async with self.aio.pipeline(transaction=True) as pipe:
                while True:
                    try:
                        await pipe.watch(player)
                        raw = await pipe.hget(player, "email")
                        pending = await pipe.hget(player, "email_pending")
                        current = None if raw is None else _text(raw)
                        holds = current is not None and await self._holds(pipe, pid, current)
                        pipe.multi()
                        pipe.hdel(player, "email", "email_pending")
                        if holds:
                            assert current is not None
                            pipe.delete(self.keys.email(current))
                        await pipe.execute()
                        return current is not None or pending is not None
                    except WatchError:
                        continue

        return await self._run(write)

    async def known_address(self, pid: str, address: str) -> bool:
        """Whether `address` would be the player's own at once, with no link to mail: they
        confirmed it before (an email target's, say) and no other player took its sign-in
        mail since."""

        return await self._run(lambda: self._known(self.aio, pid, address))

    async def _known(self, reader: Any, pid: str, address: str) -> bool:
        """`reader`: the client, or a pipeline inside a WATCH (the address's key is watched too)."""
        key = self.keys.email(address)
        if reader is not self.aio:
            await reader.watch(key)
        if not await reader.sismember(self.keys.confirmed(pid), digest(address.casefold())):
            return False
        holder = await reader.get(key)
        return holder is None or _text(holder) == pid

    async def _holds(self, pipe: Any, pid: str, address: str) -> bool:
        """Inside a WATCH: whether `pid` holds `address`'s sign-in mail (watched from here on)."""
        key = self.keys.email(address)
        await pipe.watch(key)
        holder = await pipe.get(key)
        return holder is not None and _text(holder) == pid

    async def named(self, name: str) -> list[str]:
        """The ids of the players whose name matches `name` (by name_key), oldest id order."""
        ids = await self._run(lambda: self.aio.smembers(self.keys.named(name)))
        return sorted(_text(i) for i in ids)

    async def by_key(self, key: str) -> Player | None:
        """The player whose current key this is (looked up by its digest); None for no one, and
        for a key rotated away. A player made before keys rotated has no digest in their record:
        their one key is current until they rotate it."""
        d = digest(key)
        pid = await self._run(lambda: self.aio.get(self.keys.key(d)))
        if pid is None:
            return None
        current = await self._run(lambda: self.aio.hget(self.keys.player(_text(pid)), "key"))
        if current is not None and _text(current) != d:
            return None
        return await self.player(_text(pid))

    async def rotate_key(self, pid: str) -> str:
        """A new key for `pid`, the only one that signs them in from now on (the old one stops at
        once, in the same transaction); the new key itself, never stored."""
        return (await self._retire(pid, sessions=False))[1]

    async def sign_out_everywhere(self, pid: str) -> tuple[int, str]:
        """Ends every session of `pid` and retires their key for a new one, in one transaction:
        how many sessions there were, and the new key."""
        return await self._retire(pid, sessions=True)

    async def _retire(self, pid: str, *, sessions: bool) -> tuple[int, str]:
        key, player, index = new_secret(), self.keys.player(pid), self.keys.sessions(pid)
        d = digest(key)

        async def write() -> int:
            async with self.aio.pipeline(transaction=True) as pipe:
                while True:
                    try:
                        await pipe.watch(player, index)
                        old = await pipe.hget(player, "key")
                        live: dict[Any, Any] = await pipe.hgetall(index) if sessions else {}
                        pipe.multi()
                        if old is not None:
                            pipe.delete(self.keys.key(_text(old)))
                        # Without the old digest (a player from before), the record's new one
                        # is what refuses the old key in by_key.
                        pipe.set(self.keys.key(d), pid)
                        pipe.hset(player, "key", d)
                        for session in live.values():
                            pipe.delete(self.keys.session(_text(session)))
                        if live:
                            pipe.hdel(index, *live.keys())
                        await pipe.execute()
                        return len(live)
                    except WatchError:
                        continue

        return await self._run(write), key

    async def open_session(self, pid: str, user_agent: str) -> tuple[Session, str]:
        """A new session of `pid` and its secret (the cookie's value)."""
        secret, now = new_secret(), self.clock()
        session = Session(secrets.token_urlsafe(9), pid, now, now, user_agent[:USER_AGENT_CHARS])
        d = digest(secret)

        async def write() -> None:
            pipe = self.aio.pipeline(transaction=True)
            pipe.hset(self.keys.session(d), mapping={
                "id": session.id, "player": pid, "created": repr(now), "last_seen": repr(now), "ua": session.user_agent,
            })
            pipe.expire(self.keys.session(d), SESSION_SECONDS)
            pipe.hset(self.keys.sessions(pid), session.id, d)
            await pipe.execute()

        await self._run(write)
        return session, secret

    async def session(self, secret: str) -> Session | None:
        """The live session this secret opens (its "last seen" now); None when it is revoked or
        was never one."""
        d = digest(secret)
        record: dict[bytes, bytes] = await self._run(lambda: self.aio.hgetall(self.keys.session(d)))  # type: ignore[arg-type, return-value]
        if b"id" not in record:  # none, or a revoked one's "last seen" written as it went
            return None
        found = _session(record)
        now = self.clock()
        if now - found.last_seen < TOUCH_SECONDS:
            return found

        async def touch() -> None:
            # Only if it still exists: a revocation between the read and this write stays one.
            pipe = self.aio.pipeline(transaction=True)
            pipe.hexists(self.keys.session(d), "id")
            pipe.hset(self.keys.session(d), "last_seen", repr(now))
            pipe.expire(self.keys.session(d), SESSION_SECONDS)
            alive, _, _ = await pipe.execute()
            if not alive:
                await self.aio.delete(self.keys.session(d))

        await self._run(touch)
        return Session(found.id, found.player, found.created, now, found.user_agent)

    async def sessions(self, pid: str) -> list[Session]:
        """The player's live sessions, the most recently seen first."""
        index: dict[bytes, bytes] = await self._run(lambda: self.aio.hgetall(self.keys.sessions(pid)))  # type: ignore[arg-type, return-value]
        if not index:
            return []

        async def read() -> list[Any]:
            pipe = self.aio.pipeline(transaction=False)
            for d in index.values():
                pipe.hgetall(self.keys.session(_text(d)))
            return await pipe.execute()

        records = await self._run(read)
        ended = [sid for sid, r in zip(index, records, strict=True) if b"id" not in r]
        if ended:  # expired on their own: out of the list too
            await self._run(lambda: self.aio.hdel(self.keys.sessions(pid), *ended))
        found = [_session(r) for r in records if b"id" in r]
        return sorted(found, key=lambda s: s.last_seen, reverse=True)

    async def revoke(self, pid: str, session_id: str) -> bool:
        """Ends one of the player's sessions; False when the player has no session by that id."""
        d = await self._run(lambda: self.aio.hget(self.keys.sessions(pid), session_id))
        if d is None:
            return False

        async def write() -> None:
            pipe = self.aio.pipeline(transaction=True)
            pipe.delete(self.keys.session(_text(d)))
            pipe.hdel(self.keys.sessions(pid), session_id)
            await pipe.execute()

        await self._run(write)
        return True

    async def revoke_all(self, pid: str) -> int:
        """Ends every session of the player; how many there were."""
        index: dict[bytes, bytes] = await self._run(lambda: self.aio.hgetall(self.keys.sessions(pid)))  # type: ignore[arg-type, return-value]
        if not index:
            return 0

        async def write() -> None:
            pipe = self.aio.pipeline(transaction=True)
            for d in index.values():
                pipe.delete(self.keys.session(_text(d)))
            pipe.hdel(self.keys.sessions(pid), *index.keys())
            await pipe.execute()

        await self._run(write)
        return len(index)

    async def claim(self, gid: str, seat: int, pid: str, at_seq: int = 0) -> Claim:
        """Gives `seat` of `gid` to `pid`, once; a seat is one player's, a player holds one seat
        of a game. `at_seq`: the game's seq as the claimant saw it (0: claimed before its
        first event), so that the notifier tells them only of the steps after it."""
        got = _text(await self._run(lambda: self.aio.eval(
            _CLAIM, 3, self.keys.claims(gid), self.keys.games(pid), self.keys.claimed_at(gid),
            str(seat), pid, repr(self.clock()), gid, str(at_seq))))
        if got == "ok":
            return Claim(True, "claimed", seat)
        if got == "same":
            return Claim(True, "same", seat)
        if got == "claimed":
            return Claim(False, "seat_claimed", seat)
        return Claim(False, "already_seated", int(got.split(":", 1)[1]))

    async def name_referee(self, gid: str, pid: str) -> None:
        """Lists `gid` among the games `pid` referees (again: the same entry)."""
        await self._run(lambda: self.aio.zadd(self.keys.refereed(pid), {gid: self.clock()}, nx=True))

    async def refereed(self, pid: str) -> list[str]:
        """The ids of the games that name `pid` as their referee, the first named first."""
        return [_text(g) for g in await self._run(lambda: self.aio.zrange(self.keys.refereed(pid), 0, -1))]

    async def seat_of(self, gid: str, pid: str) -> int | None:
        """The seat `pid` holds in `gid`; None for none."""
        claims: dict[bytes, bytes] = await self._run(lambda: self.aio.hgetall(self.keys.claims(gid)))  # type: ignore[arg-type, return-value]
        for seat, holder in claims.items():
            if _text(holder) == pid:
                return int(seat)
        return None

    async def seats(self, pid: str) -> dict[str, int]:
        """Game id -> the seat `pid` holds there, for every game they hold a seat of."""
        gids = [_text(g) for g in await self._run(lambda: self.aio.zrange(self.keys.games(pid), 0, -1))]
        if not gids:
            return {}

        async def read() -> list[Any]:
            pipe = self.aio.pipeline(transaction=False)
            for gid in gids:
                pipe.hgetall(self.keys.claims(gid))
            return await pipe.execute()

        out = {}
        for gid, claims in zip(gids, await self._run(read), strict=True):
            for seat, holder in claims.items():
                if _text(holder) == pid:
                    out[gid] = int(seat)
        return out
