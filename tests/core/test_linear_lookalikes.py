"""Generated look-alikes of the classes a hostile pass found in the linear task (issue 21).

Two generators, each over random equations:

- distractor requests: a solve request's equation inside a prompt that asks something else
  (check a given value, a system, another quantity, evaluate, rewrite, an inequality, a
  domain, another task) or that holds a mark the reader cannot read exactly (x², √, log,
  1,500, 2,5, %, a letter glued to the unknown, a backslash, a quotient by the unknown) or
  could read two ways (1/2x, ÷ 2x, 4/2(x + 1), 2.500, markup inside a number, an en dash,
  digits of another script, 2·5, 3/2/3) or a mark glued to a number that the framing would
  pass over as punctuation (`!`, `..`, `…`, `‰`, `²`, `°`, `~`, `,`, `′`, `?!`), or a
  second run of marks after the one closing mark the reader forgives (`{eq} . . .`,
  `{eq}. ...`, `{eq}. !`), which the framing would take in as sentence punctuation.
  None may be claimed as a linear request, and through the engine none may be served a
  step of a cached solve derivation. Solve framings of the closed list must be claimed
  (recall, reported).
- wrong steps: for each class of the step check (an operand in words, a verb with no
  operand doing the opposite, a move to the wrong side, words stating a value, trailing
  arithmetic words, labels and markup, a check of another equation, two operations in one
  step; and, from the second hostile round, side and direction words outside a phrasing,
  a one-side operation, words alone claiming a solution set, words disowning the equation
  beside them, a repeat said "again", a named operation that changes nothing, a label glued
  to a coefficient, markup or a dash inside an equation, a product glued to a divisor, two
  equations on a line with the words between them, an imperative after an equation) a step
  that does not follow, and a degenerate problem's final line straight from the problem.
  None may pass (precision 1.000).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

from stepchat.core.linear import format_fraction, format_linear
from stepchat.core.linear_request import read_request
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.types import StepStatus
from tests.core.test_linear_hostile_pairs import ask_after

HANDLER = LinearHandler()
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def _equation(rng: random.Random, v: str) -> tuple[str, int, int, int]:
    """`a·v + b = c` with a whole root, as text, and its a, b, root."""
    a = rng.choice([k for k in range(-9, 10) if k not in (0, 1)])
    b = rng.choice([k for k in range(-12, 13) if k])
    root = rng.randint(-6, 9)
    return f"{format_linear(Fraction(a), Fraction(b), v)} = {a * root + b}", a, b, root


DISTRACTORS: dict[str, list[str]] = {
    "check a given value": ["Does {eq} hold when {v} = {r1}?", "Is {eq} true for {v} = {r1}?",
                            "I got {v} = {r1} for {eq}. Is that right?",
                            "Check whether {v} = {r1} solves {eq}.",
                            "Verify that {eq} has the root {v} = {r1}.",
                            "Plug {v} = {r1} into {eq}. Does it work?"],
    "system": ["Solve the system {eq} and {v} + y = 10.", "Solve {eq} and 2y = {v}.",
               "Solve simultaneously: {eq}, {v} - y = 1.", "Solve for {v} and y: {eq}."],
    "another quantity": ["Given {eq}, find 2{v}.", "If {eq}, what is {v} + 1?",
                         "Solve {eq} for 3{v}.", "Given {eq}, find the value of {v} squared.",
                         "Solve for {v}: {eq}, then give 2{v}.", "If {eq}, what is {w}?"],
    "evaluate or rewrite": ["Evaluate the left side of {eq} at {v} = {r1}.",
                            "Simplify {eq}.", "Expand {eq}.", "Reduce {eq} to lowest terms.",
                            "Rewrite {eq} in the form a{v} + b = 0.", "Divide {eq} through by 2."],
    "inequality or domain": ["Solve {eq} or greater.", "Solve {eq} modulo 7.",
                             "Solve {eq} over the integers.",
                             "Find {v} if {eq} and {v} is negative.",
                             "Solve {eq} where {v} is a whole number.", "Solve {eq} in base 8."],
    "another task": ["Graph {eq}.", "Write a word problem for {eq}.", "Translate {eq} into words.",
                     "Explain why {eq} has one solution.", "Is {eq} linear?", "Plot {eq}."],
    "misread marks": ["Solve for {v}: {v}² + {eq}.", "Solve for {v}: √{v} + {eq}.",
                      "Solve for {v}: log {v} + {eq}.", "Solve for {v}: ln({v}) + {eq}.",
                      "Solve for {v}: {eq},500.", "Solve for {v}: {eq},5.", "Solve for {v}: {eq}%.",
                      "Solve for {v}: a{eq}.", "Solve for {v}:\\n{eq}",
                      "Solve for {v}: {eq} + ({v} - 1)/({v} - 1).",
                      "Solve for {v}: {eq} + {v}^2/{v}.",
                      "Solve for {v}: {eq} + {v}/{v}."],
    "read two ways": ["Solve for {v}: 1/2{v} + {eq}.", "Solve for {v}: 12 ÷ 2{v} + {eq}.",
                      "Solve for {v}: 4/2({v} + 1) + {eq}.", "Solve for {v}: {eq} + 2.500.",
                      "Solve for {v}: {eq} + 1*5*0.", "Solve for {v}: {eq} + 2**1**.",
                      "Solve for {v}: {eq} + **2**1.", "Solve for {v}: {eq} – 3.",
                      "Solve for {v}: {eq} + ৪.", "Solve for {v}: {eq} + 2·5.",
                      "Solve for {v}: {eq} + 3/2/3."],
    "a mark glued to a number": ["Solve for {v}: {eq}!", "Solve {eq}!!", "Solve {eq}.. for {v}.",
                                 "Solve for {v}: {eq}…", "Solve for {v}: {eq}‰",
                                 "Solve for {v}: {eq}²", "Solve for {v}: {eq}°",
                                 "If {eq}! what is {v}?", "Solve for {v}: {eq} ...",
                                 "Solve for {v}: ~{eq}.", "Solve for {v}: ,{eq}",
                                 "Solve {eq}′", "Find {v} if {eq}?!"],
    "a second run of marks after a closing mark": [
        "Solve {eq} . . .", "Solve for {v}: {eq}. . .", "Solve {eq}. ...", "Solve {eq}, ...",
        "Solve for {v}: {eq}; . . .", "Solve {eq}. …", "Find {v} if {eq}? ...", "Solve {eq}. !",
        "Solve {eq} . ?", "Solve {eq}: . .", "Solve for {v}: {eq}. . . thanks",
        "If {eq}, . . . what is {v}?", "Solve {eq} , .", "Solve for {v}: {eq}. ~"],
}
FRAMINGS = ["Solve for {v}: {eq}.", "Solve {eq} for {v}.", "Find {v} if {eq}.",
            "What is {v} if {eq}?", "If {eq}, what is {v}?", "Solve the equation {eq} for {v}.",
            "Solve for {v}: {eq}. Show each step.", "Please solve for {v}: {eq}. Thanks!",
            "What value of {v} satisfies {eq}? Show your steps.", "{eq}",
            "Solve for {v}: {eq}. Give only the final answer.", "Solve: {eq}",
            "Solve {eq} . Show each step.", "Solve {eq} for {v}. . .",
            "Solve for {v}: {eq}. Show each step. . ."]


def _requests(seed: int, count: int) -> list[tuple[str, str, str, str]]:
    """(class, template, the solve request, the distractor) for `count` random equations."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        v = rng.choice("xxyzn")
        eq, _, _, root = _equation(rng, v)
        cls = rng.choice(sorted(DISTRACTORS))
        template = rng.choice(DISTRACTORS[cls])
        fill = {"eq": eq, "v": v, "w": "w" if v != "w" else "t",
                "r1": str(root + rng.choice([0, 1, -2]))}
        out.append((cls, template, f"Solve for {v}: {eq}.", template.format(**fill)))
    return out


