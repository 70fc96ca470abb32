"""A `Backend` whose model runs in a process of its own, so its crash is a message.

The model (`LlamaCppBackend`, or any backend a factory builds) runs in a child started by
this module (`python -m stepchat.backends.model_worker`; why a child and why that shape is
argued there). Callers see the same `Backend` as before. What changes is what a native crash
does: the call in flight raises `ModelProcessDied`, a `BackendError` whose one line names
the model and the signal ("model smollm2-135m: the model process died (signal 11, a
segmentation fault); it restarts on the next request"), and the next call starts a fresh
child. After `CRASH_LIMIT` crashes in a row no new child is started and every call says
so, with the fix (for a GGUF, `extra_buffers = false` on the model's entry).

What stays in the parent: the vocabulary, so `count_tokens` neither waits for a running
generation nor needs the child alive (a cache hit counts what it saved while the model
writes, or after it died); and the crash count. Nothing is cached from a call that raised:
the engine stores only after its last generation call returns.

The child ends with its parent (it exits on end of input, which the parent's death
causes) and with `close()`, or when this object is collected.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, NoReturn, Protocol

from stepchat.backends.extra_buffers import CPUINFO, cpu_flags, use_extra_buffers
from stepchat.backends.model_worker import raised
from stepchat.config import ModelSpec
from stepchat.core.ports import BackendError, CancelToken, GenerationCancelled
from stepchat.core.types import ChatMessage, Completion

log = logging.getLogger("stepchat.llama")

WORKER_MODULE = "stepchat.backends.model_worker"
CRASH_LIMIT = 3
"""Crashes in a row after which the model is not restarted."""
POLL_S = 0.02
"""How often a waiting call looks at its cancel token: Esc acts within this, or a token."""
_END_WAIT_S = 5.0

_SIGNALS = {
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGABRT: "aborted",
    signal.SIGKILL: "killed, often for lack of memory",
    signal.SIGBUS: "a bus error",
    signal.SIGILL: "an instruction this CPU does not have",
    signal.SIGFPE: "an arithmetic fault",
}


class ModelProcessDied(BackendError):
    """The model's process ended during a call: a native crash, or killed."""


class ModelProcessStopped(ModelProcessDied):
    """The model's process died `CRASH_LIMIT` times in a row; it is not restarted."""


class TokenCounter(Protocol):
    def count_tokens(self, text: str) -> int: ...


@dataclass(frozen=True)
class WorkerPlan:
    """What the child runs: `factory` ("module:callable") called with `args` (JSON)."""

    factory: str
    args: dict[str, Any]
    fix: str
    """What the user can change when the model keeps crashing (ends the last message)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables added to the child's environment."""


class _Gone(Exception):
    """The child's output ended: it died."""


_EOF: dict[str, Any] = {}


