"""Where a notification target may make boardlog connect (service/usecases/notifications/egress.py): public
addresses, and the networks the operator allows; checked when a target is added and at every
connect of a send, against a real socket server on loopback."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from service.usecases.notifications.egress import Egress, Refused, networks, refused


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that answers every connection with an empty HTTP 204."""
    srv = socket.create_server(("127.0.0.1", 0))
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                continue
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join()
    srv.close()


@pytest.mark.parametrize(("text", "why"), [
    ("127.0.0.1", "127.0.0.1 is a loopback address"),
    ("::1", "::1 is a loopback address"),
    ("169.254.169.254", "169.254.169.254 is a link-local address"),
    ("fe80::1", "fe80::1 is a link-local address"),
    ("10.0.0.1", "10.0.0.1 is a private address"),
    ("172.16.5.4", "172.16.5.4 is a private address"),
    ("192.168.0.10", "192.168.0.10 is a private address"),
    ("fd00::1", "fd00::1 is a private address"),
    ("::ffff:192.168.0.10", "192.168.0.10 is a private address"),
    ("0.0.0.0", "0.0.0.0 is the unspecified address"),
    ("224.0.0.1", "224.0.0.1 is a multicast address"),
    ("100.64.0.1", "100.64.0.1 is not a public address"),
])
def test_an_internal_address_is_refused(text: str, why: str) -> None:
    assert Egress().why_not(ipaddress.ip_address(text)) == why


@pytest.mark.parametrize("text", ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111"])
def test_a_public_address_is_taken(text: str) -> None:
    assert Egress().why_not(ipaddress.ip_address(text)) is None


def test_the_operator_allows_networks_and_nothing_beside_them() -> None:
    e = Egress(networks(["127.0.0.1", " 10.0.0.0/8", "", "fd00::/8"]))
    assert e.why_not(ipaddress.ip_address("127.0.0.1")) is None
    assert e.why_not(ipaddress.ip_address("10.200.1.1")) is None
    assert e.why_not(ipaddress.ip_address("::ffff:10.0.0.1")) is None
    assert e.why_not(ipaddress.ip_address("fd12::1")) is None
    assert e.why_not(ipaddress.ip_address("127.0.0.2")) == "127.0.0.2 is a loopback address"
    assert e.why_not(ipaddress.ip_address("192.168.0.1")) == "192.168.0.1 is a private address"


@pytest.mark.parametrize("bad", ["localhost", "10.0.0.0/33", "not an address"])
def test_a_setting_that_is_not_a_network_says_which_item(bad: str) -> None:
    with pytest.raises(ValueError, match=f"BOARDLOG_NOTIFY_ALLOW: '{bad}' is not an address or a network"):
        networks(["127.0.0.1", bad])


def test_adding_resolves_the_name_and_refuses_an_internal_answer() -> None:
    e = Egress()
    why = e.check_host("localhost", 80)
    assert why is not None and why.startswith("localhost resolves to ") and "loopback address" in why
    assert why.endswith("notices go to public addresses only")
    assert e.check_host("[::1]", 80) == "::1 is a loopback address: notices go to public addresses only"
    assert e.check_host("8.8.8.8", 443) is None
    assert Egress(networks(["127.0.0.0/8", "::1"])).check_host("localhost", 80) is None
    # A name that does not resolve now is left to the send, which checks every connect.
    assert e.check_host("no-such-host.invalid", 80) is None


def test_a_guarded_connect_to_an_internal_address_never_reaches_it(listener: int) -> None:
    url = f"http://127.0.0.1:{listener}/hook"
    with Egress().guarded(), pytest.raises(httpx.ConnectError, match=r"127\.0\.0\.1 is a loopback address"):
        httpx.post(url, content=b"{}")
    assert refused() == "127.0.0.1 is a loopback address: notices go to public addresses only"
    # A raw socket too, by address or by name.
    with Egress().guarded():
        for where in (("127.0.0.1", listener), ("localhost", listener)):
            s = socket.socket()
            with s, pytest.raises(Refused):
                s.connect(where)
    # Allowed, the same request goes through.
    with Egress(networks(["127.0.0.1"])).guarded():
        assert httpx.post(url, content=b"{}").status_code == 204
        assert refused() is None


def test_outside_a_guarded_block_and_in_other_threads_nothing_is_checked(listener: int) -> None:
    url = f"http://127.0.0.1:{listener}/"
    with Egress().guarded():
        got: list[int] = []
        t = threading.Thread(target=lambda: got.append(httpx.get(url).status_code))
        t.start()
        t.join()
        assert got == [204]  # another thread (the process's Redis client, say) is not guarded
    assert httpx.get(url).status_code == 204
