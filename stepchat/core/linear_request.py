"""Whether a prompt is a request to solve one linear equation, read word by word.

The linear task answers with a solve derivation, and the cache serves that derivation to
every prompt the task claims. It used to claim any prompt with an equation in it, so "Does
3x + 5 = 20 hold when x = 4?", "Solve the system 2x = 6 and x + y = 10", "Given
3x + 5 = 20, find 2x", "Solve 2x = 3 over the integers" and "Graph 3x + 5 = 20" were all
answered, verified, with the derivation of x. A prompt is claimed now only when every
character of it is accounted for: the equation, read whole by `mathparse`, and around it
the instruction words of one framing of the closed list below. A leftover word or mark
(check, system, and, y =, find 2x, modulo, negative, base, graph, a second equation, x², √,
log, 1,500, 2,5, %, a backslash) means the prompt asks something else, and the task does
not claim it (another kind does, or the text kind).

A mark glued to the equation's edge is never passed over as punctuation: `4!` is 24,
`0.3...` and `0.3…` are 1/3, `12%`, `12‰`, `12²`, `12°` are other values, `~12` is a guess,
`,5` is 0.5 with a decimal comma. The reader forgives a closed list of marks at the edges
(`_glued_mark`) and declines the rest, whatever the framing around them would accept:

- before the equation: the start of the prompt or a space; or a `:` right after a word
  (`Solve:3x = 12`);
- after it: the end of the prompt or a space; or exactly one of `.` `,` `?` `:` `;`
  followed by the end of the prompt or a space (`3x = 12.`, `3x = 12, what is x?`). The
  first mark after the equation must be one of these even across spaces: `3x = 4 !` and
  `3x = 0.3 ...` decline as `3x = 4!` and `3x = 0.3...` do. The same holds when the
  equation ends in its unknown or a bracket (`12 = 3x!` is x factorial).
- after that one closing mark (and spaces): only the end of the prompt or a word, which
  the framing then reads (`3x = 12. Show each step.`, `3x = 12, what is x?`). Any other
  mark declines, so the framing's own runs of punctuation never take in marks that follow
  the equation: `3x = 0.3 . . .`, `3x = 0.3. ...`, `3x = 0.3. …` (a spaced ellipsis, 1/3)
  and `3x = 4. !` decline. Marks after the framing's words (`solve for x. . .`) are
  sentence punctuation and do not touch the equation.

The framings, case-insensitive, with V the equation's one unknown:

- before the equation: nothing; "solve"; "solve for V"; "solve (the | this) equation
  [for V]"; "solve for V in"; "find [the value of] V [if | when | given (that)]"; "what
  is [the value of] V (if | when | given (that))"; "what value of V satisfies"; "if" /
  "given (that)" (then a question after it), each ending in ":", "," or nothing;
- after it: "for V"; ", what is V?", ". find V.", ". solve for V.";
- then instructions about the form of the answer: "show each step", "show (your | all |
  the) (steps | work | working)", "(work it out | solve it) step by step", "step by step",
  "showing each step", "number each step", "be brief: give only the key steps and the
  final answer", "write one equation per line and finish with the line V = <value>", and
  the final-answer-only phrasings (`final_only`);
- courtesy at the ends: a greeting, "please", "can / could / would you", "thanks".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from stepchat.core.linear import (
    HYPHENED_FRACTION,
    FoundEquation,
    LinearForm,
    clean_latex,
    linear_form,
    math_runs,
    parse_whole,
    sides_form,
)

_FINAL_ONLY = (
    r"(?:(?:give|write|show|state)\s+)?(?:me\s+)?(?:only|just)\s+(?:give\s+)?(?:me\s+)?"
    r"(?:the\s+)?(?:final\s+)?(?:answer|result|value)"
    r"|(?:give|write|show|state)\s+(?:me\s+)?(?:the\s+)?(?:final\s+)?(?:answer|result|value)"
    r"\s+only|final\s+answer\s+only|answer\s+only|no\s+(?:steps|explanation|working|work)"
    r"|(?:do\s+not|don't)\s+show\s+(?:the\s+|your\s+|any\s+|each\s+|every\s+)?"
    r"(?:steps?|working|work)"
)
_STEPS = (
    r"show\s+(?:each|every|all|your|the|all\s+the)?\s*(?:steps?|work|working)"
    r"|show\s+(?:your\s+|the\s+)?work(?:ing)?\s+step\s+by\s+step"
    r"|(?:(?:work\s+it\s+out|solve\s+it|explain)\s+)?step\s+by\s+step"
    r"|showing\s+(?:each|every|all|your|the)\s+steps?|number\s+each\s+step"
    r"|be\s+brief:?\s+give\s+only\s+the\s+key\s+steps\s+and\s+the\s+final\s+answer"
    r"|write\s+one\s+equation\s+per\s+line\s+and\s+finish\s+with\s+the\s+line\s+{v}\s*=\s*"
    r"<value>"
)
_GREETING = r"(?:(?:hi|hello|hey)(?:\s+there)?\s*[,!.]?\s*)?"
_ASK = r"(?:(?:please|kindly)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
_THANKS = r"(?:[ ,.!?]*(?:please|thanks|thank\s+you)(?:\s+very\s+much)?)?"
_SEP = r"\s*[:,.]?\s*"
_LEAD = (
    r"solve(?:\s+for\s+{v}(?:\s+in)?)?"
    r"|solve\s+(?:the|this)\s+equation(?:\s+for\s+{v}(?:,?\s+showing\s+each\s+step)?)?"
    r"|find\s+(?:the\s+value\s+of\s+)?{v}(?:\s+(?:if|when|given(?:\s+that)?))?"
    r"|what\s+is\s+(?:the\s+value\s+of\s+)?{v}\s+(?:if|when|given(?:\s+that)?)"
    r"|what\s+value\s+of\s+{v}\s+satisfies"
    r"|if|given(?:\s+that)?"
)
_QUESTION = r"(?:\s*[,.]?\s*(?:what\s+is\s+{v}\s*\?|find\s+{v}\s*[.!]?|solve\s+for\s+{v}\s*[.!]?))"
_TAIL = r"(?:\s+for\s+{v})?\s*[.?!]?"


@dataclass(frozen=True)
class LinearRequest:
    """A prompt read as a request to solve one linear equation."""

    equation: FoundEquation
    variable: str
    form: LinearForm
    final_only: bool


@lru_cache(maxsize=64)
def _framing(variable: str) -> re.Pattern[str]:
    """The framings as one pattern over the prompt with its whitespace collapsed and the
    equation replaced by `<eq>`. Between instructions the separator is one character class,
    so a run of instructions matches one way only and a near miss fails in linear time."""
    v = re.escape(variable.lower())
    fill = {"v": v}
    instruction = rf"(?:{_STEPS.format(**fill)}|(?P<final>{_FINAL_ONLY}))"
    instructions = rf"(?:[ ,.;:!?]*{_ASK}(?:{instruction}))*"
    lead = rf"(?:{_LEAD.format(**fill)}){_SEP}"
    return re.compile(
        rf" ?{_GREETING}{_ASK}(?P<lead>{lead})?<eq>(?P<tail>{_TAIL.format(**fill)})"
        rf"(?P<question>{_QUESTION.format(**fill)})?{instructions}{_THANKS}[ .!?]*"
    )


MAX_REQUEST_CHARS = 1000
"""Longer than any framing of the list around the longest equation the parser reads; a
longer prompt asks something else, and the framing's pattern never meets a long text."""


