"""The checks a role assignment passes before a recomputed answer is served.

Two kinds. Relations hold or they do not: every `=` and comparison with the new values,
whole results staying whole, signs staying the same (`check_relations`). The others are
guards against a role in disguise, a hypothesis one solution cannot rule out: a stated 12
that is really the 12 of a dozen, a constant that is a changed value rounded or computed
in words, a constant that depends on a renamed word. Each guard declines unless the
earlier instances of the problem (`RolePass.witnesses`) test its hypothesis and refute
it: a role the instances decided (`RolePass.decided`) needs no guard, and a constant is
shown constant when it kept its value in an instance where everything it could depend on
had another value (`shown_constant`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.scripts import is_word
from stepchat.core.tasks.wordprob.solution import Part, Unreadable, holds
from stepchat.core.tasks.wordprob.values import (
    CONVENTIONAL,
    IDENTITY_VALUES,
    derived_forms,
    one_step_from,
    rounds_to,
    sign,
)

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass
    from stepchat.core.tasks.wordprob.slot import Slot


class Declined(Exception):
    """The cached solution cannot be recomputed for this request; the text says why."""


# ---------------------------------------------------------------------- evidence


def kept_under_renames(p: RolePass, i: int) -> bool:
    """Whether the constant at atom `i` is shown constant (below) in an instance solved with
    the new request's renamed words: a constant kept while "Monday to Friday" became
    "Tuesday to Saturday" says nothing of "Monday to Wednesday"."""
    return shown_constant(p, i) and any(
        all(w.words.get(pos) == new for pos, new in p.renamed_at) for w in p.witnesses
    )


def shown_constant(p: RolePass, i: int) -> bool:
    """Whether the earlier instances show the constant at atom `i` is no changed value in
    disguise: it kept its value where every changed slot and every result equal to it had
    another value, and no instance reads it as a neighbour rounded. (Whether it depends on
    a renamed word is `kept_under_renames`.)"""
    if not p.witnesses:
        return False
    value = p.roles[i].old
    for slot in p.slots:
        if slot.changed and all(w.slots[slot.key] == slot.old.value for w in p.witnesses):
            return False
    for j in p.results:
        if j != i and p.roles[j].old == value and all(
            w.numbers[j] == value for w in p.witnesses
        ):
            return False
    return not any(_rounded_everywhere(p, i, j) for j in _changed_beside(p, i))


def _rounded_everywhere(p: RolePass, i: int, j: int) -> bool:
    """Atom `i` could be atom `j` rounded, in the cached solution and every instance
    alike (atom `i` has one value in all of them: it is a constant)."""
    numbers = [p.roles[j].old, *(b for b in p.written(j) if b is not None)]
    return rounds_to(p.roles[i].old, numbers)


def _changed_beside(p: RolePass, i: int) -> list[int]:
    step = p.sol.step_of[i]
    return [j for j, role in p.roles.items()
            if j != i and p.sol.step_of[j] == step and role.old != role.new]


def _all_decided(p: RolePass, source: tuple[str, int]) -> bool:
    """Every number that could have `source` as its role had it decided by the instances."""
    could = [i for i, sources in p.candidates.items() if source in sources]
    return bool(could) and all(i in p.decided for i in could)


# ---------------------------------------------------------------------- guards


def check_unreadable(p: RolePass) -> None:
    for i in p.unreadable:
        role = p.roles.get(i)
        if role is not None and role.old != role.new:
            raise Declined(f"{p.sol.atoms[i].text} is in a computation this reader "
                            "cannot check")
    if p.loose_links:
        raise Declined("a relation this reader cannot check")


def check_constants(p: RolePass, changed: set[int]) -> None:
    results = {p.sol.atoms[j].value for j in p.results}
    derived = derived_forms([p.slots[k].old.value or Fraction(0) for k in changed])
    for i in p.constant_atoms():
        if shown_constant(p, i):
            continue
        value = p.roles[i].old
        text = p.sol.atoms[i].text
        if value in results:
            raise Declined(f"{text} is also a result of the solution")
        if value in derived:
            raise Declined(f"{text} could be a changed value in another form")
        if p.in_computation(i):
            continue
        if _changed_beside(p, i):
            raise Declined(f"{text} stands beside a changed value with no computation "
                            "between them (rounded, or computed in words)")
        if one_step_from(value, _nearby(p, i)):
            raise Declined(f"{text} could be computed in words from the numbers before it")


def _nearby(p: RolePass, i: int) -> list[tuple[Fraction, bool]]:
    """The numbers written before atom `i` on its line and the line before: where a
    result computed in words ("half of 20 is 10") takes its operands from."""
    step = p.sol.step_of[i]
    return [
        (role.old, role.old != role.new)
        for j, role in p.roles.items()
        if j < i and step - 1 <= p.sol.step_of[j] <= step and role.sources
    ]


def check_slot_uses(p: RolePass, changed: set[int]) -> None:
    uses: dict[int, set[int]] = {k: set() for k in range(len(p.slots))}
    mentioned: set[int] = set()
    for i, role in p.roles.items():
        for kind, k in role.sources:
            if kind != "slot":
                continue
            mentioned.add(k)
            if p.in_computation(i):
                uses[k].add(p.place[i][0])
    for k in changed:
        slot = p.slots[k]
        if k not in mentioned:
            if any(("slot", k) in sources for sources in p.candidates.values()):
                # The solution could use it and the instances read it unused: they may
                # have dropped a stated value the cached reasoning uses.
                raise Declined(f"{slot.old.text} could be used by the cached solution and "
                               "the earlier instances do not use it")
            if any(w.slots[slot.key] != slot.old.value for w in p.witnesses):
                continue  # an instance changed it and the solution still held unchanged
            raise Declined(f"{slot.old.text} is not used by the cached solution")
        if _all_decided(p, ("slot", k)):
            continue
        if slot.old.value in IDENTITY_VALUES:
            raise Declined(f"a stated {slot.old.text} reads like an implicit one")
        if len(uses[k]) > 1 and slot.old.value in CONVENTIONAL:
            raise Declined(f"{slot.old.text} is used by more than one computation")
    for statement in p.statements:
        for part in statement.parts:
            _check_repeats(p, part)
    _check_result_uses(p)


def _check_result_uses(p: RolePass) -> None:
    """A changed result used by two later computations: the second use may be a
    constant that happens to equal it (12 days a month, then 12 months a year)."""
    uses: dict[int, set[int]] = {}
    for i, role in p.roles.items():
        if i in p.results or role.old == role.new or not p.in_computation(i):
            continue
        for kind, j in role.sources:
            if kind == "result":
                uses.setdefault(j, set()).add(p.place[i][0])
    for j, statements_ in uses.items():
        if len(statements_) > 1 and p.roles[j].old in CONVENTIONAL and not _all_decided(
            p, ("result", j)
        ):
            raise Declined(f"{p.sol.atoms[j].text} is used by more than one later "
                            "computation")


def _check_repeats(p: RolePass, part: Part) -> None:
    """One changed source twice in one expression (12 / 12): one may be a constant."""
    seen: set[tuple[str, int]] = set()
    for a in part.numbers:
        role = p.roles[a]
        if role.old == role.new:
            continue
        if seen & role.sources and a not in p.decided:
            raise Declined(f"{p.sol.atoms[a].text} appears twice in one computation")
        seen |= role.sources


def check_renamed(p: RolePass, names: Sequence[str], words: Sequence[str]) -> None:
    """Renamed words. A word that is not a name is never renamed against the instance
    recomputed from: an instance solved with the new words shows what the solution does
    with them for its own values only ("more than eight sweaters" solved with 9 says
    nothing of 5 sweaters with the numbers of a "more than four" instance), so such a
    request is recomputed only from an instance solved with its words, when the entry
    keeps one (`handler`). A renamed name may change no constant the instances do not
    show constant, and leaves no stated value unused: a solution that picks one of the
    values ("the Spanish student has 8 euros, the French one 5") may pick by what the
    name tells (Juan is Spanish, Pierre French; a name day; Rose among roses)."""
    if words:
        raise Declined(f"{words[0]!r} changed: only an instance solved with the new words "
                       "shows what the solution does with them")
    for k, slot in enumerate(p.slots):
        if ("slot", k) not in p.operands and must_be_used(slot):
            raise Declined(f"{names[0]!r} changed and {slot.old.text} is stated and no "
                           "computation uses it: the solution chose among the values in "
                           "words, and a name's language, saint's day or meaning may be "
                           "what chose")
    for i in p.constant_atoms():
        if not kept_under_renames(p, i):
            raise Declined(f"{names[0]!r} changed and {p.sol.atoms[i].text} is a "
                           "constant that could depend on it")


def must_be_used(slot: Slot) -> bool:
    """Whether an unchanged stated value is one the solution must compute with, where a
    value left unused means it chose in words: "miles" reads as Spanish 1000, and an
    unchanged word is a reading, not a statement; an unchanged 0 is the minutes of
    "9:00"."""
    return not (is_word(slot.old.text) or slot.old.value == 0)


def check_relations(p: RolePass) -> None:
    for s_index, statement in enumerate(p.statements):
        sides_old, sides_new = [], []
        for part in statement.parts:
            try:
                sides_old.append(p.value_of(part, s_index, "old"))
                sides_new.append(p.value_of(part, s_index, "new"))
            except ZeroDivisionError:
                raise Declined("a division by zero with the new values") from None
            except Unreadable as exc:
                raise Declined(str(exc)) from None
        for k, link in enumerate(statement.links):
            if not holds(sides_old[k], link, sides_old[k + 1]):
                raise Declined("a statement of the solution does not hold")
            if not holds(sides_new[k], link, sides_new[k + 1]):
                raise Declined(f"{link!r} no longer holds with the new values")
    for i in p.results:
        role = p.roles[i]
        money = bool(p.sol.atoms[i].currency)
        if role.old.denominator == 1 and role.new.denominator != 1 and not money:
            raise Declined(f"{p.sol.atoms[i].text} was whole and would not be")
        if sign(role.old) != sign(role.new):
            raise Declined(f"{p.sol.atoms[i].text} would change sign")
