"""The model's own process: one `Backend` run for a parent that must outlive its crashes.

`python -m stepchat.backends.model_worker` is started by `stepchat.backends.isolated`. Why a
child process, and why this shape of one:

- A native crash in llama.cpp (a segfault such as the AMX one, an abort on a failed
  assertion, the kernel killing the largest process for memory) ends the process it happens
  in. Run in the app, it takes the user's conversation, the prompt being typed and the
  terminal state with it; in `serve`, every client. In a child, the parent sees the pipe
  close and reads the exit status, and everything the user had stays.
- A plain interpreter started with `-m`, not `multiprocessing`: spawn would re-import the
  parent's `__main__` (the console script, the Textual app) in the child and pickle across a
  `Connection`; here the child imports only this module, the backend and llama.cpp, and
  `Popen.returncode` gives the signal that ended it (-11 for SIGSEGV) directly.
- Not llama.cpp's HTTP server as a managed child: that needs its server extra (FastAPI,
  uvicorn: a slower start), a free port, SSE per token and HTTP per request, and stepchat's
  own `Llama` subclass (token counts, the extra-buffer choice) would not run in it.
- JSON lines over stdin and stdout: small, readable, and written by one thread on each
  side. Standard output is the protocol, so before anything else the child moves it to a
  private descriptor and points descriptor 1 at stderr: whatever native code prints can
  never corrupt a message.
- A reader thread takes every message as it arrives, so a cancel sets the running
  generation's event while the main thread generates; the backend checks it between
  tokens, so Esc stops within a token, as it did in process.
- End of input means the parent is gone (its descriptors close with it, even on SIGKILL):
  the reader ends the process at once with `os._exit`, mid-generation or not, so no child
  outlives its parent holding the model's memory. (`PR_SET_PDEATHSIG` would fire when the
  parent *thread* that started the child ends: a worker thread of the app.)

Messages, parent to child: `{"op": "load", "factory": "module:callable", "args": {...}}`
builds the backend and loads it; `{"op": "complete", "id": n, ...}` streams one reply;
`{"op": "cancel", "id": n}` stops it. Child to parent: `loaded` (seconds, and what the
backend reports about itself), `token` (one piece of text), `done` (the completion),
`cancelled`, `error` (a `BackendError`'s one line, and its `kind` when the parent must raise
a subclass: `ERROR_KINDS`); every reply to a request carries its id.

`STEPCHAT_FAULT_SEGV_AFTER_TOKENS=N` makes the child kill itself with SIGSEGV after
streaming N tokens: the crash tests' fault injection (a real signal, the one the AMX bug
raises), read only here.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO

from stepchat.core.ports import Backend, BackendError, GenerationCancelled, PromptTooLong
from stepchat.core.types import ChatMessage

FAULT_ENV = "STEPCHAT_FAULT_SEGV_AFTER_TOKENS"


def _protocol_output() -> BinaryIO:
    """Standard output, kept for messages only: descriptor 1 then points at stderr."""
    sys.stdout.flush()
    private = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(private, "wb")


ERROR_KINDS: dict[str, type[BackendError]] = {"prompt_too_long": PromptTooLong}
"""The `BackendError` subclasses an `error` event names by its `kind`, so the parent raises
the same class the model did: a caller treats a prompt over the context (the sender's to
fix) apart from a model that failed."""


def error_event(exc: Exception) -> dict[str, Any]:
    """An `error` event's fields: a BackendError's own line (anything else named by its
    type), and its `kind` when the parent must raise that subclass."""
    text = " ".join(str(exc).split())
    if not isinstance(exc, BackendError):
        return {"ev": "error", "message": f"{type(exc).__name__}: {text}"}
    kind = next((k for k, cls in ERROR_KINDS.items() if isinstance(exc, cls)), None)
    return {"ev": "error", "message": text, **({"kind": kind} if kind else {})}


def raised(event: dict[str, Any], fallback: str) -> BackendError:
    """The error an `error` event stands for, of the class its `kind` names."""
    error = ERROR_KINDS.get(str(event.get("kind")), BackendError)
    return error(str(event.get("message", fallback)))


def _segfault() -> None:
    """The injected fault: a real SIGSEGV, without leaving a core file behind."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), signal.SIGSEGV)


