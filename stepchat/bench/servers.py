"""Start and stop the HTTP servers the serving bench (and its tests) talk to, on loopback.

`python -m llama_cpp.server` is the baseline (the model served directly, no cache), started
through `stepchat.bench.llama_server` so that llama.cpp's extra buffer types are off on
AMX CPUs as they are for stepchat's own model;
`stepchat serve` is the same model behind the step cache. Both run as child processes on
free ports, so a run never collides with a server the user already has.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

READY_TIMEOUT_S = 180.0


class ServerFailed(RuntimeError):
    """A server exited or did not answer in time; the message ends with its log's tail."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def llama_server_command(
    gguf: Path, port: int, *, alias: str, context: int, threads: int, chat_format: str
) -> list[str]:
    return [
        sys.executable, "-m", "stepchat.bench.llama_server",
        "--model", str(gguf), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_threads", str(threads), "--n_ctx", str(context),
        "--chat_format", chat_format,
    ]


def serve_command(port: int, models: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
    command = [sys.executable, "-m", "stepchat.cli", "serve", "--port", str(port)]
    for model in models:
        command += ["--model", model]
    return [*command, *extra]


@contextmanager
def running(
    command: Sequence[str],
    url: str,
    log: Path,
    *,
    env: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = READY_TIMEOUT_S,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `command` until the block ends; ready once `url` answers 200."""
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            list(command), stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
    try:
        wait_ready(proc, url, log, headers=headers, timeout=timeout)
        yield proc
    finally:
        stop(proc)


def wait_ready(
    proc: subprocess.Popen[bytes],
    url: str,
    log: Path,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = READY_TIMEOUT_S,
) -> None:
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers=dict(headers or {}))
    while True:
        if proc.poll() is not None:
            raise ServerFailed(f"{proc.args!r} exited: {_tail(log)}")
        try:
            with urllib.request.urlopen(request, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise ServerFailed(f"{url} not ready in {timeout:g} s: {_tail(log)}")
        time.sleep(0.3)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Ask the process to end (SIGTERM: servers shut down cleanly), then insist."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def _tail(log: Path, chars: int = 2000) -> str:
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no log)"
