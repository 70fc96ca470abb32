"""The HTTP API: `POST /v1/chat/completions`, `GET /v1/models`, `GET /health`.

Every reply carries the cache's story: headers `x-stepchat-path` and
`x-stepchat-tokens-saved`, and the `stepchat` extension field with each step's status.
Requests may opt out with `x-stepchat-reuse: off` and `x-stepchat-store: off`.

Safety: a request whose Host is not the server's or that comes from a web page (an
`Origin` not listed) is refused first (`stepchat.serve.guard`); with a token, every request
needs `Authorization: Bearer <token>` (compared in constant time) before anything else is
looked at; chat bodies must be `application/json` and are capped; every refusal is an
OpenAI error object with a 4xx or 5xx status, never a stack trace, and a server-side
failure reaches the client as a fixed sentence and an id, its detail only in the log. A
client that goes away cancels its request: queued, it is dropped; generating, it stops at
the next token.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from sse_starlette import EventSourceResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from stepchat.core import jsonextract as strict_json
from stepchat.core.events import PipelineEvent, RouteEvent, TokenEvent, ignore_events
from stepchat.core.ports import BackendError, GenerationCancelled, PromptTooLong, StoreError
from stepchat.core.prompt import PromptError, accept_prompt
from stepchat.core.types import Answer, TaskKind
from stepchat.serve.accesslog import CLIENT_GONE, AccessLog, log_failure, record_answer
from stepchat.serve.guard import HostPolicy, RequestGuard, require_json
from stepchat.serve.lanes import Job, ModelLanes, QueueFull, Served
from stepchat.serve.limits import Counter, Limited, LimitedSender, ReplyLimits
from stepchat.serve.pool import ModelPool
from stepchat.serve.protocol import (
    ApiError,
    ChatRequest,
    ChunkMaker,
    ValidationError,
    completion,
    error_body,
    first_problem,
    refuse_json_format,
    story_headers,
)
from stepchat.serve.schema_format import hold_to_schema, requested_schema
from stepchat.serve.textstream import TextStreamer
from stepchat.serve.turns import split_turns

T = TypeVar("T")
log = logging.getLogger("stepchat.serve")

DEFAULT_MAX_BODY = 1 << 20
"""1 MiB: a prompt is at most 6000 characters; the rest is room for a long history."""
_SWITCHES = {"on": True, "off": False}


class ClientGone(Exception):
    """The client disconnected before its reply was ready."""


class BearerAuth:
    """Refuse any request without the server's bearer token, before routing or reading it."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            body = error_body(
                "missing or wrong bearer token", kind="invalid_request_error",
                code="invalid_api_key",
            )
            reply = JSONResponse(body, 401, headers={"WWW-Authenticate": "Bearer"})
            await reply(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        given = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                given = value
        scheme, _, credential = given.partition(b" ")
        # compare_digest takes the same time wherever the first difference is.
        matches = hmac.compare_digest(credential.strip(), self._token)
        return scheme.lower() == b"bearer" and matches


def _too_large(limit: int) -> ApiError:
    return ApiError(413, f"request body is over the {limit}-byte limit",
                    code="request_too_large")


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """The body as a JSON object, refused past `limit` bytes whatever Content-Length says,
    and refused unless it is declared JSON (what a web form cannot send unasked)."""
    require_json(request.headers.get("content-type"))
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _too_large(limit)
    try:
        data = strict_json.loads(bytes(body))
    except ValueError as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def _switch(request: Request, header: str) -> bool:
    value = request.headers.get(header, "on").strip().lower()
    if value not in _SWITCHES:
        raise ApiError(400, f"{header} must be 'on' or 'off', not {value!r}", param=header)
    return _SWITCHES[value]


async def _disconnected(request: Request) -> None:
    """Return when the client goes away (the body has been read; only that can arrive)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def settle(*tasks: asyncio.Future[Any]) -> None:
    """Cancel what still runs of `tasks` and wait until each has ended, its outcome read:
    a task left pending would run on for no one, and asyncio reports one collected
    pending ("Task was destroyed but it is pending!") or failed unread."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def until_gone(work: Coroutine[Any, Any, T], request: Request) -> T:
    """Await `work`, or cancel it and raise ClientGone if the client disconnects first."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnected(request))
    try:
        done, _ = await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        raise ClientGone()
    finally:
        await settle(task, watch)


def failure(exc: Exception) -> ApiError:
    """What a failed request tells its client: one line, the right status."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, QueueFull):
        return ApiError(503, str(exc), kind="server_error", code="queue_full",
                        headers={"Retry-After": str(exc.retry_after)})
    if isinstance(exc, PromptError):
        return ApiError(400, str(exc), param="messages")
    if isinstance(exc, GenerationCancelled):
        return ApiError(499, "cancelled", kind="server_error", code="cancelled")
    if isinstance(exc, PromptTooLong):
        # The sender's to fix, and said in stepchat's own words (the model's id and two
        # counts), so the line is safe to pass on, in OpenAI's shape for it.
        return ApiError(400, str(exc), param="messages", code="context_length_exceeded")
    # What a model, a store or a bug says can name URLs, paths and keys: the client gets
    # a fixed sentence and an id, the operator the detail under that id.
    if isinstance(exc, BackendError):
        error_id = log_failure("the model failed", exc)
        return ApiError(502, f"the model failed (error {error_id}; the detail is in the "
                        "server's log)", kind="server_error", code="model_error")
    if isinstance(exc, StoreError):
        error_id = log_failure("the cache failed", exc)
        return ApiError(500, f"the cache failed (error {error_id}; the detail is in the "
                        "server's log)", kind="server_error", code="store_error")
    error_id = log_failure(f"unexpected {type(exc).__name__}", exc, trace=True)
    return ApiError(500, f"internal error (error {error_id}; the detail is in the server's "
                    "log)", kind="server_error")


def _error_reply(exc: Exception) -> JSONResponse:
    error = failure(exc)
    return JSONResponse(error.body(), error.status, headers=error.headers)


class _Reply:
    """One request's answer task and the events it emits, read in order on the loop.

    The task's end is queued after its events (events reach the loop before the result
    does), so a reader waits on the queue alone: no helper task is left waiting when a
    reader is cancelled (its client went away)."""

    def __init__(self, lanes: ModelLanes, job: Job) -> None:
        self.job = job
        self.events: asyncio.Queue[PipelineEvent | None] = asyncio.Queue()
        self.task: asyncio.Task[Served] = asyncio.ensure_future(
            lanes.answer(job, self.events.put_nowait)
        )
        self.task.add_done_callback(lambda _: self.events.put_nowait(None))
        self._ended = False

    async def next_event(self) -> PipelineEvent | None:
        """The next event, or None once the answer is done and every event was read."""
        if self._ended:
            return None
        event = await self.events.get()
        self._ended = event is None
        return event

    async def close(self) -> None:
        """Stop the answer if it still runs (a generation stops at its next token) and
        wait until it has ended."""
        await settle(self.task)

    async def headway(self) -> list[PipelineEvent]:
        """Events up to the moment the reply can start: the answer is done, or an answer
        that streams (open text) has started to (its path is then final: such an answer is
        reused whole or not at all)."""
        held: list[PipelineEvent] = []
        streams = False
        while (event := await self.next_event()) is not None:
            held.append(event)
            if isinstance(event, RouteEvent):
                streams = event.delivery.streams
            elif isinstance(event, TokenEvent) and streams:
                break
        return held


def _sse(data: dict[str, Any] | str) -> dict[str, str]:
    return {"data": data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)}


