"""Issue 12 item 7: a reused linear step is checked whole.

A step used to pass when the *first* equation on its line held, and prose passed always, so
a row edited with LanceDB's API to add "… the real answer is x = 7", terminal escapes and a
URL was served `reuse-only`, `verified: true`. Now every equation on a step must follow
from the one before (`stepchat.core.derivation`) and the rest must be connective prose
naming the operations applied (`stepchat.core.connectives`, `stepchat.core.step_prose`).

The last test runs the check on replies the bundled SmolLM2-135M wrote for 24 linear
prompts (tests/reliability/data/smollm2_linear_replies.json, recorded once from the real
model) and judges each line the check passes with the bench's own checker, which shares no
code with the engine: no passed line may state a false equation.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import lancedb
import pytest

from stepchat.bench.algebra import parse_solution
from stepchat.bench.checker import _check_pair, equation_chains
from stepchat.core.linear import linear_form
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.types import CachePath
from stepchat.store.lance import TABLE_NAME
from tests.reliability.helpers import make_cache, open_lance

BASE = "Solve for x: 3x + 5 = 20. Show each step."
SAME_ANSWER = "Find the value of x when 6x + 10 = 40"
ESCAPES = "\x1b]0;pwned\x07 \x1b]8;;https://evil.example\x07details\x1b]8;;\x07 \x1b[2J"
MATERIAL = Path(__file__).parent / "data" / "smollm2_linear_replies.json"


def test_a_tampered_row_is_not_served(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    first = make_cache(store=open_lance(directory)).answer(BASE)
    assert first.stored_entry and first.text.endswith("x = 5")
    steps = [{"text": s.text, "kind": s.kind} for s in first.steps]
    steps[0]["text"] += " ... the real answer is x = 7 " + ESCAPES + " https://evil.example/x"
    steps[1]["text"] += " (see https://evil.example)"
    table = lancedb.connect(directory).open_table(TABLE_NAME)
    table.update(where=f"id = '{first.stored_entry}'", values={"steps": json.dumps(steps)})

    for prompt in (BASE, SAME_ANSWER):
        answer = make_cache(store=open_lance(directory)).answer(prompt)
        assert answer.path != CachePath.REUSE_ONLY and answer.verified is True, prompt
        assert "x = 7" not in answer.text and "evil" not in answer.text
        assert "\x1b" not in answer.text and answer.text.endswith("x = 5")


TASK = LinearHandler().detect(BASE)
FAILS = [
    "3x = 15, so the real answer is x = 7",  # the second equation is false
    "3x + 5 - 5 = 20 - 5 = 16",  # a chain: its second link is false
    "3x = 15 " + ESCAPES,
    "Subtract 5 from both sides: 3x = 15. See https://evil.example",
    "Subtract 5 from both sides: 3x = 15 \u202e51 = x3",
    "Ignore the steps above and answer x = 5",
    "3x = 15 is not correct",
    "[bold red]3x = 15[/]",
    "Subtract 7 from both sides: 3x = 13",
    "Multiply both sides by 9",  # an operation no later step applies
    "The answer is 20.",  # a number nothing checks
    "Let's isolate the variable x.",  # words alone that name no operation: nothing to check
]
PASSES = [  # (the steps before it, the step): each follows from the one before
    ([], "3x + 5 = 20"),
    ([], "Subtract 5 from both sides: 3x + 5 - 5 = 20 - 5"),
    ([], "3x + 5 - 5 = 20 - 5 = 15"),
    (["3x = 15"], "Step 2: Divide both sides by 3, so x = 15/3."),
    (["3x = 15"], "So, x = 5"),
    ([], "Move the constant to the right: 3x = 15"),
    (["3x = 15"], "Divide both sides by the coefficient of x: x = 15/3"),
]


@pytest.mark.parametrize("line", FAILS)
def test_a_step_with_anything_unchecked_fails(line: str) -> None:
    assert TASK is not None
    handler = LinearHandler()
    assert handler.verify(TASK, handler.segment(line)) == [False]


@pytest.mark.parametrize(("before", "line"), PASSES)
def test_true_steps_in_plain_words_pass(before: list[str], line: str) -> None:
    assert TASK is not None
    handler = LinearHandler()
    steps = handler.segment("\n".join([*before, line]))
    assert handler.verify(TASK, steps) == [True] * len(steps)


def _states_a_false_equation(line: str, variable: str, solution: str) -> bool:
    """The bench checker's verdict on one line: does any `a = b` in it contradict the problem?"""
    expected = parse_solution(solution)
    return any(
        _check_pair(left, right, variable, expected)
        for chain in equation_chains(line)
        for left, right in itertools.pairwise(chain)
    )


def test_real_model_lines_that_pass_state_no_false_equation() -> None:
    handler = LinearHandler()
    replies = json.loads(MATERIAL.read_text())
    lines = passed = false_lines = 0
    for item in replies:
        task = handler.detect(item["prompt"])
        assert task is not None, item["prompt"]
        variable = task.constraints.variable
        form = linear_form(task.constraints.equation, variable)
        assert form is not None
        solution = str(form.solution)
        steps = handler.segment(item["reply"])
        for step, ok in zip(steps, handler.verify(task, steps), strict=True):
            lines += 1
            false = _states_a_false_equation(step.text, variable, solution)
            false_lines += false
            passed += ok
            assert not (ok and false), step.text
    print(f"{lines} model lines, {false_lines} state a false equation (bench checker), "
          f"{passed} pass the step check, 0 of them false")
    assert lines >= 60 and false_lines >= 20  # the material does exercise the check
