"""LazyStore and its signature index: structural hits without opening the table, and an
index that never serves an entry the user removed.

Each "process" below is a new LazyStore over the same directory and the same table (the
inner store stands for the LanceDB table on disk), so what one run wrote, the next reads.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from stepchat.core.types import CacheEntry, Step, TaskKind
from stepchat.store.lazy import LazyStore
from stepchat.store.memory import MemoryStore
from stepchat.store.signature_index import INDEX_FILE, SignatureIndex

T0 = 1_767_225_600.0


def entry(entry_id: str, signature: str = "linear|steps|False|vx+n=n", created: float = T0,
          ) -> CacheEntry:
    return CacheEntry(
        id=entry_id, prompt=f"prompt {entry_id}", vector=[0.6, 0.8], scope="s1",
        task=TaskKind.LINEAR, signature=signature,
        constraints={"variable": "x", "slots": ["3", "x", "5", "20"]},
        steps=[Step("3x = 15", "equation", origin="solver"), Step("x = 5", "final")],
        model="m", created=created, last_hit=created, hits=0, tokens=7,
    )


class Table:
    """The table on disk: one MemoryStore shared by every run, and how often it was opened."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.opened = 0
        self.touched: list[tuple[str, float]] = []
        original = self.store.touch

        def touch(entry_id: str, when: float) -> None:
            self.touched.append((entry_id, when))
            original(entry_id, when)

        self.store.touch = touch  # type: ignore[method-assign]

    def run(self, directory: Path) -> LazyStore:
        """A new process's store over this table."""

        def open_store() -> tuple[MemoryStore, list[str]]:
            self.opened += 1
            return self.store, []

        return LazyStore(open_store, SignatureIndex(directory))


@pytest.fixture
def table() -> Table:
    return Table()


def test_a_structural_hit_is_served_without_opening_the_table(
    table: Table, tmp_path: Path
) -> None:
    first = table.run(tmp_path)
    first.add(entry("a"))
    assert table.opened == 1

    second = table.run(tmp_path)
    found = second.find_signature(scope="s1", signature=entry("a").signature)
    assert found is not None and found.id == "a" and found.steps == entry("a").steps
    assert found.constraints == entry("a").constraints
    assert table.opened == 1 and not second.loaded
    assert second.find_signature(scope="s1", signature="another") is None
    assert table.opened == 2  # a structural miss goes on to the table


def test_the_newest_entry_of_a_signature_wins(table: Table, tmp_path: Path) -> None:
    run = table.run(tmp_path)
    run.add(entry("new", created=T0 + 10))
    run.add(entry("old", created=T0))
    found = table.run(tmp_path).find_signature(scope="s1", signature=entry("a").signature)
    assert found is not None and found.id == "new"


def test_entries_cached_before_the_index_existed_join_it_when_found(
    table: Table, tmp_path: Path
) -> None:
    table.store.add(entry("legacy"))  # written without an index
    assert table.run(tmp_path).find_signature(scope="s1", signature=entry("a").signature)
    opened = table.opened
    assert table.run(tmp_path).find_signature(scope="s1", signature=entry("a").signature)
    assert table.opened == opened


def test_hits_served_from_the_index_reach_the_table_later(table: Table, tmp_path: Path) -> None:
    table.run(tmp_path).add(entry("a"))
    reader = table.run(tmp_path)
    assert reader.find_signature(scope="s1", signature=entry("a").signature)
    reader.touch("a", T0 + 60)
    reader.flush()
    assert table.touched == []  # nothing opened the table
    table.run(tmp_path).load()
    assert table.touched == [("a", T0 + 60)]
    table.run(tmp_path).load()
    assert table.touched == [("a", T0 + 60)]  # applied once


@pytest.mark.parametrize("removal", ["delete", "clear"])
def test_a_removed_entry_is_never_served_again(
    table: Table, tmp_path: Path, removal: str
) -> None:
    table.run(tmp_path).add(entry("a"))
    user = table.run(tmp_path)
    if removal == "delete":
        assert user.delete("a")
    else:
        assert user.clear() == 1
    assert table.run(tmp_path).find_signature(scope="s1", signature=entry("a").signature) is None


def test_entries_evicted_inside_the_store_leave_the_index_when_it_is_reconciled(
    table: Table, tmp_path: Path
) -> None:
    run = table.run(tmp_path)
    run.add(entry("a"))
    table.store.delete("a")  # a size or age sweep inside the table
    run.flush()
    assert SignatureIndex(tmp_path).find("s1", entry("a").signature) is None


def test_a_damaged_index_falls_back_to_the_table(
    table: Table, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table.store.add(entry("a"))
    (tmp_path / INDEX_FILE).write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.INFO):
        found = table.run(tmp_path).find_signature(scope="s1", signature=entry("a").signature)
    assert found is not None and found.id == "a"
    assert "signature index" in caplog.text


def test_an_index_that_cannot_forget_an_entry_is_deleted(
    table: Table, tmp_path: Path
) -> None:
    table.run(tmp_path).add(entry("a"))
    index = SignatureIndex(tmp_path)
    index._broken = True  # as after a failed write
    store = LazyStore(lambda: (table.store, []), index)
    assert store.delete("a")
    assert not (tmp_path / INDEX_FILE).exists()
    assert table.run(tmp_path).find_signature(scope="s1", signature=entry("a").signature) is None
