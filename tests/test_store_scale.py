"""What keeps lookups fast as the cache grows, checked against an exhaustive scan.

The in-memory mirror must give exactly the neighbours a scan gives, through adds, deletes,
replacements and other processes' writes; the ANN path big tables take must find the true
nearest entry for (nearly) every lookup; row ids that moved must never return a wrong entry;
and maintenance must not hold up requests.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from stepchat.core.types import CacheEntry, Step, TaskKind
from stepchat.store.lance import LanceStore
from stepchat.store.mirror import VectorMirror

DIM = 32


def entry(i: int, vector: np.ndarray, *, scope: str = "s", task: TaskKind = TaskKind.LINEAR,
          created: float = 1.0) -> CacheEntry:
    return CacheEntry(
        id=f"e{i}", prompt=f"prompt {i}", vector=[float(v) for v in vector], scope=scope,
        task=task, signature=f"sig-{i}", constraints={}, steps=[Step("x = 1", "final")],
        model="m", created=created, last_hit=created,
    )


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def exhaustive(vectors: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[str]:
    ids = list(vectors)
    sims = np.array([vectors[i] @ query for i in ids])
    return [ids[j] for j in np.argsort(-sims, kind="stable")[:k]]


def test_mirror_matches_an_exhaustive_scan_through_puts_drops_and_moves() -> None:
    rng = np.random.default_rng(3)
    mirror = VectorMirror(DIM)
    truth: dict[tuple[str, str], dict[str, np.ndarray]] = {("a", "linear"): {}, ("b", "json"): {}}
    vectors = unit(rng, 600)
    for i, vec in enumerate(vectors):
        group = ("a", "linear") if i % 3 else ("b", "json")
        mirror.put(f"e{i}", *group, vec * 3.0, row=i)  # stored normalised
        truth[group][f"e{i}"] = vec
    for i in range(0, 600, 7):  # drops
        mirror.drop(f"e{i}")
        for members in truth.values():
            members.pop(f"e{i}", None)
    moved = unit(rng, 1)[0]
    mirror.put("e1", "b", "json", moved, row=1)  # changes group and vector
    truth[("a", "linear")].pop("e1")
    truth[("b", "json")]["e1"] = moved
    assert len(mirror) == sum(len(g) for g in truth.values())
    for query in unit(rng, 40):
        for (scope, task), members in truth.items():
            got = [entry_id for entry_id, _s, _r in mirror.search(query, scope, task, 5)]
            assert got == exhaustive(members, query, 5)
    assert mirror.search(unit(rng, 1)[0], "nobody", "linear", 3) == []


def test_a_small_store_searches_its_mirror_and_follows_another_handle(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    mine = LanceStore(tmp_path / "c", DIM, consistency_seconds=0.0, optimize_every=0)
    other = LanceStore(tmp_path / "c", DIM, consistency_seconds=0.0, optimize_every=0)
    vectors = unit(rng, 80)
    for i in range(40):
        mine.add(entry(i, vectors[i]))
    for i in range(40, 80):
        other.add(entry(i, vectors[i]))
    other.delete("e3")
    other.add(entry(5, vectors[79] * -1.0, created=2.0))  # e5 replaced with a new vector
    other.compact()  # row ids move
    assert mine.search_path() == "mirror"
    truth = {f"e{i}": vectors[i] for i in range(80) if i != 3}
    truth["e5"] = -vectors[79]
    for query in unit(rng, 30):
        hits = mine.search(query.tolist(), scope="s", task=TaskKind.LINEAR, k=3)
        assert [h.entry.id for h in hits] == exhaustive(truth, query, 3)
        assert hits[0].similarity == pytest.approx(float(truth[hits[0].entry.id] @ query), abs=1e-5)


def test_a_row_id_that_moved_never_returns_another_entry(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    store = LanceStore(tmp_path / "c", DIM, consistency_seconds=0.0, optimize_every=0)
    vectors = unit(rng, 5)
    for i in range(5):
        store.add(entry(i, vectors[i]))
    store.compact()
    store.search(vectors[0].tolist(), scope="s", task=TaskKind.LINEAR)  # reload: real row ids
    assert store._mirror is not None
    wrong = store._mirror.row_of("e4")
    store._mirror.set_row("e2", wrong)  # as if e2's address had been read before a compaction
    store._lru.clear()
    got = store.get("e2")
    assert got is not None and got.id == "e2" and got.prompt == "prompt 2"
    hits = store.search(vectors[2].tolist(), scope="s", task=TaskKind.LINEAR, k=1)
    assert hits[0].entry.id == "e2"


def test_new_tables_are_written_in_the_2_1_file_format(tmp_path: Path) -> None:
    """LanceDB's 2.2 format makes reading a hit from a one-valued column cost a walk over
    every row before it (`lance._FILE_FORMAT`); a compacted table keeps the format."""
    rng = np.random.default_rng(4)
    store = LanceStore(tmp_path / "c", DIM, consistency_seconds=0.0, optimize_every=0)
    store.add_many([entry(i, v) for i, v in enumerate(unit(rng, 50))])
    store.compact()
    files = list((tmp_path / "c" / "entries.lance" / "data").glob("*.lance"))
    assert files
    for path in files:
        tail = path.read_bytes()[-8:]  # major and minor version (u16 each), then the magic
        assert tail[4:] == b"LANC"
        assert (int.from_bytes(tail[0:2], "little"), int.from_bytes(tail[2:4], "little")) == (
            2, 1)


def test_big_tables_take_the_index_and_find_the_true_nearest_entry(tmp_path: Path) -> None:
    """Families of near-identical vectors, as a cache of templated requests holds."""
    rng = np.random.default_rng(8)
    centres = unit(rng, 60, dim=64)
    family = rng.integers(0, 60, 3000)
    vectors = centres[family] + rng.standard_normal((3000, 64)).astype(np.float32) * 0.03
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = LanceStore(tmp_path / "c", 64, consistency_seconds=0.0, optimize_every=0,
                       index_threshold=1000, mirror_limit=0, background_index=False)
    store.add_many([entry(i, vectors[i]) for i in range(3000)])
    store.optimize()
    assert store.search_path() == "IVF_SQ"
    queries = centres[rng.integers(0, 60, 100)] + rng.standard_normal((100, 64)).astype(
        np.float32) * 0.03
    found = 0
    for query in queries / np.linalg.norm(queries, axis=1, keepdims=True):
        best = float((vectors @ query).max())
        hit = store.search(query.tolist(), scope="s", task=TaskKind.LINEAR, k=1)[0]
        found += float(vectors[int(hit.entry.id[1:])] @ query) >= best - 1e-5
    assert found >= 99


def test_upkeep_runs_beside_requests(tmp_path: Path) -> None:
    """While a background build runs, adds and searches return, and see every entry."""
    rng = np.random.default_rng(9)
    vectors = unit(rng, 20_010, dim=64)
    store = LanceStore(tmp_path / "c", 64, consistency_seconds=0.0, optimize_every=0,
                       index_threshold=1000, mirror_limit=0)
    store.add_many([entry(i, vectors[i]) for i in range(20_000)])
    store.optimize()  # returns at once; the build goes on in a thread
    during = []
    for i in range(20_000, 20_010):
        store.add(entry(i, vectors[i]))
        hits = store.search(vectors[i].tolist(), scope="s", task=TaskKind.LINEAR, k=1)
        assert hits[0].entry.id == f"e{i}"
        during.append(store.upkeep_running)
    assert during[0], "the first request waited for the build"
    store.wait_for_upkeep(timeout=600)
    assert store.index_kind() == "IVF_SQ" and store.count() == 20_010
    for i in (0, 20_005):
        hits = store.search(vectors[i].tolist(), scope="s", task=TaskKind.LINEAR, k=1)
        assert hits[0].entry.id == f"e{i}"
