"""Runs every arm over every seed's workload and judges each served answer.

The model is warmed once with a short real generation; then, per seed, each arm is
warmed on a scratch copy with canned replies (see `arms.warm_up`), gets a fresh cache and
serves the workload in arrival order. Latency is the wall time of the arm's `serve` call: embedding,
retrieval, verification and generation included, checking excluded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stepchat.bench.arms import Shared, make_arm, warm_model, warm_up
from stepchat.bench.checker import check
from stepchat.bench.progress import NoProgress, ProgressBar
from stepchat.bench.records import Request

ERROR = "error"


@dataclass
class Record:
    """One request served by one arm under one seed: a line of `requests.jsonl`."""

    arm: str
    seed: int
    id: str
    output: str
    path: str
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    correct: bool
    reason: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "arm": self.arm,
            "seed": self.seed,
            "id": self.id,
            "output": self.output,
            "path": self.path,
            "latency_s": round(self.latency_s, 6),
            "tokens": {
                "prompt": self.prompt_tokens,
                "completion": self.completion_tokens,
                "total": self.total_tokens,
            },
            "steps": self.steps,
            "correct": self.correct,
            "reason": self.reason,
            "timings_ms": self.timings_ms,
        }


def run_arm(
    name: str,
    seed: int,
    requests: Sequence[Request],
    shared: Shared,
    *,
    progress: ProgressBar,
    warmup: bool = True,
) -> list[Record]:
    """Serve one workload through one fresh arm and judge every answer."""
    if warmup:
        warm_up(name, shared)
    arm = make_arm(name, shared)
    records: list[Record] = []
    for req in requests:
        start = time.perf_counter()
        try:
            served = arm.serve(req.prompt)
        except NotImplementedError:
            raise
        except Exception as exc:  # a failing request is a result, not the end of the bench
            elapsed = time.perf_counter() - start
            records.append(
                Record(
                    name,
                    seed,
                    req.id,
                    "",
                    ERROR,
                    elapsed,
                    0,
                    0,
                    False,
                    f"{type(exc).__name__}: {exc}",
                )
            )
            progress.advance(f"seed {seed} {name}")
            continue
        elapsed = time.perf_counter() - start
        verdict = check(served.text, req.check)
        records.append(
            Record(
                name,
                seed,
                req.id,
                served.text,
                served.path,
                elapsed,
                served.prompt_tokens,
                served.completion_tokens,
                verdict.ok,
                verdict.reason,
                served.timings_ms,
                served.steps,
            )
        )
        progress.advance(f"seed {seed} {name}")
    return records


def run_bench(
    workloads: Mapping[int, Sequence[Request]],
    arms: Sequence[str],
    shared: Shared,
    *,
    progress: ProgressBar | None = None,
    warmup: bool = True,
    on_record: Callable[[Record], None] | None = None,
) -> list[Record]:
    """All arms over all seeds, in a fixed order: seed by seed, arm by arm."""
    total = sum(len(w) for w in workloads.values()) * len(arms)
    bar = progress if progress is not None else NoProgress(total)
    if warmup:
        warm_model(shared)
    records: list[Record] = []
    for seed, requests in workloads.items():
        for name in arms:
            for record in run_arm(name, seed, requests, shared, progress=bar, warmup=warmup):
                records.append(record)
                if on_record is not None:
                    on_record(record)
    return records