def build(factory: str, args: dict[str, Any]) -> Backend:
    """`module:callable` called with `args`: the backend this process runs."""
    module, _, name = factory.partition(":")
    make: Callable[..., Backend] = getattr(importlib.import_module(module), name)
    return make(**args)


class Worker:
    """Reads requests on a thread, answers them on the main thread, one at a time."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._requests: queue.Queue[dict[str, Any]] = queue.Queue()
        self._cancels: dict[int, threading.Event] = {}
        self._cancels_lock = threading.Lock()
        self._backend: Backend | None = None
        fault = os.environ.get(FAULT_ENV, "")
        self._fault_after = int(fault) if fault.isdigit() else None
        self._tokens = 0

    def send(self, message: dict[str, Any]) -> None:
        self._out.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
        self._out.flush()

    def read(self, source: BinaryIO) -> None:
        """The reader thread: cancels act at once, the rest queue; end of input ends all."""
        for line in source:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            op = message.get("op")
            if op == "cancel":
                with self._cancels_lock:
                    event = self._cancels.get(message.get("id", -1))
                if event is not None:
                    event.set()
                continue
            if op == "complete":
                with self._cancels_lock:
                    self._cancels[message["id"]] = threading.Event()
            self._requests.put(message)
        os._exit(0)

    def serve(self) -> None:
        while True:
            message = self._requests.get()
            if message.get("op") == "load":
                self._load(message)
            elif message.get("op") == "complete":
                self._complete(message)

    def _load(self, message: dict[str, Any]) -> None:
        started = time.perf_counter()
        try:
            if self._backend is None:
                self._backend = build(message["factory"], message.get("args", {}))
            self._backend.load()
        except Exception as exc:  # a model that cannot load is a message, not a death
            self._backend = None
            self.send(error_event(exc))
            return
        info = {"extra_buffers": getattr(self._backend, "extra_buffers", None)}
        self.send({"ev": "loaded", "seconds": time.perf_counter() - started, "info": info})

    def _complete(self, message: dict[str, Any]) -> None:
        request = message["id"]
        with self._cancels_lock:
            cancel = self._cancels[request]

        def on_token(text: str) -> None:
            self.send({"ev": "token", "id": request, "text": text})
            self._tokens += 1
            if self._fault_after is not None and self._tokens >= self._fault_after:
                _segfault()

        try:
            if self._backend is None:
                raise BackendError("the model is not loaded")
            done = self._backend.complete(
                [ChatMessage(role, content) for role, content in message["messages"]],
                max_tokens=message["max_tokens"],
                stop=message.get("stop", []),
                json_schema=message.get("json_schema"),
                on_token=on_token,
                cancel=cancel,
            )
        except GenerationCancelled:
            self.send({"ev": "cancelled", "id": request})
        except Exception as exc:
            self.send({**error_event(exc), "id": request})
        else:
            self.send({"ev": "done", "id": request, "completion": {
                "text": done.text,
                "prompt_tokens": done.prompt_tokens,
                "completion_tokens": done.completion_tokens,
                "finish_reason": done.finish_reason,
                "elapsed_ms": done.elapsed_ms,
            }})
        finally:
            with self._cancels_lock:
                self._cancels.pop(request, None)


def main() -> None:
    # The parent decides when this process ends (end of input); a Ctrl+C in the terminal
    # is the parent's to handle, not a reason to die mid-answer with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker = Worker(_protocol_output())
    reader = threading.Thread(target=worker.read, args=(sys.stdin.buffer,), daemon=True)
    reader.start()
    worker.serve()


if __name__ == "__main__":
    main()
