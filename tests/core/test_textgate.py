"""The text gate's decisions on cases written to break it (the pair sets test it at scale)."""

from __future__ import annotations

import pytest

from stepchat.core.textgate.gate import compare
from stepchat.core.textgate.normalize import GateOptions, reduce_text

SAME = [
    ("What is the capital of France?", "what's the capital of france"),
    ("How do I reset my router?", "Hi team, how do I reset my router? Thanks!"),
    ("How do I reset my router?", "um so how can I reset my router please"),
    ("How do I merge two cells in Excel?", "In Excel, how do I merge two cells?"),
    ("How do I change the email address on my account?",
     "How do I chnage the email adress on my acount?"),
    ("What is the colour of a ruby?", "What is the color of a ruby?"),
    ("How do I make cold brew coffee?", "How do I make cold-brew coffee?"),
    ("How do you calculate BMI?", "How do you calculate B.M.I.?"),
    ("Can I pay in five instalments?", "Can I pay in 5 instalments?"),
]

DIFFERENT = [
    ("What is the capital of Australia?", "What is the capital of Austria?"),
    ("Convert 5 km to miles", "Convert 5 miles to km"),
    ("How do I merge main into develop?", "How do I merge develop into main?"),
    ("What is 1+1?", "What is 21+1?"),
    ("How do I enable 2FA?", "How do I disable 2FA?"),
    ("Is ibuprofen safe with alcohol?", "Is ibuprofen unsafe with alcohol?"),
    ("Set up a direct debit", "Set up a direct debt"),
    ("Does Lyft operate in Boston?", "Does lift operate in Boston?"),
    ("Call me at 2pm", "Call me at 2am"),
    ("Is port 22 open?", "Is port 22 closed?"),
    ("Is Python faster than Java?", "Is Java faster than Python?"),
    ("How do I cancel my order?", "How do I not cancel my order?"),
    ("In Excel, how do I merge cells?", "How do I merge cells?"),
    ("Translate 'hello' to French", "Translate 'hello' to Spanish"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_same_requests_pass(a: str, b: str) -> None:
    verdict = compare(a, b)
    assert verdict.same, verdict.reason


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_requests_fail_with_a_reason(a: str, b: str) -> None:
    verdict = compare(a, b)
    assert not verdict.same
    assert verdict.reason


@pytest.mark.parametrize(
    ("a", "b", "rule"),
    [
        ("Convert 5 km to miles", "Convert 5 miles to km", "word order changed"),
        ("Is the clinic open?", "Is the clinic not open?", "negation changed"),
        ("What does HTTP 404 mean?", "What does HTTP 403 mean?", "a number changed"),
        ("What is the capital of France?", "What is the capital of Germany?", "a name changed"),
        ("Sort a list in ascending order", "Sort a list in descending order",
         "the wording changed"),
    ],
)
def test_the_reason_names_the_change(a: str, b: str, rule: str) -> None:
    assert compare(a, b).rule == rule


def test_each_forgiveness_can_be_switched_off() -> None:
    strict = GateOptions(courtesy=False, variants=False, clause_moves=False, typos=False)
    assert not compare("Hi, how do I reset it?", "How do I reset it?", strict).same
    assert not compare("In Excel, how do I sort?", "How do I sort in Excel?",
                       GateOptions(clause_moves=False)).same
    assert not compare("How do I instal it?", "How do I install it?",
                       GateOptions(variants=False, typos=False)).same


def test_reduction_keeps_numbers_operators_and_negation() -> None:
    assert reduce_text("Don't use 40,000 + 5%").tokens == ("do", "not", "use", "40,000", "+",
                                                          "5", "%")
