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
def listener(heard: tuple[int, list[bytes]]) -> int:
    return heard[0]


@pytest.fixture
def heard() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1 that answers every connection with an empty HTTP 204: its port,
    and the requests it heard."""
    got: list[bytes] = []
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
                got.append(conn.recv(65536))
                conn.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1], got
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
    inside = Egress(resolver=lambda host, port: [ipaddress.ip_address("8.8.8.8"), ipaddress.ip_address("10.1.2.3")])
    assert inside.check_host("hooks.example.test", 80) == (
        "hooks.example.test resolves to 10.1.2.3 is a private address: notices go to public addresses only")
    assert e.check_host("[::1]", 80) == "::1 is a loopback address: notices go to public addresses only"
    assert e.check_host("8.8.8.8", 443) is None
    # A name that resolves nowhere is refused: a target must name a host that resolves now.
    assert e.check_host("no-such-host.invalid", 80) == (
        "no-such-host.invalid resolves to no address (check the name): notices go to public addresses only")


@pytest.mark.parametrize("host", ["localhost", "localhost.", "LOCALHOST.", "boardlog.localhost", "x.localhost."])
def test_a_loopback_name_is_refused_by_name_even_where_loopback_is_allowed(host: str) -> None:
    # RFC 6761: every such name is this machine, whatever a resolver answers (or fails to).
    for e in (Egress(), Egress(networks(["127.0.0.0/8", "::1"]))):
        assert e.check_host(host, 80) == (f"{host} names this machine (a loopback name): notices go to public "
                                          "addresses only")


@pytest.mark.parametrize("host", ["2130706433", "0x7f.1", "127.1", "0177.0.0.1", "0x7f000001"])
def test_a_numeric_form_of_a_loopback_address_is_refused(host: str) -> None:
    why = Egress().check_host(host, 80)
    assert why == f"{host} resolves to 127.0.0.1 is a loopback address: notices go to public addresses only"


@pytest.mark.parametrize(("text", "inside"), [
    ("2002:7f00:1::", "127.0.0.1"),  # 6to4
    ("64:ff9b::a00:1", "10.0.0.1"),  # NAT64
    ("::127.0.0.1", "127.0.0.1"),  # IPv4-compatible
    ("::ffff:127.0.0.1", "127.0.0.1"),  # IPv4-mapped
])
def test_an_ipv6_form_carrying_an_internal_ipv4_address_is_refused(text: str, inside: str) -> None:
    # Python counts 2002:7f00:1:: and 64:ff9b::a00:1 as global: they reach what they carry.
    why = Egress().why_not(ipaddress.ip_address(text))
    assert why is not None and why.startswith(f"{inside} is a ")
    assert Egress().why_not(ipaddress.ip_address("2002:5db8:d70e::")) is None  # 6to4 of a public address


class Rebinding:
    """A resolver answering each name from a list of answers, one a lookup (the last one
    repeated): a DNS server that answers the check and the connect differently."""

    def __init__(self, *answers: str) -> None:
        self.answers = [ipaddress.ip_address(a) for a in answers]
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        self.asked.append(host)
        return [self.answers[min(len(self.asked), len(self.answers)) - 1]]


def test_a_name_rebound_to_loopback_after_its_check_is_refused_at_the_send(heard: tuple[int, list[bytes]]) -> None:
    port, requests = heard
    e = Egress(resolver=Rebinding("93.184.215.14", "127.0.0.1"))
    assert e.check_host("hooks.example.test", port) is None  # the check at adding: a public answer
    with e.guarded(), pytest.raises(httpx.ConnectError, match=r"resolves to 127\.0\.0\.1 is a loopback address"):
        httpx.post(f"http://hooks.example.test:{port}/hook", content=b"{}")
    assert refused() == ("hooks.example.test resolves to 127.0.0.1 is a loopback address: notices go to public "
                         "addresses only")
    assert requests == []


def test_a_send_connects_to_the_address_it_checked_keeping_the_host_and_looks_up_again_next_send(
        heard: tuple[int, list[bytes]]) -> None:
    port, requests = heard
    resolver = Rebinding("127.0.0.1", "127.0.0.2")  # 127.0.0.2 answers on Linux too, but is not allowed
    e = Egress(networks(["127.0.0.1"]), resolver=resolver)
    url = f"http://hooks.example.test:{port}/hook"
    with e.guarded():  # one send: the name is looked up once, whatever the client does after
        for _ in range(3):
            with httpx.Client() as client:  # a fresh connection each time
                assert client.post(url, content=b"{}").status_code == 204
    assert resolver.asked == ["hooks.example.test"]
    assert len(requests) == 3 and all(f"host: hooks.example.test:{port}".encode() in r.lower() for r in requests)
    with e.guarded(), pytest.raises(httpx.ConnectError, match=r"127\.0\.0\.2 is a loopback address"):
        httpx.post(url, content=b"{}")  # the next send asks again, and the new answer is checked
    assert resolver.asked == ["hooks.example.test"] * 2 and len(requests) == 3


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
