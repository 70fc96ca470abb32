"""Shared pieces of the reliability suite: the fuzz profile, fakes, a Lance cache, a solver.

Fuzz volume: a few hundred examples per property by default (CI); set
`STEPCHAT_FUZZ_EXAMPLES=20000` to run many thousands:

    STEPCHAT_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest tests/reliability -k fuzz
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

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
