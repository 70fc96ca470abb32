"""Pilot tests of the app's flows, asserting on state rather than pictures.

Send, cancel, evict, mark wrong, evict all, switch model, reopen a conversation, the
prompt keys, the palette toggles and export, and load failures. Real requests go through
StepCache with the scripted backend, hashed embedder and in-memory store.
"""

from __future__ import annotations

import asyncio
import stat
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from textual.widgets import Static

from stepchat.backends.scripted import ScriptedBackend
from stepchat.config import Config, ConfigError
from stepchat.core.conversation import FOLLOW_UP_NOTE
from stepchat.core.ports import FixedClock, PromptTooLong
from stepchat.core.types import ChatMessage
from stepchat.store.memory import MemoryStore
from stepchat.tui.app import StepchatApp, build_app
from stepchat.tui.export import export_name
from stepchat.tui.screens.conversations import ConversationPickerScreen
from stepchat.tui.screens.dialogs import ConfirmScreen, ModelPickerScreen
from stepchat.tui.screens.inspector import InspectorScreen
from stepchat.tui.widgets.prompt import PromptInput
from stepchat.tui.widgets.savings import StatusLine
from stepchat.tui.widgets.steps import AnswerView, StepBlock, UserTurn
from tests.wordprob_cases import FOG, FOG_SOLUTION, fog, fog_solution

from .conftest import LINEAR_REPLIES, FakeLoader, ask, settle, wait_until

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
PROMPT = "Solve 3x + 5 = 20 for x."


def statuses(view: AnswerView) -> list[str]:
    return [block.step.status.value for block in view.query(StepBlock)]


def answers(app: StepchatApp) -> list[AnswerView]:
    return list(app.chat.query(AnswerView))


# ---- send -------------------------------------------------------------------------------


async def test_send_serves_stores_and_saves(make_app: Any, config: Config) -> None:
    loader = FakeLoader(LINEAR_REPLIES[:1])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, PROMPT)
        turn = app.conversation.turns[0]
        assert turn.prompt == PROMPT
        assert turn.answer is not None and turn.answer.path == "miss"
        assert statuses(answers(app)[0]) == ["regenerated"] * 3
        assert loader.store.count() == 1
        assert app.stats.requests == 1 and app.stats.entries == 1
        assert app.chat.active is None
        saved = config.paths.history_dir / f"{app.conversation.id}.json"
        assert saved.is_file()
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert stat.S_IMODE(config.paths.history_dir.stat().st_mode) == 0o700

        # Asked again as the first turn of a new chat (a follow-up is never served from the
        # cache), it is served from the entry just stored.
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, PROMPT)
        assert statuses(answers(app)[0]) == ["reused"] * 3
        assert app.stats.hits == 1 and app.stats.tokens_saved == 11
        assert len(loader.backends[0].calls) == 1  # the second answer never asked the model


