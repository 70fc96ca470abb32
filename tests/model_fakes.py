"""Models for the model process in fast tests: a scripted reply streamed at a set pace.

`paced` is a factory the model process (`stepchat.backends.model_worker`) imports by name, so
it runs in the child exactly where a GGUF would; `isolated_fake` builds the parent side.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stepchat.backends.isolated import IsolatedBackend, WorkerPlan
from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.ports import CancelToken, GenerationCancelled
from stepchat.core.types import ChatMessage, Completion

ROOT = Path(__file__).resolve().parents[1]
FIX = "set extra_buffers = false"


class PacedModel(ScriptedBackend):
    """Streams its reply word by word, `delay` seconds apart. With `record`, appends one
    line per call to that file: how many words it streamed, and how the call ended. With
    `noise`, writes to descriptor 1 before every word, as native code might."""

    def __init__(self, reply: str, delay: float, model_id: str, record: str | None,
                 noise: bool) -> None:
        super().__init__([reply], model_id=model_id)
        self.reply = reply
        self.delay = delay
        self.record = record
        self.noise = noise

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
        **_options: Any,
    ) -> Completion:
        words = self.reply.split(" ")[:max_tokens]
        sent = 0
        ended = "done"
        try:
            for i, word in enumerate(words):
                if cancel is not None and cancel.is_set():
                    ended = "cancelled"
                    raise GenerationCancelled()
                time.sleep(self.delay)
                if self.noise:
                    os.write(1, b"ggml: stray native output\n")
                if on_token is not None:
                    on_token(word if i == 0 else " " + word)
                sent += 1
        finally:
            if self.record:
                with open(self.record, "a", encoding="utf-8") as fh:
                    fh.write(f"{sent} {ended}\n")
        text = " ".join(words)
        return Completion(text, 10, len(words))


def paced(reply: str, delay: float = 0.0, model_id: str = "tiny", record: str | None = None,
          noise: bool = False, fail_load: str | None = None,
          fail_complete: tuple[str, str] | None = None) -> PacedModel:
    """The factory the model process calls; `fail_load` makes loading raise that error,
    `fail_complete` (the class's name in stepchat.core.ports, the message) every reply."""
    from stepchat.core import ports

    model = PacedModel(reply, delay, model_id, record, noise)
    if fail_load:

        def broken() -> float:
            raise ports.BackendError(fail_load)

        model.load = broken  # type: ignore[method-assign]
    if fail_complete:
        error: type[Exception] = getattr(ports, fail_complete[0])

        def refuse(*_args: Any, **_kwargs: Any) -> Completion:
            raise error(fail_complete[1])

        model.complete = refuse  # type: ignore[method-assign]
    return model


def isolated_fake(reply: str, *, model_id: str = "tiny", env: dict[str, str] | None = None,
                  **args: Any) -> IsolatedBackend:
    """An IsolatedBackend whose child runs `paced(reply, **args)`; words counted here."""
    plan = WorkerPlan("tests.model_fakes:paced", {"reply": reply, "model_id": model_id, **args},
                      FIX, {"PYTHONPATH": str(ROOT), **(env or {})})
    return IsolatedBackend(model_id, plan, ScriptedBackend(model_id=model_id))


def cancel_after(tokens: int) -> tuple[threading.Event, list[str], Callable[[str], None]]:
    """A cancel event, the pieces seen, and an `on_token` that sets the event at `tokens`."""
    cancel = threading.Event()
    seen: list[str] = []

    def on_token(piece: str) -> None:
        seen.append(piece)
        if len(seen) == tokens:
            cancel.set()

    return cancel, seen, on_token
