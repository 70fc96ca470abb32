"""Reuse by recomputation: a cached solution's arithmetic redone with a new request's values.

Every number of the cached solution is given one role before anything is served:
- a value the request states (a slot), which takes the new request's value in that place;
- the result of a statement written before it (`6 * 2 = 12`, then `12` again), recomputed;
- a constant of the solution that comes from no slot (12 inches in a foot), kept.
A number that fits two roles with two different outcomes declines, and so does a constant
that could be a changed slot in another written form (its inverse, a hundredth) or one
operation away from the changed values (a computation written in words). Then every
relation is checked with the new values: each `=` and comparison, each whole result stays
whole, each sign stays the same. Nothing here knows a language: words only matter as the
unchanged text around the numbers, which `request.py` has already shown to be the same.

The same pass corrects a fresh answer: with unchanged slots, a result whose written value
is not what its expression gives is rewritten, and every later use of it follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from stepchat.core.tasks.wordprob.atoms import Atom, atoms
from stepchat.core.tasks.wordprob.render import render_number
from stepchat.core.tasks.wordprob.solution import (
    Part,
    Statement,
    Unreadable,
    evaluate,
    holds,
    statements,
)
from stepchat.core.tasks.wordprob.values import (
    CONVENTIONAL,
    IDENTITY_VALUES,
    derived_forms,
    one_step_from,
    order,
    sign,
)


class Declined(Exception):
    """The cached solution cannot be recomputed for this request; the text says why."""


@dataclass(frozen=True)
class Slot:
    """A number the request states: its atom in the cached request and in the new one."""

    old: Atom
    new: Atom

    @property
    def changed(self) -> bool:
        return self.old.value != self.new.value


@dataclass
class Outcome:
    """The recomputed steps, and what the pass found on the way."""

    texts: list[str]
    corrections: int = 0
    """Results whose written value was wrong (a fresh answer's arithmetic slips)."""
    constants: int = 0
    final: Fraction | None = None


@dataclass
class _Role:
    old: Fraction
    """The value the number really had in the cached solution (corrected if it was a slip)."""
    new: Fraction
    sources: frozenset[tuple[str, int]] = field(default_factory=frozenset)


class _Solution:
    """The solution's atoms across its steps, with a line break between steps."""

    def __init__(self, steps: Sequence[str], mark: str) -> None:
        self.steps = list(steps)
        self.mark = mark
        self.atoms: list[Atom] = []
        self.step_of: list[int] = []
        for index, text in enumerate(steps):
            if index:
                self.atoms.append(Atom("mark", 0, 0, "\n"))
                self.step_of.append(-1)
            for atom in atoms(text, mark):
                self.atoms.append(atom)
                self.step_of.append(index)
        self.labels = _labels(self.atoms, self.step_of)


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
) -> Outcome:
    """The steps rewritten for the new slot values, or `Declined` with the reason.

    `names` are the renamed words that are names (not number words): a solution with a
    constant is not renamed, since a constant can depend on a word taken for a name
    (Monday to Friday is 5 days; February has 28)."""
    solution = _Solution(steps, mark)
    pass_ = _Pass(solution, list(slots))
    pass_.run()
    pass_.check()
    constants = pass_.constant_atoms()
    if names and constants:
        raise Declined(f"{names[0]!r} changed and {solution.atoms[constants[0]].text} is a "
                       "constant that could depend on it")
    return pass_.outcome(renames or {}, currency or {})


