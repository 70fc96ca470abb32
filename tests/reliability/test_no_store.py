"""Issue 12 item 10: no-store means no byte written.

`ask --no-store` after a stored answer used to record the hit (a transaction, a manifest
and a data file), and on a fresh home it created the table; the app's no-store toggle still
saved the prompt to the conversation history. The CLI runs are compared as whole trees:
every path under $STEPCHAT_HOME with its size, mtime (ns) and mode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reliability.helpers import app_on_fakes, fake_cli

PROMPT = "Solve for x: 3x + 5 = 20. Show each step."


def tree(root: Path) -> dict[str, tuple[int, int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns, p.stat().st_mode)
        for p in [root, *root.rglob("*")]
    }


def test_no_store_after_a_stored_answer_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    stored = json.loads(fake_cli(home, "ask", "--json", PROMPT).stdout)
    assert stored["stored_entry"]
    before = tree(home)
    hit = json.loads(fake_cli(home, "ask", "--no-store", "--json", PROMPT).stdout)
    miss = json.loads(fake_cli(home, "ask", "--no-store", "--json", "Solve for y: 7y - 2 = 12.")
                      .stdout)
    assert hit["path"] == "reuse-only" and hit["answer"] == stored["answer"]
    assert miss["path"] != "reuse-only" and miss["answer"].endswith("y = 2")
    after = tree(home)
    assert after == before, sorted(set(after.items()) ^ set(before.items()))[:6]


def test_no_store_on_a_fresh_home_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    out = fake_cli(home, "ask", "--no-store", PROMPT)
    assert out.stdout.strip().endswith("x = 5") and out.stderr == ""
    assert list(home.iterdir()) == []



@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_apps_no_store_toggle_saves_no_history(tmp_path: Path) -> None:
    from tests.tui.conftest import FakeLoader, ask, settle

    loader = FakeLoader(["x = 5"])
    app = app_on_fakes(tmp_path, loader)
    paths = app.config.paths
    async with app.run_test(size=(110, 36)) as pilot:
        await settle(pilot)
        app.action_toggle_store()
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        assert app.conversation.turns[0].answer is not None  # answered
        assert loader.store.count() == 0
        assert not paths.history_dir.exists() or list(paths.history_dir.iterdir()) == []
        app.action_toggle_store()
        await pilot.press("ctrl+n")  # a chat's first turn: a follow-up is never cached
        await settle(pilot)
        await ask(pilot, "Solve 4x + 5 = 21 for x.")
        assert loader.store.count() == 1
        assert len(list(paths.history_dir.iterdir())) == 1  # storing again: saved
