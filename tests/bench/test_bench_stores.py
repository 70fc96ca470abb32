"""Stores a bench mode opens in a temporary directory are closed before it is removed:
real LanceDB stores, read back by their own `closed` flag and from disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from stepchat.bench.stores import temp_stores
from stepchat.core.types import CacheEntry, Step, TaskKind
from stepchat.store.deferred import DeferredTouchStore
from stepchat.store.lance import LanceStore

T0 = 1_767_225_600.0


def entry(entry_id: str) -> CacheEntry:
    return CacheEntry(
        id=entry_id, prompt=f"prompt {entry_id}", vector=[0.6, 0.8], scope="s1",
        task=TaskKind.LINEAR, signature=f"sig-{entry_id}", constraints={},
        steps=[Step("x = 5", "final")], model="m", created=T0, last_hit=T0, hits=0, tokens=7,
    )


def lance(store: object) -> LanceStore:
    assert isinstance(store, DeferredTouchStore) and isinstance(store.inner, LanceStore)
    return store.inner


@pytest.mark.slow
def test_every_store_is_closed_and_its_queued_hits_written_before_the_folder_goes() -> None:
    with temp_stores("stepchat-test-", 2) as stores:
        used = stores.new()
        stores.new()
        used.add(entry("a"))
        used.touch("a", T0 + 5)  # queued in the wrapper until the store is flushed or closed
        directory = stores.directory
        opened = [lance(s) for s in stores.opened]
        assert [s.directory.name for s in opened] == ["store-0", "store-1"]
        assert not any(s.closed for s in opened)
    assert all(s.closed for s in opened)
    assert not directory.exists()
    hit = opened[0]._lru.get("a")  # the queued hit reached the table before it closed
    assert hit is not None and hit.hits == 1 and hit.last_hit == T0 + 5


@pytest.mark.slow
def test_stores_are_closed_when_the_mode_fails() -> None:
    opened = []
    with pytest.raises(RuntimeError, match="the mode failed"), \
            temp_stores("stepchat-test-", 2) as stores:
        stores.new().add(entry("b"))
        opened = list(stores.opened)
        raise RuntimeError("the mode failed")
    assert opened and all(lance(s).closed for s in opened)


def test_the_closed_flag_is_set_by_close_alone(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "c", dim=2)
    store.add(entry("c"))
    assert not store.closed
    store.close()
    assert store.closed
