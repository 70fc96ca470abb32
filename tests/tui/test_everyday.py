"""The app as a first-day user meets it (issue 23, items 7-9 and 12): a chat's system
prompt, long code lines, why the cache was not used, the keys, regenerate, the quit hint,
reading width, a reopened cancelled answer, the summary's tokens, the inspector's filter,
and the Markdown export."""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Static
from textual.widgets._markdown import MarkdownFence

from stepchat.config import Config
from stepchat.core.conversation import FOLLOW_UP_NOTE
from stepchat.core.tasks.registry import BUILT_IN
from stepchat.core.types import Answer
from stepchat.tui.export import export_name, to_markdown
from stepchat.tui.history import Conversation, History, Turn
from stepchat.tui.screens.dialogs import TextEntryScreen
from stepchat.tui.screens.inspector import InspectorScreen
from stepchat.tui.screens.keys import KeysScreen
from stepchat.tui.widgets.steps import AnswerView, summary_line

from .conftest import FakeLoader, ask, settle, shown_text
from .test_small_fixes import recorded_notes

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
TEXT = "Tell me about the sea."


def last_view(app: Any) -> AnswerView:
    return list(app.chat.query(AnswerView))[-1]


def lines_of(view: AnswerView) -> list[str]:
    return [str(w.render()) for w in view.query(Static)
            if w.has_class("route") or w.has_class("skip")]


# ---- a chat's system prompt -----------------------------------------------------------------


async def test_a_chats_system_prompt_reaches_the_model_scopes_the_cache_and_is_kept(
    make_app: Any, config: Config
) -> None:
    loader = FakeLoader(["The sea is wide."])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, TEXT)  # no system prompt: cached under the plain scope
        await pilot.press("ctrl+n")
        app.action_system_prompt()
        await pilot.pause()
        assert isinstance(app.screen, TextEntryScreen)
        app.screen.query_one(Input).value = "Answer like a pirate."
        await pilot.press("enter")
        await settle(pilot)
        await ask(pilot, TEXT)
        answer = app.conversation.turns[-1].answer
        assert answer is not None and answer.path == "miss"  # not the plain chat's entry
        sent = loader.backends[-1].calls[-1]
        assert (sent[0].role, sent[0].content) == ("system", "Answer like a pirate.")
        assert app.conversation.system_prompt == "Answer like a pirate."
        assert app.chat.sub_title.endswith("· system: Answer like a pirate.")
        saved_id = app.conversation.id
        await pilot.press("ctrl+n")
        assert app.conversation.system_prompt is None  # a new chat: the configured one
        assert "system:" not in app.chat.sub_title
        await app.open_conversation(saved_id)
        await settle(pilot)
        assert app.conversation.system_prompt == "Answer like a pirate."
        assert app.chat.sub_title.endswith("· system: Answer like a pirate.")
        await ask(pilot, TEXT)  # a new question in the reopened chat: its prompt, its scope
        again = app.conversation.turns[-1].answer
        assert again is not None and FOLLOW_UP_NOTE in again.notes
    on_disk = json.loads(History(config.paths.history_dir).path(saved_id).read_text())
    assert on_disk["system_prompt"] == "Answer like a pirate."


