"""JSON extraction, member checks and the stitched object."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stepchat.core.jsonextract import extract_object, is_single_object, sole_object
from stepchat.core.tasks.json_task import JsonHandler
from stepchat.core.types import Step

handler = JsonHandler()
PROMPT = (
    "Return a JSON object with keys name, age and city for a person whose name is Alice, "
    "age is 30 and city is Paris."
)


def test_extracts_one_object_from_chatter_fences_and_python_literals() -> None:
    assert extract_object('Sure! ```json\n{"a": 1}\n``` hope it helps') == {"a": 1}
    assert extract_object("Here: {'a': True, 'b': None,}") == {"a": True, "b": None}
    assert extract_object("print({})") == {}
    assert extract_object("no object here") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Repairs stay outside strings (a review had each of these rewritten).
        ('{"t": "a, }",}', {"t": "a, }"}),
        ('{"t": "It is True that"}', {"t": "It is True that"}),
        ("{'t': 'None shall pass'}", {"t": "None shall pass"}),
        ("{'t': 'It\\'s mine'}", {"t": "It's mine"}),
        ('{"a": 1, "b": {"c": [1, 2,],},}', {"a": 1, "b": {"c": [1, 2]}}),
        ('Here is {your} object: {"a": 2}', {"a": 2}),
        # A broken object is skipped whole: its nested object is not the answer.
        ('{"name": "Widget", "price": 10, "discount": {"price": 5}, oops}', None),
        ('{"name": "Widget", "price": NaN, "discount": {"price": 5}}', None),
        ('{"name": "W", "discount": {"price": 5}', None),  # cut short
        # Standard JSON only: no lone surrogate, no number a double cannot hold.
        ('{"n": "\\ud800"}', None),
        ('{"a": NaN}', None), ('{"a": -Infinity}', None), ('{"a": 1e999}', None),
        ('{"a": 1' + "0" * 400 + "}", None),
        ("{'a': (1, 2)}", None), ("{1: 'a'}", None),
        ('{"a": "\\ud83d\\ude00"}', {"a": "\U0001f600"}),  # a pair is one character
        # A fourth review: which object is the answer, and what a near-miss means.
        ('Format: {"a": "..."}\nAnswer: {"a": "x"}', None),  # two objects: no answer
        ('{"a": 1}\n```python\nprint({"a": 2})\n```', None),
        ('{"a": 1}\n```json\n{"a": 1}\n```', {"a": 1}),  # the same one twice
        ('{"b": "```{\'a\': 1}```"}', {"b": "```{'a': 1}```"}),  # a fence in a string
        ("{'a': 'x'  # a } here\n, 'p': {'a': 'y'}}", None),  # a comment: end unknown
        ('{"a": "x", /* } */ "p": {"a": "y"}}', None),
        ("{'a': " + "'" * 3 + "it's }" + "'" * 3 + ", 'p': {'a': 'y'}}", None),  # triple quote
        ('{"a": 1, "a": 2}', None),  # a repeated key: which value?
        ('{"c": ["red" "green", "blue"]}', None),  # no comma: not two strings joined
        ('{"u": "https:\\/\\/x", "z": None}', {"u": "https://x", "z": None}),
        ("{'u': 'it\\'s'}", {"u": "it's"}),
        # A fifth review: fences open a line; a cut reply has no answer; `{,}` is none.
        ('{"a": 1, // n\n "x": "```{\'b\': 2}```"}', None),
        ('Here: {"a": "ex ```{\'b\': 2}``` done" "oops"}', None),
        ("x {,} y", None), ('{"a": [,]}', None),
        ('{"a": 1}' + " " * 200_000 + '{"a": 2}', None),
    ],
)
def test_extraction_takes_standard_json_and_repairs_only_outside_strings(
    text: str, expected: dict[str, object] | None
) -> None:
    assert extract_object(text) == expected


def test_verify_flags_wrong_values_types_and_foreign_keys() -> None:
    task = handler.detect(PROMPT)
    assert task is not None
    steps = [
        Step('"name": "Alice"', "member", "name"),
        Step('"age": "30"', "member", "age"),
        Step('"city": "Rome"', "member", "city"),
        Step('"email": "a@b.c"', "member", "email"),
    ]
    assert handler.verify(task, steps) == [True, False, False, False]


def test_integrity_needs_exactly_the_keys_and_values() -> None:
    task = handler.detect(PROMPT)
    assert task is not None
    good = {"name": "Alice", "age": 30, "city": "Paris"}
    assert handler.integrity(task, json.dumps(good))
    assert not handler.integrity(task, json.dumps({**good, "x": 1}))
    assert not handler.integrity(task, json.dumps({**good, "age": 31}))
    assert not handler.integrity(task, json.dumps(good) + json.dumps(good))


def test_paper_mode_checks_syntax_and_keys_only() -> None:
    paper = JsonHandler(strict=False)
    task = paper.detect(PROMPT)
    assert task is not None
    assert paper.integrity(task, json.dumps({"name": "Bob", "age": "x", "city": 1}))


values = st.one_of(
    st.text(max_size=20), st.integers(-1000, 1000), st.booleans(), st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_]{1,10}", fullmatch=True), values, max_size=6))
def test_segment_stitch_round_trip(obj: dict) -> None:
    text = json.dumps(obj)
    steps = handler.segment(text)
    stitched = handler.stitch(steps)
    assert is_single_object(stitched)
    assert json.loads(stitched) == obj
    assert handler.segment(stitched) == steps


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_extraction_never_raises(text: str) -> None:
    found = extract_object(text)
    assert found is None or isinstance(found, dict)


@pytest.mark.parametrize(
    ("reply", "sole"),
    [
        ('{"a": 1}', True), ('  ```json\n{"a": 1}\n```  ', True), ('```\n{"a": 1}\n```', True),
        ('Here: {"a": 1}', False), ("{'a': 1}", False), ('{"a": 1,}', False),
        ('```json\n{"a": 1}\n``` hope it helps', False), ('{"a": NaN}', False),
        ('\u00a0{"a": 1}\u2028', False),  # JSON's four spaces only
    ],
)
def test_only_a_reply_that_is_one_standard_object_alone_is_sole(reply: str, sole: bool) -> None:
    assert sole_object(reply) is sole


def test_an_open_requests_wording_is_stored_as_tokens_and_read_either_way() -> None:
    """The wording was stored as one string joined by an unprintable separator, which
    `cache show` and the inspector printed as `Return\\u001fJSON...`; entries written so
    still read."""
    from stepchat.core.tasks.json_task import JsonConstraints

    handler = JsonHandler()
    task = handler.detect("Return JSON with keys name and bio for Bruno, a baker in Lisbon.")
    assert task is not None and task.constraints.wording
    stored = task.constraints.to_json()
    assert stored["wording"] == task.constraints.wording.split("\x1f")
    assert not any("\x1f" in token for token in stored["wording"])
    assert "\\u001f" not in json.dumps(stored)
    assert JsonConstraints.from_json(stored) == task.constraints
    legacy = {**stored, "wording": task.constraints.wording}
    assert JsonConstraints.from_json(legacy) == task.constraints
    assert JsonConstraints.from_json({**stored, "wording": [1, 2]}).wording is None
