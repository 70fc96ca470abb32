"""Whether a solution's last line states the answer its arithmetic reached.

Every computation of `12 * 5 = 60 dollars.` then `#### 17` holds, and the answer says 17;
stored, it would be served (and recomputed) for every variant of the problem. So an answer
is kept only where its final number is shown, a closed list:

- the last line holds the text's last number (`#### one hundred fifty` after `14 * 10 = 140`
  states no number this reader reads), with the value of the last computation's result
  (`= 10%` then `#### 10`, a percent's sign left off, as GSM8K writes it; never `140%`
  after `= 140`): not an intermediate result (`#### 14`), not another number;
- where the last line computes that result (`294 - 64 = 230 potplante oor bly.`), the line
  reads as every computing line does, words after the result being its unit; after the
  result, no digit and no cardinal the reader knows (`= 140 or one hundred fifty`). What
  other words after it say (`= 140 k`, `= 140, minus the last interval`), and which
  computation answers the question (a check written last), is reasoning, which nobody
  checks: such an answer is stored as the model wrote it, as on any line before;
- where the last line only restates it, the line is that number alone (after the line's
  last sentence, where one solution is written on one line: `…=50 Minuten. #### 50`;
  with its sign, where the result has one: `= -50` then `#### -50`): before it only
  spaces, the marks that open an answer (`#`, `:`, `=`, `*`, a bracket, TeX's `\\boxed{`
  and its like) and at most a label ending in a colon (`Answer: 140`, `Réponse : 140`;
  what the label says is reasoning too), after it only a full stop, `*`, a bracket or
  TeX's `\\]`. Any word or other mark around it may change its value or its
  unit (`#### − 140`, `half of 140`, `#### 140 k`, `140 and a half`, `140 ‰`, `#### 140
  hours` where minutes are asked), and no word list tells which do;
- no other number on the last line outside a computation has another value (`So the
  answer is 150 minutes, since 14 * 10 = 140.`), nor does any earlier line that opens with
  a mark and then a number outside a computation (`#### 150 minutes` before `#### 140`).

Forgiven: a number in words on an earlier line (`The answer is 150 minutes.` before `14 *
10 = 140` and `#### 140`). Solutions reason in words with numbers no request states and no
computation writes ("round up, since the digit after the 2 is 5 or higher", "12 eggs in 1
dozen", "each 30-minute episode is 1/2 hour"): keeping only known numbers there would leave
3.4% of GSM-Symbolic's own solutions unstored (770 of 22,719 in 109 languages). The final
number stated is still the arithmetic's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from stepchat.core.tasks.wordprob.atoms import Atom
from stepchat.core.tasks.wordprob.numwords import readings

if TYPE_CHECKING:
    from stepchat.core.tasks.wordprob.solution import Reading

OPENS = frozenset("#:=*{[(\\")
"""Marks that may stand before a restated final number (`####`, `Answer:`, `= `, `**`, a
bracket: `\\boxed{140}`)."""
CLOSES = frozenset(".。।۔*}])\\")
"""Marks that may stand after it: a sentence's full stop in several scripts, `**`, a
closing bracket, TeX's `\\]`."""
TEX_COMMAND = re.compile(r"\\(?:boxed|fbox|textbf|mathbf|text)(?![A-Za-z])")
"""The TeX commands that only show a number (`\\boxed{`), a closed list: any other
(`\\sqrt{`, `\\log`, `\\neg`, `\\pm`) computes or negates it."""
LABEL_ENDS = frozenset(":：")
SENTENCE_ENDS = ".。।۔!?！？"
"""Where a sentence before a restated final on the same line ends."""
MINUS = frozenset("-−")
"""How a label before a restated number ends (`Answer:`, `答え：`)."""


