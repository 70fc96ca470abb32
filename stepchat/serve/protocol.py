"""The OpenAI chat-completions wire format: what a request may carry, what a reply looks like.

Requests are validated with pydantic; fields clients send that stepchat does not use
(`user`, `top_p`, `temperature`, `max_tokens`, ...) are accepted and ignored, because the
model entry's settings decide how every cached answer was made. Replies follow the shapes
the official clients parse (`chat.completion`, `chat.completion.chunk`, the error object),
with one extension field, `stepchat`, carrying the cache's story of the answer.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stepchat.core.types import Answer

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
    include_usage: bool = False


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1)
    messages: list[MessageIn] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int = Field(default=1, ge=1, le=1)


def first_problem(exc: ValidationError) -> ApiError:
    """The first validation error as a 400 naming the field, the way OpenAI names it."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "missing":
        message = f"missing required field: {where}"
    else:
        message = f"invalid {where or 'body'}: {error['msg']}"
    return ApiError(400, message, param=where or None)


def new_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def story(answer: Answer, lane: str) -> dict[str, Any]:
    """The `stepchat` extension field: how the answer was served, step by step."""
    record = answer.to_record()
    record.pop("answer")
    record["lane"] = lane
    return record


def usage(answer: Answer) -> dict[str, int]:
    """What the model processed for this answer: a reused answer used no tokens."""
    prompt, generated = answer.tokens.prompt, answer.tokens.generated
    return {"prompt_tokens": prompt, "completion_tokens": generated,
            "total_tokens": prompt + generated}


def completion(answer: Answer, model: str, lane: str) -> dict[str, Any]:
    """A whole `chat.completion` reply."""
    return {
        "id": new_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer.text},
                "finish_reason": answer.finish_reason,
                "logprobs": None,
            }
        ],
        "usage": usage(answer),
        "stepchat": story(answer, lane),
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

    def finish(self, answer: Answer, lane: str) -> dict[str, Any]:
        return self._chunk(
            [{"index": 0, "delta": {}, "finish_reason": answer.finish_reason}],
            stepchat=story(answer, lane),
        )

    def usage(self, answer: Answer) -> dict[str, Any]:
        return self._chunk([], usage=usage(answer))


def story_headers(answer: Answer) -> dict[str, str]:
    return {
        "x-stepchat-path": str(answer.path),
        "x-stepchat-tokens-saved": str(answer.tokens.saved),
    }