def test_generated_distractor_requests_are_not_claimed() -> None:
    claimed: Counter[str] = Counter()
    tried: Counter[str] = Counter()
    for cls, _, _, prompt in _requests(seed=21, count=3000):
        tried[cls] += 1
        if read_request(prompt) is not None:
            claimed[cls] += 1
            raise AssertionError(f"claimed as a linear request ({cls}): {prompt!r}")
    print(f"{sum(tried.values())} distractor requests, {len(tried)} classes: "
          f"{sum(claimed.values())} claimed")


def test_generated_solve_framings_are_claimed() -> None:
    rng = random.Random(7)
    claimed = total = 0
    for _ in range(1200):
        v = rng.choice("xxyzn")
        eq, _, _, _ = _equation(rng, v)
        prompt = rng.choice(FRAMINGS).format(eq=eq, v=v)
        request = read_request(prompt)
        total += 1
        claimed += request is not None and request.equation.text == eq
    print(f"{total} solve requests in {len(FRAMINGS)} framings: recall {claimed / total:.3f}")
    assert claimed == total


def test_distractor_requests_are_not_served_a_cached_derivation() -> None:
    """Through the engine: a cached solve derivation of the same equation is never served to
    a distractor request (one per template, every class)."""
    seen: set[str] = set()
    for cls, template, solve, prompt in _requests(seed=3, count=700):
        if template in seen:
            continue
        seen.add(template)
        answer = ask_after(solve, None, prompt)
        from_cache = [s.text for s in answer.steps
                      if s.status in (StepStatus.REUSED, StepStatus.PATCHED)]
        assert answer.task != "linear" and from_cache == [], (cls, prompt, answer.text)
    assert len(seen) == sum(len(t) for t in DISTRACTORS.values())


