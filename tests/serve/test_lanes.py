"""Concurrency: hits do not wait behind a generation, the queue is bounded, a client that
goes away stops its generation, and an attempt the cache lane gives up leaves no trace."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx2 as httpx
import pytest

from stepchat.core.events import ignore_events
from stepchat.serve.app import create_app
from stepchat.serve.lanes import MODEL_LANE, Job
from stepchat.store.memory import MemoryStore
from tests.serve import conftest as fx
from tests.serve.conftest import HeldBackend, live, make_pool
from tests.waiting import wait_until

LINEAR_PROMPT, MODEL, TEXT_PROMPT, TEXT_REPLY = (
    fx.LINEAR_PROMPT, fx.MODEL, fx.TEXT_PROMPT, fx.TEXT_REPLY
)

OTHER_TEXT = "Write a short poem about the sea."


def ask(base_url: str, prompt: str, timeout: float = 30) -> httpx.Response:
    return httpx.post(
        base_url + "/chat/completions",
        json={"model": MODEL, "messages": fx.user(prompt)}, timeout=timeout,
    )


def test_a_hit_is_served_while_the_model_is_busy(backend: HeldBackend, base_url: str) -> None:
    assert ask(base_url, TEXT_PROMPT).headers["x-stepchat-path"] == "miss"
    backend.release.clear()
    backend.started.clear()
    with ThreadPoolExecutor(1) as pool:
        long_one = pool.submit(ask, base_url, OTHER_TEXT)
        assert backend.started.wait(10)
        hit = ask(base_url, TEXT_PROMPT)  # the model is held: only the cache lane can answer
        solved = ask(base_url, "Solve for x: 2x + 1 = 9.")
        assert not long_one.done()
        backend.release.set()
        assert long_one.result().status_code == 200
    assert hit.headers["x-stepchat-path"] == "reuse-only"
    assert hit.json()["choices"][0]["message"]["content"] == TEXT_REPLY
    assert solved.headers["x-stepchat-path"] == "solver"


def test_a_full_queue_answers_503_with_retry_after() -> None:
    backend = HeldBackend([TEXT_REPLY])
    backend.release.clear()
    models = make_pool(backend, queue=1)
    lane = models.get(MODEL).model_lane
    with live(create_app(models)) as url, ThreadPoolExecutor(2) as pool:
        generating = pool.submit(ask, url, "Tell me a story.")
        assert backend.started.wait(10)
        queued = pool.submit(ask, url, "Tell me a joke.")
        wait_until(lambda: lane.waiting == 2)  # generating, and the joke queued behind it
        refused = ask(url, "Tell me a riddle.")
        assert refused.status_code == 503
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.json()["error"]["code"] == "queue_full"
        # The solver needs no model: it is still served while the queue is full.
        assert ask(url, LINEAR_PROMPT).status_code == 200
        backend.release.set()
        assert generating.result().status_code == 200
        assert queued.result().status_code == 200
        assert queued.result().json()["stepchat"]["lane"] == MODEL_LANE


def test_a_queued_request_looks_again_when_its_turn_comes() -> None:
    """Two identical requests at once: the second waits for the model, then finds the
    first one's entry instead of generating again."""
    backend = HeldBackend([TEXT_REPLY])
    backend.release.clear()
    store = MemoryStore()
    models = make_pool(backend, store)
    lane = models.get(MODEL).model_lane
    with live(create_app(models)) as url, ThreadPoolExecutor(2) as pool:
        first = pool.submit(ask, url, TEXT_PROMPT)
        assert backend.started.wait(10)
        second = pool.submit(ask, url, TEXT_PROMPT)
        wait_until(lambda: lane.waiting == 2)  # the second is queued for the model
        backend.release.set()
        assert second.result().json()["stepchat"]["lane"] == MODEL_LANE
        paths = sorted(f.result().headers["x-stepchat-path"] for f in (first, second))
    assert paths == ["miss", "reuse-only"]
    assert len(backend.calls) == 1 and store.count() == 1


@contextmanager
def streaming(url: str, prompt: str) -> Iterator[Iterator[str]]:
    """A streamed answer to `prompt`, its lines after the first piece of content."""
    with httpx.stream(
        "POST", url + "/chat/completions", timeout=30,
        json={"model": MODEL, "messages": fx.user(prompt), "stream": True},
    ) as reply:
        lines = reply.iter_lines()
        assert next(line for line in lines if '"content"' in line)
        yield lines


