"""JSON replies from servers that disagree on `response_format`.

The peer here is a small real HTTP server that accepts only some shapes and refuses the
rest the way servers do (a 4xx or 500 naming response_format). The real llama-cpp-python
server's refusal of `json_schema` is covered in tests/serve/test_serve_real.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from stepchat.backends.openai_http import OpenAIHttpBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import BackendError
from stepchat.core.types import ChatMessage
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore
from tests.serve.conftest import live

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ASK = [ChatMessage("user", "Return a JSON object with key name for Bob.")]


@dataclass
class Peer:
    accepts: set[str | None]
    refusal: int = 422
    replies: list[str] = field(default_factory=lambda: ['{"name": "Bob"}'])
    seen: list[str | None] = field(default_factory=list)

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body: dict[str, Any] = await request.json()
            shape = (body.get("response_format") or {}).get("type")
            self.seen.append(shape)
            if shape not in self.accepts:
                message = f"response_format of type {shape} is not supported"
                if shape is None:
                    message = "messages: something else is wrong"
                return JSONResponse({"error": {"message": message}}, self.refusal)
            text = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
            return JSONResponse({
                "choices": [{"message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3},
            })

        return app


@pytest.fixture
def serve_peer() -> Iterator[Any]:
    context: Any = None

    def start(peer: Peer) -> OpenAIHttpBackend:
        nonlocal context
        context = live(peer.app())
        return OpenAIHttpBackend(context.__enter__(), "m", timeout=10)

    yield start
    if context is not None:
        context.__exit__(None, None, None)


@pytest.mark.parametrize(
    ("accepts", "refusal", "first", "later"),
    [
        ({"json_schema", None}, 422, ["json_schema"], ["json_schema"]),
        ({"json_object", None}, 500, ["json_schema", "json_object"], ["json_object"]),
        ({None}, 400, ["json_schema", "json_object", None], [None]),
    ],
)
def test_the_first_shape_the_server_accepts_is_kept(
    serve_peer: Any, accepts: set[str | None], refusal: int,
    first: list[str | None], later: list[str | None],
) -> None:
    peer = Peer(accepts, refusal)
    backend = serve_peer(peer)
    assert json.loads(backend.complete(ASK, max_tokens=20, json_schema=SCHEMA).text)
    assert peer.seen == first
    peer.seen.clear()
    backend.complete(ASK, max_tokens=20, json_schema=SCHEMA)
    assert peer.seen == later
    peer.seen.clear()
    backend.complete(ASK, max_tokens=20)  # plain requests never carry a shape
    assert peer.seen == [None]


def test_a_refusal_that_is_not_about_the_shape_is_raised_and_forgotten(serve_peer: Any) -> None:
    peer = Peer(accepts=set(), refusal=400)
    backend = serve_peer(peer)
    with pytest.raises(BackendError, match="something else is wrong"):
        backend.complete(ASK, max_tokens=20, json_schema=SCHEMA)
    assert peer.seen == ["json_schema", "json_object", None]
    assert backend.json_format == "json_schema"


def test_other_errors_are_not_retried(serve_peer: Any) -> None:
    peer = Peer(accepts=set(), refusal=503)
    backend = serve_peer(peer)
    with pytest.raises(BackendError, match="HTTP 503"):
        backend.complete(ASK, max_tokens=20, json_schema=SCHEMA)
    assert peer.seen == ["json_schema"]


def test_without_constrained_decoding_the_json_task_repairs_once(serve_peer: Any) -> None:
    """A server with no JSON mode answers in prose; the engine asks once for a repair, and
    the answer that reaches the user is the requested object. (The hobby is not stated, so
    the model must write the object: one whose every value is stated is filled from the
    prompt without it.)"""
    repaired = '{"name": "Bob", "age": 40, "hobby": "chess"}'
    peer = Peer({None}, 400, replies=["Sure! The name is Bob.", repaired])
    backend = serve_peer(peer)
    cache = StepCache(backend, HashedEmbedder(), MemoryStore())
    answer = cache.answer("Return only a JSON object with keys name, age and hobby for Bob, 40.")
    assert json.loads(answer.text) == json.loads(repaired)
    assert backend.json_format is None
