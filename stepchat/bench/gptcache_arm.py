"""The `gptcache` arm: the GPTCache library as a whole-response semantic cache.

GPTCache decides hits the way its users run it: `adapt` embeds the prompt, searches the
data manager, scores candidates with `SearchDistanceEvaluation` (its default, max distance
4.0) against `Config().similarity_threshold` (its default, 0.8), and on a miss calls the
model and saves the reply. We only supply the parts it leaves open: the embedding function
(our embedder, so every arm sees the same vectors) and in-process storage, because its
stock stores pull faiss and SQLAlchemy, which stepchat does not ship. The vector store is
a flat L2 index with faiss' semantics (squared L2 distance, top-1 by default), so the
threshold means what it means in GPTCache's own sqlite+faiss setup.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np
from gptcache import Cache, Config
from gptcache.adapter.adapter import adapt
from gptcache.manager import get_data_manager
from gptcache.manager.scalar_data.base import CacheData, CacheStorage
from gptcache.manager.vector_data.base import VectorBase, VectorData
from gptcache.processor.post import temperature_softmax
from gptcache.processor.pre import get_prompt
from gptcache.similarity_evaluation import SearchDistanceEvaluation

from stepchat.core.ports import Embedder


class _HasText(Protocol):
    @property
    def text(self) -> str: ...


Generated = TypeVar("Generated", bound=_HasText)

TOP_K = 1
"""GPTCache's default number of vector candidates (its `vector_data.manager.TOP_K`)."""


class FlatL2Vectors(VectorBase):
    """Exact nearest neighbours by squared L2 distance, like faiss' `IDMap,Flat`."""

    def __init__(self, dim: int, top_k: int = TOP_K) -> None:
        self.dim = dim
        self.top_k = top_k
        self._ids: list[int] = []
        self._rows: list[np.ndarray] = []

    def mul_add(self, datas: list[VectorData]) -> None:
        for item in datas:
            self._ids.append(int(item.id))
            self._rows.append(np.asarray(item.data, dtype="float32").reshape(-1))

    def search(self, data: np.ndarray, top_k: int = -1) -> list[tuple[float, int]] | None:
        if not self._rows:
            return None
        k = self.top_k if top_k == -1 else top_k
        query = np.asarray(data, dtype="float32").reshape(-1)
        dists = ((np.stack(self._rows) - query) ** 2).sum(axis=1)
        order = np.argsort(dists, kind="stable")[:k]
        return [(float(dists[i]), self._ids[i]) for i in order]

    def rebuild(self, ids: Any = None) -> bool:
        return True

    def delete(self, ids: Any) -> bool:
        drop = {int(i) for i in ids}
        keep = [i for i, rid in enumerate(self._ids) if rid not in drop]
        self._ids = [self._ids[i] for i in keep]
        self._rows = [self._rows[i] for i in keep]
        return True

    def count(self) -> int:
        return len(self._ids)


class MemoryScalars(CacheStorage):
    """Questions and answers by id, in a dict: the scalar half of GPTCache's storage."""

    def __init__(self) -> None:
        self._rows: dict[int, CacheData] = {}
        self._deleted: set[int] = set()
        self._next = itertools.count(1)

    def create(self) -> None:
        return None

    def batch_insert(self, all_data: list[CacheData]) -> list[int]:
        ids = []
        for data in all_data:
            rid = next(self._next)
            self._rows[rid] = data
            ids.append(rid)
        return ids

    def get_data_by_id(self, key: int) -> CacheData | None:
        return None if key in self._deleted else self._rows.get(int(key))

    def mark_deleted(self, keys: Any) -> None:
        self._deleted.update(int(k) for k in keys)

    def clear_deleted_data(self) -> None:
        for key in self._deleted:
            self._rows.pop(key, None)
        self._deleted.clear()

    def get_ids(self, deleted: bool = True) -> list[int]:
        if deleted:
            return sorted(self._deleted)
        return [k for k in self._rows if k not in self._deleted]

    def count(self, state: int = 0, is_all: bool = False) -> int:
        if is_all:
            return len(self._rows)
        return len(self._deleted) if state == -1 else len(self._rows) - len(self._deleted)

    def add_session(self, question_id: Any, session_id: Any, session_question: Any) -> None:
        return None

    def list_sessions(self, session_id: Any = None, key: Any = None) -> list[Any]:
        return []

    def delete_session(self, keys: Any) -> None:
        return None

    def report_cache(self, *args: Any, **kwargs: Any) -> None:
        return None

    def close(self) -> None:
        return None


class GPTCacheFront:
    """A GPTCache in front of a generator: `lookup_or_generate(prompt)` → (text, hit).

    `embed_ms` holds the time the last call spent in the embedder, so the bench can split
    a hit into embedding and the rest of GPTCache's lookup.
    """

    def __init__(self, embedder: Embedder, *, max_size: int = 1000) -> None:
        self.embedder = embedder
        self.embed_ms = 0.0
        self.cache = Cache()
        self.cache.init(
            pre_embedding_func=get_prompt,
            embedding_func=self._embed,
            data_manager=get_data_manager(
                MemoryScalars(), FlatL2Vectors(embedder.dim), max_size=max_size
            ),
            similarity_evaluation=SearchDistanceEvaluation(),
            post_process_messages_func=temperature_softmax,
            config=Config(),
        )

    def _embed(self, data: str, **_kwargs: Any) -> np.ndarray:
        start = time.perf_counter()
        vector = np.asarray(self.embedder.embed(data), dtype="float32")
        self.embed_ms += (time.perf_counter() - start) * 1000
        return vector

    def lookup_timed(
        self, prompt: str, serve: Callable[[str], Generated]
    ) -> tuple[str, bool, list[Generated], float]:
        """`lookup_or_generate` with the arm's own model answer: the text, whether it was a
        hit, what the model served on a miss, and the whole call's milliseconds."""
        generated: list[Generated] = []

        def generate(text: str) -> str:
            served = serve(text)
            generated.append(served)
            return served.text

        started = time.perf_counter()
        text, hit = self.lookup_or_generate(prompt, generate)
        return text, hit, generated, (time.perf_counter() - started) * 1000

    def lookup_or_generate(self, prompt: str, generate: Callable[[str], str]) -> tuple[str, bool]:
        """Serve from GPTCache, or generate, save and serve; says whether it was a hit."""
        self.embed_ms = 0.0
        missed = False

        def on_miss(*_args: Any, **kwargs: Any) -> str:
            nonlocal missed
            missed = True
            return generate(str(kwargs["prompt"]))

        def save(
            llm_data: str, update_cache_func: Callable[[str], None], *_a: Any, **_k: Any
        ) -> str:
            update_cache_func(llm_data)
            return llm_data

        text = adapt(on_miss, lambda cached: cached, save, prompt=prompt, cache_obj=self.cache)
        return str(text if text is not None else ""), not missed
