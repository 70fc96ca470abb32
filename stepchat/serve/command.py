"""`stepchat serve`: load the models, then answer HTTP on loopback (or, with a token, elsewhere).

Binding to anything but a loopback address exposes the cache and the model to the
network, so it needs `--token-env NAME`: the name of an environment variable holding the
bearer token every request must then carry. The token is read from the environment only,
never from a file or the command line, where other users could see it.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
import threading
from dataclasses import replace
from typing import Any

from stepchat.config import Config, ConfigError

DEFAULT_PORT = 8080
DEFAULT_QUEUE = 32


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="answer OpenAI-compatible HTTP requests through the cache",
        description="An OpenAI-compatible API (POST /v1/chat/completions, GET /v1/models, "
        "GET /health) whose answers pass through the step cache.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default 8080)")
    parser.add_argument(
        "--model", dest="serve_models", action="append", metavar="ID",
        help="model id from models.toml to serve; repeat for several (default: the default)",
    )
    parser.add_argument(
        "--token-env", metavar="NAME",
        help="environment variable holding the bearer token (required off loopback)",
    )
    parser.add_argument(
        "--queue", type=int, default=DEFAULT_QUEUE, metavar="N",
        help=f"requests that may wait for each model before 503 (default {DEFAULT_QUEUE})",
    )
    parser.add_argument(
        "--threads", type=int, metavar="N",
        help="model threads for local models (default: the configured threads)",
    )
    parser.add_argument(
        "--max-body", type=int, default=None, metavar="BYTES",
        help="largest request body accepted (default 1 MiB)",
    )
    parser.set_defaults(run_serve=run)
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


def run(config: Config, args: argparse.Namespace) -> int:
    """Load, serve until interrupted, write queued bookkeeping on the way out."""
    import uvicorn

    from stepchat.quiet import quiet_environment
    from stepchat.serve.app import DEFAULT_MAX_BODY, create_app
    from stepchat.serve.pool import open_pool, warm_up

    token = bearer_token(args.host, args.token_env)
    if args.queue < 0:
        raise ConfigError("--queue must be 0 or more")
    if args.threads:
        config = replace(config, threads=max(1, args.threads))
    model_ids = args.serve_models or [args.model or config.default_model]
    for model_id in model_ids:
        config.model(model_id)
    quiet_environment()
    pool = open_pool(config, model_ids, queue_limit=args.queue)
    app = create_app(pool, token=token, max_body=args.max_body or DEFAULT_MAX_BODY)
    logging.getLogger("stepchat.serve").addHandler(logging.StreamHandler())
    scheme_host = f"[{args.host}]" if ":" in args.host else args.host
    _say(
        f"http://{scheme_host}:{args.port}/v1 "
        f"(models: {', '.join(pool.ids)}{'; bearer token required' if token else ''})"
    )
    _say(
        f"loading {', '.join(model_ids)} and the embedder in the background; "
        "cache hits are answered meanwhile"
    )
    threading.Thread(
        target=warm_up, args=(pool, _say), name="stepchat-warm-up", daemon=True
    ).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0
