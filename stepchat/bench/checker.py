"""Judges a served answer against a workload check, independently of the engine.

It shares no code with `stepchat.core`: a bug in the engine's own verification must not
be able to hide here. Linear answers are read with the small exact reader in
`stepchat.bench.algebra`; JSON answers with `json` and `jsonschema`.

Linear: the final non-empty line states `<variable> = <solution>` (or says there is no
solution / every value is one), every equation stated anywhere in the answer has the
problem's solution set, and each follows from the one before it, or from the problem, by
one valid operation (`stepchat.bench.derivation`): "3x = 15" is no step of 5x + 3 = 28
although both have x = 5. A final line alone (`x = 5`, as "final answer only" asks) states
no derivation to judge. Arithmetic-only lines (`3(5) + 5 = 20`) must be true and check
something, unless the problem has no solution, where a false one such as `0 = 4` is the
point of the derivation. The problem is the check's `equation` (a workload file's line
without one takes it from its prompt); with none, only solution sets are judged.

JSON: the whole output, whitespace aside, is exactly one object (no code fences, no prose,
no duplicate keys), valid against the schema, with the `equals` values.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import jsonschema

from stepchat.bench.algebra import (
    ParseError,
    Poly,
    SolutionSet,
    Token,
    parse,
    parse_solution,
    solution_set,
    tokenize,
)
from stepchat.bench.derivation import Judge


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""


PASS = Verdict(True)

_NO_SOLUTION = re.compile(
    r"no (real )?solutions?|has no solution|not have (a|any) solution|inconsistent|"
    r"empty set|∅|no value of",
    re.I,
)
_ALL_VALUES = re.compile(
    r"all (real )?(numbers|values)|every (real )?(number|value)|any (real )?(number|value)|"
    r"infinitely many|identity|true for all|always true",
    re.I,
)

_REWRITES = (
    (re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}"), r"(\1)/(\2)"),
    (re.compile(r"\\(cdot|times)(?![A-Za-z])"), "*"),
    (re.compile(r"\\(left|right)(?![A-Za-z])"), ""),
    (re.compile(r"\\[()\[\]]|\$"), " "),
    (re.compile(r"\\[A-Za-z]+"), " "),
    (re.compile(r"=>|==|<=|>=|!=|≠|≈|→|⇒|:="), " ; "),
    (re.compile(r"\*\*"), " "),
)
_CHARS = str.maketrans(
    {"−": "-", "–": "-", "×": "*", "·": "*", "⋅": "*", "÷": "/", "{": "(", "}": ")", "`": " "}
)


def normalise(line: str) -> str:
    """Map the notations models use (LaTeX, Unicode operators, markdown) onto plain ASCII."""
    for pattern, repl in _REWRITES:
        line = pattern.sub(repl, line)
    return line.translate(_CHARS)


def _runs(tokens: list[Token | None]) -> list[list[Token]]:
    runs: list[list[Token]] = [[]]
    for tok in tokens:
        if tok is None:
            runs.append([])
        else:
            runs[-1].append(tok)
    return [r for r in runs if any(t.kind == "=" for t in r)]


def _longest(tokens: list[Token], *, suffix: bool) -> Poly | None:
    """The longest parseable suffix (left of '=') or prefix (right of '=') of a run."""
    spans = (
        [tokens[i:] for i in range(len(tokens))]
        if suffix
        else [tokens[:j] for j in range(len(tokens), 0, -1)]
    )
    for span in spans:
        try:
            return parse(span)
        except ParseError:
            continue
    return None


def _whole(tokens: list[Token]) -> Poly | None:
    try:
        return parse(tokens)
    except ParseError:
        return None


def equation_chains(line: str) -> list[list[Poly]]:
    """Each chain `a = b = c` stated in a line, as parsed sides (two or more)."""
    chains: list[list[Poly]] = []
    for run in _runs(tokenize(normalise(line))):
        parts: list[list[Token]] = [[]]
        for tok in run:
            if tok.kind == "=":
                parts.append([])
            else:
                parts[-1].append(tok)
        sides: list[Poly | None] = []
        for i, part in enumerate(parts):
            if i == 0:
                sides.append(_longest(part, suffix=True))
            elif i == len(parts) - 1:
                sides.append(_longest(part, suffix=False))
            else:
                sides.append(_whole(part))
        current: list[Poly] = []
        for side in [*sides, None]:
            if side is None:
                if len(current) >= 2:
                    chains.append(current)
                current = []
            else:
                current.append(side)
    return chains


def _same_set(found: SolutionSet | None, expected: SolutionSet) -> bool:
    return found is not None and type(found) is type(expected) and found == expected


def _check_pair(left: Poly, right: Poly, variable: str, expected: SolutionSet) -> str:
    """Why `left = right` contradicts the problem, or "" when it is consistent with it."""
    stray = (left.names | right.names) - {variable}
    if stray:
        return f"an equation in {', '.join(sorted(stray))}, not {variable}"
    found = solution_set(left, right)
    if left.is_const() and right.is_const():
        if found == "all" or expected == "none":
            return ""
        return "a false arithmetic statement"
    if not _same_set(found, expected):
        return "an equation not equivalent to the problem"
    return ""


def _is_variable(poly: Poly, variable: str) -> bool:
    return poly.names == {variable} and poly.coeffs == {1: Fraction(1)}


def _states_value(chains: list[list[Poly]], variable: str, value: Fraction) -> bool:
    for chain in chains:
        for a, b in itertools.pairwise(chain):
            for v, c in ((a, b), (b, a)):
                if _is_variable(v, variable) and not c.names and c.value() == value:
                    return True
    return False


def _meaningful(line: str) -> bool:
    return any(ch.isalnum() for ch in line)


def problem_in(text: str, variable: str) -> tuple[Poly, Poly] | None:
    """The one equation in `variable` alone that `text` (a prompt) states, or None."""
    found = [
        (chain[0], chain[1])
        for line in text.splitlines()
        for chain in equation_chains(line)
        if len(chain) == 2 and (chain[0].names | chain[1].names) == {variable}
    ]
    return found[0] if len(found) == 1 else None


def problem_text(prompt: str, variable: str) -> str | None:
    """The equation a prompt states, written out for a workload line's `equation`."""
    found = problem_in(prompt, variable)
    if found is None:
        return None
    return " = ".join(_written(side, variable) for side in found)


