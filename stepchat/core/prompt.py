"""Accepting a prompt: text only, no control characters, bounded length.

Bad input becomes a one-line `PromptError`. A prompt over `MAX_PROMPT_CHARS` is sent whole
and said to be long: no reader of a checked kind or of the cache runs over a text that
size, so it is open text, answered by the model and never cached (a cut would answer a
prompt the user did not send: the instruction after a document is its last line).
Line breaks of every convention (`\\r\\n`, a lone `\\r`, vertical tab, form feed, next
line) become `\\n`, never nothing: `1\\r2` is two lines, not `12`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stepchat.core.safetext import ESCAPE_SEQUENCE, UNSAFE
from stepchat.core.textgate.scan import trim

MAX_PROMPT_CHARS = 6000
MAX_SENT_CHARS = 1_000_000
"""The most a prompt may have at all: more than any model's context holds (about 250,000
tokens), refused in one line before anything reads it."""
LONG_NOTE = (f"a prompt over {MAX_PROMPT_CHARS:,} characters: answered as open text, "
             "not cached")
_LINE_BREAK = re.compile("\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85]")
"""Line breaks that are control characters: each is read as `\\n` before controls go."""


class PromptError(ValueError):
    """The prompt cannot be served (empty, binary); the message is one line for the user."""


@dataclass(frozen=True)
class Accepted:
    """The prompt as served, notes for the user about what was changed, and whether it is
    longer than `MAX_PROMPT_CHARS` (open text, never cached)."""

    text: str
    notes: list[str] = field(default_factory=list)
    long: bool = False


def accept_prompt(prompt: str | bytes) -> Accepted:
    """The prompt as served; see `Accepted`."""
    if isinstance(prompt, bytes):
        try:
            prompt = prompt.decode("utf-8")
        except UnicodeDecodeError:
            raise PromptError("the prompt is not UTF-8 text") from None
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: undecodable bytes from argv or a file
        raise PromptError("the prompt is not UTF-8 text") from None
    if "\x00" in prompt:
        raise PromptError("the prompt contains binary data (NUL bytes)")
    # Escape sequences, C0/C1 controls and bidirectional overrides (U+202E) go: a prompt is
    # stored and shown again later (cache list, the inspector), and must read as it is.
    text = trim(UNSAFE.sub("", _LINE_BREAK.sub("\n", ESCAPE_SEQUENCE.sub("", prompt))))
    if not text.strip():
        raise PromptError("the prompt is empty")
    if len(text) > MAX_SENT_CHARS:
        raise PromptError(f"the prompt is {len(text):,} characters; the most one may have is "
                          f"{MAX_SENT_CHARS:,}")
    if len(text) > MAX_PROMPT_CHARS:
        return Accepted(text, [LONG_NOTE], long=True)
    return Accepted(text)


def clean_prompt(prompt: str | bytes) -> tuple[str, list[str]]:
    """The prompt as served, and notes for the user about what was changed."""
    accepted = accept_prompt(prompt)
    return accepted.text, list(accepted.notes)