async def limited(answer: Answer, limits: ReplyLimits, count: Counter) -> Limited:
    """What of `answer` the request gets back (counting tokens off the event loop)."""
    if not limits.active:
        return Limited(answer.text, answer.finish_reason)
    return await asyncio.to_thread(limits.apply, answer.text, answer.finish_reason, count)


async def stream_reply(
    reply: _Reply,
    held: list[PipelineEvent],
    request: ChatRequest,
    scope: Scope,
    count: Counter,
) -> ReplyStream:
    """The answer as server-sent `chat.completion.chunk`s, ended by `data: [DONE]`."""
    maker = ChunkMaker(request.model)
    limits = request.limits()
    live = not reply.task.done()
    if live:
        routes = [e for e in held if isinstance(e, RouteEvent)]
        path = str(routes[-1].path) if routes else "miss"
        headers = {"x-stepchat-path": path, "x-stepchat-tokens-saved": "0"}
    else:
        headers = story_headers(reply.task.result().answer)
    with_usage = bool(request.stream_options and request.stream_options.include_usage)

    shutdown = anyio.Event()

    async def chunks() -> AsyncIterator[dict[str, str]]:
        streamer = TextStreamer() if live else None
        sender = LimitedSender(limits, count)
        yield _sse(maker.delta("", role=True))
        pending: list[PipelineEvent] = list(held)
        while True:
            for event in pending:
                if streamer is not None and isinstance(event, TokenEvent):
                    if not streamer.feed(event.text):
                        continue
                    if limits.max_tokens is None:
                        piece = sender.offer(streamer.sent)
                    else:
                        piece = await asyncio.to_thread(sender.offer, streamer.sent)
                    if piece:
                        yield _sse(maker.delta(piece))
            try:
                upcoming = await _unless_set(reply.next_event(), shutdown)
            except _Stopping:
                yield _sse(SHUTTING_DOWN.body())
                return
            if upcoming is None:
                break
            pending = [upcoming]
        try:
            served = reply.task.result()
            returned = await limited(served.answer, limits, count)
        except Exception as exc:
            yield _sse(failure(exc).body())
            return
        rest = sender.finish(returned.text)
        if rest is None:
            log.warning("stepchat serve: streamed text differs from the answer returned")
            rest = ""
        for line in rest.splitlines(keepends=True):
            yield _sse(maker.delta(line))
        record_answer(scope, served.answer)
        last = maker.finish(served.answer, served.lane, returned)
        if with_usage:
            # The extension field rides on the very last chunk, the usage one here.
            story = last.pop("stepchat")
            yield _sse(last)
            last = {**maker.usage(served.answer), "stepchat": story}
        yield _sse(last)
        yield _sse("[DONE]")

    return ReplyStream(reply, chunks(), headers=headers, ping=15, shutdown_event=shutdown,
                       shutdown_grace_period=SHUTDOWN_GRACE_SECONDS)


