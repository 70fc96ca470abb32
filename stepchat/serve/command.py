"""`stepchat serve`: load the models, then answer HTTP on loopback (or, with a token, elsewhere).

Binding to anything but a loopback address exposes the cache and the model to the
network, so it needs `--token-env NAME`: the name of an environment variable holding the
bearer token every request must then carry. The token is read from the environment only,
never from a file or the command line, where other users could see it. Web pages are kept
out by the Host and Origin checks (`stepchat.serve.guard`); `--allow-host` and
`--allow-origin` let named ones in.

The port is bound before anything is printed, so a port another server holds is the one
line said, not a URL that does not work.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import logging
import os
import re
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from stepchat.config import ConfigError, load_config

DEFAULT_PORT = 8080
DEFAULT_QUEUE = 32
_DEFAULT_PORTS = {"http": 80, "https": 443}


def whole_number(low: int, high: int | None, expected: str) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (None: no bound), refused
    in one line saying what is `expected` rather than taken for a default (`0`) or left to
    fail later with a traceback (a port past 65535)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
        return value

    return parse


_HOST_NAME = re.compile(r"^(\[[0-9a-f:.]+\]|[0-9a-z._-]+)(:\d{1,5})?$", re.IGNORECASE)
"""A Host header's form: a DNS name or an address, bracketed if IPv6, and a port."""


def host_to_allow(text: str) -> str:
    """An argparse type: `--allow-host`'s value, refused in one line where no Host header
    could carry it (an empty name matched nothing and was accepted silently; a URL or a
    `*` looks like a rule it is not)."""
    if not _HOST_NAME.match(text.strip()):
        raise argparse.ArgumentTypeError(
            f"not a host name: {text!r} (expected a name such as llm.example.lan or an "
            "address, without scheme or path; '*' is not supported)"
        )
    return text.strip()


def web_origin(text: str) -> str:
    """An argparse type: `--allow-origin`'s value as a browser writes it in `Origin`
    (scheme and host in small letters, no default port, no trailing slash), so a page
    at that address is matched; anything that never could be (no scheme, a path, `*`) is
    refused in one line."""
    if text.strip() == "*":
        raise argparse.ArgumentTypeError(
            "'*' is not supported: name each web page's origin, e.g. http://localhost:3000 "
            "(any page would otherwise use the model and the cache from a visitor's browser)"
        )
    parts = urlsplit(text.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    extra = parts.path not in ("", "/") or parts.query or parts.fragment or parts.netloc.count("@")
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or extra or port == -1:
        raise argparse.ArgumentTypeError(
            f"not an origin: {text!r} (expected scheme://host[:port] with scheme http or "
            "https, e.g. http://localhost:3000)"
        )
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    shown_port = "" if port in (None, _DEFAULT_PORTS[parts.scheme]) else f":{port}"
    return f"{parts.scheme}://{host}{shown_port}"


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="answer OpenAI-compatible HTTP requests through the cache",
        description="An OpenAI-compatible API (POST /v1/chat/completions, GET /v1/models, "
        "GET /health, GET /health/ready) whose answers pass through the step cache.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=whole_number(0, 65535, "a port from 0 to 65535"), default=DEFAULT_PORT,
        help="port (default 8080; 0: any free port, said when the server starts)",
    )
    parser.add_argument(
        "--model", dest="serve_models", action="append", metavar="ID",
        help="model id to serve (`stepchat config` lists them); repeat for several "
        "(default: the configured default)",
    )
    parser.add_argument(
        "--token-env", metavar="NAME",
        help="environment variable holding the bearer token (required off loopback)",
    )
    parser.add_argument(
        "--queue", type=whole_number(0, None, "a whole number, 0 or more"),
        default=DEFAULT_QUEUE, metavar="N",
        help=f"requests that may wait for each model before 503 (default {DEFAULT_QUEUE})",
    )
    parser.add_argument(
        "--threads", type=whole_number(1, None, "a whole number, 1 or more"), metavar="N",
        help="model threads for local models (default: the configured threads)",
    )
    parser.add_argument(
        "--max-body", type=whole_number(1, None, "a size in bytes, 1 or more"), metavar="BYTES",
        help="largest request body accepted (default 1 MiB)",
    )
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME", type=host_to_allow,
        help="also accept requests whose Host header is NAME (a DNS name clients use for "
        "this server); repeat for several. By default only the address it listens on",
    )
    parser.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN", type=web_origin,
        help="let the web page at ORIGIN (scheme://host[:port], e.g. http://localhost:3000) "
        "call the API from a browser; repeat for several ('*' is not supported). By default "
        "requests from web pages are refused",
    )
    parser.set_defaults(func=run)
    return parser


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bearer_token(host: str, token_env: str | None) -> str | None:
    """The token, or None on loopback without one; ConfigError says what to fix."""
    if token_env:
        token = os.environ.get(token_env, "")
        if not token.strip():
            raise ConfigError(
                f"--token-env {token_env}: the variable is not set or empty "
                f"(fix: export {token_env}=<a long random string>)"
            )
        return token.strip()
    if not is_loopback(host):
        raise ConfigError(
            f"binding to {host} exposes the cache to the network: "
            "pass --token-env NAME (the variable holding the bearer token clients must send)"
        )
    return None


