"""Where a player's notification target may make boardlog connect: public addresses only, unless
the operator allows more (`BOARDLOG_NOTIFY_ALLOW`, a list of networks).

A webhook or Apprise URL is the player's to choose, and notices leave from inside the deployment,
where Redis, a cloud's metadata service and other internal services answer on loopback, private
and link-local addresses. So a target's host is resolved, and every address it names checked,
when the target is added (for a clear refusal on the player's page) and again at every send.

At a send the check and the connection must see the same answer: a name whose DNS answers a
public address to the check and 127.0.0.1 to the connect (DNS rebinding) would otherwise pass.
So while a notice is sent, the sending thread's lookups go through `Egress.addresses`: each name
is resolved once a send, checked, and the checked addresses are what the HTTP or SMTP library
connects to (the URL, and so the Host header and the TLS server name, are left as they are). An
audit hook on `socket.connect`, in that thread only, checks every connect besides.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[Address]]

SETTING = "BOARDLOG_NOTIFY_ALLOW"

# The process's own lookup, taken before a guarded block puts the pinning one in its place.
_system_getaddrinfo = socket.getaddrinfo
# 64:ff9b::/96 carries an IPv4 address to a NAT64 gateway, which connects to it.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class Refused(PermissionError):
    """A connect, while sending to a target, to an address targets may not reach."""


def networks(items: Iterable[str]) -> tuple[Network, ...]:
    """The networks an operator allows beyond the public ones, read from the setting's items."""
    out: list[Network] = []
    for raw in items:
        text = raw.strip()
        if not text:
            continue
        try:
            out.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise ValueError(f"{SETTING}: {text!r} is not an address or a network (like 127.0.0.1 or "
                             "10.0.0.0/8)") from None
    return tuple(out)


def system_resolver(host: str, port: int) -> list[Address]:
    """Every IP address the system's resolver gives `host` (numeric forms like 2130706433 and
    0x7f.1 included, as the C library reads them)."""
    found = (_address(str(sockaddr[0])) for *_, sockaddr in
             _system_getaddrinfo(host, port, 0, socket.SOCK_STREAM))
    return list(dict.fromkeys(a for a in found if a is not None))


def _what(ip: Address) -> str:
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_private:
        return "a private address"
    return "not a public address"


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 zone ("fe80::1%eth0") is no part of it
    except ValueError:
        return None


