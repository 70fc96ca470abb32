"""What keeps a web page from using the server: the Host and Origin checks and JSON-only bodies.

A server on loopback is still reachable from every page the user's browser opens. Two
ways in are closed here:

- *DNS rebinding*: a page on `evil.example` makes its own name resolve to 127.0.0.1 and
  then talks to the server as if it were its own origin, reading replies. The browser still
  sends `Host: evil.example`, so a request is served only when its Host is an address the
  server listens on (loopback names on loopback, any IP literal on a wildcard bind: an IP
  cannot be rebound) or a name given with `--allow-host`.
- *Cross-site requests*: a page may POST a form (`text/plain`, form-encoded) to any
  address without asking first, and the model would run. Browsers mark every such request
  with `Origin`, which command-line clients and SDKs never send, so a request carrying an
  Origin is refused unless `--allow-origin` lists it; a listed origin gets CORS headers.
  Chat requests must also be `application/json`, a type no form can send without the
  browser asking the server first.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from stepchat.serve.protocol import ApiError, error_body

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
"""The names a loopback server answers to when no other is configured."""

WILDCARDS = frozenset({"0.0.0.0", "::", ""})
"""Bind addresses that listen on every interface."""


def host_name(header: str) -> str:
    """The name in a Host header, without the port and IPv6 brackets, lower-cased."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") > 1:  # a bare IPv6 address (not valid in Host, but be exact)
        return header
    return header.partition(":")[0].rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback(name: str) -> bool:
    return name == "localhost" or (_is_ip(name) and ipaddress.ip_address(name).is_loopback)


class HostPolicy:
    """Which Host headers a server bound to `bind` accepts."""

    def __init__(self, bind: str = "127.0.0.1", extra: Iterable[str] = ()) -> None:
        self.bind = host_name(bind) if bind not in WILDCARDS else bind
        self.names = {host_name(name) for name in extra}
        if self.bind not in WILDCARDS:
            self.names.add(self.bind)  # the address the server prints, whatever it is
        if _is_loopback(self.bind):
            self.names |= LOOPBACK_NAMES

    def allows(self, name: str) -> bool:
        if name in self.names:
            return True
        # On every interface the server has addresses this process cannot list for sure;
        # an IP literal is never a rebound name, so any is accepted.
        return self.bind in WILDCARDS and _is_ip(name)


def _refusal(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse(error_body(message, kind="invalid_request_error", code=code), status)


class RequestGuard:
    """Refuse requests whose Host is not this server's or whose Origin is not listed,
    before authentication, routing or reading the body."""

    def __init__(self, app: ASGIApp, hosts: HostPolicy, origins: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = {origin.rstrip("/").lower() for origin in origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self._refusal(Headers(scope=scope))
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refusal(self, headers: Headers) -> JSONResponse | None:
        host = host_name(headers.get("host", ""))
        if not host:
            return _refusal(400, "the request has no Host header", "host_not_allowed")
        if not self.hosts.allows(host):
            return _refusal(
                403,
                f"Host {host!r} is not an address this server listens on "
                f"(to accept it, start the server with --allow-host {host})",
                "host_not_allowed",
            )
        origin = headers.get("origin")
        if origin is not None and origin.rstrip("/").lower() not in self.origins:
            return _refusal(
                403,
                f"requests from web pages are refused (Origin {origin!r}; to accept it, "
                f"start the server with --allow-origin {origin})",
                "origin_not_allowed",
            )
        return None


def require_json(content_type: str | None) -> None:
    """Refuse a body that is not declared `application/json` (415)."""
    media = (content_type or "").partition(";")[0].strip().lower()
    if media != "application/json":
        shown = media or "none"
        raise ApiError(
            415, f"the body must be sent as Content-Type: application/json (got {shown})",
            code="unsupported_media_type",
        )
