"""Savings that mean something (issue item 9): estimates shown as estimates, each hit
priced from the measured cost of the answer it replaces, the model's speed a median."""

from __future__ import annotations

import re
from typing import Any

import pytest

from stepchat.tui.widgets.savings import SavingsPanel

from .conftest import FakeLoader, TickingClock, ask, settle, shown_text

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
COLOURS = "Name three primary colours."


def model_at(clock: TickingClock) -> Any:
    """A model whose first answer is slow (warming up, 2 tok/s) and the rest 40 tok/s."""
    calls = {"n": 0}

    def reply(messages: Any) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            clock.stall(5.0)
            return " ".join(["red"] * 10)
        clock.stall(1.0)
        return " ".join(["word"] * 40)

    return reply


async def test_time_saved_is_the_measured_cost_of_the_replaced_answer(
    make_app: Any, clock: TickingClock
) -> None:
    app = make_app(FakeLoader([model_at(clock)]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, COLOURS)
        first_ms = app.conversation.turns[0].answer.timings.total_ms
        for topic in ("rivers", "mountains", "deserts"):
            await ask(pilot, f"Describe {topic} in forty words.")
        await pilot.press("ctrl+n")  # a new chat: no earlier turns, so open text may be reused
        await settle(pilot)
        await ask(pilot, COLOURS)
        hit = app.conversation.turns[-1].answer
        assert hit.path == "reuse-only"

        stats = app.stats
        assert stats.tokens_per_second == pytest.approx(40, rel=0.02)
        assert stats.seconds_saved == pytest.approx((first_ms - hit.timings.total_ms) / 1000)
        panel = shown_text(app.chat.query_one(SavingsPanel))
        assert re.search(r"time saved \(est\.\)\s+~5\.0\d s", panel)
        assert "~40 tok/s" in panel


async def test_this_answer_is_the_open_chats_newest(make_app: Any) -> None:
    """Not the previous chat's while a new chat is empty, nor another chat's after Ctrl+O."""
    app = make_app(FakeLoader(["A first answer.", "A second answer."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Solve for x: 7x = 14.")
        first_chat = app.conversation.id
        assert app.stats.last is not None and app.stats.last.path == "solver"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.stats.last is None
        await ask(pilot, "Say something.")
        assert app.stats.last is not None and app.stats.last.path == "miss"
        await app.open_conversation(first_chat)
        await settle(pilot)
        assert app.stats.last is not None and app.stats.last.path == "solver"