class _Child:
    """One running model process: its pipes, the thread reading its messages, its stderr."""

    def __init__(self, plan: WorkerPlan) -> None:
        env = {**os.environ, **plan.env}
        # -P: the user's current directory is not put on the child's import path, so a
        # file there named like a module the child imports cannot shadow it.
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", WORKER_MODULE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, close_fds=True,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stderr_tail: deque[str] = deque(maxlen=20)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for target, stream in ((self._read, self.proc.stdout), (self._drain, self.proc.stderr)):
            threading.Thread(target=target, args=(stream,), daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _read(self, stream: IO[bytes]) -> None:
        for line in stream:
            with contextlib.suppress(ValueError):
                self.messages.put(json.loads(line))
        self.messages.put(_EOF)

    def _drain(self, stream: IO[bytes]) -> None:
        """The child's stderr (Python warnings, a native assertion) goes to the debug log,
        never to the terminal, where it would land under the app."""
        for raw in stream:
            line = raw.decode("utf-8", "replace").rstrip()
            self.stderr_tail.append(line)
            log.debug("model process: %s", line)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise _Gone() from None

    def next(self, timeout: float) -> dict[str, Any] | None:
        """The next message, None after `timeout`; raises _Gone once the output ended."""
        try:
            message = self.messages.get(timeout=timeout)
        except queue.Empty:
            return None
        if message is _EOF:
            self.messages.put(_EOF)
            raise _Gone()
        return message

    def status(self) -> str:
        """How the child ended, in words, once its output has closed."""
        try:
            code = self.proc.wait(timeout=_END_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "it closed its output and was stopped"
        if code < 0:
            number = -code
            try:
                meaning = _SIGNALS.get(signal.Signals(number))
            except ValueError:
                meaning = None
            return f"signal {number}" + (f", {meaning}" if meaning else "")
        return f"exit status {code}"

    def end(self) -> None:
        _end(self.proc)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Close the child's input (it exits at once), then make sure it is gone."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError, ValueError):
            proc.stdin.close()
    try:
        proc.wait(timeout=_END_WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class IsolatedBackend:
    """A `Backend` over a model run in a child process; a drop-in for `LlamaCppBackend`."""

    def __init__(self, model_id: str, plan: WorkerPlan, counter: TokenCounter) -> None:
        self.model_id = model_id
        self.plan = plan
        self._counter = counter
        # One generation at a time, as in process: the child has one llama.cpp context.
        self._lock = threading.Lock()
        self._child: _Child | None = None
        self._loaded = False
        self._crashes = 0
        self._last_death = ""
        self._serial = 0
        self.load_seconds: float | None = None
        self.info: dict[str, Any] = {}
        """What the child said about its model when it loaded (e.g. `extra_buffers`)."""

    @classmethod
    def for_gguf(
        cls, spec: ModelSpec, threads: int = 2, *, cpuinfo: Path = CPUINFO,
        env: Mapping[str, str] | None = None,
    ) -> IsolatedBackend:
        """A local GGUF run by `LlamaCppBackend` in the child; its vocabulary read here."""
        from stepchat.backends.llama_cpp import GgufVocabulary

        on = use_extra_buffers(spec.extra_buffers, cpu_flags(cpuinfo))
        fix = (
            f"set extra_buffers = false on the [[models]] entry of {spec.id} in config.toml, "
            "then restart stepchat"
            if on else
            "extra buffer types are already off: check the GGUF file and free memory, "
            "then restart stepchat"
        )
        plan = WorkerPlan(
            "stepchat.backends.llama_cpp:in_model_process",
            {"spec": asdict(spec), "threads": threads, "cpuinfo": str(cpuinfo)},
            fix, dict(env or {}),
        )
        return cls(spec.id, plan, GgufVocabulary(spec))

    @property
    def loaded(self) -> bool:
        child = self._child
        return self._loaded and child is not None and child.alive()

    @property
    def pid(self) -> int | None:
        """The model process's id while one runs."""
        child = self._child
        return child.pid if child is not None and child.alive() else None

    def count_tokens(self, text: str) -> int:
        """Counted here, with the vocabulary alone: never waits for the child."""
        return self._counter.count_tokens(text)

    def load(self) -> float:
        """Start the model process and load the model (idempotent); seconds it took."""
        with self._lock:
            return self._ready()

    def close(self) -> None:
        """End the model process; the next call starts a new one."""
        child, self._child = self._child, None
        self._loaded = False
        self.load_seconds = None
        if child is not None:
            child.end()

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Completion:
        """Stream one reply from the child. On cancel (or anything raised by `on_token`),
        the child is told to stop and the call returns at once; what the child still sends
        for this request is skipped by its id."""
        with self._lock:
            self._ready()
            child = self._child
            assert child is not None
            if cancel is not None and cancel.is_set():
                raise GenerationCancelled()
            self._serial += 1
            request = self._serial
            self._send(child, {
                "op": "complete", "id": request,
                "messages": [[m.role, m.content] for m in messages],
                "max_tokens": max_tokens, "stop": list(stop), "json_schema": json_schema,
            })
            try:
                return self._stream(child, request, on_token, cancel)
            except BaseException:
                # Harmless when the child has already ended this request: it ignores a
                # cancel for a request it no longer runs.
                with contextlib.suppress(_Gone):
                    child.send({"op": "cancel", "id": request})
                raise

    def _stream(
        self,
        child: _Child,
        request: int,
        on_token: Callable[[str], None] | None,
        cancel: CancelToken | None,
    ) -> Completion:
        """The child's messages for `request` until it ends."""
        while True:
            if cancel is not None and cancel.is_set():
                raise GenerationCancelled()
            message = self._next(child)
            if message is None or message.get("id") != request:
                continue
            event = message.get("ev")
            if event == "token":
                if on_token is not None:
                    on_token(message["text"])
            elif event == "done":
                self._crashes = 0
                return Completion(**message["completion"])
            elif event == "cancelled":
                raise GenerationCancelled()
            else:
                raise raised(message, "the model failed")

    # ------------------------------------------------------------------ the child

    def _ready(self) -> float:
        """A live child with the model loaded; starts one if needed."""
        if self._crashes >= CRASH_LIMIT:
            raise ModelProcessStopped(self._stopped())
        child = self._child
        if child is not None and not child.alive():
            # Died between calls (killed for memory while idle): no answer was lost, but it
            # counts towards the limit, and a new one starts.
            status = child.status()
            log.info("model %s: the model process died while idle (%s)", self.model_id, status)
            self._forget(status)
            if self._crashes >= CRASH_LIMIT:
                raise ModelProcessStopped(self._stopped())
            child = None
        if child is not None and self._loaded and self.load_seconds is not None:
            return self.load_seconds
        started = time.perf_counter()
        if child is None:
            child = self._start()
        self._send(child, {"op": "load", "factory": self.plan.factory, "args": self.plan.args})
        self._prepare_counter()  # the vocabulary loads here while the child loads the model
        while (message := self._next(child)) is None or message.get("ev") not in (
            "loaded", "error"
        ):
            pass
        if message["ev"] == "error":
            raise raised(message, "the model did not load")
        self._loaded = True
        self.info = dict(message.get("info") or {})
        self.load_seconds = time.perf_counter() - started
        return self.load_seconds

    def _start(self) -> _Child:
        child = _Child(self.plan)
        weakref.finalize(self, _end, child.proc)
        self._child = child
        self._loaded = False
        return child

    def _prepare_counter(self) -> None:
        load = getattr(self._counter, "load", None)
        if callable(load):
            with contextlib.suppress(BackendError):  # count_tokens reports it when asked
                load()

    def _send(self, child: _Child, message: dict[str, Any]) -> None:
        try:
            child.send(message)
        except _Gone:
            self._died(child)

    def _next(self, child: _Child) -> dict[str, Any] | None:
        try:
            return child.next(POLL_S)
        except _Gone:
            self._died(child)

    def _forget(self, status: str) -> None:
        self._child = None
        self._loaded = False
        self.load_seconds = None
        self._crashes += 1
        self._last_death = status

    def _died(self, child: _Child) -> NoReturn:
        status = child.status()
        tail = " | ".join(line for line in child.stderr_tail if line.strip())[-400:]
        # The log, not the terminal: under the app, stderr is the screen.
        log.info("model %s: the model process died (%s)%s", self.model_id, status,
                 f": {tail}" if tail else "")
        self._forget(status)
        if self._crashes >= CRASH_LIMIT:
            raise ModelProcessStopped(self._stopped())
        raise ModelProcessDied(
            f"model {self.model_id}: the model process died ({status}); "
            "it restarts on the next request"
        )

    def _stopped(self) -> str:
        return (
            f"model {self.model_id}: the model process died ({self._last_death}) "
            f"{self._crashes} times in a row, so it is not restarted (fix: {self.plan.fix})"
        )