def _say(line: str) -> None:
    print(f"stepchat serve: {line}", file=sys.stderr)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host:port`; ConfigError in one line when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {port} on {host} is taken: another program listens there "
                "(stop it, or pick another port with --port)"
            ) from None
        reason = exc.strerror or str(exc)
        raise ConfigError(f"cannot listen on {host} port {port}: {reason}") from None
    return sock


def _log_to_stderr() -> None:
    """Request lines and failures, each one line on stderr in serve's own voice."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("stepchat serve: %(message)s"))
    logger = logging.getLogger("stepchat.serve")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def run(args: argparse.Namespace) -> int:
    """Load, serve until interrupted, write queued bookkeeping on the way out."""
    import uvicorn

    from stepchat.quiet import quiet_environment
    from stepchat.serve.app import DEFAULT_MAX_BODY, create_app
    from stepchat.serve.guard import HostPolicy
    from stepchat.serve.pool import open_pool, warm_up

    config = load_config()
    if args.threads is not None:
        config = replace(config, threads=args.threads)
    model_ids = args.serve_models or [args.model or config.default_model]
    for model_id in model_ids:
        config.model(model_id)
    # The address first: a name that does not resolve is the thing to fix, not the token
    # a reachable one would need. Nothing is accepted on the socket before the check.
    sock = listen(args.host, args.port)
    try:
        token = bearer_token(args.host, args.token_env)
    except ConfigError:
        sock.close()
        raise
    port = sock.getsockname()[1]
    quiet_environment()
    pool = open_pool(config, model_ids, queue_limit=args.queue)
    app = create_app(
        pool, token=token,
        max_body=DEFAULT_MAX_BODY if args.max_body is None else args.max_body,
        hosts=HostPolicy(args.host, args.allow_host), origins=args.allow_origin,
    )
    _log_to_stderr()
    scheme_host = f"[{args.host}]" if ":" in args.host else args.host
    _say(
        f"http://{scheme_host}:{port}/v1 "
        f"(models: {', '.join(pool.ids)}{'; bearer token required' if token else ''})"
    )
    _say(
        f"loading {', '.join(model_ids)} and the embedder in the background; "
        "cache hits are answered meanwhile"
    )
    threading.Thread(
        target=warm_up, args=(pool, _say), name="stepchat-warm-up", daemon=True
    ).start()
    server = uvicorn.Server(
        uvicorn.Config(app, host=args.host, port=port, log_level="warning",
                       access_log=False)
    )
    server.run(sockets=[sock])
    return 0
