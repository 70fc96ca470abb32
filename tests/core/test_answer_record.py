"""An answer's record and back: what saved conversations are read with, and what a hit is."""

from __future__ import annotations

from typing import Any

import pytest

from stepchat.core.types import (
    Answer,
    AnswerStep,
    CachePath,
    StepStatus,
    TaskKind,
    Timings,
    TokenCounts,
    is_hit_path,
)

JSON_ANSWER = Answer(
    prompt="Return a JSON object with name Ana and a hobby.",
    task=TaskKind.JSON,
    text='{"name": "Ana", "hobby": "chess"}',
    path=CachePath.PATCHED,
    steps=[
        AnswerStep('"name": "Ana"', "member", StepStatus.FALLBACK, key="name", check="stated"),
        AnswerStep('"hobby": "chess"', "member", StepStatus.PATCHED, key="hobby", check="open"),
        AnswerStep('"age": 40', "member", StepStatus.REUSED, key="age", check="typed"),
    ],
    model="tiny",
    timings=Timings(1.25, 2.5, 0.125, 40.0, 44.001),
    tokens=TokenCounts(prompt=31, generated=9, saved=21),
    matched_entry="e1",
    stored_entry="e2",
    verified=True,
    patch_method="members",
    notes=["prompt truncated"],
)

SKIPPED_STEPS = [
    AnswerStep("3x + 5 = 26", "equation", StepStatus.REGENERATED),
    AnswerStep("x = 7", "final", StepStatus.FALLBACK),
]
SKIPPED_ANSWER = Answer(
    "Solve 3x + 5 = 26 for x.", TaskKind.LINEAR, "3x + 5 = 26\nx = 7", CachePath.SKIP_REUSE,
    SKIPPED_STEPS, "small", skip_reason="the cached entry solved another equation",
    verified=False,
)

EMPTY_ANSWER = Answer(
    prompt="", task=TaskKind.TEXT, text="", path=CachePath.MISS, steps=[], model=""
)


@pytest.mark.parametrize("answer", [JSON_ANSWER, SKIPPED_ANSWER, EMPTY_ANSWER])
def test_from_record_inverts_to_record(answer: Answer) -> None:
    assert Answer.from_record(answer.to_record(), answer.prompt) == answer


def test_a_record_read_back_writes_the_same_json() -> None:
    """What `stepchat ask --json` prints survives a save and a load unchanged."""
    record = JSON_ANSWER.to_record()
    assert Answer.from_record(record).to_record() == record


def test_a_record_older_versions_wrote_takes_defaults() -> None:
    """The first saved conversations had no `hit`, no step `check`, and some not even
    timings, tokens, task or model."""
    old: dict[str, Any] = {
        "answer": "3x + 5 = 26\nx = 7",
        "path": "reuse-only",
        "steps": [{"text": "3x + 5 = 26", "status": "reused"}, {"text": "x = 7",
                                                                "status": "reused"}],
    }
    answer = Answer.from_record(old, "Solve 3x + 5 = 26 for x.")
    assert answer.prompt == "Solve 3x + 5 = 26 for x."
    assert answer.path is CachePath.REUSE_ONLY and answer.hit
    assert [s.status for s in answer.steps] == [StepStatus.REUSED] * 2
    assert [(s.kind, s.key, s.check) for s in answer.steps] == [("paragraph", None, None)] * 2
    assert answer.task == TaskKind.TEXT and answer.model == ""
    assert answer.timings == Timings() and answer.tokens == TokenCounts()
    assert answer.skip_reason is None and answer.verified is None and answer.notes == []
    assert answer.matched_entry is None and answer.stored_entry is None


def test_unknown_values_read_as_the_safe_ones() -> None:
    """A status or path this version does not know shows as regenerated, counts as a miss."""
    record = {"path": "hit", "hit": True, "steps": [{"text": "x", "status": "borrowed"}]}
    answer = Answer.from_record(record)
    assert answer.path is CachePath.MISS
    assert answer.steps[0].status is StepStatus.REGENERATED
    assert not answer.hit  # the record's `hit` is not trusted: it follows from path and steps


@pytest.mark.parametrize("record", [[], "x = 7", {"steps": ["x = 7"]}, {"tokens": 3}])
def test_a_record_that_is_not_an_object_is_a_type_error(record: Any) -> None:
    with pytest.raises(TypeError):
        Answer.from_record(record)


def test_hit_paths_are_the_paths_with_a_step_from_the_cache() -> None:
    assert {p for p in CachePath if is_hit_path(p)} == {CachePath.REUSE_ONLY, CachePath.PATCHED}
    assert is_hit_path("reuse-only") and is_hit_path("patched")
    assert not any(is_hit_path(p) for p in ("hit", "model", "error", ""))


def test_a_hit_needs_a_step_from_the_cache() -> None:
    assert JSON_ANSWER.hit and not SKIPPED_ANSWER.hit and not EMPTY_ANSWER.hit
    solved = Answer.from_record({"path": "patched", "steps": [{"status": "fallback"}]})
    assert not solved.hit
