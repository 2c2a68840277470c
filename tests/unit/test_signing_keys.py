"""The service's signing keys: made once in the data directory (private, 0600), given by
setting, rotated with the old public keys kept listed; bad settings say why."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.records.signing import RECEIPT, TRAILER, valid
from service.runtime.settings import Settings
from service.stores.signingkeys import LiveKeys, SigningKeyError, load_keys, pem_of, rotate


def settings(tmp: Path, **kw: str) -> Settings:
    return Settings(data_dir=str(tmp), **kw)  # type: ignore[arg-type]


def test_made_at_first_start_private_and_the_same_afterwards(tmp_path: Path) -> None:
    first = load_keys(settings(tmp_path))
    d = tmp_path / "signing"
    assert d.stat().st_mode & 0o777 == 0o700
    key = d / f"{first.signer.id}.key"
    assert key.stat().st_mode & 0o777 == 0o600
    again = load_keys(settings(tmp_path))
    assert again.signer.id == first.signer.id and again.signer.public == first.signer.public
    assert [k.id for k in again.keys] == [first.signer.id] and again.keys[0].current


def test_processes_starting_together_make_one_key(tmp_path: Path) -> None:
    ids: list[str] = []
    threads = [threading.Thread(target=lambda: ids.append(load_keys(settings(tmp_path)).signer.id))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 1
    assert len(list((tmp_path / "signing").glob("*.key"))) == 1


def test_a_tool_run_elsewhere_does_not_make_a_key(tmp_path: Path) -> None:
    with pytest.raises(SigningKeyError, match="no signing key"):
        load_keys(settings(tmp_path), create=False)
    assert not (tmp_path / "signing").exists()


def test_rotation_keeps_the_old_public_key_listed(tmp_path: Path) -> None:
    old = load_keys(settings(tmp_path))
    trailer = old.signer.trailer("p01-abcdef012345", 3, "ab" * 32, "over", None)
    was, now = rotate(settings(tmp_path))
    assert was == old.signer.id and now != was
    ring = load_keys(settings(tmp_path))
    assert ring.signer.id == now and [k.id for k in ring.keys] == [now, was]
    assert [k.current for k in ring.keys] == [True, False]
    assert not (tmp_path / "signing" / f"{was}.key").exists()  # the retired private key is gone
    # what the old key signed still verifies against its listed public half
    assert valid(TRAILER, trailer, ring.trusted()[was])


def test_a_key_given_by_setting(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    retired = Ed25519PrivateKey.generate().public_key().public_bytes_raw().hex()
    ring = load_keys(settings(tmp_path, signing_key=pem_of(key).decode(), signing_old_keys=retired))
    assert ring.signer.public == key.public_key().public_bytes_raw()
    assert [k.public.hex() for k in ring.keys][1:] == [retired]
    pem = tmp_path / "k.pem"
    pem.write_bytes(pem_of(key))
    assert load_keys(settings(tmp_path, signing_key=str(pem))).signer.id == ring.signer.id
    assert not (tmp_path / "signing").exists()  # nothing made in the data directory
    with pytest.raises(SigningKeyError, match="rotate it there"):
        rotate(settings(tmp_path, signing_key=str(pem)))


@pytest.mark.parametrize(("value", "old", "message"), [
    ("/nowhere/key.pem", "", "neither a PEM key nor a readable file"),
    ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "", "not an unencrypted PEM"),
    ("", "zz", "not a public key"),
])
def test_bad_key_settings_say_why(tmp_path: Path, value: str, old: str, message: str) -> None:
    given = value or pem_of(Ed25519PrivateKey.generate()).decode()
    with pytest.raises(SigningKeyError, match=message):
        load_keys(settings(tmp_path, signing_key=given, signing_old_keys=old))


def test_a_key_given_by_setting_is_not_in_the_settings_repr() -> None:
    pem = pem_of(Ed25519PrivateKey.generate()).decode()
    assert pem.splitlines()[1] not in repr(Settings(signing_key=pem))


def test_a_running_process_follows_a_rotation(tmp_path: Path) -> None:
    live = LiveKeys(settings(tmp_path), every=0.0)
    before = live.signer.id
    r = live.receipt("p01-abcdef012345", 3, "ab" * 32, "2026-12-01T12:00:00.000Z")
    assert r["key"] == before
    _, new = rotate(settings(tmp_path))
    assert live.signer.id == new and [k.id for k in live.keys] == [new, before]
    assert live.receipt("p01-abcdef012345", 4, "ab" * 32, "2026-12-01T12:00:01.000Z")["key"] == new
    assert valid(RECEIPT, r, live.trusted()[before])  # what it signed before still verifies
    slow = LiveKeys(settings(tmp_path), every=3600.0)  # looks again only after `every`
    rotate(settings(tmp_path))
    assert slow.signer.id == new
