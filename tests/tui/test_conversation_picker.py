"""Clearing asks first; the conversation picker renames and deletes (issue item 10)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import OptionList

from stepchat.config import Config
from stepchat.tui.history import History
from stepchat.tui.screens.dialogs import ConfirmScreen
from stepchat.tui.widgets.steps import UserTurn

from .conftest import FakeLoader, PacedBackend, ask, send_until_paused, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
PROMPT = "Solve 3x + 5 = 20 for x."


async def open_picker(pilot: Any) -> Any:
    await pilot.press("ctrl+o")
    await settle(pilot)
    return pilot.app.screen


def listed(picker: Any) -> list[str]:
    return [s.title for s in picker._summaries]


async def test_clear_transcript_asks_before_deleting(make_app: Any, config: Config) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, PROMPT)
        saved = config.paths.history_dir / f"{app.conversation.id}.json"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"clear transcript", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert saved.exists() and len(app.conversation.turns) == 1
        assert app.chat.query(UserTurn)

        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"clear transcript", "enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not saved.exists() and app.conversation.turns == []
        assert not app.chat.query(UserTurn)


async def test_rename_and_delete_in_the_picker(make_app: Any, config: Config, clock: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, PROMPT)
        first = app.conversation.id
        clock.advance(60)
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, "Solve 2x = 8 for x.")
        current = app.conversation.id

        picker = await open_picker(pilot)
        assert listed(picker) == ["Solve 2x = 8 for x.", PROMPT]
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("ctrl+a", "ctrl+k", *"Doubling", "enter")
        await settle(pilot)
        assert listed(picker) == ["Doubling", PROMPT]
        assert app.history.load(current).name == "Doubling"

        await pilot.press("down", "d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert listed(picker) == ["Doubling"]
        assert not (config.paths.history_dir / f"{first}.json").exists()

        await pilot.press("escape")
        await settle(pilot)
        # The open chat took the new name, so the next save keeps it.
        await ask(pilot, "Solve 2x = 10 for x.")
        assert app.history.load(current).name == "Doubling"

        # Deleting the chat on screen starts a new one instead of saving it back.
        picker = await open_picker(pilot)
        await pilot.press("d", "y")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.conversation.turns == [] and not app.chat.query(UserTurn)
        assert not (config.paths.history_dir / f"{current}.json").exists()


async def test_a_question_is_on_disk_while_it_is_answered_and_listed_once_cancelled(
    make_app: Any, config: Config
) -> None:
    """A crash or a kill while the model writes keeps what the user typed; so does quitting
    or pressing Esc during a chat's first answer."""
    backend = PacedBackend("A long answer that will be cancelled.", pause_at=2)
    app = make_app(FakeLoader(backend=backend))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_until_paused(pilot, "Tell me a long story.", backend)
        saved = History(config.paths.history_dir).load(app.conversation.id)
        assert [t.prompt for t in saved.turns] == ["Tell me a long story."]
        assert saved.turns[0].answer is None
        await pilot.press("escape")
        backend.release.set()
        await settle(pilot)
        assert app.conversation.turns[0].cancelled
        picker = await open_picker(pilot)
        assert listed(picker) == ["Tell me a long story."]


async def test_the_open_chat_is_marked_in_the_list(make_app: Any) -> None:
    app = make_app(FakeLoader(["One.", "Two."]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "First chat.")
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, "Second chat.")
        picker = await open_picker(pilot)
        options = picker.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(2)]
        assert shown[0].startswith("● Second chat.") and shown[1].startswith("  First chat.")
