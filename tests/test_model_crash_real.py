"""Issue 19 item 2 on the real stack: the bundled GGUF's process segfaults mid-answer under
`stepchat ask` and `stepchat serve`, and each reports it and carries on.

The fault is injected with STEPCHAT_FAULT_SEGV_AFTER_TOKENS: the model process sends
itself SIGSEGV after streaming that many tokens (a fresh process counts from zero). Real
model, real embedder, real LanceDB, each command a real process. Without the model's own
process the signal would end `ask` and `serve` themselves: `ask` would exit 139 with
nothing said, and `serve` would stop answering.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from stepchat.backends.model_worker import FAULT_ENV
from stepchat.bench.servers import free_port, running, serve_command
from stepchat.config import load_config

pytestmark = pytest.mark.slow

MODEL = load_config().default_model
DIED = (f"model {MODEL}: the model process died (signal 11, a segmentation fault); "
        "it restarts on the next request")
STORY = "Write a long story about a dragon who learns to cook."
CAPITAL = "What is the capital of France?"


def one_thread(home: Path) -> dict[str, str]:
    """STEPCHAT_HOME and a config file running the model on one thread: llama.cpp's threads
    wait on each other when the cores are shared, which can slow a reply tenfold."""
    config = home / "one-thread.toml"
    config.write_text("threads = 1\n", encoding="utf-8")
    return {"STEPCHAT_HOME": str(home), "STEPCHAT_CONFIG": str(config)}


def stepchat(home: Path, *args: str, fault: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **one_thread(home)}
    if fault is not None:
        env[FAULT_ENV] = str(fault)
    return subprocess.run([sys.executable, "-m", "stepchat.cli", *args], capture_output=True,
                          text=True, env=env, timeout=600)


def entries(home: Path) -> int:
    stats = stepchat(home, "cache", "stats")
    assert stats.returncode == 0, stats.stderr
    line = next(x for x in stats.stdout.splitlines() if x.startswith("rows:"))
    return int(line.split(":")[1])


def test_ask_says_the_crash_in_one_line_exits_non_zero_and_caches_nothing(
    tmp_path: Path,
) -> None:
    crashed = stepchat(tmp_path, "ask", STORY, fault=5)
    assert crashed.returncode not in (0, -11, 139), crashed
    assert crashed.stderr == f"stepchat: {DIED}\n"
    assert crashed.stdout == ""
    assert entries(tmp_path) == 0

    # What needs no model keeps working while every model process would crash.
    solved = stepchat(tmp_path, "ask", "--json", "Solve for x: 3x + 5 = 20", fault=1)
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["path"] == "solver"
    seeded = stepchat(tmp_path, "ask", CAPITAL)  # no fault: the model answers, it is cached
    assert seeded.returncode == 0 and "Paris" in seeded.stdout, seeded.stderr
    hit = stepchat(tmp_path, "ask", "--json", CAPITAL, fault=1)
    assert hit.returncode == 0, hit.stderr
    record = json.loads(hit.stdout)
    assert record["path"] == "reuse-only" and record["answer"] == seeded.stdout.rstrip("\n")


def _post(url: str, prompt: str, **extra: Any) -> httpx.Response:
    body = {"model": MODEL, "messages": [{"role": "user", "content": prompt}], **extra}
    return httpx.post(f"{url}/chat/completions", json=body, timeout=300)


def logged_as(message: str, log: Path) -> None:
    """A client is told a fixed sentence and an id; the server's log has the crash under
    that id."""
    found = re.fullmatch(r"the model failed \(error (err_[0-9a-f]{12}); the detail is in "
                         r"the server's log\)", message)
    assert found, message
    assert f"{found.group(1)} the model failed: {DIED}" in log.read_text()


def test_serve_answers_the_crashed_request_502_and_keeps_serving(tmp_path: Path) -> None:
    port = free_port()
    # Short answers (under 80 tokens) are written whole; the story is cut off a couple of
    # seconds in, long after the cache hit sent meanwhile was answered.
    env = {**one_thread(tmp_path), FAULT_ENV: "80"}
    with running(serve_command(port, []), f"http://127.0.0.1:{port}/health",
                 tmp_path / "serve.log", env=env) as server:
        url = f"http://127.0.0.1:{port}/v1"
        first = _post(url, CAPITAL)  # the model writes it and it is cached
        assert first.status_code == 200 and first.headers["x-stepchat-path"] == "miss"

        crashed: list[httpx.Response] = []
        story = threading.Thread(target=lambda: crashed.append(_post(url, STORY,
                                                                     max_tokens=120)))
        story.start()
        time.sleep(0.3)
        hit = _post(url, CAPITAL)
        assert story.is_alive(), "the cache hit was not served while the model was writing"
        assert hit.status_code == 200 and hit.headers["x-stepchat-path"] == "reuse-only"
        story.join(300)

        assert [r.status_code for r in crashed] == [502]
        error = crashed[0].json()["error"]
        assert (error["type"], error["param"], error["code"]) == (
            "server_error", None, "model_error")
        logged_as(error["message"], tmp_path / "serve.log")
        assert server.poll() is None  # still serving
        again = _post(url, "What is the capital of Italy?")  # a restarted model writes it
        assert again.status_code == 200
        assert again.headers["x-stepchat-path"] in ("miss", "skip-reuse")  # model-written
        assert "Rome" in again.json()["choices"][0]["message"]["content"]

        # Streamed, the reply has begun when the model dies: it ends with the error event.
        streamed = _post(url, STORY, max_tokens=120, stream=True)
        assert streamed.status_code == 200
        events = [line.removeprefix("data: ") for line in streamed.text.splitlines()
                  if line.startswith("data: ")]
        assert any(json.loads(e)["choices"][0]["delta"].get("content") for e in events[1:-1])
        logged_as(json.loads(events[-1])["error"]["message"], tmp_path / "serve.log")
        assert _post(url, CAPITAL).status_code == 200
