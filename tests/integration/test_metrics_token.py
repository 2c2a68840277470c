"""`/metrics` needs a token (issue #42 item 10): a service without BOARDLOG_METRICS_TOKEN answers
nobody its counters, with or without a bearer; one with it answers that token only (that half is
tests/integration/test_notifications.py's)."""

from __future__ import annotations

import pytest

from tests.conftest import Stack
from tests.integration.helpers import bearer

pytestmark = pytest.mark.integration


def test_metrics_without_a_token_set_answer_nobody(stack: Stack) -> None:
    with stack.client() as c:
        for r in (c.get("/metrics"), c.get("/metrics", headers=bearer("x"))):
            assert r.status_code == 401, r.text
            assert r.json()["error"]["code"] == "metrics_token_required"
            assert "BOARDLOG_METRICS_TOKEN" in r.json()["error"]["message"]
            assert "boardlog_commands_total" not in r.text
