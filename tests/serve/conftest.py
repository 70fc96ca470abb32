"""Fixtures for the HTTP API on fakes: a scripted model that can be held mid-generation,
the hashed embedder, an in-memory store, and uvicorn serving the app on a free port."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from stepchat.backends.scripted import Reply, ScriptedBackend
from stepchat.bench.servers import free_port
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import CancelToken, GenerationCancelled
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import ChatMessage, Completion
from stepchat.embed.hashed import HashedEmbedder
from stepchat.serve.app import create_app
from stepchat.serve.lanes import ModelLanes
from stepchat.serve.pool import ModelPool
from stepchat.store.memory import MemoryStore

MODEL = "tiny"
TEXT_PROMPT = "What is the capital of France?"
TEXT_REPLY = "The capital of France is Paris.\n\nIt lies on the Seine."
LINEAR_PROMPT = "Solve for x: 3x + 5 = 20. Show each step."


class HeldBackend(ScriptedBackend):
    """A scripted model whose generations wait for `release` and pause between tokens.

    `started` is set when a generation begins; `cancelled` counts generations that stopped
    because their cancel token was set.
    """

    def __init__(self, replies: Sequence[Reply], *, token_delay: float = 0.0) -> None:
        super().__init__(replies, model_id=MODEL)
        self.release = threading.Event()
        self.release.set()
        self.started = threading.Event()
        self.cancelled = 0
        self.token_delay = token_delay

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Completion:
        cancel: CancelToken | None = kwargs.get("cancel")
        on_token: Callable[[str], None] | None = kwargs.pop("on_token", None)
        self.started.set()
        while not self.release.wait(0.01):
            if cancel is not None and cancel.is_set():
                self.cancelled += 1
                raise GenerationCancelled()

        def slow(piece: str) -> None:
            time.sleep(self.token_delay)
            if on_token is not None:
                on_token(piece)

        try:
            return super().complete(messages, on_token=slow, **kwargs)
        except GenerationCancelled:
            self.cancelled += 1
            raise


def make_pool(
    backend: ScriptedBackend,
    store: MemoryStore | None = None,
    *,
    queue: int = 8,
    settings: PipelineSettings | None = None,
    context: int = 2048,
) -> ModelPool:
    engine = StepCache(
        backend, HashedEmbedder(), store if store is not None else MemoryStore(),
        settings=settings or PipelineSettings(),
    )
    lanes = ModelLanes(engine, threading.Lock(), context=context, queue_limit=queue)
    return ModelPool({backend.model_id: lanes})


@contextmanager
def live(app: FastAPI) -> Iterator[str]:
    """Serve `app` with uvicorn on a free loopback port; yields the `/v1` base URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(20)


@pytest.fixture
def backend() -> HeldBackend:
    return HeldBackend([TEXT_REPLY])


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def base_url(backend: HeldBackend, store: MemoryStore) -> Iterator[str]:
    with live(create_app(make_pool(backend, store))) as url:
        yield url


def user(prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}]
