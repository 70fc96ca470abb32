"""The arithmetic a written solution states, read without knowing its language.

A solution line such as `6 inches/remora * 2 remoras = 12 inches` holds the statement
`6 * 2 = 12`: words right after a number are its unit, an operator before a word belongs to
a unit (`inches/foot`, `$10/hour`), and words between two numbers separate statements.
Each statement is a chain of parts joined by `=` or a comparison; a part is an expression
over number atoms, evaluated exactly (rationals) by a small recursive-descent parser, never
`eval`. A part that is a single number after `=` is a result: the value of the part before.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from stepchat.core.tasks.wordprob.atoms import Atom, decimal_mark
from stepchat.core.tasks.wordprob.atoms import atoms as read_atoms
from stepchat.core.tasks.wordprob.finalline import computing_atoms, final_shown
from stepchat.core.tasks.wordprob.joins import LINE_BREAK, joined

MAX_POWER = 4
MAX_PART_ATOMS = 200
"""Atoms of one side of a statement past which it is not read: the parser and the
evaluator recurse once per operation, and 1,000 `1 +` in a reply would exhaust the stack."""
MAX_BITS = 256
"""Values past this many bits (numerator or denominator) are not a word problem's."""


class Unreadable(ValueError):
    """A part that is not an expression this reader takes."""


@dataclass(frozen=True)
class Num:
    atom: int
    """Index of the number atom in the solution's atom list."""


@dataclass(frozen=True)
class Bin:
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Neg:
    operand: Expr


Expr = Num | Bin | Neg


@dataclass(frozen=True)
class Part:
    expr: Expr
    numbers: tuple[int, ...]
    """The number atoms of the part, in order."""

    @property
    def lone(self) -> bool:
        return isinstance(self.expr, Num)


@dataclass(frozen=True)
class Statement:
    """Parts joined by links ("=", or a comparison such as "<"), as written."""

    parts: tuple[Part, ...]
    links: tuple[str, ...]


@dataclass(frozen=True)
class Reading:
    """What a solution states: its statements, and what no statement could hold."""

    statements: list[Statement]
    unreadable: set[int]
    """Number atoms inside runs the parser could not read."""
    loose_links: set[int]
    """`=` and comparison atoms outside every statement read."""
    labels: set[int] = field(default_factory=set)
    """The `=` of each label (`Total cost = $3 * 4 = $12`)."""

    @property
    def checkable(self) -> bool:
        """At least one computation, and nothing this reader had to leave unchecked."""
        return bool(self.statements) and not self.unreadable and not self.loose_links and any(
            s.links for s in self.statements
        )


def solution_atoms(steps: Sequence[str], mark: str) -> tuple[list[Atom], list[int]]:
    """The atoms of a solution's steps with a line break between steps, and the step each
    atom is in (-1 for a break): one sequence, so a statement never runs across steps."""
    found: list[Atom] = []
    step_of: list[int] = []
    for index, text in enumerate(steps):
        if index:
            found.append(Atom("mark", 0, 0, LINE_BREAK))
            step_of.append(-1)
        for atom in read_atoms(text, mark):
            found.append(atom)
            step_of.append(index)
    return found, step_of


def statements(atoms: Sequence[Atom]) -> Reading:
    """The statements of a solution's atoms (a new Reading: the parse is remembered, since
    a cached solution is read again for every variant and every earlier instance)."""
    found, unreadable, loose, labels = _statements(tuple(atoms))
    return Reading(list(found), set(unreadable), set(loose), set(labels))


@lru_cache(maxsize=128)
def _statements(
    atoms: tuple[Atom, ...],
) -> tuple[tuple[Statement, ...], frozenset[int], frozenset[int], frozenset[int]]:
    reading = _read_statements(atoms)
    return (tuple(reading.statements), frozenset(reading.unreadable),
            frozenset(reading.loose_links), frozenset(reading.labels))


