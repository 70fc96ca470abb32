"""Shared pieces of the reliability suite: the fuzz profile, fakes, a Lance cache, a solver.

Fuzz volume: a few hundred examples per property by default (CI); set
`STEPCHAT_FUZZ_EXAMPLES=20000` to run many thousands:

    STEPCHAT_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest tests/reliability -k fuzz
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

from stepchat.backends.scripted import Reply, ScriptedBackend
from stepchat.core.linear import format_fraction, linear_form
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import Store
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.lance import LanceStore
from stepchat.store.memory import MemoryStore

FUZZ_EXAMPLES = int(os.environ.get("STEPCHAT_FUZZ_EXAMPLES", "300"))
settings.register_profile(
    "stepchat-fuzz",
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=FUZZ_EXAMPLES <= 300,  # CI runs are reproducible; long runs explore
)
FUZZ = settings(settings.get_profile("stepchat-fuzz"))
"""Decorator for every fuzz property in this suite."""

DIM = 64
EMBED = HashedEmbedder(dim=DIM)


def make_cache(replies: Sequence[Reply] = ("",), store: Store | None = None) -> StepCache:
    backend = ScriptedBackend(list(replies))
    return StepCache(backend, EMBED, store if store is not None else MemoryStore())


def open_lance(directory: Path, **options: object) -> LanceStore:
    """A LanceStore that sees other handles' commits at once (no consistency delay)."""
    return LanceStore(directory, DIM, consistency_seconds=0.0, **options)  # type: ignore[arg-type]


def final_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def expected_final(equation: str, variable: str = "x") -> str:
    """The final line a correct answer to `equation` ends with, from the exact solver."""
    form = linear_form(equation, variable)
    assert form is not None, equation
    return form.solution.final_line(variable)


def solve_text(a: int, b: int, c: int) -> str:
    """`ax + b = c` solved as a person writes it (a correct model answer)."""
    shown = format_fraction(Fraction(c - b, a))
    return f"{a}x + {b} = {c}\n{a}x = {c - b}\nx = {shown}"


ROOT = Path(__file__).resolve().parents[2]
FAKE_CLI = [sys.executable, "-m", "tests.reliability.fake_cli"]
"""`stepchat` with the scripted model and the hashed embedder (tests/reliability/fake_cli.py)."""


def fake_cli(home: Path | None, *args: str, env: dict[str, str] | None = None,
             check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `stepchat ARGS` in a subprocess under `home` (STEPCHAT_HOME, unless None)."""
    full = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    if home is not None:
        full["STEPCHAT_HOME"] = str(home)
    out = subprocess.run([*FAKE_CLI, *args], cwd=ROOT, env=full, capture_output=True,
                         text=True, timeout=300)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def app_on_fakes(root: Path, loader: Any) -> Any:
    """The app on the tests' fakes (`tests.tui.conftest.FakeLoader`), shipped pipeline
    settings (solver-first), a fixed ticking clock and its folders under `root`."""
    from stepchat.config import Config
    from stepchat.core.settings import PipelineSettings
    from stepchat.paths import UserPaths
    from stepchat.tui.app import build_app
    from tests.tui.conftest import MODELS, TickingClock

    config = Config(models=dict(MODELS), default_model="tiny", pipeline=PipelineSettings(),
                    paths=UserPaths(config_dir=root / "config", data_dir=root / "data"))
    return build_app(config, loader, TickingClock(), blink=False)
