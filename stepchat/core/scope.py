"""A cache scope: what an entry is reused under, and a short tag to show it by."""

from __future__ import annotations

import hashlib

TAG_LENGTH = 6
"""Hex digits of a scope a listing shows: enough to tell a handful of scopes apart."""


def scope_of(model_id: str, system_prompt: str, model_source: str = "") -> str:
    """Entries are only ever reused under the same model and system prompt. A model entry is
    its name and what it runs (`PipelineSettings.model_source`): the same name pointed at
    another GGUF file or another server's model starts a scope of its own."""
    key = f"{model_id}\x1f{system_prompt}" + (f"\x1f{model_source}" if model_source else "")
    return hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def scope_tag(scope: str) -> str:
    """The scope as `cache list`, `stepchat config` and the inspector show it."""
    return scope[:TAG_LENGTH]
