"""The text gate on the labelled pair sets, through the engine with the real embedder.

Runs `stepchat bench --pairs`'s measurement on every file in data/pairs (public pairs,
reported cases, hand-written and held-out sets) and fails when any category's false hits
exceed 1%, when a reported case is served, or when near repeats fall below the shipped
figure's neighbourhood (31.5% since the forgiven rules were narrowed after a hostile pass:
no moved clauses, hesitations, "please" inside a request, thanks after a comma, a small first
letter in a request with capitals, or a mark after a space; 52.3% before).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stepchat.bench.pairs import ENGINE, run_pairs, summary
from stepchat.bench.pairs_data import load_pairs
from stepchat.core.settings import PipelineSettings
from stepchat.runtime import load_embedder

PAIRS = Path(__file__).resolve().parents[2] / "data" / "pairs"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def figures() -> dict[str, dict[str, dict[str, float]]]:
    pairs = [p for path in sorted(PAIRS.glob("*.jsonl")) for p in load_pairs(path)]
    assert len(pairs) > 1000
    return summary(run_pairs(pairs, load_embedder(), PipelineSettings()))[ENGINE]


def test_false_hits_at_most_one_percent_in_every_category(figures: dict) -> None:
    worst = {c: f["rate"] for c, f in figures["false_hits"].items() if f["rate"] > 0.01}
    assert worst == {}


def test_no_reported_case_is_served(figures: dict) -> None:
    assert figures["false_hits"]["reported"]["served"] == 0


def test_near_repeats_are_served(figures: dict) -> None:
    assert figures["true_hits"]["near_repeat"]["rate"] >= 0.28
