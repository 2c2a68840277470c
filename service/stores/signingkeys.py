"""The service's signing keys: made at first start in the data directory, or given by setting.

In the data directory, `signing/` (0700) holds the current private key as `<id>.key` (PKCS#8
PEM, 0600), every key's public half as `<id>.pub` (kept after rotation, so old records and
receipts still verify) and `current`, the id in use. `BOARDLOG_SIGNING_KEY` (a PEM text, or the
path of a PEM file) overrides the directory, with `BOARDLOG_SIGNING_OLD_KEYS` listing retired
public keys (hex, comma-separated). Every process that signs (API, workers) reads the same
key: on one machine the data directory, across machines the setting.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from events.records.signing import ALGORITHM, Signer, key_id, public_key
from service.runtime.settings import Settings

log = structlog.get_logger("boardlog.keys")


@dataclass(frozen=True)
class PublicKey:
    id: str
    public: bytes
    created: str | None
    current: bool

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "algorithm": ALGORITHM, "public_key": self.public.hex(), "created": self.created,
                "current": self.current}


@dataclass(frozen=True)
class KeyRing:
    signer: Signer
    keys: tuple[PublicKey, ...]  # the current one first, then the retired ones, newest first

    def trusted(self) -> dict[str, bytes]:
        return {k.id: k.public for k in self.keys}


class SigningKeyError(ValueError):
    """A signing key setting or file that cannot be read; the message says which and why."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pem_key(pem: bytes, where: str) -> Ed25519PrivateKey:
    try:
        key = load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as e:
        raise SigningKeyError(f"{where} is not an unencrypted PEM private key: {e}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{where} holds a {type(key).__name__}, not an Ed25519 key")
    return key


def pem_of(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())


