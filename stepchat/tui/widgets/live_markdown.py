"""Stopping Textual's Markdown stream without losing the app.

`MarkdownStream.stop()` cancels the stream's task and awaits it. If the task has not run its
first step yet (the stream was opened a moment before the answer ended, and the loop ran the
answer's handler first), the cancelled task raises `CancelledError` into the caller. In an
app message handler that error ends the app's message loop and the app quits without a word,
so the stream's own cancellation is absorbed here; a cancellation of the caller itself still
propagates.
"""

from __future__ import annotations

import asyncio

from textual.widgets.markdown import MarkdownStream


async def stop_stream(stream: MarkdownStream) -> None:
    """Stop `stream`; fragments it had not drawn are dropped, as the caller replaces it."""
    try:
        await stream.stop()
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
