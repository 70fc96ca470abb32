"""A request over the model's context is `PromptTooLong`, whichever backend runs the model.

Earlier turns are trimmed to fit the context; the request itself cannot be, so every
backend raises the same subclass with the same line, and callers tell it apart from a
model that failed (a server answers it 400, not 502). The real GGUF, in process and in
its own process, and the real llama-cpp-python server are covered in
tests/test_backends_real.py; here the servers are small real HTTP peers answering the way
OpenAI, vLLM, llama.cpp's server and llama-cpp-python's server do, and the model process
runs a scripted model.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from stepchat.backends.isolated import IsolatedBackend
from stepchat.backends.llama_cpp import model_error
from stepchat.backends.openai_http import HttpStatusError, OpenAIHttpBackend
from stepchat.core.ports import BackendError, PromptTooLong
from stepchat.core.types import ChatMessage
from tests.model_fakes import isolated_fake
from tests.serve.conftest import live

ASK = [ChatMessage("user", "Summarize: " + "Lorem ipsum dolor sit amet. " * 200)]
LINE = "model m: the prompt is 2371 tokens, too long for its context of 2048 (send a shorter one)"

OPENAI = {"error": {
    "message": "This model's maximum context length is 2048 tokens. However, your messages "
    "resulted in 2371 tokens. Please reduce the length of the messages.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
}}
VLLM = {"object": "error", "type": "BadRequestError", "code": 400, "message":
        "This model's maximum context length is 2048 tokens. However, you requested 2387 "
        "tokens (2371 in the messages, 16 in the completion). Please reduce the length of the "
        "messages or completion."}
LLAMA_CPP_SERVER = {"error": {
    "code": 400, "message": "the request exceeds the available context size, try increasing it",
    "type": "exceed_context_size_error", "n_prompt_tokens": 2371, "n_ctx": 2048,
}}
LLAMA_CPP_PYTHON_SERVER = {"error": {
    "message": "This model's maximum context length is 2048 tokens. However, you requested "
    "2387 tokens (2371 in the messages, 16 in the completion). Please reduce the length of "
    "the messages or completion.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
}}
CODE_ONLY = {"error": {"message": "Too long.", "code": "context_length_exceeded"}}
OTHER = {"error": {"message": "messages.0.role: unknown role 'wizard'", "code": None}}


def peer_app(refusal: dict[str, Any], *, empty_stream: bool = False) -> FastAPI:
    """A server that refuses every chat request with `refusal` (status 400); with
    `empty_stream`, a streamed request gets a 200 stream that ends with no event instead,
    as llama-cpp-python's server sends when generation fails before its first chunk."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        body = await request.json()
        if empty_stream and body.get("stream"):
            return StreamingResponse(iter(()), media_type="text/event-stream")
        return JSONResponse(refusal, 400)

    return app


@pytest.fixture
def peer() -> Iterator[Any]:
    opened: list[Any] = []

    def start(refusal: dict[str, Any], **options: Any) -> OpenAIHttpBackend:
        context = live(peer_app(refusal, **options))
        opened.append(context)
        return OpenAIHttpBackend(context.__enter__(), "upstream-name", model_id="m", timeout=10)

    yield start
    for context in opened:
        context.__exit__(None, None, None)


@pytest.mark.parametrize(
    "refusal", [OPENAI, VLLM, LLAMA_CPP_SERVER, LLAMA_CPP_PYTHON_SERVER],
    ids=["openai", "vllm", "llama.cpp-server", "llama-cpp-python-server"],
)
def test_a_server_s_400_for_a_prompt_over_its_context(peer: Any, refusal: dict[str, Any]) -> None:
    with pytest.raises(PromptTooLong) as info:
        peer(refusal).complete(ASK, max_tokens=16)
    assert str(info.value) == LINE


def test_the_counts_a_server_leaves_out_are_left_out_of_the_line(peer: Any) -> None:
    with pytest.raises(PromptTooLong) as info:
        peer(CODE_ONLY).complete(ASK, max_tokens=16)
    assert str(info.value) == "model m: the prompt is too long for its context (send a shorter one)"


def test_a_server_that_says_it_only_unstreamed_is_asked_again_without_streaming(
    peer: Any,
) -> None:
    with pytest.raises(PromptTooLong) as info:
        peer(LLAMA_CPP_PYTHON_SERVER, empty_stream=True).complete(ASK, max_tokens=16)
    assert str(info.value) == LINE


def test_another_400_stays_the_server_s_error(peer: Any) -> None:
    with pytest.raises(HttpStatusError) as info:
        peer(OTHER).complete(ASK, max_tokens=16)
    assert not isinstance(info.value, PromptTooLong)
    assert "HTTP 400: messages.0.role: unknown role 'wizard'" in str(info.value)


def test_a_prompt_over_an_entry_s_context_is_refused_before_it_is_sent() -> None:
    backend = OpenAIHttpBackend("http://127.0.0.1:9", "upstream-name", model_id="m",
                                context=40)
    with pytest.raises(PromptTooLong) as info:
        backend.complete(ASK, max_tokens=16)
    assert str(info.value) == (
        "model m: the prompt is too long for its context of 40 tokens (send a shorter one)"
    )


def test_llama_cpp_s_refusal_is_prompt_too_long_and_other_errors_are_not() -> None:
    refused = model_error("m", ValueError("Requested tokens (2371) exceed context window of 2048"))
    assert type(refused) is PromptTooLong and str(refused) == LINE
    other = model_error("m", ValueError("llama_decode returned -3\nmore detail"))
    assert type(other) is BackendError and str(other) == "model m: llama_decode returned -3"


@pytest.fixture
def isolated() -> Iterator[list[IsolatedBackend]]:
    made: list[IsolatedBackend] = []
    yield made
    for backend in made:
        backend.close()


@pytest.mark.parametrize("error", [PromptTooLong, BackendError])
def test_the_model_process_raises_the_class_the_model_raised(
    isolated: list[IsolatedBackend], error: type[BackendError]
) -> None:
    backend = isolated_fake("never sent", model_id="m", fail_complete=(error.__name__, LINE))
    isolated.append(backend)
    with pytest.raises(BackendError) as info:
        backend.complete(ASK, max_tokens=16)
    assert type(info.value) is error and str(info.value) == LINE
