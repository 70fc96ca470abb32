"""The words a step of a linear solution may carry besides its equations.

A reused step is served as a verified fact, so everything on it must be checked: its
equations by their solution sets, and the rest against this closed list of the words
people and models use to say what a step does ("Subtract 5 from both sides:", "So,",
"Divide both sides by the coefficient of x:"). Anything else — a claim ("the real answer
is"), a link, markup, an escape sequence, a word in another script — is text nobody can
check, and the step fails (the solver rewrites it). Words that judge or negate a result
("not", "wrong", "incorrect", "never") are left out on purpose: "x = 5 is not the
solution" must not pass because its equation holds. So are number words ("one", "two"),
arithmetic words ("plus", "minus", "times", "over") and the names of an equation's parts
("the constant", "the coefficient", "the number", "the original equation"): outside a
phrasing `stepchat.core.step_prose` reads, they state a value or an operand nobody
evaluates ("Divide both sides by two", "3x = 15 plus one", "So x equals two"). The words
of a side or a direction (both, each, side, left, right, other, only), of a repeat (again,
also) and of a claim about the solutions (all, real, opposite) are read only inside such a
phrasing: "Move 5 left", "Subtract 5 only from the left", "Divide by 3 on the left side
only", "Subtract 5 from both sides again" and "All real x are a solution" do not pass;
nor does "cancel" outside "the x terms cancel", which says the unknown is gone, or
"swap" without "the sides".
"""

from __future__ import annotations

import re
from collections.abc import Collection

CONNECTIVES = frozenset(
    {
        "a", "add", "adding", "addition", "after", "an", "and", "answer", "apply", "applying",
        "are", "as", "at", "back", "be", "becomes", "bring", "by", "can",
        "check", "collect", "collecting", "combine", "combining", "distribute", "distributing",
        "divide", "divided", "dividing", "division", "equal", "equals", "equation",
        "equations", "expand", "expanding", "expression", "final", "finally", "find", "first",
        "for", "from", "gather", "get", "gets", "gives", "giving", "have", "hence", "in", "is",
        "isolate", "isolating", "it", "its", "itself", "let", "let's", "like", "move",
        "moving", "multiply", "multiplied", "multiplying", "multiplication", "need", "needs",
        "next", "now", "obtain", "of", "off", "on", "out", "rearrange", "rearranging",
        "remove", "removing", "result", "results", "rewrite", "rewriting", "same", "simplify",
        "simplified", "simplifies", "simplifying", "so", "solution", "solve", "solving",
        "step", "steps", "subtract", "subtracted", "subtracting", "subtraction", "substitute",
        "term", "terms", "that", "the", "then", "therefore", "this",
        "thus", "to", "together", "unknown", "us", "using", "value", "variable", "we", "which",
        "with", "yields",
    }
)
"""Lower-case words accepted on a step (the solver's own phrasing included)."""

_TOKEN = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|[0-9]+(?:\.[0-9]+)?|[ \t]+|[.,:;!?()+\-*/^×÷·−]")


def is_connective(text: str, variables: Collection[str], numbers: Collection[str]) -> bool:
    """Whether `text` (a step with its equations taken out) is only connective words, the
    unknown's name, numbers from `numbers` and plain punctuation."""
    pos = 0
    for match in _TOKEN.finditer(text):
        if match.start() != pos:
            return False  # a character no token accepts: a quote, a bracket, an escape
        pos = match.end()
        token = match.group(0)
        if token[0].isdigit():
            if token not in numbers:
                return False
        elif token[0].isalpha() and token.lower() not in CONNECTIVES and token not in variables:
            return False
    return pos == len(text)
