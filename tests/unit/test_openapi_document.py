"""The OpenAPI document describes every operation (service/api/schemas.py): its bodies, every
status with its body, its credentials; and the error object lists docs/errors.md's codes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from service.api.schemas import ERROR_CODES
from service.runtime.asgi import create_app

ROOT = Path(__file__).resolve().parents[2]
NO_BODY = {("POST", "/v1/games/{gid}/abort"), ("POST", "/v1/tables/{gid}/cancel"),
           ("POST", "/v1/me/targets/{tid}/test"), ("POST", "/unsubscribe/{token}"),
           ("POST", "/v1/me/email/confirmation"), ("POST", "/v1/me/targets/{tid}/confirmation"),
           ("POST", "/v1/games/{gid}/rematch"), ("POST", "/v1/me/key")}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return create_app().openapi()


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m.upper(), p, op) for p, ops in doc["paths"].items() for m, op in ops.items()]


def test_every_operation_declares_its_credentials_and_its_body(doc: dict[str, Any]) -> None:
    schemes = set(doc["components"]["securitySchemes"])
    assert schemes == {"seatToken", "playerKey", "session"}
    for method, path, op in _operations(doc):
        assert "security" in op, f"{method} {path}"
        assert {name for alt in op["security"] for name in alt} <= schemes
        if method in ("POST", "PUT", "PATCH") and (method, path) not in NO_BODY:
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            assert body is not None, f"{method} {path} declares no request body"


def test_every_status_has_its_body_and_errors_are_the_one_error_object(doc: dict[str, Any]) -> None:
    for method, path, op in _operations(doc):
        responses = op["responses"]
        assert any(s.startswith("2") for s in responses), f"{method} {path}"
        for status, r in responses.items():
            if status == "204":
                assert "content" not in r
                continue
            assert r.get("content"), f"{method} {path} {status} has no body"
            json_schema = r["content"].get("application/json", {}).get("schema")
            if status >= "400" and json_schema is not None:
                assert json_schema == {"$ref": "#/components/schemas/Error"}, f"{method} {path} {status}"
        # Any operation: the edge refuses over-long paths and queries and integers past 64 bits.
        assert {"414", "422"} <= set(responses), f"{method} {path}"


def test_the_game_paths_name_their_parameters(doc: dict[str, Any]) -> None:
    events = {p["name"] for p in doc["paths"]["/v1/games/{gid}/events"]["get"]["parameters"]}
    assert {"gid", "from", "to", "limit"} <= events
    wait = next(p for p in doc["paths"]["/v1/games/{gid}/commands"]["post"]["parameters"] if p["name"] == "wait")
    assert wait["schema"]["enum"] == [0, 1]
    create = doc["paths"]["/v1/games"]["post"]
    assert set(create["responses"]) >= {"201", "400", "404", "413", "422"}


def test_the_error_codes_listed_are_docs_errors_md(doc: dict[str, Any]) -> None:
    text = (ROOT / "docs" / "errors.md").read_text()
    platform = text.split("## The games' own codes")[0]
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", platform, flags=re.M))
    assert set(ERROR_CODES) == listed
    description = doc["components"]["schemas"]["ErrorBody"]["description"]
    assert all(code in description for code in ERROR_CODES)


def test_every_reference_in_the_document_names_a_schema_it_has(doc: dict[str, Any]) -> None:
    """A dangling $ref (FastAPI's HTTPValidationError, once removed, was still named by the
    webhook's 422) makes Redoc show nothing but 'Something went wrong'."""
    import json

    names = set(doc["components"]["schemas"])
    refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(doc)))
    assert refs and refs <= names, sorted(refs - names)
