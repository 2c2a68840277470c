"""Where a player's notification target may make boardlog connect: public addresses only, unless
the operator allows more (`BOARDLOG_NOTIFY_ALLOW`, a list of networks).

A webhook or Apprise URL is the player's to choose, and notices leave from inside the deployment,
where Redis, a cloud's metadata service and other internal services answer on loopback, private
and link-local addresses. So a target is checked twice: when it is added (its host resolved,
for a clear refusal on the player's page), and at every connect while a notice is sent to it (an
audit hook on `socket.connect`, in the sending thread only), which also covers a name that
resolves elsewhere later, every redirect, and targets added before this check existed.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

SETTING = "BOARDLOG_NOTIFY_ALLOW"


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


@dataclass(frozen=True, slots=True)
class Egress:
    """The addresses a target may reach: every public one, and those in `allowed`."""

    allowed: tuple[Network, ...] = ()

    def why_not(self, ip: Address) -> str | None:
        """Why a target may not reach `ip`; None when it may."""
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 reaches 127.0.0.1
        if any(ip in n for n in self.allowed):
            return None
        if ip.is_global and not ip.is_multicast:
            return None
        return f"{ip} is {_what(ip)}"

    def check_host(self, host: str, port: int) -> str | None:
        """Why a target on `host` may not be sent to, for the player adding it; None when it may,
        or when the name does not resolve now (the send will say so, and check again)."""
        host = host.strip("[]")
        ip = _address(host)
        if ip is not None:
            why = self.why_not(ip)
            return None if why is None else _said(why)
        try:
            found = _resolved(host, port)
        except (OSError, UnicodeError):
            return None
        for got in found:
            why = "an address that is not an IP" if got is None else self.why_not(got)
            if why is not None:
                return _said(f"{host} resolves to {why}")
        return None

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """Within: every connect this thread makes must reach an address this allows, or it
        raises Refused; `refused()` says why the last one did."""
        _install()
        before = getattr(_here, "egress", None)
        _here.egress = self
        _here.refused = None
        try:
            yield
        finally:
            _here.egress = before


_here = threading.local()
_installed = threading.Lock()
_hooked = False


def refused() -> str | None:
    """Why this thread's last guarded connect was refused, if one was."""
    why: str | None = getattr(_here, "refused", None)
    return why


def _said(why: str) -> str:
    return f"{why}: notices go to public addresses only"


def _resolved(host: str, port: int, family: int = 0) -> list[Address | None]:
    """Every address `host` names (None for one that is not an IP)."""
    return [_address(str(sockaddr[0])) for *_, sockaddr in socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)]


def _refuse(why: str) -> None:
    _here.refused = _said(why)
    raise Refused(_here.refused)


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
            candidates = [a for a in _resolved(host, port, sock.family) if a is not None]
        finally:
            _here.egress = egress
        if not candidates:
            _refuse(f"{host} resolves to no IP address")
    for each in candidates:
        why = egress.why_not(each)
        if why is not None:
            _refuse(why)


def _install() -> None:
    """Add the audit hook, once a process (a hook cannot be removed: it does nothing outside a
    `guarded` block, one attribute lookup an event)."""
    global _hooked
    with _installed:
        if not _hooked:
            sys.addaudithook(_on_event)
            _hooked = True
