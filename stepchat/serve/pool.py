"""The models one server offers: each with its lanes, all sharing one embedder, one store
and one engine lock (see `stepchat.serve.lanes`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from stepchat.config import Config
from stepchat.serve.lanes import ModelLanes
from stepchat.serve.protocol import ApiError


class ModelPool:
    def __init__(self, lanes: dict[str, ModelLanes]) -> None:
        if not lanes:
            raise ValueError("a server needs at least one model")
        self.lanes = lanes
        self.default = next(iter(lanes))

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
) -> tuple[ModelPool, list[str]]:
    """Load every model now (a missing GGUF or an unreachable server fails here, not on the
    first request), the embedder and the cache store; with notes for the log."""
    from stepchat.runtime import (
        Parts,
        build_cache,
        load_backend,
        load_embedder,
        open_store_or_memory,
    )

    backends = [load_backend(config, model_id) for model_id in model_ids]
    for backend in backends:
        backend.load()
    embedder = load_embedder()
    embedder.load()
    store, notes = open_store_or_memory(config, embedder.dim)
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
    return ModelPool(lanes), notes
