"""Make model and cache text safe to show in the app.

Model output, cached steps and prompts are untrusted: they may contain terminal escape
sequences or Rich/Textual markup (which could restyle or fake UI, or crash a toast with a
`MarkupError`). Everything the app displays from them goes through `clean()` and is wrapped
in a `Text` object, never interpolated into a markup string; toasts are never parsed as
markup (`StepchatApp.notify`).
"""

from __future__ import annotations

from rich.text import Text

from stepchat.core.safetext import clean, one_line

__all__ = ["clean", "one_line", "plain"]


def plain(text: str, style: str = "") -> Text:
    """A renderable that shows `text` literally: no markup is parsed, no escapes survive."""
    return Text(clean(text), style=style)

