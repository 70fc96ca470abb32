"""What the server's operator reads and what its clients never do.

- A model behind a real HTTP upstream that fails with secrets in its error: the client gets
  a fixed sentence and an id; the detail is in the server's log under that id.
- One log line per request, written when the reply is done, with the status, the route,
  the cache's path, the latency and the tokens.
- A port another program holds is said in one line before anything else is printed.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2 as httpx
import pytest

from stepchat.backends.openai_http import OpenAIHttpBackend
from stepchat.core.pipeline import StepCache
from stepchat.embed.hashed import HashedEmbedder
from stepchat.serve.app import create_app
from stepchat.serve.lanes import ModelLanes
from stepchat.serve.pool import ModelPool
from stepchat.store.memory import MemoryStore
from tests.serve.conftest import MODEL, TEXT_PROMPT, HeldBackend, live, make_pool, user

SECRET = "upstream exploded at /srv/secret/path key=sk-live-0123456789abcdef"


class _Exploding(BaseHTTPRequestHandler):
    """An OpenAI-compatible upstream whose every chat completion is a 500 naming secrets."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps({"error": {"message": SECRET, "type": "server_error"}}).encode()
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def exploding_upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Exploding)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def behind_upstream(exploding_upstream: str) -> Iterator[str]:
    backend = OpenAIHttpBackend(exploding_upstream, "upstream-model", model_id=MODEL,
                                timeout=10)
    engine = StepCache(backend, HashedEmbedder(), MemoryStore())
    lanes = ModelLanes(engine, threading.Lock(), context=2048, queue_limit=4)
    with live(create_app(ModelPool({MODEL: lanes}))) as url:
        yield url


@pytest.mark.parametrize("stream", [False, True])
def test_an_upstream_failure_reaches_clients_as_a_fixed_message_and_an_id(
    behind_upstream: str, caplog: pytest.LogCaptureFixture, stream: bool
) -> None:
    caplog.set_level(logging.INFO, logger="stepchat.serve")
    reply = httpx.post(behind_upstream + "/chat/completions", timeout=30,
                       json={"model": MODEL, "messages": user(TEXT_PROMPT), "stream": stream})
    assert reply.status_code == 502
    error = reply.json()["error"]
    assert error["code"] == "model_error"
    for leak in ("secret", "sk-", "127.0.0.1", "/srv", "HTTP 500", "upstream"):
        assert leak not in reply.text
    found = re.fullmatch(r"the model failed \(error (err_[0-9a-f]{12}); the detail is in "
                         r"the server's log\)", error["message"])
    assert found is not None, error["message"]
    logged = [r.getMessage() for r in caplog.records if found.group(1) in r.getMessage()]
    assert len(logged) == 1 and SECRET in logged[0] and "HTTP 500" in logged[0]


def _lines(caplog: pytest.LogCaptureFixture, count: int = 0) -> list[str]:
    """The access lines logged so far, waiting up to five seconds for `count` of them: the
    server writes a request's line after its response has gone, so a client can read the
    response before the line exists."""
    deadline = time.monotonic() + 5
    while True:
        found = [r.getMessage() for r in caplog.records if r.name == "stepchat.serve.access"]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?P<rest>.*)")


def test_one_line_per_request_with_status_path_latency_and_tokens(
    base_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="stepchat.serve.access")
    chat = base_url + "/chat/completions"
    body = {"model": MODEL, "messages": user(TEXT_PROMPT)}
    usage = httpx.post(chat, json=body, timeout=30).json()["usage"]
    prompt, generated = usage["prompt_tokens"], usage["completion_tokens"]
    with httpx.stream("POST", chat, json={**body, "stream": True}, timeout=30) as raw:
        raw.read()
    httpx.post(chat, content=b"{}", headers={"Content-Type": "text/plain"}, timeout=30)
    httpx.get(base_url.removesuffix("/v1") + "/health", timeout=30)
    rests = []
    for line in _lines(caplog, count=4):
        matched = LINE.fullmatch(line)
        assert matched is not None, line
        rests.append(re.sub(r" \d+ ms", " N ms", matched.group("rest")))
    assert rests == [
        f"200 POST /v1/chat/completions miss N ms tokens {prompt} in, {generated} out, 0 saved",
        f"200 POST /v1/chat/completions reuse-only N ms tokens 0 in, 0 out, {generated} saved",
        "415 POST /v1/chat/completions N ms",
        "200 GET /health N ms",
    ]


STORY = "\n\n".join(f"Paragraph {n} is about a bird that sings at dawn." for n in range(60))


def _leave_a_stream(url: str, backend: HeldBackend, *, mid_answer: bool) -> None:
    """Ask for `STORY` streamed over a raw socket and close it: once the first words have
    come (mid-answer), or while the model is held before its first token (the reply has
    not begun: only a socket can leave then, a client library waits for the headers)."""
    host, port = url.removeprefix("http://").removesuffix("/v1").split(":")
    body = json.dumps({"model": MODEL, "stream": True, "messages": user(TEXT_PROMPT)})
    request = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}"
    )
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request.encode())
        if not mid_answer:
            assert backend.started.wait(10)
            return
        received = b""
        while b'"content": "Paragraph' not in received:
            piece = sock.recv(4096)
            assert piece, f"the stream ended before any text: {received!r}"
            received += piece


@pytest.mark.parametrize("mid_answer", [False, True], ids=["waiting-for-the-model", "mid-answer"])
def test_a_stream_its_client_left_is_logged_499_and_leaves_no_task_behind(
    caplog: pytest.LogCaptureFixture, mid_answer: bool
) -> None:
    """Logged as a request whose client left before its reply is (499), even once the
    stream has begun with 200; its generation stops, and asyncio has nothing to report
    once the request's objects are collected (a task collected while still pending)."""
    caplog.set_level(logging.INFO, logger="stepchat.serve.access")
    backend = HeldBackend([STORY], token_delay=0.02)
    if not mid_answer:
        backend.release.clear()
    with live(create_app(make_pool(backend))) as url:
        _leave_a_stream(url, backend, mid_answer=mid_answer)
        lines = _lines(caplog, count=1)
        deadline = time.monotonic() + 10
        while backend.cancelled == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        gc.collect()
    assert len(lines) == 1
    matched = LINE.fullmatch(lines[0])
    assert matched is not None, lines[0]
    assert re.fullmatch(r"499 POST /v1/chat/completions \d+ ms", matched.group("rest"))
    assert backend.cancelled == 1
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def test_a_taken_port_is_said_before_anything_else(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "stepchat.cli", "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "STEPCHAT_HOME": str(tmp_path)},
        )
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f"stepchat: port {port} on 127.0.0.1 is taken: another program listens there "
        "(stop it, or pick another port with --port)"
    ]
