"""The Store contract, run against every store, plus what only the LanceDB store promises.

MemoryStore is the fake the pipeline tests use; if it and LanceStore disagree on any of these,
those tests prove nothing about the real cache.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from stepchat.core.listing import EntryPage, summary_of
from stepchat.core.ports import MaintainedStore, Store, StoreError
from stepchat.core.types import CacheEntry, Step, TaskKind
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.deferred import DeferredTouchStore
from stepchat.store.lance import LanceStore, sql_str
from stepchat.store.lazy import LazyStore
from stepchat.store.memory import MemoryStore
from stepchat.store.shared import SharedStore
from stepchat.store.signature_index import SignatureIndex

DIM = 64
EMBED = HashedEmbedder(dim=DIM)
T0 = 1_767_225_600.0


def make_entry(
    entry_id: str,
    prompt: str,
    *,
    scope: str = "s1",
    task: TaskKind = TaskKind.LINEAR,
    signature: str = "sig-a",
    created: float = T0,
    last_hit: float | None = None,
) -> CacheEntry:
    return CacheEntry(
        id=entry_id,
        prompt=prompt,
        vector=EMBED.embed(prompt),
        scope=scope,
        task=task,
        signature=signature,
        constraints={"variable": "x", "numbers": [3, 5, 20], "note": "it's"},
        steps=[
            Step("3x + 5 = 20", "equation"),
            Step("3x = 15", "equation", origin="model", tokens=4),
            Step("x = 5", "final"),
            Step('"name": "Bob"', "member", key="name"),
        ],
        model="smollm2-135m",
        created=created,
        last_hit=created if last_hit is None else last_hit,
        hits=0,
        tokens=42,
    )


def open_lance(path: Path, **kwargs: object) -> LanceStore:
    return LanceStore(path, DIM, consistency_seconds=0.0, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(
    params=["memory", "lance", "lance-no-mirror", "deferred", "bucket", "lazy", "shared"]
)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MaintainedStore]:
    """Every store the app can be handed: in memory, on local disk (searched in the in-memory
    mirror, or through LanceDB as big tables are), `deferred` (LanceDB with hit counts queued
    off the fast path) and in an S3 bucket (SeaweedFS on loopback); `lazy` and `shared` are
    what the app, `ask` and `serve` receive for a local cache (opened on first need, the
    signature index in front) and for a bucket (answering as a miss while it is down)."""
    if request.param == "lazy":
        where = tmp_path / "cache"
        yield LazyStore(
            lambda: (DeferredTouchStore(open_lance(where)), []), SignatureIndex(where)
        )
    elif request.param == "shared":
        uri = request.getfixturevalue("bucket_uri")
        shared = SharedStore(
            lambda: DeferredTouchStore(LanceStore(uri, DIM, consistency_seconds=0.0)), name=uri
        )
        yield LazyStore(lambda: (shared, []))
    elif request.param == "memory":
        yield MemoryStore()
    elif request.param == "lance":
        yield open_lance(tmp_path / "cache")
    elif request.param == "lance-no-mirror":
        yield open_lance(tmp_path / "cache", mirror_limit=0)
    elif request.param == "deferred":
        yield DeferredTouchStore(open_lance(tmp_path / "cache"))
    else:
        yield LanceStore(request.getfixturevalue("bucket_uri"), DIM, consistency_seconds=0.0)


@pytest.fixture
def lance_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


# ---------------------------------------------------------------------------- contract


def test_store_satisfies_protocol(store: Store) -> None:
    assert isinstance(store, Store) and isinstance(store, MaintainedStore)


def assert_every_field(got: CacheEntry | None, entry: CacheEntry) -> None:
    """`got` is `entry` as stored: the same in every field (vectors to float32)."""
    assert got is not None
    assert (got.id, got.prompt, got.scope, got.signature) == (
        entry.id, entry.prompt, entry.scope, entry.signature
    )
    assert got.task == entry.task
    assert got.constraints == entry.constraints
    assert got.steps == entry.steps
    assert got.steps[3].key == "name" and got.steps[0].key is None
    assert (got.model, got.created, got.last_hit, got.hits, got.tokens) == (
        entry.model,
        entry.created,
        entry.last_hit,
        0,
        42,
    )
    assert got.vector == pytest.approx(entry.vector, abs=1e-6)


def test_add_then_get_round_trips_every_field(store: Store) -> None:
    entry = make_entry("e1", "Solve 3x + 5 = 20 for x.")
    store.add(entry)
    assert_every_field(store.get("e1"), entry)
    assert store.count() == 1
    assert store.get("missing") is None


def test_search_hits_carry_every_field(store: Store) -> None:
    """A hit is the whole entry, whichever path the search took (the table search does not
    read the scope and task its filter fixes: they must still be the entry's own)."""
    json_entry = make_entry("j1", "Give the name as JSON.", scope="s2", task=TaskKind.JSON,
                            signature="sig-j")
    linear = make_entry("e1", "Solve 3x + 5 = 20 for x.")
    store.add(json_entry)
    store.add(linear)
    for entry in (json_entry, linear):
        hits = store.search(EMBED.embed(entry.prompt), scope=entry.scope, task=entry.task)
        assert [h.entry.id for h in hits] == [entry.id]
        assert_every_field(hits[0].entry, entry)


def test_search_is_scoped_by_scope_and_task(store: Store) -> None:
    store.add(make_entry("lin-a", "Solve 3x + 5 = 20 for x."))
    store.add(make_entry("lin-b", "Solve 4y - 2 = 10 for y.", created=T0 + 1))
    store.add(make_entry("json-a", "Solve 3x + 5 = 20 for x.", task=TaskKind.JSON))
    store.add(make_entry("other-scope", "Solve 3x + 5 = 20 for x.", scope="s2"))

    hits = store.search(EMBED.embed("Solve 3x + 5 = 20 for x."), scope="s1", task=TaskKind.LINEAR)
    assert [h.entry.id for h in hits] == ["lin-a", "lin-b"]
    assert hits[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert hits[0].similarity > hits[1].similarity
    assert all(h.entry.scope == "s1" and h.entry.task == TaskKind.LINEAR for h in hits)

    only_json = store.search(EMBED.embed("anything"), scope="s1", task=TaskKind.JSON)
    assert [h.entry.id for h in only_json] == ["json-a"]
    assert store.search(EMBED.embed("x"), scope="nobody", task=TaskKind.LINEAR) == []


def test_search_honours_k(store: Store) -> None:
    for i in range(6):
        store.add(make_entry(f"e{i}", f"Solve {i}x + 1 = 7 for x.", created=T0 + i))
    hits = store.search(
        EMBED.embed("Solve 2x + 1 = 7 for x."), scope="s1", task=TaskKind.LINEAR, k=3
    )
    assert len(hits) == 3
    assert hits[0].entry.id == "e2"
    sims = [h.similarity for h in hits]
    assert sims == sorted(sims, reverse=True)


def test_filter_values_with_quotes_are_escaped(store: Store) -> None:
    store.add(make_entry("q", "Solve x = 1.", scope="o'brien"))
    store.add(make_entry("plain", "Solve x = 1.", scope="o"))
    hits = store.search(EMBED.embed("Solve x = 1."), scope="o'brien", task=TaskKind.LINEAR)
    assert [h.entry.id for h in hits] == ["q"]
    assert store.search(EMBED.embed("x"), scope="o' OR '1'='1", task=TaskKind.LINEAR) == []
    found = store.find_signature(scope="o'brien", signature="sig-a")
    assert found is not None and found.id == "q"


def test_find_signature_returns_newest_in_scope(store: Store) -> None:
    store.add(make_entry("old", "Solve 3x + 5 = 20.", created=T0))
    store.add(make_entry("new", "Solve 3x + 7 = 20.", created=T0 + 10))
    store.add(make_entry("elsewhere", "Solve 3x + 9 = 20.", scope="s2", created=T0 + 20))
    store.add(make_entry("other-sig", "Solve x = 1.", signature="sig-b", created=T0 + 30))
    found = store.find_signature(scope="s1", signature="sig-a")
    assert found is not None and found.id == "new"
    assert store.find_signature(scope="s1", signature="sig-zzz") is None
    assert store.find_signature(scope="s3", signature="sig-a") is None
    assert store.delete("new")
    fallback = store.find_signature(scope="s1", signature="sig-a")
    assert fallback is not None and fallback.id == "old"


def test_touch_counts_hits_and_reorders_entries(store: Store) -> None:
    store.add(make_entry("a", "Solve x + 1 = 2.", created=T0, last_hit=T0))
    store.add(make_entry("b", "Solve x + 2 = 3.", created=T0 + 1, last_hit=T0 + 1))
    store.add(make_entry("c", "Solve x + 3 = 4.", created=T0 + 2, last_hit=T0 + 2))
    assert [e.id for e in store.entries()] == ["c", "b", "a"]

    store.get("a")  # warm any in-memory copy: touch must update it too
    store.touch("a", T0 + 100)
    store.touch("a", T0 + 200)
    store.touch("missing", T0 + 300)
    got = store.get("a")
    assert got is not None and got.hits == 2 and got.last_hit == T0 + 200
    assert [e.id for e in store.entries()] == ["a", "c", "b"]
    assert [e.id for e in store.entries(limit=2)] == ["a", "c"]
    assert store.entries()[0].hits == 2


def test_listing_pages_summaries_newest_hit_first(store: Store) -> None:
    """A listing row says what the entry says (step count, hits, size against the limit),
    pages follow one order, and queued hits count (the table lists what lookups see)."""
    added = [
        make_entry(f"e{i}", f"Solve x + {i} = {i + 1}.", created=T0 + i, last_hit=T0 + i)
        for i in range(5)
    ]
    for entry in added:
        store.add(entry)
    store.touch("e1", T0 + 100)
    first = store.listing(limit=2)
    assert first.matched == 5
    assert [row.id for row in first.rows] == ["e1", "e4"]
    assert [row.id for row in store.listing(offset=2, limit=2).rows] == ["e3", "e2"]
    assert [row.id for row in store.listing(offset=4, limit=2).rows] == ["e0"]
    assert [row.id for row in store.listing().rows] == ["e1", "e4", "e3", "e2", "e0"]
    row = first.rows[0]
    assert summary_of(added[1]) == replace(row, hits=0, last_hit=T0 + 1)
    assert (row.hits, row.last_hit, row.steps) == (1, T0 + 100, 4)
    assert row.size == added[1].size_bytes()


def test_listing_filters_on_prompt_task_model_and_id(store: Store) -> None:
    store.add(make_entry("lin-1", "Solve for x: 3x + 5 = 20.", last_hit=T0 + 2))
    store.add(make_entry("lin-2", "Solve for y: 2y = 8.", last_hit=T0 + 1))
    store.add(make_entry("js-1", "Return JSON for Bob.", task=TaskKind.JSON, last_hit=T0))
    assert [r.id for r in store.listing(needle="SOLVE for").rows] == ["lin-1", "lin-2"]
    assert [r.id for r in store.listing(needle="json").rows] == ["js-1"]
    assert [r.id for r in store.listing(needle="smollm2 js-").rows] == ["js-1"]
    narrowed = store.listing(needle="solve 2y")
    assert [r.id for r in narrowed.rows] == ["lin-2"] and narrowed.matched == 1
    page = store.listing(needle="solve", offset=1, limit=5)
    assert [r.id for r in page.rows] == ["lin-2"] and page.matched == 2
    assert store.listing(needle="nothing-like-it") == EntryPage([], 0)
    assert store.clear() == 3
    assert store.listing() == EntryPage([], 0)


def test_delete_and_clear(store: Store) -> None:
    store.add(make_entry("a", "Solve x + 1 = 2."))
    store.add(make_entry("b", "Solve x + 2 = 3.", created=T0 + 1))
    assert store.delete("a") is True
    assert store.delete("a") is False
    assert store.get("a") is None
    hits = store.search(EMBED.embed("Solve x + 1 = 2."), scope="s1", task=TaskKind.LINEAR)
    assert [h.entry.id for h in hits] == ["b"]
    assert store.count() == 1
    assert store.clear() == 1
    assert store.count() == 0
    assert store.entries() == []
    assert store.find_signature(scope="s1", signature="sig-a") is None
    store.add(make_entry("c", "Solve x + 3 = 4."))
    assert store.count() == 1


def test_add_with_same_id_replaces(store: Store) -> None:
    store.add(make_entry("a", "Solve x + 1 = 2."))
    store.add(make_entry("a", "Solve x + 9 = 10.", signature="sig-b", created=T0 + 5))
    assert store.count() == 1
    got = store.get("a")
    assert got is not None and got.prompt == "Solve x + 9 = 10."
    assert store.find_signature(scope="s1", signature="sig-b") is not None
    assert store.find_signature(scope="s1", signature="sig-a") is None


def test_returned_entries_are_copies(store: Store) -> None:
    store.add(make_entry("a", "Solve x + 1 = 2."))
    got = store.get("a")
    assert got is not None
    got.hits = 99
    got.constraints["variable"] = "changed"
    got.steps.append(Step("junk", "prose"))
    again = store.get("a")
    assert again is not None
    assert again.hits == 0 and again.constraints["variable"] == "x" and len(again.steps) == 4


# ---------------------------------------------------------------------------- LanceDB only


def test_lance_persists_across_reopen(lance_dir: Path) -> None:
    first = open_lance(lance_dir)
    first.add(make_entry("a", "Solve 3x + 5 = 20 for x."))
    first.add(make_entry("b", "Return JSON with keys name, age.", task=TaskKind.JSON))
    first.touch("a", T0 + 50)
    del first

    second = open_lance(lance_dir)
    assert second.count() == 2
    got = second.get("a")
    assert got is not None and got.hits == 1 and got.last_hit == T0 + 50
    assert got.steps[-1] == Step('"name": "Bob"', "member", key="name")
    found = second.find_signature(scope="s1", signature="sig-a")
    assert found is not None
    hits = second.search(
        EMBED.embed("Return JSON with keys name, age."), scope="s1", task=TaskKind.JSON
    )
    assert [h.entry.id for h in hits] == ["b"]


def test_lance_sees_writes_of_another_handle(lance_dir: Path) -> None:
    reader = open_lance(lance_dir)
    writer = open_lance(lance_dir)
    assert reader.find_signature(scope="s1", signature="sig-a") is None
    writer.add(make_entry("w", "Solve x + 1 = 2."))
    found = reader.find_signature(scope="s1", signature="sig-a")
    assert found is not None and found.id == "w"
    writer.touch("w", T0 + 9)
    got = reader.get("w")
    assert got is not None and got.hits == 1
    writer.delete("w")
    assert reader.get("w") is None


def test_lance_directory_is_private(lance_dir: Path) -> None:
    open_lance(lance_dir)
    assert stat.S_IMODE(os.stat(lance_dir).st_mode) == 0o700


def test_lance_unusable_directory_is_a_one_line_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    with pytest.raises(StoreError) as info:
        open_lance(blocker / "cache")
    assert "\n" not in str(info.value) and "not-a-dir" in str(info.value)


def test_lance_corrupt_table_is_a_one_line_store_error(lance_dir: Path) -> None:
    store = open_lance(lance_dir)
    store.add(make_entry("a", "Solve x + 1 = 2."))
    del store
    manifests = list((lance_dir / "entries.lance" / "_versions").iterdir())
    assert manifests
    for manifest in manifests:
        manifest.write_bytes(b"this is not a lance manifest")
    with pytest.raises(StoreError) as info:
        open_lance(lance_dir)
    assert "\n" not in str(info.value)


def test_lance_refuses_a_table_of_another_dimension(lance_dir: Path) -> None:
    open_lance(lance_dir).add(make_entry("a", "Solve x + 1 = 2."))
    with pytest.raises(StoreError, match="dimensions"):
        LanceStore(lance_dir, DIM * 2)


def test_lance_rejects_vectors_of_the_wrong_size(lance_dir: Path) -> None:
    store = open_lance(lance_dir)
    entry = make_entry("a", "Solve x + 1 = 2.")
    entry.vector = entry.vector[:-1]
    with pytest.raises(StoreError):
        store.add(entry)
    with pytest.raises(StoreError):
        store.search([0.0] * (DIM + 1), scope="s1", task=TaskKind.LINEAR)


def test_lance_searches_the_table_once_it_outgrows_its_mirror(lance_dir: Path) -> None:
    """The add that takes the table past `mirror_limit` ends the in-memory search at once,
    not at the next reload, and what was stored is found in the table."""
    store = open_lance(lance_dir, mirror_limit=2, optimize_every=0)
    first, second, third = (make_entry(f"e{i}", f"Solve {i}x + 5 = 20 for x.", signature=f"s{i}")
                            for i in range(3))
    store.add(first)
    store.add(second)
    assert store.search_path() == "mirror"
    store.add(third)
    assert store.search_path() != "mirror"
    hits = store.search(EMBED.embed(third.prompt), scope="s1", task=TaskKind.LINEAR)
    assert hits[0].entry.id == "e2"
    assert_every_field(hits[0].entry, third)


def test_lance_optimizes_fragments_periodically(lance_dir: Path) -> None:
    store = open_lance(lance_dir, optimize_every=5)
    for i in range(4):
        store.add(make_entry(f"e{i}", f"Solve x + {i} = 9.", created=T0 + i))
    assert store.stats()["fragments"] == 4
    store.add(make_entry("e4", "Solve x + 4 = 9.", created=T0 + 4))
    store.wait_for_upkeep(timeout=60)  # compaction runs in the background
    stats = store.stats()
    assert stats["fragments"] == 1
    assert stats["rows"] == 5 and stats["index"] == "flat"
    assert stats["disk_bytes"] > 0 and stats["data_bytes"] > 0
    assert store.get("e3") is not None


def test_lance_index_keeps_exact_top_hit(lance_dir: Path) -> None:
    store = open_lance(lance_dir, index_threshold=600, optimize_every=0, mirror_limit=0)
    prompts = [f"Solve {i}x + {i % 7} = {i * 3} for x, then check item {i}." for i in range(600)]
    for i, prompt in enumerate(prompts):
        store.add(make_entry(f"e{i}", prompt, created=T0 + i, signature=f"sig-{i}"))
    assert store.index_kind() == "flat"
    store.optimize()  # starts the build in the background
    hits = store.search(EMBED.embed(prompts[5]), scope="s1", task=TaskKind.LINEAR, k=1)
    assert hits[0].entry.id == "e5"  # searches keep working meanwhile
    store.wait_for_upkeep(timeout=120)
    assert not store.upkeep_running
    assert store.index_kind() == "IVF_SQ"
    for i in (0, 17, 333, 599):
        hits = store.search(EMBED.embed(prompts[i]), scope="s1", task=TaskKind.LINEAR, k=1)
        assert hits[0].entry.id == f"e{i}"
        assert hits[0].similarity == pytest.approx(1.0, abs=1e-4)


def test_lance_listing_never_waits_for_the_store_lock(lance_dir: Path) -> None:
    """Lookups hold the store lock; the inspector's listing reads beside them, so neither
    waits for the other (a whole-table read under the lock stalled answers at 50k)."""
    store = open_lance(lance_dir)
    store.add(make_entry("a", "Solve x + 1 = 2."))
    held, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        with store._lock:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert held.wait(10)
        with ThreadPoolExecutor(1) as pool:
            page = pool.submit(store.listing, limit=10).result(timeout=10)
        assert [row.id for row in page.rows] == ["a"]
    finally:
        release.set()
        holder.join()


def test_lance_eviction_by_age_and_limits(lance_dir: Path) -> None:
    store = open_lance(lance_dir)
    for i in range(10):
        store.add(make_entry(f"e{i}", f"Solve x + {i} = 9.", created=T0 + i, last_hit=T0 + i))
    store.touch("e0", T0 + 100)
    assert store.evict_older_than(5, now=T0 + 10) == 4  # e1..e4 were last hit before T0+5
    assert sorted(e.id for e in store.entries()) == ["e0", "e5", "e6", "e7", "e8", "e9"]
    assert store.evict_to_limits(max_entries=3, max_bytes=10**9) == 3
    assert [e.id for e in store.entries()] == ["e0", "e9", "e8"]
    one = store.entries()[0].size_bytes()
    assert store.evict_to_limits(max_entries=100, max_bytes=one) == 2
    assert [e.id for e in store.entries()] == ["e0"]
    assert store.evict_to_limits(max_entries=100, max_bytes=10**9) == 0


def test_sql_str_doubles_quotes_and_refuses_nul() -> None:
    assert sql_str("o'brien") == "'o''brien'"
    with pytest.raises(StoreError):
        sql_str("a\x00b")


def test_signature_ids_name_the_newest_entry_per_signature(store: MaintainedStore) -> None:
    """What a signature index is reconciled against: both stores must report the same."""
    store.add(make_entry("old", "Solve 3x + 5 = 20", created=T0))
    store.add(make_entry("new", "Solve 3x + 7 = 20", created=T0 + 5))
    store.add(make_entry("other", "Solve 2x = 4", signature="sig-b", created=T0 + 1))
    ids = store.signature_ids()
    assert ids == {("s1", "sig-a"): "new", ("s1", "sig-b"): "other"}
    store.delete("new")
    assert store.signature_ids()[("s1", "sig-a")] == "old"


def test_eviction_by_age_stats_and_closing(store: MaintainedStore) -> None:
    """The maintenance half of the contract: a hit (queued or not) keeps an entry from an
    age eviction, the figures count what is left, and flush/close may be called twice."""
    for i in range(4):
        store.add(make_entry(f"e{i}", f"Solve x + {i} = 9.", created=T0 + i, last_hit=T0 + i))
    store.touch("e0", T0 + 100)
    assert store.evict_older_than(2, now=T0 + 5) == 2  # e1 and e2; e0 was hit since
    store.purge()
    assert sorted(e.id for e in store.entries()) == ["e0", "e3"]
    assert store.stats()["rows"] == 2
    store.flush()
    store.close()
    store.close()
    assert store.count() == 2


class SlowTouches(MemoryStore):
    """A store whose hit writes take a while, like a LanceDB update on a busy disk."""

    def touch(self, entry_id: str, when: float) -> None:
        time.sleep(0.02)
        super().touch(entry_id, when)


def test_deferred_hits_are_never_seen_half_written() -> None:
    """The answer worker queues hits while the inspector reads: a read during a flush sees
    every queued hit, written or still queued, and hits queued meanwhile are all kept."""
    deferred = DeferredTouchStore(SlowTouches(), max_pending=1000)
    deferred.add(make_entry("a", "Solve x + 1 = 2."))
    for i in range(10):
        deferred.touch("a", T0 + i)
    flushing = threading.Thread(target=deferred.flush)
    flushing.start()
    time.sleep(0.05)  # a few hits are written, the rest are in flight
    seen = deferred.get("a")
    queuing = [threading.Thread(target=deferred.touch, args=("a", T0 + 50)) for _ in range(5)]
    for thread in queuing:
        thread.start()
    for thread in (flushing, *queuing):
        thread.join()
    assert seen is not None and seen.hits == 10
    again = deferred.get("a")
    assert again is not None and again.hits == 15


def test_queued_hits_reach_the_store_soon_without_another_request() -> None:
    """A server that serves one hit and then idles wrote it only on exit: `cache list` run
    beside it showed no hit, and `cache evict --older-than` removed the entry just hit."""
    inner = MemoryStore()
    deferred = DeferredTouchStore(inner, flush_after=0.05)
    deferred.add(make_entry("a", "Solve x + 1 = 2."))
    deferred.touch("a", T0 + 5)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and inner.get("a").hits == 0:  # type: ignore[union-attr]
        time.sleep(0.01)
    written = inner.get("a")
    assert written is not None and (written.hits, written.last_hit) == (1, T0 + 5)
    deferred.touch("a", T0 + 6)  # the next hit starts the timer again
    deferred.close()
    assert inner.get("a").hits == 2  # type: ignore[union-attr]
