"""Fixtures for the app's tests: fake parts, a private STEPCHAT home, a fixed clock.

Everything on screen is deterministic by construction: the scripted backend replies from a
script, the hashed embedder needs no model, the memory store starts empty, the clock moves
only when told, the cursor does not blink and every test fixes its terminal size.
"""

from __future__ import annotations

import io
import itertools
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import Reply, ScriptedBackend
from stepchat.config import Config, ModelSpec
from stepchat.core.ports import CancelToken, FixedClock, GenerationCancelled
from stepchat.core.settings import LinearStrategy, PipelineSettings
from stepchat.core.types import Answer, ChatMessage, Completion
from stepchat.embed.hashed import HashedEmbedder
from stepchat.lazy import LazyBackend
from stepchat.paths import UserPaths
from stepchat.runtime import Parts
from stepchat.store.memory import MemoryStore
from stepchat.tui.app import StepchatApp, build_app

MODELS = {
    "tiny": ModelSpec(id="tiny", name="Tiny Test Model", source="/nonexistent/tiny.gguf"),
    "small": ModelSpec(id="small", name="Small Test Model", source="/nonexistent/small.gguf"),
}


class PacedBackend(ScriptedBackend):
    """A scripted backend that streams its reply word by word and stops after `pause_at`
    words until the test sets `release`: the app is caught mid-answer, deterministically."""

    def __init__(self, reply: str, pause_at: int, model_id: str = "tiny") -> None:
        super().__init__([reply], model_id=model_id)
        self.reply = reply
        self.pause_at = pause_at
        self.paused = threading.Event()
        self.release = threading.Event()

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
        **_options: Any,
    ) -> Completion:
        self.calls.append(list(messages))
        pieces = re.findall(r"\S+\s*|\s+", self.reply)
        for i, piece in enumerate(pieces):
            if i == self.pause_at:
                self.paused.set()
                self.release.wait(timeout=30)
            if cancel is not None and cancel.is_set():
                raise GenerationCancelled()
            if on_token is not None:
                on_token(piece)
        return Completion(self.reply, 10, self.count_tokens(self.reply))


class FakeLoader:
    """`load` for build_app: scripted backend per model id, one shared embedder and store.

    `gate`, when given, makes loading wait until the test sets it (the loading state);
    `error`, when given, makes loading fail with it (the error state); `model_gate`, when
    given, makes the model's own load wait for it, behind the lazy proxy the real loader
    uses, while the cache is already open; `errors` makes the model load of the ids it
    names fail (after the cache opened, as a missing GGUF does); `backend` replaces the
    scripted backend; `warnings` are the notes a real loader returns (a cache that fell
    back to memory).
    """

    def __init__(
        self,
        replies: Sequence[Reply] = ("x = 5",),
        *,
        gate: threading.Event | None = None,
        error: Exception | None = None,
        model_gate: threading.Event | None = None,
        errors: dict[str, Exception] | None = None,
        backend: ScriptedBackend | None = None,
        warnings: Sequence[str] = (),
    ) -> None:
        self.replies = list(replies)
        self.gate = gate
        self.error = error
        self.model_gate = model_gate
        self.errors = errors or {}
        self.backend = backend
        self.warnings = list(warnings)
        self.store = MemoryStore()
        self.embedder = HashedEmbedder()
        self.backends: list[ScriptedBackend] = []
        self.calls: list[str | None] = []

    def __call__(self, config: Config, model_id: str | None) -> Parts:
        self.calls.append(model_id)
        if self.gate is not None:
            self.gate.wait(timeout=120)
        if self.error is not None:
            raise self.error
        model = model_id or config.default_model
        backend = self.backend or ScriptedBackend(self.replies, model_id=model)
        self.backends.append(backend)
        if model in self.errors:
            backend = BrokenBackend(backend, self.errors[model])
        gate = self.model_gate
        if gate is None:
            return Parts(backend, self.embedder, self.store, list(self.warnings))
        return Parts(LazyBackend(backend.model_id, lambda: GatedBackend(backend, gate)),
                     self.embedder, self.store, list(self.warnings))


class BrokenBackend(ScriptedBackend):
    """A model whose file turns out to be missing or damaged when it is loaded."""

    def __init__(self, script: ScriptedBackend, error: Exception) -> None:
        super().__init__(script._replies, model_id=script.model_id)
        self.error = error

    def load(self) -> float:
        raise self.error


