"""Issue 12 item 1: a 98-character prompt must not exhaust memory, and Esc must stop work.

`Solve for x: ((((x)^4)^4)...)^4 = 1` grew ~90 MB/s to a MemoryError: the exponent and depth
limits did not bound compounded powers, and sympy expanded a polynomial of degree 4^20. The
parser now bounds degree, terms and coefficient size before anything is built.

Every run that could regress is a subprocess under a hard address-space cap
(`RLIMIT_AS`, 1.5 GB; the runs need < 100 MB), so a regression fails in seconds with a
MemoryError instead of taking the CI machine down.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.bounded_work import BOMBS
from tests.reliability.helpers import app_on_fakes

ROOT = Path(__file__).resolve().parents[2]
CAP_BYTES = 1536 * 2**20


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def run_capped(args: list[str], env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, preexec_fn=_capped,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})},
                          capture_output=True, text=True, timeout=300)


def test_nested_powers_in_prompts_and_replies_stay_small() -> None:
    out = run_capped(["tests.reliability.bounded_work", "core"])
    assert out.returncode == 0, out.stderr[-1500:]
    result = json.loads(out.stdout)
    print(f"pipeline over {len(BOMBS)} nested-power prompts and replies: {result}")
    assert result["peak_mb"] < 400


def test_the_issues_prompt_through_the_cli(tmp_path: Path) -> None:
    out = run_capped(["tests.reliability.fake_cli", "ask", BOMBS[0]],
                     env={"STEPCHAT_HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-1500:]
    assert out.stdout.strip() and "Traceback" not in out.stderr


def test_the_app_answers_it_and_the_next_question() -> None:
    out = run_capped(["tests.reliability.bounded_work", "app"])
    assert out.returncode == 0, out.stderr[-1500:]
    result = json.loads(out.stdout)
    print(f"app: {result}")
    first, second = result["answers"]
    assert first and second and second.endswith("x = 5")


class GatedEmbedder:
    """The hashed embedder, held at a gate while the test presses Esc (slow work)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.entered, self.gate = threading.Event(), threading.Event()

    def embed(self, text: str) -> list[float]:
        self.entered.set()
        self.gate.wait(timeout=60)
        return list(self.inner.embed(text))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_escape_reaches_work_the_model_is_not_doing(tmp_path: Path) -> None:
    """Solver-first answers an equation without the model, the only place cancel was
    looked at. Esc while the request is busy elsewhere must still end it, store nothing,
    and leave the app free for the next question."""
    from tests.tui.conftest import FakeLoader, ask, settle

    loader = FakeLoader(["unused"])
    gated = GatedEmbedder(loader.embedder)
    loader.embedder = gated  # type: ignore[assignment]
    app = app_on_fakes(tmp_path, loader)
    async with app.run_test(size=(110, 36)) as pilot:
        await settle(pilot)
        app.chat.prompt.text = "Solve 3x + 5 = 20 for x."
        await pilot.press("enter")
        for _ in range(500):
            if gated.entered.is_set():
                break
            await pilot.pause(0.01)
        assert gated.entered.is_set()
        await pilot.press("escape")
        await pilot.pause()
        gated.gate.set()
        await settle(pilot)
        turn = app.conversation.turns[0]
        assert turn.cancelled and turn.answer is None
        assert loader.store.count() == 0 and app.chat.active is None
        await ask(pilot, "Solve 4x + 5 = 21 for x.")
        assert app.conversation.turns[1].answer is not None and loader.store.count() == 1
