"""Game ids and Redis key names; every key of a partition shares the hash tag {pNN}."""

from __future__ import annotations

import re
import secrets

DEFAULT_PARTITIONS = 64
_GID = re.compile(r"^p(\d{2,4})-([a-z0-9]{6,32})$")


def new_game_id(partitions: int = DEFAULT_PARTITIONS) -> str:
    p = secrets.randbelow(partitions)
    return f"p{p:02d}-{secrets.token_hex(6)}"


def partition_of(game_id: str) -> int:
    m = _GID.match(game_id)
    if m is None:
        raise ValueError(f"not a game id: {game_id!r}")
    return int(m.group(1))


def is_game_id(game_id: str) -> bool:
    return _GID.match(game_id) is not None


def tag(partition: int) -> str:
    return f"{{p{partition:02d}}}"


class GameKeys:
    """The keys of one game (all in its partition's slot)."""

    __slots__ = ("archive", "auth", "base", "ended", "events", "feed", "gid", "lobby", "meta", "notify", "pending",
                 "queued", "results", "rm", "secret", "snap")

    def __init__(self, game_id: str, ns: str = "bl") -> None:
        t = tag(partition_of(game_id))
        base = f"{ns}:{t}:g:{game_id}"
        self.base = base
        self.gid = game_id
        self.events = f"{base}:events"
        self.meta = f"{base}:meta"
        self.results = f"{base}:results"
        self.pending = f"{base}:pending"
        self.secret = f"{base}:secret"
        self.auth = f"{base}:auth"
        self.snap = f"{base}:snap"
        self.rm = f"{base}:rm"
        self.notify = f"{base}:notify"
        self.archive = f"{base}:archive"  # a finished game's record, once archived
        self.ended = f"{ns}:{t}:ended"
        self.feed = f"{ns}:{t}:feed"
        self.lobby = f"{ns}:{t}:lobby"
        self.queued = f"{ns}:{t}:queued"


def feed_key(partition: int, ns: str = "bl") -> str:
    return f"{ns}:{tag(partition)}:feed"


def ended_key(partition: int, ns: str = "bl") -> str:
    """The partition's finished games by when they ended (ms), for the archiver."""
    return f"{ns}:{tag(partition)}:ended"


def reply_channel(name: str, ns: str = "bl") -> str:
    """The pub/sub channel on which one API process hears the results its waiters wait for."""
    return f"{ns}:reply:{name}"


def lobby_key(partition: int, ns: str = "bl") -> str:
    return f"{ns}:{tag(partition)}:lobby"


def queued_key(partition: int, ns: str = "bl") -> str:
    """The partition's commands by when they were queued ("<gid> <cid>"), for the sweep that
    queues again a command whose message was lost."""
    return f"{ns}:{tag(partition)}:queued"


def refused_key(partition: int, ns: str = "bl") -> str:
    """The partition's refused commands ("<gid> <cid>") by when they were refused (ms), for the
    sweep that drops their answers once they have expired (events/store/sweeps.py)."""
    return f"{ns}:{tag(partition)}:refused"


def untouched_key(partition: int, ns: str = "bl") -> str:
    """The partition's games made with seats by name and not reached by a command since
    ("<gid> <opening seq>"), by when they were made (ms), for the sweep that removes them."""
    return f"{ns}:{tag(partition)}:untouched"
