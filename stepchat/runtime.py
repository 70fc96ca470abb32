"""Assembles the real parts (model, embedder, store) for the CLI, the app and the bench.

Imports of the heavy adapters happen inside the functions, so importing this module is
cheap and the app can paint before torch, llama.cpp and LanceDB load. `lazy_parts` is what
`ask` and the app use: each part loads when a request first needs it (the store's signature
index, then the table, then the embedder, then the model); `load_parts` loads everything
up front for the bench, whose timings must measure serving, not start-up.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
from stepchat.config import CacheLimits, Config, ServerSpec
from stepchat.core.ports import Backend, Clock, Embedder, MaintainedStore, Store, StoreError
from stepchat.heap import collect_if_due, settle

if TYPE_CHECKING:
    from stepchat.core.pipeline import StepCache
    from stepchat.store.lazy import LazyStore
    from stepchat.store.location import CacheLocation

EMBED_DIM = 384
"""all-MiniLM-L6-v2's vector size: the cache table's width, known without loading torch."""
EMBED_NAME = "all-MiniLM-L6-v2"


@dataclass
class Parts:
    """What a StepCache needs, loaded, and what the user should be told about it."""

    backend: Backend
    embedder: Embedder
    store: Store
    warnings: list[str] = field(default_factory=list)


def load_backend(config: Config, model_id: str | None = None) -> Backend:
    """The backend the model entry's `kind` names: a local GGUF, run in a process of its own
    so that a native crash in it is a message rather than the end of the caller; or an
    OpenAI-compatible server."""
    spec = config.model(model_id)
    if isinstance(spec, ServerSpec):
        from stepchat.backends.openai_http import OpenAIHttpBackend

        return OpenAIHttpBackend.from_spec(spec)
    from stepchat.backends.isolated import IsolatedBackend

    return IsolatedBackend.for_gguf(spec, threads=config.threads)


def load_embedder() -> Embedder:
    from stepchat.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder(threads=1)


def open_store(
    where: Path | str | CacheLocation,
    dim: int,
    limits: CacheLimits | None = None,
    *,
    read_only: bool = False,
) -> tuple[MaintainedStore, list[str]]:
    """The LanceDB cache with hit counts written off the fast path, and notes for the user.

    `where` is a local directory or a bucket URI. A damaged or outdated local table is moved
    aside or migrated (see `stepchat.store.maintenance`); raises StoreError only when the
    cache cannot be used at all. `read_only` writes no byte: it raises StoreError instead of
    creating, repairing or tidying anything.
    """
    from stepchat.store.deferred import DeferredTouchStore
    from stepchat.store.maintenance import open_lance

    store, notes = open_lance(where, dim, limits=limits, read_only=read_only)
    return DeferredTouchStore(store), notes


def open_shared_store(
    bucket: CacheLocation, dim: int, limits: CacheLimits | None = None, *, read_only: bool = False
) -> MaintainedStore:
    """A bucket cache for answering: while the bucket is down, requests answer without it."""
    from stepchat.store.shared import SharedStore

    return SharedStore(
        lambda: open_store(bucket, dim, limits, read_only=read_only)[0], name=bucket.uri
    )


def load_store(
    where: Path | str, dim: int, limits: CacheLimits | None = None
) -> MaintainedStore:
    """`open_store` for callers without a place to show notes: they go to the log (stderr)."""
    store, notes = open_store(where, dim, limits)
    for note in notes:
        logging.getLogger("stepchat").warning("stepchat: %s", note)
    return store


def close_store(store: Store) -> None:
    """Write queued hit counts and finish background upkeep (a sweep the open started), so
    a one-shot process leaves the cache within its limits. Raises StoreError (full disk)."""
    store.flush()
    store.close()


def purge_store(store: Store) -> None:
    """Make deletions final on disk (no file keeps an evicted prompt), where the store
    keeps deleted text at all."""
    if isinstance(store, MaintainedStore):
        store.purge()


def load_model_and_embedder(
    config: Config, model_id: str | None = None
) -> tuple[Backend, Embedder]:
    """Both loaded now, so a request's recorded times measure serving, not start-up."""
    backend = load_backend(config, model_id)
    embedder = load_embedder()
    backend.load()
    embedder.load()
    settle()
    return backend, embedder


