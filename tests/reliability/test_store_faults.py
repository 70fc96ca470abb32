"""Item 5: an unusable, damaged or outdated cache never stops stepchat; the user is told.

- unwritable cache dir: an in-memory cache for this run, and a warning in Parts.warnings
- damaged table files: moved aside as `cache.corrupt-YYYYmmdd-HHMMSS`, a fresh cache starts
- an older schema is migrated (entries kept); a newer one or another vector width is moved
  aside, never deleted, never a crash
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import lancedb
import pyarrow as pa
import pytest

from stepchat.config import Config, load_config
from stepchat.paths import UserPaths
from stepchat.runtime import open_store_or_memory
from stepchat.store.lance import TABLE_NAME, LanceStore
from stepchat.store.maintenance import open_lance as open_or_recover
from stepchat.store.memory import MemoryStore
from tests.reliability.helpers import DIM, EMBED, open_lance
from tests.reliability.worker import entry_for

STAMP = re.compile(r"^cache\.corrupt-\d{8}-\d{6}(-\d+)?$")


def config_at(root: Path) -> Config:
    return load_config(UserPaths(config_dir=root / "config", data_dir=root / "data"))


def test_unwritable_cache_dir_falls_back_to_memory_with_a_warning(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    config.paths.data_dir.mkdir(parents=True)
    config.paths.cache_dir.write_text("a file where the cache directory should be")
    store, warnings = open_store_or_memory(config, DIM)
    assert isinstance(store, MemoryStore)
    assert len(warnings) == 1 and "without a persistent cache" in warnings[0]
    assert "\n" not in warnings[0]


def _damage(directory: Path, part: str) -> None:
    for path in (directory / f"{TABLE_NAME}.lance" / part).rglob("*"):
        if path.is_file():
            path.write_bytes(b"not lance data" * 10)


@pytest.mark.parametrize("part", ["_versions", "data"])
def test_corrupt_table_is_moved_aside_and_a_fresh_cache_starts(tmp_path: Path, part: str) -> None:
    config = config_at(tmp_path)
    directory = config.paths.cache_dir
    first = open_lance(directory)
    first.add(entry_for("a"))
    del first
    _damage(directory, part)

    store, warnings = open_store_or_memory(config, DIM)
    assert not isinstance(store, MemoryStore)
    assert store.count() == 0
    fresh = entry_for("b")
    # Hit now: `entry_for` dates entries to 1970, past the default TTL, and the sweep the
    # write starts would race the read below.
    fresh.created = fresh.last_hit = time.time()
    store.add(fresh)
    assert store.get("b") is not None
    aside = [p for p in directory.parent.iterdir() if p.name != "cache"]
    assert len(aside) == 1 and STAMP.match(aside[0].name), aside
    assert (aside[0] / f"{TABLE_NAME}.lance").exists()  # the user's data is kept
    assert len(warnings) == 1 and str(aside[0]) in warnings[0] and "fresh cache" in warnings[0]


def _write_table(directory: Path, version: str, dim: int, drop: tuple[str, ...] = ()) -> None:
    """A table as another stepchat version would have written it."""
    entry = entry_for("old-1")
    row = {
        "id": entry.id, "prompt": entry.prompt, "vector": EMBED.embed(entry.prompt)[:dim]
        + [0.0] * max(0, dim - DIM), "scope": entry.scope, "task": str(entry.task),
        "signature": entry.signature, "constraints": "{}",
        "steps": '[{"text": "step 0 of old-1", "kind": "equation"}]', "model": "m",
        "created": 5.0, "last_hit": 6.0, "hits": 2, "tokens": 3,
    }
    for name in drop:
        row.pop(name)
    fields = [
        pa.field(k, pa.list_(pa.float32(), dim) if k == "vector" else pa.array([v]).type)
        for k, v in row.items()
    ]
    schema = pa.schema(fields, metadata={b"stepchat.schema_version": version.encode()})
    directory.mkdir(parents=True)
    lancedb.connect(directory).create_table(TABLE_NAME, pa.Table.from_pylist([row], schema))


def test_older_schema_is_migrated_with_its_entries(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    _write_table(directory, "0", DIM, drop=("hits", "tokens", "last_hit"))
    store, notes = open_or_recover(directory, DIM, consistency_seconds=0.0)
    assert len(notes) == 1 and "migrated" in notes[0]
    entry = store.get("old-1")
    assert entry is not None and entry.hits == 0 and entry.last_hit == 5.0
    assert entry.steps[0].text == "step 0 of old-1"
    assert LanceStore(directory, DIM).count() == 1  # reopens without a note
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]


@pytest.mark.parametrize(("version", "dim", "label"), [("99", DIM, "schema-v99"),
                                                      ("1", DIM * 2, f"dim{DIM * 2}")])
def test_newer_schema_or_other_width_is_moved_aside(
    tmp_path: Path, version: str, dim: int, label: str
) -> None:
    directory = tmp_path / "cache"
    _write_table(directory, version, dim)
    store, notes = open_or_recover(directory, DIM)
    assert store.count() == 0 and len(notes) == 1 and "fresh cache" in notes[0]
    aside = [p.name for p in tmp_path.iterdir() if p.name != "cache"]
    assert len(aside) == 1 and aside[0].startswith(f"cache.{label}-")
