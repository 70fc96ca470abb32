"""The step check on generated look-alikes: words that name one operation beside an
equation that another operation (or the same one) yields.

Each case is a problem `a·x + b = c·x + d`, words naming an operation in one of several
phrasings, and an equation written the way a person or the model writes the result of an
operation (unsimplified `3x + 5 - 5 = 20 - 5`, or simplified), the words before it, on a
line of their own, or after it (then as a description: "3x = 15, subtracting 5 from both
sides"; an imperative after an equation announces the next step). The truth is known from
the generation: the step follows when the named operation yields the written equation and,
unless the words name a rewrite, changes it ("Add 0 to both sides", "Multiply both sides by
1" name no step). The check must accept no step that does not follow (precision 1.000);
recall is reported.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from stepchat.core.derivation import Sides
from stepchat.core.linear import format_fraction, format_linear
from stepchat.core.tasks.linear_task import LinearHandler

HANDLER = LinearHandler()
REWRITES = ("Simplify", "Combine like terms", "Rewrite")
GERUNDS = {"Add": "adding", "Subtract": "subtracting", "Multiply": "multiplying",
           "Divide": "dividing", "Move": "moving", "Collect": "collecting",
           "Simplify": "simplifying", "Combine": "combining", "Rewrite": "rewriting"}


def _described(rng: random.Random, phrase: str) -> str | None:
    """`phrase` as words after an equation describing how it was reached, or None."""
    first, _, rest = phrase.partition(" ")
    if first in GERUNDS:
        gerund = " ".join([GERUNDS[first], rest]).strip()
    elif first.endswith("ing"):
        gerund = phrase[0].lower() + phrase[1:].removesuffix(" gives")
    else:
        return None
    return rng.choice([f", {gerund}", f" after {gerund}", f" by {gerund}"])


@dataclass(frozen=True)
class Op:
    kind: str  # "add" (term p·x + q added) or "scale" (times k)
    p: Fraction = Fraction(0)
    q: Fraction = Fraction(0)
    k: Fraction = Fraction(1)

    def apply(self, s: Sides) -> Sides:
        return s.plus(self.p, self.q) if self.kind == "add" else s.times(self.k)


def _number(rng: random.Random, value: Fraction) -> str:
    text = format_fraction(abs(value))
    if value.denominator != 1 and rng.random() < 0.5:
        text = f"({text})"
    if value < 0:
        text = rng.choice(["-", "−"]) + text
    return text


def _term(rng: random.Random, p: Fraction, q: Fraction) -> str:
    if p and q:
        return f"({format_linear(p, q, 'x')})"
    if p:
        return format_linear(p, Fraction(0), "x")
    return _number(rng, q)


def _on_a_side(s: Sides, p: Fraction, q: Fraction) -> bool:
    return any((p == 0 or coef == p) and (q == 0 or const == q)
               for coef, const in ((s.a, s.b), (s.c, s.d)))


def _phrases(rng: random.Random, op: Op, s: Sides) -> list[str]:
    """Ways to name `op` (applied to `s`) in words."""
    out: list[str] = []
    if op.kind == "add" and not (op.p and op.q):
        t = _term(rng, op.p, op.q)
        neg = _term(rng, -op.p, -op.q)
        out += [f"Add {t} to both sides", f"Adding {t} to each side gives",
                f"Subtract {neg} from both sides",
                f"First, isolate the variable by subtracting {neg} from both sides of the equation",
                f"Add the opposite of {neg} to both sides"]
        if _on_a_side(s, -op.p, -op.q):  # a move takes a part off the side holding it
            out.append(f"Move {neg} to the other side")
        if op.p == 0 and op.q == -s.b and s.b and s.a:
            out += ["Move the constant to the right", "Subtract the constant from both sides"]
        if op.q == 0 and op.p == -s.c and s.c:
            out += ["Collect the x terms on the left", "Move the x terms to the left"]
    if op.kind == "scale":
        out += [f"Multiply both sides by {_number(rng, op.k)}",
                f"Multiplying each side by {_number(rng, op.k)}",
                f"Divide both sides by {_number(rng, 1 / op.k)}",
                f"Dividing both sides of the equation by {_number(rng, 1 / op.k)} gives"]
        holders = [x for x in (s.a, s.c) if x]
        if len(holders) == 1 and op.k == 1 / holders[0]:
            out.append("Divide both sides by the coefficient of x")
    if op.kind == "add" and op.p == 0 and op.q == 0:
        out += ["Simplify", "Combine like terms", "Rewrite"]
    return out


def _written(rng: random.Random, op: Op, s: Sides) -> str:
    """The equation `op` yields from `s`, unsimplified or simplified, either side first."""
    result = op.apply(s)
    left, right = format_linear(result.a, result.b, "x"), format_linear(result.c, result.d, "x")
    if rng.random() < 0.4 and op.kind == "add" and (op.p or op.q):
        t = _term(rng, op.p, op.q).replace("−", "-")
        old_l, old_r = format_linear(s.a, s.b, "x"), format_linear(s.c, s.d, "x")
        left, right = f"{old_l} + {t}", f"{old_r} + {t}"
    elif rng.random() < 0.3 and op.kind == "scale":
        k = format_fraction(op.k)
        left = f"({k})({format_linear(s.a, s.b, 'x')})"
        right = f"({k})({format_linear(s.c, s.d, 'x')})"
    if rng.random() < 0.2:
        left, right = right, left
    return f"{left} = {right}"


def _random_op(rng: random.Random, s: Sides) -> Op:
    roll = rng.random()
    if roll < 0.1:
        return Op("add")
    if roll < 0.35:
        return Op("add", q=-s.b if rng.random() < 0.5 and s.b else Fraction(rng.randint(-9, 9)))
    if roll < 0.5:
        return Op("add", p=-s.c if rng.random() < 0.5 and s.c else Fraction(rng.randint(-4, 4)))
    holders = [x for x in (s.a, s.c) if x]
    if holders and rng.random() < 0.4:
        return Op("scale", k=1 / holders[0])
    return Op("scale", k=Fraction(rng.choice([-3, -2, -1, 2, 3, 4, 5]), rng.choice([1, 1, 2, 3])))


def test_named_operations_on_generated_steps() -> None:
    rng = random.Random(5)
    cases = accepted_true = accepted_false = true_total = 0
    while cases < 3000:
        a, c = rng.choice([k for k in range(-9, 10) if k]), rng.choice([0, 0, 0, 1, 2, -2])
        if a == c:
            continue
        s = Sides(Fraction(a), Fraction(rng.randint(-15, 15)), Fraction(c),
                  Fraction(rng.randint(-20, 40)))
        problem = f"{format_linear(s.a, s.b, 'x')} = {format_linear(s.c, s.d, 'x')}"
        task = HANDLER.detect(f"Solve for x: {problem}. Show each step.")
        assert task is not None
        named, applied = _random_op(rng, s), _random_op(rng, s) if rng.random() < 0.6 else None
        applied = applied or named
        phrases = _phrases(rng, named, s)
        if not phrases:
            continue
        phrase, written = rng.choice(phrases), _written(rng, applied, s)
        roll = rng.random()
        described = _described(rng, phrase)
        if roll < 0.2:  # the words on a line of their own, before the equation
            step = f"{phrase}.\n{written}"
        elif roll < 0.3 and described:  # the words after the equation, describing it
            step = f"{written}{described}"
        else:
            step = f"{phrase}: {written}"
        changes = phrase in REWRITES or not named.apply(s).same(s)
        truth = named.apply(s).same(applied.apply(s)) and changes
        steps = HANDLER.segment(step)
        verdict = HANDLER.verify(task, steps) == [True] * len(steps)
        cases += 1
        true_total += truth
        accepted_true += verdict and truth
        accepted_false += verdict and not truth
        assert not (verdict and not truth), (problem, step)
    precision = accepted_true / max(1, accepted_true + accepted_false)
    print(f"{cases} generated steps, {true_total} follow: precision {precision:.3f}, "
          f"recall {accepted_true / true_total:.3f}")
    assert accepted_true / true_total > 0.8  # the check does read the common phrasings
