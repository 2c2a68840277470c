"""Twenty `/join`s at once from one seat, each with its own entropy: one is recorded, and only
its request answers 200; the others answer 409 `already_joined` with the entropy that counts."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.conftest import Stack
from tests.integration.helpers import bearer, new_race

pytestmark = pytest.mark.integration


def test_concurrent_joins_of_one_seat_answer_one_200_and_409s_naming_the_entropy_that_counts(stack: Stack) -> None:
    with stack.client() as c:
        gid, tokens, _ = new_race(c)
        base = str(c.base_url)

    async def burst() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base, timeout=60) as ac:
            return list(await asyncio.gather(*(
                ac.post(f"/v1/games/{gid}/join", headers=bearer(tokens[1]), json={"entropy": f"dice-{i}"})
                for i in range(20))))

    answers = asyncio.run(burst())
    ok = [i for i, r in enumerate(answers) if r.status_code == 200]
    assert len(ok) == 1, [(r.status_code, r.text[:120]) for r in answers]
    refused = [r for r in answers if r.status_code != 200]
    assert {r.status_code for r in refused} == {409}
    assert {r.json()["error"]["code"] for r in refused} == {"already_joined"}
    assert {r.json()["entropy"] for r in refused} == {f"dice-{ok[0]}"}
    with stack.client() as c:
        events = c.get(f"/v1/games/{gid}/events").json()["events"]
        assert [e["data"]["entropy"] for e in events if e["type"] == "boardlog.EntropyAdded"] == [f"dice-{ok[0]}"]
        # The winner sending its request again (a retry after a timeout) gets its 200 again.
        again = c.post(f"/v1/games/{gid}/join", headers=bearer(tokens[1]), json={"entropy": f"dice-{ok[0]}"})
        assert again.status_code == 200 and again.json() == answers[ok[0]].json()
