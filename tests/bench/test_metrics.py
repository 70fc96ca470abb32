"""Metrics and their aggregation over seeds, on hand-made records."""

from __future__ import annotations

import math

import pytest

from stepchat.bench.metrics import arm_metrics, per_seed, percentile, summarise
from stepchat.bench.runner import Record


def rec(
    arm: str,
    seed: int,
    latency: float,
    *,
    path: str = "miss",
    tokens: int = 10,
    correct: bool = True,
    embed: float = 0.0,
) -> Record:
    return Record(
        arm,
        seed,
        f"{arm}-{latency}",
        "out",
        path,
        latency,
        tokens // 2,
        tokens - tokens // 2,
        correct,
        "",
        {"embed": embed, "retrieve": 1.0},
    )


def test_percentile_interpolates_like_numpy() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 95) == pytest.approx(4.8)
    assert percentile([7.0], 95) == 7.0
    assert math.isnan(percentile([], 50))


def test_arm_metrics_counts_paths_tokens_and_wrong_answers() -> None:
    records = [
        rec("a", 1, 1.0),
        rec("a", 1, 3.0, correct=False),
        rec("a", 1, 0.01, path="reuse-only", tokens=0, embed=4.0),
        rec("a", 1, 0.5, path="error", tokens=0, correct=False),
    ]
    m = arm_metrics(records)
    assert m["requests"] == 4
    assert m["latency_mean_s"] == pytest.approx(4.51 / 4)
    assert m["total_tokens"] == 20
    assert m["correctness"] == 0.5
    assert m["wrong_answers"] == 1 and m["errors"] == 1
    assert m["paths"] == {"error": 0.25, "miss": 0.5, "reuse-only": 0.25}
    assert m["hits"] == 1 and m["hit_split_ms"]["embed"] == 4.0


def test_hits_are_the_answers_with_a_step_from_a_cache() -> None:
    """A whole-response cache's hit and stepchat's reuse-only and patched paths count; the
    solver's answer, a skipped reuse, a miss and an error do not, whatever was looked up."""
    paths = ("hit", "reuse-only", "patched", "solver", "skip-reuse", "miss", "error")
    records = [rec("a", 1, 1.0 + i, path=path, embed=float(i)) for i, path in enumerate(paths)]
    m = arm_metrics(records)
    assert m["hits"] == 3
    assert m["hit_split_ms"]["embed"] == pytest.approx((0 + 1 + 2) / 3)


def test_summary_ratios_are_taken_within_each_seed() -> None:
    records = [
        rec("nocache", 1, 2.0, tokens=100),
        rec("fast", 1, 1.0, tokens=50),
        rec("nocache", 2, 4.0, tokens=100),
        rec("fast", 2, 1.0, tokens=25),
    ]
    summary = summarise(per_seed(records))
    ratio = summary["fast"]["vs_nocache"]["latency_mean_s"]
    assert ratio["mean"] == pytest.approx((0.5 + 0.25) / 2)
    assert ratio["sd"] == pytest.approx(math.sqrt(2 * 0.125**2))
    assert summary["fast"]["vs_nocache"]["total_tokens"]["mean"] == pytest.approx(0.375)
    assert summary["nocache"]["latency_mean_s"]["mean"] == 3.0
    assert summary["nocache"]["latency_mean_s"]["min"] == 2.0


def test_no_ratios_without_a_nocache_arm() -> None:
    summary = summarise(per_seed([rec("only", 1, 1.0)]))
    assert "vs_nocache" not in summary["only"]
