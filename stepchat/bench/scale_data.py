"""What the scale bench fills the store with and asks it: real requests, real embeddings.

Nearest-neighbour search is easy on random vectors (every pair is almost orthogonal, so the
true neighbour stands out) and hard on what a cache really holds: thousands of requests from
the same few templates that differ in a number or a name, whose MiniLM vectors sit within a
few hundredths of each other. So the entries are the bench's own generated linear-equation and
JSON requests embedded with the shipped MiniLM model, and the lookups are further requests
from the same generators that were never stored, as in use.

Embedding 100k prompts takes minutes on two cores, so vectors are kept in a file keyed by a
hash of the prompts and the model, and a smaller size reuses the head of a larger one.
Sizes past `REAL_LIMIT` are synthetic (say so in the table): each entry is a real entry's
vector moved by noise of the spread seen between a template's variants, and the lookups
are made the same way.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stepchat.bench.json_gen import json_families
from stepchat.bench.linear_gen import linear_families
from stepchat.core.types import TaskKind

REAL_LIMIT = 100_000
"""Largest size filled with real MiniLM embeddings; larger sizes are synthetic."""
SYNTHETIC_SPREAD = 0.025
"""Per-dimension noise of synthetic vectors: cosine ~0.89 to the real vector they come from."""
STORE_SEED = 1
QUERY_SEED = 99
EMBED_CHUNK = 2048

Embed = Callable[[list[str]], np.ndarray]


@dataclass
class Workload:
    """Entries to store and lookups to make, with the vectors of both."""

    prompts: list[str]
    tasks: list[TaskKind]
    vectors: np.ndarray
    query_tasks: list[TaskKind]
    queries: np.ndarray
    synthetic: bool

    def __len__(self) -> int:
        return len(self.prompts)


def requests(count: int, seed: int) -> list[tuple[str, TaskKind]]:
    """`count` generated requests, linear and JSON families alternating, in a fixed order."""
    rng = random.Random(seed)
    bases = max(1, -(-count // 32))
    linear = linear_families(rng, bases, 3)
    json = json_families(rng, bases, 3)
    out: list[tuple[str, TaskKind]] = []
    for lin, js in zip(linear, json, strict=True):
        out += [(r.prompt, TaskKind.LINEAR) for r in (lin.base, *lin.variants)]
        out += [(r.prompt, TaskKind.JSON) for r in (js.base, *js.variants)]
        if len(out) >= count:
            break
    return out[:count]


def minilm_embed() -> Embed:
    """Embedding with the shipped MiniLM model (two threads: nothing else runs)."""
    from stepchat.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder(threads=2)

    def embed(texts: list[str]) -> np.ndarray:
        parts = [
            np.asarray(embedder.embed_many(texts[i : i + EMBED_CHUNK]), dtype=np.float32)
            for i in range(0, len(texts), EMBED_CHUNK)
        ]
        return np.concatenate(parts) if parts else np.empty((0, 384), np.float32)

    return embed


def cached_vectors(texts: list[str], embed: Embed, cache_dir: Path | None) -> np.ndarray:
    """Vectors of `texts`, read from `cache_dir` when the same texts were embedded before."""
    if cache_dir is None:
        return embed(texts)
    digest = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]
    path = cache_dir / f"minilm-{len(texts)}-{digest}.npy"
    if path.is_file():
        return np.load(path)
    vectors = embed(texts)
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def _unit(vectors: np.ndarray) -> np.ndarray:
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def build(
    size: int, lookups: int, embed: Embed, cache_dir: Path | None, real_pool: int = REAL_LIMIT
) -> Workload:
    """The workload for one size: the head of `real_pool` real entries (so one embedding
    serves every size of a run), or synthetic entries grown from all of them."""
    stored = requests(real_pool, STORE_SEED)
    vectors = cached_vectors([p for p, _ in stored], embed, cache_dir)
    asked = requests(lookups, QUERY_SEED)
    queries = cached_vectors([p for p, _ in asked], embed, cache_dir)
    if size <= len(stored):
        return Workload(
            [p for p, _ in stored[:size]], [t for _, t in stored[:size]], vectors[:size],
            [t for _, t in asked], queries, synthetic=False,
        )
    rng = np.random.default_rng(7)
    origin = rng.integers(0, len(stored), size)
    noise = rng.standard_normal((size, vectors.shape[1]), dtype=np.float32) * SYNTHETIC_SPREAD
    synthetic = _unit(vectors[origin] + noise)
    picks = rng.integers(0, len(stored), lookups)
    near = rng.standard_normal((lookups, vectors.shape[1]), dtype=np.float32) * SYNTHETIC_SPREAD
    return Workload(
        [f"synthetic #{i}: {stored[o][0]}" for i, o in enumerate(origin)],
        [stored[o][1] for o in origin],
        synthetic,
        [stored[p][1] for p in picks],
        _unit(vectors[picks] + near),
        synthetic=True,
    )


def exact_bests(workload: Workload, chunk: int = 65_536) -> np.ndarray:
    """For every lookup, the similarity of its true nearest stored entry of the same task
    (an exhaustive scan, the reference the store's answers are judged against)."""
    best = np.full(len(workload.queries), -np.inf, dtype=np.float32)
    query_tasks = np.asarray([str(t) for t in workload.query_tasks])
    stored_tasks = np.asarray([str(t) for t in workload.tasks])
    for start in range(0, len(workload), chunk):
        block = workload.vectors[start : start + chunk]
        sims = block @ workload.queries.T
        same = stored_tasks[start : start + chunk, None] == query_tasks[None, :]
        sims = np.where(same, sims, -np.inf)
        best = np.maximum(best, sims.max(axis=0))
    return best
