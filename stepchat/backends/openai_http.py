"""A backend for any OpenAI-compatible chat server (llama.cpp's server, vLLM, Ollama, ...).

It speaks `/v1/chat/completions` with server-sent events through the standard library only,
so pointing stepchat at a bigger model on another machine costs no extra dependency. JSON
requests carry `response_format: {"type": "json_object", "schema": ...}`, which llama.cpp's
servers turn into a grammar, so the reply parses by construction.
"""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from stepchat.core.ports import BackendError, CancelToken, GenerationCancelled
from stepchat.core.types import ChatMessage, Completion

# Characters per token for English text under BPE tokenizers; used only when the server
# reports no usage, so counts stay plausible rather than exact.
_CHARS_PER_TOKEN = 4
# Chat templates wrap every message in a few role and separator tokens.
_TOKENS_PER_MESSAGE = 4


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate of what `text` costs: about one token per four characters."""
    return math.ceil(len(text) / _CHARS_PER_TOKEN) if text else 0


def chat_url(base_url: str) -> str:
    """The completions endpoint, whether `base_url` names the server root or its `/v1`."""
    root = base_url.rstrip("/")
    if not root.endswith("/v1"):
        root += "/v1"
    return root + "/chat/completions"


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _error_detail(body: bytes) -> str:
    """The server's own error message when the body is an OpenAI error object."""
    try:
        data = json.loads(body)
    except ValueError:
        return _one_line(body.decode("utf-8", "replace"))
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data))
        if isinstance(err, dict) and "message" in err:
            return _one_line(str(err["message"]))
        return _one_line(json.dumps(err))
    return _one_line(str(data))


def sse_events(stream: IO[bytes]) -> Iterator[str]:
    """The `data:` payloads of a server-sent event stream, one per event.

    Comment lines (keep-alives) and other fields are skipped; multi-line data is joined with
    newlines as the SSE specification says.
    """
    data: list[str] = []
    for raw in stream:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value.removeprefix(" "))
    if data:
        yield "\n".join(data)


class OpenAIHttpBackend:
    """Chat completions from a server over HTTP, streamed token by token."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        *,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = 42,
    ) -> None:
        self.url = chat_url(base_url)
        self.model_id = model
        self._api_key = api_key
        self._timeout = timeout
        self._temperature = temperature
        self._top_p = top_p
        self._seed = seed

    def load(self) -> float:
        """Nothing to load here: the server holds the model; the first request connects."""
        return 0.0

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
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": self._temperature,
            "top_p": self._top_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self._seed is not None:
            body["seed"] = self._seed
        if stop:
            body["stop"] = list(stop)
        if json_schema is not None:
            body["response_format"] = {"type": "json_object", "schema": json_schema}
        return body

    def _open(self, body: dict[str, Any]) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            return urllib.request.urlopen(request, timeout=self._timeout)
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc.read())
            raise BackendError(f"{self.url}: HTTP {exc.code}: {detail}") from None
        except urllib.error.URLError as exc:
            raise BackendError(
                f"cannot reach {self.url}: {exc.reason} "
                "(fix: start the server or correct its address)"
            ) from None
        except TimeoutError:
            raise BackendError(
                f"{self.url}: no answer within {self._timeout:g} s "
                "(fix: check the server or raise the timeout)"
            ) from None
        except OSError as exc:
            raise BackendError(f"{self.url}: {exc.strerror or exc}") from None

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
        if max_tokens <= 0:
            return Completion("", self._prompt_estimate(messages), 0, "length")
        response = self._open(self._body(messages, max_tokens, stop, json_schema))
        with response:
            content_type = response.headers.get("Content-Type", "")
            if "text/event-stream" in content_type:
                text, usage, finish = self._read_stream(response, on_token, cancel)
            else:
                text, usage, finish = self._read_whole(response, on_token)
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

    def _read_stream(
        self,
        response: IO[bytes],
        on_token: Callable[[str], None] | None,
        cancel: CancelToken | None,
    ) -> tuple[str, dict[str, Any], str]:
        pieces: list[str] = []
        usage: dict[str, Any] = {}
        finish = "stop"
        try:
            for payload in sse_events(response):
                if cancel is not None and cancel.is_set():
                    raise GenerationCancelled()
                if payload.strip() == "[DONE]":
                    break
                chunk = self._parse(payload)
                usage = chunk.get("usage") or usage
                for choice in chunk.get("choices") or []:
                    piece = (choice.get("delta") or {}).get("content")
                    if piece:
                        pieces.append(piece)
                        if on_token is not None:
                            on_token(piece)
                    if choice.get("finish_reason"):
                        finish = str(choice["finish_reason"])
        except TimeoutError:
            raise BackendError(
                f"{self.url}: stream stalled for {self._timeout:g} s (fix: check the server)"
            ) from None
        except (ConnectionError, urllib.error.URLError) as exc:
            raise BackendError(f"{self.url}: connection lost mid-reply: {exc}") from None
        return "".join(pieces), usage, finish

    def _read_whole(
        self, response: IO[bytes], on_token: Callable[[str], None] | None
    ) -> tuple[str, dict[str, Any], str]:
        """A server that ignored `stream: true` and sent one JSON reply."""
        data = self._parse(response.read().decode("utf-8", "replace"))
        choices = data.get("choices") or [{}]
        text = str((choices[0].get("message") or {}).get("content") or "")
        if text and on_token is not None:
            on_token(text)
        return text, data.get("usage") or {}, str(choices[0].get("finish_reason") or "stop")

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