def _read_statements(atoms: Sequence[Atom]) -> Reading:
    found: list[Statement] = []
    unreadable: set[int] = set()
    runs, labels = _runs(atoms)
    read_links: set[int] = set(labels)
    for run in runs:
        try:
            if _computes(atoms, run) and joined(atoms, run):
                raise Unreadable("a computation written as one with a number beside it")
            if any(atoms[i].marker for i in (run[0] - 1, *run) if i >= 0):
                raise Unreadable("a list marker or a sign: which one is not written")
            found.append(_statement(atoms, run))
        except Unreadable:
            unreadable.update(i for i in run if atoms[i].kind == "num")
            continue
        read_links.update(i for i in run if atoms[i].kind in ("eq", "rel"))
    unreadable |= _numbers_beside_identifiers(atoms)
    loose = {i for i, a in enumerate(atoms) if a.kind in ("eq", "rel")} - read_links
    return Reading(found, unreadable, loose, labels)


def _numbers_beside_identifiers(atoms: Sequence[Atom]) -> set[int]:
    """Every number of a solution that links values and has a word with digits in it
    anywhere (`4 trays, x12 cookies each = 16`, or the same with `x12` on the line before
    `Total = 16`, or `x₁₂`): a reader may read the word as arithmetic (times 12) wherever
    it stands, so nothing is checked as written."""
    links = any(a.kind in ("eq", "rel") for a in atoms)
    if links and any(_written_with_digits(atoms, i) for i in range(len(atoms))):
        return {i for i, a in enumerate(atoms) if a.kind == "num"}
    return set()


def _written_with_digits(atoms: Sequence[Atom], i: int) -> bool:
    """A word with digits in it, or followed at once by subscript or superscript digits
    other than a square or a cube (`x₁₂`, `x¹²`; `m²` is a unit)."""
    if _identifier(atoms[i]):
        return True
    after = atoms[i + 1] if i + 1 < len(atoms) else None
    return atoms[i].kind == "word" and after is not None and after.kind == "mark" and (
        after.start == atoms[i].end and after.text not in "²³" and all(
            unicodedata.digit(c, None) is not None for c in after.text))


def _computes(atoms: Sequence[Atom], run: list[int]) -> bool:
    return any(atoms[i].kind in ("eq", "rel") for i in run)


def relates_numbers(atoms: Sequence[Atom]) -> bool:
    """Whether the text writes a computation or a relation: a link (`=`, `<`, `≥`…) with a
    number before and after it on its line, read or not (`6² = 12`, `3 × Ⅻ = 36`): an
    answer this reader cannot check is then no open text, never stored. `x = 10` or
    `a == b` do not."""
    return any(
        atom.kind in ("eq", "rel") and _number_beside(atoms, i, -1) and _number_beside(atoms, i, 1)
        for i, atom in enumerate(atoms)
    )


def _number_beside(atoms: Sequence[Atom], i: int, step: int) -> bool:
    """A number on the line of `i`, before it (`step` -1) or after it (1)."""
    i += step
    while 0 <= i < len(atoms) and atoms[i].text != LINE_BREAK:
        if atoms[i].kind == "num" or _numeral(atoms[i].text):
            return True
        i += step
    return False


def _numeral(text: str) -> bool:
    """A letter that is a number (`Ⅻ`, `ⅻ`): no operand this reader reads."""
    return any(unicodedata.category(c) == "Nl" for c in text)


UNIT_WORDS = 2
"""Words after a number read as its unit (`6 inches`, `$10 per hour`, `6 inches/remora`)."""


