"""Word-problem text as atoms: numbers (with their written form), words, operators, marks.

One tokenizer serves both sides of the rule: the request (where numbers are the slots a
variant may change and every other atom is meaning) and the cached solution (where numbers
are operands and results). A number is read in one decimal convention for a whole
document: `.` (1,250.5) or `,` (1.250,5); `decimal_mark` picks it from the text, so the
same rule reads English, German or Danish figures without knowing the language.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from stepchat.core.tasks.wordprob.listmarks import is_marker_at
from stepchat.core.tasks.wordprob.markup import Markup
from stepchat.core.tasks.wordprob.numwords import readings
from stepchat.core.tasks.wordprob.scripts import is_mark, joins_numbers, one_atom_each

Kind = Literal["num", "word", "op", "lp", "rp", "eq", "rel", "mark"]

MAX_DIGITS = 18
"""Longer digit runs are identifiers, not quantities."""

_SPACE_GROUP = "\u00a0\u202f"
_LAKHS = r"(?<![\d.,])\d{1,2}(?:,\d\d)+,\d{3}(?![\d,])"
"""Indian grouping, by lakhs and crores: 4,00,000 and 1,20,50,000."""
_GROUPED = {
    ".": re.compile(rf"{_LAKHS}(?:\.\d+)?(?!\d)|\d{{1,3}}(?P<g>[,{_SPACE_GROUP}])\d{{3}}"
                    rf"(?:(?P=g)\d{{3}})*(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?"),
    ",": re.compile(rf"\d{{1,3}}(?P<g>[.{_SPACE_GROUP}])\d{{3}}(?:(?P=g)\d{{3}})*(?:,\d+)?(?!\d)|"
                    r"\d+(?:,\d+)?"),
}
_LETTER = re.compile(r"[^\W\d_]")
_OPS = {"+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", "·": "*", "⋅": "*",
        "÷": "/", "/": "/", "^": "^"}
_RELS = ("<=", ">=", "≤", "≥", "≠", "!=", "<", ">")
_MARKS_LONG = ("<<", ">>", "**", "==")
_PERCENT = "%％"


@dataclass(frozen=True)
class Atom:
    """One token of a text, with its span; a number carries its value and written form."""

    kind: Kind
    start: int
    end: int
    text: str
    value: Fraction | None = None
    decimals: int = 0
    """Digits written after the decimal mark (a form the recomputed value keeps)."""
    grouped: bool = False
    """Written with thousands separators."""
    percent: bool = False
    currency: str = ""
    """The currency sign written with the number, before or after it."""
    spaced: bool = False
    """Whitespace (or the start of the text) precedes the atom."""
    marker: bool = False
    """An operator that may be a markdown list marker (`listmarks.py`)."""

    @property
    def is_title(self) -> bool:
        """A word written as a proper name is: an upper-case letter, then lower case
        letters (an identifier such as `Ab12` is none)."""
        return (
            self.kind == "word" and len(self.text) >= 2 and self.text[0].isupper()
            and self.text[1:].islower() and not any(c.isdigit() for c in self.text)
        )

    def form(self) -> tuple[bool, bool]:
        """What a slot must keep across a variant: percent, and money or not."""
        return (self.percent, bool(self.currency))


def _is_currency(char: str) -> bool:
    return unicodedata.category(char) == "Sc"


def decimal_mark(*texts: str) -> str | None:
    """The decimal mark these texts agree on: "." or ",", or None when they conflict.

    A mark followed by one, two, or four and more digits is a decimal mark; followed by
    exactly three (12,500) it reads as grouping, so a text with only such numbers takes the
    other mark as decimal: 12,500 is twelve thousand five hundred, 12.500 likewise (a
    guess: `ambiguous_group`). A number grouped one way and then marked the other
    (`1.250,50`, `1 250,500`) shows its decimal mark; one with two marks that are no
    grouping (a date, `15.03.2024`) shows nothing.
    """
    votes: set[str] = set()
    for text in texts:
        votes |= _mark_votes(text)
    if len(votes) > 1:
        return None
    return votes.pop() if votes else "."


@lru_cache(maxsize=512)
def _mark_votes(text: str) -> frozenset[str]:
    """The decimal marks one text's numbers vote for (remembered: a request and its
    solution are read again by every earlier instance of the problem)."""
    votes: set[str] = set()
    if re.search(_LAKHS, text):
        votes.add(".")  # grouped by commas, so the decimal mark is the point
        text = re.sub(_LAKHS, " ", text)
    for m in _GROUPED_THEN_MARKED.finditer(text):
        votes.add(m.group("mark"))
    text = _GROUPED_THEN_MARKED.sub(" ", text)
    for m in _GROUPED_TWICE.finditer(text):
        votes.add("," if m.group("group") == "." else ".")
    text = _GROUPED_TWICE.sub(" ", text)
    for m in re.finditer(r"(?<![\d.,])\d+([.,])(\d+)(?!\d|[.,]\d)", text):
        mark, tail = m.group(1), m.group(2)
        starts_zero = m.group(0).startswith("0") and m.group(0)[1] in ".,"
        if len(tail) != 3 or starts_zero:
            votes.add(mark)
        else:
            votes.add("," if mark == "." else ".")
    return frozenset(votes)


_GROUPED_THEN_MARKED = re.compile(
    rf"(?<![\d.,])\d{{1,3}}(?P<group>[.,{_SPACE_GROUP}])\d{{3}}(?:(?P=group)\d{{3}})*"
    r"(?!(?P=group))(?P<mark>[.,])\d+(?!\d|[.,]\d)")
"""A number grouped by one sign and marked by another after its groups."""
_GROUPED_TWICE = re.compile(r"(?<![\d.,])\d{1,3}(?P<group>[.,])\d{3}(?:(?P=group)\d{3})+"
                            r"(?!\d|[.,]\d)")
"""A number with its group mark written twice or more (1,250,000)."""


def figures(atom: Atom) -> str:
    """A number's digits and decimal or group points, without its signs and spaces."""
    return "".join(c for c in atom.text if c.isdigit() or c in ".,")


