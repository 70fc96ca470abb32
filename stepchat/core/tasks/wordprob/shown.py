"""What a recomputation can show, and the declines for everything else.

Recomputation redoes arithmetic; it cannot redo reasoning written in words. So when a
stated value changes, a cached solution is reused only when its dependence on the stated
values is all arithmetic the pass recomputes:
- every changed stated value is an operand of a computation (a value the solution only
  mentions, or does not use at all, may decide a branch, a constant or a fact in words:
  "2024 is a leap year", "so she is a child"; earlier instances cannot make it safe, since
  they only show that it did not matter for their values);
- a number outside a computation (a condition, a comparison or a choice in words, "more
  than 9", "fewer than Ana's 12", is never re-checked) is only allowed as a restatement:
  on a line that computes, of a stated value or unit a computation uses, in the same
  order against the stated values as before ("14 intervals of 10 minutes"); list labels
  and the final answer restated are no mention;
- every constant inside a computation is a unit of a closed table (60 minutes, 100 per
  cent): any other constant (the 4 * 3 * 2 * 1 of a factorial, the / 2 of a handshake
  count, a remainder, a rounded value) comes from reasoning about the values, which
  changes with them; so does how often one value is repeated in an expression
  (`100 * 2 * 2 * 2` after 3 doublings);
- a stated value keeps the meaning the cached one had: a whole count stays whole and not
  negative, a share of at most 100 per cent stays at most 100, and a value that may be a
  clock time written h.mm (two decimals below 60: 8.45 Uhr) does not change at all, since
  its minutes carry at 60.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.atoms import Atom
from stepchat.core.tasks.wordprob.guards import Declined, must_be_used
from stepchat.core.tasks.wordprob.orders import (
    changed_orders,
    order_value,
    result_values,
    slot_values,
)
from stepchat.core.tasks.wordprob.reasoned import check_not_reasoned
from stepchat.core.tasks.wordprob.scripts import is_word
from stepchat.core.tasks.wordprob.solution import operands as places
from stepchat.core.tasks.wordprob.values import (
    CALENDAR_CONSTANTS,
    MINUTES,
    UNIT_CONSTANTS,
    clock_minutes,
    written_in_hundredths,
)
from stepchat.core.tasks.wordprob.wordfactors import accounted

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.recompute import RolePass


def check_shown(p: RolePass, changed: set[int]) -> None:
    """Decline unless every dependence of the solution on the changed values is arithmetic."""
    _check_meaning(p, changed)
    _check_unchanged_terms(p)
    by_words = accounted(p, p.factors)
    table = UNIT_CONSTANTS - CALENDAR_CONSTANTS if _whole_changed(p) else UNIT_CONSTANTS
    for i, role in p.roles.items():
        if p.in_computation(i) and i not in p.sol.labels:
            if not role.sources and role.old not in table and i not in by_words:
                raise Declined(f"{p.sol.atoms[i].text} is a constant of the solution that no "
                               "stated value or unit gives: it may come from reasoning about "
                               "the values (how many things are named, the days in a "
                               "month), which recomputation cannot redo")
            if i not in by_words and (not role.sources or _kept(p, i) or _worded(p, i)):
                check_not_reasoned(p, i)
    _check_repetitions(p)
    check_words(p)
    for k, slot in enumerate(p.slots):
        if ("slot", k) in p.operands:
            continue
        if slot.changed:
            raise Declined(f"{slot.old.text} changed and is no operand of the "
                           "solution's arithmetic")
        if must_be_used(slot):
            raise Declined(f"{slot.old.text} is stated and no computation uses it: the "
                           "solution chose in words (a threshold, another rate), which "
                           "recomputation cannot redo")


def check_words(p: RolePass) -> None:
    """Decline where the solution says something in words that no recomputation checks:
    a number written outside a computation that is no mere restatement (`_check_mention`),
    or a step that reasons in words with no number. Read for changed values, and for a
    rename with none: "Pierre est un prénom français, donc Pierre reçoit 8 euros" decides
    by the name what a renamed Hans would not get."""
    constants = {role.old for i, role in p.roles.items()
                 if p.in_computation(i) and i not in p.sol.labels and not role.sources}
    arithmetic = {p.sol.step_of[i] for i in p.roles if p.in_computation(i)}
    for i in p.roles:
        if i in p.sol.labels or i in p.final_atoms or p.in_computation(i):
            continue
        _check_mention(p, i, arithmetic, constants)
    with_numbers = {p.sol.step_of[i] for i, a in enumerate(p.sol.atoms) if a.kind == "num"}
    for step, text in enumerate(p.sol.steps):
        if step not in with_numbers and any(c.isalpha() for c in text):
            raise Declined(f"the step {text[:40]!r} reasons in words with no number: what it "
                           "says of the values cannot be re-checked")


def check_followed(p: RolePass, names_at: frozenset[int] = frozenset()) -> None:
    """An operand that takes a new value must be shown to follow what it was read as: by
    an earlier instance in which that stated value or result had another value and the
    solution's number had it too. One solution cannot show it: a quantity this reader
    does not see (a number word of a language it does not read, "दो", "пятнадцать",
    "ふたつ", a compound numeral "二十", the sign "½") can have the value of a stated digit
    or of a result, and the number then follows the wrong one. So the first variant of a
    problem goes to the model, and its answer is the instance the next one needs.

    Only an instance that differs from the cached request in numbers alone shows it, and
    only for a new request that does too (`names_at`: where the new request renames a
    name, any name will do; two words that read as numbers in one language are a slot):
    an instance whose unseen word changed together with the digit ("Три" and 3 to
    "Четыре" and 4; Swedish "Två" to "Tre", where only "Tre" reads as a number) shows
    nothing of the digit, and a new request with another word there may state another
    value in it."""
    if any(i not in names_at for i, _ in p.renamed_at):
        evidence: list[int] = []
    else:
        evidence = [k for k, w in enumerate(p.witnesses)
                    if all(i in names_at or i in w.number_words for i in w.words)]
    for i, role in p.roles.items():
        if not p.in_computation(i) or i in p.results or i in p.sol.labels:
            continue
        if not role.sources or role.new == role.old:
            continue
        seen = [role.seen[k] for k in _words_kept(p, i, evidence) if k < len(role.seen)]
        if not any(v is not None and v != role.old for v in seen):
            raise Declined(f"{p.sol.atoms[i].text} takes a new value and no earlier "
                           "instance that differs in numbers alone shows it following what "
                           "it was read as: a quantity written in words may have the same "
                           "value")


def _words_kept(p: RolePass, i: int, evidence: list[int]) -> list[int]:
    """The instances of `evidence` that kept every stated number word the number at atom
    `i` is not read as. A word is read alone, but it may be part of a quantity this
    reader does not see, which then changes with it: a compound numeral ("twenty three"),
    a scale or a unit ("four thousand", "four hours" in minutes), a fraction ("four and a
    half"), a time ("four in the afternoon"), a square or a product ("a side of ten
    metres", "seven hours at eighty km/h"). A digit beside it that changed in step in
    every instance shows nothing of which one the number follows."""
    own = {k for kind, k in p.roles[i].sources if kind == "slot"}
    words = [slot for k, slot in enumerate(p.slots) if k not in own and is_word(slot.old.text)]
    return [k for k in evidence
            if all(p.witnesses[k].slots.get(slot.key) == slot.old.value for slot in words)]


def _whole_changed(p: RolePass) -> bool:
    """A stated whole number changed: it may be a year, which with a day named in words
    sets how long that day or year is."""
    return any(slot.changed and not slot.new.currency and not slot.new.percent
               and slot.new.value is not None and slot.new.value.denominator == 1
               for slot in p.slots)


def _kept(p: RolePass, i: int) -> bool:
    """A number the recomputation keeps: an unchanged stated value."""
    role = p.roles[i]
    return bool(role.sources) and role.old == role.new and all(
        kind == "slot" and not p.slots[k].changed for kind, k in role.sources)


def _worded(p: RolePass, i: int) -> bool:
    """A number stated by a number word, changed or not: "due", "fire", "tres veces",
    "three friends" state a value equal to a step of reasoning by coincidence more often
    than a digit does, and the word then takes the reasoning's place."""
    role = p.roles[i]
    return bool(role.sources) and all(
        kind == "slot" and is_word(p.slots[k].old.text) for kind, k in role.sources)


def _check_unchanged_terms(p: RolePass) -> None:
    """A stated value that did not change, added or subtracted (`20 - 2`), reads the same
    as a constant of that value from reasoning (the remainder of 20 eggs in boxes of 6,
    beside "2 baskets"): a constant changes with the values, the stated value does not.
    Only an earlier instance where the number followed the stated value shows which."""
    for statement in p.statements:
        if not statement.links:
            continue
        for part in statement.parts:
            for place in places(part.expr):
                role = p.roles[place.atom]
                if place.op not in ("+", "-", "neg") or not _kept(p, place.atom):
                    continue
                if any(v is not None and v != role.old for v in p.written(place.atom)):
                    continue
                raise Declined(f"{p.sol.atoms[place.atom].text} is stated and unchanged and "
                               "is added or subtracted: a constant of the same value (a "
                               "remainder, a rounding) would read the same")


def _check_repetitions(p: RolePass) -> None:
    """One value written several times in one expression (`100 * 2 * 2 * 2`, `5 + 5 + 5`)
    repeats it a number of times the values decide (doublings in 9 hours): the count is
    not recomputed, so the same stated value or constant twice in an expression declines."""
    for statement in p.statements:
        for part in statement.parts:
            seen: set[object] = set()
            for a in part.numbers:
                role = p.roles[a]
                key = role.sources or role.old
                if key in seen:
                    raise Declined(f"{p.sol.atoms[a].text} is repeated in one computation: "
                                   "how many times may depend on the changed values")
                seen.add(key)


def _check_mention(
    p: RolePass, i: int, arithmetic: set[int], constants: set[Fraction],
) -> None:
    """A number written outside a computation is only a restatement: on a line that
    computes, of a stated value, a unit or a result some computation uses, in the same
    order against every stated value as before, or as in an earlier instance solved with
    the solution's words (a comparison in words between them would read the same). A
    restated result also keeps its order against every other result, computed before it
    or after ("Ana has more than 9" still holds whichever of them Ana's count is). A
    number no computation uses says in words what no recomputation checks."""
    role = p.roles[i]
    text = p.sol.atoms[i].text
    if p.sol.step_of[i] not in arithmetic and p.sol.step_of[i] not in p.sol.definitions:
        raise Declined(f"{text} is written on a line that does not compute: what the "
                       "solution says of it in words cannot be re-checked")
    if not (role.sources & p.operands) and not (
            not role.sources and role.old in constants):
        raise Declined(f"{text} is written outside a computation and is no stated value, "
                       "result or unit a computation uses: what the solution says of it in "
                       "words cannot be re-checked")
    mention = order_value(p, text, role.old, role.new, role.seen)
    others = list(slot_values(p).values())
    if any(kind == "result" for kind, _ in role.sources):
        # Every other result, computed before it or after ("B costs 6.50 against A's 8,
        # so…" before both are computed).
        others += [v for j, v in result_values(p).items() if ("result", j) not in role.sources]
    flipped = changed_orders([(mention, other) for other in others], len(p.witnesses))
    if flipped:
        raise Declined(f"{text} is written outside a computation and its order against "
                       f"{flipped[0][1].text} changed: a comparison in words would not hold")


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
        if _may_be_clock_time(old) and not any(
                clock_minutes(w.slots[p.slots[k].key]) >= MINUTES for w in p.witnesses
                if p.slots[k].key in w.slots):
            raise Declined(f"{old.text} changed and is written as a time h.mm is (two "
                           "decimals below 60): clock minutes carry at 60 and borrow 60, "
                           "which decimal arithmetic does not")


def _may_be_clock_time(number: Atom) -> bool:
    """A number written with exactly two decimals below 60, not money nor a percent: 8.45
    Uhr, 10.15 am, a film of 1.55. An earlier instance with 60 or more there shows it is
    no time."""
    return (not number.currency and not number.percent and number.value is not None
            and written_in_hundredths(number.text) and clock_minutes(number.value) < MINUTES)
