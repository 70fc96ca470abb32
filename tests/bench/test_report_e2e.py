"""The whole bench on a tiny workload: scripted model, hashed embedder, in-memory stores.

The scripted model answers two of the five requests wrongly (a stale `x = 5` for a changed
constant, a stale name for a changed value), so the no-cache correctness is known: 3/5.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.bench.arms import ARM_NAMES, Shared
from stepchat.bench.command import execute
from stepchat.bench.records import Request
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import ChatMessage
from stepchat.embed.hashed import HashedEmbedder

PERSON: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "city": {"type": "string"},
    },
    "required": ["name", "age", "city"],
    "additionalProperties": False,
}


def person(name: str) -> str:
    return (
        f"Return a JSON object with keys name, age (integer) and city for a person whose "
        f"name is {name}, age is 30 and city is Paris."
    )


WORKLOAD = [
    Request(
        "lin01-base",
        "Solve for x: 3x + 5 = 20. Show each step.",
        {"kind": "linear", "variable": "x", "solution": "5"},
    ),
    Request(
        "json01-base",
        person("Alice"),
        {"kind": "json", "schema": PERSON, "equals": {"name": "Alice", "age": 30, "city": "Paris"}},
    ),
    Request(
        "lin01-const-1",
        "Solve for x: 3x + 8 = 20. Show each step.",
        {"kind": "linear", "variable": "x", "solution": "4"},
    ),
    Request(
        "lin01-repeat-1",
        "Solve for x: 3x + 5 = 20. Show each step.",
        {"kind": "linear", "variable": "x", "solution": "5"},
    ),
    Request(
        "json01-value-1",
        person("Bruno"),
        {"kind": "json", "schema": PERSON, "equals": {"name": "Bruno", "age": 30, "city": "Paris"}},
    ),
]
REPLIES = {
    "3x + 5 = 20": "3x + 5 = 20\n3x = 15\nx = 5",
    "3x + 8 = 20": "3x + 8 = 20\n3x = 15\nx = 5",  # wrong: the old answer
    "Alice": '{"name": "Alice", "age": 30, "city": "Paris"}',
    "Bruno": '{"name": "Alice", "age": 30, "city": "Paris"}',  # wrong: the old name
}


def reply(messages: Sequence[ChatMessage]) -> str:
    text = messages[-1].content
    return next((answer for key, answer in REPLIES.items() if key in text), "I do not know.")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    out = tmp_path_factory.mktemp("bench")
    shared = Shared(ScriptedBackend([reply]), HashedEmbedder(), PipelineSettings())

    printed = io.StringIO()
    results = execute(
        {42: WORKLOAD},
        list(ARM_NAMES),
        shared,
        out,
        meta={"model": "scripted", "threads": 1},
        stdout=printed,
    )
    return out, results, printed.getvalue()


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]


def by(out: Path, arm: str, rid: str) -> dict[str, Any]:
    return next(r for r in lines(out) if r["arm"] == arm and r["id"] == rid)


def test_requests_jsonl_has_one_line_per_request_and_arm_with_the_fields(run: Any) -> None:
    out, _, _ = run
    records = lines(out)
    assert len(records) == len(WORKLOAD) * len(ARM_NAMES)
    for r in records:
        assert {"arm", "seed", "id", "output", "path", "latency_s", "tokens", "steps"} <= set(r)
        assert r["seed"] == 42 and r["latency_s"] >= 0
        assert r["tokens"]["total"] == r["tokens"]["prompt"] + r["tokens"]["completion"]


def test_nocache_correctness_is_what_the_checker_makes_of_the_model(run: Any) -> None:
    out, results, _ = run
    nocache = results["summary"]["nocache"]
    assert nocache["correctness"]["mean"] == pytest.approx(3 / 5)
    assert nocache["wrong_answers"]["mean"] == 2
    assert by(out, "nocache", "lin01-const-1")["output"] == REPLIES["3x + 8 = 20"]
    assert all(r["path"] == "miss" for r in lines(out) if r["arm"] == "nocache")


def test_exact_cache_hits_only_the_repeated_prompt_and_spends_no_tokens_on_it(run: Any) -> None:
    out, results, _ = run
    hit = by(out, "exact", "lin01-repeat-1")
    assert hit["path"] == "hit" and hit["tokens"]["total"] == 0
    assert all(s["status"] == "reused" for s in hit["steps"])
    assert results["summary"]["exact"]["paths"]["hit"]["mean"] == pytest.approx(1 / 5)


def test_gptcache_serves_the_repeat_from_its_cache(run: Any) -> None:
    out, _, _ = run
    assert by(out, "gptcache", "lin01-repeat-1")["path"] == "hit"
    assert by(out, "gptcache", "lin01-repeat-1")["tokens"]["total"] == 0


def test_stepcache_reuses_the_repeat_and_does_not_serve_the_stale_answer(run: Any) -> None:
    out, _, _ = run
    assert by(out, "stepcache", "lin01-repeat-1")["path"] == "reuse-only"
    changed = by(out, "stepcache", "lin01-const-1")
    assert changed["correct"], changed["reason"]


def test_ratios_against_nocache_are_reported_for_every_arm(run: Any) -> None:
    _, results, _ = run
    for arm in ARM_NAMES:
        ratios = results["summary"][arm]["vs_nocache"]
        assert set(ratios) == {
            "latency_mean_s",
            "latency_median_s",
            "latency_p95_s",
            "total_tokens",
        }
    assert results["summary"]["nocache"]["vs_nocache"]["total_tokens"]["mean"] == 1.0


def test_results_json_is_strict_json_and_report_and_plot_exist(run: Any) -> None:
    out, _, printed = run
    text = (out / "results.json").read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    report = (out / "report.md").read_text()
    for arm in ARM_NAMES:
        assert f"| {arm} |" in report
        assert f"| {arm} |" in printed
    assert "## Targets (stepcache)" in report
    assert (out / "latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