Wrong = Callable[[random.Random, int, int, int, str], str | None]
"""(rng, a, b, root, v) of the problem `a·v + b = c` -> a derivation with a wrong step."""


def _word(n: int) -> str:
    return WORDS[abs(n)] if abs(n) < len(WORDS) else str(n)


def _operand_words(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    other = rng.choice([k for k in range(1, 10) if k != abs(b)])
    return rng.choice([
        f"Subtract {_word(other)} from both sides: {a}{v} = {c - b}\n{v} = {r}",
        f"Subtract {abs(b)} from both sides {_word(2)} times: {a}{v} = {c - b}\n{v} = {r}",
        f"Subtract the coefficient from both sides: {a}{v} = {c - b}\n{v} = {r}",
        f"Subtract the number on the right from both sides: {a}{v} = {c - b}\n{v} = {r}",
        f"{a}{v} = {c - b}\nDivide both sides by the constant: {v} = {r}\n{v} = {r}",
        f"{a}{v} = {c - b}\nDivide both sides by {_word(other)}: {v} = {r}\n{v} = {r}",
    ]) if b > 0 else None


def _unnamed_opposite(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    k = rng.randint(1, 9)
    lhs = format_linear(Fraction(a), Fraction(b + k), v)
    return rng.choice([
        f"Subtract from both sides: {lhs} = {c + k}\n{a}{v} = {c - b}\n{v} = {r}",
        f"Subtraction: {lhs} = {c + k}\n{a}{v} = {c - b}\n{v} = {r}",
        f"{a}{v} = {c - b}\nDivide both sides: {2 * a}{v} = {2 * (c - b)}\n{v} = {r}",
        f"{a}{v} = {c - b}\nDivision: {3 * a}{v} = {3 * (c - b)}\n{v} = {r}",
    ])


def _wrong_side(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    if c == b:
        return None  # the right side holds the same constant, and moving that one is right
    return f"Move {b} to the left: {a}{v} = {c - b}\n{v} = {r}"


def _stated_in_words(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    claim = rng.choice([f"So {v} equals {_word(r + 1)}.", "The solution is all real numbers.",
                        f"{v} is equal to {_word(r - 1)}.", f"The number {v} is {_word(r + 2)}.",
                        f"The original equation is {a}{v} = {c - b}"])
    return f"{a}{v} = {c - b}\n{claim}\n{v} = {r}"


def _trailing(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    tail = rng.choice(["plus one", "times two", f"minus {_word(3)}", f"over {v}", "plus four"])
    return f"{a}{v} = {c - b} {tail}\n{v} = {r}"


def _labels(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    if (c - b) % 2:
        return None
    return rng.choice([f"{a}{v} = {format_fraction(Fraction(c - b, 2))} (2)\n{v} = {r}",
                       f"({a}) {v} = {c - b}\n{v} = {r}" if a > 0 else None,
                       f"{a}{v} = {c - b}\n{v} = {2 * r}**-1\n{v} = {r}"])


def _other_check(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    a2 = a + rng.choice([-1, 1])
    return rng.choice([f"Check: {a2}({r}) + {c - a2 * r} = {c}\n{a}{v} = {c - b}\n{v} = {r}",
                       f"Check: {a}({r + 1}) + {b - a} = {c}\n{a}{v} = {c - b}\n{v} = {r}",
                       f"{a}{v} = {c - b}\nCheck: {a}({r}) = {c - b}\n{v} = {r}",
                       f"{a}{v} = {c - b}\n{c - b} = {c - b}\n{v} = {r}"])


def _two_at_once(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
    c = a * r + b
    return rng.choice([f"Subtract {b} and divide by {a}: {v} = {r}\n{v} = {r}",
                       f"Subtract {b} from both sides.\nDivide both sides by {a}.\n{v} = {r}",
                       f"Add {b} to both sides, then subtract {2 * b} from both sides: "
                       f"{a}{v} = {c - b}\n{v} = {r}"])


SECOND_ROUND: dict[str, list[str]] = {
    "side or direction words outside a phrasing": [
        "{verb} {b} {where}: {a}{v} = {n}\n{v} = {r}"],
    "one-side operation": [
        "Subtract {b} only from the left: {a}{v} = {n}\n{v} = {r}",
        "Subtract {b} from the left side only: {a}{v} = {n}\n{v} = {r}",
        "{a}{v} = {n}\nDivide by {a} on the left side only: {v} = {r}\n{v} = {r}",
        "{a}{v} = {n}\nDivide by {a} on left: {v} = {r}\n{v} = {r}"],
    "words alone claiming a solution set": [
        "{a}{v} = {n}\n{claim}\n{v} = {r}"],
    "words disowning the equation": [
        "Subtract {b} from both sides: {a}{v} = {n} {tail}\n{v} = {r}",
        "{a}{v} = {n}\nDivide both sides by {a}: {v} = {r} {tail}\n{v} = {r}"],
    "a repeat said again": [
        "Subtract {b} from both sides.\nSubtract {b} from both sides {again}: {a}{v} = {n}"
        "\n{v} = {r}",
        "{a}{v} = {n}\nDivide both sides by {a}.\nNow divide both sides by {a} {again}: "
        "{v} = {r}\n{v} = {r}"],
    "a named operation that changes nothing": [
        "{noop}: {same}\n{a}{v} = {n}\n{v} = {r}"],
    "a label glued to a coefficient": [  # the problem is `v + b = c`: 3x = 15 does not follow
        "Step {k}{v} = {n}\n{v} = {n}", "{k}.{v} = {n}\n{v} = {n}",
        "Step {k}{v} + {b} = {c}\n{v} = {n}"],
    "markup inside a number": [
        "Subtract {b} from both sides: {a}{v} = {n}**1**\n{v} = {r}",
        "Subtract {b} from both sides: {a}{v} = **{n}**1\n{v} = {r}",
        "Subtract {b} from both sides: {a}{v} = 1*{n}*1\n{v} = {r}",
        "{a}{v} = {n}\n{v} = **{r}**0**\n{v} = {r}"],
    "a dash or another script's digits": [  # `– 3x = 15` would read as -3x = 15
        "Subtract {b} from both sides – {a}{v} = {n}\n{v} = {r}",
        "{a}{v} = {n}\n{v} = {r} – 0\n{v} = {r}",
        "Subtract ৪ from both sides: {a}{v} = {n}\n{v} = {r}",
        "{a}{v} = {n}\nDivide both sides by {a}: {v} = {r}·1\n{v} = {r}",
        "{a}{v} = {n}\nDivide both sides by ୨: {v} = {r}\n{v} = {r}"],
    "a product glued to a divisor": [
        "{a}{v} = {n}\n1/{a}{v} = {n}/{aa}\n{v} = {r}",
        "{a}{v} = {n}\nDivide both sides by {a}: {v} = {ar}/{a}(1)\n{v} = {r}",
        "{a}{v} = {n}\n{v} = {n} ÷ {a}(1)\n{v} = {r}",
        "{a}{v} = {n}\n{v} = {ar2}/2/{a}\n{v} = {r}"],
    "words between or after equations": [
        "{a}{v} = {n} after dividing both sides by {a}, {v} = {r}\n{v} = {r}",
        "{a}{v} = {n} by simplifying, so {v} = {r} by dividing both sides by {a}\n{v} = {r}",
        "{a}{v} = {n}. Next, subtract {b} from both sides.\n{v} = {r}",
        "{a}{v} = {n}, subtract {b} from both sides\n{v} = {r}",
        "{a}{v} = {n}; now divide both sides by {a}.\n{v} = {r}"],
}
"""The second hostile round's classes, as templates over `a·v + b = c` (n = c - b)."""
CHOICES = {
    "verb": ["Move", "Bring", "Remove", "Subtract"],
    "where": ["left", "to left side", "to the side on the left", "leftward", "right",
              "to right side", "over"],
    "claim": ["All real {v} are a solution.", "The final answer is all real {v}.",
              "So the answer is the opposite of {v}.", "Every real number works.",
              "The answer is the same as {v}."],
    "tail": ["is the solution of the other equation", "is the opposite of the answer",
             "is the answer to another problem", "is only the left side",
             "holds for all real numbers"],
    "again": ["again", "also", "once again"],
    "noop": ["Subtract the {v} terms from the right", "Subtract the {v} terms from both sides",
             "Swap the sides", "Multiply both sides by 1", "Add 0 to both sides",
             "Divide both sides by 1", "Move the constant to the left"],
}


def _templated(templates: list[str]) -> Wrong:
    def wrong(rng: random.Random, a: int, b: int, r: int, v: str) -> str | None:
        c = a * r + b
        fill = {name: rng.choice(options).format(v=v) for name, options in CHOICES.items()}
        fill |= {"a": str(a), "b": str(b), "c": str(c), "n": str(c - b), "r": str(r),
                 "v": v, "k": str(rng.randint(2, 9)), "aa": str(a * a), "ar": str(a * r),
                 "ar2": str(2 * a * r), "same": f"{b} + {a}{v} = {c}".replace("+ -", "- ")}
        return rng.choice(templates).format(**fill)
    return wrong


WRONG: dict[str, Wrong] = {
    "operand the check cannot evaluate": _operand_words,
    "verb without operand, opposite operation": _unnamed_opposite,
    "move to the wrong side": _wrong_side,
    "words stating a value": _stated_in_words,
    "trailing arithmetic words": _trailing,
    "labels and markup": _labels,
    "check of another equation": _other_check,
    "two operations in one step": _two_at_once,
    **{cls: _templated(templates) for cls, templates in SECOND_ROUND.items()},
}
GLUED_LABEL = "a label glued to a coefficient"


def test_generated_wrong_steps_never_pass() -> None:
    rng = random.Random(12)
    tried: Counter[str] = Counter()
    while sum(tried.values()) < 5700:
        v = rng.choice("xxyn")
        cls = rng.choice(sorted(WRONG))
        eq, a, b, root = _equation(rng, v)
        if cls == GLUED_LABEL:  # `v + b = c`, where "Step 3x = 15" must not read x = 15
            a, eq = 1, f"{format_linear(Fraction(1), Fraction(b), v)} = {root + b}"
        task = HANDLER.detect(f"Solve for {v}: {eq}.")
        assert task is not None
        text = WRONG[cls](rng, a, b, root, v)
        if text is None:
            continue
        tried[cls] += 1
        assert not all(HANDLER.verify(task, HANDLER.segment(text))), (cls, eq, text)
    print(f"{sum(tried.values())} wrong steps in {len(tried)} classes, 0 passed: {dict(tried)}")


def test_degenerate_final_lines_need_the_unknown_gone() -> None:
    rng = random.Random(4)
    for _ in range(200):
        v = rng.choice("xyn")
        a, b, d = rng.randint(1, 9), rng.randint(-9, 9), rng.randint(-9, 9)
        problem = f"{a}{v} + {b} = {a}{v} + {d}".replace("+ -", "- ")
        task = HANDLER.detect(f"Solve for {v}: {problem}.")
        assert task is not None
        final = "all real numbers" if b == d else "no solution"
        assert HANDLER.verify(task, HANDLER.segment(final)) == [False], problem
        done = f"Subtract {a}{v} from both sides: {b} = {d}\n{final}"
        assert all(HANDLER.verify(task, HANDLER.segment(done))), (problem, done)
