"""Answers you can read and copy whole: code blocks, JSON objects, streaming and scrolling.

Issue items 2 (a fenced code block is one step; exports keep code intact), 3 (a JSON
answer is one highlighted object with each member's status beside it) and 4 (streamed
text renders as Markdown; the view stops following when the user scrolls up, and resumes
on End or at the bottom).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownFence, MarkdownHeader

from stepchat.config import Config
from stepchat.core.types import Answer
from stepchat.tui.export import export_name
from stepchat.tui.widgets.steps import AnswerView, StepBlock

from .conftest import FakeLoader, PacedBackend, ask, send_until_paused, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)

CODE = '''def reverse(text):
    """Return text backwards."""

    return text[::-1]


# Example usage:
print(reverse("hello"))'''

CODE_ANSWER = (
    "Here is a function that reverses a string:\n\n```python\n" + CODE + "\n```\n\n"
    "It uses slicing with a step of -1."
)


def last_view(app: Any) -> AnswerView:
    return list(app.chat.query(AnswerView))[-1]


# ---- 2: a fenced code block is one step ------------------------------------------------------


async def test_a_code_answer_is_one_code_step_and_exports_intact(
    make_app: Any, config: Config
) -> None:
    app = make_app(FakeLoader([CODE_ANSWER]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Write a Python function that reverses a string.")
        view = last_view(app)
        assert [b.step.kind for b in view.query(StepBlock)] == ["paragraph", "code", "paragraph"]
        fences = view.query(MarkdownFence)
        assert len(fences) == 1 and fences.first().code.rstrip("\n") == CODE
        assert not view.query(MarkdownHeader), "'# Example usage:' drawn as a heading"

        app.action_export()
        exported = (config.paths.exports_dir / export_name(app.conversation)).read_text()
        blocks = re.findall(r"```python\n(.*?)\n```", exported, re.S)
        assert blocks == [CODE]
        compile(blocks[0], "<exported answer>", "exec")  # it parses as Python again


# ---- 3: JSON shown as JSON ------------------------------------------------------------------

JSON_PROMPT = (
    "Return a JSON object with keys name, age and hobby (your choice) for Ana, 30."
)
JSON_REPLY = '{"name": "Ana", "age": 30, "hobby": "chess"}'


def rows(view: AnswerView) -> list[Any]:
    return list(view.query(".json-row"))


async def test_a_json_answer_is_one_object_with_statuses_beside_members(
    make_app: Any, config: Config
) -> None:
    def one_object_with_badges(view: AnswerView) -> list[str]:
        assert len(view.query(".json-object")) == 1
        shown = "\n".join(row.text for row in rows(view))
        assert json.loads(shown) == {"name": "Ana", "age": 30, "hobby": "chess"}
        badges = [str(row.query_one(".badge").render()) for row in rows(view)]
        assert badges[0] == badges[-1] == ""  # braces carry no status
        assert all(b for b in badges[1:-1])
        return badges[1:-1]

    app = make_app(FakeLoader([JSON_REPLY]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, JSON_PROMPT)
        assert one_object_with_badges(last_view(app)) == ["✚ new"] * 3
        # Asked again as a new chat's first turn (a follow-up is not served from the cache).
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, JSON_PROMPT)
        assert len(app.chat.query(AnswerView)) == 1
        assert one_object_with_badges(last_view(app)) == ["✓ reused"] * 3

        app.action_export()
        exported = (config.paths.exports_dir / export_name(app.conversation)).read_text()
        objects = re.findall(r"```json\n(.*?)\n```", exported, re.S)
        assert [json.loads(o) for o in objects] == [json.loads(JSON_REPLY)]
        statuses = "name: ✓ reused (stated) · age: ✓ reused (stated) · hobby: ✓ reused (open)"
        assert f"*{statuses}*" in exported


async def test_member_checks_show_beside_each_member(make_app: Any) -> None:
    """An answer whose members carry a check (stated in the prompt, or open) shows it in
    the gutter beside the badge."""
    answer = Answer.from_record({
        "answer": '{\n  "name": "Ana",\n  "hobby": "chess"\n}',
        "path": "patched",
        "task": "json",
        "steps": [
            {"text": '"name": "Ana"', "status": "fallback", "kind": "member", "key": "name",
             "check": "stated"},
            {"text": '"hobby": "chess"', "status": "reused", "kind": "member", "key": "hobby",
             "check": "open"},
        ],
        "tokens": {"generated": 0, "saved": 2},
        "timings_ms": {"total": 3.0},
    })
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await app.chat.add_turn(JSON_PROMPT)
        await pilot.pause()
        await view.finish(answer)
        await pilot.pause()
        marks = [str(r.query_one(".check").render()) for r in rows(view)]
        assert marks == ["", "✓", "○", ""]


# ---- 4: streaming as Markdown, and a view that can be read back -------------------------------

STREAMED = "Here it is:\n\n```python\ndef f():\n    return 1\n```\n\nThat is all."


async def test_streamed_text_renders_as_markdown_while_it_arrives(make_app: Any) -> None:
    pause_at = STREAMED.split(" ").index("all.")
    backend = PacedBackend(STREAMED, pause_at=pause_at)
    app = make_app(FakeLoader(backend=backend))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_until_paused(pilot, "Show me a tiny Python function.", backend)
        stream = last_view(app).query_one(".stream", Markdown)
        assert stream.query(MarkdownFence), "the code fence should render as a code block"
        assert "def f():" in stream.query_one(MarkdownFence).code
        assert "```" not in " ".join(str(p.render()) for p in stream.query("MarkdownParagraph"))
        backend.release.set()
        await settle(pilot)
        assert not last_view(app).query(".stream")


LONG = "\n\n".join(f"Paragraph {n} of a long answer." for n in range(60))


async def test_scrolling_up_stops_following_until_end(make_app: Any) -> None:
    backend = PacedBackend(LONG, pause_at=200)
    app = make_app(FakeLoader(backend=backend))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_until_paused(pilot, "Write sixty short paragraphs.", backend)
        transcript = app.chat.transcript
        assert transcript.max_scroll_y > 0 and transcript.scroll_y == transcript.max_scroll_y

        await pilot.press("pageup")  # from the prompt box: scrolls the transcript
        await pilot.pause(0.3)
        reading = transcript.scroll_y
        assert reading < transcript.max_scroll_y and not transcript.following

        backend.release.set()  # the rest streams in and the answer ends
        await settle(pilot)
        await pilot.pause(0.3)
        assert not app.busy
        assert transcript.scroll_y == reading < transcript.max_scroll_y

        await pilot.press("end")  # in the empty prompt box: back to the newest text
        await pilot.pause(0.3)
        assert transcript.following and transcript.scroll_y == transcript.max_scroll_y

        await ask(pilot, "And one more?")
        await pilot.pause(0.3)
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_scrolling_back_to_the_bottom_resumes_following(make_app: Any) -> None:
    app = make_app(FakeLoader([LONG]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Write sixty short paragraphs.")
        transcript = app.chat.transcript
        await pilot.press("pageup")
        await pilot.pause(0.3)
        assert not transcript.following
        for _ in range(3):
            await pilot.press("pagedown")
            await pilot.pause(0.3)
        assert transcript.following
        await ask(pilot, "Write sixty short paragraphs again.")
        await pilot.pause(0.3)
        assert transcript.scroll_y == transcript.max_scroll_y
