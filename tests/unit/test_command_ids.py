"""The platform's command ids (events.store.commandids): derived with the deployment's secret,
in a namespace no client id can enter, and a client's id kept under its principal."""

from __future__ import annotations

import re

from events.store.commandids import client_key, platform_id, reserved, shown_id


def test_a_platform_id_is_in_the_reserved_namespace_and_depends_on_the_secret() -> None:
    one, other = b"\x01" * 32, b"\x02" * 32
    made = platform_id(one, "p03-abc", "timeout-7-1")
    assert re.fullmatch(r"bl-timeout-7-1-[0-9a-f]{20}", made)
    assert reserved(made) and made == platform_id(one, "p03-abc", "timeout-7-1")  # every process agrees
    assert made != platform_id(other, "p03-abc", "timeout-7-1")  # unknown without the secret
    assert made != platform_id(one, "p03-abd", "timeout-7-1")  # and another game's differs
    assert made != platform_id(one, "p03-abc", "timeout-7-2")


def test_reserved_ids_are_the_bl_prefix_in_any_case() -> None:
    assert reserved("bl-x") and reserved("BL-x") and reserved("Bl-")
    assert not reserved("blue") and not reserved("b-l") and not reserved("timeout-3-1")


def test_a_client_key_names_its_principal_and_shows_the_id_sent() -> None:
    keys = {client_key(role, "abc") for role in ("seat:0", "seat:1", "admin", "referee")}
    assert len(keys) == 4 and all(shown_id(k) == "abc" for k in keys)
    assert shown_id("abc") == "abc" and shown_id("bl-join-0-00ff") == "bl-join-0-00ff"
    # no client id (letters, digits, '-', '_') can equal another principal's key
    assert all(not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", k) for k in keys)
