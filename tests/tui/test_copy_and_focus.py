"""Copy and focus (issue item 7): copy an answer, a code block or a JSON object through
Textual's clipboard; a mouse drag copies text, not badges; typing always reaches the
prompt box."""

from __future__ import annotations

import json
from typing import Any

import pytest

from stepchat.tui.widgets.steps import AnswerView

from .conftest import FakeLoader, ask, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
CODE_ANSWER = (
    "Here you are:\n\n```python\ndef add(a, b):\n\n    return a + b\n```\n\n"
    "Call it with two numbers."
)
JSON_PROMPT = "Return a JSON object with keys name, age and hobby for Ana, 30."
JSON_REPLY = '{"name": "Ana", "age": 30, "hobby": "chess"}'


def views(app: Any) -> list[AnswerView]:
    return list(app.chat.query(AnswerView))


CODE = "def add(a, b):\n\n    return a + b"


async def focus_the_code_answer(pilot: Any) -> AnswerView:
    """Ask for code, then click its answer: focused, its copy keys live."""
    await settle(pilot)
    await ask(pilot, "Write a Python function that adds two numbers.")
    view = views(pilot.app)[0]
    await pilot.click(view.query_one(".route"))
    await pilot.pause()
    assert pilot.app.focused is view
    return view


async def test_a_focused_answer_copies_itself_and_its_code(make_app: Any) -> None:
    app = make_app(FakeLoader([CODE_ANSWER]))
    async with app.run_test(size=SIZE) as pilot:
        view = await focus_the_code_answer(pilot)
        await pilot.press("c")
        assert app.clipboard == CODE_ANSWER
        await pilot.click(view.query_one(".route"))  # one copy key per focus
        await pilot.pause()
        await pilot.press("k")
        assert app.clipboard == CODE
        # The copy keys are the answer's; any other letter goes to the prompt box.
        await pilot.press("h", "i")
        assert app.focused is app.chat.prompt and app.chat.prompt.text == "hi"


async def test_words_typed_after_a_copy_reach_the_prompt_whole(make_app: Any) -> None:
    """"can you justify that" after copying a code block: `c` and `j` are letters of it,
    not a copy of the answer and of its JSON over the clipboard."""
    app = make_app(FakeLoader([CODE_ANSWER]))
    async with app.run_test(size=SIZE) as pilot:
        await focus_the_code_answer(pilot)
        await pilot.press("k")
        assert app.clipboard == CODE
        await pilot.press(*"can you justify that ok")
        assert app.chat.prompt.text == "can you justify that ok"
        assert app.clipboard == CODE


async def test_copy_json_from_the_palette_is_valid_json(make_app: Any) -> None:
    app = make_app(FakeLoader([JSON_REPLY]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, JSON_PROMPT)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"copy json", "enter")
        await settle(pilot)
        assert json.loads(app.clipboard) == {"name": "Ana", "age": 30, "hobby": "chess"}


async def test_a_mouse_drag_copies_the_text_without_badges(make_app: Any) -> None:
    reply = "First paragraph of the answer.\n\nSecond paragraph.\n\nThird and last paragraph."
    app = make_app(FakeLoader([reply]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Write three short paragraphs.")
        bodies = list(views(app)[0].query(".step .body"))
        assert len(bodies) == 3
        await pilot.mouse_down(bodies[0], offset=(0, 0))
        await pilot.hover(bodies[2], offset=(10, 0))
        await pilot.mouse_up(bodies[2], offset=(10, 0))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None and "First paragraph" in selected and "Third" in selected
        assert "new" not in selected and "✚" not in selected


async def test_typing_after_focus_left_the_prompt_reaches_the_prompt(make_app: Any) -> None:
    app = make_app(FakeLoader(["An answer."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Say something.")
        app.chat.transcript.focus()  # where a click or a drag in the transcript leaves it
        await pilot.pause()
        await pilot.press(*"next question")
        assert app.focused is app.chat.prompt
        assert app.chat.prompt.text == "next question"
        await pilot.press("enter")
        await settle(pilot)
        assert app.conversation.turns[-1].prompt == "next question"