def load_parts(config: Config, model_id: str | None = None) -> Parts:
    """The real stack: llama.cpp model, MiniLM embedder, LanceDB store under the data dir."""
    backend, embedder = load_model_and_embedder(config, model_id)
    store, warnings = open_store_or_memory(config, embedder.dim)
    return Parts(backend, embedder, store, warnings)


def lazy_store(
    config: Config, *, fallback: bool = True, writable: bool = True
) -> LazyStore:
    """The cache, opened on first need, with its signature index in front.

    With `fallback`, an unusable cache directory gives an in-memory store for this run (an
    answer matters more than the cache); without it, the StoreError reaches the caller.
    `writable=False` (`--no-store`) opens the table read-only and leaves the index out:
    SQLite writes its journal even to read, and a no-store run writes no byte.
    """
    from stepchat.store.lazy import LazyStore
    from stepchat.store.signature_index import SignatureIndex

    where = config.cache_location

    def open_real() -> tuple[MaintainedStore, list[str]]:
        if fallback:
            return open_store_or_memory(config, EMBED_DIM, writable=writable)
        return open_store(where, EMBED_DIM, config.limits, read_only=not writable)

    ttl = config.limits.ttl_days * 86400 if config.limits.ttl_days > 0 else None
    # A bucket is shared: a local copy of its signatures would serve entries other servers
    # evicted and miss the ones they added, so there every lookup asks the bucket.
    index = SignatureIndex(where.path) if writable and not where.remote else None
    return LazyStore(open_real, index, max_age_seconds=ttl)


def open_cache_store(config: Config) -> LazyStore:
    """The cache for housekeeping commands: opened now, notes to the log, errors raised."""
    store = lazy_store(config, fallback=False)
    store.load()
    for note in store.notes:
        logging.getLogger("stepchat").warning("stepchat: %s", note)
    return store


def lazy_parts(
    config: Config, model_id: str | None = None, *, writable: bool = True
) -> Parts:
    """The real stack, each part loaded on first need; nothing heavy is imported here.

    The store's notes (a table moved aside or migrated) appear in `warnings` once it opens.
    `writable=False` (`--no-store`) reads the cache and writes no byte.
    """
    from stepchat.lazy import LazyBackend, LazyEmbedder

    spec = config.model(model_id)
    backend = LazyBackend(spec.id, lambda: load_backend(config, spec.id))
    embedder = LazyEmbedder(EMBED_NAME, EMBED_DIM, load_embedder)
    store = lazy_store(config, writable=writable)
    return Parts(backend, embedder, store, store.notes)


def open_store_or_memory(
    config: Config, dim: int, *, writable: bool = True
) -> tuple[MaintainedStore, list[str]]:
    """The persistent cache, or an in-memory one when the cache dir is unusable; with notes.

    A bucket cache is opened on first use, so a bucket that is down now is used once it is
    up. Read-only with no local cache yet is an empty in-memory cache and no note: nothing
    is created (not even the data folder)."""
    from stepchat.store.memory import MemoryStore

    where = config.cache_location
    if where.remote:
        return open_shared_store(where, dim, config.limits, read_only=not writable), []
    if not writable:
        from stepchat.store.lance import TABLE_NAME

        if not (where.path / f"{TABLE_NAME}.lance").is_dir():
            return MemoryStore(), []
    try:
        return open_store(where, dim, config.limits, read_only=not writable)
    except StoreError as exc:
        return MemoryStore(), [f"{exc}; answering without a persistent cache this run"]


def build_cache(
    config: Config, parts: Parts, clock: Clock | None = None,
    entry_serials: Iterator[int] | None = None,
) -> StepCache:
    """The engine over loaded parts. sympy and jsonschema load here, after the app paints.
    `entry_serials`: see `StepCache`."""
    from stepchat.core.pipeline import StepCache

    # A backend built from a models.toml entry runs under that entry's settings (its
    # max_tokens caps every reply); one from elsewhere (tests) under the configured ones.
    known = parts.backend.model_id in config.models
    settings = config.pipeline_for(parts.backend.model_id) if known else config.pipeline
    cache = StepCache(parts.backend, parts.embedder, parts.store, settings=settings,
                      clock=clock, entry_serials=entry_serials, after_model_call=collect_if_due)
    settle()  # sympy, the checks' tables and the task handlers live as long as the engine
    return cache
