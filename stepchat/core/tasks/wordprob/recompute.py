"""Reuse by recomputation: a cached solution's arithmetic redone with a new request's values.

Every number of the cached solution is given one role before anything is served:
- a value the request states (a slot), which takes the new request's value in that place;
- the result of a statement written before it (`6 * 2 = 12`, then `12` again), recomputed;
- a constant of the solution that comes from no slot (12 inches in a foot), kept.
A role must hold in every earlier instance of the problem the entry keeps (`evidence`):
there a stated value has that instance's value, a result its computation's, a constant
the same value. Where the instances leave one role, it is decided; where one solution
alone leaves two with different outcomes, the request declines. Where nothing tested a
role, `guards` decline what could be another role in disguise (a constant that is a
changed value in another written form, one operation away from the changed values).
Then every relation is checked with the new values: each `=` and comparison, each whole
result stays whole, each sign stays the same. Nothing here knows a language: words only
matter as the unchanged text around the numbers, which `request.py` has already shown to
be the same.

The same pass corrects a fresh answer: with unchanged slots, a result whose written value
is not what its expression gives is rewritten, and every later use of it follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property

from stepchat.core.tasks.wordprob import (
    coincidences,
    compared,
    guards,
    orders,
    properties,
    quantities,
    rests,
    shown,
)
from stepchat.core.tasks.wordprob.atoms import Atom, ambiguous_group
from stepchat.core.tasks.wordprob.evidence import Witness
from stepchat.core.tasks.wordprob.guards import Declined
from stepchat.core.tasks.wordprob.multwords import FactorWord
from stepchat.core.tasks.wordprob.render import render_number
from stepchat.core.tasks.wordprob.slot import Slot
from stepchat.core.tasks.wordprob.solution import (
    UNIT_WORDS,
    Bin,
    Expr,
    Num,
    Part,
    Statement,
    Unreadable,
    evaluate,
    holds,
    operands,
    solution_atoms,
    statements,
)
from stepchat.core.tasks.wordprob.values import CONVERSIONS, IDENTITY_VALUES

__all__ = ["Declined", "Outcome", "RolePass", "Slot", "recompute"]


@dataclass
class Outcome:
    """The recomputed steps, and what the pass found on the way."""

    texts: list[str]
    corrections: int = 0
    """Results whose written value was wrong (a fresh answer's arithmetic slips)."""
    constants: int = 0
    final: Fraction | None = None
    decided: int = 0
    """Numbers whose role the earlier instances decided where one solution could not."""


@dataclass
class Role:
    old: Fraction
    """The value the number really had in the cached solution (corrected if it was a slip)."""
    new: Fraction
    sources: frozenset[tuple[str, int]] = field(default_factory=frozenset)
    seen: tuple[Fraction, ...] = ()
    """The value this role gives in each earlier instance, in `RolePass.witnesses` order."""


_Option = tuple[Fraction, Fraction, tuple[Fraction, ...], tuple[str, int] | None]
"""(old value, new value, value in each earlier instance, source or None for a constant)."""


class Solution:
    """The solution's atoms across its steps, with a line break between steps."""

    def __init__(self, steps: Sequence[str], mark: str) -> None:
        self.steps = list(steps)
        self.mark = mark
        self.atoms, self.step_of = solution_atoms(steps, mark)
        self.labels = _labels(self.atoms, self.step_of)
        self.definitions = _definitions(self.atoms, self.step_of)
        """Steps that only name a number (`Pierson = 278 points`): a restatement, as a
        line that computes is, never reasoning in words."""


DIVIDED_FROM = 24
"""The smallest factor a value is also read as divided by: a quotient by a smaller one is
one of too many (14 / 7 beside a stated 2, 50 / 10 beside a stated $5)."""


def _conversion(old: Fraction, value: Fraction) -> Fraction | None:
    """The factor of `CONVERSIONS` that turns `old` into `value` (3 dozen into 36, 2 hours
    into 120 minutes; from `DIVIDED_FROM` on, into the larger unit too: 180 minutes into 3
    hours), or None. A 0 or a 1 converted is the unit's own constant, a role already."""
    if old in IDENTITY_VALUES or not value:
        return None
    factor = value / old
    up = factor in CONVERSIONS
    return factor if up or (1 / factor >= DIVIDED_FROM and 1 / factor in CONVERSIONS) else None


def _definitions(items: Sequence[Atom], step_of: Sequence[int]) -> set[int]:
    """Steps written `words = number`, with at most a unit and a full stop after it."""
    by_step: dict[int, list[Atom]] = {}
    for atom, step in zip(items, step_of, strict=True):
        if step >= 0:
            by_step.setdefault(step, []).append(atom)
    found: set[int] = set()
    for step, line in by_step.items():
        if line and line[-1].kind == "mark" and line[-1].text == ".":
            line = line[:-1]
        kinds = [a.kind for a in line]
        if "eq" not in kinds:
            continue
        link = kinds.index("eq")
        label, rest = kinds[:link], kinds[link + 1:]
        if label and set(label) == {"word"} and rest[:1] == ["num"] and (
            len(rest) <= 1 + UNIT_WORDS and set(rest[1:]) <= {"word"}
        ):
            found.add(step)
    return found


def _labels(items: Sequence[Atom], step_of: Sequence[int]) -> set[int]:
    """List labels at the start of a line (`1.`, `2)`, `Step 3:`): numbering, not numbers."""
    found: set[int] = set()
    for i, atom in enumerate(items):
        first = i == 0 or items[i - 1].text == "\n"
        second = i >= 1 and items[i - 1].kind == "word" and (i == 1 or items[i - 2].text == "\n")
        if atom.kind == "num" and (first or second) and i + 1 < len(items) and (
            items[i + 1].kind in ("mark", "rp") and items[i + 1].text in ".):"
            and step_of[i + 1] == step_of[i]
        ):
            found.add(i)
    return found


def recompute(
    steps: Sequence[str],
    slots: Sequence[Slot],
    mark: str,
    *,
    renames: dict[str, str] | None = None,
    currency: dict[str, str] | None = None,
    names: Sequence[str] = (),
    words: Sequence[str] = (),
    renamed_at: Sequence[tuple[int, str]] = (),
    word_at: Sequence[int] = (),
    witnesses: Sequence[Witness] = (),
    factors: Sequence[FactorWord] = (),
) -> Outcome:
    """The steps rewritten for the new slot values, or `Declined` with the reason.

    `names` and `words` are renamed words (not number words) at request positions
    `renamed_at` (`word_at` for `words`, renamed where earlier instances varied);
    `witnesses` are earlier instances of the problem read in its places; `factors` the
    multiplier and fraction words both requests write alike ("twice", "half").
    A constant can depend on a renamed word (Monday to Friday is 5 days; 12 inches in a
    foot, 3 in a yard), so a solution with a constant is renamed only where an instance
    solved with the new words shows the constant staying."""
    solution = Solution(steps, mark)
    usable = [w for w in witnesses if all(s.key in w.slots for s in slots)]
    pass_ = RolePass(solution, list(slots), usable, tuple(renamed_at), list(factors))
    pass_.run()
    pass_.check()
    if names or words:
        guards.check_renamed(pass_, names, words)
        if not any(slot.changed for slot in pass_.slots):
            shown.check_words(pass_)  # `check_shown` reads them where a value changed
    # Last: every other reason to decline is the more telling one.
    shown.check_followed(pass_, frozenset(i for i, _ in renamed_at if i not in word_at))
    compared.check_compared(pass_)
    return pass_.outcome(renames or {}, currency or {})


class RolePass:
    """One solution's numbers given roles for one new request, then checked."""

    def __init__(
        self, solution: Solution, slots: list[Slot], witnesses: Sequence[Witness] = (),
        renamed_at: tuple[tuple[int, str], ...] = (), factors: list[FactorWord] | None = None,
    ) -> None:
        self.sol = solution
        self.factors = factors or []
        self.slots = slots
        self.witnesses = list(witnesses)
        self.renamed_at = renamed_at
        reading = statements(solution.atoms)
        self.statements = reading.statements
        self.unreadable = reading.unreadable
        self.loose_links = reading.loose_links
        self.roles: dict[int, Role] = {}
        self.results: dict[int, Part] = {}
        """Result atom -> the part it is the value of."""
        self.scaled: dict[int, bool] = {}
        """Statement index -> percent signs read as hundredths."""
        self.place: dict[int, tuple[int, int]] = {}
        for s_index, statement in enumerate(self.statements):
            for p_index, part in enumerate(statement.parts):
                for atom in part.numbers:
                    self.place[atom] = (s_index, p_index)
        self.corrections = 0
        self.decided: set[int] = set()
        """Numbers that fit several roles in this solution and one in the earlier instances."""
        self.candidates: dict[int, set[tuple[str, int]]] = {}
        """The slots and results each number could stand for in this solution alone."""
        self.final_atoms: set[int] = set()
        """Numbers that restate the final answer ("#### 10")."""
        self.value_pairs: dict[tuple[Expr, frozenset[int]],
                               tuple[Fraction, Fraction] | None] = {}
        """Each sub-expression's cached and new values as the checks read them
        (`orders.old_and_new`), remembered once the roles are set: the candidate counts,
        parts and signs of a solution share most of their nodes."""
        self.seen_values: dict[tuple[Expr, frozenset[int]], tuple[object, ...]] = {}
        """Each sub-expression's value in each earlier instance (`orders.sub_seen`),
        remembered node by node as `value_pairs` is."""
        self.step_values: dict[tuple[int, int, int, int, bool],
                               frozenset[tuple[int, int]]] = {}
        """What one step of reasoning gives on each pair of cached values
        (`reasoned.check_not_reasoned`), remembered for the pass."""

    # ------------------------------------------------------------------ roles

    def run(self) -> None:
        for s_index, statement in enumerate(self.statements):
            self.scaled[s_index] = self._reading(statement)
            self._mark_results(statement)
        numbers = [i for i, a in enumerate(self.sol.atoms)
                   if a.kind == "num" and a.value is not None]
        # A number outside every computation is read last: on its line it may restate a
        # result computed after it ("$38 per person because 19 * 2 = 38").
        computing = {i for i in numbers if self.in_computation(i) or i in self.sol.labels}
        for i in [*sorted(computing), *(i for i in numbers if i not in computing)]:
            atom = self.sol.atoms[i]
            value = atom.value or Fraction(0)
            if i in self.sol.labels:
                self.roles[i] = Role(value, value, seen=self._constant(value))
            elif i in self.results:
                self._result(i)
            else:
                self.roles[i] = self._role(i, atom)
            if self.roles[i].seen != self.written(i):
                raise Declined(f"{atom.text} does not follow this solution in an earlier "
                               "instance of the problem")

    def written(self, i: int) -> tuple[Fraction | None, ...]:
        """The number each earlier instance writes at atom `i`."""
        return tuple(w.numbers[i] for w in self.witnesses)

    def _constant(self, value: Fraction) -> tuple[Fraction, ...]:
        return (value,) * len(self.witnesses)

    def _reading(self, statement: Statement) -> bool:
        """Whether percent signs in this statement mean hundredths (20% * 50 = 10) or
        are only written beside the number (1/10 * 100% = 10%): the reading that holds."""
        percents = any(self.sol.atoms[a].percent for p in statement.parts for a in p.numbers)
        if not percents:
            return False
        for scaled in (False, True):
            values = {
                a: self._scale(a, self.sol.atoms[a].value or Fraction(0), scaled)
                for p in statement.parts for a in p.numbers
            }
            try:
                sides = [evaluate(p.expr, values) for p in statement.parts]
            except (ZeroDivisionError, Unreadable):
                continue
            if all(holds(a, link, b) for a, link, b in zip(
                sides, statement.links, sides[1:], strict=False
            )):
                return scaled
        return any(self.sol.atoms[a].percent for a in statement.parts[0].numbers)

    def _scale(self, atom: int, value: Fraction, scaled: bool) -> Fraction:
        return value / 100 if scaled and self.sol.atoms[atom].percent else value

    def value_of(self, part: Part, s_index: int, pick: int | str) -> Fraction:
        """The part's value with its numbers' old ("old"), new ("new") or instance `pick`
        values; ZeroDivisionError and Unreadable propagate."""
        scaled = self.scaled[s_index]

        def of(role: Role) -> Fraction:
            if pick == "old":
                return role.old
            if pick == "new":
                return role.new
            assert isinstance(pick, int)
            return role.seen[pick]

        return evaluate(part.expr, {a: self._scale(a, of(self.roles[a]), scaled)
                                    for a in part.numbers})

    def _mark_results(self, statement: Statement) -> None:
        """A lone number after `=` is the value of the part before it; so is the first
        number of a part that carries a running total on (5 * 3 = 15 + 2 = 17)."""
        for k in range(1, len(statement.parts)):
            part, before = statement.parts[k], statement.parts[k - 1]
            if statement.links[k - 1] != "=" or (before.lone and k == 1):
                continue
            if part.lone or self._running(before, part):
                self.results[part.numbers[0]] = before

    def _running(self, before: Part, part: Part) -> bool:
        atoms_ = self.sol.atoms
        written = {a: atoms_[a].value or Fraction(0) for a in (*before.numbers, *part.numbers)}
        try:
            same = evaluate(before.expr, written) == evaluate(part.expr, written)
        except (ZeroDivisionError, Unreadable):
            return False
        first = part.numbers[0]
        starts = atoms_[first].start == min(atoms_[a].start for a in part.numbers)
        return not same and starts and written[first] == evaluate(before.expr, written)

    def _result(self, i: int) -> None:
        part = self.results[i]
        s_index, _ = self.place[i]
        unit = Fraction(1, 100) if self.scaled[s_index] and self.sol.atoms[i].percent else 1
        try:
            old = self.value_of(part, s_index, "old") / unit
            new = self.value_of(part, s_index, "new") / unit
            seen = tuple(self.value_of(part, s_index, w) / unit
                         for w in range(len(self.witnesses)))
        except ZeroDivisionError:
            raise Declined("a division by zero with the new values") from None
        except Unreadable as exc:
            raise Declined(str(exc)) from None
        if self.sol.atoms[i].value != old:
            self._check_slip(i, part, old)
            self.corrections += 1
        self.roles[i] = Role(old, new, frozenset({("result", i)}), seen)

    def _check_slip(self, i: int, part: Part, value: Fraction) -> None:
        """A result that does not hold is a slip to correct only when everything that
        makes it is written as arithmetic this reader reads whole:
        - the computation is numbers, operators and brackets alone, from its first number
          to its `=`, and opens its clause (a line, or after a mark and a space): a word
          or a sign inside or just before it may be an operand or a unit this reader does
          not read ("half of 50 + 9 = 34", "4 hours + 10 minutes = 250", "80 + 10
          percent", "7² + 5²", "√144 + 5");
        - it is no fraction of two numbers alone (`2/5 = 3`, `1 / 4 = 10`): a part of a
          whole written elsewhere ("of the 7.5 kg", "of the forty people");
        - no percent is added or taken off (`50 + 20% = 60`: a change by a share), no
          result carries a percent sign its computation does not (`0.5 * 80 = 45%` is
          40 or 0.4; corrected, `138 = 50%` read `138 = 138%`), and its amounts are in
          one currency (`$2 + 50¢ = $2.50`);
        - the result is no whole multiple of the computation, nor a whole part of it
          (`3/5 = 30` of a whole in words, `1/2 = 30` minutes of an hour).
        Correcting any of these would show a wrong number in a right answer, so such an
        answer is shown as written. (No answer that needed a correction is stored, the
        handler's `integrity` sees to that: what is read as a slip may be a unit the
        solution writes nowhere, "2 + 30 = 2.5" for hours and minutes.)"""
        atoms_ = self.sol.atoms
        first = min(part.numbers)
        start = first
        while start > 0 and atoms_[start - 1].kind == "lp":
            start -= 1
        before = atoms_[start - 1] if start > 0 and self.sol.step_of[start - 1] == (
            self.sol.step_of[first]) else None
        inside = {atoms_[j].kind for j in range(first, i)}
        if not inside <= {"num", "op", "lp", "rp", "eq"} or (before is not None and (
            before.kind not in ("mark", "eq") or not atoms_[start].spaced
        )):
            raise Declined(f"{atoms_[i].text} follows a computation written with words or "
                           "signs this reader does not read: not a slip to correct")
        signs = {atoms_[n].currency for n in (*part.numbers, i) if atoms_[n].currency}
        if len(signs) > 1:
            raise Declined(f"{atoms_[i].text} follows amounts in {' and '.join(sorted(signs))}:"
                           " a rate between them is no slip to correct")
        expr = part.expr
        if isinstance(expr, Bin) and expr.op == "/" and isinstance(expr.left, Num) and (
            isinstance(expr.right, Num)
        ):
            raise Declined(f"{atoms_[i].text} is what a fraction of a whole written "
                           "elsewhere comes to: an operand in words, not a slip")
        if any(atoms_[place.atom].percent and place.op in ("+", "-")
               for place in operands(expr)):
            raise Declined(f"{atoms_[i].text} follows a percent added or taken off "
                           "(`50 + 20% = 60`): a change by a share, not a slip")
        if atoms_[i].percent and not any(atoms_[n].percent for n in part.numbers):
            raise Declined(f"{atoms_[i].text} carries a percent sign its computation does not "
                           "(`0.5 * 80 = 45%`, `138 = 50%`): whether it is a share or "
                           "percentage points is not written, so no slip to correct")
        written = atoms_[i].value or Fraction(0)
        if not value:
            return
        ratio = written / value
        if ratio.denominator == 1 or (ratio and (1 / ratio).denominator == 1):
            raise Declined(f"{atoms_[i].text} is a whole multiple of the computation "
                           "before it: an operand or a unit written elsewhere, not a slip")

    def _final_answer(self, i: int, atom: Atom) -> Role | None:
        """The last line stating only one number after the last computation states the
        final answer: the last result, when it has that value ("#### 10")."""
        numbers = [j for j, a in enumerate(self.sol.atoms) if a.kind == "num"]
        step = self.sol.step_of[i]
        if not self.results or numbers[-1] != i or step != len(self.sol.steps) - 1:
            return None
        if sum(1 for j in numbers if self.sol.step_of[j] == step) != 1 or (i in self.place and (
            self.statements[self.place[i][0]].links
        )):
            return None
        last = max(self.results)
        if self.sol.atoms[last].value != atom.value:
            return None
        if sum(1 for j in self.results if self.sol.atoms[j].value == atom.value) > 1:
            return None  # two results of that value: which one it states is a role to decide
        role = self.roles[last]
        return Role(role.old, role.new, frozenset({("result", last)}), role.seen)

    def _options(self, i: int, value: Fraction, atom: Atom) -> list[_Option]:
        """Every role the number could have in this solution: each slot and earlier result
        with its value, and a constant."""
        options: list[_Option] = []
        for k, (slot, seen) in enumerate(zip(self.slots, self.slot_seen, strict=True)):
            old, new = slot.old.value, slot.new.value
            assert old is not None and new is not None
            if old == value:
                options.append((old, new, seen, ("slot", k)))
            elif slot.old.percent and not atom.percent and old / 100 == value:
                options.append((old / 100, new / 100, tuple(v / 100 for v in seen), ("slot", k)))
        for j in self.results:
            later_on_its_line = j > i and self.sol.step_of[j] == self.sol.step_of[i] and (
                not self.in_computation(i))
            if (j < i or later_on_its_line) and self.sol.atoms[j].value == value:
                role = self.roles[j]
                options.append((role.old, role.new, role.seen, ("result", j)))
        options.append((value, value, self._constant(value), None))
        return options

    @cached_property
    def slot_seen(self) -> list[tuple[Fraction, ...]]:
        """Each slot's value in each earlier instance, in `witnesses` order."""
        return [tuple(w.slots[slot.key] for w in self.witnesses) for slot in self.slots]

    def _values(
        self, results: Sequence[int], leave_out: set[int] | frozenset[int] = frozenset(),
    ) -> list[tuple[Fraction, Fraction, tuple[Fraction | None, ...]]]:
        """Each stated value (but the slots `leave_out`) and each of `results`: its cached
        value, its new one and its value in each earlier instance."""
        values: list[tuple[Fraction, Fraction, tuple[Fraction | None, ...]]] = []
        for k, (slot, seen) in enumerate(zip(self.slots, self.slot_seen, strict=True)):
            old, new = slot.old.value, slot.new.value
            assert old is not None and new is not None
            if k not in leave_out:
                values.append((old, new, seen))
        return values + [(self.roles[j].old, self.roles[j].new, self.roles[j].seen)
                         for j in results]

    def _conversions(self, i: int, value: Fraction,
                     written: tuple[Fraction | None, ...]) -> set[tuple[Fraction, Fraction]]:
        """The cached and new values of each stated value and earlier result that a
        factor of `CONVERSIONS` turns into `value` in the cached answer and into what
        atom `i` has in every earlier instance: a conversion in words ("3 dozen eggs"
        used as 36) that nothing the solution writes tells from a stated value of the same
        value (a shelf numbered 36). It is read only beside a stated value: a product the
        solution writes (`4 * 15 = 60`) is its first factor converted by the second
        whenever that one is a unit's value, and a constant of the table beside one (7
        days beside 700 beds / 100) is a coincidence of the table's own."""
        found = set()
        for old, new, seen in self._values(results=[j for j in self.results if j < i]):
            factor = _conversion(old, value)
            if factor is not None and tuple(
                None if v is None else v * factor for v in seen
            ) == written:
                found.add((value, new * factor))
        return found

    def _check_proportions(self) -> None:
        """Decline where a number read as a stated percent in hundredths (1.5 for 150%)
        is also another stated value or a result, before or after it, in one fixed
        proportion in the cached answer and in every earlier instance, with another new
        value: 1.5 beside "150% as long" is also 18 months in years, its instance 30
        months beside 250%. No table of units lists every factor (months, pints,
        innings), and a share is a small number that any of them gives, so any factor
        counts here."""
        for i, role in self.roles.items():
            hundredths = {k for kind, k in role.sources
                          if kind == "slot" and self.slots[k].old.value != role.old}
            written = self.written(i)
            if not hundredths or not role.old or not written:
                continue
            for old, other_new, seen in self._values(
                results=[j for j in self.results if j != i], leave_out=hundredths,
            ):
                if not old:
                    continue
                ratio = old / role.old
                if other_new / ratio != role.new and all(
                    s is not None and w and s / w == ratio
                    for s, w in zip(seen, written, strict=False)
                ):
                    raise Declined(f"{self.sol.atoms[i].text} fits two roles with different "
                                   "values: a stated percent in hundredths, and another "
                                   "value in another unit")

    def _role(self, i: int, atom: Atom) -> Role:
        final = self._final_answer(i, atom)
        if final is not None:
            self.final_atoms.add(i)
            return final
        value = atom.value or Fraction(0)
        options = self._options(i, value, atom)
        self.candidates[i] = {o[3] for o in options if o[3] is not None}
        written = self.written(i)
        kept = [o for o in options if o[2] == written]
        if not kept:
            raise Declined(f"{atom.text} fits no role in an earlier instance of the problem")
        outcomes = {(o[0], o[1]) for o in kept}
        if len(outcomes) > 1:
            # Undecided: a stated value or a result before a constant, as one solution reads.
            kept = [o for o in kept if o[3] is not None]
            outcomes = {(o[0], o[1]) for o in kept}
            if len(outcomes) > 1:
                raise Declined(f"{atom.text} fits two roles with different values")
        elif len({(o[0], o[1]) for o in options}) > 1:
            self.decided.add(i)
        (old, new), = outcomes
        sources = frozenset(o[3] for o in kept if o[3] is not None and (o[0], o[1]) == (old, new))
        if any(kind == "slot" for kind, _ in sources) and any(
            pair != (old, new) for pair in self._conversions(i, value, written)
        ):
            raise Declined(f"{atom.text} fits two roles with different values: a stated "
                           "value, and another value or a result converted in words")
        return Role(old, new, sources, written if self.witnesses else ())  # type: ignore[arg-type]

    # ------------------------------------------------------------------ checks

    def check(self) -> None:
        changed = {k for k, slot in enumerate(self.slots) if slot.changed}
        if changed:
            shown.check_shown(self, changed)
            self._check_proportions()
            orders.check_orders(self)
            rests.check_rests(self)
            properties.check_properties(self)
            quantities.check_quantities(self)
            coincidences.check_base(self)
        if changed or self.corrections:
            guards.check_unreadable(self)
            guards.check_constants(self, changed)
            guards.check_slot_uses(self, changed)
        guards.check_relations(self)

    def final(self) -> Fraction | None:
        """The new value of the solution's last number: its final answer."""
        numbers = [i for i, a in enumerate(self.sol.atoms) if a.kind == "num" and i in self.roles]
        return self.roles[numbers[-1]].new if numbers else None

    def constant_atoms(self) -> list[int]:
        return [
            i for i, role in self.roles.items()
            if not role.sources and i not in self.sol.labels
        ]

    @cached_property
    def shows_orders(self) -> tuple[bool, ...]:
        """Per earlier instance, whether it was solved with the cached answer's words, names
        apart: an instance solved with other words ("the dearer shop" for "the cheaper
        shop", "Younger children" for "Older children", a counter of "four digits" for
        "three digits", "hour of the week" for "hour of the day") shows nothing of which
        value those words choose or where they wrap, even when its solution is written the
        same. A number word counts as a word here, operand or not: "four digits" may both
        be multiplied and set where a counter rolls over. (The new request has the cached
        answer's words: `guards.check_renamed`.) Nor does an instance right by a tie or a
        0 whichever way its words chose (`coincidences`)."""
        return tuple(all(i in w.names for i in w.words) and free
                     for w, free in zip(self.witnesses, coincidences.vouching(self),
                                        strict=True))

    @cached_property
    def parts(self) -> dict[compared.Part, tuple[Fraction, Fraction]]:
        """Each part of each computation with its cached and new values
        (`compared.computed_parts`), read once for the orders and the coincidences."""
        return compared.computed_parts(self)

    @cached_property
    def quantities(self) -> list[orders.Value]:
        """Every quantity a coincidence may tie (`coincidences.quantities`), read once for
        the instances and the base."""
        return coincidences.quantities(self)

    @cached_property
    def operands(self) -> frozenset[tuple[str, int]]:
        """The stated values and results the computations take (list labels apart): read
        once the roles are set, by the checks of changed values and of renames."""
        return frozenset(source for i, role in self.roles.items()
                         if self.in_computation(i) and i not in self.sol.labels
                         for source in role.sources)

    def in_computation(self, i: int) -> bool:
        return i in self.place and bool(self.statements[self.place[i][0]].links)

    # ------------------------------------------------------------------ output

    def outcome(self, renames: dict[str, str], currency: dict[str, str]) -> Outcome:
        grouped = any(a.grouped for a in self.sol.atoms if a.kind == "num")
        edits: dict[int, list[tuple[int, int, str]]] = {}
        for i, atom in enumerate(self.sol.atoms):
            step = self.sol.step_of[i]
            if atom.kind == "num" and i in self.roles:
                role = self.roles[i]
                sign = currency.get(atom.currency, atom.currency)
                if role.new != (atom.value or 0) or sign != atom.currency:
                    text = render_number(atom, role.new, sign, grouped, self.sol.mark)
                    if text is None:
                        raise Declined(f"{role.new} cannot be written as {atom.text} was")
                    if ambiguous_group(atom) and not ambiguous_group(replace(atom, text=text)):
                        # 1,250 read as thousands or as 1.25 wrote the same text; 875 does
                        # not: which reading the answer means now matters.
                        raise Declined(f"{atom.text} was a three-digit group, read one way "
                                       f"or the other alike; {text} is not")
                    edits.setdefault(step, []).append((atom.start, atom.end, text))
            elif atom.kind == "word" and atom.text in renames:
                edits.setdefault(step, []).append((atom.start, atom.end, renames[atom.text]))
        texts = []
        for index, text in enumerate(self.sol.steps):
            for start, end, new in sorted(edits.get(index, []), reverse=True):
                text = text[:start] + new + text[end:]
            texts.append(text)
        return Outcome(texts, self.corrections, len(self.constant_atoms()), self.final(),
                       len(self.decided))
