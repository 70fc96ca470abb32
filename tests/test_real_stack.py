"""End to end on the real stack: the bundled SmolLM2 GGUF, MiniLM and LanceDB in a temp dir.

These are the engine's acceptance flows; they take about a minute on 2 cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.config import load_config
from stepchat.core.events import Delivery, PipelineEvent, RouteEvent
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import LinearStrategy
from stepchat.core.types import CachePath, StepStatus, TaskKind
from stepchat.runtime import build_cache, load_parts

pytestmark = pytest.mark.slow

PERSON = (
    "Return a JSON object with keys name, age and city for a person whose name is {name}, "
    "age is {age} and city is {city}."
)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stepchat-home")


@pytest.fixture(scope="module")
def cache(home: Path) -> Iterator[StepCache]:
    old = os.environ.get("STEPCHAT_HOME")
    os.environ["STEPCHAT_HOME"] = str(home)
    try:
        config = load_config()
        parts = load_parts(config)
        assert parts.warnings == []
        yield build_cache(config, parts)
    finally:
        if old is None:
            os.environ.pop("STEPCHAT_HOME", None)
        else:
            os.environ["STEPCHAT_HOME"] = old


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_linear_flow(cache: StepCache) -> None:
    first = cache.answer("Solve for x: 3x + 5 = 20. Show each step.")
    assert last_line(first.text) == "x = 5"
    assert first.verified is True and first.stored_entry

    changed = cache.answer("Solve for x: 3x + 7 = 20. Show each step.")
    assert last_line(changed.text) == "x = 13/3"
    assert changed.path != CachePath.MISS

    para = cache.answer("Please solve this equation for x, showing each step: 3x + 5 = 20")
    assert para.path == CachePath.REUSE_ONLY
    assert para.tokens.generated == 0 and para.text == first.text

    renamed = cache.answer("Solve for y: 3y + 5 = 20. Show each step.")
    assert last_line(renamed.text) == "y = 5"
    assert renamed.tokens.generated == 0 and renamed.patch_method == "substitution"


def test_model_first_answers_are_verified_and_repaired(cache: StepCache) -> None:
    """The real model writes the steps; whatever algebra it gets wrong never reaches the user."""
    model_first = StepCache(
        cache.backend, cache.embedder, cache.store,
        settings=replace(
            cache.settings, linear_strategy=LinearStrategy.MODEL_FIRST, repair_tries=1
        ),
    )
    for equation, final in [("7x - 4 = 24", "x = 4"), ("2(x + 3) = 5", "x = -1/2")]:
        answer = model_first.answer(f"Solve for x: {equation}. Show each step.", read_cache=False)
        assert last_line(answer.text) == final
        assert answer.verified is True
        assert answer.tokens.generated > 0
        assert any(s.status == StepStatus.REGENERATED for s in answer.steps) or all(
            s.status == StepStatus.FALLBACK for s in answer.steps
        )


def test_json_flow(cache: StepCache) -> None:
    first = cache.answer(PERSON.format(name="Alice", age=30, city="Paris"))
    assert json.loads(first.text) == {"name": "Alice", "age": 30, "city": "Paris"}
    other = cache.answer(PERSON.format(name="Bob", age=41, city="Rome"))
    assert json.loads(other.text) == {"name": "Bob", "age": 41, "city": "Rome"}
    # Every value is stated: filled from the prompt, not counted as a cache hit.
    assert other.path == CachePath.SOLVER and not other.hit
    added = cache.answer(
        "Return a JSON object with keys name, age, city and email for a person whose name "
        "is Bob, age is 41 and city is Rome."
    )
    obj = json.loads(added.text)
    assert list(obj) == ["name", "age", "city", "email"]
    expected = {"name": "Bob", "age": 41, "city": "Rome"}
    assert {k: obj[k] for k in expected} == expected
    assert isinstance(obj["email"], str)
    statuses = {s.key: s.status for s in added.steps}
    assert statuses["name"] == StepStatus.FALLBACK
    assert statuses["email"] in (StepStatus.REGENERATED, StepStatus.FALLBACK)


LOOKALIKES = [
    ("What is the capital of France?", "What is the capital of Germany?"),
    ("What does HTTP status 404 mean?", "What does HTTP status 403 mean?"),
    ("What is the population of Tokyo?", "What is the population of Osaka?"),
    ("Convert 5 kilometers to miles.", "Convert 5 miles to kilometers."),
    (
        "Write a Python function that sorts a list in ascending order.",
        "Write a Python function that sorts a list in descending order.",
    ),
    (
        "How long should I boil an egg for a soft yolk?",
        "How long should I boil an egg for a hard yolk?",
    ),
]


@pytest.mark.parametrize(("first", "second"), LOOKALIKES)
def test_text_lookalikes_are_answered_by_the_model(
    cache: StepCache, first: str, second: str
) -> None:
    """A changed name, number, direction or word sends the request to the model, with why.
    The first request's answer is written for it (the bundled model's own may run past its
    token limit on one CPU and not on another, and a cut-off answer is not cached); the
    gate, MiniLM, LanceDB and the model answering the second are the real ones."""
    seeded = StepCache(ScriptedBackend([f"An answer to: {first}"], cache.backend.model_id),
                       cache.embedder, cache.store, settings=cache.settings)
    assert seeded.answer(first).stored_entry is not None
    answer = cache.answer(second)
    assert answer.path == CachePath.SKIP_REUSE and not answer.hit
    assert answer.skip_reason and answer.tokens.generated > 0
    assert all(s.status == StepStatus.REGENERATED for s in answer.steps)


def test_text_near_repeat_is_served_from_the_cache(cache: StepCache) -> None:
    first = cache.answer("What is the capital of Italy?")
    again = cache.answer("what's the capital of italy")
    assert again.path == CachePath.REUSE_ONLY and again.hit and again.text == first.text
    assert again.tokens.generated == 0 and again.tokens.saved > 0


def test_cli_ask_json_record(home: Path) -> None:
    env = {**os.environ, "STEPCHAT_HOME": str(home)}
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "ask", "--json",
         "Solve for x: 3x + 5 = 20. Show each step."],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert last_line(record["answer"]) == "x = 5"
    assert record["path"] == "reuse-only"
    assert set(record["timings_ms"]) == {"embed", "retrieve", "verify", "generate", "total"}
    assert set(record["tokens"]) >= {"generated", "saved"}
    assert all(s["status"] in {"reused", "patched", "regenerated", "fallback"}
               for s in record["steps"])


def test_cli_missing_model_is_one_line(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        'default = "ghost"\n[[models]]\nid = "ghost"\nname = "Ghost"\n'
        'source = "/nonexistent/ghost.gguf"\n'
    )
    env = {**os.environ, "STEPCHAT_HOME": str(tmp_path), "STEPCHAT_CONFIG": str(config_file)}
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "ask", "hello"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "/nonexistent/ghost.gguf" in lines[0] and "fix" in lines[0]


def test_a_repeat_is_routed_once_and_delivered_as_its_kind_says(
    cache: StepCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by its embedding in LanceDB (no signature lookup), a rephrased repeat of open
    text is compared by the gate once, and its route event says it streams as Markdown."""
    engine = StepCache(
        cache.backend, cache.embedder, cache.store,
        settings=replace(cache.settings, signature_lookup=False),
    )
    first = engine.answer("What is the capital of Italy?")
    text = next(h for h in engine.handlers if h.kind == TaskKind.TEXT)
    compared: list[str] = []
    real = text.skip_reason

    def counted(task: Any, cached: Any) -> str | None:
        compared.append(task.prompt)
        return real(task, cached)

    monkeypatch.setattr(text, "skip_reason", counted)
    events: list[PipelineEvent] = []
    again = engine.answer("what's the capital of italy", on_event=events.append)
    assert again.path == CachePath.REUSE_ONLY and again.text == first.text
    assert len(compared) == 1
    [route] = [e for e in events if isinstance(e, RouteEvent)]
    assert route.delivery == Delivery(streams=True, markdown=True)
