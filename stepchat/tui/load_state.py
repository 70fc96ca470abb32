"""How far loading the app's parts has got, and how the savings panel words it.

One value instead of three flags (loading, model ready, error) that had to be kept
consistent by hand: each state says what a prompt can use and what the panel shows.
"""

from __future__ import annotations

from enum import Enum


class LoadState(Enum):
    IDLE = "idle"
    """Before the first load starts (the first frame)."""
    LOADING = "loading"
    """The cache, the embedder and the model are loading; nothing answers yet."""
    CACHE_ONLY = "cache only"
    """The cache is open; the embedder and the model are still loading."""
    READY = "ready"
    FAILED = "failed"
    """Nothing loaded (the app's `load_error` says why): prompts fail until a retry."""
    MODEL_FAILED = "model failed"
    """The cache opened but the model or the embedder did not: the cache still answers."""

    @property
    def status(self) -> str:
        """The panel's status line while no request is open."""
        return _STATUS[self]

    @property
    def shows_requests(self) -> bool:
        """Whether open requests replace the status line ("answering…"): not while the
        parts load or after they failed, when the load is the news."""
        return self not in (LoadState.LOADING, LoadState.FAILED, LoadState.MODEL_FAILED)


_STATUS = {
    LoadState.IDLE: "loading model, embedder and cache…",
    LoadState.LOADING: "loading model, embedder and cache…",
    LoadState.CACHE_ONLY: "answers from the cache; loading model…",
    LoadState.READY: "ready",
    LoadState.FAILED: "not loaded",
    LoadState.MODEL_FAILED: "answers from the cache only",
}
