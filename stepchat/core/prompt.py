"""Accepting a prompt: text only, no control characters, bounded length.

Bad input becomes a one-line `PromptError`; an over-long prompt is truncated and the
answer says so, so the conversation goes on either way.
"""

from __future__ import annotations

from stepchat.core.safetext import ESCAPE_SEQUENCE, UNSAFE

MAX_PROMPT_CHARS = 6000


class PromptError(ValueError):
    """The prompt cannot be served (empty, binary); the message is one line for the user."""


def clean_prompt(prompt: str | bytes) -> tuple[str, list[str]]:
    """The prompt as served, and notes for the user about what was changed."""
    notes: list[str] = []
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
    text = UNSAFE.sub("", ESCAPE_SEQUENCE.sub("", prompt)).strip()
    if not text:
        raise PromptError("the prompt is empty")
    if len(text) > MAX_PROMPT_CHARS:
        text = text[:MAX_PROMPT_CHARS]
        notes.append(f"prompt truncated to its first {MAX_PROMPT_CHARS} characters")
    return text, notes
