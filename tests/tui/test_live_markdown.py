"""Ending a live Markdown stream at any moment keeps the app running."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from stepchat.tui.widgets.live_markdown import stop_stream

pytestmark = pytest.mark.anyio


class OneMarkdown(App[None]):
    def compose(self) -> ComposeResult:
        yield Markdown("")


async def test_a_stream_ended_before_its_task_ran_does_not_cancel_the_caller() -> None:
    app = OneMarkdown()
    async with app.run_test() as pilot:
        markdown = app.query_one(Markdown)
        drawn = Markdown.get_stream(markdown)
        await drawn.write("Paragraph 0.")  # yields: the stream's task starts
        await stop_stream(drawn)

        # Opened and ended in one step of the loop: its task never ran.
        await stop_stream(Markdown.get_stream(markdown))
        await pilot.pause()
        assert app.is_running


class SlowToStop(MarkdownStream):
    """A stream whose stop takes a while, so the caller can be cancelled during it."""

    async def stop(self) -> None:
        await asyncio.sleep(30)


async def test_cancelling_the_caller_while_it_stops_a_stream_still_cancels_it() -> None:
    app = OneMarkdown()
    async with app.run_test():
        stream = SlowToStop(app.query_one(Markdown))
        stopping = asyncio.create_task(stop_stream(stream))
        await asyncio.sleep(0.05)
        stopping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopping
