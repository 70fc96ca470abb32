"""A backend for any OpenAI-compatible chat server (llama.cpp's server, vLLM, Ollama, ...).

It speaks `/v1/chat/completions` with server-sent events through httpx2, which brings the
timeouts, connection reuse and the SSE reader. The openai SDK (what `llm` uses) would also
do, but it costs about two seconds of import, retries on its own and wraps errors and
replies in types this module would have to undo: the response-format negotiation and the
one-line errors below are the only parts of the protocol stepchat needs to own.

JSON requests are constrained through the server's `response_format`. Servers disagree on
its shape: OpenAI, vLLM, LM Studio and llama.cpp's own server take `json_schema`;
llama-cpp-python's server takes `json_object` with a `schema`; some take neither. The first
JSON request tries them in that order and the backend keeps the first one the server
accepts; a server that accepts none gets plain requests, and the JSON task's one-shot
repair deals with what comes back.

A prompt over the server's context is `PromptTooLong`, as from a local model, however the
server says it (`over_context`): the request's sender can shorten it, and `serve` passes
that on as a 400 rather than as a failing model.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx2

from stepchat.backends.streaming import read_chunks
from stepchat.core.ports import BackendError, CancelToken, GenerationCancelled, PromptTooLong
from stepchat.core.types import ChatMessage, Completion
from stepchat.settings import ServerSpec

# Characters per token for English text under BPE tokenizers; used only when the server
# reports no usage, so counts stay plausible rather than exact.
_CHARS_PER_TOKEN = 4
# Chat templates wrap every message in a few role and separator tokens.
_TOKENS_PER_MESSAGE = 4


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate of what `text` costs: about one token per four characters."""
    return math.ceil(len(text) / _CHARS_PER_TOKEN) if text else 0


JSON_FORMATS: tuple[str | None, ...] = ("json_schema", "json_object", None)
"""`response_format` shapes tried in order for schema-constrained replies (None: plain)."""
_REJECTED = frozenset({400, 422, 500})
"""Statuses with which servers refuse a field they do not understand (llama-cpp-python's
server answers a failed validation with 500)."""


def api_root(base_url: str) -> str:
    """The server's `/v1` URL, whether `base_url` names the server root or its `/v1`."""
    root = base_url.rstrip("/")
    return root if root.endswith("/v1") else root + "/v1"


def chat_url(base_url: str) -> str:
    """The completions endpoint."""
    return api_root(base_url) + "/chat/completions"


def response_format(shape: str | None, schema: dict[str, Any]) -> dict[str, Any] | None:
    if shape == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    if shape == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


