"""Item 2: Hypothesis over detection, segmentation, stitching, JSON extraction, checks and
whole requests. Nothing raises but PromptError, and on the tasks the cache can verify the
answer is right whatever the model says. Volume: see tests/reliability/helpers.py.
"""

from __future__ import annotations

import contextlib
import json
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from stepchat.bench.checker import check_linear
from stepchat.core.jsonextract import extract_object, is_single_object
from stepchat.core.prompt import PromptError
from stepchat.core.tasks.json_task import JsonHandler
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.types import Answer, Step
from stepchat.store.memory import MemoryStore
from tests.reliability.helpers import FUZZ, make_cache

MATHY = st.text(alphabet="0123456789x y+-*/^()=. \n−×÷\\frac{}$abcSolvefr:", max_size=120)
WORDS = st.sampled_from(["Solve", "for", "x", "JSON", "keys", "name", "age", "and", "is",
                         "Return", "a", "object", "with", ",", ".", "not", "only the answer"])
PROMPTISH = st.lists(st.one_of(WORDS, MATHY, st.integers(-999, 999).map(str)), max_size=20).map(
    " ".join
)
ANY_TEXT = st.one_of(st.text(max_size=300), MATHY, PROMPTISH)
JSONISH = st.one_of(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=10),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                    max_size=3),
        max_leaves=10,
    ).map(json.dumps),
    st.text(alphabet='{}[]":,truefalsn0123 \'`', max_size=80),
)

LINEAR = LinearHandler()
JSON = JsonHandler()


@FUZZ
@given(ANY_TEXT)
def test_fuzz_detection_and_segmentation(text: str) -> None:
    cache = make_cache()
    try:
        _handler, task = cache.detect(text)
    except PromptError:
        return
    for handler in cache.handlers:
        steps = handler.segment(text)
        assert handler.segment(handler.stitch(steps)) == steps or isinstance(handler, JsonHandler)
        handler.verify(task, steps) if handler.kind == task.kind else None


@FUZZ
@given(st.integers(-20, 20).filter(bool), st.integers(-50, 50), st.integers(-50, 50),
       st.lists(ANY_TEXT, max_size=5))
def test_fuzz_linear_verification(a: int, b: int, c: int, lines: list[str]) -> None:
    task = LINEAR.detect(f"Solve for x: {a}x + {b} = {c}")
    assert task is not None
    steps = LINEAR.segment("\n".join(lines))
    LINEAR.verify(task, steps)
    LINEAR.integrity(task, LINEAR.stitch(steps))


@FUZZ
@given(JSONISH, st.lists(st.tuples(st.sampled_from(["name", "age", "x"]), JSONISH), max_size=4))
def test_fuzz_json_extraction_and_checks(text: str, members: list[tuple[str, str]]) -> None:
    found = extract_object(text)
    assert found is None or isinstance(found, dict)
    is_single_object(text)
    task = JSON.detect("Return a JSON object with keys name and age for Bob, age is 3.")
    assert task is not None
    JSON.verify(task, [Step(f'"{k}": {v}', "member", k) for k, v in members])
    JSON.integrity(task, text)
    steps = JSON.segment(text)
    assert JSON.segment(JSON.stitch(steps)) == steps


def _check_linear(answer: Answer, solution: Fraction, equation: str) -> None:
    """The bench's checker, which shares no code with the engine, judges every equation
    answer the engine calls verified, against the solution worked out here: each step must
    follow from the one before it in `equation`."""
    if answer.task != "linear":
        return
    assert answer.verified is True, answer.text
    verdict = check_linear(answer.text, "x", str(solution), equation)
    assert verdict.ok, (verdict.reason, answer.text)


@FUZZ
@given(st.lists(st.tuples(PROMPTISH, st.lists(ANY_TEXT, min_size=1, max_size=3)), min_size=1,
                max_size=4),
       st.integers(-9, 9).filter(bool), st.integers(-9, 9), st.integers(-30, 30))
def test_fuzz_whole_requests(
    requests: list[tuple[str, list[str]]], a: int, b: int, c: int
) -> None:
    """A session of requests on one cache; the model says anything at all."""
    store = MemoryStore()
    for i, (prompt, replies) in enumerate(requests):
        cache = make_cache(replies, store=store)
        right = c + i % 2
        equation = f"{a}x + {b} = {right}"
        # a solve request holds no other words (any leftover makes it another request),
        # so the generated text is asked on its own, between the solve requests
        linear = f"Solve for x: {equation}. Show each step."
        with contextlib.suppress(PromptError):
            cache.answer(prompt)
        answer = cache.answer(linear)
        assert answer.task == "linear", linear
        _check_linear(answer, Fraction(right - b, a), equation)