def _runs(atoms: Sequence[Atom]) -> tuple[list[list[int]], set[int]]:
    """Maximal runs of numbers, operators, brackets and links, unit words dropped; and the
    `=` of each label (`Total cost = $3 * 4 = $12`), which names the computation after it
    and is no part of it."""
    runs: list[list[int]] = []
    labels: set[int] = set()
    cur: list[int] = []

    def flush() -> None:
        nonlocal cur
        if cur:
            runs.append(cur)
        cur = []

    i, n = 0, len(atoms)
    while i < n:
        atom = atoms[i]
        if atom.kind == "word":
            if _times_sign(atoms, i, cur):
                cur.append(i)
                i += 1
                continue
            if cur and atoms[cur[-1]].kind in ("num", "rp"):
                i = _skip_unit(atoms, i)
                if i < n and atoms[i].kind in ("num", "lp"):
                    flush()
                continue
            flush()
            i += 1
            continue
        if atom.kind == "op" and atom.text in UNIT_OPS and i + 1 < n and (
            atoms[i + 1].kind == "word") and not _times_sign(atoms, i + 1, [*cur, i]):
            # `inches/foot`, `$10/hour`, `10-foot`: the operator belongs to a unit.
            i = _skip_unit(atoms, i + 1)
            if i < n and atoms[i].kind in ("num", "lp"):
                flush()
            continue
        if atom.kind == "mark":
            flush()
            i += 1
            continue
        if _label_link(atoms, i, cur):
            labels.add(i)
            i += 1
            continue
        if atom.kind == "num" and cur and atoms[cur[-1]].kind == "num":
            flush()
        cur.append(i)
        i += 1
    flush()
    return runs, labels


UNIT_OPS = frozenset("/-")
"""Operators that may join a unit's words (`inches/foot`, `10-foot`); any other before a
word (`3 × twelve`, `5 + tax`) takes an operand this reader does not read."""


def _label_link(atoms: Sequence[Atom], i: int, cur: Sequence[int]) -> bool:
    """An `=` that opens a run right after a word and before a number or a bracket: the
    word names what follows (`Nikita = 1/2 * 278 + 11 = 150`)."""
    return (
        atoms[i].kind == "eq" and not cur and i > 0 and atoms[i - 1].kind == "word"
        and i + 1 < len(atoms) and atoms[i + 1].kind in ("num", "lp")
    )


def _times_sign(atoms: Sequence[Atom], i: int, cur: Sequence[int]) -> bool:
    """A lone `x` between two numbers is a multiplication sign (4 x 3)."""
    atom = atoms[i]
    return (
        atom.text in ("x", "X") and bool(cur) and atoms[cur[-1]].kind in ("num", "rp")
        and i + 1 < len(atoms) and atoms[i + 1].kind in ("num", "lp")
    )


def _identifier(atom: Atom) -> bool:
    """A word with digits in it (`x3`, `2h30`'s `h30`, `A4`). Skipped as a unit, it would
    make `12x3 = 12` read `12 = 12` and `2h30 + 1h45 = 3h15` read `2 + 1 = 3`; so a
    solution with one is not checked (`_numbers_beside_identifiers`)."""
    return atom.kind == "word" and any(c.isdigit() for c in atom.text)


def _skip_unit(atoms: Sequence[Atom], i: int) -> int:
    """Past the unit words at `i`: words, `op word` (inches/foot) and `(s)` decorations."""
    n = len(atoms)
    while i < n:
        kind = atoms[i].kind
        times = atoms[i].text in ("x", "X") and i + 1 < n and atoms[i + 1].kind in ("num", "lp")
        unit_op = kind == "op" and i + 1 < n and atoms[i + 1].kind == "word"
        if (kind == "word" and not times) or unit_op:
            i += 1
        elif kind == "lp" and i + 2 < n and atoms[i + 1].kind == "word" and (
            atoms[i + 2].kind == "rp"
        ):
            i += 3
        else:
            break
    return i


def _statement(atoms: Sequence[Atom], run: list[int]) -> Statement:
    parts: list[list[int]] = [[]]
    links: list[str] = []
    for i in run:
        if atoms[i].kind in ("eq", "rel"):
            links.append("=" if atoms[i].kind == "eq" else _canonical(atoms[i].text))
            parts.append([])
        else:
            parts[-1].append(i)
    if any(not p for p in parts):
        raise Unreadable("an empty side")
    return Statement(tuple(_part(atoms, p) for p in parts), tuple(links))


def _canonical(rel: str) -> str:
    return {"≤": "<=", "≥": ">=", "≠": "!=", "<": "<", ">": ">"}.get(rel, rel)


def _part(atoms: Sequence[Atom], indices: list[int]) -> Part:
    if len(indices) > MAX_PART_ATOMS:
        raise Unreadable("a side longer than any word problem's")
    parser = _Parser(atoms, indices)
    expr = parser.expression()
    if parser.pos != len(indices):
        raise Unreadable("trailing atoms")
    return Part(expr, tuple(i for i in indices if atoms[i].kind == "num"))


