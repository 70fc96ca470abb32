"""Make model and cache text safe to show in the terminal.

Model output, cached steps and prompts are untrusted: they may contain terminal escape
sequences (which could move the cursor, retitle the window or hide text) or Rich/Textual
markup (which could restyle or fake UI). Everything the app displays from them goes through
`clean()` and is wrapped in a `Text` object, never interpolated into a markup string.
"""

from __future__ import annotations

import re

from rich.text import Text

_ESCAPES = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]              # CSI: cursor moves, colours, erase
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?   # OSC: window title, hyperlinks, clipboard
    | \x1b[PX^_][^\x1b]*(?:\x1b\\)?        # DCS, SOS, PM, APC strings
    | \x1b[ -/]*[0-~]                      # two-byte escapes (charset, keypad, reset)
    | \x9b[0-?]*[ -/]*[@-~]                # 8-bit CSI
    """,
    re.VERBOSE,
)
# C0 controls except tab and newline, DEL, C1 controls, and bidirectional overrides that
# can make text read differently from how it is stored.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """`text` without escape sequences or control characters; tabs become four spaces."""
    text = _ESCAPES.sub("", text)
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    return _CONTROLS.sub("", text)


def plain(text: str, style: str = "") -> Text:
    """A renderable that shows `text` literally: no markup is parsed, no escapes survive."""
    return Text(clean(text), style=style)


def one_line(text: str, width: int) -> str:
    """`text` cleaned, folded onto one line and cut to `width` cells with an ellipsis."""
    flat = " ".join(clean(text).split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"
