"""Accepting a prompt: text only, no control characters, bounded length.

Bad input becomes a one-line `PromptError`; an over-long prompt is truncated and the
answer says so, so the conversation goes on either way.
"""

from __future__ import annotations

import re

MAX_PROMPT_CHARS = 6000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.")


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
    text = _CONTROL.sub("", _ESCAPE.sub("", prompt)).strip()
    if not text:
        raise PromptError("the prompt is empty")
    if len(text) > MAX_PROMPT_CHARS:
        text = text[:MAX_PROMPT_CHARS]
        notes.append(f"prompt truncated to its first {MAX_PROMPT_CHARS} characters")
    return text, notes
