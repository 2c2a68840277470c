"""Command ids: whose each one is, and the platform's own.

A command's id is its idempotency key, so it is kept per principal: the store keys a command
(its pending body, its answer, its events' `command`) by `<role>/<id>`, the role being what the
game's auth hash says of the sender (`seat:0`, `admin`, `referee`). No id of one principal can
then reach another's answer or receipt, and no seat can take an id before anyone else.

The platform's own commands (a clock's timeout, a resigned seat's answer, an abort, a join, a
hide, ...) have ids `bl-<base>-<mac>`: the mac is a keyed blake2b of the game and the base under
the deployment's secret, so nobody outside can predict one, and no client may send an id that
begins with `bl-` (refused `reserved_id`). A key made before this rule (a bare id) still reads.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

RESERVED = "bl-"  # the platform's namespace of ids; no client id may begin with it
SCOPE = "/"  # between a key's role and the client's id (no client id holds it)
SECRET_BYTES = 32
MAC_BYTES = 10  # 80 bits: not guessed by anyone posting commands


def reserved(cid: str) -> bool:
    """Whether a client's id falls in the platform's namespace."""
    return cid[: len(RESERVED)].lower() == RESERVED


def client_key(role: str, cid: str) -> str:
    """The store's key of the client id `cid` sent by `role` ("seat:N", "admin", "referee")."""
    return f"{role}{SCOPE}{cid}"


def shown_id(key: str) -> str:
    """The id as its sender wrote it: a client key's id part, any other key as it is."""
    return key.rpartition(SCOPE)[2]


def platform_id(secret: bytes, gid: str, base: str) -> str:
    """The id of the platform's own command `base` (such as `timeout-7-1`) in game `gid`."""
    mac = hashlib.blake2b(f"{gid} {base}".encode(), key=secret, digest_size=MAC_BYTES,
                          person=b"boardlog-cmdid").hexdigest()
    return f"{RESERVED}{base}-{mac}"


def secret_key(namespace: str) -> str:
    """Where the deployment keeps the secret the platform's ids are derived with."""
    return f"{namespace}:command-id-secret"


class PlatformIds:
    """The platform's command ids of one deployment. The secret is made once, by whichever
    process first needs it (SET NX), and kept in the store beside the games, so that every
    process (API, workers, deadlines, mail-in) derives the same id for the same command:
    two workers firing one deadline must submit one id. It is read once per process."""

    def __init__(self, client: Any, namespace: str) -> None:
        self.client = client
        self.namespace = namespace
        self._secret: bytes | None = None

    @property
    def ready(self) -> bool:
        return self._secret is not None

    def secret(self) -> bytes:
        if self._secret is None:
            key = secret_key(self.namespace)
            self.client.set(key, secrets.token_bytes(SECRET_BYTES), nx=True)
            raw = self.client.get(key)
            if raw is None or len(raw) < 16:
                raise RuntimeError(f"{key} holds no secret")
            self._secret = bytes(raw)
        return self._secret

    def id(self, gid: str, base: str) -> str:
        return platform_id(self.secret(), gid, base)
