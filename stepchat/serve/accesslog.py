"""One log line per request, written when its reply has been sent, and upstream failures
logged under an id the client is given instead of the detail.

The line a server user expects from llama.cpp's server or ollama: when, the status, the
route, how long it took, and for a chat request the cache's path and the tokens the model
processed and the cache saved:

    2026-04-10 14:03:22 200 POST /v1/chat/completions reuse-only 12 ms tokens 0 in, 0 out, 41 saved

A failing model or store can say anything in its error (a URL, a file path, a key echoed
back by a proxy); clients get a fixed sentence and an id, and the line with the detail is
here, where only the server's operator reads it.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stepchat.core.safetext import one_line
from stepchat.core.types import Answer

log = logging.getLogger("stepchat.serve.access")
errors = logging.getLogger("stepchat.serve")

_ANSWER = "stepchat.answer"
"""The scope key under which a chat request leaves its answer for the log line."""


def record_answer(scope: Scope, answer: Answer) -> None:
    """Leave `answer` where the request's log line will find it."""
    scope[_ANSWER] = answer


def log_failure(what: str, exc: BaseException, *, trace: bool = False) -> str:
    """Log `exc` in full under a new id and return the id for the client; `trace` adds the
    traceback (for a bug, not for a model or store that said what went wrong)."""
    error_id = "err_" + uuid.uuid4().hex[:12]
    detail = one_line(str(exc), 2000) or type(exc).__name__
    errors.error("%s %s: %s", error_id, what, detail, exc_info=exc if trace else None)
    return error_id


def request_line(scope: Scope, status: int, seconds: float) -> str:
    """The log line of one finished request."""
    route = f"{scope.get('method', '?')} {one_line(scope.get('path', ''), 200)}"
    parts = [time.strftime("%Y-%m-%d %H:%M:%S"), str(status), route]
    answer: Answer | None = scope.get(_ANSWER)
    if answer is not None:
        parts.append(str(answer.path))
    parts.append(f"{seconds * 1000:.0f} ms")
    if answer is not None:
        tokens = answer.tokens
        parts.append(
            f"tokens {tokens.prompt} in, {tokens.generated} out, {tokens.saved} saved"
        )
    return " ".join(parts)


CLIENT_GONE = 499
"""The status logged for a request whose client went away before its reply was sent
whole (nginx's "client closed request"), whether or not the reply had begun."""


class AccessLog:
    """Time each HTTP request and log its line once the last byte of the reply is sent,
    or when the client went away before that: then with status 499, as a disconnected
    request is, even if a stream had already begun with 200."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        seen: dict[str, Any] = {"status": 0, "logged": False, "gone": False}

        def finish(status: int) -> None:
            if not seen["logged"]:
                seen["logged"] = True
                log.info(request_line(scope, status, time.perf_counter() - started))

        async def receiving() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect":
                seen["gone"] = True
            return message

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                seen["status"] = message["status"]
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                finish(seen["status"])

        try:
            await self.app(scope, receiving, sending)
        finally:
            finish(CLIENT_GONE if seen["gone"] or not seen["status"] else seen["status"])
