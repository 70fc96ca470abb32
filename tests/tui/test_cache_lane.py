"""The cache answers while the model writes: a request that needs no model is answered at
once, in its place in the transcript, even while another answer is being generated; only
requests that need the model wait their turn, and they still see the earlier turns answered
when they run. The model is a scripted one that stops mid-answer until the test releases it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Static

from stepchat.backends.scripted import ScriptedBackend
from stepchat.config import Config
from stepchat.core.conversation import FOLLOW_UP_NOTE, WAITING_NOTE
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import FixedClock
from stepchat.core.settings import LinearStrategy
from stepchat.tui.app import StepchatApp, build_app
from stepchat.tui.history import Turn
from stepchat.tui.widgets.steps import AnswerView

from .conftest import (
    LINEAR_REPLIES,
    TEST_PIPELINE,
    FakeLoader,
    PacedBackend,
    send_until_paused,
    settle,
    wait_until,
)

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
LONG = "Paris is the capital of France and its largest city, on the Seine."
OPENER = "Tell me about Paris."
SOLVE = "Solve for x: 7x = 14."
STATED_JSON = "Return a JSON object with keys name and age for Ann, 30."
SEEDED = "Solve 3x + 5 = 20 for x."
FOLLOW_UP = "And what about Lyon?"


def answers(app: StepchatApp) -> list[AnswerView]:
    return list(app.chat.query(AnswerView))


def solver_first(config: Config) -> Config:
    """The app's default strategy: the exact solver writes a new equation's steps."""
    solver = replace(TEST_PIPELINE, linear_strategy=LinearStrategy.SOLVER_FIRST)
    return replace(config, pipeline=solver)


async def send(pilot: Any, prompt: str) -> None:
    pilot.app.chat.prompt.text = prompt
    await pilot.press("enter")


async def solve_while_the_model_writes(pilot: Any, backend: PacedBackend) -> list[Turn]:
    """Hold the model mid-answer to OPENER, send SOLVE, wait for its answer; the turns."""
    await settle(pilot)
    await send_until_paused(pilot, OPENER, backend)
    await send(pilot, SOLVE)
    turns = pilot.app.conversation.turns
    await wait_until(pilot, lambda: turns[1].answer is not None)
    return turns


async def test_a_solver_request_is_answered_while_the_model_writes(
    config: Config, clock: FixedClock
) -> None:
    """Sent during a long generation, the equation is answered by the solver before the
    generation ends, in its place; a request that needs the model waits its turn and is
    then sent with every turn answered before it, the solver's included."""
    backend = PacedBackend(LONG, pause_at=3)
    app = build_app(solver_first(config), FakeLoader(backend=backend), clock, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        turns = await solve_while_the_model_writes(pilot, backend)

        # The model is still held mid-answer: the equation did not wait for it.
        assert not backend.release.is_set() and turns[0].answer is None
        assert app.chat.active is not None and app.chat.active.turn is turns[0]
        solved = turns[1].answer
        assert solved is not None and solved.path == "solver"
        assert solved.text.splitlines()[-1] == "x = 2"
        assert answers(app)[1].text == solved.text
        assert len(backend.calls) == 1
        assert app.chat.panel_state().status == "answering…"

        await send(pilot, "And of Spain?")
        await wait_until(pilot, lambda: len(app.chat.requests.waiting) == 1)
        assert app.chat.panel_state().status == "answering… (1 queued)"
        assert "queued" in answers(app)[2].status_text

        backend.release.set()
        await settle(pilot)
        await settle(pilot)
        assert [t.answer is not None for t in turns] == [True, True, True]
        assert not app.busy and app.chat.panel_state().status == "ready"
        # The queued prompt ran after both earlier turns were answered, and got both.
        assert [m.content for m in backend.calls[1]] == [
            OPENER, LONG, SOLVE, solved.text, "And of Spain?"
        ]


def seed(loader: FakeLoader, config: Config, prompt: str, reply: str) -> None:
    """Cache `prompt`'s answer as an earlier session would have (a first turn), under the
    settings the app uses for the default model (what it runs is part of the scope)."""
    backend = ScriptedBackend([reply], model_id=config.default_model)
    settings = config.pipeline_for(config.default_model)
    StepCache(backend, loader.embedder, loader.store, settings=settings).answer(prompt)


async def test_a_cached_request_sent_while_the_model_writes_is_a_follow_up(
    make_app: Any, config: Config
) -> None:
    """Sent while the model writes a chat's first answer, a request the cache holds follows
    that turn: it is not served from the cache but waits for the model, and is answered
    with the follow-up note; a JSON object whose values the prompt states is still written
    at once without the model. Asked as a new chat's first turn, the cached one is a hit."""
    backend = PacedBackend(LONG, pause_at=3)
    loader = FakeLoader(backend=backend)
    seed(loader, config, SEEDED, LINEAR_REPLIES[0])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_until_paused(pilot, OPENER, backend)
        await send(pilot, SEEDED)
        await send(pilot, STATED_JSON)
        turns = app.conversation.turns
        await wait_until(pilot, lambda: turns[2].answer is not None)
        assert turns[0].answer is None and not backend.release.is_set()
        assert turns[1].answer is None and len(app.chat.requests.waiting) == 1
        stated = turns[2].answer
        assert stated is not None and stated.path == "solver"
        # Two questions before it wait for their answers: not "a follow-up".
        assert WAITING_NOTE in stated.notes and FOLLOW_UP_NOTE not in stated.notes
        await pilot.pause(0.2)
        route = answers(app)[2].query_one(".route", Static).render()
        assert str(route) == "cache not used"
        assert len(backend.calls) == 1
        backend.release.set()
        await settle(pilot)
        await settle(pilot)
        assert turns[0].answer is not None and turns[0].answer.text == LONG
        follow = turns[1].answer
        # The model was asked; its reply (the paced one, about Paris) solves nothing, so
        # the exact solver's steps stand. Either way, not the cached entry.
        assert follow is not None and follow.path == "solver" and not follow.hit
        assert FOLLOW_UP_NOTE in follow.notes
        calls = len(backend.calls)
        assert calls > 1

        await pilot.press("ctrl+n")
        await settle(pilot)
        app.chat.prompt.text = SEEDED
        await pilot.press("enter")
        await settle(pilot)
        hit = app.conversation.turns[0].answer
        assert hit is not None and hit.path == "reuse-only" and hit.hit
        assert len(backend.calls) == calls


async def test_escape_cancels_the_generation_not_the_answers_beside_it(
    config: Config, clock: FixedClock
) -> None:
    backend = PacedBackend(LONG, pause_at=3)
    loader = FakeLoader(backend=backend)
    app = build_app(solver_first(config), loader, clock, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        turns = await solve_while_the_model_writes(pilot, backend)
        await pilot.press("escape")
        backend.release.set()
        await settle(pilot)
        assert turns[0].cancelled and turns[0].answer is None
        assert turns[1].answer is not None and not turns[1].cancelled
        assert not app.busy
        # The solver's answer was given while the turn before waited for its answer, so it
        # is not cached (and says why); the cancelled answer never is.
        assert WAITING_NOTE in turns[1].answer.notes
        assert loader.store.count() == 0


async def test_a_follow_up_of_an_unanswered_prompt_is_not_served_from_the_cache(
    make_app: Any, config: Config
) -> None:
    """Open text sent while the turn before it is being written follows that turn: it is
    not served from the cache as a first turn would be, but waits for the model and is
    sent with the answer it follows."""
    backend = PacedBackend(LONG, pause_at=3)
    loader = FakeLoader(backend=backend)
    seed(loader, config, FOLLOW_UP, "Lyon is known for its food.")
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_until_paused(pilot, OPENER, backend)
        await send(pilot, FOLLOW_UP)
        await wait_until(pilot, lambda: len(app.chat.requests.waiting) == 1)
        assert app.conversation.turns[1].answer is None
        backend.release.set()
        await settle(pilot)
        await settle(pilot)
        follow = app.conversation.turns[1].answer
        assert follow is not None and not follow.hit
        assert [m.content for m in backend.calls[1]] == [OPENER, LONG, FOLLOW_UP]