class GatedBackend(ScriptedBackend):
    """A scripted model whose load waits for a gate, as a real model's load takes time."""

    def __init__(self, script: ScriptedBackend, gate: threading.Event) -> None:
        super().__init__(script._replies, model_id=script.model_id)
        self.gate = gate
        self.loaded = False

    def load(self) -> float:
        self.gate.wait(timeout=120)
        self.loaded = True
        return 0.0


class TickingClock(FixedClock):
    """A fixed wall clock whose stopwatch advances 2 ms per reading.

    Stage timings then depend only on how often the pipeline reads the clock, which is
    deterministic, so latencies and the measured model speed are identical on every run.
    """

    def __init__(self) -> None:
        super().__init__()
        self._tick = 1000.0
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        with self._lock:
            self._tick += 0.002
            return self._tick

    def stall(self, seconds: float) -> None:
        """Let `seconds` pass on the stopwatch, as a slow model call would."""
        with self._lock:
            self._tick += seconds


def shown_text(static: Any, width: int = 40) -> str:
    """What a Static shows, as plain text (for asserting on panels built from renderables)."""
    from rich.console import Console

    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(static.content)
    return console.export_text()


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio, Textual's loop (anyio's pytest plugin drives them)."""
    return "asyncio"


@pytest.fixture
def paths(tmp_path: Path) -> UserPaths:
    return UserPaths(config_dir=tmp_path / "config", data_dir=tmp_path / "data")


TEST_PIPELINE = PipelineSettings(linear_strategy=LinearStrategy.MODEL_FIRST)
"""Model-first, so the scripted model writes linear steps: the app's streaming, regenerated
and patched paths are exercised (solver-first would answer every equation without it)."""


@pytest.fixture
def config(paths: UserPaths) -> Config:
    return Config(models=dict(MODELS), default_model="tiny", pipeline=TEST_PIPELINE, paths=paths)


@pytest.fixture
def clock() -> FixedClock:
    return TickingClock()


@pytest.fixture
def loader() -> FakeLoader:
    return FakeLoader()


@pytest.fixture
def make_app(config: Config, clock: FixedClock) -> Callable[..., StepchatApp]:
    """Build an app on fakes; `make_app(loader)` or `make_app()` for the default loader."""

    def make(loader: FakeLoader | None = None) -> StepchatApp:
        return build_app(config, loader or FakeLoader(), clock, blink=False,
                         entry_serials=itertools.count())

    return make


async def settle(pilot: Any, rounds: int = 4) -> None:
    """Let workers finish and their messages (and any recompose) be handled."""
    app = pilot.app
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def wait_until(pilot: Any, predicate: Callable[[], bool], tries: int = 300) -> None:
    """Pause until `predicate()` holds (a worker reached a point), or fail."""
    for _ in range(tries):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError("condition never became true")


async def send_until_paused(pilot: Any, prompt: str, backend: PacedBackend) -> None:
    """Send `prompt` and wait until the paced model stops mid-answer, its words drawn."""
    pilot.app.chat.prompt.text = prompt
    await pilot.press("enter")
    await wait_until(pilot, backend.paused.is_set)
    await pilot.pause(0.2)


FOUR_STATUSES = Answer.from_record({
    "answer": "",
    "path": "patched",
    "task": "linear",
    "steps": [
        {"text": "3x + 5 = 26", "status": "reused", "kind": "equation"},
        {"text": "3x = 21", "status": "patched", "kind": "equation"},
        {"text": "Divide both sides by 3.", "status": "regenerated", "kind": "prose"},
        {"text": "x = 7", "status": "fallback", "kind": "final"},
    ],
    "tokens": {"generated": 4, "saved": 4},
    "timings_ms": {"total": 44.0},
})
"""An answer with one step of each status, for pictures of the four badges, read from a
record as old as the first saved conversations (no `hit`, no `check`, no model)."""


async def ask(pilot: Any, prompt: str) -> None:
    """Type `prompt` into the prompt box, press Enter and wait for the answer."""
    app = pilot.app
    app.chat.prompt.text = prompt
    await pilot.press("enter")
    await settle(pilot)


LINEAR_REPLIES = (
    "3x + 5 = 20\n3x = 15\nx = 5",
    "2x + 4 = x + 9\nx + 4 = 9\nx = 5",
)
"""What the scripted model answers, in order (the last one repeats)."""