class _Parser:
    """expression := term (('+'|'-') term)*; term := power (('*'|'/'|implicit) power)*."""

    def __init__(self, atoms: Sequence[Atom], indices: list[int]) -> None:
        self.atoms = atoms
        self.indices = indices
        self.pos = 0
        self.depth = 0

    def _peek(self) -> Atom | None:
        return self.atoms[self.indices[self.pos]] if self.pos < len(self.indices) else None

    def _op(self) -> str | None:
        atom = self._peek()
        if atom is None:
            return None
        if atom.kind == "op":
            return atom.text
        if atom.kind == "word":  # a multiplication `x`, accepted by the run builder
            return "*"
        return None

    def expression(self) -> Expr:
        expr = self.term()
        while self._op() in ("+", "-"):
            op = self._op()
            self.pos += 1
            expr = Bin(str(op), expr, self.term())
        return expr

    def term(self) -> Expr:
        expr = self.power()
        while True:
            op = self._op()
            atom = self._peek()
            if op in ("*", "/"):
                self.pos += 1
                expr = Bin(str(op), expr, self.power())
            elif atom is not None and atom.kind == "lp":  # 2(5 + 10)
                expr = Bin("*", expr, self.power())
            else:
                return expr

    def power(self) -> Expr:
        base = self.unary()
        if self._op() == "^":
            self.pos += 1
            return Bin("^", base, self.unary())
        return base

    def unary(self) -> Expr:
        if self._op() == "-":
            self.pos += 1
            return Neg(self.unary())
        atom = self._peek()
        if atom is None:
            raise Unreadable("missing operand")
        if atom.kind == "num":
            self.pos += 1
            return Num(self.indices[self.pos - 1])
        if atom.kind == "lp":
            self.depth += 1
            if self.depth > 20:
                raise Unreadable("nested too deep")
            self.pos += 1
            inner = self.expression()
            closing = self._peek()
            if closing is None or closing.kind != "rp":
                raise Unreadable("unclosed bracket")
            self.pos += 1
            self.depth -= 1
            return inner
        raise Unreadable(f"unexpected {atom.text!r}")


def evaluate(expr: Expr, values: dict[int, Fraction]) -> Fraction:
    """The exact value of `expr` with each number atom's value; ZeroDivisionError and
    Unreadable (a power too large) propagate."""
    if isinstance(expr, Num):
        return values[expr.atom]
    if isinstance(expr, Neg):
        return -evaluate(expr.operand, values)
    return combine(expr.op, evaluate(expr.left, values), evaluate(expr.right, values))


def combine(op: str, left: Fraction, right: Fraction) -> Fraction:
    """`left op right` exactly; ZeroDivisionError and Unreadable (a power or a value too
    large) propagate."""
    if op == "+":
        out = left + right
    elif op == "-":
        out = left - right
    elif op == "*":
        out = left * right
    elif op == "/":
        out = left / right
    else:
        if right.denominator != 1 or not 0 <= right <= MAX_POWER:
            raise Unreadable("a power this reader does not take")
        out = left ** int(right)
    if max(abs(out.numerator).bit_length(), out.denominator.bit_length()) > MAX_BITS:
        raise Unreadable("a value too large")
    return out


@dataclass(frozen=True)
class Operand:
    """Where a number stands in an expression: the operator it is an operand of ("neg"
    under a unary minus, "" when it is the whole expression), on which side, and the
    other operand beside it."""

    atom: int
    op: str
    right: bool
    sibling: Expr | None


def operands(
    expr: Expr, parent: tuple[str, bool, Expr | None] = ("", False, None)
) -> list[Operand]:
    """Every number of `expr` with its place: what a number is used as (a factor, a
    divisor, a term of a sum) is what its role in the words must agree with."""
    if isinstance(expr, Num):
        return [Operand(expr.atom, *parent)]
    if isinstance(expr, Neg):
        return operands(expr.operand, ("neg", False, None))
    return [*operands(expr.left, (expr.op, False, expr.right)),
            *operands(expr.right, (expr.op, True, expr.left))]


