"""Issue 12 item 4: an evicted prompt leaves no readable trace in the cache folder.

LanceDB only marks a deleted row in a deletion file; its text stays in the data file (and
in older table versions) until a compaction rewrites that file, which it does for a
fragment whose deletions are a small share only when merging it with a neighbour. The
tables here hold 40 entries in one fragment, so one eviction is 2.5% of it. Each test greps
every file under the cache folder for the evicted prompt's marker, and for a kept one (the
control: the search does find text that is there).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.widgets import DataTable

from stepchat.core.types import CacheEntry, Step, TaskKind
from stepchat.embed.hashed import HashedEmbedder
from stepchat.runtime import EMBED_DIM
from stepchat.store.lance import LanceStore
from tests.reliability.helpers import app_on_fakes, fake_cli

NOW = time.time()


def marker(i: int) -> str:
    return f"zq{i:03d}marker{i * 7919 % 100_000:05d}"


def entry(i: int, dim: int, last_hit: float = NOW) -> CacheEntry:
    prompt = f"Tell me about the private project {marker(i)}."
    embedder = HashedEmbedder(dim=dim)
    return CacheEntry(
        id=f"e{i}", prompt=prompt, vector=embedder.embed(prompt), scope="s",
        task=TaskKind.TEXT, signature=f"sig{i}", constraints={},
        steps=[Step(f"Project {marker(i)} is private.", "paragraph")], model="m",
        created=last_hit, last_hit=last_hit,
    )


def holders(directory: Path, text: str) -> list[str]:
    """Files under `directory` whose bytes contain `text`."""
    needle = text.encode()
    return [str(p.relative_to(directory)) for p in directory.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


def filled(directory: Path, dim: int, old: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    store = LanceStore(directory, dim, consistency_seconds=0.0)
    store.add_many([entry(i, dim, NOW - 30 * 86400 if i in old else NOW) for i in range(40)])
    store.compact()
    assert store.stats()["fragments"] == 1
    assert holders(directory, marker(7)) and holders(directory, marker(8))


def cli(home: Path, *args: str) -> str:
    return fake_cli(home, *args).stdout


def test_cache_evict_leaves_no_trace(tmp_path: Path) -> None:
    cache = tmp_path / "data" / "cache"
    filled(cache, EMBED_DIM)
    assert cli(tmp_path, "cache", "evict", "e7").strip() == "evicted e7"
    assert holders(cache, marker(7)) == []
    assert holders(cache, marker(8))  # the others are still there
    assert LanceStore(cache, EMBED_DIM).count() == 39


def test_evict_older_than_leaves_no_trace(tmp_path: Path) -> None:
    cache = tmp_path / "data" / "cache"
    filled(cache, EMBED_DIM, old={7, 9})
    assert cli(tmp_path, "cache", "evict", "--older-than", "7d").startswith("evicted 2 ")
    assert holders(cache, marker(7)) == [] and holders(cache, marker(9)) == []
    assert holders(cache, marker(8))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("key", ["d", "w"])
async def test_inspector_eviction_leaves_no_trace(tmp_path: Path, key: str) -> None:
    from stepchat.tui.screens.inspector import InspectorScreen
    from tests.tui.conftest import FakeLoader, settle

    cache = tmp_path / "cache"
    loader = FakeLoader(["x = 5"])
    filled(cache, loader.embedder.dim)
    loader.store = LanceStore(cache, loader.embedder.dim, consistency_seconds=0.0)  # type: ignore[assignment]
    app = app_on_fakes(tmp_path, loader)
    async with app.run_test(size=(110, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        row = [e.id for e in screen._visible()].index("e7")
        screen.query_one("#entries", DataTable).move_cursor(row=row, animate=False)
        await pilot.pause()
        await pilot.press(key)
        await settle(pilot)
        assert loader.store.count() == 39
    assert holders(cache, marker(7)) == []
    assert holders(cache, marker(8))


def test_evicting_an_answered_prompt_clears_the_signature_index_too(tmp_path: Path) -> None:
    """Entries `ask` stores are also kept by the signature index (SQLite, with a journal):
    the evicted prompt must be gone from those files as well."""
    import json

    cache = tmp_path / "data" / "cache"
    stored = [json.loads(cli(tmp_path, "ask", "--json", f"Solve for x: {i + 2}x + 5 = 20 "
                             f"(project {marker(i)})."))["stored_entry"] for i in range(2)]
    cli(tmp_path, "ask", "Solve for x: 2x + 5 = 20 (project zz)")  # a hit from the index
    assert any(name.startswith("signatures") for name in holders(cache, marker(0)))
    assert cli(tmp_path, "cache", "evict", stored[0]).strip() == f"evicted {stored[0]}"
    assert holders(cache, marker(0)) == []
    assert holders(cache, marker(1))
