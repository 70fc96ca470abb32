"""Issue 12 item 5: a full disk never throws a computed answer away.

On a 2 MB tmpfs filled to the last block, `ask` used to print only `touch failed: No space
left on device` (a reuse) or `add failed…` (a new answer) and exit 2. The answer is printed,
then one line says it was not cached (or its hit not recorded), exit 0; once there is room
again the cache works as before. Where a tmpfs cannot be mounted (not root), the same run
makes every LanceDB write fail with the same error at the store boundary.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from stepchat.core.ports import StoreError
from stepchat.core.types import CacheEntry
from stepchat.store.memory import MemoryStore
from tests.reliability.helpers import app_on_fakes, fake_cli

KNOWN = "Solve for x: 3x + 5 = 20. Show each step."
NEW = "Solve for y: 9y - 4 = 2y + 10. Show each step."  # unknown on both sides: a skip


@dataclass
class Disk:
    """A STEPCHAT_HOME on a disk that can be filled up and emptied again."""

    home: Path
    mount: Path | None
    env: dict[str, str] = field(default_factory=dict)

    def fill(self) -> None:
        if self.mount is None:
            self.env["STEPCHAT_TEST_FULL_DISK"] = "1"
            return
        fd = os.open(self.mount / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass  # ENOSPC: full
        finally:
            os.close(fd)
        assert os.statvfs(self.mount).f_bavail == 0

    def empty(self) -> None:
        self.env.pop("STEPCHAT_TEST_FULL_DISK", None)
        if self.mount is not None:
            (self.mount / "filler").unlink()

    def ask(self, *args: str) -> subprocess.CompletedProcess[str]:
        return fake_cli(self.home, "ask", *args, env=self.env, check=False)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
                             capture_output=True).returncode == 0
    try:
        yield Disk(mount / "home", mount if mounted else None)
    finally:
        if mounted:
            subprocess.run(["umount", str(mount)], check=False)


def _answer_then_one_warning(out: subprocess.CompletedProcess[str], final: str, words: str
                             ) -> None:
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == final
    warning = out.stderr.strip().splitlines()
    assert len(warning) == 1 and words in warning[0], out.stderr
    assert "No space left on device" in warning[0] and "Traceback" not in out.stderr


def test_full_disk_prints_the_answer_and_warns_once(disk: Disk) -> None:
    first = disk.ask(KNOWN)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    disk.fill()

    reuse = disk.ask(KNOWN)  # served from the cache; recording the hit needs the disk
    _answer_then_one_warning(reuse, "x = 5", "hit")
    assert reuse.stdout == first.stdout

    new = disk.ask(NEW)  # computed, then the store cannot take it
    _answer_then_one_warning(new, "y = 2", "the answer was not cached")

    disk.empty()
    again = disk.ask("--json", NEW)
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert '"stored_entry": "' in again.stdout  # the cache works again, nothing was lost


class FullStore(MemoryStore):
    """An in-memory store whose writes fail like a full disk."""

    def add(self, entry: CacheEntry) -> None:
        raise StoreError("cache store: add failed: No space left on device (os error 28)")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_full_disk_in_the_app_shows_the_answer_and_a_warning(tmp_path: Path) -> None:
    from tests.tui.conftest import FakeLoader, ask, settle

    loader = FakeLoader(["x = 5"])
    loader.store = FullStore()
    app = app_on_fakes(tmp_path, loader)
    async with app.run_test(size=(110, 36)) as pilot:
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        turn = app.conversation.turns[0]
        assert turn.error is None and turn.answer is not None
        assert turn.answer.text.splitlines()[-1] == "x = 5"
        toasts = [n.message for n in app._notifications]
        assert any("not cached" in t and "No space left" in t for t in toasts), toasts
