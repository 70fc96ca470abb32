"""Streamed replies from an OpenAI-compatible server, and the ways a stream goes wrong.

The peer is a small real HTTP server that writes server-sent events by hand, with the
keep-alive comments, multi-line data and error objects real servers send. The real
llama-cpp-python server is covered in tests/test_backends_real.py.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from stepchat.backends.openai_http import OpenAIHttpBackend
from stepchat.core.ports import BackendError, GenerationCancelled
from stepchat.core.types import ChatMessage
from tests.cancelling import CancelAfter
from tests.serve.conftest import live

ASK = [ChatMessage("user", "Tell me a story.")]


def _chunk(content: str | None = None, finish: str | None = None, **extra: Any) -> str:
    delta = {} if content is None else {"content": content}
    return json.dumps({"choices": [{"delta": delta, "finish_reason": finish}], **extra})


def _multiline(payload: str) -> str:
    """One event whose JSON is split over two `data:` lines between its keys."""
    lines = payload.replace('"finish_reason"', '\n"finish_reason"').split("\n")
    assert len(lines) == 2
    return "".join(f"data: {line}\n" for line in lines) + "\n"


async def _story(request: Any) -> AsyncIterator[str]:
    yield ": keep-alive\n\n"
    yield f"data: {_chunk('Once')}\n\n"
    yield ": ping\n\n"
    yield _multiline(_chunk(" upon, a"))
    yield f"data: {_chunk(' time', 'length')}\r\n\r\n"
    usage = {"prompt_tokens": 7, "completion_tokens": 3}
    yield f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n"
    yield "data: [DONE]\n\n"


async def _long(request: Any) -> AsyncIterator[str]:
    """Long enough that a reader who ignored the cancel would see far more than 3 words."""
    for n in range(1, 101):
        yield f"data: {_chunk(f' word{n}')}\n\n"
        await asyncio.sleep(0.02)
    yield "data: [DONE]\n\n"


async def _stalls(request: Any) -> AsyncIterator[str]:
    yield f"data: {_chunk('Once')}\n\n"
    await asyncio.sleep(5)
    yield "data: [DONE]\n\n"


async def _fails(request: Any) -> AsyncIterator[str]:
    yield f"data: {_chunk('Once')}\n\n"
    yield f"data: {json.dumps({'error': {'message': 'the model ran out of memory'}})}\n\n"


STREAMS = {"story": _story, "long": _long, "stalls": _stalls, "fails": _fails}


@pytest.fixture(scope="module")
def peer() -> Iterator[tuple[str, threading.Event]]:
    """The server's base URL per stream kind, and an event set when a stream is dropped."""
    dropped = threading.Event()
    app = FastAPI()

    @app.post("/{kind}/v1/chat/completions")
    async def chat(kind: str) -> StreamingResponse:
        async def guarded() -> AsyncIterator[str]:
            try:
                async for piece in STREAMS[kind](None):
                    yield piece
            except (asyncio.CancelledError, GeneratorExit):
                dropped.set()
                raise

        return StreamingResponse(guarded(), media_type="text/event-stream")

    with live(app) as url:
        yield url.removesuffix("/v1"), dropped


def _backend(peer: Any, kind: str, timeout: float = 10) -> OpenAIHttpBackend:
    return OpenAIHttpBackend(f"{peer[0]}/{kind}/v1", "m", timeout=timeout)


def test_events_with_comments_and_multiline_data_make_one_reply(peer: Any) -> None:
    pieces: list[str] = []
    done = _backend(peer, "story").complete(ASK, max_tokens=3, on_token=pieces.append)
    assert pieces == ["Once", " upon, a", " time"]
    assert done.text == "Once upon, a time"
    assert (done.prompt_tokens, done.completion_tokens) == (7, 3)
    assert done.finish_reason == "length"


def test_cancel_mid_stream_stops_reading_and_drops_the_connection(peer: Any) -> None:
    backend = _backend(peer, "long")
    reader = CancelAfter(3)
    peer[1].clear()
    with pytest.raises(GenerationCancelled):
        backend.complete(ASK, max_tokens=100, on_token=reader, cancel=reader.cancel)
    assert reader.seen == [" word1", " word2", " word3"]
    assert peer[1].wait(5), "the server kept writing to a reader that had gone"
    again = _backend(peer, "story").complete(ASK, max_tokens=3)
    assert again.text == "Once upon, a time"


def test_a_stalled_stream_is_a_one_line_error_after_the_timeout(peer: Any) -> None:
    with pytest.raises(BackendError) as info:
        _backend(peer, "stalls", timeout=0.5).complete(ASK, max_tokens=10)
    message = str(info.value)
    assert "stream stalled for 0.5 s" in message and "\n" not in message


def test_an_error_object_mid_stream_is_raised_with_the_servers_words(peer: Any) -> None:
    with pytest.raises(BackendError, match="the model ran out of memory"):
        _backend(peer, "fails").complete(ASK, max_tokens=10)
