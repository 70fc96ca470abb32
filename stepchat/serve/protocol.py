"""The OpenAI chat-completions wire format: what a request may carry, what a reply looks like.

Requests are validated with pydantic. Sampling fields (`temperature`, `top_p`, `seed`,
`user`, ...) are accepted and ignored, because the model entry's settings decide how every
cached answer was made. `max_tokens` (or `max_completion_tokens`) and `stop` shape what the
request gets back of the answer (`stepchat.serve.limits`). What the server cannot honour is
refused with a 400 naming the field rather than answered differently: `n` above 1, tools
or functions the model could be asked to call, a JSON `response_format` for a request
that is not answered as a JSON object, and the fields in `UNHONOURED` (log probabilities,
audio, predicted outputs, ...) unless their value changes nothing. Replies follow the
shapes the official clients parse (`chat.completion`, `chat.completion.chunk`, the error
object), with one extension field, `stepchat`, carrying the cache's story of the answer as
the request got it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import ErrorDetails

from stepchat.core.types import Answer
from stepchat.serve.limits import Limited, ReplyLimits

__all__ = ["ApiError", "ChatRequest", "ValidationError"]


class ApiError(Exception):
    """A request the server refuses, answered in OpenAI's error shape."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code
        self.param = param
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return error_body(self.message, kind=self.kind, code=self.code, param=self.param)