SHUTDOWN_GRACE_SECONDS = 2.0
"""How long a stream has, once the server is told to stop, to send its last event."""
SHUTTING_DOWN = ApiError(503, "the server is shutting down: the answer was not finished",
                         kind="server_error", code="server_shutdown")
"""What a stream cut by the server's own stop ends with (it ended as if complete, with no
event a client could tell from a finished answer)."""


class _Stopping(Exception):
    """The server was told to stop before the answer's next event."""


async def _unless_set(
    step: Awaitable[PipelineEvent | None], stop: anyio.Event
) -> PipelineEvent | None:
    """`step`'s result, or `_Stopping` once `stop` is set first (`step` is then cancelled:
    reading the answer's events is safe to abandon, the stream's end stops the answer)."""
    reading = asyncio.ensure_future(step)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:  # cancelled too (the client went away): neither is left pending
        stopping.cancel()
        if not reading.done():
            reading.cancel()
    if reading.done() and not reading.cancelled():
        return reading.result()
    raise _Stopping


class ReplyStream(EventSourceResponse):
    """A streamed reply that ends its answer with it. However the stream stops (sent
    whole, or the client went away before the first chunk or mid-answer), the answer
    task is cancelled if it still runs and awaited: a generation no one reads stops at its
    next token, and no task is left pending. Done here rather than in the chunks'
    generator, which never runs its cleanup when it is closed before its first chunk."""

    def __init__(self, reply: _Reply, content: AsyncIterator[dict[str, str]],
                 **options: Any) -> None:
        super().__init__(content, **options)
        self.reply = reply

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.reply.close()


