"""Token for token: the one comparison the text gate makes.

Two reduced requests are the same when their tokens agree one for one (text, kind, and whether
whitespace separates them), allowing for two things only.

Sentence marks. A `mark` token (`scan`) present on one side and absent on the other is skipped
when it ends the request, or when it is a comma between two words left out, not moved: only
the side with more commas skips any ("Let's eat, grandma" is "Let's eat grandma", a
documented failure; "to Anna, Maria Lopez will" is not "to Anna Maria, Lopez will"). Inside
the request a sentence mark (`. ? ! ;` of any script) meets only a mark of its kind at the
same place, never none: a capital after it on both sides does not show that both requests
have a boundary there ("to Anna. Maria Lopez will" is not "to Anna Maria. Lopez will", "Who
sang No. One?" not "Who sang No One?"), and a mark forgiven against none on each side is a
moved mark.
Marks that face each other must be of one kind: `?` asks, `.` states, `!` exclaims, whatever
the script or width (`?`, `??` and `？` are one kind; `.`, `。` and `।` another). A mark is
forgiven for no mark, never for a mark of another kind, since the request may be about exactly
that ("Translate to Spanish, you are coming?" / "…coming.", "Is the last character a question
mark?" / "…mark.").

Case, word by word. A word's case is the writer's only where the request is written in one
case throughout (`Reduced.case`) or the word follows a greeting's comma; then it may stand
for another case, within limits:

- a request in small letters stands for capitals at a word's start ("france" for "France",
  "i" for "I"), and an acronym of three or more capitals ("http" for "HTTP"), but not a
  short symbol (two letters or fewer with a capital: "Co", "Mm", "IT", "MW", "pH", "C"),
  unless the word starts a sentence;
- a request in capitals stands for any case but a short symbol's inside a sentence
  ("IS CO TOXIC?" is not "Is Co toxic?");
- in either, a short mixed-case symbol (`mPa`, `MWh`, `GHz`) and a word with a digit and a
  letter with case (a formula, a part number, a code: `COCl2`, `CoCl2`) keep their case
  anywhere, even opening a sentence, and a unit next to a number keeps its case
  (`normalize.keeps_case`);
- the first word after a greeting's comma stands for itself with a capital ("Hi, what is…").

Inside quotes and after a colon (`literal.target_start`) case is literal. Anywhere else a
word's case is meaning: "Polish" is not "polish" even first in a sentence, "IT" is not "it".
"""

from __future__ import annotations

from collections.abc import Sequence

from stepchat.core.textgate.normalize import (
    SHORT_SYMBOL,
    Reduced,
    coded,
    keeps_case,
    mixed_symbol,
)
from stepchat.core.textgate.scan import SCRIPT_COMMAS, Token

_OPENING = frozenset("¿¡")
"""The Spanish opening marks."""
_COMMAS = SCRIPT_COMMAS | frozenset(",")
"""Every script's comma, counted as one family: a comma left out on each side, `，` on one
and `,` on the other, would be a comma moved ("to Anna， Maria Lopez" / "to Anna Maria,
Lopez")."""
_ALWAYS = SCRIPT_COMMAS | _OPENING
"""Marks that may be absent anywhere, never moved: other scripts' commas (kept as symbols
beside a digit, see `scan`) and the Spanish opening marks."""


def same_tokens(a: Reduced, b: Reduced, *, case: bool) -> bool:
    """Whether `a` and `b` are the same request (see the module docstring)."""
    x, y = a.tokens, b.tokens
    i = j = 0
    while i < len(x) or j < len(y):
        tx = x[i] if i < len(x) else None
        ty = y[j] if j < len(y) else None
        soft_x = tx is not None and tx.kind == "mark"
        soft_y = ty is not None and ty.kind == "mark"
        if soft_x and soft_y and _kind(tx.text) == _kind(ty.text):  # type: ignore[union-attr]
            i, j = i + 1, j + 1
        elif soft_x or soft_y:
            skip_x = soft_x and _skippable(x, i, y, j)
            skip_y = soft_y and _skippable(y, j, x, i)
            if not (skip_x or skip_y) or (soft_x and soft_y and not (skip_x and skip_y)):
                return False
            i, j = i + skip_x, j + skip_y
        elif tx is None or ty is None or not same_token(
            tx, ty, i == 0 or j == 0, a.case, b.case, case=case
        ):
            return False
        else:
            i, j = i + 1, j + 1
    return True


def _next_token(tokens: Sequence[Token], at: int) -> Token | None:
    """The first token from `at` that is not a mark."""
    for token in tokens[at:]:
        if token.kind != "mark":
            return token
    return None


def _skippable(tokens: Sequence[Token], at: int, other: Sequence[Token], other_at: int) -> bool:
    """Whether the mark at `tokens[at]` may be absent from the other side, which goes on at
    `other[other_at]`."""
    mark = tokens[at].text
    facing = other_at < len(other) and other[other_at].kind == "mark"
    if facing and _kind(mark) & SENTENCE_KINDS and _kind(other[other_at].text) & SENTENCE_KINDS:
        return False  # "coming?" is not "coming.": whether the last sentence asks or states
    if set(mark) == {"!"} and not _exclaimed(tokens, at) and not (
        other_at < len(other) and other[other_at].kind == "mark"
    ):
        return False  # a name ends in it (Rails `save!`, Rust `vec!`, Scheme `set!`)
    if at + 1 < len(tokens) and tokens[at + 1].kind == "break" and _next_token(tokens, at + 1):
        return False  # a line's own mark ("Zebra.⏎Apple": which lines end in a full stop)
    if set(mark) <= _ALWAYS:
        return _left_out(tokens, at, other)
    if _next_token(tokens, at + 1) is None:
        return True
    if mark == ",":
        return _more(tokens, other, _COMMAS)
    return False  # "to Anna. Maria Lopez" is not "to Anna Maria. Lopez": see the docstring