class _Pass:
    def __init__(self, solution: _Solution, slots: list[Slot]) -> None:
        self.sol = solution
        self.slots = slots
        reading = statements(solution.atoms)
        self.statements = reading.statements
        self.unreadable = reading.unreadable
        self.loose_links = reading.loose_links
        self.roles: dict[int, _Role] = {}
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

    # ------------------------------------------------------------------ roles

    def run(self) -> None:
        for s_index, statement in enumerate(self.statements):
            self.scaled[s_index] = self._reading(statement)
            self._mark_results(statement)
        for i, atom in enumerate(self.sol.atoms):
            if atom.kind != "num" or atom.value is None:
                continue
            if i in self.sol.labels:
                self.roles[i] = _Role(atom.value, atom.value)
            elif i in self.results:
                self._result(i)
            else:
                self.roles[i] = self._role(i, atom)

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
        scaled = self.scaled[s_index]
        try:
            old = evaluate(part.expr, {a: self._scale(a, self.roles[a].old, scaled)
                                       for a in part.numbers})
            new = evaluate(part.expr, {a: self._scale(a, self.roles[a].new, scaled)
                                       for a in part.numbers})
        except ZeroDivisionError:
            raise Declined("a division by zero with the new values") from None
        except Unreadable as exc:
            raise Declined(str(exc)) from None
        unit = Fraction(1, 100) if scaled and self.sol.atoms[i].percent else Fraction(1)
        old, new = old / unit, new / unit
        written = self.sol.atoms[i].value
        if written != old:
            self.corrections += 1
        self.roles[i] = _Role(old, new, frozenset({("result", i)}))

    def _final_answer(self, i: int, atom: Atom) -> _Role | None:
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
        role = self.roles[last]
        return _Role(role.old, role.new, frozenset({("result", last)}))

    def _role(self, i: int, atom: Atom) -> _Role:
        final = self._final_answer(i, atom)
        if final is not None:
            return final
        value = atom.value or Fraction(0)
        options: dict[tuple[Fraction, Fraction], set[tuple[str, int]]] = {}
        for k, slot in enumerate(self.slots):
            old, new = slot.old.value, slot.new.value
            assert old is not None and new is not None
            if old == value:
                options.setdefault((old, new), set()).add(("slot", k))
            elif slot.old.percent and not atom.percent and old / 100 == value:
                options.setdefault((old / 100, new / 100), set()).add(("slot", k))
        for j in self.results:
            if j < i and self.sol.atoms[j].value == value:
                role = self.roles[j]
                options.setdefault((role.old, role.new), set()).add(("result", j))
        if len(options) > 1:
            raise Declined(f"{atom.text} fits two roles with different values")
        if not options:
            return _Role(value, value)
        (old, new), sources = next(iter(options.items()))
        return _Role(old, new, frozenset(sources))

    # ------------------------------------------------------------------ checks

    def check(self) -> None:
        changed = {k for k, slot in enumerate(self.slots) if slot.changed}
        changing = bool(changed or self.corrections)
        if changing:
            self._check_unreadable()
            self._check_constants(changed)
            self._check_slot_uses(changed)
        self._check_relations()

    def _check_unreadable(self) -> None:
        for i in self.unreadable:
            role = self.roles.get(i)
            if role is not None and role.old != role.new:
                raise Declined(f"{self.sol.atoms[i].text} is in a computation this reader "
                               "cannot check")
        if self.loose_links:
            raise Declined("a relation this reader cannot check")

    def constant_atoms(self) -> list[int]:
        return [
            i for i, role in self.roles.items()
            if not role.sources and i not in self.sol.labels
        ]

    def _check_constants(self, changed: set[int]) -> None:
        results = {self.sol.atoms[j].value for j in self.results}
        derived = derived_forms([self.slots[k].old.value or Fraction(0) for k in changed])
        for i in self.constant_atoms():
            value = self.roles[i].old
            text = self.sol.atoms[i].text
            if value in results:
                raise Declined(f"{text} is also a result of the solution")
            if value in derived:
                raise Declined(f"{text} could be a changed value in another form")
            in_computation = i in self.place and self.statements[self.place[i][0]].links
            if in_computation:
                continue
            if self._beside_change(i):
                raise Declined(f"{text} stands beside a changed value with no computation "
                               "between them (rounded, or computed in words)")
            if one_step_from(value, self._nearby(i)):
                raise Declined(f"{text} could be computed in words from the numbers before it")

    def _beside_change(self, i: int) -> bool:
        step = self.sol.step_of[i]
        return any(
            self.sol.step_of[j] == step and role.old != role.new
            for j, role in self.roles.items() if j != i
        )

    def _nearby(self, i: int) -> list[tuple[Fraction, bool]]:
        """The numbers written before atom `i` on its line and the line before: where a
        result computed in words ("half of 20 is 10") takes its operands from."""
        step = self.sol.step_of[i]
        return [
            (role.old, role.old != role.new)
            for j, role in self.roles.items()
            if j < i and step - 1 <= self.sol.step_of[j] <= step and role.sources
        ]

    def _check_slot_uses(self, changed: set[int]) -> None:
        uses: dict[int, set[int]] = {k: set() for k in range(len(self.slots))}
        mentioned: set[int] = set()
        for i, role in self.roles.items():
            for kind, k in role.sources:
                if kind != "slot":
                    continue
                mentioned.add(k)
                if i in self.place and self.statements[self.place[i][0]].links:
                    uses[k].add(self.place[i][0])
        for k in changed:
            slot = self.slots[k]
            if k not in mentioned:
                raise Declined(f"{slot.old.text} is not used by the cached solution")
            if slot.old.value in IDENTITY_VALUES:
                raise Declined(f"a stated {slot.old.text} reads like an implicit one")
            if len(uses[k]) > 1 and slot.old.value in CONVENTIONAL:
                raise Declined(f"{slot.old.text} is used by more than one computation")
        for k, slot in enumerate(self.slots):
            if k in mentioned:
                continue
            for other in self.slots:
                if order(slot.old.value, other.old.value) != order(
                    slot.new.value, other.new.value
                ):
                    raise Declined(f"{slot.old.text}, unused by the solution, changed order "
                                   "against another value")
        for statement in self.statements:
            for part in statement.parts:
                self._check_repeats(part)
        self._check_result_uses()

    def _check_result_uses(self) -> None:
        """A changed result used by two later computations: the second use may be a
        constant that happens to equal it (12 days a month, then 12 months a year)."""
        uses: dict[int, set[int]] = {}
        for i, role in self.roles.items():
            if i in self.results or role.old == role.new or i not in self.place:
                continue
            statement = self.place[i][0]
            if not self.statements[statement].links:
                continue
            for kind, j in role.sources:
                if kind == "result":
                    uses.setdefault(j, set()).add(statement)
        for j, statements_ in uses.items():
            if len(statements_) > 1 and self.roles[j].old in CONVENTIONAL:
                raise Declined(f"{self.sol.atoms[j].text} is used by more than one later "
                               "computation")

    def _check_repeats(self, part: Part) -> None:
        """One changed source twice in one expression (12 / 12): one may be a constant."""
        seen: set[tuple[str, int]] = set()
        for a in part.numbers:
            role = self.roles[a]
            if role.old == role.new:
                continue
            if seen & role.sources:
                raise Declined(f"{self.sol.atoms[a].text} appears twice in one computation")
            seen |= role.sources

    def _check_relations(self) -> None:
        for s_index, statement in enumerate(self.statements):
            scaled = self.scaled[s_index]
            sides_old, sides_new = [], []
            for part in statement.parts:
                try:
                    sides_old.append(evaluate(part.expr, {
                        a: self._scale(a, self.roles[a].old, scaled) for a in part.numbers}))
                    sides_new.append(evaluate(part.expr, {
                        a: self._scale(a, self.roles[a].new, scaled) for a in part.numbers}))
                except ZeroDivisionError:
                    raise Declined("a division by zero with the new values") from None
                except Unreadable as exc:
                    raise Declined(str(exc)) from None
            for k, link in enumerate(statement.links):
                if not holds(sides_old[k], link, sides_old[k + 1]):
                    raise Declined("a statement of the solution does not hold")
                if not holds(sides_new[k], link, sides_new[k + 1]):
                    raise Declined(f"{link!r} no longer holds with the new values")
        for i in self.results:
            role = self.roles[i]
            money = bool(self.sol.atoms[i].currency)
            if role.old.denominator == 1 and role.new.denominator != 1 and not money:
                raise Declined(f"{self.sol.atoms[i].text} was whole and would not be")
            if sign(role.old) != sign(role.new):
                raise Declined(f"{self.sol.atoms[i].text} would change sign")

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
                    edits.setdefault(step, []).append((atom.start, atom.end, text))
            elif atom.kind == "word" and atom.text in renames:
                edits.setdefault(step, []).append((atom.start, atom.end, renames[atom.text]))
        texts = []
        for index, text in enumerate(self.sol.steps):
            for start, end, new in sorted(edits.get(index, []), reverse=True):
                text = text[:start] + new + text[end:]
            texts.append(text)
        numbers = [i for i, a in enumerate(self.sol.atoms) if a.kind == "num"]
        final = self.roles[numbers[-1]].new if numbers else None
        return Outcome(texts, self.corrections, len(self.constant_atoms()), final)
