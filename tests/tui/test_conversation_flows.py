"""A real conversation in the app: earlier turns reach the model, nothing typed is lost.

Issue items 1 (conversation memory and the cache's rule), 5 (a prompt sent while busy
waits its turn), 6 (Esc keeps the partial answer, never cached) and 8 (Up recalls earlier
prompts; Regenerate bypasses the cache). Each test drives the app with the pilot on the
scripted backend, hashed embedder and in-memory store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Markdown

from stepchat.config import Config
from stepchat.core.types import ChatMessage
from stepchat.tui.app import build_app
from stepchat.tui.widgets.steps import AnswerView, StepBlock, UserTurn

from .conftest import LINEAR_REPLIES, FakeLoader, PacedBackend, ask, send_until_paused, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
GREEN = "My favourite colour is green. Please remember it."
BLUE = "My favourite colour is blue. Please remember it."
FOLLOW_UP = "What is my favourite colour?"


def colour_model(messages: Sequence[ChatMessage]) -> str:
    """Answers from the whole conversation it is sent, as a chat model does."""
    said = " ".join(m.content for m in messages if m.role == "user")
    if "favourite colour is" not in said:
        return "I do not know your favourite colour."
    if messages[-1].content != FOLLOW_UP:
        return "I will remember it."
    colour = "blue" if "blue" in said else "green"
    return f"Your favourite colour is {colour}."


def answers(app: Any) -> list[AnswerView]:
    return list(app.chat.query(AnswerView))


# ---- 1: earlier turns reach the model; the cache's conversation rule ------------------------


async def test_earlier_turns_reach_the_model(make_app: Any) -> None:
    loader = FakeLoader([colour_model])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, GREEN)
        await ask(pilot, FOLLOW_UP)
        sent = loader.backends[0].calls[-1]
        assert [(m.role, m.content) for m in sent] == [
            ("user", GREEN),
            ("assistant", "I will remember it."),
            ("user", FOLLOW_UP),
        ]
        assert app.conversation.turns[-1].answer.text == "Your favourite colour is green."


async def test_a_follow_up_is_not_served_across_conversations(make_app: Any) -> None:
    loader = FakeLoader([colour_model])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, GREEN)
        await ask(pilot, FOLLOW_UP)
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, BLUE)
        await ask(pilot, FOLLOW_UP)
        answer = app.conversation.turns[-1].answer
        assert answer is not None
        assert answer.text == "Your favourite colour is blue."
        assert answer.path == "miss" and not answer.hit
        assert "a follow-up in a conversation: not cached" in answer.notes
        # Only the two openers (asked with no earlier turns) were cached; no follow-up was.
        assert sorted(e.prompt for e in loader.store.entries()) == [BLUE, GREEN]


async def test_a_checkable_request_is_reused_only_as_a_first_turn(make_app: Any) -> None:
    """An equation asked after earlier turns is not served from the cache (they may say its
    numbers are octal); asked first in a new chat, it is."""
    loader = FakeLoader([*LINEAR_REPLIES[:1], colour_model, *LINEAR_REPLIES[:1]])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        await ask(pilot, GREEN)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        follow_up = app.conversation.turns[-1].answer
        assert follow_up is not None and not follow_up.hit
        await pilot.press("ctrl+n")
        await settle(pilot)
        calls = len(loader.backends[0].calls)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        answer = app.conversation.turns[-1].answer
        assert answer is not None and answer.path == "reuse-only" and answer.hit
        assert len(loader.backends[0].calls) == calls


LONG_REPLY = " ".join(["word"] * 20)


async def test_oldest_turns_are_dropped_to_fit_and_marked(config: Config, clock: Any) -> None:
    """A 330-token context with a 256-token reply budget holds one earlier exchange of
    this size: the third request drops the first, says so above its answer, and keeps
    the mark when the conversation is reopened."""
    small = replace(config.models["tiny"], context=330)
    config = replace(config, models={**config.models, "tiny": small})
    loader = FakeLoader([LONG_REPLY])
    app = build_app(config, loader, clock, blink=False)
    prompts = [f"Tell me about topic number {n} in twenty words please." for n in range(3)]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for prompt in prompts:
            await ask(pilot, prompt)
        sent = loader.backends[0].calls[-1]
        assert [m.content for m in sent] == [prompts[1], LONG_REPLY, prompts[2]]
        assert [t.dropped for t in app.conversation.turns] == [0, 0, 1]
        marks = app.chat.query(".trimmed")
        assert len(marks) == 1
        assert "1 earlier exchange not sent to the model" in str(marks.first().render())
        conversation_id = app.conversation.id
    again = build_app(config, loader, clock, blink=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await again.open_conversation(conversation_id)
        await settle(pilot)
        assert len(again.chat.query(".trimmed")) == 1


# ---- 5: a prompt sent while busy waits its turn -------------------------------------------


async def test_a_prompt_sent_while_answering_is_queued_not_lost(make_app: Any) -> None:
    backend = PacedBackend("Paris is the capital of France.", pause_at=2)
    app = make_app(FakeLoader(backend=backend))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_until_paused(pilot, "What is the capital of France?", backend)
        app.chat.prompt.text = "And of Spain?"
        await pilot.press("enter")
        await pilot.pause()
        assert [t.prompt for t in app.chat.query(UserTurn)] == [
            "What is the capital of France?", "And of Spain?"
        ]
        assert len(app.chat.requests.waiting) == 1
        assert "queued" in answers(app)[1].status_text
        backend.release.set()
        await settle(pilot)
        await settle(pilot)
        assert [t.answer is not None for t in app.conversation.turns] == [True, True]
        assert not app.busy
        # The queued prompt went out after the first answer, with it as an earlier turn.
        assert [m.content for m in backend.calls[1]] == [
            "What is the capital of France?", "Paris is the capital of France.", "And of Spain?"
        ]


# ---- 6: Esc keeps what was streamed ---------------------------------------------------------


async def test_escape_keeps_the_partial_answer_marked_and_uncached(
    make_app: Any, config: Config, clock: Any
) -> None:
    backend = PacedBackend("Paris is the capital of France and its largest city.", pause_at=4)
    loader = FakeLoader(backend=backend)
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_until_paused(pilot, "Tell me about Paris.", backend)
        await pilot.press("escape")
        backend.release.set()
        await settle(pilot)
        turn = app.conversation.turns[0]
        assert turn.cancelled and turn.answer is None
        assert turn.partial == "Paris is the capital "
        view = answers(app)[0]
        partial = view.query_one(".partial", Markdown)
        assert "Paris is the capital" in partial.source
        assert "not cached" in str(view.query_one(".cancelled").render())
        assert loader.store.count() == 0
        conversation_id = app.conversation.id
    saved = app.history.load(conversation_id)
    assert saved.turns[0].partial == "Paris is the capital "
    again = build_app(config, loader, clock, blink=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await again.open_conversation(conversation_id)
        await settle(pilot)
        assert "Paris is the capital" in again.chat.query_one(".partial", Markdown).source


# ---- 8: prompt history and Regenerate --------------------------------------------------------


async def test_up_in_an_empty_box_recalls_earlier_prompts(make_app: Any) -> None:
    app = make_app(FakeLoader(LINEAR_REPLIES))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        await ask(pilot, "Solve 2x + 4 = x + 9 for x.")
        prompt = app.chat.prompt
        await pilot.press("up")
        assert prompt.text == "Solve 2x + 4 = x + 9 for x."
        await pilot.press("up")
        assert prompt.text == "Solve 3x + 5 = 20 for x."
        await pilot.press("up")  # the oldest stays
        assert prompt.text == "Solve 3x + 5 = 20 for x."
        await pilot.press("down")
        assert prompt.text == "Solve 2x + 4 = x + 9 for x."
        await pilot.press("down")
        assert prompt.text == ""
        # Edited text is the user's: Up moves the cursor instead of replacing it.
        await pilot.press("up", "end", "!", "up")
        assert prompt.text == "Solve 2x + 4 = x + 9 for x.!"


async def test_regenerate_from_the_palette_bypasses_the_cache(make_app: Any) -> None:
    loader = FakeLoader(LINEAR_REPLIES[:1])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        assert app.conversation.turns[-1].answer.path == "reuse-only"
        calls = len(loader.backends[0].calls)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"regenerate", "enter")
        await settle(pilot)
        await settle(pilot)
        assert len(loader.backends[0].calls) == calls + 1
        assert len(app.conversation.turns) == 1
        answer = app.conversation.turns[-1].answer
        assert answer is not None and answer.path == "miss"
        assert len(answers(app)) == 1
        statuses = [b.step.status.value for b in answers(app)[-1].query(StepBlock)]
        assert statuses == ["regenerated"] * 3