def holds(left: Fraction, link: str, right: Fraction) -> bool:
    return {
        "=": left == right, "<": left < right, ">": left > right, "<=": left <= right,
        ">=": left >= right, "!=": left != right,
    }[link]


def answer_holds(text: str) -> bool:
    """Every computation written holds exactly and the answer ends by stating the last
    computation's result (`final_shown`). Read line by line, as a cached solution's steps
    are: a computation never runs across a line."""
    mark = decimal_mark(text)
    if mark is None:  # its numbers read with both marks: which computation holds is unknown
        return False
    lines = text.splitlines()
    found, step_of = solution_atoms(lines, mark)
    if not any(a.kind == "num" for a in found):
        return False
    reading = statements(found)
    if not reading.checkable or not _labels_hold(found, reading):
        return False
    return final_shown(lines, found, step_of, reading) and all(
        _statement_holds(statement, found) for statement in reading.statements)


def _labels_hold(found: Sequence[Atom], reading: Reading) -> bool:
    """A label of a lone number (`Apples = 16`) restates a number some computation
    writes, and the value the label last named: `Apples = 3 × 5 = 15` then `Apples = 16`
    holds no computation false, and says the answer is another number. A label may name
    a new computation (`Total = 5 + 3 = 8`, then `Total = 8 + 2 = 10`)."""
    computed = {found[a].value for a in computing_atoms(reading)}
    named: dict[tuple[str, ...], Fraction | None] = {}
    for link in sorted(reading.labels):
        statement = next((s for s in reading.statements
                          if s.parts[0].numbers and s.parts[0].numbers[0] > link), None)
        if statement is None or not statement.parts[-1].lone:
            continue
        value = found[statement.parts[-1].numbers[0]].value
        words = _label_words(found, link)
        if not statement.links and (value not in computed or named.get(words, value) != value):
            return False
        named[words] = value
    return True


def _label_words(found: Sequence[Atom], link: int) -> tuple[str, ...]:
    i = link
    while i > 0 and found[i - 1].kind == "word":
        i -= 1
    return tuple(a.text.casefold() for a in found[i:link])


def _statement_holds(statement: Statement, found: Sequence[Atom]) -> bool:
    """The statement holds with percent signs read as hundredths, or as written where only
    its result carries one (`100 - 20 = 80%`): `80 × 25% = 2000` reads as 20."""
    for sides in part_values(statement, found):
        if sides is None:  # a division by zero or a part this reader cannot evaluate
            return False
        if sides_hold(statement, sides):
            return True
    return False


def sides_hold(statement: Statement, sides: Sequence[Fraction]) -> bool:
    """Every link of the statement holds between the values of the parts it joins."""
    return all(holds(x, link, y)
               for x, link, y in zip(sides, statement.links, sides[1:], strict=False))


def part_values(statement: Statement, found: Sequence[Atom]) -> Iterator[list[Fraction] | None]:
    """The values of the statement's parts under each reading of its percent signs, as
    written first where no operand carries one; None where a part cannot be evaluated."""
    operands = [a for part in statement.parts[:-1] for a in part.numbers]
    as_written = not any(found[a].percent for a in operands)
    for scaled in ((False, True) if as_written else (True,)):
        values = {
            a: (found[a].value or Fraction(0)) / (100 if scaled and found[a].percent else 1)
            for part in statement.parts for a in part.numbers
        }
        try:
            yield [evaluate(part.expr, values) for part in statement.parts]
        except (ZeroDivisionError, Unreadable):
            yield None


def expr_text(found: Sequence[Atom], expr: Expr) -> str:
    """`expr` in the solution's own numbers, bracketed where it groups: `(18 / 4)`."""
    if isinstance(expr, Neg):
        return f"(-{expr_text(found, expr.operand)})"
    if isinstance(expr, Bin):
        return f"({expr_text(found, expr.left)} {expr.op} {expr_text(found, expr.right)})"
    return found[expr.atom].text
