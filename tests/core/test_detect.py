"""Task detection and the constraints each task needs."""

from __future__ import annotations

from stepchat.core.tasks.json_spec import read_spec
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.tasks.text_task import TextHandler
from stepchat.core.types import TaskKind

linear = LinearHandler()


def test_linear_detection_and_signature_ignores_constants_and_names() -> None:
    a = linear.detect("Solve for x: 3x + 5 = 20. Show each step.")
    b = linear.detect("Solve for y: 3y + 7 = 21. Show each step.")
    assert a is not None and b is not None
    assert a.kind == TaskKind.LINEAR
    assert a.constraints["variable"] == "x" and a.constraints["solution"] == "5"
    assert a.signature == b.signature
    c = linear.detect("Solve for x: 3x + 5 = 2x + 20.")
    assert c is not None and c.constraints["both_sides"] and c.signature != a.signature


def test_linear_is_not_detected_in_other_requests() -> None:
    assert linear.detect("Write a poem about the sea.") is None
    assert linear.detect("Solve x^2 = 4") is None
    assert linear.detect("Is 2 + 2 = 4?") is None


def test_final_only_format() -> None:
    task = linear.detect("Solve 2x = 9 for x. Give only the final answer.")
    assert task is not None and task.constraints["format"] == "final"


def test_json_keys_types_and_entities() -> None:
    spec = read_spec(
        "Give me JSON with the fields name (string), age (integer), city and email: "
        "name Bob, age 41, city New York, email bob@example.com"
    )
    assert spec is not None
    assert spec.keys == ("name", "age", "city", "email")
    assert spec.types["age"] == "integer"
    assert spec.entities == {
        "name": "Bob", "age": 41, "city": "New York", "email": "bob@example.com"
    }


def test_json_needs_the_word_and_keys() -> None:
    assert read_spec("Return an object with keys a and b") is None
    assert read_spec("Return JSON please") is None


def test_text_signature_is_the_reduced_request() -> None:
    """Near repeats share a signature (found without embedding); a changed name does not."""
    handler = TextHandler()
    first = handler.detect("What is the capital of France?")
    assert handler.detect("what's the capital of france").signature == first.signature
    assert handler.detect("Hi! What is the capital of France? Thanks").signature == (
        first.signature
    )
    assert handler.detect("What is the capital of Germany?").signature != first.signature
    assert first.constraints == {"request": "What is the capital of France?"}
