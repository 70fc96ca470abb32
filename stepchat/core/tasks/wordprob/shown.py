"""What a recomputation can show, and the declines for everything else.

Recomputation redoes arithmetic; it cannot redo reasoning written in words. So when a
stated value changes, a cached solution is reused only when its dependence on the stated
values is all arithmetic the pass recomputes:
- every changed stated value is an operand of a computation (a value the solution only
  mentions, or does not use at all, may decide a branch, a constant or a fact in words:
  "2024 is a leap year", "so she is a child"; earlier instances cannot make it safe, since
  they only show that it did not matter for their values);
- no number stands outside a computation (a condition, a comparison or a choice in words,
  "more than 9", "fewer than Ana's 12", is never re-checked), apart from list labels and
  the final answer restated;
- every constant inside a computation is a unit of a closed table (60 minutes, 100 per
  cent): any other constant (the 4 * 3 * 2 * 1 of a factorial, the / 2 of a handshake
  count, a remainder, a rounded value, a repeated factor) comes from reasoning about the
  values, which changes with them;
- a stated value keeps the meaning the cached one had: a whole count stays whole and not
  negative, a share of at most 100 per cent stays at most 100.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.guards import Declined

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass

UNIT_CONSTANTS = frozenset(Fraction(v) for v in (7, 12, 24, 52, 60, 100, 365, 1000, 3600))
"""Constants of unit conversions (days in a week, months, hours, weeks in a year,
minutes, per cent, days, thousands, seconds in an hour): the closed table of constants a
solution may use with changed values."""


def check_shown(p: RolePass, changed: set[int]) -> None:
    """Decline unless every dependence of the solution on the changed values is arithmetic."""
    _check_meaning(p, changed)
    operands: set[int] = set()
    for i, role in p.roles.items():
        if i in p.sol.labels or i in p.final_atoms:
            continue
        text = p.sol.atoms[i].text
        if not p.in_computation(i):
            raise Declined(f"{text} is written outside a computation: what the solution "
                           "says of it in words cannot be re-checked")
        if not role.sources and role.old not in UNIT_CONSTANTS:
            raise Declined(f"{text} is a constant of the solution that no stated value "
                           "gives: it may depend on the changed values")
        operands |= {k for kind, k in role.sources if kind == "slot"}
    for k in sorted(changed - operands):
        raise Declined(f"{p.slots[k].old.text} changed and is no operand of the "
                       "solution's arithmetic")


def _check_meaning(p: RolePass, changed: set[int]) -> None:
    """A changed stated value must mean what the cached one meant."""
    for k in changed:
        old, new = p.slots[k].old, p.slots[k].new
        assert old.value is not None and new.value is not None
        if old.value >= 0 > new.value:
            raise Declined(f"{new.text} is negative where {old.text} was not")
        whole = old.value.denominator == 1 and not old.currency and not old.percent
        if whole and new.value.denominator != 1:
            raise Declined(f"{new.text} is not whole where {old.text} was")
        if old.percent and old.value <= 100 < new.value:
            raise Declined(f"{new.text} is more than the whole where {old.text} was not")
