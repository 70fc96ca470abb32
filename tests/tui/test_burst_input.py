"""Text and its Enter arriving in one burst are one prompt, whole, every time.

A paste in a terminal without bracketed paste, `tmux send-keys` or a script delivers a
line and its Enter together. The terminal driver parses such a burst into one key event
per character and posts them all to the app before the app handles the first; these tests
do the same, through the parser the Linux driver uses, so no key is handled before the
whole burst is queued.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual._xterm_parser import XTermParser
from textual.message import Message

from stepchat.tui.widgets.steps import UserTurn

from .conftest import FakeLoader, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)

LINES = [
    f"Solve for x: {i}x + {i + 3} = {2 * i + 7}." if i % 3 == 0
    else f"My favourite colour is number {i}, remember it please!" if i % 3 == 1
    else f"Return a JSON object with keys name and age for Ann, {20 + i}."
    for i in range(50)
]


def terminal_events(data: str) -> list[Message]:
    """The events a terminal's bytes become, as the Linux driver's input thread parses them."""
    parser = XTermParser()
    return [*parser.feed(data), *parser.feed("")]


def post_burst(app: Any, data: str) -> None:
    """Queue every event of `data` on the app before any is handled, as the driver does."""
    for event in terminal_events(data):
        event.set_sender(app)
        app.post_message(event)


async def until_answered(pilot: Any, count: int) -> None:
    """Wait until `count` turns exist and none is being answered or waits its turn, or
    until nothing is left to happen (the assertions then say what went wrong)."""
    app = pilot.app
    for _ in range(600):
        await settle(pilot, rounds=1)
        if not app.busy and (len(app.conversation.turns) >= count or app.chat.prompt.text):
            return


async def test_fifty_lines_each_with_enter_in_one_burst_are_fifty_whole_prompts(
    make_app: Any,
) -> None:
    """Each line with its Enter, all fifty in one burst: fifty prompts, none split, none
    glued to the next, nothing left in the box."""
    app = make_app(FakeLoader(["Noted."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        post_burst(app, "".join(f"{line}\r" for line in LINES))
        await until_answered(pilot, len(LINES))
        assert [turn.prompt for turn in app.conversation.turns] == LINES
        assert [turn.prompt for turn in app.chat.query(UserTurn)] == LINES
        assert app.chat.prompt.text == ""


async def test_each_line_sent_as_its_own_burst_is_whole(make_app: Any) -> None:
    """A line and its Enter per burst, the next burst sent while the app is still busy with
    the previous one (a fast typist, `tmux send-keys` in a loop)."""
    app = make_app(FakeLoader(["Noted."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for line in LINES[:20]:
            post_burst(app, f"{line}\r")
            await pilot.pause()
        await until_answered(pilot, 20)
        assert [turn.prompt for turn in app.conversation.turns] == LINES[:20]
        assert app.chat.prompt.text == ""


async def test_ctrl_j_in_a_burst_is_a_newline_where_it_was_typed(make_app: Any) -> None:
    """The newline key, arriving with the text around it, lands between that text."""
    app = make_app(FakeLoader(["Noted."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        post_burst(app, "first line\nsecond line\r")
        await until_answered(pilot, 1)
        assert [turn.prompt for turn in app.conversation.turns] == ["first line\nsecond line"]


async def test_editing_keys_in_a_burst_act_where_they_were_typed(make_app: Any) -> None:
    """Backspace and the cursor keys in a burst edit the text typed before them, not the
    text that arrived after them."""
    app = make_app(FakeLoader(["Noted."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # "Solve for x: 2x = 8," -> Backspace -> "." -> Left, Left -> "1" before "8."
        post_burst(app, "Solve for x: 2x = 8,\x7f.\x1b[D\x1b[D1")
        await settle(pilot)
        assert app.chat.prompt.text == "Solve for x: 2x = 18."
