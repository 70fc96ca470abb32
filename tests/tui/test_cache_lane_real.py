"""The cache answers while the model writes, on the real stack: the bundled SmolLM2 GGUF,
MiniLM and LanceDB in a temp dir, in the app.

The real model writes the first answer; the test holds it after a few tokens (inside the
model's token callback, so llama.cpp is mid-generation) to make the order certain on a
loaded machine, sends an equation, and sees it answered by the solver before the model
is let go and finishes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from stepchat.config import Config, load_config
from stepchat.core.ports import Backend
from stepchat.core.types import ChatMessage, Completion
from stepchat.paths import UserPaths
from stepchat.runtime import Parts, load_parts
from stepchat.tui.app import build_app

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


class HeldAfter:
    """The real backend, held in its token callback after `tokens` tokens until released."""

    def __init__(self, inner: Backend, tokens: int) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.tokens = tokens
        self.holding = threading.Event()
        self.release = threading.Event()

    def load(self) -> float:
        return self.inner.load()

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        on_token: Callable[[str], None] | None = None,
        **options: Any,
    ) -> Completion:
        seen = 0

        def token(piece: str) -> None:
            nonlocal seen
            seen += 1
            if seen == self.tokens:
                self.holding.set()
                self.release.wait(timeout=120)
            if on_token is not None:
                on_token(piece)

        return self.inner.complete(messages, on_token=token, **options)


async def until(pilot: Any, condition: Callable[[], bool], seconds: float = 600) -> None:
    """Wait for `condition` (generous: the machine may be busy with other work)."""
    for _ in range(int(seconds * 10)):
        if condition():
            return
        await pilot.pause(0.1)
    raise AssertionError("condition not reached")


async def test_the_solver_answers_while_the_real_model_writes(tmp_path: Path) -> None:
    config = load_config(UserPaths(tmp_path / "config", tmp_path / "data"))
    # A short story: the test needs the model mid-answer, not a long answer.
    spec = replace(config.model(None), max_tokens=48)
    config = replace(config, models={**config.models, spec.id: spec})
    held: list[HeldAfter] = []

    def load(config: Config, model_id: str | None) -> Parts:
        parts = load_parts(config, model_id)
        held.append(HeldAfter(parts.backend, tokens=4))
        return Parts(held[-1], parts.embedder, parts.store, parts.warnings)

    app = build_app(config, load, blink=False)
    try:
        async with app.run_test(size=(110, 36)) as pilot:
            await until(pilot, lambda: app.model_ready)
            app.chat.prompt.text = "Tell me a short story about a lighthouse keeper."
            await pilot.press("enter")
            await until(pilot, held[0].holding.is_set)
            app.chat.prompt.text = "Solve for x: 7x = 14."
            await pilot.press("enter")
            turns = app.conversation.turns
            await until(pilot, lambda: len(turns) == 2 and turns[1].answer is not None)

            assert turns[0].answer is None and app.chat.active is not None
            solved = turns[1].answer
            assert solved is not None and solved.path == "solver"
            assert solved.text.splitlines()[-1] == "x = 2"

            held[0].release.set()
            await until(pilot, lambda: not app.busy)
            story = turns[0].answer
            assert story is not None and story.path == "miss" and story.text.strip()
    finally:
        for backend in held:
            backend.release.set()
