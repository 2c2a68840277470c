"""The wire adapter's reading of replies, without a server: packing, error replies, LOADING, NOSCRIPT."""

from __future__ import annotations

import pytest
from redis import exceptions as rx

from events.store.errors import StoreUnavailable
from events.store.wire import checked, loading, message_data, no_script, pack, reply_reader


def test_packed_commands_parse_back_and_error_replies_come_out_in_place() -> None:
    assert pack([("SET", "k", b"v"), ("INCR", "n")]) == b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
    reader = reply_reader()
    reader.feed(b"+OK\r\n-NOSCRIPT No matching script\r\n:3\r\n")
    ok, missing, three = reader.gets(), reader.gets(), reader.gets()
    assert (ok, three, reader.gets()) == (b"OK", 3, False)
    assert no_script(missing) and not no_script(ok)
    with pytest.raises(rx.ResponseError, match="NOSCRIPT"):
        checked([ok, missing])
    assert checked([ok, three]) == [ok, three]


def test_a_server_still_loading_is_store_unavailable() -> None:
    with pytest.raises(StoreUnavailable, match="LOADING"):
        loading([b"OK", rx.ResponseError("LOADING Redis is loading the dataset in memory")])
    loading([b"OK", rx.ResponseError("WRONGTYPE no")])  # any other error reply is the caller's


def test_only_message_pushes_carry_data() -> None:
    assert message_data([b"message", b"chan", b"g1 {}"]) == b"g1 {}"
    assert message_data([b"subscribe", b"chan", 1]) is None