def group_sign(atom: Atom) -> str | None:
    """The mark a number shows it groups its thousands by: written twice (`1.600.000`) or
    followed by the other mark (`1.250,50`); None where the number does not show it."""
    written = figures(atom)
    found = _GROUPED_TWICE.fullmatch(written) or _GROUPED_THEN_MARKED.fullmatch(written)
    return found.group("group") if found else None


def ambiguous_group(atom: Atom) -> bool:
    """A number written with one mark and three digits after it (`1,250`, `2.500`): a
    thousands group or three decimals, as its language writes."""
    return bool(re.fullmatch(r"[1-9]\d{0,2}[.,]\d{3}", figures(atom)))


def _read_number(digits: str, mark: str) -> tuple[Fraction, int, bool]:
    group = "," if mark == "." else "."
    grouped = any(c in digits for c in group + _SPACE_GROUP)
    plain = digits
    for c in group + _SPACE_GROUP:
        plain = plain.replace(c, "")
    whole, _, frac = plain.partition(mark)
    value = Fraction(int(whole)) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
    return value, len(frac), grouped


def atoms(text: str, mark: str = ".") -> list[Atom]:
    """The atoms of `text`, numbers read with `mark` as the decimal mark (a new list: the
    reading is remembered, since one request, its cached request and their solutions are
    read again by every check and every earlier instance)."""
    return list(_atoms(text, mark))


@lru_cache(maxsize=512)
def _atoms(text: str, mark: str) -> tuple[Atom, ...]:
    return tuple(_read_atoms(text, mark))


def _read_atoms(text: str, mark: str) -> list[Atom]:
    number = _GROUPED[mark]
    out: list[Atom] = []
    markup = Markup(text)
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char.isspace():
            i += 1
            continue
        spaced = i == 0 or text[i - 1].isspace()
        if char in "\\*{}":
            taken, sign = markup.at(i)
            if sign is not None:
                out.append(Atom(sign[0], i, i + taken, sign[1], spaced=spaced))
            if taken:
                i += taken
                continue
        m = number.match(text, i) if char.isdigit() else None
        if m and out and out[-1].kind == "word" and out[-1].end == i and not (
            joins_numbers(out[-1].text[0])
        ):
            out[-1] = _identifier(text, out[-1])
            i = out[-1].end
            continue
        if m and len(m.group(0)) <= MAX_DIGITS + 6:
            out.append(_number_atom(text, m, mark, spaced, out))
            i = out[-1].end
            continue
        end = _word_end(text, i)
        if end > i:
            out.append(Atom("word", i, end, text[i:end], spaced=spaced))
            i = end
            continue
        two = text[i:i + 2]
        if two in _MARKS_LONG:
            kind: Kind = "eq" if two == "==" else "mark"
            out.append(Atom(kind, i, i + 2, two, spaced=spaced))
            i += 2
            continue
        if two in _RELS:
            out.append(Atom("rel", i, i + 2, two, spaced=spaced))
            i += 2
            continue
        if char in _RELS:
            out.append(Atom("rel", i, i + 1, char, spaced=spaced))
        elif char == "=":
            out.append(Atom("eq", i, i + 1, char, spaced=spaced))
        elif char in _OPS:
            out.append(Atom("op", i, i + 1, _OPS[char], spaced=spaced,
                            marker=is_marker_at(text, i)))
        elif char in "([":
            out.append(Atom("lp", i, i + 1, char, spaced=spaced))
        elif char in ")]":
            out.append(Atom("rp", i, i + 1, char, spaced=spaced))
        else:
            out.append(Atom("mark", i, i + 1, char, spaced=spaced))
        i += 1
    return _percent_words(out)