def error_body(
    message: str, *, kind: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[TextPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: StrictBool = False


class ResponseFormat(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["text", "json_object", "json_schema"]


MAX_STOPS = 4


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1)
    messages: list[MessageIn] = Field(min_length=1)
    # Strict: pydantic would read "yes", "off", 1 or 0 as a switch, a guess at what the
    # client meant; a JSON boolean is what OpenAI's API takes.
    stream: StrictBool = False
    stream_options: StreamOptions | None = None
    # Strict: `true` is no count (pydantic would read it as 1 and cut the reply to a token).
    n: StrictInt = Field(default=1, ge=1, le=1)
    max_tokens: StrictInt | None = Field(default=None, ge=1)
    max_completion_tokens: StrictInt | None = Field(default=None, ge=1)
    stop: str | list[str] | None = None
    response_format: ResponseFormat | None = None
    tools: list[Any] | None = None
    tool_choice: Any = None
    functions: list[Any] | None = None
    function_call: Any = None

    @field_validator("stream", "n", mode="before")
    @classmethod
    def _null_is_absent(cls, value: Any, info: ValidationInfo) -> Any:
        """`null` is the default, as OpenAI's schema says: clients generated from it send
        every field, unset ones as null."""
        if value is None and info.field_name is not None:
            return cls.model_fields[info.field_name].default
        return value

    @field_validator("stop")
    @classmethod
    def _four_stops_at_most(cls, value: str | list[str] | None) -> str | list[str] | None:
        """OpenAI takes up to four stop sequences; a fifth is refused as it is there."""
        if isinstance(value, list) and len(value) > MAX_STOPS:
            raise ValueError(f"at most {MAX_STOPS} stop sequences, not {len(value)}")
        return value

    def limits(self) -> ReplyLimits:
        """The request's token limit (the smaller if both names are given) and stops."""
        given = [n for n in (self.max_tokens, self.max_completion_tokens) if n is not None]
        stops = [self.stop] if isinstance(self.stop, str) else self.stop or []
        return ReplyLimits(min(given) if given else None, tuple(s for s in stops if s))

    @property
    def wants_json(self) -> bool:
        """Whether `response_format` asks for a JSON object (json_object or json_schema)."""
        return self.response_format is not None and self.response_format.type != "text"

    def refuse_calls(self) -> None:
        """Refuse tools and functions the model could be asked to call: the server answers
        with text only and never makes a call, so their presence would go unanswered."""
        for offered, choice in (("tools", "tool_choice"), ("functions", "function_call")):
            chosen = getattr(self, choice)
            if chosen is not None and chosen != "none":
                raise ApiError(
                    400, f"{choice} {_shown(chosen)} is not supported: this server makes no "
                    f"tool calls (send no {choice}, or {choice} \"none\")",
                    param=choice, code="unsupported_parameter",
                )
            if getattr(self, offered) and chosen is None:
                raise ApiError(
                    400, f"{offered} are not supported: this server makes no tool calls "
                    f"(send no {offered}, or {choice} \"none\")",
                    param=offered, code="unsupported_parameter",
                )


    def unkeyed(self) -> list[str]:
        """The fields this request carries that reach neither the model nor the cache key:
        tools offered under `tool_choice` "none" (a local model is sent no definitions) and
        a message's `name` (a local chat template has no place for it). Two requests that
        differ only in them ("I can call get_weather", "You are Alice") would share an
        answer, so a request carrying one is neither served from nor written to the cache."""
        fields = [name for name in ("tools", "functions") if getattr(self, name)]
        for index, message in enumerate(self.messages):
            if (message.model_extra or {}).get("name") not in (None, ""):
                fields.append(f"messages.{index}.name")
        return fields

    def refuse_unhonoured(self) -> None:
        """Refuse the fields in `UNHONOURED` unless their value changes nothing."""
        extra = self.model_extra or {}
        for name, harmless, why in UNHONOURED:
            if name in extra and not harmless(extra[name], self):
                raise ApiError(
                    400, f"{name} is not supported: {why}", param=name,
                    code="unsupported_parameter",
                )
        options = self.stream_options.model_extra if self.stream_options else None
        if options:
            key = next(iter(options))
            raise ApiError(
                400, f"stream_options.{key} is not supported: of stream_options this server "
                "honours include_usage only", param=f"stream_options.{key}",
                code="unsupported_parameter",
            )


def _offers_calls(request: ChatRequest) -> bool:
    return bool(request.tools or request.functions)


UNHONOURED: tuple[tuple[str, Callable[[Any, ChatRequest], bool], str], ...] = (
    ("logprobs", lambda v, _: v is None or v is False,
     "this server returns no log probabilities (send no logprobs, or logprobs false)"),
    ("top_logprobs", lambda v, _: v is None or (type(v) is int and v == 0),
     "this server returns no log probabilities (send no top_logprobs, or 0)"),
    ("modalities", lambda v, _: v is None or (isinstance(v, list) and set(v) <= {"text"}),
     'this server answers with text only (send no modalities, or ["text"])'),
    ("audio", lambda v, _: v is None,
     "this server answers with text only (send no audio)"),
    ("prediction", lambda v, _: v is None,
     "this server does not use predicted outputs (send no prediction)"),
    ("echo", lambda v, _: v is None or v is False,
     "this server does not repeat the prompt in its reply (send no echo, or echo false)"),
    ("suffix", lambda v, _: v is None,
     "this server does not complete text before a suffix (send no suffix)"),
    ("logit_bias", lambda v, _: v is None or v == {},
     "this server does not bias the model's tokens (send no logit_bias, or an empty one)"),
    ("parallel_tool_calls", lambda v, request: v is None or not _offers_calls(request),
     "this server makes no tool calls (send no parallel_tool_calls with tools)"),
    ("web_search_options", lambda v, _: v is None,
     "this server does not search the web (send no web_search_options)"),
)
"""Fields a request may name that the server cannot honour: a request naming one with
another value than the harmless one (a default that changes nothing) is refused with a 400
naming it. A closed list, documented in docs/serve.md; `n`, tools and `response_format` are
refused by the request's validation, `refuse_calls` and the JSON check."""


def _shown(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else "(an object)"


def refuse_json_format(request: ChatRequest, kind: str) -> ApiError:
    """The 400 for a JSON `response_format` on a request of another `kind` than JSON."""
    asked = request.response_format.type if request.response_format else "json_object"
    return ApiError(
        400, f"response_format {asked} is supported only for a request this server answers "
        f"as a JSON object (one that asks for JSON with named keys); this one is a {kind} "
        "request", param="response_format", code="unsupported_value",
    )


Path = tuple[str | int, ...]


def _inside(value: Any, part: str | int) -> tuple[bool, Any]:
    """Whether `part` is a key of `value` (a JSON object) or an index of it (an array),
    and what is there."""
    if isinstance(value, dict) and part in value:
        return True, value[part]
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return True, value[part]
    return False, None


_ANY = object()
"""`_walk`'s target when the failed value is not known: the first way through the body."""


def _walk(loc: Path, value: Any, failed: Any) -> Path | None:
    """The parts of `loc` that lead through `value` to the object `failed`, skipping the
    others (the names pydantic gives a union's members); None when no such way exists."""
    if not loc:
        return () if failed is _ANY or value is failed else None
    part, rest = loc[0], loc[1:]
    present, inner = _inside(value, part)
    if present and (found := _walk(rest, inner, failed)) is not None:
        return (part, *found)
    return _walk(rest, value, failed) if isinstance(part, str) else None


def written_path(error: ErrorDetails, body: Any) -> Path:
    """Where in `body` the error is, as the client wrote it: `messages.0.content`, not
    pydantic's `messages.0.content.str`, whose location also names the member of a union
    it tried (`str`, `list[TextPart]`, `function-after[...]`). The path is the one through
    the body to the value that failed; a missing field is named after its object's path."""
    loc: Path = tuple(error["loc"])
    missing = error["type"] == "missing"
    within = loc[:-1] if missing else loc
    for failed in (error["input"], _ANY):
        found = _walk(within, body, failed)
        if found is not None:
            return (*found, loc[-1]) if missing else found
    return loc


def first_problem(exc: ValidationError, body: Any) -> ApiError:
    """The first validation error as a 400 naming the field as the client wrote it, the
    way OpenAI names it. Of a union's alternatives, the one that reached furthest into what
    the client sent is said: `stop.1` for a list of stops with a number in it, not that
    `stop` is not a string."""
    errors = exc.errors()
    paths = [written_path(error, body) for error in errors]
    first = paths[0]
    deepest = max(
        (i for i, path in enumerate(paths) if path[: len(first)] == first),
        key=lambda i: len(paths[i]),
    )
    error, where = errors[deepest], ".".join(str(part) for part in paths[deepest])
    if error["type"] == "missing":
        message = f"missing required field: {where}"
    else:
        # A check of the server's own says its reason without pydantic's "Value error, ".
        reason = error.get("ctx", {}).get("error") if error["type"] == "value_error" else None
        message = f"invalid {where or 'body'}: {reason or error['msg']}"
    return ApiError(400, message, param=where or None)


def new_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def story(answer: Answer, lane: str, limited: Limited | None = None) -> dict[str, Any]:
    """The `stepchat` extension field: how the answer was served, step by step.

    It tells what the request got back: `finish_reason` is the reply's. When the request's
    `stop` or `max_tokens` cut the answer's text, `cut` says which, `cut_at` how many
    characters of the answer's text were returned, and `steps` hold only the returned text:
    the step the cut falls in keeps its part before the cut and says `"cut": true`, the steps
    after it are left out and `steps_left_out` counts them (the whole answer stays stored).
    """
    record = answer.to_record()
    record.pop("answer")
    record["lane"] = lane
    if limited is not None:
        record["finish_reason"] = limited.finish_reason
        if limited.cut is not None:
            kept, left_out = cut_steps(record["steps"], answer.text, len(limited.text))
            record.update(steps=kept, steps_left_out=left_out, cut=limited.cut,
                          cut_at=len(limited.text))
    return record


def cut_steps(
    steps: list[dict[str, Any]], text: str, end: int
) -> tuple[list[dict[str, Any]], int]:
    """The step records of `text[:end]` and how many were left out: each step is found in
    `text` after the one before it; a step that begins at or after `end` is left out, a step
    that runs past it keeps its part before `end` and says `"cut": true`. A step not found
    as written in the text (its place unknown) is left out too, so no step shows text the
    request did not get."""
    kept: list[dict[str, Any]] = []
    at = 0
    for step in steps:
        start = text.find(step["text"], at) if step["text"] else -1
        if start < 0 or start >= end:
            continue
        stop = start + len(step["text"])
        if stop > end:
            kept.append({**step, "text": step["text"][: end - start], "cut": True})
            break
        kept.append(step)
        at = stop
    return kept, len(steps) - len(kept)


def usage(answer: Answer) -> dict[str, int]:
    """What the model processed for this answer: a reused answer used no tokens."""
    prompt, generated = answer.tokens.prompt, answer.tokens.generated
    return {"prompt_tokens": prompt, "completion_tokens": generated,
            "total_tokens": prompt + generated}


def completion(answer: Answer, model: str, lane: str, limited: Limited) -> dict[str, Any]:
    """A whole `chat.completion` reply: `limited` is the text the request gets."""
    return {
        "id": new_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": limited.text},
                "finish_reason": limited.finish_reason,
                "logprobs": None,
            }
        ],
        "usage": usage(answer),
        "stepchat": story(answer, lane, limited),
    }


class ChunkMaker:
    """The `chat.completion.chunk` objects of one streamed reply (one id, one timestamp)."""

    def __init__(self, model: str) -> None:
        self.id = new_id()
        self.created = int(time.time())
        self.model = model

    def _chunk(self, choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
            **extra,
        }

    def delta(self, content: str | None = None, *, role: bool = False) -> dict[str, Any]:
        delta: dict[str, Any] = {"role": "assistant"} if role else {}
        if content is not None:
            delta["content"] = content
        return self._chunk([{"index": 0, "delta": delta, "finish_reason": None}])

    def finish(self, answer: Answer, lane: str, limited: Limited) -> dict[str, Any]:
        return self._chunk(
            [{"index": 0, "delta": {}, "finish_reason": limited.finish_reason}],
            stepchat=story(answer, lane, limited),
        )

    def usage(self, answer: Answer) -> dict[str, Any]:
        return self._chunk([], usage=usage(answer))


def story_headers(answer: Answer) -> dict[str, str]:
    return {
        "x-stepchat-path": str(answer.path),
        "x-stepchat-tokens-saved": str(answer.tokens.saved),
    }
