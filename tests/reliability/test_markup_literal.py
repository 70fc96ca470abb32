"""Issue 12 item 2: user and model text is shown literally everywhere in the app.

`stepchat ask "[/nope] greet Ann briefly"`, then the app, F2, `d`: Textual raised a
MarkupError from the toast and the app exited; `[bold red]Bob[/]` was silently styled in the
same toast, and `w` took the same path. The toasts now carry the prompt as plain text; the
Markdown export escapes what Markdown would interpret.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable
from textual.widgets._toast import Toast

from stepchat.core.types import Answer
from stepchat.tui.export import to_markdown
from stepchat.tui.history import Conversation, Turn
from stepchat.tui.screens.inspector import InspectorScreen
from tests.reliability.helpers import app_on_fakes
from tests.tui.conftest import FakeLoader, ask, settle

NOPE = "[/nope] greet Ann briefly"
BOB = "[bold red]Bob[/] greet briefly"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _toasts(app: Any) -> list[str]:
    return [toast.render().plain for toast in app.screen.query(Toast)]


async def _evict(pilot: Any, screen: InspectorScreen, prompt: str, key: str) -> None:
    ids = [entry.id for entry in screen._visible()]
    wanted = next(e.id for e in screen._entries if e.prompt == prompt)
    screen.query_one("#entries", DataTable).move_cursor(row=ids.index(wanted), animate=False)
    await pilot.pause()
    await pilot.press(key)
    await settle(pilot)


@pytest.mark.anyio
@pytest.mark.parametrize("key", ["d", "w"])
async def test_inspector_toasts_show_markup_literally(tmp_path: Path, key: str) -> None:
    loader = FakeLoader(["Hello, [i]dear[/i] friend!"])
    app = app_on_fakes(tmp_path, loader)
    # Toasts are drawn only with notifications on (run_test turns them off by default).
    async with app.run_test(size=(110, 36), notifications=True) as pilot:
        await settle(pilot)
        for prompt in (NOPE, BOB):  # each in a chat of its own: a follow-up is not cached
            await pilot.press("ctrl+n")
            await ask(pilot, prompt)
        assert loader.store.count() == 2
        await pilot.press("f2")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)

        await _evict(pilot, screen, NOPE, key)
        assert app.is_running and loader.store.count() == 1
        assert any("[/nope] greet Ann briefly" in text for text in _toasts(app)), _toasts(app)

        await _evict(pilot, screen, BOB, key)
        assert app.is_running and loader.store.count() == 0
        shown = [t for t in _toasts(app) if "Bob" in t]
        assert shown and "[bold red]Bob[/] greet briefly" in shown[0], _toasts(app)
        await pilot.press("escape")
        await pilot.pause()
        transcript = " ".join(w.render().plain for w in app.chat.query(".user-turn"))
        assert BOB in transcript  # the open chat is the second one


def test_markdown_export_shows_prompts_and_steps_as_written() -> None:
    answer = Answer.from_record({
        "path": "miss",
        "steps": [{"text": "See [the docs](https://evil.example) <!-- hidden -->",
                   "status": "regenerated"}],
        "tokens": {"generated": 3, "saved": 0},
    })
    hostile = "[bold red]Bob[/] ![x](https://evil.example/p.png) <b>hi</b>\n# not a heading"
    text = to_markdown(Conversation("c", 0, 0, "tiny", [Turn(hostile, answer=answer)]))
    assert "](https://evil.example" not in text.replace("\\]", "")  # no link or image
    assert "<!-- hidden" not in text and "<b>" not in text
    assert "\n> \\# not a heading" in text and "\\[bold red\\]Bob\\[/\\]" in text


def _rendered(prompt: str) -> tuple[list[Any], str]:
    """The export of one turn as a CommonMark reader sees it: its tokens and its HTML."""
    from markdown_it import MarkdownIt

    answer = Answer.from_record({"path": "miss", "steps": [{"text": "Fine.",
                                 "status": "regenerated"}], "tokens": {}})
    text = to_markdown(Conversation("c", 0, 0, "tiny", [Turn(prompt, answer=answer)]))
    reader = MarkdownIt("commonmark")
    return reader.parse(text), reader.render(text)


def test_code_in_a_prompt_is_exported_as_code_and_nothing_else_is_markup() -> None:
    """A pasted ```python block was escaped into backslashes and never read as code."""
    tokens, html = _rendered("Why does this fail?\n```python\nprint(x*2)  # *not* emphasis\n```"
                             "\nThanks *a lot*")
    fences = [t for t in tokens if t.type == "fence"]
    assert [(f.info, f.content) for f in fences] == [("python", "print(x*2)  # *not* emphasis\n")]
    quoted = html.split("</blockquote>")[0]
    assert "<em>" not in quoted and "Thanks *a lot*" in quoted
    tokens, html = _rendered("```\nleft open <b>")  # an open fence ends before the answer
    assert [t.content for t in tokens if t.type == "fence"] == ["left open <b>\n"]
    assert "stepchat · " in html.split("</blockquote>")[1]


@pytest.mark.parametrize("prompt", [
    "```a``` [x](https://evil.example) <!-- hidden -->",   # a code span, then markup
    "\t```\n[x](https://evil.example)",                    # a tab: indented code, no fence
    "```\ncode\n ``` x\n[x](https://evil.example)",        # no closing fence: still code
    "~~~\ncode\n~~\n![x](https://evil.example/p.png)",     # too short to close
])
def test_no_prompt_gets_markup_past_the_fences(prompt: str) -> None:
    _, html = _rendered(prompt)
    assert "<a " not in html and "<img" not in html and "<!--" not in html
