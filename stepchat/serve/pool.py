"""The models one server offers: each with its lanes, all sharing one embedder, one store
and one engine lock (see `stepchat.serve.lanes`)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stepchat.config import Config, ConfigError, ServerSpec
from stepchat.core.ports import BackendError, StoreError
from stepchat.serve.lanes import ModelLanes
from stepchat.serve.protocol import ApiError

if TYPE_CHECKING:
    from stepchat.lazy import LazyBackend, LazyEmbedder
    from stepchat.store.lazy import LazyStore


@dataclass
class PoolParts:
    """What the pool's engines share, each behind a proxy that loads it on first need."""

    store: LazyStore
    embedder: LazyEmbedder
    backends: list[LazyBackend]


class ModelPool:
    def __init__(self, lanes: dict[str, ModelLanes], parts: PoolParts | None = None) -> None:
        """`parts`: the lazily loaded parts behind the lanes (None: loaded by the caller)."""
        if not lanes:
            raise ValueError("a server needs at least one model")
        self.lanes = lanes
        self.default = next(iter(lanes))
        self.parts = parts

    def loaded(self, model_id: str) -> bool:
        """Whether the model is loaded (a request for it will not wait for a load)."""
        if self.parts is None:
            return True
        return any(b.loaded for b in self.parts.backends if b.model_id == model_id)

    @property
    def ready(self) -> bool:
        """Everything loaded: cache, embedder and every model."""
        parts = self.parts
        if parts is None:
            return True
        return parts.store.loaded and parts.embedder.loaded and all(
            b.loaded for b in parts.backends
        )

    @property
    def ids(self) -> list[str]:
        return list(self.lanes)

    def get(self, model_id: str) -> ModelLanes:
        """The model's lanes, or a 404 naming what is served."""
        lanes = self.lanes.get(model_id)
        if lanes is None:
            served = ", ".join(self.lanes)
            raise ApiError(
                404,
                f"model {model_id!r} is not served here (served: {served})",
                code="model_not_found",
                param="model",
            )
        return lanes

    def close(self) -> None:
        """Cancel what runs, then write the store's queued bookkeeping under the lock."""
        for lanes in self.lanes.values():
            lanes.close()
        first = next(iter(self.lanes.values()))
        with first.engine_lock:
            first.engine.store.flush()


def open_pool(
    config: Config, model_ids: Sequence[str], *, queue_limit: int
) -> ModelPool:
    """The pool over lazily loaded parts, so the server listens at once and a cache hit
    never waits for a model it does not use. What can fail cheaply fails here, before the
    server starts: an unknown model, a GGUF file that is not there, an OpenAI-compatible
    server that does not answer. `warm_up` then loads the rest in the background."""
    from stepchat.lazy import LazyBackend, LazyEmbedder
    from stepchat.runtime import (
        EMBED_DIM,
        EMBED_NAME,
        Parts,
        build_cache,
        lazy_store,
        load_backend,
        load_embedder,
    )

    backends = []
    for model_id in model_ids:
        spec = config.model(model_id)
        backend = LazyBackend(spec.id, functools.partial(load_backend, config, spec.id))
        if isinstance(spec, ServerSpec):
            backend.load()  # only a probe of the server: milliseconds
        else:
            spec.gguf_path()
        backends.append(backend)
    embedder = LazyEmbedder(EMBED_NAME, EMBED_DIM, load_embedder)
    store = lazy_store(config)
    lock = threading.Lock()
    lanes = {
        backend.model_id: ModelLanes(
            build_cache(config, Parts(backend, embedder, store)),
            lock,
            context=config.model(backend.model_id).context,
            queue_limit=queue_limit,
        )
        for backend in backends
    }
    return ModelPool(lanes, PoolParts(store, embedder, backends))


def warm_up(pool: ModelPool, say: Callable[[str], None]) -> None:
    """Load the store, the embedder and every model now, so later requests do not pay for
    them; requests arriving meanwhile load what they need themselves (each part loads once).
    A part that fails to load is said in one line; requests that need it report it too."""
    parts = pool.parts
    if parts is None:
        return
    steps: list[tuple[str, Callable[[], float]]] = [
        ("cache", parts.store.load), ("embedder", parts.embedder.load),
        *((f"model {b.model_id}", b.load) for b in parts.backends),
    ]
    for name, load in steps:
        try:
            seconds = load()
        except (BackendError, StoreError, ConfigError) as exc:
            say(f"{name} did not load: {exc}")
            continue
        say(f"{name} ready ({seconds:.1f} s)")
    for note in parts.store.drain_notes():
        say(note)