async def test_the_inspector_says_which_entries_this_chats_scope_reuses(make_app: Any) -> None:
    """One prompt cached under two system prompts is two entries; the detail pane says which
    one the chat reuses, so they read as scopes rather than as a duplicate."""
    app = make_app(FakeLoader(["The sea is wide.", "Arr, the sea be wide."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, TEXT)
        await pilot.press("ctrl+n")
        app.conversation.system_prompt = "Answer like a pirate."
        await ask(pilot, TEXT)
        await pilot.press("f2")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        seen = []
        for _ in range(2):
            await settle(pilot)
            seen.append(detail_text(screen))
            await pilot.press("down")
        pirate, plain = sorted(seen, key=lambda text: "Arr, the sea" not in text)
        assert "Arr, the sea be wide." in pirate and "(this chat's)" in pirate
        assert "The sea is wide." in plain
        assert "(another model or system prompt: not reused in this chat)" in plain


def detail_text(screen: InspectorScreen) -> str:
    content = screen.query_one("#detail-body", Static).content
    return "\n".join(str(part) for part in getattr(content, "renderables", [content]))


# ---- why the cache was not used ----------------------------------------------------------


async def test_a_follow_up_says_why_on_the_answer_not_in_a_toast(make_app: Any) -> None:
    app = make_app(FakeLoader(["The sea is wide.", "It is salty."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        toasts = recorded_notes(app)
        await ask(pilot, TEXT)
        await ask(pilot, "And what colour is it?")
        lines = lines_of(last_view(app))
        assert lines[:2] == ["cache not used", FOLLOW_UP_NOTE]
        assert FOLLOW_UP_NOTE not in toasts
        assert lines_of(app.chat.query(AnswerView).first()) == ["not in the cache"]


# ---- long code lines ---------------------------------------------------------------------


async def test_a_long_code_line_scrolls_with_a_visible_bar(make_app: Any) -> None:
    long_line = "values = [" + ", ".join(str(n) for n in range(60)) + "]"
    reply = f"Here it is:\n\n```python\n{long_line}\nprint(values)\n```"
    app = make_app(FakeLoader([reply, "Short:\n\n```python\nprint(1)\n```"]))
    async with app.run_test(size=(90, 30)) as pilot:
        await settle(pilot)
        await ask(pilot, "Write a Python list of the numbers 0 to 59.")
        fence = last_view(app).query_one(MarkdownFence)
        assert fence.max_scroll_x > 0  # the line is wider than the block
        assert fence.show_horizontal_scrollbar and fence.scrollbar_size_horizontal == 1
        fence.scroll_to(x=fence.max_scroll_x, animate=False)
        await pilot.pause()
        assert fence.scroll_x > 0  # the rest can be reached
        await ask(pilot, "Print one.")
        short = last_view(app).query_one(MarkdownFence)
        assert short.max_scroll_x == 0 and not short.show_horizontal_scrollbar


# ---- reading width -----------------------------------------------------------------------


async def test_prose_stops_at_a_reading_width_on_a_wide_terminal(make_app: Any) -> None:
    app = make_app(FakeLoader(["word " * 200]))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, TEXT)
        assert last_view(app).size.width <= 110
        assert app.chat.query(".user-turn").first().size.width <= 110


# ---- keys --------------------------------------------------------------------------------


async def test_f1_and_the_palette_show_the_apps_own_keys(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        text = " ".join(shown_text(app.screen.query_one("#keys-table", Static), width=200).split())
        for key in ("Esc", "Shift+Tab", "c copies", "k a code block", "j its JSON", "F5"):
            assert key in text, key
        await pilot.press("escape")
        await pilot.pause()
        keys = [c for c in app.get_system_commands(app.screen) if c.title == "Keys"]
        assert len(keys) == 1 and "F1" in keys[0].help  # ours, not Textual's editing keys
        keys[0].callback()
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)


async def test_ctrl_c_says_how_to_quit_in_plain_words(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        toasts = recorded_notes(app)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert toasts == ["Press Ctrl+Q to quit."]
        assert app.is_running


async def test_ctrl_q_past_an_unsent_draft_asks_once_more(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        toasts = recorded_notes(app)
        await pilot.press(*"half a thought")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.is_running and app.chat.prompt.text == "half a thought"
        assert toasts == ["The prompt box holds text you have not sent. Press Ctrl+Q again "
                          "to quit and lose it."]
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_q_with_nothing_typed_quits_at_once(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


# ---- regenerate --------------------------------------------------------------------------


async def test_f5_regenerates_and_a_solver_answer_says_it_would_be_the_same(
    make_app: Any, config: Config
) -> None:
    loader = FakeLoader(["The sea is wide.", "The sea is deep."])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, TEXT)
        await pilot.press("f5")
        await settle(pilot)
        answer = app.conversation.turns[-1].answer
        assert answer is not None and answer.text == "The sea is deep."
        assert len(app.conversation.turns) == 1
        toasts = recorded_notes(app)
        await ask(pilot, 'Return a JSON object with keys name and age for Bob, 40.')
        solved = app.conversation.turns[-1].answer
        assert solved is not None and solved.path == "solver"
        calls = len(loader.backends[-1].calls)
        await pilot.press("f5")
        await settle(pilot)
        assert len(loader.backends[-1].calls) == calls  # nothing asked again
        assert app.conversation.turns[-1].answer is solved
        assert any("asking again gives the same one" in t for t in toasts), toasts


async def test_a_regenerated_answer_replaces_the_entry_it_was_asked_again_for(
    make_app: Any,
) -> None:
    """F5 stored the new answer beside the old one: `cache list` showed the prompt twice,
    and either could be served."""
    loader = FakeLoader(["The sea is wide.", "The sea is deep."])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, TEXT)
        assert [e.steps[0].text for e in loader.store.entries()] == ["The sea is wide."]
        await pilot.press("f5")
        await settle(pilot)
        assert [e.steps[0].text for e in loader.store.entries()] == ["The sea is deep."]
        # And again from the entry just stored, then a hit from it.
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, TEXT)
        assert app.conversation.turns[-1].answer.path == "reuse-only"
        await pilot.press("f5")
        await settle(pilot)
        assert loader.store.count() == 1


# ---- saved and shown ---------------------------------------------------------------------


async def test_a_reopened_cancelled_answer_says_cancelled(make_app: Any, config: Config) -> None:
    history = History(config.paths.history_dir)
    conversation = Conversation(
        "20260101-000000", 0, 0, "tiny",
        [Turn("Write a long story.", cancelled=True, partial="Once upon")],
    )
    history.save(conversation)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.open_conversation(conversation.id)
        await settle(pilot)
        view = last_view(app)
        shown = [str(w.render()) for w in view.query(Static)]
        assert "not answered" not in " ".join(shown)
        assert shown[0] == "cancelled"
        assert "the partial answer is not cached" in shown


def test_the_summary_says_tokens_written_not_a_quota() -> None:
    miss = Answer.from_record({"path": "miss", "steps": [], "tokens": {"generated": 169,
                               "saved": 0}, "timings_ms": {"total": 2000.0}})
    assert str(summary_line(miss)) == "miss · 2.00 s · 169 tokens written"
    hit = Answer.from_record({"path": "patched", "steps": [], "tokens": {"generated": 9,
                              "saved": 21}, "timings_ms": {"total": 44.0}})
    assert str(summary_line(hit)) == "patched · 44 ms · 9 of 30 tokens written · 21 saved"


async def test_down_in_the_inspector_filter_moves_into_the_list(make_app: Any) -> None:
    app = make_app(FakeLoader(["The sea is wide.", "The sky is blue."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, TEXT)
        await pilot.press("ctrl+n")
        await ask(pilot, "Tell me about the sky.")
        await pilot.press("f2")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        await pilot.press("slash")
        await pilot.press(*"the s")
        await pilot.press("down")
        await pilot.pause()
        table = screen.query_one(DataTable)
        assert screen.focused is table and table.cursor_row == 0
        await pilot.press("down")
        await pilot.pause()
        assert table.cursor_row == 1  # in the list, Down moves the cursor as before


# ---- the export --------------------------------------------------------------------------


def test_the_export_speaks_the_apps_words_and_keeps_inline_code() -> None:
    prose = Answer.from_record({
        "path": "miss", "task": "text",
        "steps": [{"text": "Use `d` or `dd`, not <b>x</b>.", "status": "regenerated"},
                  {"text": "Then run `make`.", "status": "regenerated"}],
        "tokens": {"generated": 9, "saved": 0},
    })
    stated = Answer.from_record({
        "path": "solver", "task": "json",
        "steps": [{"text": '"name": "Bob"', "status": "fallback", "kind": "member",
                   "key": "name", "check": "stated"}],
        "tokens": {"generated": 0, "saved": 0},
    })
    stated.delivery = BUILT_IN.delivery_of(stated.task)
    conversation = Conversation("20260102-101500", 0, 0, "tiny", [
        Turn("How do I delete a line in vi?", answer=prose),
        Turn("JSON for Bob", answer=stated),
    ], system_prompt="Be brief.")
    text = to_markdown(conversation)
    assert "<!--" not in text  # one place for every step: said once
    first = "Use `d` or `dd`, not \\<b\\>x\\</b\\>."
    assert f"## stepchat · not in the cache\n\n*✚ new*\n\n{first}" in text
    assert "Then run `make`." in text
    assert "## stepchat · written by the solver" in text
    assert "*name: ∑ solver (stated)*" in text
    assert "regenerated" not in text and "fallback" not in text
    assert "System prompt: Be brief." in text
    assert export_name(conversation) == "how-do-i-delete-a-line-in-vi-20260102-101500.md"


def test_the_export_names_a_follow_up_as_the_app_does() -> None:
    """The app heads a follow-up "cache not used" (the note says why); the export said
    "not in the cache", as if it had been looked up."""
    follow_up = Answer.from_record({
        "path": "miss", "task": "text", "notes": [FOLLOW_UP_NOTE],
        "steps": [{"text": "Then it is bigger.", "status": "regenerated"}],
        "tokens": {"generated": 4, "saved": 0},
    })
    text = to_markdown(Conversation("c", 0, 0, "tiny", [Turn("And with 5?", answer=follow_up)]))
    assert "## stepchat · cache not used" in text and "not in the cache" not in text