def _written(poly: Poly, variable: str) -> str:
    terms = [f"({c})*{variable}^{d}" if d else f"({c})" for d, c in sorted(poly.coeffs.items())]
    return " + ".join(terms) or "0"


def check_linear(
    output: str, variable: str, solution: str, equation: str | None = None
) -> Verdict:
    expected = parse_solution(solution)
    lines = [ln for ln in output.splitlines() if _meaningful(ln)]
    if not lines:
        return Verdict(False, "empty answer")
    chains: list[tuple[int, list[Poly]]] = []
    for number, line in enumerate(lines, start=1):
        for chain in equation_chains(line):
            chains.append((number, chain))
            for left, right in itertools.pairwise(chain):
                why = _check_pair(left, right, variable, expected)
                if why:
                    return Verdict(False, f"line {number} states {why}: {line.strip()!r}")
    problem = problem_in(equation, variable) if equation else None
    if equation and problem is None:
        return Verdict(False, f"the check's equation is not one in {variable}: {equation!r}")
    bare = len(chains) == 1 and chains[0][0] == len(lines)  # the result alone: no derivation
    if problem is not None and not bare:
        value = expected if isinstance(expected, Fraction) else None
        gap = Judge(problem, variable, value).first_gap(chains)
        if gap is not None:
            number, why = gap
            return Verdict(False, f"line {number} states {why}: {lines[number - 1].strip()!r}")
    final = lines[-1]
    if expected == "none":
        if not _NO_SOLUTION.search(final):
            return Verdict(False, f"final line does not say there is no solution: {final!r}")
    elif expected == "all":
        if not _ALL_VALUES.search(final):
            return Verdict(False, f"final line does not say every value solves it: {final!r}")
    elif isinstance(expected, Fraction) and not _states_value(
        equation_chains(final), variable, expected
    ):
        return Verdict(False, f"final line does not state {variable} = {solution}: {final!r}")
    return PASS


class _DuplicateKey(ValueError):
    pass


class _NonStandard(ValueError):
    pass


def _non_standard(constant: str) -> Any:
    """NaN and Infinity: Python's reader takes them, the JSON standard does not."""
    raise _NonStandard(constant)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def same_value(expected: Any, actual: Any) -> bool:
    """Equal as JSON values: booleans are not numbers, numbers compare exactly, text trimmed."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, int | float):
        return isinstance(actual, int | float) and Fraction(actual) == Fraction(expected)
    if isinstance(expected, str):
        return isinstance(actual, str) and actual.strip() == expected.strip()
    return bool(expected == actual)


def check_json(output: str, schema: dict[str, Any], equals: dict[str, Any]) -> Verdict:
    text = output.strip()
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates,
                          parse_constant=_non_standard)
    except _DuplicateKey as exc:
        return Verdict(False, f"duplicate key {exc}")
    except _NonStandard as exc:
        return Verdict(False, f"{exc} is no JSON value")
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            return Verdict(False, "more than one JSON value, or text after the object")
        return Verdict(False, f"not a single JSON object: {exc.msg} at {exc.pos}")
    if not isinstance(data, dict):
        return Verdict(False, f"a JSON {type(data).__name__}, not an object")
    error = jsonschema.exceptions.best_match(
        jsonschema.validators.validator_for(schema)(schema).iter_errors(data)
    )
    if error is not None:
        return Verdict(False, f"schema: {error.message}")
    for key, value in equals.items():
        if key not in data:
            return Verdict(False, f"missing key {key!r}")
        if not same_value(value, data[key]):
            return Verdict(False, f"{key} is {data[key]!r}, expected {value!r}")
    return PASS


def check(output: str, spec: dict[str, Any]) -> Verdict:
    """Judge one served answer against its workload check."""
    kind = spec.get("kind")
    if kind == "linear":
        equation = spec.get("equation")
        return check_linear(
            output, str(spec["variable"]), str(spec["solution"]),
            str(equation) if equation else None,
        )
    if kind == "json":
        return check_json(output, dict(spec.get("schema", {})), dict(spec.get("equals", {})))
    return Verdict(False, f"unknown check kind {kind!r}")
