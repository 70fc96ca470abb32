"""The GPTCache arm keeps GPTCache's own hit rule: default threshold 0.8 on a 0-4 distance
scale, i.e. squared L2 distance <= 0.8, i.e. cosine >= 0.6 for unit vectors."""

from __future__ import annotations

import math

import numpy as np
from gptcache.manager.vector_data.base import VectorData

from stepchat.bench.gptcache_arm import FlatL2Vectors, GPTCacheFront


class TableEmbedder:
    """Unit vectors chosen per prompt, so the cosine between prompts is known exactly."""

    name = "table"
    dim = 2

    def __init__(self, angles: dict[str, float]) -> None:
        self.angles = angles

    def embed(self, text: str) -> list[float]:
        a = self.angles[text]
        return [math.cos(a), math.sin(a)]

    def load(self) -> float:
        """A table needs no loading."""
        return 0.0


def test_flat_l2_returns_squared_distances_nearest_first() -> None:
    store = FlatL2Vectors(2, top_k=2)
    store.mul_add([VectorData(1, np.array([1.0, 0.0])), VectorData(2, np.array([0.0, 1.0]))])
    hits = store.search(np.array([1.0, 0.0]))
    assert hits is not None
    assert [i for _, i in hits] == [1, 2]
    assert [round(d, 6) for d, _ in hits] == [0.0, 2.0]
    store.delete([1])
    assert store.count() == 1


def test_hits_follow_gptcache_default_threshold() -> None:
    angles = {
        "base": 0.0,
        "close": math.acos(0.7),  # cosine 0.7: squared distance 0.6 -> hit
        "far": math.acos(0.5),  # cosine 0.5: squared distance 1.0 -> miss
    }
    front = GPTCacheFront(TableEmbedder(angles))
    generated: list[str] = []

    def generate(prompt: str) -> str:
        generated.append(prompt)
        return f"answer to {prompt}"

    assert front.lookup_or_generate("base", generate) == ("answer to base", False)
    assert front.lookup_or_generate("close", generate) == ("answer to base", True)
    assert front.lookup_or_generate("far", generate) == ("answer to far", False)
    assert front.lookup_or_generate("far", generate) == ("answer to far", True)
    assert generated == ["base", "far"]
    assert front.embed_ms >= 0.0
