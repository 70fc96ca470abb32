"""Where a computation meets the text beside it: apart, or written as one with it.

The statement reader cuts a solution into runs of numbers, signs and links. A run that
computes is checked alone, so it must be what a reader of the text reads alone: where a
number stands beside it with nothing between but marks that do not separate (`2 ** 4 =
4`, `6² = 12`, `2½ × 4`, `1\\,500`, `1 500 + 300`, `10:05 + 5`, the German division
`20 : 4 = 4`), or a result goes on in a second number after one word (`13 ÷ 4 = 3 r 1`,
`= 2 hours 30 minutes`, `= 15 dollars 50 cents`), the two are read as one, and the run
alone can hold where the whole does not. Such a run is unread.

What separates:
- punctuation written as punctuation is, against what precedes it and a space after it
  (`= 12; 12 + 5`, `Step 1: 3 × 4`); `20 : 4` and `12,5` are no punctuation;
- arrows, quotes, and the sentence punctuation of other scripts (`，`, `،`, `।`), with a
  space on either side. Nothing else: a dash, a slash, a colon, a star or a bullet of
  any script may be a sign of arithmetic (`20 － 12`, `64 ／ 8`, `3 • 4`).
"""

from __future__ import annotations

from collections.abc import Sequence

from stepchat.core.tasks.wordprob.atoms import Atom

LINE_BREAK = "\n"
"""The mark between two steps of a solution (`solution.solution_atoms`)."""
PUNCTUATION = frozenset(".,;:!?…")
"""Marks that separate only as punctuation: against what precedes, a space after."""
SEPARATORS = frozenset("→⇒\"'“”‘’«»，。、；！？،؛؟।॥։።፣")
"""Marks that separate where a space stands on either side: arrows, quotes and the
sentence punctuation of other scripts. A closed list: dashes, slashes, colons, stars,
bullets and bars of any script may be signs of arithmetic (`20 － 12`, `64 ／ 8`,
`3 ＊ 4`, `3 • 4`), which this reader does not read."""


def joined(atoms: Sequence[Atom], run: Sequence[int]) -> bool:
    """Whether the run is written as one with a number beside it (module docstring)."""
    return (_joins(atoms, run[0], -1) or _joins(atoms, run[-1], 1)
            or _goes_on(atoms, run[-1]))


def _joins(atoms: Sequence[Atom], edge: int, step: int) -> bool:
    """Whether the marks from `edge` on (in direction `step`) lead to a number without
    separating from it."""
    between: list[Atom] = []
    i = edge + step
    while 0 <= i < len(atoms) and atoms[i].kind == "mark" and atoms[i].text != LINE_BREAK:
        between.append(atoms[i])
        i += step
    if not 0 <= i < len(atoms) or atoms[i].kind not in ("num", "lp", "rp", "op"):
        return False
    if not between:
        return atoms[i].kind == "num"
    spans = sorted([atoms[edge], *between, atoms[i]], key=lambda a: a.start)
    return not all(_separates(spans[k - 1], spans[k], spans[k + 1])
                   for k in range(1, len(spans) - 1))


def _separates(before: Atom, mark: Atom, after: Atom) -> bool:
    tight_before, tight_after = before.end == mark.start, mark.end == after.start
    if mark.text in PUNCTUATION:
        return tight_before and not tight_after
    if mark.text in SEPARATORS:
        return not (tight_before and tight_after)
    return False


def _goes_on(atoms: Sequence[Atom], last: int) -> bool:
    """A result that a second number continues after one word (`3 r 1`, `2 hours 30`),
    where that number starts no computation of its own (`= 12 and 12 + 5 = 17`)."""
    if not (atoms[last].kind == "num" and last + 2 < len(atoms)
            and atoms[last + 1].kind == "word" and atoms[last + 2].kind == "num"):
        return False
    follows = atoms[last + 3] if last + 3 < len(atoms) else None
    return follows is None or follows.kind not in ("op", "eq", "rel")
