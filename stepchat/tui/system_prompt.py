"""A chat's own system prompt, applied by serving it through an engine that carries it.

The engine's settings hold the system prompt, which is part of the cache scope; a chat
whose prompt differs from the configured one is served by a sibling engine over the same
model, embedder and store, so its answers are cached (and found) under its own scope.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from stepchat.engine_lanes import engine_on

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache


def with_system_prompt(cache: StepCache, system_prompt: str | None) -> StepCache:
    """`cache`, or an engine like it with `system_prompt` (None: keep the configured one)."""
    if system_prompt is None or system_prompt == cache.settings.system_prompt:
        return cache
    settings = replace(cache.settings, system_prompt=system_prompt)
    return engine_on(cache, cache.backend, settings)