def create_app(
    pool: ModelPool,
    *,
    token: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    hosts: HostPolicy | None = None,
    origins: Sequence[str] = (),
) -> FastAPI:
    """The API over `pool`; with `token`, every request must carry it as a bearer token.
    `hosts`: the Host headers accepted (default: a loopback server's names); `origins`:
    the web pages allowed to call it (default: none)."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await asyncio.to_thread(pool.close)

    app = FastAPI(
        title="stepchat", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    # A redirect to the path without its final slash is a 307 with no body, which an
    # OpenAI client reports as an empty error; a 404 says what to change.
    app.router.redirect_slashes = False
    # The last added runs first: the log sees every request, the guard refuses a foreign
    # Host or Origin before CORS answers a preflight or the token is looked at.
    if token:
        app.add_middleware(BearerAuth, token=token)
    if origins:
        app.add_middleware(
            CORSMiddleware, allow_origins=list(origins), allow_methods=["GET", "POST"],
            allow_headers=["*"], expose_headers=["x-stepchat-path", "x-stepchat-tokens-saved"],
        )
    app.add_middleware(RequestGuard, hosts=hosts or HostPolicy(), origins=origins)
    app.add_middleware(AccessLog)
    _add_error_handlers(app)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """Up: the server answers (cache hits included) while its parts may still load."""
        return {
            "status": "ok" if pool.ready else "loading",
            "models": [
                {"id": model_id, "queued": lanes.model_lane.waiting,
                 "loaded": pool.loaded(model_id)}
                for model_id, lanes in pool.lanes.items()
            ],
        }

    @app.get("/health/ready")
    async def ready() -> JSONResponse:
        """200 once every part is loaded (no request will wait for a load), else 503."""
        loaded = pool.ready
        return JSONResponse({"status": "ok" if loaded else "loading"},
                            status_code=200 if loaded else 503)

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [_model_card(m) for m in pool.ids]}

    @app.get("/v1/models/{model_id}")
    async def model(model_id: str) -> dict[str, Any]:
        pool.get(model_id)
        return _model_card(model_id)

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        data = await read_json(request, max_body)
        try:
            body = ChatRequest.model_validate(data)
        except ValidationError as exc:
            raise first_problem(exc, data) from None
        body.refuse_calls()
        body.refuse_unhonoured()
        lanes = pool.get(body.model)
        turns = split_turns(body.messages)
        schema = requested_schema(body)
        if body.wants_json:
            kind = await asyncio.to_thread(request_kind, lanes, turns.prompt,
                                           turns.system_prompt)
            if kind != TaskKind.JSON:
                raise refuse_json_format(body, kind)
        count = lanes.engine.backend.count_tokens
        job = Job(
            turns.prompt,
            turns.history,
            turns.system_prompt,
            reuse=_switch(request, "x-stepchat-reuse"),
            store=_switch(request, "x-stepchat-store"),
        )
        if unkeyed := body.unkeyed():
            job.reuse = job.store = False
            job.notes.append(unkeyed_note(unkeyed))
        if schema is None and not (job.store and not job.in_conversation):
            # Never stored (store off, or a follow-up): the whole answer would be written
            # only to be cut to max_tokens. A schema is checked on the whole object.
            job.max_tokens = body.limits().max_tokens
        if body.stream:
            reply = _Reply(lanes, job)
            try:
                held = await until_gone(reply.headway(), request)
                if schema is not None and not reply.task.done():
                    # A JSON object is delivered whole, so this does not wait; were it
                    # streamed, its schema could only be checked once it is written.
                    await until_gone(asyncio.wait({reply.task}), request)
            except ClientGone:
                await reply.close()
                raise
            if reply.task.done() and reply.task.exception() is not None:
                return _error_reply(reply.task.exception())  # type: ignore[arg-type]
            if schema is not None:
                hold_to_schema(reply.task.result().answer.text, schema, body.limits().stops)
            return await stream_reply(reply, held, body, request.scope, count)
        served = await until_gone(lanes.answer(job, ignore_events), request)
        record_answer(request.scope, served.answer)
        if schema is not None:
            hold_to_schema(served.answer.text, schema, body.limits().stops)
        returned = await limited(served.answer, body.limits(), count)
        return JSONResponse(
            completion(served.answer, body.model, served.lane, returned),
            headers=story_headers(served.answer),
        )

    return app


def unkeyed_note(fields: Sequence[str]) -> str:
    return (f"not cached: neither the model nor the cache key reads {', '.join(fields)}, "
            "so the answer is neither reused nor stored")


def request_kind(lanes: ModelLanes, prompt: str, system_prompt: str | None) -> str:
    """The kind of request the engine will take `prompt` for when it answers it under
    `system_prompt` (None: the configured one); detection reads the request and the system
    prompt alone, not the cache or the model."""
    _, task = lanes.engine.detect_within(accept_prompt(prompt), system_prompt)
    return str(task.kind)


def _model_card(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "stepchat"}


_ROUTING_CODES = {404: "not_found", 405: "method_not_allowed"}
"""The error `code` of the refusals routing makes itself, as every refusal of the server's
own carries one a client can test for."""


def _add_error_handlers(app: FastAPI) -> None:
    async def refused(_: Request, exc: Exception) -> Response:
        if isinstance(exc, ClientGone):
            return Response(status_code=CLIENT_GONE)
        return _error_reply(exc)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        kind = "invalid_request_error" if exc.status_code < 500 else "server_error"
        code = _ROUTING_CODES.get(exc.status_code)
        message = str(exc.detail)
        path = request.url.path
        if exc.status_code == 404 and len(path) > 1 and path.endswith("/"):
            message = f"no endpoint {path}: the path is {path.rstrip('/')}, without the final /"
        return JSONResponse(
            error_body(message, kind=kind, code=code), exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    handlers: dict[type[Exception], Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPException: http_error,
        Exception: refused,
    }
    expected: tuple[type[Exception], ...] = (
        ApiError, ClientGone, QueueFull, PromptError, BackendError, StoreError,
        GenerationCancelled,
    )
    for error in expected:
        handlers[error] = refused
    for error, handler in handlers.items():
        app.add_exception_handler(error, handler)
