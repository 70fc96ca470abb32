"""Issue 19 item 2: the model runs in a process of its own, and its crash is a message.

The child here runs a scripted model (tests/model_fakes.py) through the same worker a GGUF
runs in; the crashes are real signals delivered to that process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stepchat.backends.isolated import (
    CRASH_LIMIT,
    IsolatedBackend,
    ModelProcessDied,
    ModelProcessStopped,
)
from stepchat.backends.model_worker import FAULT_ENV
from stepchat.core.ports import Backend, BackendError, GenerationCancelled
from stepchat.core.types import ChatMessage
from tests.model_fakes import FIX, ROOT, cancel_after, isolated_fake

STORY = " ".join(f"word{i}" for i in range(200))
ASK = [ChatMessage("user", "Tell me a story.")]


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether process `pid` has ended (or is a zombie nobody reaped yet)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def backends() -> Iterator[list[IsolatedBackend]]:
    made: list[IsolatedBackend] = []
    yield made
    for backend in made:
        backend.close()


def make(backends: list[IsolatedBackend], reply: str = STORY, **args: object) -> IsolatedBackend:
    backend = isolated_fake(reply, **args)  # type: ignore[arg-type]
    backends.append(backend)
    return backend


def test_it_is_a_backend_that_streams_token_by_token(backends: list[IsolatedBackend]) -> None:
    backend = make(backends, "The capital of France is Paris.")
    assert isinstance(backend, Backend)
    assert backend.pid is None and not backend.loaded
    backend.load()
    assert backend.loaded and backend.pid not in (None, os.getpid())
    pieces: list[str] = []
    done = backend.complete(ASK, max_tokens=50, on_token=pieces.append)
    assert pieces == ["The", " capital", " of", " France", " is", " Paris."]
    assert done.text == "The capital of France is Paris." and done.completion_tokens == 6
    assert backend.complete(ASK, max_tokens=3).text == "The capital of"


def test_output_printed_by_native_code_does_not_corrupt_the_protocol(
    backends: list[IsolatedBackend],
) -> None:
    backend = make(backends, "one two\nthree Grüße ☕ \u202e", noise=True)
    pieces: list[str] = []
    done = backend.complete(ASK, max_tokens=10, on_token=pieces.append)
    assert done.text == "".join(pieces) == "one two\nthree Grüße ☕ \u202e"


def test_cancel_stops_the_child_within_a_token_or_two(
    backends: list[IsolatedBackend], tmp_path: Path
) -> None:
    record = tmp_path / "calls"
    backend = make(backends, delay=0.05, record=str(record))
    cancel, seen, on_token = cancel_after(3)
    with pytest.raises(GenerationCancelled):
        backend.complete(ASK, max_tokens=200, on_token=on_token, cancel=cancel)
    assert len(seen) == 3  # nothing more reaches the caller once it cancelled
    # The next call is answered after the cancelled one ended in the child.
    assert backend.complete(ASK, max_tokens=2).text == "word0 word1"
    first, second = record.read_text().splitlines()
    streamed, ended = first.split()
    assert ended == "cancelled" and int(streamed) <= 3 + 2, first
    assert second == "2 done"


def test_a_caller_that_fails_mid_stream_stops_the_child_too(
    backends: list[IsolatedBackend], tmp_path: Path
) -> None:
    record = tmp_path / "calls"
    backend = make(backends, delay=0.05, record=str(record))

    def on_token(piece: str) -> None:
        if piece == " word2":
            raise ConnectionResetError("the client went away")

    with pytest.raises(ConnectionResetError):
        backend.complete(ASK, max_tokens=200, on_token=on_token)
    assert backend.complete(ASK, max_tokens=1).text == "word0"
    streamed, ended = record.read_text().splitlines()[0].split()
    assert ended == "cancelled" and int(streamed) <= 3 + 2


def test_counting_tokens_never_waits_for_a_generation(backends: list[IsolatedBackend]) -> None:
    backend = make(backends, delay=0.05)
    started = threading.Event()
    worker = threading.Thread(
        target=backend.complete, args=(ASK,),
        kwargs={"max_tokens": 60, "on_token": lambda _: started.set()},
    )
    worker.start()
    assert started.wait(30)
    assert backend.count_tokens("three words here") == 3
    assert worker.is_alive()  # counted while the model was still writing
    worker.join(30)


def test_a_crash_mid_answer_is_one_line_and_the_next_call_restarts(
    backends: list[IsolatedBackend],
) -> None:
    backend = make(backends, delay=0.01)
    backend.load()
    first_pid = backend.pid
    assert first_pid is not None
    seen: list[str] = []

    def crash_at_five(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 5:
            os.kill(first_pid, signal.SIGSEGV)

    with pytest.raises(ModelProcessDied) as info:
        backend.complete(ASK, max_tokens=200, on_token=crash_at_five)
    assert str(info.value) == (
        "model tiny: the model process died (signal 11, a segmentation fault); "
        "it restarts on the next request"
    )
    assert isinstance(info.value, BackendError) and not isinstance(info.value,
                                                                   ModelProcessStopped)
    assert 5 <= len(seen) < 200 and seen[0] == "word0"  # what streamed reached the caller
    assert gone(first_pid) and backend.pid is None
    assert backend.complete(ASK, max_tokens=2).text == "word0 word1"
    assert backend.pid not in (None, first_pid)


def test_other_deaths_are_named_by_their_signal(backends: list[IsolatedBackend]) -> None:
    backend = make(backends, delay=0.05)
    for sig, words in ((signal.SIGKILL, "signal 9, killed, often for lack of memory"),
                       (signal.SIGABRT, "signal 6, aborted")):
        backend.load()
        pid = backend.pid
        assert pid is not None
        timer = threading.Timer(0.3, os.kill, (pid, sig))
        timer.start()
        with pytest.raises(ModelProcessDied, match=words):
            backend.complete(ASK, max_tokens=200)
        timer.join()
        assert backend.complete(ASK, max_tokens=1).text == "word0"  # resets the count


def test_three_crashes_in_a_row_stop_the_restarts_and_say_the_fix(
    backends: list[IsolatedBackend],
) -> None:
    backend = make(backends, env={FAULT_ENV: "4"})
    for _ in range(CRASH_LIMIT - 1):
        with pytest.raises(ModelProcessDied, match="it restarts on the next request"):
            backend.complete(ASK, max_tokens=200)
    with pytest.raises(ModelProcessStopped) as info:
        backend.complete(ASK, max_tokens=200)
    message = str(info.value)
    assert message == (
        "model tiny: the model process died (signal 11, a segmentation fault) 3 times in a "
        f"row, so it is not restarted (fix: {FIX})"
    )
    with pytest.raises(ModelProcessStopped):
        backend.load()
    assert backend.pid is None  # no fourth process was started
    assert backend.count_tokens("still counts") == 2  # the vocabulary is the parent's


def test_a_success_between_crashes_resets_the_count(backends: list[IsolatedBackend]) -> None:
    backend = make(backends, env={FAULT_ENV: "4"})
    for _ in range(CRASH_LIMIT + 2):
        with pytest.raises(ModelProcessDied) as info:
            backend.complete(ASK, max_tokens=200)
        assert not isinstance(info.value, ModelProcessStopped)
        assert backend.complete(ASK, max_tokens=2).text == "word0 word1"  # under 4 tokens


def test_a_model_that_cannot_load_is_an_error_not_a_crash(
    backends: list[IsolatedBackend],
) -> None:
    backend = make(backends, fail_load="model tiny: GGUF file not found: /x.gguf")
    for _ in range(CRASH_LIMIT + 1):
        with pytest.raises(BackendError) as info:
            backend.load()
        assert str(info.value) == "model tiny: GGUF file not found: /x.gguf"
        assert not isinstance(info.value, ModelProcessDied)


def test_close_ends_the_child(backends: list[IsolatedBackend]) -> None:
    backend = make(backends)
    backend.load()
    pid = backend.pid
    assert pid is not None
    backend.close()
    assert gone(pid) and backend.pid is None
    assert backend.complete(ASK, max_tokens=1).text == "word0"  # and it starts again


PARENT = """
import sys, time
sys.path.insert(0, {root!r})
from tests.model_fakes import isolated_fake
backend = isolated_fake("a b c d e f g h i j", delay={delay})
backend.load()
print(backend.pid, flush=True)
if {generate}:
    backend.complete([], max_tokens=10_000)
time.sleep(120)
"""


@pytest.mark.parametrize("generate", [False, True], ids=["idle", "mid-generation"])
def test_the_child_dies_with_its_parent(generate: bool) -> None:
    code = PARENT.format(root=str(ROOT), delay=0.5 if generate else 0.0, generate=generate)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(0.3)
    assert not gone(child, within=0.1)
    parent.kill()
    parent.wait()
    assert gone(child), "the model process outlived its parent"
