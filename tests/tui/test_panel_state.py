"""The savings views follow the app's state by themselves: a cache toggle chosen in the
palette, a load that fails and is retried, a request in flight and the entries it stored all
reach the side panel and the status line, with no code path redrawing them by hand (the
chat screen watches the app's reactives and its own queue)."""

from __future__ import annotations

from typing import Any

import pytest

from stepchat.config import ConfigError
from stepchat.tui.app import StepchatApp
from stepchat.tui.widgets.savings import SavingsPanel, StatusLine

from .conftest import (
    LINEAR_REPLIES,
    FakeLoader,
    PacedBackend,
    send_until_paused,
    settle,
    shown_text,
)

pytestmark = pytest.mark.anyio

WIDE = (110, 36)
NARROW = (80, 30)


def panel(app: StepchatApp) -> str:
    """The side panel's text, its runs of spaces (the grid's columns) made one."""
    return " ".join(shown_text(app.chat.query_one(SavingsPanel)).split())


def status_line(app: StepchatApp) -> str:
    return " ".join(shown_text(app.chat.query_one(StatusLine), width=200).split())


async def palette(pilot: Any, command: str) -> None:
    """Choose `command` in the command palette, as a user types it."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*command, "enter")
    await settle(pilot)


async def test_cache_toggles_from_the_palette_reach_the_panel(make_app: Any) -> None:
    app = make_app(FakeLoader(LINEAR_REPLIES[:1]))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "reuse on · store on" in panel(app)

        await palette(pilot, "Turn cache reuse off")
        assert "reuse OFF · store on" in panel(app)
        await palette(pilot, "Turn answer storing off")
        assert "reuse OFF · store OFF" in panel(app)
        assert "no-reuse · no-store" in status_line(app)
        await palette(pilot, "Turn cache reuse on")
        assert "reuse on · store OFF" in panel(app)
        assert "no-reuse" not in status_line(app)


async def test_a_failed_load_and_its_retry_reach_the_status_line(make_app: Any) -> None:
    loader = FakeLoader(LINEAR_REPLIES[:1], error=ConfigError("model tiny: damaged"))
    app = make_app(loader)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        assert "not loaded" in status_line(app)
        assert "retry_load" in {b.binding.action for b in app.active_bindings.values()}

        loader.error = None
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert status_line(app).startswith("Tiny Test Model · hit")  # "ready" is not said
        assert "retry_load" not in {b.binding.action for b in app.active_bindings.values()}


async def test_a_request_in_flight_and_what_it_stored_reach_the_panel(make_app: Any) -> None:
    backend = PacedBackend("Paris is the capital of France, on the Seine.", pause_at=3)
    app = make_app(FakeLoader(backend=backend))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "ready" in panel(app) and "cache entries 0" in panel(app)
        await send_until_paused(pilot, "Tell me about Paris.", backend)
        assert "answering…" in panel(app)
        assert "cancel" in {b.binding.action for b in app.active_bindings.values()}

        backend.release.set()
        await settle(pilot)
        assert "answering…" not in panel(app) and "ready" in panel(app)
        assert "requests 1" in panel(app) and "cache entries 1" in panel(app)
        assert "cancel" not in {b.binding.action for b in app.active_bindings.values()}


async def test_after_the_newest_question_is_cancelled_the_panel_shows_the_last_answer(
    make_app: Any,
) -> None:
    backend = PacedBackend("Paris is the capital of France, on the Seine.", pause_at=3)
    app = make_app(FakeLoader(backend=backend))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        app.chat.prompt.text = "Solve for x: 3x = 12."
        await pilot.press("enter")
        await settle(pilot)
        assert "solver" in panel(app)
        await send_until_paused(pilot, "Tell me about Paris.", backend)
        assert "no answer yet" in panel(app)
        await pilot.press("escape")
        backend.release.set()
        await settle(pilot)
        assert "solver" in panel(app) and "no answer yet" not in panel(app)
