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
    assert a.constraints.variable == "x" and a.constraints.solution == "5"
    assert a.signature == b.signature
    c = linear.detect("Solve for x: 3x + 5 = 2x + 20.")
    assert c is not None and c.constraints.both_sides and c.signature != a.signature


def test_linear_is_not_detected_in_other_requests() -> None:
    assert linear.detect("Write a poem about the sea.") is None
    assert linear.detect("Solve x^2 = 4") is None
    assert linear.detect("Is 2 + 2 = 4?") is None


def test_final_only_format() -> None:
    task = linear.detect("Solve 2x = 9 for x. Give only the final answer.")
    assert task is not None and task.constraints.format == "final"


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


def test_json_needs_the_word_and_a_request_for_it() -> None:
    assert read_spec("Return an object with keys a and b") is None
    assert read_spec("What is JSON?") is None
    keyless = read_spec("Return JSON please")
    assert keyless is not None and keyless.keys == ()
    assert keyless.schema() == {"type": "object"}


def test_text_signature_is_the_reduced_request() -> None:
    """Near repeats share a signature (found without embedding); a changed name does not."""
    handler = TextHandler()
    first = handler.detect("What is the capital of France?")
    assert handler.detect("what's the capital of france").signature == first.signature
    assert handler.detect("Hi! What is the capital of France? Thanks").signature == (
        first.signature
    )
    assert handler.detect("What is the capital of Germany?").signature != first.signature
    assert first.constraints.to_json() == {"request": "What is the capital of France?"}


def test_json_requests_in_the_shapes_people_write() -> None:
    shapes = {
        "JSON with city, country and population: Osaka, Japan, 2,700,000.":
            ("city", "country", "population"),
        "Output only JSON: {name, age, city} for Mia, 25, from Rome.": ("name", "age", "city"),
        "Give me name, age and city as JSON for Sam, 33, from Leeds.": ("name", "age", "city"),
        "Fill the JSON fields name, breed and age: Rex, beagle, 4.": ("name", "breed", "age"),
        "Return a JSON object with keys a, b and c: a is 1, b is 2, c is 3.": ("a", "b", "c"),
    }
    for prompt, keys in shapes.items():
        spec = read_spec(prompt)
        assert spec is not None and spec.keys == keys, prompt
        assert len(spec.entities) == len(keys), prompt
    # Words no construction accounts for ("Describe ... as") decline the values: the request
    # is still read, and the model writes what the reader could not show.
    spec = read_spec(
        "Describe Bruno, 40, from Lisbon as a JSON object with keys name, age and city."
    )
    assert spec is not None and spec.keys == ("name", "age", "city")
    assert spec.entities in ({}, {"name": "Bruno", "age": 40, "city": "Lisbon"})
    for question in ("Describe the JSON format.", "How do I return JSON from Flask?",
                     "Convert this JSON to YAML: {\"a\": 1}", "Why is my JSON invalid?"):
        assert read_spec(question) is None, question


def test_an_example_object_in_the_prompt_is_not_a_stated_value() -> None:
    spec = read_spec(
        'Return a JSON object with keys name, age and city. Example: {"name": "Ana", "age": 31,'
        ' "city": "Porto"}. Now do Bruno, 40, from Lisbon.'
    )
    assert spec is not None
    # Bruno's values, or none ("Now do" is no construction the reader accounts for): never
    # the example's.
    assert spec.entities in ({}, {"name": "Bruno", "age": 40, "city": "Lisbon"})
    assert not {"Ana", 31, "Porto"} & set(spec.entities.values())