def _write_new(path: Path, data: bytes, mode: int) -> bool:
    """Write `path` only if it does not exist, whole or not at all (a temp file linked into
    place): two processes starting at once make one key, not two. False when it existed."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        return True
    finally:
        tmp.unlink(missing_ok=True)


def _replace(path: Path, data: bytes, mode: int) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def key_dir(settings: Settings) -> Path:
    return Path(settings.data_dir) / "signing"


def _pub_line(key: Ed25519PrivateKey, created: str) -> bytes:
    return f"{Signer.of(key).public.hex()} {created}\n".encode()


def _make(d: Path) -> Signer:
    key = Ed25519PrivateKey.generate()
    signer = Signer.of(key)
    _write_new(d / f"{signer.id}.key", pem_of(key), 0o600)
    _write_new(d / f"{signer.id}.pub", _pub_line(key, _now()), 0o644)
    return signer


def _from_dir(d: Path, create: bool = True) -> KeyRing:
    current = d / "current"
    if not create and not current.exists():
        raise SigningKeyError(f"no signing key in {d} (set BOARDLOG_DATA to the service's data directory, "
                              "or BOARDLOG_SIGNING_KEY)")
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not current.exists():
        signer = _make(d)
        if _write_new(current, signer.id.encode() + b"\n", 0o644):
            log.info("keys.created", key=signer.id, dir=str(d))
        else:  # another process made the first key at the same moment: use theirs
            (d / f"{signer.id}.key").unlink(missing_ok=True)
            (d / f"{signer.id}.pub").unlink(missing_ok=True)
    kid = current.read_text().strip()
    path = d / f"{kid}.key"
    try:
        pem = path.read_bytes()
    except OSError as e:
        raise SigningKeyError(f"the current signing key {path} cannot be read: {e.strerror}") from None
    signer = Signer.of(_pem_key(pem, str(path)))
    if signer.id != kid:
        raise SigningKeyError(f"{path} holds key {signer.id}, not {kid}")
    keys = [PublicKey(signer.id, signer.public, _created(d / f"{kid}.pub"), True)]
    # A process starting at the same moment may remove the key it made in vain between the
    # listing and the stat: a file gone by then is not listed.
    for pub in sorted((p for p in d.glob("*.pub") if p.exists()), key=_mtime, reverse=True):
        if pub.stem == kid:
            continue
        with contextlib.suppress(ValueError, OSError, IndexError):
            hexkey, *rest = pub.read_text().split()
            raw = public_key(hexkey)
            keys.append(PublicKey(key_id(raw), raw, rest[0] if rest else None, False))
    return KeyRing(signer, tuple(keys))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0  # gone since it was listed: read below, it is skipped as unreadable


def _created(pub: Path) -> str | None:
    try:
        parts = pub.read_text().split()
    except OSError:
        return None
    return parts[1] if len(parts) > 1 else None


def _from_setting(settings: Settings) -> KeyRing:
    text = settings.signing_key.strip()
    if text.startswith("-----BEGIN"):
        key = _pem_key(text.encode(), "BOARDLOG_SIGNING_KEY")
    else:
        try:
            pem = Path(text).read_bytes()
        except OSError as e:
            raise SigningKeyError(f"BOARDLOG_SIGNING_KEY is neither a PEM key nor a readable file ({e.strerror})") from None
        key = _pem_key(pem, f"BOARDLOG_SIGNING_KEY's file {text}")
    signer = Signer.of(key)
    keys = [PublicKey(signer.id, signer.public, None, True)]
    for item in settings.signing_old_keys.split(","):
        if not item.strip():
            continue
        try:
            raw = public_key(item)
        except ValueError as e:
            raise SigningKeyError(f"BOARDLOG_SIGNING_OLD_KEYS holds {item.strip()[:16]}…, not a public key: {e}") from None
        if key_id(raw) != signer.id:
            keys.append(PublicKey(key_id(raw), raw, None, False))
    return KeyRing(signer, tuple(keys))


def load_keys(settings: Settings, create: bool = True) -> KeyRing:
    """The key ring this process signs with (made on first use in the data directory, unless
    `create` is False: a command line tool run elsewhere must not sign with a key of its own)."""
    ring = _from_setting(settings) if settings.signing_key.strip() else _from_dir(key_dir(settings), create)
    log.info("keys.loaded", key=ring.signer.id, keys=len(ring.keys))
    return ring


def rotate(settings: Settings) -> tuple[str, str]:
    """A new current key in the data directory; the old private key is deleted, its public
    half stays listed. Answers (old id, new id)."""
    if settings.signing_key.strip():
        raise SigningKeyError("the key is given by BOARDLOG_SIGNING_KEY: rotate it there (and list the old "
                        "public key in BOARDLOG_SIGNING_OLD_KEYS)")
    d = key_dir(settings)
    old = _from_dir(d, create=False).signer.id
    new = _make(d)
    _replace(d / "current", new.id.encode() + b"\n", 0o644)
    (d / f"{old}.key").unlink(missing_ok=True)
    log.info("keys.rotated", old=old, new=new.id)
    return old, new.id


class LiveKeys:
    """The key ring of a running process, read again when `boardlog keys rotate` changes the data
    directory's `current` (looked at no more than every `every` seconds), so the API lists and
    the workers sign with the new key without a restart. A key given by setting never changes."""

    def __init__(self, settings: Settings, every: float = 5.0) -> None:
        self._settings, self._every = settings, every
        self._ring = load_keys(settings)
        self._stamp = self._mtime()
        self._next = time.monotonic() + every

    def _mtime(self) -> int | None:
        if self._settings.signing_key.strip():
            return None
        try:
            return (key_dir(self._settings) / "current").stat().st_mtime_ns
        except OSError:
            return None

    def get(self) -> KeyRing:
        now = time.monotonic()
        if now >= self._next and not self._settings.signing_key.strip():
            self._next = now + self._every
            stamp = self._mtime()
            if stamp != self._stamp:
                try:
                    self._ring = load_keys(self._settings, create=False)
                    self._stamp = stamp
                except SigningKeyError:
                    log.exception("keys.reload_failed")  # keep signing with the key it has
        return self._ring

    @property
    def signer(self) -> Signer:
        return self.get().signer

    @property
    def keys(self) -> tuple[PublicKey, ...]:
        return self.get().keys

    def trusted(self) -> dict[str, bytes]:
        return self.get().trusted()

    def receipt(self, game: str, seq: int, head: str, at: str) -> dict[str, Any]:
        return self.get().signer.receipt(game, seq, head, at)
