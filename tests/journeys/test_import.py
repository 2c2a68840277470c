"""Journey: a finished game's record moves to another deployment and keeps its origin (issue #37,
"Import").

A Rite game with a die roll is played to its end on the first deployment and exported. The
operator of a second deployment (its own data directory, signing key and namespace) imports it
with the first's published key. The record it then serves still carries the first's trailer and
signature, with the second's countersignature beside it: audited offline with the first's key
alone it is verified, and the audit, offline and over HTTP, names both keys."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from tests.conftest import wait_for
from tests.integration.helpers import bearer
from tests.journeys.acts import Game, accepted, roll_by
from tests.journeys.conftest import Deployment

pytestmark = pytest.mark.integration


def test_an_imported_record_keeps_its_origins_signature_and_names_both_keys(
        service: Deployment, deployment: Callable[[], Deployment], tmp_path: Path) -> None:
    other = deployment()  # started first: its processes come up while the game is played
    with service.client() as c:
        r = c.post("/v1/games", json={"game": "rite", "seats": ["ann", "bob"]})
        assert r.status_code == 201, r.text
        made = r.json()
        game = Game(made["id"], [s["token"] for s in made["seats"]], made["admin_token"], {"ann": 0, "bob": 1})
        wait_for(lambda: c.get(f"/v1/games/{game.id}").json().get("prompt"), timeout=15)
        roll_by(c, game, "ann")
        accepted(c.post(f"/v1/games/{game.id}/abort?wait=1", headers=bearer(game.admin)))
        exported = c.get(f"/v1/games/{game.id}/export")
        assert exported.status_code == 200, exported.text
        origin_keys = c.get("/v1/keys").json()
    record, keys = tmp_path / "game.jsonl", tmp_path / "origin-keys.json"
    record.write_bytes(exported.content)
    keys.write_text(json.dumps(origin_keys))
    origin_trailer = exported.content.rstrip(b"\n").split(b"\n")[-1]

    # The second deployment's operator imports it, trusting the first's published key.
    ran = other.cli("import", str(record), "--key", str(keys))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    with other.client() as c:
        own_keys = c.get("/v1/keys").json()
        assert own_keys["current"] != origin_keys["current"]  # a key of its own
        again = c.get(f"/v1/games/{game.id}/export")
        assert again.status_code == 200, again.text
        audit = c.get(f"/v1/games/{game.id}/audit")
        assert audit.status_code == 200, audit.text
    # The origin's trailer, byte for byte, is still in the record it serves.
    assert origin_trailer in again.content.split(b"\n"), again.text[-2000:]
    said = orjson.dumps(audit.json()).decode()
    assert origin_keys["current"] in said and own_keys["current"] in said, said

    # Offline, with the origin's key alone: verified, signed by it, countersigned by the importer.
    moved = tmp_path / "imported.jsonl"
    moved.write_bytes(again.content)
    checked = other.cli("audit", str(moved), "--key", str(keys))
    text = checked.stdout + checked.stderr
    assert checked.returncode == 0 and "verified" in text, text
    assert origin_keys["current"] in text and own_keys["current"] in text, text
    assert "imported and countersigned by" in text, text
