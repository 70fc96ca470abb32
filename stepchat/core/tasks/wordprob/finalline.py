"""Whether a solution's last line states the answer its arithmetic reached.

Every computation of `12 * 5 = 60 dollars.` then `#### 17` holds, and the answer says 17;
stored, it would be served (and recomputed) for every variant of the problem. So an answer
is kept only where its final number is shown, a closed list:

- the last line holds the text's last number (`#### one hundred fifty` after `14 * 10 = 140`
  states no number this reader reads);
- that number has the value of the last computation's result (`= 10%` then `#### 10`, a
  percent's sign left off, as GSM8K writes it; never `140%` after `= 140`): not an
  intermediate result (`#### 14`), not another number;
- nothing is glued to it but what opens an answer (a space, `#`, `:`, `=`, `*`, a bracket,
  a currency sign read with it) before, and a sentence's full stop, `*` or a bracket after:
  `−140`, `140½`, `140k`, `140!` and `140%` (where the result is no percent) state other
  values;
- after it the line holds only words, none of them a cardinal the reader knows
  (`#### 140 or one hundred fifty`), and no other digit; and no number on the last line
  outside a computation has another value (`So the answer is 150 minutes, since 14 * 10 =
  140.`, `#### 2 hours 140 minutes`);
- no other line states a lone number (no letter on it, no computation: `#### 150` before
  `Check: 14 * 10 = 140.`) of another value.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.atoms import Atom
from stepchat.core.tasks.wordprob.numwords import readings

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.solution import Reading

OPENS = frozenset("#:=*{[(")
"""Marks that may stand right before the final number (`####`, `Answer:`, `= `, `**`, a
bracket: `\\boxed{140}`)."""
CLOSES = frozenset(".。।۔*}])\\")
"""Marks that may stand right after it: a sentence's full stop in several scripts, `**`, a
closing bracket, TeX's `\\]`."""


def final_shown(
    lines: Sequence[str], found: Sequence[Atom], step_of: Sequence[int], reading: Reading,
) -> bool:
    """Whether the answer's last line states the last computation's result (see above)."""
    numbers = [k for k, a in enumerate(found) if a.kind == "num"]
    final = numbers[-1]
    last_line = len(lines) - 1
    if step_of[final] != last_line:
        return False
    result = _last_result(found, reading)
    atom = found[final]
    if result is None or atom.value != result.value or (atom.percent and not result.percent):
        return False
    line = lines[last_line]
    if not _opened(line, atom.start) or not _closed(line, atom.end):
        return False
    computing = _computing(reading)
    on_last = [a for k, a in enumerate(found)
               if step_of[k] == last_line and a.kind == "num" and k not in computing]
    if any(a.value != atom.value for a in on_last):
        return False  # "the answer is 150 minutes, since 14 * 10 = 140", "#### 2 hours 140"
    return not _lone_numbers_differ(lines, found, step_of, computing, atom)


def _computing(reading: Reading) -> set[int]:
    """The number atoms inside computations."""
    return {a for s in reading.statements if s.links for part in s.parts for a in part.numbers}


def _last_result(found: Sequence[Atom], reading: Reading) -> Atom | None:
    """The number the last computation ends with (`294 - 64 = 230`: 230), a comparison
    after it apart (`12 ≤ 20` checks, it computes nothing)."""
    computed = [s for s in reading.statements if "=" in s.links]
    if not computed:
        return None
    last = computed[-1]
    result = last.parts[len(last.links) - last.links[::-1].index("=")]
    return found[result.numbers[-1]] if result.numbers else None


def _opened(line: str, start: int) -> bool:
    if start == 0:
        return True
    before = line[start - 1]
    return before.isspace() or before in OPENS


def _closed(line: str, end: int) -> bool:
    rest = line[end:]
    if rest[:1] in CLOSES:
        rest = rest.lstrip("".join(CLOSES))
        if rest and not rest[0].isspace():
            return False
    elif rest and not rest[0].isspace():
        return False
    if any(unicodedata.category(c).startswith("N") for c in rest):
        return False
    words = "".join(c if c.isalpha() else " " for c in rest).split()
    return not any(readings(word) or readings(word.lower()) for word in words)


def _lone_numbers_differ(
    lines: Sequence[str], found: Sequence[Atom], step_of: Sequence[int], computing: set[int],
    final: Atom,
) -> bool:
    for index, line in enumerate(lines):
        on_line = [k for k, a in enumerate(found) if step_of[k] == index and a.kind == "num"]
        if len(on_line) != 1 or on_line[0] in computing or any(c.isalpha() for c in line):
            continue
        if found[on_line[0]].value != final.value:
            return True
    return False