def test_a_client_that_goes_away_mid_stream_cancels_its_generation(store: MemoryStore) -> None:
    backend = HeldBackend(["word " * 200], token_delay=0.02)
    with live(create_app(make_pool(backend, store))) as url:
        with streaming(url, OTHER_TEXT):
            pass  # the client goes away after the first piece
        wait_until(lambda: backend.cancelled == 1)
        assert store.count() == 0


def test_a_client_that_times_out_cancels_its_generation(store: MemoryStore) -> None:
    backend = HeldBackend(["word " * 200], token_delay=0.02)
    with live(create_app(make_pool(backend, store))) as url:
        with pytest.raises(httpx.ReadTimeout):
            ask(url, OTHER_TEXT, timeout=0.5)
        wait_until(lambda: backend.cancelled == 1)
        assert store.count() == 0
        assert ask(url, TEXT_PROMPT).status_code == 200  # the model lane is free again


def test_a_cancelled_queued_request_never_reaches_the_model() -> None:
    backend = HeldBackend([TEXT_REPLY])
    backend.release.clear()
    models = make_pool(backend)
    lane = models.get(MODEL).model_lane
    with live(create_app(models)) as url, ThreadPoolExecutor(1) as pool:
        generating = pool.submit(ask, url, "Tell me a story.")
        assert backend.started.wait(10)
        with pytest.raises(httpx.ReadTimeout):
            ask(url, "Tell me a joke.", timeout=0.5)
        backend.release.set()
        assert generating.result().status_code == 200
        wait_until(lambda: lane.waiting == 0)  # the lane's worker has met the joke too
    assert len(backend.calls) == 1


def test_an_attempt_the_cache_lane_gives_up_writes_nothing() -> None:
    """A reusable entry whose answer needs the model: the cache lane stops at the first
    generation call, before the hit is recorded or anything stored."""
    store = MemoryStore()
    backend = HeldBackend([TEXT_REPLY])
    pool = make_pool(backend, store)
    lanes = pool.get(MODEL)
    json_prompt = "Return a JSON object with keys name and email for a person named Ann."

    async def run(job: Job) -> object:
        return await lanes.answer(job, ignore_events)

    backend._replies = ['{"name": "Ann", "email": "ann@example.com"}']
    asyncio.run(run(Job(json_prompt)))
    before = [(e.id, e.hits, e.last_hit) for e in store.entries()]
    calls = len(backend.calls)
    other = "Return a JSON object with keys name and email for a person named Bo."
    assert lanes._without_model(Job(other)) is None  # the e-mail must come from the model
    assert [(e.id, e.hits, e.last_hit) for e in store.entries()] == before
    assert len(backend.calls) == calls


def test_engine_code_never_runs_on_two_threads_at_once() -> None:
    """While one request generates, hits run engine code; the lock is held by exactly one
    thread whenever engine code runs (checked by the store, which engine code calls)."""
    backend = HeldBackend([TEXT_REPLY], token_delay=0.01)
    inside = threading.Semaphore(1)
    overlaps: list[str] = []

    class WatchedStore(MemoryStore):
        def search(self, *args: object, **kwargs: object):
            if not inside.acquire(blocking=False):
                overlaps.append("search")
                return super().search(*args, **kwargs)  # type: ignore[arg-type]
            try:
                time.sleep(0.005)
                return super().search(*args, **kwargs)  # type: ignore[arg-type]
            finally:
                inside.release()

    with live(create_app(make_pool(backend, WatchedStore()))) as url:
        ask(url, TEXT_PROMPT)
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda i: ask(url, f"{TEXT_PROMPT}" if i % 2 else
                                                  f"Tell me fact number {i} about owls."),
                                    range(16)))
    assert all(r.status_code == 200 for r in replies)
    assert overlaps == []


def test_a_stream_cut_by_the_servers_stop_ends_with_an_error_event(store: MemoryStore) -> None:
    """Ctrl+C on the server ended an answer mid-stream as if it were whole (no error, no
    [DONE]): a client took the half answer for the answer."""
    from sse_starlette.sse import AppStatus

    backend = HeldBackend(["word " * 200], token_delay=0.02)
    with live(create_app(make_pool(backend, store))) as url:
        try:
            with streaming(url, OTHER_TEXT) as lines:
                AppStatus.should_exit = True  # what the server's stop sets
                rest = [line[6:] for line in lines if line.startswith("data: ")]
        finally:
            AppStatus.should_exit = False
    assert rest and json.loads(rest[-1])["error"]["code"] == "server_shutdown"
    assert "[DONE]" not in rest and store.count() == 0
    wait_until(lambda: backend.cancelled == 1)
