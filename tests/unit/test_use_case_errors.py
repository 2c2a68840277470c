"""The use cases' refusals meet HTTP in one place (service/api/errors.py): every kind has its
status, and the answer is the standard error object."""

from __future__ import annotations

from typing import get_args

import orjson

from service.api.errors import USE_CASE_STATUS, answer
from service.usecases.errors import Kind, UseCaseError


def test_every_kind_has_a_status() -> None:
    assert set(USE_CASE_STATUS) == set(get_args(Kind))
    assert USE_CASE_STATUS == {"bad_input": 422, "forbidden": 403, "not_found": 404, "conflict": 409}


def test_a_refusal_is_answered_with_its_code_and_message() -> None:
    got = answer(UseCaseError("conflict", "table_full", "every seat of this table is taken"), "/v1/tables/x/join")
    assert got.status_code == 409
    assert orjson.loads(bytes(got.body)) == {"error": {"code": "table_full",
                                                      "message": "every seat of this table is taken"}}
