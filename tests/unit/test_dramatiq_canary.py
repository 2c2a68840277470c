"""What workers/broker.py relies on inside dramatiq, beyond its public API: a dramatiq upgrade
that changes any of it fails here, by name, before a worker meets it.

workers/broker.py subclasses the Redis broker's private consumer (`_RedisConsumer`), sends the
broker's `dispatch.lua` raw with the arguments dramatiq's own `_dispatch` gives it, and reads
a few private attributes. When a check here fails: read dramatiq's brokers/redis.py (and
dispatch.lua) of the new version, adapt WakeConsumer and WakingRedisBroker, then update this
test, DISPATCH_LUA_SHA256 and dramatiq's pin in pyproject.toml.
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path
from typing import Any

import dramatiq
import pytest
from dramatiq.broker import MessageProxy
from dramatiq.brokers import redis as dramatiq_redis
from dramatiq.middleware import Retries

from workers import broker as ours

UPGRADE = (f"dramatiq {dramatiq.__version__} changed what workers/broker.py relies on; "
           "see this module's docstring. ")


@pytest.fixture
def broker() -> Any:
    # No connection is made until a command is sent.
    b = ours.make_broker("redis://127.0.0.1:1/0", namespace="canary")
    yield b
    b.close()


def test_dispatch_lua_is_the_script_the_broker_was_written_against() -> None:
    path = Path(dramatiq.__file__).parent / "brokers" / "redis" / "dispatch.lua"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == ours.DISPATCH_LUA_SHA256, UPGRADE + f"dispatch.lua's sha256 is now {digest}"


def test_a_broker_refuses_a_changed_dispatch_lua() -> None:
    source = (Path(dramatiq.__file__).parent / "brokers" / "redis" / "dispatch.lua").read_text()
    ours.check_dispatch_lua(source)
    with pytest.raises(ours.DramatiqChanged, match=r"dispatch\.lua has sha256"):
        ours.check_dispatch_lua(source + "\n-- changed\n")


def test_the_consumer_class_is_where_the_broker_subclasses_it() -> None:
    consumer = getattr(dramatiq_redis, "_RedisConsumer", None)
    assert isinstance(consumer, type), UPGRADE + "dramatiq.brokers.redis._RedisConsumer is gone"
    assert issubclass(consumer, dramatiq.Consumer), UPGRADE + "_RedisConsumer is no longer a Consumer"
    params = list(inspect.signature(consumer.__init__).parameters)
    assert params == ["self", "broker", "queue_name", "prefetch", "timeout"], (
        UPGRADE + f"_RedisConsumer.__init__ now takes {params}")
    for name in ("ack", "nack", "close", "requeue", "__next__"):
        assert callable(getattr(consumer, name, None)), UPGRADE + f"_RedisConsumer.{name} is gone"
    assert isinstance(inspect.getattr_static(consumer, "outstanding_message_count"), property), (
        UPGRADE + "_RedisConsumer.outstanding_message_count is no longer a property")


def test_the_consumer_keeps_the_attributes_the_subclass_reads(broker: Any) -> None:
    c = dramatiq_redis._RedisConsumer(broker, "commands", 4, 100)
    for name, value in (("broker", broker), ("queue_name", "commands"), ("prefetch", 4), ("timeout", 100),
                        ("message_cache", []), ("queued_message_ids", set())):
        assert getattr(c, name, None) == value, UPGRADE + f"_RedisConsumer.{name} is not set as it was"
    c.message_cache = [b"m1", None]
    c.queued_message_ids.add("x")
    assert c.outstanding_message_count == 3, UPGRADE + "outstanding_message_count counts otherwise"


def test_the_broker_makes_its_consumers_of_its_consumer_class(broker: Any) -> None:
    assert isinstance(inspect.getattr_static(dramatiq_redis.RedisBroker, "consumer_class", None), property), (
        UPGRADE + "RedisBroker.consumer_class is no longer the property consume() reads")
    assert type(broker.consume("commands", prefetch=4, timeout=100)) is ours.WakeConsumer, (
        UPGRADE + "RedisBroker.consume no longer makes its consumer_class")


def test_the_broker_keeps_the_attributes_the_subclass_reads(broker: Any) -> None:
    assert set(broker.scripts) >= {"dispatch", "maxstack"}, UPGRADE + f"RedisBroker.scripts is now {set(broker.scripts)}"
    for name in ("client", "namespace", "broker_id", "heartbeat_timeout", "dead_message_ttl"):
        assert hasattr(broker, name), UPGRADE + f"RedisBroker.{name} is gone"
    for name in ("_should_do_maintenance", "_max_unpack_size", "_dispatch", "emit_before", "emit_after"):
        assert callable(getattr(broker, name, None)), UPGRADE + f"RedisBroker.{name} is gone"
    assert {"throws", "on_retry_exhausted"} <= Retries().actor_options, (
        UPGRADE + "Retries no longer takes the actor options `throws` and `on_retry_exhausted`")


def test_raw_dispatch_calls_carry_the_arguments_dramatiq_gives_the_script(
    broker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Lua stack size is dramatiq's setting (dramatiq_lua_max_stack), so no server is asked.
    monkeypatch.setattr(dramatiq_redis, "DEFAULT_LUA_MAX_STACK", 7999)
    monkeypatch.setattr(type(broker), "_max_unpack_size_val", None)
    monkeypatch.setattr(dramatiq_redis, "current_millis", lambda: 1234)
    monkeypatch.setattr(ours, "current_millis", lambda: 1234)
    given: list[tuple[list[Any], list[Any]]] = []
    broker.scripts["dispatch"] = lambda keys, args: given.append((keys, args))
    for command, args in (("fetch", (3,)), ("ack", ("m1",)), ("nack", ("m1",)), ("requeue", ("m1", "m2"))):
        getattr(broker, f"do_{command}")("commands", *args)
        keys, dramatiqs = given.pop()
        raw = broker.dispatch_command(command, "commands", *args, maintenance=dramatiqs[6])
        assert raw[:4] == ("EVALSHA", ours._DISPATCH_SHA, len(keys), *keys), UPGRADE + f"dispatch keys now {keys}"
        assert list(raw[4:]) == dramatiqs, UPGRADE + f"dramatiq's {command} now gives the script {dramatiqs}"


def test_a_message_proxy_carries_its_handlers_exception() -> None:
    proxy = MessageProxy(dramatiq.Message(queue_name="q", actor_name="a", args=(), kwargs={}, options={}))
    assert proxy._exception is None, UPGRADE + "MessageProxy._exception is gone"
    e = ours.StoreUnreachable("away")
    proxy.stuff_exception(e)
    assert proxy._exception is e, UPGRADE + "stuff_exception no longer sets MessageProxy._exception"
