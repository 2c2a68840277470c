"""Ed25519 signatures over a record's trailer and a command's receipt: pure, no key storage.

What is signed is the canonical JSON of the object without its `sig`, after a context line
that names what it is, so a receipt's signature can never pass for a trailer's (nor either for
an importer's countersignature, events/records/origin.py). Keys are named
by an id, the first 16 hex digits of the sha256 of the raw public key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import nacl.bindings
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from events.records.codec import canonical

ALGORITHM = "Ed25519"
RECEIPT = b"boardlog/receipt/v1\n"
TRAILER = b"boardlog/trailer/v1\n"
COUNTERSIGNATURE = b"boardlog/countersignature/v1\n"


def key_id(public: bytes) -> str:
    return hashlib.sha256(public).hexdigest()[:16]


def raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _message(context: bytes, obj: Mapping[str, Any]) -> bytes:
    return context + canonical({k: v for k, v in obj.items() if k != "sig"})


class Receipts(Protocol):
    """What signs receipts: a Signer, or a key ring that follows rotations (service/stores/signingkeys.py)."""

    def receipt(self, game: str, seq: int, head: str, at: str) -> dict[str, Any]: ...


def _sodium_secret(key: Ed25519PrivateKey) -> bytes:
    """The key as libsodium's 64-byte Ed25519 secret (its seed, then its public half)."""
    seed = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return bytes(nacl.bindings.crypto_sign_seed_keypair(seed)[1])


@dataclass(frozen=True)
class Signer:
    """One private key, with its public half and id.

    Signs with libsodium (PyNaCl): an Ed25519 signature is deterministic, so it is byte for byte
    the one OpenSSL's would be (tests/unit/test_signed_records.py checks), in ~28 us rather than
    ~45 here, and the worker signs every waited command's receipt. The key stays a
    cryptography key for everything else (its PEM file, its public half)."""

    key: Ed25519PrivateKey
    public: bytes
    id: str
    secret: bytes = field(default=b"", compare=False)  # libsodium's form of `key` (_sodium_secret)

    @classmethod
    def of(cls, key: Ed25519PrivateKey) -> Signer:
        public = raw_public(key)
        return cls(key, public, key_id(public), _sodium_secret(key))

    def __repr__(self) -> str:  # never the private key, in a log or a traceback
        return f"Signer(id={self.id!r})"

    def sign(self, context: bytes, obj: Mapping[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in obj.items() if k != "sig"}
        message = _message(context, body)
        sig = nacl.bindings.crypto_sign(message, self.secret)[:64] if self.secret else self.key.sign(message)
        return {**body, "sig": sig.hex()}

    def receipt(self, game: str, seq: int, head: str, at: str) -> dict[str, Any]:
        """What a player keeps of an accepted command: the game stood at `seq` with this head hash."""
        return self.sign(RECEIPT, {"game": game, "seq": seq, "head": head, "at": at, "key": self.id})

    def trailer(self, game: str, seq: int, head: str | None, status: str | None,
                seed: str | None) -> dict[str, Any]:
        """The last line of an export. `events` repeats `seq` for readers of the unsigned trailer."""
        return self.sign(TRAILER, {"game": game, "seq": seq, "events": seq, "head": head, "status": status,
                                   "seed": seed, "key": self.id, "public_key": self.public.hex()})


def public_key(text: str) -> bytes:
    """A raw Ed25519 public key from 64 hex digits; ValueError when it is not one."""
    raw = bytes.fromhex(text.strip())
    if len(raw) != 32:
        raise ValueError(f"an Ed25519 public key is 32 bytes, this is {len(raw)}")
    Ed25519PublicKey.from_public_bytes(raw)
    return raw


def valid(context: bytes, obj: Mapping[str, Any], public: bytes) -> bool:
    """True when `obj["sig"]` is `public`'s signature of the rest of `obj`."""
    sig = obj.get("sig")
    if not isinstance(sig, str):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(bytes.fromhex(sig), _message(context, obj))
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True