_PERCENT_WORDS = frozenset((
    "percent", "percents", "prozent", "procent", "percento", "porciento", "процент",
    "процента", "процентов", "відсоток", "відсотки", "відсотків", "procentů", "procenta",
    "prosent", "prosenttia", "százalék", "प्रतिशत", "بالمائة", "بالمئة", "パーセント"))
"""Words that say "percent" alone ("15 percent", "15 Prozent", "15 процентов")."""
_PERCENT_PAIRS = frozenset({("per", "cent"), ("por", "ciento"), ("pour", "cent"),
                            ("per", "cento"), ("por", "cento"), ("في", "المائة"),
                            ("في", "المئة")})
"""Two words that say it ("15 per cent", "15 por ciento", "15 pour cent")."""


def _percent_words(out: list[Atom]) -> list[Atom]:
    """A number followed by a word for percent is a percent, as with its sign: "adds 2
    percent" per minute is a level that stops at 100, "more than fifteen percent of the
    bill" is 0.15 times it. A number word is marked too; only a number's mark is read."""
    for i, atom in enumerate(out[:-1]):
        after = out[i + 1].text.lower()
        pair = (after, out[i + 2].text.lower()) if i + 2 < len(out) else None
        if atom.percent or out[i + 1].kind != "word" or not (
            after in _PERCENT_WORDS or pair in _PERCENT_PAIRS
        ):
            continue
        if atom.kind == "num" or (atom.kind == "word" and readings(atom.text)):
            out[i] = replace(atom, percent=True)
    return out


def _identifier(text: str, word: Atom) -> Atom:
    """`word` with the digits joined to it and whatever letters, digits and digit groups
    follow (`A4`, `x25`, `H2O`, `re300`, `MP3`): one word, whose digits are no quantity a
    variant may change. Reading its first digit as a mark and the rest as a number made
    `x48` and `x408` state the same 8."""
    j = word.end
    while j < len(text) and not one_atom_each(text[j]) and (
        text[j].isdigit() or _letter(text, j) or is_mark(text[j]) or (
            text[j] in ".,'’" and text[j - 1].isdigit() and text[j + 1:j + 2].isdigit())
    ):
        j += 1
    return Atom("word", word.start, j, text[word.start:j], spaced=word.spaced)


def _letter(text: str, i: int) -> bool:
    """A letter of any script. Not a number sign such as `²`, `½` or `①` (which regular
    expressions count as word characters): next to a number it would read as its unit,
    and `6² = 12` as `6 = 12`; each is a mark of its own."""
    return bool(_LETTER.match(text, i)) and unicodedata.category(text[i]) != "No"


def _word_end(text: str, i: int) -> int:
    """Where the word at `i` ends (`i` when none starts there): letters of any script with
    the combining marks written on them (a Thai or Devanagari vowel sign is part of its
    word); a Han character or a kana is a word alone (`scripts`)."""
    if not _letter(text, i):
        return i
    j = i + 1
    alone = one_atom_each(text[i])
    while j < len(text) and (is_mark(text[j]) or (
        not alone and _letter(text, j) and not one_atom_each(text[j])
    )):
        j += 1
    return j


def _number_atom(text: str, m: re.Match[str], mark: str, spaced: bool, out: list[Atom]) -> Atom:
    """A number with the currency sign and percent sign written beside it."""
    value, decimals, grouped = _read_number(m.group(0), mark)
    start, end = m.start(), m.end()
    currency = ""
    # A sign just before (€5, $ 5) joins the number; so does one just after (5 €, 5$).
    back = start - 1
    while back >= 0 and text[back] in " \u00a0":
        back -= 1
    if back >= 0 and _is_currency(text[back]) and (start - back) <= 2:
        currency = text[back]
        if out and out[-1].kind == "mark" and out[-1].start == back:
            out.pop()
            start = back
            spaced = back == 0 or text[back - 1].isspace()
    percent = False
    ahead = end
    while ahead < len(text) and text[ahead] in " \u00a0" and ahead - end < 1:
        ahead += 1
    if text.startswith("\\%", ahead):
        percent, end = True, ahead + 2
    elif ahead < len(text) and text[ahead] in _PERCENT:
        percent, end = True, ahead + 1
    elif not currency and ahead < len(text) and _is_currency(text[ahead]):
        currency, end = text[ahead], ahead + 1
    return Atom(
        "num", start, end, text[start:end], value, decimals, grouped, percent, currency, spaced
    )
