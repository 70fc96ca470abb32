"""Per-arm metrics of one seed, their mean and spread over seeds, and ratios vs nocache.

Ratios are taken within a seed (an arm against the nocache arm of the same run and the
same requests) and only then averaged, so a slow or fast machine moment affects both
sides of a ratio alike.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from stepchat.bench.arms import from_cache
from stepchat.bench.runner import ERROR, Record

SCALARS = (
    "latency_mean_s",
    "latency_median_s",
    "latency_p95_s",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "correctness",
    "wrong_answers",
    "errors",
)
RATIO_METRICS = ("latency_mean_s", "latency_median_s", "latency_p95_s", "total_tokens")


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between order statistics."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def arm_metrics(records: Sequence[Record]) -> dict[str, Any]:
    """Metrics of one arm under one seed."""
    n = len(records)
    latencies = [r.latency_s for r in records]
    paths = Counter(r.path for r in records)
    hits = [r for r in records if from_cache(r.path)]
    split = {
        stage: statistics.fmean(r.timings_ms.get(stage, 0.0) for r in hits) if hits else 0.0
        for stage in ("embed", "retrieve", "verify", "generate")
    }
    correct = sum(r.correct for r in records)
    errors = paths.get(ERROR, 0)
    return {
        "requests": n,
        "latency_mean_s": statistics.fmean(latencies) if latencies else math.nan,
        "latency_median_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
        "prompt_tokens": sum(r.prompt_tokens for r in records),
        "completion_tokens": sum(r.completion_tokens for r in records),
        "total_tokens": sum(r.total_tokens for r in records),
        "correctness": correct / n if n else math.nan,
        "wrong_answers": n - correct - errors,
        "errors": errors,
        "paths": {path: count / n for path, count in sorted(paths.items())},
        "hits": len(hits),
        "hit_split_ms": split,
    }


def per_seed(records: Sequence[Record]) -> dict[int, dict[str, dict[str, Any]]]:
    """seed → arm → metrics, arms in the order they ran."""
    grouped: dict[int, dict[str, list[Record]]] = defaultdict(dict)
    for r in records:
        grouped[r.seed].setdefault(r.arm, []).append(r)
    return {
        seed: {arm: arm_metrics(rs) for arm, rs in arms.items()} for seed, arms in grouped.items()
    }


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample standard deviation (0 for one seed), min and max."""
    vals = [float(v) for v in values]
    return {
        "mean": statistics.fmean(vals),
        "sd": statistics.stdev(vals) if len(vals) > 1 else 0.0,
        "min": min(vals),
        "max": max(vals),
    }


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def summarise(seeds: dict[int, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Per arm: each scalar metric's spread over seeds, path shares, hit split, ratios."""
    arms: list[str] = []
    for by_arm in seeds.values():
        arms.extend(a for a in by_arm if a not in arms)
    summary: dict[str, Any] = {}
    for arm in arms:
        runs = [by_arm[arm] for by_arm in seeds.values() if arm in by_arm]
        entry: dict[str, Any] = {m: spread([run[m] for run in runs]) for m in SCALARS}
        paths = sorted({p for run in runs for p in run["paths"]})
        entry["paths"] = {p: spread([run["paths"].get(p, 0.0) for run in runs]) for p in paths}
        entry["hit_split_ms"] = {
            stage: spread([run["hit_split_ms"][stage] for run in runs])
            for stage in ("embed", "retrieve", "verify", "generate")
        }
        entry["requests"] = sum(run["requests"] for run in runs)
        entry["hits_total"] = sum(run["hits"] for run in runs)
        with_base = [by_arm for by_arm in seeds.values() if arm in by_arm and "nocache" in by_arm]
        if with_base:
            entry["vs_nocache"] = {
                m: spread([_ratio(b[arm][m], b["nocache"][m]) for b in with_base])
                for m in RATIO_METRICS
            }
        summary[arm] = entry
    return summary
