"""Decide whether a cached open-text request asks the same thing as a new one.

Nothing can check a paragraph, so the gate never guesses: two requests are the same only when
their reduced forms (see `normalize`) agree token for token, allowing a fronted clause to move
and a misspelt word to stand for the dictionary word it is one edit away from. Everything else,
however similar its embedding, is a different request, and the gate names what changed so the
user sees why the model answered instead of the cache.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stepchat.core.textgate.normalize import GateOptions, Reduced, reduce_text
from stepchat.core.textgate.words import is_known_word

NEGATIONS = frozenset({"not", "no", "never", "without", "nor", "none", "nothing", "neither"})
DIRECTION_WORDS = frozenset({
    "to", "from", "into", "onto", "out", "of", "in", "off", "on", "than", "vs", "versus",
    "before", "after", "above", "below", "over", "under", "up", "down", "per", "by", "between",
})
ALIGNED_TOKENS = 200
"""Past this length the changed tokens are found by counting, not by aligning the two sides."""
MAX_TYPOS = 8
"""More misspellings than this and the requests are not taken for the same one."""
NAMED_TOKENS = 64
"""How many distinct changed tokens per side are examined to name the change."""


@dataclass(frozen=True)
class Verdict:
    """The gate's decision: `same` or not, the rule that decided, and for a change, what."""

    same: bool
    rule: str
    change: str | None = None

    @property
    def reason(self) -> str | None:
        """The skip-reuse reason shown to the user, or None when the request is the same."""
        return None if self.same else f"{self.rule}: {self.change}" if self.change else self.rule


def compare(
    cached: str,
    new: str,
    options: GateOptions | None = None,
    known_word: Callable[[str], bool] = is_known_word,
) -> Verdict:
    """Same request, or what differs between the cached request and the new one."""
    options = options or GateOptions()
    old_r, new_r = reduce_text(cached, options), reduce_text(new, options)
    if not old_r.tokens or not new_r.tokens:
        return Verdict(False, "nothing to compare")
    pairs = [(a, b) for a in old_r.orders(options) for b in new_r.orders(options)]
    for a, b in pairs:
        if a == b:
            return Verdict(True, "same words" if a == old_r.tokens == new_r.tokens else
                           "same words, a clause moved")
    if options.typos:
        for a, b in pairs:
            if _typos_only(a, b, cached, new, known_word):
                return Verdict(True, "same words but for a misspelling")
    return _difference(old_r, new_r, cached, new)


def _typos_only(
    a: Sequence[str], b: Sequence[str], text_a: str, text_b: str, known: Callable[[str], bool]
) -> bool:
    """Equal but at positions where one side is a misspelling of the other side's word."""
    if len(a) != len(b):
        return False
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if not differing or len(differing) > MAX_TYPOS or len(differing) * 3 > len(a):
        return False
    return all(_is_typo(x, y, text_a, text_b, known) for x, y in differing)


def _is_typo(x: str, y: str, text_x: str, text_y: str, known: Callable[[str], bool]) -> bool:
    if not (x.isalpha() and y.isalpha()) or min(len(x), len(y)) < 4 or x[0] != y[0]:
        return False
    if known(x) == known(y):  # two real words ("debt"/"debit") or two unknown names
        return False
    if _capitalised(x, text_x) or _capitalised(y, text_y):  # names: "Lyft" is not "lift"
        return False
    limit = 2 if max(len(x), len(y)) >= 8 else 1
    return _edit_distance(x, y) <= limit


def _capitalised(token: str, text: str) -> bool:
    """Written with a capital somewhere other than the start of a sentence."""
    for m in re.finditer(rf"(?<![\w]){re.escape(token)}(?!\w)", text, re.IGNORECASE):
        word = m.group(0)
        before = text[: m.start()].rstrip()
        starts_sentence = not before or before[-1] in ".!?:"
        if word[0].isupper() and not starts_sentence and not word.isupper():
            return True
    return False


def _edit_distance(x: str, y: str) -> int:
    """Damerau-Levenshtein (optimal string alignment): a swapped pair of letters is one edit."""
    rows = [list(range(len(y) + 1))]
    for i in range(1, len(x) + 1):
        row = [i] + [0] * len(y)
        for j in range(1, len(y) + 1):
            cost = 0 if x[i - 1] == y[j - 1] else 1
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _difference(old: Reduced, new: Reduced, old_text: str, new_text: str) -> Verdict:
    """Name the change, most telling first: order, negation, number, name, direction, wording."""
    a, b = old.tokens, new.tokens
    if sorted(a) == sorted(b):
        moved = _first_moved(a, b)
        return Verdict(False, "word order changed", moved)
    removed, added = _changed_tokens(a, b)
    change = _show(removed, old_text) + " → " + _show(added, new_text)
    removed, added = _distinct(removed)[:NAMED_TOKENS], _distinct(added)[:NAMED_TOKENS]
    changed = set(removed) | set(added)
    if changed & NEGATIONS or any(_negated_prefix(x, y) for x in removed for y in added):
        return Verdict(False, "negation changed", change)
    if any(t[0].isdigit() for t in changed):
        return Verdict(False, "a number changed", change)
    if any(_capitalised(t, old_text) for t in removed) or any(
        _capitalised(t, new_text) for t in added
    ):
        return Verdict(False, "a name changed", change)
    if changed & DIRECTION_WORDS:
        return Verdict(False, "a direction or relation changed", change)
    return Verdict(False, "the wording changed", change)


def _changed_tokens(a: Sequence[str], b: Sequence[str]) -> tuple[list[str], list[str]]:
    """The tokens only the old side has and those only the new side has, each in its order.

    An alignment is quadratic in the worst case (a pasted wall of `=` took seconds), so past
    `ALIGNED_TOKENS` the sides are compared as multisets: the verdict is "different" either
    way, and only the wording of the reason is coarser.
    """
    if max(len(a), len(b)) > ALIGNED_TOKENS:
        only_a, only_b = Counter(a) - Counter(b), Counter(b) - Counter(a)
        return _in_order(a, only_a), _in_order(b, only_b)
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed.extend(a[i1:i2])
            added.extend(b[j1:j2])
    return removed, added


def _distinct(tokens: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(tokens))


def _in_order(tokens: Sequence[str], wanted: Counter[str]) -> list[str]:
    left = Counter(wanted)
    picked = []
    for token in tokens:
        if left[token] > 0:
            left[token] -= 1
            picked.append(token)
    return picked


def _negated_prefix(x: str, y: str) -> bool:
    """`safe`/`unsafe`, `able`/`disable`, `legal`/`illegal`: one word negates the other."""
    short, long = sorted((x, y), key=len)
    return any(long == prefix + short for prefix in ("un", "in", "im", "il", "ir", "dis", "non",
                                                      "non-", "de", "anti", "mis"))


def _first_moved(a: Sequence[str], b: Sequence[str]) -> str:
    for x, y in zip(a, b, strict=True):
        if x != y:
            return f"{x} … ↔ {y} …"
    return ""


def _show(tokens: Sequence[str], text: str) -> str:
    """The changed words as the user wrote them, or ∅ when nothing was there."""
    if not tokens:
        return "∅"
    shown = []
    for token in tokens[:4]:
        m = re.search(rf"(?<![\w]){re.escape(token)}", text, re.IGNORECASE)
        shown.append(text[m.start(): m.start() + len(token)] if m else token)
    return " ".join(shown) + (" …" if len(tokens) > 4 else "")