def _embedded(ip: Address) -> Address:
    """The IPv4 address an IPv6 one reaches through: IPv4-mapped (::ffff:127.0.0.1), 6to4
    (2002:7f00:1::), NAT64 (64:ff9b::7f00:1) or the old IPv4-compatible form (::127.0.0.1),
    which Python counts as global whatever they carry."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or (int(ip) >> 32 == 0 and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def _loopback_name(name: str) -> bool:
    """`localhost` and every name under it (RFC 6761 keeps them on the machine itself), written
    with a final dot or in any case."""
    bare = name.rstrip(".").lower()
    return bare == "localhost" or bare.endswith(".localhost")


@dataclass(frozen=True, slots=True)
class Egress:
    """The addresses a target may reach: every public one, and those in `allowed`; names are
    looked up with `resolver` (the system's; a test gives its own)."""

    allowed: tuple[Network, ...] = ()
    resolver: Resolver = field(default=system_resolver, compare=False)

    def why_not(self, ip: Address) -> str | None:
        """Why a target may not reach `ip`; None when it may."""
        ip = _embedded(ip)
        if any(ip in n for n in self.allowed):
            return None
        if ip.is_global and not ip.is_multicast:
            return None
        return f"{ip} is {_what(ip)}"

    def addresses(self, host: str, port: int) -> tuple[Address, ...]:
        """The addresses a send to `host` connects to: all it resolves to now, every one of them
        one a target may reach. Raises Refused saying why not (a name that resolves nowhere,
        or to one address a target may not reach, is refused whole)."""
        host = host.strip("[]")
        ip = _address(host)
        if ip is not None:
            found: Sequence[Address] = [ip]
        elif _loopback_name(host):
            raise Refused(_said(f"{host} names this machine (a loopback name)"))
        else:
            try:
                found = self.resolver(host, port)
            except (OSError, UnicodeError):
                found = []
            if not found:
                raise Refused(_said(f"{host} resolves to no address (check the name)"))
        for each in found:
            why = self.why_not(each)
            if why is not None:
                raise Refused(_said(why if ip is not None else f"{host} resolves to {why}"))
        return tuple(found)

    def check_host(self, host: str, port: int) -> str | None:
        """Why a target on `host` may not be sent to, for the player adding it; None when it may."""
        try:
            self.addresses(host, port)
        except Refused as e:
            return str(e)
        return None

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """Within: this thread's lookups answer the addresses `addresses` checked (each name
        resolved once in the block), and every connect it makes must reach an address this
        allows, or it raises Refused; `refused()` says why the last one did."""
        _install()
        before = getattr(_here, "egress", None), getattr(_here, "pins", None)
        _here.egress = self
        _here.pins = {}
        _here.refused = None
        try:
            yield
        finally:
            _here.egress, _here.pins = before


_here = threading.local()
_installed = threading.Lock()
_hooked = False


def refused() -> str | None:
    """Why this thread's last guarded lookup or connect was refused, if one was."""
    why: str | None = getattr(_here, "refused", None)
    return why


def _said(why: str) -> str:
    return f"{why}: notices go to public addresses only"


def _refuse(why: str) -> None:
    _here.refused = _said(why)
    raise Refused(_here.refused)


def _port(port: Any) -> int:
    if port is None:
        return 0
    if isinstance(port, bytes):
        port = port.decode()
    return int(port) if str(port).isdigit() else socket.getservbyname(str(port), "tcp")


def _pinned_getaddrinfo(host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0,
                        flags: int = 0) -> list[tuple[Any, ...]]:
    """socket.getaddrinfo as a guarded thread sees it: the addresses its Egress checked for the
    name (the same ones for every lookup of the block); anywhere else the system's own."""
    egress: Egress | None = getattr(_here, "egress", None)
    if egress is None or host is None:
        return _system_getaddrinfo(host, port, family, type, proto, flags)
    name = host.decode() if isinstance(host, bytes) else str(host)
    number = _port(port)
    pins: dict[str, tuple[Address, ...]] = _here.pins
    if name not in pins:
        _here.egress = None  # the resolver's own lookup is the system's
        try:
            pins[name] = egress.addresses(name, number)
        except Refused as e:
            _here.refused = str(e)
            raise
        finally:
            _here.egress = egress
    out: list[tuple[Any, ...]] = []
    for ip in pins[name]:
        fam = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
        if family in (0, fam):
            where = (str(ip), number, 0, 0) if ip.version == 6 else (str(ip), number)
            out.append((fam, type or socket.SOCK_STREAM, proto or socket.IPPROTO_TCP, "", where))
    return out


def _on_event(event: str, args: tuple[Any, ...]) -> None:
    if event != "socket.connect":
        return
    egress: Egress | None = getattr(_here, "egress", None)
    if egress is None:
        return
    sock, address = args
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        _refuse("a connect that is not over IP")
    host, port = str(address[0]), int(address[1])
    ip = _address(host)
    if ip is not None:
        candidates: list[Address] = [ip]
    else:  # a name handed to connect itself: every address it may reach must be allowed
        _here.egress = None  # no guard on the lookup's own sockets
        try:
            version = 6 if sock.family == socket.AF_INET6 else 4
            candidates = [a for a in system_resolver(host, port) if a.version == version]
        except OSError:
            candidates = []
        finally:
            _here.egress = egress
        if not candidates:
            _refuse(f"{host} resolves to no IP address")
    for each in candidates:
        why = egress.why_not(each)
        if why is not None:
            _refuse(why)


def _install() -> None:
    """Add the audit hook and the pinning lookup, once a process (a hook cannot be removed: both
    do nothing outside a `guarded` block but one attribute lookup)."""
    global _hooked
    with _installed:
        if not _hooked:
            sys.addaudithook(_on_event)
            socket.getaddrinfo = _pinned_getaddrinfo
            _hooked = True