def final_shown(
    lines: Sequence[str], found: Sequence[Atom], step_of: Sequence[int], reading: Reading,
) -> bool:
    """Whether the answer's last line states the last computation's result (see above)."""
    numbers = [k for k, a in enumerate(found) if a.kind == "num"]
    final = numbers[-1]
    last_line = len(lines) - 1
    result = _last_result(found, reading)
    atom = found[final]
    if step_of[final] != last_line or result is None or _signed(found, final) != _signed(
        found, result
    ) or (atom.percent and not found[result].percent):
        return False
    line = lines[last_line]
    computing = computing_atoms(reading)
    if final in computing:
        if not _plain_after_result(line[atom.end:]):
            return False
    elif not _restated(line, found, final):
        return False
    on_last = [a for k, a in enumerate(found)
               if step_of[k] == last_line and a.kind == "num" and k not in computing]
    if any(a.value != atom.value for a in on_last):
        return False
    return not _answer_lines_differ(lines, found, step_of, computing, atom)


def computing_atoms(reading: Reading) -> set[int]:
    """The number atoms inside computations (statements with a link)."""
    return {a for s in reading.statements if s.links for part in s.parts for a in part.numbers}


def _last_result(found: Sequence[Atom], reading: Reading) -> int | None:
    """The number the last computation ends with (`294 - 64 = 230`: 230), a comparison
    after it apart (`12 ≤ 20` checks, it computes nothing)."""
    computed = [s for s in reading.statements if "=" in s.links]
    if not computed:
        return None
    last = computed[-1]
    result = last.parts[len(last.links) - last.links[::-1].index("=")]
    return result.numbers[-1] if result.numbers else None


def _negated(found: Sequence[Atom], k: int) -> bool:
    """A minus glued before the number, after no number (`= -50`, `#### -50`): its sign."""
    return k > 0 and found[k - 1].kind == "op" and found[k - 1].text in MINUS and (
        found[k - 1].end == found[k].start) and not (k > 1 and found[k - 2].kind == "num")


def _signed(found: Sequence[Atom], k: int) -> Fraction | None:
    value = found[k].value
    return None if value is None else -value if _negated(found, k) else value


def _plain_after_result(rest: str) -> bool:
    """No digit and no cardinal word after a computed final result."""
    if any(unicodedata.category(c).startswith("N") for c in rest):
        return False
    words = "".join(c if c.isalpha() else " " for c in rest).split()
    return not any(readings(word) or readings(word.lower()) for word in words)


def _restated(line: str, found: Sequence[Atom], final: int) -> bool:
    """The number stands alone after the line's last sentence (`…50 Minuten. #### 50`),
    opened by marks and at most a label with a colon, its sign glued to it."""
    atom = found[final]
    start = found[final - 1].start if _negated(found, final) else atom.start
    before, after = line[:start], line[atom.end:]
    ends = [before.rfind(mark) for mark in SENTENCE_ENDS]
    before = TEX_COMMAND.sub("", before[max(ends) + 1:])
    if any(ch.isalpha() for ch in before):
        label_end = max(before.rfind(ch) for ch in LABEL_ENDS)
        if label_end < 0:
            return False
        before = before[label_end + 1:]
    return all(ch.isspace() or ch in OPENS for ch in before) and all(
        ch.isspace() or ch in CLOSES for ch in after)


def _answer_lines_differ(
    lines: Sequence[str], found: Sequence[Atom], step_of: Sequence[int], computing: set[int],
    final: Atom,
) -> bool:
    """Whether an earlier line opening with a mark then a number outside a computation
    (`#### 150 minutes`, `= 150`) states another value than the final."""
    for index, line in enumerate(lines[:-1]):
        on_line = [k for k, a in enumerate(found) if step_of[k] == index and a.kind == "num"]
        if not on_line or on_line[0] in computing:
            continue
        lead = line[:found[on_line[0]].start].strip()
        if lead and not any(ch.isalnum() for ch in lead) and (
            found[on_line[0]].value != final.value
        ):
            return True
    return False