def read_request(prompt: str) -> LinearRequest | None:
    """The equation and the answer's form when `prompt` asks to solve one linear equation
    and nothing else, else None."""
    text = re.sub(r"\s+", " ", clean_latex(prompt)).strip()
    if "\\" in text or len(text) > MAX_REQUEST_CHARS:
        return None  # an escape sequence or markup nobody reads here, or a long text
    equations = []
    for lo, hi in math_runs(text):
        span = text[lo:hi]
        found = parse_whole(span.strip())
        if found is not None:
            equations.append((lo + len(span) - len(span.lstrip()), found))
    if len(equations) != 1:
        return None  # no equation, or a second one (a system, a check of a given value)
    start, found = equations[0]
    if len(found.variables) != 1 or "^" in found.text or "**" in found.text:
        return None  # a power is not read as a linear equation, even where it cancels
    variable = next(iter(found.variables))
    if _glued_mark(text, start, start + len(found.text)):
        return None  # `4!`, `0.3...`, `~12`: a mark that may change a value is not punctuation
    if _SPACED_LEADING_SIGN.match(found.text):
        return None  # `- 3x + 5 = 20` on a line of its own is a list item as often as -3x
    if HYPHENED_FRACTION.search(found.text):
        return None  # `3-1/2` is three and a half in a recipe, five halves in arithmetic
    rest = f"{text[:start]}<eq>{text[start + len(found.text):]}".lower()
    match = _framing(variable).fullmatch(rest)
    if match is None or _question_needs_lead(match):
        return None
    form = linear_form(found.text, variable)
    if form is None or sides_form(found.text, variable) is None:
        return None
    return LinearRequest(found, variable, form, final_only=match.group("final") is not None)



_SPACED_LEADING_SIGN = re.compile(r"[-+\u2212\u2013\u2014]\s")
"""A sign that opens the equation set apart from its term: a Markdown bullet (`- 3x + 5 =
20` under "Solve:") or a dash after the instruction reads as that too, and the two readings
have different solutions."""

_CLOSING_MARKS = frozenset(".,?:;")
"""The marks forgiven right after an equation, each alone and followed by a space or the
end: none of them, so placed, is part of any notation for a number."""


def _glued_mark(text: str, start: int, end: int) -> bool:
    """Whether a mark the reader does not read sits at the edge of the equation
    `text[start:end]` (see the module docstring for what is forgiven)."""
    before = text[start - 1] if start > 0 else " "
    if before != " " and not (before == ":" and start > 1 and text[start - 2].isalpha()):
        return True
    rest = text[end:].lstrip(" ")
    if not rest or rest[0].isalpha():
        return False  # the end, or the words of a framing (`for x`, `show each step`)
    if rest[0] not in _CLOSING_MARKS or rest[1:2] not in ("", " "):
        return True  # `4!`, `0.3...`, `12%`, `12.5.`: not one closing mark
    after = rest[1:].lstrip(" ")
    return after != "" and not after[0].isalpha()  # `0.3 . . .`, `0.3. …`, `12. !`: a second run


def _question_needs_lead(match: re.Match[str]) -> bool:
    """"if EQ, what is x?" needs its question; "solve for x: EQ, what is x?" asks twice,
    which is fine, but a bare "if EQ" or "given EQ" asks nothing."""
    lead = (match.group("lead") or "").strip(" :,.")
    return lead in ("if", "given", "given that") and not match.group("question")
