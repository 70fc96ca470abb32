"""Issue 19 item 2 in the app: the model process dies mid-answer, the app carries on.

The model runs in its own process (a scripted one, and the bundled GGUF in the slow
variant); the test sends it SIGSEGV once some of the answer has streamed. The app must
keep running, show the one-line error under what streamed (kept, marked, not cached), keep
the conversation and the text being typed, and answer the next prompt from a restarted
model. Without the model's own process the signal would end the test process itself.
"""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Markdown

from stepchat.backends.isolated import IsolatedBackend
from stepchat.config import Config, ModelSpec, load_config
from stepchat.runtime import Parts
from stepchat.tui.app import build_app
from stepchat.tui.export import to_markdown
from stepchat.tui.widgets.steps import AnswerView
from tests.model_fakes import isolated_fake

from .conftest import FakeLoader, settle, wait_until

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
STORY = " ".join(f"word{i}" for i in range(40))
DRAFT = "and what about the lighthouse keeper's"


class IsolatedLoader(FakeLoader):
    """The app's parts with the given model-process backend, a hashed embedder and an
    in-memory store."""

    def __init__(self, backend: IsolatedBackend) -> None:
        super().__init__()
        self.isolated = backend

    def __call__(self, config: Config, model_id: str | None) -> Parts:
        self.calls.append(model_id)
        return Parts(self.isolated, self.embedder, self.store)


def answers(app: Any) -> list[AnswerView]:
    return list(app.chat.query(AnswerView))


async def crash_mid_answer(app: Any, pilot: Any, backend: IsolatedBackend) -> int:
    """Send a prompt, type a draft while it streams, SIGSEGV the model after 3 tokens;
    the pid of the model process that died."""
    await settle(pilot)
    app.chat.prompt.text = "Tell me a long story about a lighthouse keeper."
    await pilot.press("enter")
    await wait_until(pilot, lambda: bool(answers(app))
                     and len(answers(app)[0]._stream.split()) >= 3, tries=6000)
    app.chat.prompt.text = DRAFT
    pid = backend.pid
    assert pid is not None and pid != os.getpid()
    os.kill(pid, signal.SIGSEGV)
    await wait_until(pilot, lambda: app.conversation.turns[0].error is not None, tries=6000)
    await settle(pilot)
    return pid


async def check_the_app_carried_on(app: Any, pilot: Any, loader: IsolatedLoader,
                                   backend: IsolatedBackend, model: str, died: int) -> None:
    assert app.is_running
    turn = app.conversation.turns[0]
    assert turn.answer is None and not turn.cancelled
    assert turn.error.startswith(
        f"model {model}: the model process died (signal 11, a segmentation fault); "
        "it restarts on the next request"), turn.error
    view = answers(app)[0]
    assert turn.partial and len(turn.partial.split()) >= 3
    assert turn.partial.split()[0] in view.query_one(".partial", Markdown).source
    assert "died (signal 11" in str(view.query_one(".error").render())
    assert "cut off · the partial answer is not cached" in str(
        view.query_one(".cancelled").render())
    assert loader.store.count() == 0
    assert app.chat.prompt.text == DRAFT  # what was being typed is still there
    exported = to_markdown(app.conversation)
    assert "## stepchat (cut off)" in exported and "*error: model " in exported

    app.chat.prompt.text = "Name a colour."
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(app.conversation.turns) == 2
                     and app.conversation.turns[1].answer is not None, tries=12000)
    await settle(pilot)
    second = app.conversation.turns[1]
    assert second.error is None and second.answer.text.strip()
    assert backend.pid is not None and backend.pid != died  # a new model process answered
    assert app.conversation.turns[0].prompt.startswith("Tell me a long story")  # kept


async def test_a_model_crash_mid_answer_leaves_the_app_running(config: Config,
                                                               clock: Any) -> None:
    backend = isolated_fake(STORY, delay=0.05)
    loader = IsolatedLoader(backend)
    app = build_app(config, loader, clock, blink=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            died = await crash_mid_answer(app, pilot, backend)
            await check_the_app_carried_on(app, pilot, loader, backend, "tiny", died)
    finally:
        backend.close()


@pytest.mark.slow
async def test_the_real_model_crashing_mid_answer_leaves_the_app_running(
    config: Config, clock: Any
) -> None:
    spec = load_config().model()
    assert isinstance(spec, ModelSpec)
    config = replace(config, models={**config.models, spec.id: spec}, default_model=spec.id)
    backend = IsolatedBackend.for_gguf(spec, threads=2)
    loader = IsolatedLoader(backend)
    app = build_app(config, loader, clock, blink=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            died = await crash_mid_answer(app, pilot, backend)
            await check_the_app_carried_on(app, pilot, loader, backend, spec.id, died)
    finally:
        backend.close()
