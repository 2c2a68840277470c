"""Properties: the codec round-trips, the chain detects every edit, the store keeps every append."""

from __future__ import annotations

import fakeredis
from hypothesis import given, settings
from hypothesis import strategies as st

from events.records.chain import genesis, link, seal, verify
from events.records.codec import canonical, loads
from events.store.store import EventStore
from rules.core import Event

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
events_st = st.lists(
    st.builds(Event, st.sampled_from(["race.A", "race.B"]), st.dictionaries(st.text(max_size=6), json_values, max_size=4),
              st.none() | st.integers(0, 5)),
    min_size=1, max_size=12,
)
GID = "p03-aaaaaaaaaaaa"


@given(json_values)
def test_canonical_round_trips_and_is_stable(value: object) -> None:
    raw = canonical(value)
    assert canonical(loads(raw)) == raw


@given(st.dictionaries(st.text(max_size=5), st.integers(-(2**63), 2**64 - 1), max_size=6))
def test_canonical_ignores_key_order(d: dict[str, int]) -> None:
    assert canonical(d) == canonical(dict(reversed(list(d.items()))))


@given(events_st)
def test_a_sealed_chain_verifies(events: list[Event]) -> None:
    assert verify(seal(GID, 1, genesis(GID), events, "c", "t")) is None


@given(events_st, st.data())
def test_any_edit_deletion_or_swap_is_detected(events: list[Event], data: st.DataObject) -> None:
    envs = seal(GID, 1, genesis(GID), events, "c", "t")
    i = data.draw(st.integers(0, len(envs) - 1))
    kind = data.draw(st.sampled_from(["edit", "delete", "swap"]))
    from dataclasses import replace

    if kind == "edit":
        bad = list(envs)
        bad[i] = replace(envs[i], data={**envs[i].data, "__forged": 1})
    elif kind == "delete":
        bad = envs[:i] + envs[i + 1 :]
        if i == len(envs) - 1:
            return  # dropping the tail is caught by the export trailer, not the chain
    else:
        if len(envs) < 2:
            return
        j = (i + 1) % len(envs)
        bad = list(envs)
        bad[i], bad[j] = bad[j], bad[i]
    assert verify(bad) is not None


@given(events_st)
def test_link_depends_on_prev(events: list[Event]) -> None:
    env = seal(GID, 1, genesis(GID), events, None, "t")[0]
    assert link("00" * 32, env.body()) != env.hash


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=8), st.integers(0, 6))
def test_the_store_keeps_exactly_the_appends_that_won(batches: list[int], stale_at: int) -> None:
    store = EventStore(fakeredis.FakeRedis(), "prop", partitions=4)
    first = seal(GID, 1, genesis(GID), [Event("boardlog.GameCreated", {"game": "race"})], None, "t")
    store.create(GID, first, "active", b"\x00" * 32, {}, "t")
    expected = list(first)
    for n, k in enumerate(batches):
        head = expected[-1]
        new = seal(GID, head.seq + 1, head.hash, [Event("race.A", {"n": n, "j": j}) for j in range(k)], f"c{n}", "t")
        if n == stale_at:
            assert store.append(GID, head.seq - 1, new, f"c{n}", {"n": n}).status == "conflict"
        assert store.append(GID, head.seq, new, f"c{n}", {"n": n}).status == "ok"
        assert store.append(GID, head.seq + k, new, f"c{n}", {"n": n}).status == "dup"
        expected += new
    got = store.read(GID)
    assert got == expected and verify(got) is None
