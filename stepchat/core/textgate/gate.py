"""Decide whether a cached open-text request asks the same thing as a new one.

Nothing can check a paragraph, so the gate never guesses: two requests are the same only when
their reductions (see `normalize`) agree token for token (see `match`). Everything else,
however similar its embedding, is a different request, and the gate names what changed so
the user sees why the model answered instead of the cache.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from stepchat.core.textgate.lexicon import DIRECTION_WORDS, NEGATIONS
from stepchat.core.textgate.match import same_token, same_tokens
from stepchat.core.textgate.normalize import GateOptions, Reduced, reduce_text
from stepchat.core.textgate.scan import LINE_BREAKS, Token

ALIGNED_TOKENS = 200
"""Past this length the changed tokens are found by counting, not by aligning the two sides."""
SHOWN_TOKENS = 4
"""How many changed tokens a reason quotes per side."""
NAMED_TOKENS = 64
"""How many distinct changed words per side are examined to name the change."""


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


def compare(cached: str, new: str, options: GateOptions | None = None) -> Verdict:
    """Same request, or what differs between the cached request and the new one."""
    options = options or GateOptions()
    old_r, new_r = reduce_text(cached, options), reduce_text(new, options)
    if not old_r.tokens or not new_r.tokens:
        return Verdict(False, "nothing to compare")
    if same_tokens(old_r, new_r, case=options.case):
        return Verdict(True, "same words")
    return _difference(old_r, new_r)


def _keys(reduced: Reduced, *, marks: bool, fold: bool) -> tuple[list[Token], list[str]]:
    """The tokens to align and their keys: text, "+" when no whitespace precedes it."""
    tokens = [t for t in reduced.tokens if marks or t.kind != "mark"]
    keys = [
        ("+" if token.joined and i else "") + (token.text.lower() if fold else token.text)
        for i, token in enumerate(tokens)
    ]
    return tokens, keys


def _difference(old: Reduced, new: Reduced) -> Verdict:
    """Name the change, most telling first: order, spacing, case, negation, number, symbol,
    name, direction, wording; a sentence mark only one side has, last."""
    fold = old.case != "mixed" or new.case != "mixed"
    a, ka = _keys(old, marks=False, fold=fold)
    b, kb = _keys(new, marks=False, fold=fold)
    if ka == kb:
        cased = [
            (replace(x, joined=False), replace(y, joined=False))
            for x, y in zip(a, b, strict=True)
            if not same_token(x, y, True, old.case, new.case, case=True)
        ]
        if cased:
            was, now = zip(*cased, strict=True)
            return Verdict(False, "the case of a word changed", f"{_show(was)} → {_show(now)}")
        a, ka = _keys(old, marks=True, fold=fold)
        b, kb = _keys(new, marks=True, fold=fold)
        removed, added = _changed(a, b, ka, kb)
        if _show(removed) == _show(added):
            return Verdict(False, "a sentence mark moved", _show(added))
        return Verdict(False, "a sentence mark changed", f"{_show(removed)} → {_show(added)}")
    if sorted(ka) == sorted(kb):
        return Verdict(False, "word order changed", _first_moved(a, b, ka, kb))
    removed, added = _changed(a, b, ka, kb)
    if _mostly_other(a, b, removed, added):
        return Verdict(False, OTHER_REQUEST)
    change = f"{_show(removed)} → {_show(added)}"
    if [k.lstrip("+") for k in ka] == [k.lstrip("+") for k in kb]:
        return Verdict(False, "spacing changed", change)
    if [k.lower() for k in ka] == [k.lower() for k in kb]:
        return Verdict(False, "the case of a word changed", change)
    changed = [*removed, *added]
    words = {t.text.lower() for t in changed if t.kind == "word"}
    gone, new_words = _distinct_words(removed), _distinct_words(added)
    if words & NEGATIONS or any(_negated_prefix(x, y) for x in gone for y in new_words):
        return Verdict(False, "negation changed", change)
    if any(_has_digit(t.text) for t in changed):
        return Verdict(False, "a number changed", change)
    if any(t.kind in ("space", "break") for t in changed):
        return Verdict(False, "spacing changed", change)
    if any(t.kind != "word" for t in changed):
        return Verdict(False, "a symbol or mark changed", change)
    if any(t.text[:1].isupper() and not t.start for t in changed):
        return Verdict(False, "a name changed", change)
    if words & DIRECTION_WORDS:
        return Verdict(False, "a direction or relation changed", change)
    return Verdict(False, "the wording changed", change)


OTHER_REQUEST = "another request: most of its words differ"
"""The nearest cached request shares fewer than half its words with the new one: naming
the first change ("spacing changed: Tell me a fun … → Give one octopus") would read as if
the two were look-alikes."""


def _mostly_other(a: Sequence[Token], b: Sequence[Token], removed: Sequence[Token],
                  added: Sequence[Token]) -> bool:
    """Fewer than half the words of either side are kept on the other."""
    def words(tokens: Sequence[Token]) -> int:
        return sum(t.kind == "word" for t in tokens)

    kept_a, kept_b = words(a) - words(removed), words(b) - words(added)
    return 2 * kept_a < words(a) or 2 * kept_b < words(b)


def _distinct_words(tokens: Sequence[Token]) -> list[str]:
    """The first `NAMED_TOKENS` distinct words, in small letters: enough to name a change
    without pairing every word of one pasted wall with every word of another."""
    return list(dict.fromkeys(t.text.lower() for t in tokens if t.kind == "word"))[:NAMED_TOKENS]


def _has_digit(text: str) -> bool:
    return any(unicodedata.category(c)[0] == "N" for c in text)


def _changed(
    a: Sequence[Token], b: Sequence[Token], ka: Sequence[str], kb: Sequence[str]
) -> tuple[list[Token], list[Token]]:
    """The tokens only the old side has and those only the new side has, each in its order.

    An alignment is quadratic in the worst case (a pasted wall of `=` took seconds), so past
    `ALIGNED_TOKENS` the sides are compared as multisets: the verdict is "different" either
    way, and only the wording of the reason is coarser.
    """
    if max(len(a), len(b)) > ALIGNED_TOKENS:
        only_a, only_b = Counter(ka) - Counter(kb), Counter(kb) - Counter(ka)
        return _in_order(a, ka, only_a), _in_order(b, kb, only_b)
    removed: list[Token] = []
    added: list[Token] = []
    matcher = difflib.SequenceMatcher(a=ka, b=kb, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed.extend(_run(a[i1:i2]))
            added.extend(_run(b[j1:j2]))
    return removed, added


def _run(tokens: Sequence[Token]) -> list[Token]:
    """A run of changed tokens, shown apart from what is shown before it."""
    return [replace(t, joined=False) if i == 0 else t for i, t in enumerate(tokens)]


def _in_order(tokens: Sequence[Token], keys: Sequence[str], wanted: Counter[str]) -> list[Token]:
    left = Counter(wanted)
    picked = []
    for token, key in zip(tokens, keys, strict=True):
        if left[key] > 0:
            left[key] -= 1
            picked.append(replace(token, joined=False))
    return picked


def _negated_prefix(x: str, y: str) -> bool:
    """`safe`/`unsafe`, `able`/`disable`, `legal`/`illegal`: one word negates the other."""
    short, long = sorted((x, y), key=len)
    prefixes = ("un", "in", "im", "il", "ir", "dis", "non", "de", "anti", "mis")
    return len(short) >= 4 and any(long == prefix + short for prefix in prefixes)


def _first_moved(
    a: Sequence[Token], b: Sequence[Token], ka: Sequence[str], kb: Sequence[str]
) -> str:
    for x, y, kx, ky in zip(a, b, ka, kb, strict=True):
        if kx != ky:
            return f"{_visible(x)} … ↔ {_visible(y)} …"
    return ""


def _show(tokens: Sequence[Token]) -> str:
    """The changed tokens as written, or ∅ when nothing was there."""
    if not tokens:
        return "∅"
    shown = ""
    for i, token in enumerate(tokens[:SHOWN_TOKENS]):
        text = _visible(token)
        shown += text if i == 0 or token.joined else " " + text
    return shown + (" …" if len(tokens) > SHOWN_TOKENS else "")


def _visible(token: Token) -> str:
    """Whitespace spelled so a reason shows it: ⏎ a line break, ⇥ a tab, · another space."""
    if token.kind not in ("break", "space"):
        return token.text
    text = token.text.replace("\r\n", "\n")
    return "".join("⏎" if c in LINE_BREAKS else "⇥" if c == "\t" else "·" for c in text)
