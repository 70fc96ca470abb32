"""Cut a request into the tokens the text gate compares: nothing is ever left out.

Every character is one of these. Letters, marks and digits of every script make words, digits
in whatever form they are written (`10³` is not `103`, `½` is not `1/2`, `٣` is not `3`).
Whitespace separates tokens: a run of plain spaces on one line only says that two tokens are
apart (how many spaces is forgiven; whether there are any is not, so `12×4` and `12 × 4`
differ); any other run (a line break with the spaces around it, a tab, a no-break space, a
zero-width space or word joiner) is a token of its own, since Markdown, code and tables read
it. Wherever the gate decides whether two things are adjacent (a unit beside its number, a
mark followed by whitespace, the word after a comma), every kind of whitespace, zero-width
ones included, separates as a plain space does (`literal.is_space`). Everything else is a
symbol, one token per character with the marks and joiners that belong to it: maths,
currency, arrows, emoji, brackets, quotes and `@ # _ ~ \\ | * ^`.

Sentence punctuation becomes a `mark` token that the comparison may skip (see `match`), but
only where it cannot be part of what is asked; anywhere else it is a symbol. See
`_soft_marks` and `_soft_script_marks` for where that is.

Inside backticks the text is one token, compared exactly. Inside quotes (`literal`) nothing is
a mark, the spacing counts, case is literal and `’` is not `'`; outside them a `’` inside a
word reads as `'` (`don’t` is `don't`). Inside brackets nothing is a mark.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from stepchat.core.tasks.wordprob.numwords import SHORT, readings
from stepchat.core.textgate.literal import (
    APOSTROPHES,
    QUOTE_CHARS,
    canonical,
    is_space,
    literal_spans,
    quote_marks,
    target_start,
)

CLAUSE_MARKS = frozenset(".,!?…;")
"""Sentence punctuation that code and maths also use: a mark only where `_soft_marks` says."""
SCRIPT_MARKS = frozenset(
    "。，、；：！？｡､"  # CJK full-width and half-width
    "،؛؟۔"  # Arabic, Urdu
    "।॥"  # Devanagari and other Indic scripts
    "።፣፤፥፧"  # Ethiopic
    "၊။"  # Myanmar
    "។៕"  # Khmer
    "¿¡"  # Spanish inverted marks
    "\u037e\u0387"  # Greek question mark and ano teleia
)
"""Sentence punctuation of scripts that code and formulas do not use: a mark wherever it stands,
but a `！` after a number or a one-letter name (`5！`, `n！`) and a comma beside a digit."""
SCRIPT_COMMAS = frozenset("，、､،፣၊")
BANGS = frozenset("!！")
SENTENCE_ENDS = frozenset(".!?…;。！？｡؟۔।॥።፧။។៕\u037e")
"""Marks after which the next word starts a sentence."""
OPENERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "（": "）", "［": "］", "｛": "｝",
           "〈": "〉", "《": "》", "【": "】", "〔": "〕"}
ONE_CASE_WORDS = 2
"""A request is written in one case only with at least this many words that have case: "CO
的原子量" is a symbol in capitals, not a request typed in capitals."""


def in_capitals(words: Sequence[str]) -> bool:
    """Whether `words` are written in capitals: at least `ONE_CASE_WORDS` of them have case,
    and all of those are capitals."""
    cased = [w for w in words if w.lower() != w.upper()]
    return len(cased) >= ONE_CASE_WORDS and all(w == w.upper() for w in cased)


LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
JOINERS = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: part of a word (Persian, Indic) or of an emoji."""
_CLOSERS = frozenset(OPENERS.values()) | QUOTE_CHARS


@dataclass(frozen=True)
class Token:
    """One unit of meaning.

    `joined`: no whitespace before it. `start`: a word that opens a sentence. `guarded`: inside
    quotes, brackets or code, where no courtesy or contraction is read. `quoted`: inside
    quotes, where case is literal. `resumed`: the first word after a greeting and its comma,
    whose small first letter may be the sentence's capital. `unit`: a word next to a number,
    whose capitals may be a unit's (`normalize.keeps_case`; see `_units`). `introduced`:
    after a colon of any form (`literal.target_start`): the text a request works on, whose
    case is its own ("Count the capitals in: Hello" is not "count the capitals in: hello")."""

    text: str
    kind: str
    """"word", "symbol", "code" (a backtick span, exact), "space" (any whitespace but a run of
    plain spaces, exact), "break" (a line break with the whitespace around it, or the first
    line's indentation, exact) or "mark" (sentence punctuation the comparison may skip)."""
    joined: bool = False
    start: bool = False
    guarded: bool = False
    quoted: bool = False
    resumed: bool = False
    unit: bool = False
    introduced: bool = False


@lru_cache(maxsize=8192)
def is_word_char(ch: str) -> bool:
    """A letter, mark or digit of any script."""
    return unicodedata.category(ch)[0] in "LMN"


_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_NONSPACE = re.compile(r"[^\s\u200b\u2060\ufeff\u180e]")
"""Not whitespace of any kind (`literal.is_space`)."""


def _attached(ch: str) -> bool:
    """Characters that belong to the symbol before them: combining marks, variation
    selectors, emoji skin tones and tags."""
    cat = unicodedata.category(ch)
    return cat[0] == "M" or "\U0001f3fb" <= ch <= "\U0001f3ff" or "\U000e0020" <= ch <= "\U000e007f"


class _Scanner:
    """One pass over the text, keeping the brackets it is in and where quotes are."""

    def __init__(self, text: str, punctuation: bool, resumed: bool) -> None:
        self.text = text
        self.punctuation = punctuation
        self.resumed = resumed
        self.has_small = text != text.upper()
        """Only in a text with small letters does a capital show where a sentence starts."""
        spans = literal_spans(text)
        self.span_starts = [s for s, _ in spans]
        self.span_ends = [e for _, e in spans]
        self.marks = quote_marks(text)
        self.target = target_start(text)
        """Where the text a colon introduces begins: no mark or courtesy is read after it."""
        self.tokens: list[Token] = []
        self.closers: list[str] = []
        self.space_before = False
        self.sentence_start = True

    def quoted(self, i: int) -> bool:
        at = bisect_right(self.span_starts, i) - 1
        return at >= 0 and i < self.span_ends[at]

    def emit(self, text: str, kind: str, at: int) -> None:
        quoted = self.quoted(at)
        if kind in ("word", "symbol") and not quoted:
            text = canonical(text)
        start = kind == "word" and self.sentence_start
        resumed = kind == "word" and self.resumed and not self.tokens
        if kind in ("word", "code"):
            self.sentence_start = False
        joined = bool(self.tokens) and not self.space_before and kind not in ("break", "space")
        guarded = quoted or bool(self.closers) or kind == "code"
        self.tokens.append(Token(text, kind, joined, start, guarded, quoted, resumed,
                                 introduced=at >= self.target))
        self.space_before = False

    def previous(self) -> Token | None:
        return self.tokens[-1] if self.tokens else None

    def run(self) -> list[Token]:
        text, i = self.text, 0
        while i < len(text):
            ch = text[i]
            if ch == "`":
                i = self._code(i)
            elif is_space(ch):
                i = self._space(i)
            elif is_word_char(ch):
                i = self._word(i)
            elif self.punctuation and ch in SCRIPT_MARKS and not self.quoted(i):
                i = self._script_marks(i)
            elif self.punctuation and ch in CLAUSE_MARKS:
                i = self._marks(i)
            else:
                i = self._symbol(i)
        return _units(self.tokens)

    def _code(self, i: int) -> int:
        """A backtick span (or fence) is one exact token; an unclosed backtick is a symbol."""
        text = self.text
        j = i
        while j < len(text) and text[j] == "`":
            j += 1
        ticks = text[i:j]
        end = text.find(ticks, j)
        while end != -1 and end + len(ticks) < len(text) and text[end + len(ticks)] == "`":
            end = text.find(ticks, end + len(ticks) + 1)
        if end == -1:
            self.emit(ticks, "symbol", i)
            return j
        self.emit(text[i: end + len(ticks)], "code", i)
        return end + len(ticks)

    def _space(self, i: int) -> int:
        text = self.text
        j = i
        while j < len(text) and is_space(text[j]):
            j += 1
        run = text[i:j]
        if not self.tokens or self.quoted(i) or any(ch in LINE_BREAKS for ch in run):
            self.emit(run, "break" if not self.quoted(i) else "space", i)
        elif set(run) != {" "} or (i >= self.target and len(run) > 1):
            self.emit(run, "space", i)  # the text a colon introduces keeps its spacing
        self.space_before = True
        return j

    def _word(self, i: int) -> int:
        text = self.text
        ascii_run = _ASCII_WORD.match(text, i)
        j = ascii_run.end() if ascii_run else i + 1
        while j < len(text):
            ch = text[j]
            if is_word_char(ch):
                j += 1
            elif ((ch in APOSTROPHES and j not in self.marks) or ch in JOINERS) and (
                j + 1 < len(text) and is_word_char(text[j + 1])
            ):
                j += 2
            else:
                break
        word = text[i:j]
        self.emit(word if self.quoted(i) else word.replace("’", "'"), "word", i)
        return j

    def _marks(self, i: int) -> int:
        text = self.text
        j = i
        while j < len(text) and text[j] in CLAUSE_MARKS:
            j += 1
        run = text[i:j]
        if self._soft_marks(run, i, j):
            self._mark(run, i)
        else:
            for k, ch in enumerate(run):
                self.emit(ch, "symbol", i + k)
        return j

    def _soft_marks(self, run: str, i: int, after: int) -> bool:
        """Whether a run of `. , ! ? … ;` is sentence punctuation here, not part of the request.

        It must end a word: attached to it (`git add .` and `cd ..` keep theirs) and followed by
        whitespace or the end, outside quotes and brackets. Kept: an ellipsis (`...`, `…`); `?`,
        `!` or `.` after a single letter (`a?` in a pattern, `n!`); `!` after a digit or a
        bracket (`5!`, `(n+1)!`) and after a capitalised word inside a sentence (`Oklahoma!`,
        `Yahoo!`); `;` but after a Greek word (its question mark); a comma unless it stands
        between two words of two or more letters (`x = a, b`, `5, -3`, `sin x, cos x` keep
        theirs). Before more text, a `. ? ! ;` is skipped only where the next word starts with a
        capital on both sides (`match`).
        """
        text = self.text
        before = self.previous()
        if self.closers or self.quoted(i) or before is None or is_space(text[i - 1]):
            return False
        if i >= self.target:
            return False
        if after < len(text) and not is_space(text[after]):
            return False
        if "…" in run or run.count(".") > 1:
            return False
        if before.kind == "symbol":  # a closing quote's; a bracket's is code: `if (x);`
            return before.text in QUOTE_CHARS and not set(run) & {"!", ",", ";"}
        if before.kind != "word" or _named(self.tokens):
            return False
        if "." in run and before.text[-1].isdigit() and text[after:].strip():
            return False
        if ";" in run and not _greek(before.text[-1]):
            return False
        if set(run) & {".", "!", "?", ";"} and _one_letter(before.text):
            return False
        if "!" in run and (not before.text[-1].isalpha() or (
            self.has_small and before.text[:1].isupper() and not before.start
        )):
            return False
        if "," in run:
            return run == "," and _two_letters(before.text) and _two_letters(
                _next_word(text, after)
            )
        return True

    def _script_marks(self, i: int) -> int:
        """A run of other scripts' sentence marks: a mark, except a `！` after a number, a
        one-letter name or a bracket, and a comma beside a digit, a symbol or a one-letter
        name (`sin x，cos x`, `x = a，b`)."""
        text = self.text
        j = i
        while j < len(text) and text[j] in SCRIPT_MARKS:
            j += 1
        run = text[i:j]
        before = self.previous()
        bang = bool(set(run) & BANGS) and _value(before) and not is_space(text[i - 1])
        following = _next_word(text, j)
        comma = set(run) <= SCRIPT_COMMAS and not (
            before is not None and before.kind == "word" and before.text[-1].isalpha()
            and following[:1].isalpha() and not _name(before.text) and not _name(following)
        )
        if bang or comma or i >= self.target:
            for k, ch in enumerate(run):
                self.emit(ch, "symbol", i + k)
        else:
            self._mark(run, i)
        return j

    def _mark(self, run: str, at: int) -> None:
        self.emit(run, "mark", at)
        self.space_before = True
        if set(run) & SENTENCE_ENDS:
            self.sentence_start = True

    def _symbol(self, i: int) -> int:
        text = self.text
        j = i + 1
        while j < len(text) and (
            _attached(text[j])
            or (text[j] in JOINERS and j + 1 < len(text) and not is_space(text[j + 1]))
        ):
            j += 2 if text[j] in JOINERS else 1
        ch = text[i]
        if ch in OPENERS:
            self.closers.append(OPENERS[ch])
        self.emit(text[i:j], "symbol", i)
        if ch in self.closers and ch not in OPENERS:
            while self.closers and self.closers.pop() != ch:
                pass
        return j


NAME_JOINERS = frozenset(".:_>")
"""Symbols that join a name to what it belongs to: `obj.name`, `File::open`, `snake_case`,
`ptr->next`."""


def _named(tokens: Sequence[Token]) -> bool:
    """Whether the last token is a word joined to a symbol before it: a dotted, scoped or
    called name (`[1, 2].uniq`, `0.zero`, `user.name`, `File::open`, `mail.example.com`),
    whose `!`, `?` or `.` is part of the name."""
    return (
        len(tokens) >= 2 and tokens[-1].joined and tokens[-1].text[:1].isalpha()
        and tokens[-2].text in NAME_JOINERS
    )


QUANTITY_WORDS = frozenset({
    "dozen", "dozens", "score", "half", "hundreds", "thousands", "millions", "billion",
    "billions", "trillion", "trillions",
})
"""English words for a number that `numwords.readings` does not read as a cardinal (it reads
no multiple, fraction or plural, and no scale word whose value differs by country): a unit
may follow them as it follows a number ("a dozen mWh", "a billion kWh")."""


def _units(tokens: list[Token]) -> list[Token]:
    """`tokens` with each word that may name a number's unit marked `unit`: a word with a
    numeral before its letters (`5Mm`, `10mA`, `½MWh`, `五MWh`, `٣mA`), letters with a
    superscript power (`Mm²`), or a word whose nearest word before it is a number in any form
    (`_number`), however the two are separated: by whitespace of any kind (a tab, a no-break,
    thin or zero-width space), symbols or marks (`5 mPa`, `5-mWh`, `$50/MWh`, `5 (mPa)`,
    `5~mWh`), not by another word. Not the word before a number: names are numbered far more
    often than units precede their number (`Vue 3`, `HTTP/2`, `The Four Seasons`)."""
    marked = []
    number = False
    for token in tokens:
        if token.kind == "word":
            unit = number or _numbered(token.text)
            number = _number(token)
            marked.append(replace(token, unit=True) if unit else token)
        else:
            marked.append(token)
    return marked


def _numbered(word: str) -> bool:
    """A quantity with its unit in one word: a numeral then letters (`5Mm`, `10mA`, `½MWh`,
    `五MWh`), or letters with a superscript power (`Mm²`); not a name with a digit (`Jet2`,
    `P60`)."""
    return (_numeral(word[0]) and any(c.isalpha() for c in word)) or (
        word[:1].isalpha() and unicodedata.category(word[-1]) == "No"
    )


def _number(token: Token) -> bool:
    """A number in any form: a word with a digit or a numeral of any script in it (`5`, `1e3`,
    `2k`, `½`, `٣`, `五`), a cardinal in words in a language the word problems read, longer
    than two letters (`numwords.readings`: "ten", "zwanzig", "cinq", "пять", "तीन"; not "to"
    or "en", which read as Danish and Spanish numbers but are mostly English words, as
    `numwords.SHORT` says), or a `QUANTITY_WORDS` ("dozen", "billion")."""
    text = token.text
    return any(_numeral(c) for c in text) or text.lower() in QUANTITY_WORDS or (
        len(text) > SHORT and bool(readings(text))
    )


@lru_cache(maxsize=8192)
def _numeral(ch: str) -> bool:
    """A digit or a character Unicode gives a numeric value (`½`, `٣`, `五`, `十`)."""
    return unicodedata.numeric(ch, None) is not None


def _value(token: Token | None) -> bool:
    """A number, a one-letter name or a bracket: a `!` after it is a factorial."""
    if token is None:
        return False
    if token.kind == "symbol":
        return token.text in _CLOSERS
    return token.kind == "word" and (not token.text[-1].isalpha() or _one_letter(token.text))


def _name(word: str) -> bool:
    """One letter of an alphabet (`x`, `a`, `β`): a name in a formula, where a comma
    separates values. A CJK character alone is a word."""
    return _one_letter(word) and unicodedata.name(word, "").split(" ")[0] in ALPHABETS


ALPHABETS = frozenset({"LATIN", "GREEK", "CYRILLIC", "FULLWIDTH"})


def _greek(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("GREEK")


def _one_letter(word: str) -> bool:
    return len(word) == 1 and word.isalpha()


def _two_letters(word: str) -> bool:
    """A word of two or more letters (and marks), no digit: prose, not a name or a value."""
    return len(word) >= 2 and all(unicodedata.category(c)[0] in "LM" or c == "'" for c in word)


def _next_word(text: str, at: int) -> str:
    """The word that starts at the first non-space character from `at`, up to an apostrophe
    ("I" of "I'm"), or ""."""
    found = _NONSPACE.search(text, at)
    if found is None:
        return ""
    j = found.start()
    while j < len(text) and is_word_char(text[j]):
        j += 1
    return text[found.start(): j]


def trim(text: str) -> str:
    """`text` without whitespace at its end, blank lines at its start, and the first line's
    indentation when it is one line (several lines read it: a Markdown code block, Python)."""
    text = text.rstrip()
    lead = len(text) - len(text.lstrip())
    breaks = [k for k in range(lead) if text[k] in LINE_BREAKS]
    text = text[breaks[-1] + 1:] if breaks else text
    return text if any(ch in LINE_BREAKS for ch in text) else text.lstrip()


def scan(text: str, *, punctuation: bool = True, resumed: bool = False) -> list[Token]:
    """The request's tokens; `punctuation=False` makes every mark a symbol. `resumed`: the
    text followed a greeting and its comma (`courtesy`)."""
    return _Scanner(trim(text), punctuation, resumed).run()
