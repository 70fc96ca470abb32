"""Quantities a solution forms on the way, however it writes them: counts stay whole and
what is left stays positive.

Recomputation redoes each `=`, but the words may have taken a floor or a "none" that the
arithmetic does not show: 30 eggs fill 7 boxes of 4, not 7.5; 250 of 300 free minutes
leave no extra minutes, not -50. The cached answer, solved where the count was whole and
the need positive, writes the same arithmetic either way. So a count that was whole stays
whole and a quantity that was positive stays positive, wherever it stands:
- a count is any number a computation uses (stated or computed) or any operation it makes
  (`18 + 12`, `5 × 6`), over any number the solution divides by, through the results it
  uses (`$3 / 4 = $0.75` per egg, then `30 × $0.75`: 30 over 4) and in every grouping the
  writing allows (`$2 × 30 / 4` is also `$2 × (30 / 4)`); a factor below one that a
  whole number divides (`× 0.5` for half a pizza, `× 25%` an egg's share of a box of 4)
  divides by that number. A quotient the solution writes as money (`$70 / 4 = $17.50`
  each) is money; any other is a count (`$70 / 4 × 3 × $2`: whole passes, whatever
  words name the price);
- a part that was at most its whole stays so, read the same ways (`100 × (30 + 20) / 40`),
  and so does a product with a factor below one (`(30 + 20) × 0.025` of a barrel);
- every operation inside a computation keeps its sign, and so does what any two terms of
  a sum make, one added and one taken off, through the sums of earlier results
  (`$0.10 × 250 - $30` after `300 × $0.10 = $30`; a credit taken off calls priced in
  cents).
Each holds unless an earlier instance solved with the same words had the new side.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.orders import (
    WHOLE,
    ZERO,
    computing_parts,
    is_percent,
    numbers,
    old_and_new,
    restated_result,
    sub_value,
)
from stepchat.core.tasks.wordprob.solution import Bin, Expr, Neg, Num
from stepchat.core.tasks.wordprob.values import order

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

MAX_FACTORS = 5
"""Factors of one product, or terms of one sum, whose every grouping is read. A longer
product is read as written and factor by factor where counts are checked; where orders
are compared, it declines."""


def check_quantities(p: RolePass) -> None:
    _check_counts(p)
    _check_parts(p)
    _check_signs(p)


# ---------------------------------------------------------------------------- counts


def _check_counts(p: RolePass) -> None:
    divisors = [d for expr in computing_parts(p) for d in _divisors(p, expr)]
    written_as_money = {p.results[j].expr for j in p.results if p.sol.atoms[j].currency}
    read: set[tuple[Bin, frozenset[int]]] = set()
    for expr in computing_parts(p):
        for quotient, scaled in _counts(p, expr, divisors):
            if (quotient, scaled) in read:
                continue
            read.add((quotient, scaled))
            pair = old_and_new(p, quotient, scaled)
            if quotient in written_as_money or pair is None or not (
                pair[0].denominator == 1 != pair[1].denominator
            ):
                continue
            value = sub_value(p, quotient, scaled)
            if value is not None and all(v is None or v.denominator == 1 for v in value.seen):
                raise Declined("a count that was whole would not be: whole things (full "
                               "boxes, buses, passes) are not recomputed by dividing")


def _counts(
    p: RolePass, expr: Expr, divisors: list[Expr]
) -> Iterator[tuple[Bin, frozenset[int]]]:
    """Every quotient that may be a count, with the percents read as hundredths in it."""
    none: frozenset[int] = frozenset()
    for quotient in _divisions(p, expr):
        yield quotient, none
    shares = list(_shares_of_one(p, expr))
    below = [(divisor, set(numbers(divisor))) for divisor in divisors]
    counted: list[Expr] = [*(Num(a) for a in numbers(expr)), *_inner(expr)]
    for count in counted:
        inside = set(numbers(count))
        for divisor, its in below:
            if not inside & its:
                yield Bin("/", count, divisor), none
        for share in shares:
            if share.atom not in inside:
                yield Bin("*", count, share), _percents(p, share)


def _divisors(p: RolePass, expr: Expr) -> Iterator[Expr]:
    """What `expr` divides by, in every grouping and through the results it uses."""
    for chain in _chains(expr):
        yield from _flat(p, chain)[1]


def _shares_of_one(p: RolePass, expr: Expr) -> Iterator[Num]:
    """The factors of `expr` below one that a whole number divides: half, a quarter, 25%."""
    for chain in _chains(expr):
        for factor in _flat(p, chain)[0]:
            if isinstance(factor, Num):
                pair = old_and_new(p, factor, _percents(p, factor))
                if pair is not None and 0 < pair[0] < 1 and (1 / pair[0]).denominator == 1:
                    yield factor


def _percents(p: RolePass, number: Num) -> frozenset[int]:
    """The number, where it is a percent: what to read as hundredths."""
    return frozenset({number.atom}) if is_percent(p, number.atom) else frozenset()


def groupings(p: RolePass, expr: Expr) -> Iterator[Expr]:
    """The quantities a computation forms on the way, which words may name and compare,
    through the results it uses: each operation as written; each group of a product's
    factors, over each group of the numbers it divides by (`10 × 5 × 6` is also
    `10 × (5 × 6)`, `40 × 18 / 4` also `40 × (18 / 4)`), with one term of a sum among
    the factors in place of the sum (`(3 + 4) × 5 × 2` is also `3 × 5`, `(200 + 40) / 4`
    also `200 / 4`); each group of a sum's terms (`50 + 20 + 25` is also
    `50 + (20 + 25)`). Results of lines that read a percent as hundredths are followed
    too (`9 × 10 × 80% = 72`, then `72 × 5`: also `9 × 5`); the caller reads each percent
    the way its own line does. A sum, or a product with its divisors, of more than
    `MAX_FACTORS` numbers declines: its groups are too many to compare."""
    yield from _inner(expr)
    for chain in _chains(expr):
        yield from _factor_groups(p, *_flat(p, chain, scaled_too=True))
    for node in _inner(expr):
        if node.op in "+-":
            yield from _term_groups(_terms(p, node, False, scaled_too=True))


def _factor_groups(p: RolePass, above: list[Expr], below: list[Expr]) -> Iterator[Expr]:
    """Each group of `above` (one of its sums, or one term of it, in each), multiplied
    and divided by each group of `below`: every quantity the product forms."""
    if len(above) + len(below) > MAX_FACTORS:
        raise Declined(f"a product of {len(above) + len(below)} numbers: every group of it "
                       "cannot be compared")
    divisors = [list(group) for size in range(len(below) + 1)
                for group in combinations(below, size)]
    for size in range(1, len(above) + 1):
        for group in combinations(above, size):
            for factors in _with_one_term(p, list(group)):
                for divisor in divisors:
                    if len(factors) + len(divisor) > 1:
                        product = _joined("*", factors)
                        yield Bin("/", product, _joined("*", divisor)) if divisor else product


def _with_one_term(p: RolePass, factors: list[Expr]) -> Iterator[list[Expr]]:
    """`factors` as they are, and with each term of each sum among them in its place, or
    each group of that term's factors where the term is a product (`(10 × 20 + 8) × 7` is
    also `10 × 7`: the hours of 10 a day for 7 days, beside 20 boxes an hour)."""
    yield factors
    for k, factor in enumerate(factors):
        terms = _terms(p, factor, False, scaled_too=True)
        if len(terms) > 1:
            for _, term in terms:
                for part in _term_factor_groups(p, term):
                    yield [*factors[:k], part, *factors[k + 1:]]


def _term_factor_groups(p: RolePass, term: Expr) -> Iterator[Expr]:
    """The term, and each smaller group of its factors where it is a product with no
    divisor, through the results it uses."""
    yield term
    above, below = _flat(p, term, scaled_too=True)
    if below or not 1 < len(above) <= MAX_FACTORS:
        return
    for size in range(1, len(above)):
        for group in combinations(above, size):
            yield _joined("*", list(group))


def added_terms(p: RolePass, expr: Expr) -> int:
    """How many terms a sum adds, through the sums of earlier results it uses (as
    `groupings` reads them); 0 where it is no sum or takes a term off."""
    terms = _terms(p, expr, False, scaled_too=True)
    return len(terms) if len(terms) > 1 and not any(minus for minus, _ in terms) else 0


def _term_groups(terms: list[tuple[bool, Expr]]) -> Iterator[Expr]:
    """Each group of two or more of `terms`, short of all of them, as the terms added less
    the terms taken off; a group of terms all taken off is what they take off together
    (`30 - 5 - 8`: 5 + 8)."""
    if len(terms) > MAX_FACTORS:
        raise Declined(f"a sum of {len(terms)} terms: every group of it cannot be compared")
    for size in range(2, len(terms)):
        for group in combinations(terms, size):
            added = [t for minus, t in group if not minus]
            taken = [t for minus, t in group if minus]
            total = _joined("+", added or taken)
            if added and taken:
                total = Bin("-", total, _joined("+", taken))
            yield total


def _joined(op: str, parts: list[Expr]) -> Expr:
    """`parts` joined by `op`, left to right."""
    total = parts[0]
    for part in parts[1:]:
        total = Bin(op, total, part)
    return total


def _divisions(p: RolePass, expr: Expr) -> Iterator[Bin]:
    """Each division as written, and each group of factors of a product over each factor
    it is divided by, through the results it uses: `3 × 24 / 6` is also `3 × (24 / 6)`."""
    yield from (node for node in _inner(expr) if node.op == "/")
    for chain in _chains(expr):
        above, below = _flat(p, chain)
        if not below or len(above) + len(below) <= 2:
            continue
        groups = [above] if len(above) > MAX_FACTORS else [
            list(group) for size in range(1, len(above) + 1)
            for group in combinations(above, size)]
        for group in groups:
            product = _joined("*", group)
            yield from (Bin("/", product, b) for b in below)


def _chains(expr: Expr) -> Iterator[Bin]:
    """The products and quotients of `expr` that are no factor of another."""
    if isinstance(expr, Neg):
        yield from _chains(expr.operand)
    elif isinstance(expr, Bin) and expr.op in "*/":
        yield expr
        for factor in _factors(expr):
            yield from _chains(factor)
    elif isinstance(expr, Bin):
        yield from _chains(expr.left)
        yield from _chains(expr.right)


def _factors(expr: Expr) -> Iterator[Expr]:
    """What a product or quotient is made of, as written (the operands of its `×` and
    `/`), or the expression itself."""
    if isinstance(expr, Bin) and expr.op in "*/":
        yield from _factors(expr.left)
        yield from _factors(expr.right)
    else:
        yield expr


def _flat(
    p: RolePass, expr: Expr, *, scaled_too: bool = False
) -> tuple[list[Expr], list[Expr]]:
    """The factors a product and quotient multiplies by and divides by; an earlier result
    that is itself a product or quotient counts as its factors (`100% / 40 = 2.5%` too,
    where the percent sign is only written, not read as hundredths; `scaled_too`: where
    it is read so as well)."""
    if isinstance(expr, Bin) and expr.op in "*/":
        above, below = _flat(p, expr.left, scaled_too=scaled_too)
        right_above, right_below = _flat(p, expr.right, scaled_too=scaled_too)
        if expr.op == "*":
            return above + right_above, below + right_below
        return above + right_below, below + right_above
    if isinstance(expr, Num):
        made = _made_by(p, expr.atom, scaled_too=scaled_too)
        if made is not None and isinstance(made, Bin) and made.op in "*/":
            return _flat(p, made, scaled_too=scaled_too)
    return [expr], []


def _made_by(p: RolePass, atom: int, *, scaled_too: bool = False) -> Expr | None:
    """The expression of the earlier result the number at `atom` restates, where its
    statement reads no percent as hundredths (or, `scaled_too`, any statement: for a
    caller that reads each percent as its own line does)."""
    j = restated_result(p, atom)
    if j is None or (p.scaled[p.place[j][0]] and not scaled_too):
        return None
    return p.results[j].expr


def _inner(expr: Expr) -> Iterator[Bin]:
    """Each operation of the expression, the whole of it too."""
    if isinstance(expr, Neg):
        yield from _inner(expr.operand)
    elif isinstance(expr, Bin):
        yield expr
        yield from _inner(expr.left)
        yield from _inner(expr.right)


# ---------------------------------------------------------------------------- shares


def _check_parts(p: RolePass) -> None:
    """A part that was at most its whole stays so: a quotient, read as above, and a
    product with a factor below one (`(30 + 20) × 0.025` of a barrel, `60 × 2%` of a full
    charge, the percent read as hundredths where its statement reads it so)."""
    for statement in p.statements:
        if not statement.links:
            continue
        for part in statement.parts:
            scaled = p.scaled[p.place[part.numbers[0]][0]] if part.numbers else False
            for share, hundredths in _parts(p, part.expr, scaled):
                pair = old_and_new(p, share, hundredths)
                if pair is None or not 0 < pair[0] <= WHOLE or (
                    order(pair[0], WHOLE) == order(pair[1], WHOLE)
                ):
                    continue  # no share, or on its side of the whole as before
                value = sub_value(p, share, hundredths)
                if value is not None and not value.keeps(WHOLE):
                    raise Declined("a part that was at most its whole would exceed it")


def _parts(
    p: RolePass, expr: Expr, scaled: bool
) -> Iterator[tuple[Expr, frozenset[int]]]:
    none: frozenset[int] = frozenset()
    for quotient in _divisions(p, expr):
        yield quotient, none
    for chain in _chains(expr):
        hundredths = frozenset().union(*(_percents(p, Num(a)) for a in numbers(chain))) if (
            scaled) else none
        below_one = any(
            (pair := old_and_new(p, factor, hundredths)) is not None and 0 < pair[0] < 1
            for factor in _factors(chain) if isinstance(factor, Num))
        if below_one:
            yield chain, hundredths


# ---------------------------------------------------------------------------- signs


def _check_signs(p: RolePass) -> None:
    for expr in computing_parts(p):
        for inner in _inner(expr):
            if _flips(p, inner):
                raise Declined("a quantity inside a computation would change sign: what "
                               "the words make of a negative need or remainder is not "
                               "recomputed")
        for (minus, first), (other, second) in combinations(_terms(p, expr, False), 2):
            if minus == other:
                continue
            if _flips(p, Bin("+", Neg(first) if minus else first,
                             Neg(second) if other else second)):
                raise Declined("a quantity two terms of a sum make would change sign: "
                               "what the words make of a negative need or remainder is not "
                               "recomputed")


def _flips(p: RolePass, expr: Expr) -> bool:
    pair = old_and_new(p, expr)
    if pair is None or order(pair[0], ZERO) == order(pair[1], ZERO):
        return False
    value = sub_value(p, expr)
    return value is not None and not value.keeps(ZERO)


def _terms(
    p: RolePass, expr: Expr, minus: bool, *, scaled_too: bool = False
) -> list[tuple[bool, Expr]]:
    """The terms of a sum or difference, each with whether it is taken off, through the
    sums and differences of earlier results it uses (`$25 + $30 = $55`, then `$55 - $40`;
    `scaled_too` as for `_flat`)."""
    if isinstance(expr, Neg):
        return _terms(p, expr.operand, not minus, scaled_too=scaled_too)
    if isinstance(expr, Bin) and expr.op in "+-":
        return [*_terms(p, expr.left, minus, scaled_too=scaled_too),
                *_terms(p, expr.right, minus != (expr.op == "-"), scaled_too=scaled_too)]
    if isinstance(expr, Num):
        made = _made_by(p, expr.atom, scaled_too=scaled_too)
        if isinstance(made, Bin | Neg) and (isinstance(made, Neg) or made.op in "+-"):
            return _terms(p, made, minus, scaled_too=scaled_too)
    return [(minus, expr)]


__all__ = ["check_quantities"]
