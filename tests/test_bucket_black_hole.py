"""A shared cache whose endpoint accepts connections and never answers: seconds, not minutes.

Against a real black-hole listener (`tests.s3server.BlackHole`) LanceDB's own timeouts and
retries took three minutes per command. Here: a request the solver or the prompt's values
answer never waits for the bucket; any other request waits a few seconds once; cache
commands fail in seconds; and each says so in one plain line naming the bucket. A healthy
SeaweedFS bucket still serves such requests once it is open, and an entry written without
the model is not written again when the bucket holds its structure already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import LinearStrategy, PipelineSettings
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store import location
from stepchat.store.lance import LanceStore
from stepchat.store.shared import SharedStore
from tests.s3server import BUCKET, BlackHole, WeedServer

DIM = 64
URI = f"s3://{BUCKET}/black-hole"
LINEAR = "Solve for x: 4x + 2 = 10"
JSON_STATED = "Return a JSON object with keys name and age for Bob, 40."
TEXT = "Write one sentence about the sea."
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def black_hole(monkeypatch: pytest.MonkeyPatch) -> Iterator[BlackHole]:
    hole = BlackHole()
    for key, value in hole.env().items():
        monkeypatch.setenv(key, value)
    try:
        yield hole
    finally:
        hole.close()


def engine(uri: str, replies: list[str] | None = None) -> tuple[StepCache, SharedStore]:
    shared = SharedStore(lambda: LanceStore(uri, DIM, consistency_seconds=0.0), name=uri)
    cache = StepCache(ScriptedBackend(replies or []), HashedEmbedder(dim=DIM), shared,
                      settings=PipelineSettings(linear_strategy=LinearStrategy.SOLVER_FIRST))
    return cache, shared


def test_a_solver_or_stated_answer_never_waits_for_the_bucket(
    black_hole: BlackHole, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the bucket given 30 s to answer, both answers still come at once."""
    monkeypatch.setattr(location, "PROBE_SECONDS", 30.0)
    cache, shared = engine(URI)
    started = time.monotonic()
    solved = cache.answer(LINEAR)
    stated = cache.answer(JSON_STATED)
    assert time.monotonic() - started < 10.0
    assert solved.text.splitlines()[-1] == "x = 2"
    assert json.loads(stated.text) == {"name": "Bob", "age": 40}
    assert shared.pending == 2  # kept for the bucket, which is being asked meanwhile
    deadline = time.monotonic() + 10
    while black_hole.connections == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert black_hole.connections >= 1


def test_any_other_request_waits_seconds_once_and_says_so_in_one_line(
    black_hole: BlackHole,
) -> None:
    cache, _ = engine(URI, ["The sea is wide.", "The sea is deep."])
    started = time.monotonic()
    first = cache.answer(TEXT)
    second = cache.answer("Write one sentence about the sky.")
    assert time.monotonic() - started < location.PROBE_SECONDS + 15
    assert first.text == "The sea is wide." and second.text == "The sea is deep."
    assert first.notes == [
        f"shared cache {URI} unreachable (no answer from {black_hole.endpoint} within "
        f"{location.PROBE_SECONDS:g} s); answering without it"
    ]
    assert second.notes == []  # one line per outage; the second request did not wait


def _home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "config").mkdir(parents=True, exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text(f'[cache]\nuri = "{URI}"\n')
    return {"STEPCHAT_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}


def _run(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", *args], capture_output=True, text=True,
        env={**os.environ, **env}, timeout=120,
    )
    return done, time.monotonic() - started


@pytest.mark.parametrize("args", [["cache", "list"], ["cache", "stats"], ["cache", "clear",
                                                                         "--yes"]])
def test_cache_commands_fail_in_seconds_with_one_plain_line(
    black_hole: BlackHole, tmp_path: Path, args: list[str]
) -> None:
    done, seconds = _run(args, {**_home(tmp_path), **black_hole.env()})
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"stepchat: cache store {URI}: no answer from {black_hole.endpoint} within "
        f"{location.PROBE_SECONDS:g} s"
    ]
    assert seconds < 60


@pytest.mark.slow
@pytest.mark.parametrize("prompt", [LINEAR, TEXT])
def test_ask_answers_in_seconds_on_the_real_stack(
    black_hole: BlackHole, tmp_path: Path, prompt: str
) -> None:
    """The real embedder, LanceDB and (for open text) the model, against the black hole:
    the answer and one line naming the bucket, in seconds (184 s before)."""
    done, seconds = _run(["ask", prompt], {**_home(tmp_path), **black_hole.env()})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert done.stderr.splitlines() == [
        f"stepchat: shared cache {URI} unreachable (no answer from {black_hole.endpoint} "
        f"within {location.PROBE_SECONDS:g} s); answering without it"
    ]
    assert seconds < 90


def test_a_healthy_bucket_serves_solved_requests_once_open_and_keeps_no_copies(
    bucket_uri: str, bucket_env: WeedServer
) -> None:
    """Two one-shot runs of one equation write it once; a run whose bucket is open reuses
    it."""
    for _ in range(2):
        cache, shared = engine(bucket_uri)
        assert cache.answer(LINEAR).path == "solver"
        shared.flush()
        shared.close()
        assert shared.pending == 0
    assert len(LanceStore(bucket_uri, DIM, consistency_seconds=0.0).entries()) == 1
    cache, shared = engine(bucket_uri)
    shared.count()  # an open-text request, or the server's warm-up, opened the bucket
    again = cache.answer(LINEAR)
    assert again.path == "reuse-only" and again.matched_entry is not None


def test_the_probe_takes_any_answer_and_names_what_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A refusal (403) is an answer; a closed port and silence are not, each said plainly."""
    import socket
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from stepchat.core.ports import StoreError
    from stepchat.store.location import CacheLocation

    class Refusing(BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            self.send_response(403)
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bucket = CacheLocation.of(URI)
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.server_address[1]}")
        bucket.probe(2.0)
    finally:
        server.shutdown()
        server.server_close()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(StoreError, match=rf"cannot reach http://127.0.0.1:{port}: .*refused"):
        bucket.probe(2.0)
    hole = BlackHole()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", hole.endpoint)
        with pytest.raises(StoreError, match=rf"no answer from {hole.endpoint} within 0.5 s"):
            bucket.probe(0.5)
    finally:
        hole.close()