async def test_enter_sends_and_ctrl_j_inserts_a_newline(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c", "alt+enter", "d")
        assert app.chat.prompt.text == "a\nb\nc\nd"
        await pilot.press("enter")
        await settle(pilot)
        assert app.conversation.turns[0].prompt == "a\nb\nc\nd"
        assert app.chat.prompt.text == ""
    # The keys are bindings alone, not a second copy in an override of TextArea's private
    # key handler that could drift from them.
    assert "_on_key" not in PromptInput.__dict__


async def test_blank_prompt_is_not_sent(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "enter")
        await settle(pilot)
        assert app.conversation.turns == []


async def test_prompt_typed_while_loading_is_answered_after_load(make_app: Any) -> None:
    gate = threading.Event()
    loader = FakeLoader(LINEAR_REPLIES[:1], gate=gate)
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.loading and app.cache is None
        app.chat.prompt.text = PROMPT
        await pilot.press("enter")
        await pilot.pause()
        assert app.busy
        gate.set()
        await settle(pilot)
        assert app.conversation.turns[0].answer is not None
        assert not app.busy


async def until(pilot: Any, condition: Any, timeout: float = 20.0) -> None:
    """Pause until `condition()` holds; `settle` cannot be used while a load is held."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not reached"
        await pilot.pause(0.02)


def seed(loader: FakeLoader, config: Config) -> None:
    """Put PROMPT's answer in the loader's cache, as an earlier session would have: under
    the settings the app uses for the default model (what it runs is part of the scope)."""
    from stepchat.core.pipeline import StepCache

    backend = ScriptedBackend(LINEAR_REPLIES[:1], model_id=config.default_model)
    settings = config.pipeline_for(config.default_model)
    StepCache(backend, loader.embedder, loader.store, settings=settings).answer(PROMPT)


async def test_a_cache_hit_is_answered_before_the_model_loads(
    make_app: Any, config: Config
) -> None:
    model_gate = threading.Event()
    loader = FakeLoader(LINEAR_REPLIES[:1], model_gate=model_gate)
    seed(loader, config)
    app = make_app(loader)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.cache is not None)
            assert not app.model_ready
            assert app.chat.panel_state().status == "answers from the cache; loading model…"
            banner = app.chat.query_one("#banner", Static)
            assert "Cached answers are served now" in banner.content.plain
            app.chat.prompt.text = PROMPT
            await pilot.press("enter")
            await until(pilot, lambda: not app.busy)
            await pilot.pause(0.3)  # the answer's handler finishes painting
            answer = app.conversation.turns[0].answer
            assert answer is not None and answer.path == "reuse-only"
            assert not app.model_ready and app.parts is not None
            assert not app.parts.backend.loaded
            assert any("model is still loading" in n.message for n in app._notifications)

            model_gate.set()
            await settle(pilot)
            assert app.model_ready and app.chat.panel_state().status == "ready"
            assert not app.chat.query_one("#banner").display
    finally:
        model_gate.set()


async def test_a_miss_typed_before_the_model_loads_waits_for_it(make_app: Any) -> None:
    model_gate = threading.Event()
    loader = FakeLoader(LINEAR_REPLIES[:1], model_gate=model_gate)
    app = make_app(loader)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.cache is not None)
            app.chat.prompt.text = PROMPT
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert app.busy and app.conversation.turns[0].answer is None
            # Nothing is being answered yet: the panel and the turn say what it waits for
            # (a user pass saw "answering…" for ten seconds of a server not answering).
            waiting = "waiting for the model to load…"
            assert app.chat.panel_state().status == waiting
            assert app.chat.query(AnswerView).last().status_text == waiting
            model_gate.set()
            await settle(pilot)
            answer = app.conversation.turns[0].answer
            assert answer is not None and answer.path == "miss"
            assert not any("still loading" in n.message for n in app._notifications)
    finally:
        model_gate.set()


# ---- cancel -----------------------------------------------------------------------------


async def test_escape_cancels_a_generation(make_app: Any) -> None:
    started = threading.Event()
    release = threading.Event()

    def slow(_messages: Sequence[ChatMessage]) -> str:
        started.set()
        release.wait(timeout=10)
        return "3x + 5 = 20\n3x = 15\nx = 5"

    loader = FakeLoader([slow])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.chat.prompt.text = PROMPT
        await pilot.press("enter")
        await wait_until(pilot, started.is_set)
        assert app.busy and app.chat.active is not None
        cancel = app.chat.active.cancel
        await pilot.press("escape")
        assert cancel.is_set()
        release.set()
        await settle(pilot)
        turn = app.conversation.turns[0]
        assert turn.cancelled and turn.answer is None
        assert answers(app)[0].cancelled
        assert not app.busy
        assert loader.store.count() == 0

        # The app is usable again afterwards.
        await ask(pilot, PROMPT)
        assert app.conversation.turns[1].answer is not None


async def test_escape_cancels_a_prompt_waiting_for_the_model(make_app: Any) -> None:
    gate = threading.Event()
    app = make_app(FakeLoader(gate=gate))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.chat.prompt.text = PROMPT
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            await pilot.pause()
            assert app.conversation.turns[0].cancelled
            assert not app.busy
    finally:
        gate.set()


# ---- cache inspector --------------------------------------------------------------------


async def _inspector_with(pilot: Any, prompts: Sequence[str]) -> InspectorScreen:
    """Each prompt is asked as the first turn of its own chat, so each one is stored (a
    follow-up in a conversation is not)."""
    await settle(pilot)
    for n, prompt in enumerate(prompts):
        if n:
            await pilot.press("ctrl+n")
            await settle(pilot)
        await ask(pilot, prompt)
    await pilot.press("f2")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen)
    return screen


TWO = ("Solve 3x + 5 = 20 for x.", "Return a JSON object with keys name and age for Bob, 40.")


async def test_evict_one_entry(make_app: Any) -> None:
    loader = FakeLoader(LINEAR_REPLIES)
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _inspector_with(pilot, TWO)
        assert loader.store.count() == 2
        victim = screen.selected_id
        await pilot.press("d")
        await settle(pilot)
        assert loader.store.count() == 1
        assert loader.store.get(victim or "") is None
        assert app.stats.entries == 1
        assert [e.id for e in screen._entries] != [victim]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.chat


async def test_mark_wrong_evicts_the_selected_entry(make_app: Any) -> None:
    loader = FakeLoader(LINEAR_REPLIES)
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _inspector_with(pilot, TWO)
        await pilot.press("down")
        wrong = screen.selected_id
        assert wrong is not None
        await pilot.press("w")
        await settle(pilot)
        assert loader.store.get(wrong) is None
        assert loader.store.count() == 1
        assert app.stats.entries == 1
        await pilot.press("escape")
        await pilot.pause()
        # The chat totals moved too.
        assert "1 cached" in app.chat.query_one(StatusLine).content.plain


async def test_a_word_problem_marked_wrong_is_recomputed_for_no_variant(
    make_app: Any, clock: Any,
) -> None:
    """Before `w` a variant is recomputed from the entry; after it the model answers."""
    loader = FakeLoader([FOG_SOLUTION, fog_solution(20, 3, 42)])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, FOG)
        # The first variant goes to the model: its answer is the instance the next needs.
        for minutes in (20, 16):
            clock.advance(60)  # the newer entry of the problem, with its earlier instance
            await pilot.press("ctrl+n")
            await ask(pilot, fog(minutes, 3, 42))
        assert app.chat.query(AnswerView).last().answer.hit
        await pilot.press("f2")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        # Both instances of the problem went: they share the solution marked wrong.
        assert loader.store.count() == 0
        await pilot.press("escape")
        await pilot.press("ctrl+n")
        await ask(pilot, fog(25, 3, 42))
        answer = app.chat.query(AnswerView).last().answer
        assert answer is not None and not answer.hit


async def test_a_word_problem_that_does_not_hold_names_its_step_without_a_notice(
    make_app: Any,
) -> None:
    """The answer says which computation its check refused, on a line of its own; it is
    how the answer was kept, so no notice repeats it."""
    wrong = FOG_SOLUTION.replace("14 * 10 = 140", "14 * 10 = 150").replace("#### 140",
                                                                          "#### 150")
    app = make_app(FakeLoader([wrong]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, FOG)
        view = app.chat.query(AnswerView).last()
        note = ("not cached: a computation does not hold: step 2 reads as 14 * 10 = 150, "
                "and 14 * 10 is 140")
        assert view.answer is not None and view.answer.notes == [note]
        shown = [str(s.content) for s in view.query(".note").results(Static)]
        assert shown == [note]
        assert not any("does not hold" in n.message for n in app._notifications)


async def test_evict_all_asks_first(make_app: Any) -> None:
    loader = FakeLoader(LINEAR_REPLIES)
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await _inspector_with(pilot, TWO)
        await pilot.press("D")
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)
        assert loader.store.count() == 2

        await pilot.press("D")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert loader.store.count() == 0
        assert app.stats.entries == 0


async def test_inspector_filter(make_app: Any) -> None:
    app = make_app(FakeLoader(LINEAR_REPLIES))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _inspector_with(pilot, TWO)
        await pilot.press("slash", *"json", "enter")
        await pilot.pause()
        entry = screen.selected_entry
        assert entry is not None and str(entry.task) == "json"
        table = screen.query_one("#entries")
        assert table.row_count == 1  # type: ignore[attr-defined]


# ---- models -----------------------------------------------------------------------------


async def test_switch_model_rebuilds_the_cache_in_its_own_scope(make_app: Any) -> None:
    loader = FakeLoader(LINEAR_REPLIES[:1])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, PROMPT)
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ModelPickerScreen)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert loader.calls == ["tiny", "small"]
        assert app.model_id == "small"
        assert app.cache is not None and app.cache.backend.model_id == "small"
        assert "Small Test Model" in app.chat.sub_title

        # The same prompt under another model is not served from the first model's entry,
        # even as the first turn of a new chat (where the cache is read).
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, PROMPT)
        answer = app.conversation.turns[-1].answer
        assert answer is not None and answer.path == "miss"
        assert answer.model == "small"

        app.switch_model("tiny")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, PROMPT)
        answer = app.conversation.turns[-1].answer
        assert answer is not None and answer.path == "reuse-only"


# ---- conversations ----------------------------------------------------------------------


async def test_reopen_a_conversation_after_a_restart(config: Config, clock: FixedClock) -> None:
    """A reopened conversation shows each turn as it was answered: a first turn that skipped
    a cached neighbour keeps its skip-reuse line, a follow-up its note and new steps."""
    loader = FakeLoader([LINEAR_REPLIES[1], LINEAR_REPLIES[0]])
    seed(loader, config)  # PROMPT's entry: the neighbour the first turn below skips
    app = build_app(config, loader, clock, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Solve 2x + 4 = x + 9 for x.")
        skipped = app.conversation.turns[0].answer
        assert skipped is not None and skipped.skip_reason is not None
        await ask(pilot, PROMPT)
        first = app.conversation.id
        clock.advance(120)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.conversation.id != first
        assert not app.chat.query(UserTurn)
        await ask(pilot, "Solve 3x + 5 = 26 for x.")
        second = app.conversation.id

    clock.advance(600)
    again = build_app(config, loader, clock, blink=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        picker = again.screen
        assert isinstance(picker, ConversationPickerScreen)
        assert [s.id for s in picker._summaries] == [second, first]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert again.conversation.id == first
        prompts = [t.prompt for t in again.chat.query(UserTurn)]
        assert prompts == ["Solve 2x + 4 = x + 9 for x.", PROMPT]
        views = answers(again)
        assert views[0].skip_reason is not None
        assert statuses(views[1]) == ["regenerated"] * 3
        assert views[1].answer is not None
        assert FOLLOW_UP_NOTE in views[1].answer.notes

        # Asking more continues the reopened conversation.
        await ask(pilot, PROMPT)
        assert len(again.conversation.turns) == 3
        assert again.history.load(first).turns[-1].answer is not None


async def test_clear_empties_the_conversation(make_app: Any, config: Config) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, PROMPT)
        path = config.paths.history_dir / f"{app.conversation.id}.json"
        assert path.exists()
        app.action_clear()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.conversation.turns == []
        assert not path.exists()
        assert not app.chat.query(UserTurn)


# ---- palette commands -------------------------------------------------------------------


async def test_palette_lists_the_app_commands(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {
            "New chat",
            "Clear transcript",
            "Open conversation",
            "Cache inspector",
            "Switch model",
            "Turn cache reuse off",
            "Turn answer storing off",
            "Export transcript",
        } <= titles


async def test_no_store_and_no_reuse(make_app: Any) -> None:
    loader = FakeLoader(LINEAR_REPLIES[:1])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Each request is the first turn of a chat: a follow-up is neither stored nor
        # served whatever the toggles say.
        app.action_toggle_store()
        await ask(pilot, PROMPT)
        assert loader.store.count() == 0
        app.action_toggle_store()
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, PROMPT)
        assert loader.store.count() == 1
        app.action_toggle_reuse()
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, PROMPT)
        answer = app.conversation.turns[-1].answer
        assert answer is not None and answer.path == "miss"


async def test_export_transcript_to_markdown_from_the_palette(
    make_app: Any, config: Config
) -> None:
    app = make_app(FakeLoader(LINEAR_REPLIES[:1]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, PROMPT)
        # Asked again as a new chat's first turn, it is served from the cache.
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, PROMPT)
        assert app.conversation.turns[-1].answer.hit
        target = config.paths.data_dir / "exports" / export_name(app.conversation)
        assert not target.exists()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"export", "enter")
        await settle(pilot)
        text = target.read_text()
        assert "## You" in text and "> Solve 3x + 5 = 20 for x." in text
        assert "## stepchat · served from the cache\n\n*✓ reused*\n" in text
        assert "<!--" not in text  # one place for every step: said once, not per step


# ---- failures ---------------------------------------------------------------------------


async def test_load_failure_is_shown_and_can_be_retried(make_app: Any) -> None:
    loader = FakeLoader(error=ConfigError("model tiny: GGUF file not found: /x.gguf"))
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.load_error == "model tiny: GGUF file not found: /x.gguf"
        banner = app.chat.query_one("#banner", Static)
        assert "GGUF file not found" in banner.content.plain
        app.chat.prompt.text = PROMPT
        await pilot.press("enter")
        await settle(pilot)
        assert app.conversation.turns[0].error is not None
        assert not app.busy

        loader.error = None
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.cache is not None and app.load_error is None
        assert not app.chat.query_one("#banner").display


async def test_a_model_that_failed_after_its_cache_opened_can_be_retried(
    make_app: Any,
) -> None:
    """The cache opened (parts in use) but the model failed to load: a retry loads it again,
    it is not taken for the model already in use."""
    loader = FakeLoader(LINEAR_REPLIES[:1], errors={"tiny": ConfigError("model tiny: damaged")})
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.load_error == "model tiny: damaged" and app.parts is not None
        loader.errors.clear()
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert loader.calls == ["tiny", "tiny"]
        assert app.model_ready and app.load_error is None


async def test_unexpected_exception_becomes_a_line_not_a_crash(make_app: Any) -> None:
    def broken(_messages: Sequence[ChatMessage]) -> str:
        raise RuntimeError("boom")

    app = make_app(FakeLoader([broken, LINEAR_REPLIES[0]]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, PROMPT)
        assert app.conversation.turns[0].error == "RuntimeError: boom"
        first = answers(app)[0]
        assert "RuntimeError: boom" in str(first.query_one(".error", Static).content)
        assert app.is_running and not app.busy
        # The app goes on serving: the next request is answered as usual.
        await ask(pilot, PROMPT)
        second = app.conversation.turns[1]
        assert second.error is None and second.answer is not None
        assert second.answer.text.endswith("x = 5")


async def test_a_prompt_over_the_model_s_context_is_its_one_line(make_app: Any) -> None:
    """The line `ask` prints and a server returns, not the class's name: the user can act
    on it by sending a shorter prompt."""
    line = (
        "model tiny: the prompt is 2371 tokens, too long for its context of 2048 "
        "(send a shorter one)"
    )

    def over_context(_messages: Sequence[ChatMessage]) -> str:
        raise PromptTooLong(line)

    app = make_app(FakeLoader([over_context]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Summarize: " + "Lorem ipsum dolor sit amet. " * 20)
        assert app.conversation.turns[0].error == line
        shown = answers(app)[0].query_one(".error", Static).content
        assert line in " ".join(str(shown).split())
        assert app.is_running and not app.busy


class FlushCountingStore(MemoryStore):
    """A store with queued bookkeeping, like the LanceDB store behind DeferredTouchStore."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1


async def test_queued_hits_are_flushed_on_switch_and_exit(make_app: Any) -> None:
    loader = FakeLoader()
    store = FlushCountingStore()
    loader.store = store
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.switch_model("small")
        await settle(pilot)
        assert store.flushes == 1
    app.close_parts()
    assert store.flushes == 2


async def test_evictions_wait_while_an_answer_is_served(make_app: Any) -> None:
    started = threading.Event()
    release = threading.Event()

    def slow(_messages: Sequence[ChatMessage]) -> str:
        started.set()
        release.wait(timeout=10)
        return "x = 1"

    loader = FakeLoader(["3x + 5 = 20\n3x = 15\nx = 5", slow])
    app = make_app(loader)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await ask(pilot, PROMPT)
            app.chat.prompt.text = "Solve 2x + 4 = x + 9 for x."
            await pilot.press("enter")
            await wait_until(pilot, started.is_set)
            await pilot.press("f2")
            await wait_until(pilot, lambda: pilot.app.screen.query("#entries").first().row_count)
            await pilot.press("d")
            await pilot.pause()
            assert loader.store.count() == 1
            release.set()
            await settle(pilot)
            assert not app.busy
    finally:
        release.set()


async def test_a_switch_before_the_first_load_loads_once_and_answers(make_app: Any) -> None:
    """Choosing a model as the app starts (before its first load began) loads that model
    once; a second, stale load must not replace the parts under a prompt being answered
    (it used to serve the prompt again, cancelling the first answer)."""
    loader = FakeLoader(LINEAR_REPLIES[:1])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        app.switch_model("small")
        app.chat.prompt.text = PROMPT
        await pilot.press("enter")
        await settle(pilot)
        turn = app.conversation.turns[-1]
        assert turn.error is None, turn.error
        assert turn.answer is not None and turn.answer.model == "small"
        assert loader.calls.count("small") == 1, loader.calls