def _left_out(tokens: Sequence[Token], at: int, other: Sequence[Token]) -> bool:
    """Whether a mark that may be absent (`_ALWAYS`) is left out here rather than moved or
    swapped: only the side with more marks of its family skips any, so each of the other
    side's must face one of its own (`¿Juan dice que vienes?` is not `Juan dice ¿que
    vienes?`, `¡Vienes?` is not `¿Vienes?`). A Spanish opening mark is left out only where
    it opens the request or a sentence: inside one it shows where an embedded question
    starts (`Juan dice ¿que vienes?` is not `Juan dice que vienes?`)."""
    marks = set(tokens[at].text)
    if marks & _OPENING and not marks <= _OPENING:
        return False  # `，¿`: a comma glued to an opening mark is no comma alone
    family = _OPENING if marks <= _OPENING else _COMMAS
    if family is _OPENING and not _opens_sentence(tokens, at):
        return False
    return _more(tokens, other, family)


def _more(tokens: Sequence[Token], other: Sequence[Token], family: frozenset[str]) -> bool:
    """Whether `tokens` has more marks of `family` than `other`: only that side may skip one,
    so each mark of the other side faces one of its own and none is moved."""

    def count(side: Sequence[Token]) -> int:
        return sum(t.text.count(ch) for t in side if t.kind == "mark" for ch in family)

    return count(tokens) > count(other)


def _opens_sentence(tokens: Sequence[Token], at: int) -> bool:
    """Whether the opening mark `tokens[at]` starts the request, or a sentence: after `.`,
    `?` or `!` of any script and before a capital. A line break or an abbreviation
    (`Dr.`) inside a sentence is followed by a small letter: `Juan dice⏎¿que vienes?`."""
    last = next((t for t in reversed(tokens[:at]) if t.kind != "space"), None)
    if last is None:
        return True
    ends = last.kind == "mark" and bool(
        _kind(last.text) & SENTENCE_KINDS or set(last.text) <= _OPENING)
    return ends and _capital(tokens, at + 1)


QUESTION, STOP, EXCLAMATION = "question", "stop", "exclamation"
SENTENCE_KINDS = frozenset({QUESTION, STOP, EXCLAMATION})
_KINDS = {
    **dict.fromkeys("?？؟;\u037e፧", QUESTION),  # `;` is a mark only as the Greek question mark
    **dict.fromkeys(".。｡۔।॥።။។៕", STOP),
    **dict.fromkeys("!！", EXCLAMATION),
    **dict.fromkeys(",，、､،፣၊", "comma"),
}
"""What a sentence mark says, whatever its script or width: `?` and `？` ask, `.`, `。` and
`।` state, `!` exclaims."""


def _kind(mark: str) -> frozenset[str]:
    """The kinds of mark in a run: `??` and `？` are one kind, `?` and `.` two."""
    return frozenset(_KINDS.get(ch, ch) for ch in mark)


def _exclaimed(tokens: Sequence[Token], at: int) -> bool:
    """Whether the `!` at `tokens[at]` ends a sentence of one word ("Hello!", "Wow!")."""
    return at > 0 and tokens[at - 1].kind == "word" and tokens[at - 1].start


def _capital(tokens: Sequence[Token], at: int) -> bool:
    """Whether the first token from `at` that is not whitespace is a word with a capital."""
    for token in tokens[at:]:
        if token.kind not in ("break", "space", "mark"):
            return token.kind == "word" and token.text[:1].isupper()
    return False


def same_token(x: Token, y: Token, first: bool, case_x: str, case_y: str, *, case: bool) -> bool:
    """Whether `x` (in a request written in case `case_x`) and `y` read the same; `first`:
    they open their requests, where no whitespace can precede them."""
    if x.kind != y.kind or (not first and x.joined != y.joined):
        return False
    if x.text == y.text:
        return True
    if not case or x.kind != "word" or x.text.lower() != y.text.lower():
        return False
    at_start = x.start or y.start
    return any(
        _stands_for(x, case_x, form, at_start) and _stands_for(y, case_y, form, at_start)
        for form in (x.text, y.text)
    )


def _stands_for(word: Token, written: str, form: str, at_start: bool) -> bool:
    """Whether `word`, in a request written in case `written`, may be `form` as typed by
    someone who minded case (see the module docstring)."""
    if form == word.text:
        return True
    if word.quoted or word.introduced:
        return False
    if at_start and form[:1].isalpha():  # its first capital may be the sentence's ("Mg to g")
        short = mixed_symbol(form) or coded(form)  # not one past it ("MWh to J", "CoCl2 is")
    else:
        short = keeps_case(form, unit=word.unit)
    if written == "upper":
        return not short
    if written == "lower" and word.text == word.text.lower():
        capitals = sum(c.isupper() for c in form)
        if capitals > 1:
            return len(form) > SHORT_SYMBOL and not short
        return not short or form == "I"
    return word.resumed and form == word.text[:1].upper() + word.text[1:]