class HttpStatusError(BackendError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _auth_headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _reason(exc: httpx2.TransportError) -> str:
    """The transport's own words for a failure, or its kind when it has none."""
    return str(exc) or type(exc).__name__


def probe_server(base_url: str, api_key: str | None = None, timeout: float = 2.0) -> None:
    """Raise BackendError (one line) unless the server lists its models at `/v1/models`."""
    url = api_root(base_url) + "/models"
    try:
        reply = httpx2.get(url, headers=_auth_headers(api_key), timeout=timeout)
    except httpx2.TimeoutException:
        raise BackendError(f"{url}: no answer within {timeout:g} s") from None
    except httpx2.TransportError as exc:
        raise BackendError(f"cannot reach {url}: {_reason(exc)}") from None
    if reply.is_error:
        raise BackendError(f"{url}: HTTP {reply.status_code}: {_error_detail(reply.content)}")


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _error_object(body: bytes) -> Any:
    """The error a body holds: OpenAI's `error` object (FastAPI's `detail`), else the body
    as parsed, or as text when it is not JSON."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")
    return data.get("error", data.get("detail", data)) if isinstance(data, dict) else data


def _error_detail(body: bytes) -> str:
    """The server's own error message when the body is an OpenAI error object."""
    err = _error_object(body)
    if isinstance(err, dict) and "message" in err:
        return _one_line(str(err["message"]))
    return _one_line(err if isinstance(err, str) else json.dumps(err))


_OVER_CONTEXT_WORDS = re.compile(
    r"context (?:length|window|size)\b.*\bexceed|\bexceeds?\b.*\bcontext (?:length|window|size)"
    r"|maximum context length", re.IGNORECASE,
)
_CONTEXT_SIZE = re.compile(
    r"(?:maximum context length is|context (?:window|size) of|configured limit of) (\d+)",
    re.IGNORECASE,
)
_PROMPT_SIZE = re.compile(
    r"(\d+) in the messages|resulted in (\d+) tokens|has (\d+) input tokens"
    r"|Requested tokens \((\d+)\)", re.IGNORECASE,
)


def _first_number(pattern: re.Pattern[str], text: str) -> int | None:
    found = pattern.search(text)
    return None if found is None else int(next(g for g in found.groups() if g))


def over_context(body: bytes) -> tuple[int | None, int | None] | None:
    """The prompt's tokens and the context (each None where not stated) when an error body
    says the prompt is over the model's context, else None. Servers say it their own way:
    OpenAI, vLLM and llama-cpp-python's server with `code: context_length_exceeded` or a
    message ("This model's maximum context length is 2048 tokens. However, you requested
    2500 tokens (2400 in the messages, ...)"), llama.cpp's server with `type:
    exceed_context_size_error` and `n_prompt_tokens`, `n_ctx`."""
    err = _error_object(body)
    fields = err if isinstance(err, dict) else {}
    message = str(fields.get("message", "") if fields else err)
    said = fields.get("code") == "context_length_exceeded" or (
        fields.get("type") == "exceed_context_size_error"
    )
    if not said and not _OVER_CONTEXT_WORDS.search(message):
        return None
    tokens, context = fields.get("n_prompt_tokens"), fields.get("n_ctx")
    return (
        tokens if isinstance(tokens, int) else _first_number(_PROMPT_SIZE, message),
        context if isinstance(context, int) else _first_number(_CONTEXT_SIZE, message),
    )


class OpenAIHttpBackend:
    """Chat completions from a server over HTTP, streamed token by token.

    `model` is the name the server expects; `model_id` (default: the same) names the entry
    in stepchat, and so the cache scope, so two servers that both call their model
    "default" never share answers.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        *,
        model_id: str | None = None,
        context: int | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = 42,
    ) -> None:
        self.base_url = base_url
        self.url = chat_url(base_url)
        self.served_model = model
        self.model_id = model_id or model
        self.context = context
        self._api_key = api_key
        self._timeout = timeout
        self._client = self._connect()
        self._temperature = temperature
        self._top_p = top_p
        self._seed = seed
        self._json_format = 0
        """Index into JSON_FORMATS of the shape this server accepts (learned on first use)."""

    def _connect(self) -> httpx2.Client:
        return httpx2.Client(timeout=self._timeout, headers=_auth_headers(self._api_key))

    def _reconnect(self) -> None:
        """New connections for the next request: the server may have closed the pooled
        one without the pool knowing."""
        self._client.close()
        self._client = self._connect()

    @classmethod
    def from_spec(cls, spec: ServerSpec) -> OpenAIHttpBackend:
        """The backend a `kind = "openai"` entry describes; the key is read from its variable."""
        return cls(
            spec.base_url,
            spec.model,
            spec.api_key(),
            spec.timeout_s,
            model_id=spec.id,
            context=spec.context,
            temperature=spec.temperature,
            top_p=spec.top_p,
            seed=spec.seed,
        )

    def __repr__(self) -> str:  # the key never appears in logs or tracebacks
        return f"OpenAIHttpBackend({self.url!r}, model={self.served_model!r})"

    def load(self) -> float:
        """Nothing to load (the server holds the model), but check that the server answers,
        so an unreachable one is reported when the model is selected, not mid-answer.
        Returns the seconds the check took."""
        started = time.perf_counter()
        try:
            probe_server(self.base_url, self._api_key, timeout=min(self._timeout, 10.0))
        except BackendError as exc:
            raise BackendError(
                f"model {self.model_id}: {exc} (fix: start the server or correct base_url)"
            ) from None
        return time.perf_counter() - started

    @property
    def json_format(self) -> str | None:
        """The `response_format` shape in use for JSON replies (None: plain text + repair)."""
        return JSON_FORMATS[self._json_format]

    def count_tokens(self, text: str) -> int:
        """An estimate: the OpenAI API has no tokenizer endpoint to ask."""
        return estimate_tokens(text)

    def _prompt_estimate(self, messages: Sequence[ChatMessage]) -> int:
        return sum(estimate_tokens(m.content) + _TOKENS_PER_MESSAGE for m in messages)

    def _body(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        stop: Sequence[str],
        json_schema: dict[str, Any] | None,
        stream: bool = True,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.served_model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": self._temperature,
            "top_p": self._top_p,
            "stream": stream,
        }
        if stream:
            body["stream_options"] = {"include_usage": True}
        if self._seed is not None:
            body["seed"] = self._seed
        if stop:
            body["stop"] = list(stop)
        if json_schema is not None:
            shape = response_format(self.json_format, json_schema)
            if shape is not None:
                body["response_format"] = shape
        return body

    def _open(self, body: dict[str, Any]) -> httpx2.Response:
        """The reply to `body` with its headers read and its body still streaming; the
        caller closes it. Failures before the first byte of the body are one line."""
        request = self._client.build_request(
            "POST", self.url, json=body, headers={"Accept": "text/event-stream"}
        )
        try:
            response = self._client.send(request, stream=True)
            if response.is_error:
                try:
                    said = response.read()
                finally:
                    response.close()
                raise self._refusal(response.status_code, said)
        except httpx2.TimeoutException:
            raise BackendError(
                f"{self.url}: no answer within {self._timeout:g} s "
                "(fix: check the server or raise the timeout)"
            ) from None
        except httpx2.ConnectError as exc:
            raise BackendError(
                f"cannot reach {self.url}: {_reason(exc)} "
                "(fix: start the server or correct its address)"
            ) from None
        except httpx2.TransportError as exc:
            raise BackendError(f"{self.url}: {_reason(exc)}") from None
        return response

    def _refusal(self, status: int, body: bytes) -> BackendError:
        """The error for an HTTP error reply: a prompt over the context (a 400 saying so)
        is `PromptTooLong`, in stepchat's words; anything else names the status and what
        the server said."""
        sizes = over_context(body) if status == 400 else None
        if sizes is not None:
            tokens, context = sizes
            return PromptTooLong.for_model(self.model_id, tokens, context or self.context)
        return HttpStatusError(f"{self.url}: HTTP {status}: {_error_detail(body)}", status)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Completion:
        """One reply, streamed; counts come from the server's `usage` when it sends one."""
        if cancel is not None and cancel.is_set():
            raise GenerationCancelled()
        started = time.perf_counter()
        max_tokens = self._fit(messages, max_tokens)
        if max_tokens <= 0:
            return Completion("", self._prompt_estimate(messages), 0, "length")
        request = (messages, max_tokens, stop, json_schema)
        reply = self._reply(self._send(*request), on_token, cancel)
        if reply is None:
            # A server may end a stream before its first event when the request fails there
            # (llama-cpp-python's server does, for a prompt over its context, and then drops
            # the connection): asked again without streaming, it says why with a status.
            self._reconnect()
            reply = self._reply(self._send(*request, stream=False), on_token, cancel)
        text, usage, finish = reply or ("", {}, "")
        prompt_tokens = usage.get("prompt_tokens")
        completion_tokens = usage.get("completion_tokens")
        return Completion(
            text=text,
            prompt_tokens=int(prompt_tokens)
            if prompt_tokens is not None
            else self._prompt_estimate(messages),
            completion_tokens=int(completion_tokens)
            if completion_tokens is not None
            else estimate_tokens(text),
            finish_reason=finish,
            elapsed_ms=(time.perf_counter() - started) * 1000.0,
        )

    def _reply(
        self,
        response: httpx2.Response,
        on_token: Callable[[str], None] | None,
        cancel: CancelToken | None,
    ) -> tuple[str, dict[str, Any], str] | None:
        """The text, usage and finish reason of an open reply, which it closes; None for a
        stream that ended before its first chunk."""
        try:
            if "text/event-stream" in response.headers.get("Content-Type", ""):
                return self._read_stream(response, on_token, cancel)
            return self._read_whole(response, on_token)
        except httpx2.TimeoutException:
            raise BackendError(
                f"{self.url}: stream stalled for {self._timeout:g} s (fix: check the server)"
            ) from None
        except httpx2.TransportError as exc:
            raise BackendError(f"{self.url}: connection lost mid-reply: {_reason(exc)}") from None
        finally:
            response.close()

    def _fit(self, messages: Sequence[ChatMessage], max_tokens: int) -> int:
        """The reply budget within `context`; a prompt that alone overflows it is an error."""
        if self.context is None:
            return max_tokens
        room = self.context - self._prompt_estimate(messages)
        if room <= 0:
            raise PromptTooLong.for_model(self.model_id, context=self.context)
        return min(max_tokens, room)

    def _send(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        stop: Sequence[str],
        json_schema: dict[str, Any] | None,
        stream: bool = True,
    ) -> httpx2.Response:
        """Open the reply; a JSON request the server refuses is retried in the next shape.

        The shape that worked is kept. When even a plain request is refused, the refusal
        was not about the shape: the learned shape is restored and the error raised.
        """
        start = self._json_format
        while True:
            try:
                return self._open(self._body(messages, max_tokens, stop, json_schema, stream))
            except HttpStatusError as exc:
                if json_schema is None:
                    raise
                refused_shape = exc.status in _REJECTED and "response_format" in str(exc)
                if refused_shape and self._json_format < len(JSON_FORMATS) - 1:
                    self._json_format += 1
                    continue
                self._json_format = start
                raise

    def _read_stream(
        self,
        response: httpx2.Response,
        on_token: Callable[[str], None] | None,
        cancel: CancelToken | None,
    ) -> tuple[str, dict[str, Any], str] | None:
        chunks = self._chunks(response)
        first = next(chunks, None)
        if first is None:
            return None
        reply = read_chunks(itertools.chain([first], chunks), on_token, cancel)
        return reply.text, reply.usage, reply.finish

    def _chunks(self, response: httpx2.Response) -> Iterator[dict[str, Any]]:
        """The stream's chunks, up to the `[DONE]` that ends it."""
        for event in httpx2.EventSource(response):
            if event.data.strip() == "[DONE]":
                return
            yield self._parse(event.data)

    def _read_whole(
        self, response: httpx2.Response, on_token: Callable[[str], None] | None
    ) -> tuple[str, dict[str, Any], str]:
        """A server that ignored `stream: true` and sent one JSON reply."""
        data = self._parse(response.read().decode("utf-8", "replace"))
        choices = data.get("choices") or [{}]
        text = str((choices[0].get("message") or {}).get("content") or "")
        if text and on_token is not None:
            on_token(text)
        return text, data.get("usage") or {}, str(choices[0].get("finish_reason") or "")

    def _parse(self, payload: str) -> dict[str, Any]:
        try:
            data = json.loads(payload)
        except ValueError:
            raise BackendError(
                f"{self.url}: not an OpenAI-compatible reply: {_one_line(payload, 80)}"
            ) from None
        if not isinstance(data, dict):
            raise BackendError(f"{self.url}: unexpected reply: {_one_line(payload, 80)}")
        if "error" in data:
            raise BackendError(f"{self.url}: {_error_detail(payload.encode())}")
        return data
