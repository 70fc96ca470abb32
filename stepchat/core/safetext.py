"""Text from prompts, the model and the cache, made safe to show on a terminal.

Any of it may carry terminal escape sequences (move the cursor, clear the screen, retitle
the window, write the clipboard, fake a hyperlink), C1 controls (`\\x9b` is a one-byte CSI
on many terminals) or bidirectional overrides that make text read differently from how it
is stored (U+202E). Every human-facing output (the CLI's lines, the app's widgets, exported
transcripts) goes through `clean`; machine output (JSON) goes through `escape_json_controls`,
which keeps the text but spells those characters as `\\uXXXX`.
"""

from __future__ import annotations

import re

ESCAPE_SEQUENCE = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]              # CSI: cursor moves, colours, erase
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?   # OSC: window title, hyperlinks, clipboard
    | \x1b[PX^_][^\x1b]*(?:\x1b\\)?        # DCS, SOS, PM, APC strings
    | \x1b[ -/]*[0-~]                      # two-byte escapes (charset, keypad, reset)
    | \x9b[0-?]*[ -/]*[@-~]                # 8-bit CSI
    """,
    re.VERBOSE,
)
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""Arabic letter mark, LRM/RLM, embeddings/overrides (LRE..RLO) and isolates (LRI..PDI)."""
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}]")
"""C0 controls except tab and newline, DEL, C1 controls and bidirectional controls."""
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f{BIDI_CONTROLS}]")


def clean(text: str) -> str:
    """`text` without escape sequences or control characters; tabs become four spaces."""
    text = ESCAPE_SEQUENCE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    return UNSAFE.sub("", text)


def one_line(text: str, width: int | None = None) -> str:
    """`text` cleaned and folded onto one line, cut to `width` characters with an ellipsis."""
    flat = " ".join(clean(text).split())
    if width is None or len(flat) <= width:
        return flat
    return flat[: max(0, width - 1)] + "…"


def escape_json_controls(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`, which escapes C0 only) with
    DEL, C1 and bidirectional controls spelled `\\uXXXX` too. They can only occur inside
    string literals, where the escape means the same character."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
