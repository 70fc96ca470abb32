"""The serving load bench's client side on a fake model: replay, metrics, table."""

from __future__ import annotations

import pytest

from stepchat.bench import workload as wl
from stepchat.bench.serve_load import Outcome, level_metrics, replay, serve_table
from stepchat.serve.app import create_app
from tests.serve.conftest import HeldBackend, live, make_pool


def test_replay_counts_paths_errors_and_correct_answers() -> None:
    requests = [r for r in wl.generate(42) if r.check["kind"] == "linear"][:12]
    with live(create_app(make_pool(HeldBackend(["x = 1"]), queue=16))) as url:
        outcomes, wall = replay(url, "tiny", requests, 4, max_tokens=64, temperature=0.0)
        failed, _ = replay(url, "no-such-model", requests[:3], 2, max_tokens=64,
                           temperature=0.0)
    assert sorted(o.id for o in outcomes) == sorted(r.id for r in requests)
    assert all(o.correct and not o.error for o in outcomes)  # the solver is exact
    metrics = level_metrics(outcomes, wall)
    assert metrics["requests"] == 12 and metrics["errors"] == 0 and metrics["correct"] == 1.0
    hits = sum(o.path in ("reuse-only", "patched") for o in outcomes)
    assert metrics["from_cache"] == hits / 12
    assert all(o.error.startswith("NotFoundError") for o in failed)
    assert level_metrics(failed, 1.0)["errors"] == 3


def test_metrics_and_table() -> None:
    outcomes = [Outcome(str(i), float(i), "reuse-only" if i % 2 else "miss", i < 8)
                for i in range(1, 11)]
    outcomes.append(Outcome("e", 99.0, "error", False, "APIConnectionError: refused"))
    m = level_metrics(outcomes, 5.5)
    assert m["throughput_rps"] == pytest.approx(2.0)
    assert m["p50_s"] == pytest.approx(5.5) and m["p99_s"] == pytest.approx(9.91)
    assert m["errors"] == 1 and m["from_cache"] == pytest.approx(5 / 11)
    table = serve_table([{"target": "stepchat serve", "clients": 4, **m}])
    assert "| stepchat serve | 4 | 2.00 | 5.500 |" in table and "| 45% | 64% |" in table
