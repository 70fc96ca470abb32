"""The issue's smaller fixes (item 11), one test each; dialog texts shown whole are in the
snapshots (test_snapshots.py: evict-all and model picker dialogs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from rich.color import Color
from textual.widgets import DataTable

from stepchat.config import Config, ConfigError
from stepchat.paths import UserPaths
from stepchat.tui.app import build_app
from stepchat.tui.screens.inspector import InspectorScreen

from .conftest import FOUR_STATUSES, LINEAR_REPLIES, FakeLoader, ask, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)


def recorded_notes(app: Any) -> list[str]:
    """Make `app.notify` also record each message; returns the (growing) list."""
    notes: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        notes.append(message)
        original(message, *args, **kwargs)

    app.notify = notify
    return notes


# ---- inspector rows for different people differ --------------------------------------------


async def test_inspector_rows_show_where_long_prompts_differ(make_app: Any) -> None:
    prompts = [
        "Write a two-line birthday card message for my good friend and colleague Alexander, 40.",
        "Write a two-line birthday card message for my good friend and colleague Bartholomew, 41.",
    ]
    replies = ["Happy 40th, Alexander!", "Happy 41st, Bartholomew!"]
    app = make_app(FakeLoader(replies))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for prompt in prompts:
            await pilot.press("ctrl+n")
            await ask(pilot, prompt)
        assert app.parts.store.count() == 2
        await pilot.press("f2")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        table = screen.query_one(DataTable)
        cells = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert len(set(cells)) == 2, cells
        assert any("Alexander, 40." in c for c in cells)
        assert any("Bartholomew, 41." in c for c in cells)


# ---- badges readable in light themes ------------------------------------------------------


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio of two colours."""

    def luminance(color: Color) -> float:
        def channel(c: int) -> float:
            v = c / 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        r, g, b_ = color.get_truecolor()
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b_)

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["textual-light", "textual-dark", "solarized-light"])
async def test_step_badges_are_readable_in_every_theme(make_app: Any, theme: str) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = theme
        view = await app.chat.add_turn("Solve 3x + 5 = 26 for x.")
        await view.finish(FOUR_STATUSES)
        await pilot.pause()
        for badge in view.query(".badge"):
            style = badge.rich_style
            assert style.color is not None and style.bgcolor is not None
            ratio = contrast(style.color, style.bgcolor)
            assert ratio >= 4.5, f"{badge.render()} in {theme}: contrast {ratio:.1f}"


# ---- the chosen theme survives a restart ----------------------------------------------------


async def test_the_chosen_theme_is_kept_after_a_restart(config: Config, clock: Any) -> None:
    app = build_app(config, FakeLoader(), clock, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme != "textual-light"
        app.theme = "textual-light"
        await pilot.pause()
    again = build_app(config, FakeLoader(), clock, blink=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.theme == "textual-light"


# ---- palette toggles say what they do ------------------------------------------------------


async def test_palette_toggles_say_what_choosing_them_does(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "Turn cache reuse off" in commands and "Turn answer storing off" in commands
        assert not any("no-" in title.lower() for title in commands)
        app.action_toggle_reuse()
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "Turn cache reuse on" in commands


# ---- the model picker: how to add one, and a broken one keeps the working one --------------


async def test_a_model_that_fails_to_load_leaves_the_working_one(make_app: Any) -> None:
    error = ConfigError("model small: GGUF file not found: /nonexistent/small.gguf")
    loader = FakeLoader(LINEAR_REPLIES[:1], errors={"small": error})
    app = make_app(loader)
    notes = recorded_notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        hint = str(app.screen.query_one(".dialog-hint").render())
        assert "[[models]]" in hint and str(app.config.paths.config_file) in hint
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.model_id == "tiny" and app.cache is not None and not app.load_error
        assert any("Still on Tiny Test Model" in n for n in notes)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        assert app.conversation.turns[-1].answer is not None


# ---- Screenshot without ~/Downloads -----------------------------------------------------------


async def test_screenshot_command_works_without_a_downloads_folder(
    make_app: Any, config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    app = make_app()
    notes = recorded_notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"screenshot", "enter")
        for _ in range(20):
            await pilot.pause(0.05)
        assert not any("Failed" in n for n in notes), notes
        shots = list(config.paths.data_dir.rglob("*.svg"))
        assert len(shots) == 1 and shots[0].read_text().startswith("<svg")


# ---- a STEPCHAT_HOME that is a file: said once, with the reason ----------------------------------


async def test_an_unusable_home_is_reported_once(
    tmp_path: Path, config: Config, clock: Any
) -> None:
    blocker = tmp_path / "home-file"
    blocker.write_text("not a directory")
    paths = UserPaths(config_dir=blocker / "config", data_dir=blocker / "data")
    bad = Config(models=config.models, default_model="tiny", pipeline=config.pipeline,
                 paths=paths)
    loader = FakeLoader(LINEAR_REPLIES[:1], warnings=["cannot open the cache: not a directory"])
    app = build_app(bad, loader, clock, blink=False)
    notes = recorded_notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        await ask(pilot, "Solve 3x + 5 = 26 for x.")
        assert app.conversation.turns[-1].answer is not None
        about_saving = [n for n in notes if "not a directory" in n and str(blocker) in n]
        assert len(about_saving) == 1, notes
        assert "cannot open the cache: not a directory" in notes
        assert "not saving chats" in app.chat.panel_state().status
        assert loader.calls == ["tiny"]  # loaded once
    assert os.path.isfile(blocker)
