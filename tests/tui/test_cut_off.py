"""The app says when the token limit cut an answer, under the answer, and does not cache it."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from stepchat.tui.widgets.steps import AnswerView

from .conftest import FakeLoader, ask, settle, shown_text

pytestmark = pytest.mark.anyio

SIZE = (110, 36)


async def test_a_cut_off_answer_is_marked_and_not_cached(make_app: Any) -> None:
    """The test model's limit is 256 tokens; its 300-word reply is cut there."""
    loader = FakeLoader([" ".join(["piston"] * 300)])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Explain in detail how a car engine works.")
        view = app.chat.query(AnswerView).first()
        line = shown_text(view.query_one(".cutoff", Static), width=100)
        assert "cut off at the token limit (256 tokens); not cached" in line
        assert loader.store.count() == 0
        turn = app.conversation.turns[0]
        assert turn.answer is not None and turn.answer.finish_reason == "length"

        await ask(pilot, "Explain in detail how a car engine works.")
        assert app.conversation.turns[1].answer.path == "miss"
