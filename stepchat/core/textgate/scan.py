"""Cut a request into the tokens the text gate compares: nothing but whitespace and sentence
punctuation is ever left out.

Every character is one of four things. Whitespace separates tokens (how much of it, and of
which kind, is forgiven; whether there is any is not, so `12×4` and `12 × 4` differ, and a
line break and the indentation after it are tokens, since code reads them). Letters, marks and
digits of every script make words, digits in whatever form they are written (`10³` is not
`103`, `½` is not `1/2`, `٣` is not `3`). Sentence punctuation (`. , ; : ! ? …` and the other
scripts' full stops, commas and question marks) ends a clause and is dropped, but only where it
cannot be an operator: see `_ends_clause`; `:` and (but in Greek) `;` always count. Everything
else is a symbol, one token per character with the marks and joiners that belong to it:
maths, currency, arrows, emoji, brackets, quotes and `@ # _ ~ \\ | * ^`.

Inside backticks the text is one token, compared exactly. Inside quotes and brackets nothing
is dropped as punctuation, and inside quotes the spacing counts too ("'a  b'" is not "'a b'").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from stepchat.core.textgate.lexicon import INTRODUCTIONS, LEADING_CLAUSES, TRAILING_CLAUSES

CLAUSE_MARKS = frozenset(".,!?…;")
"""Sentence punctuation that code and maths also use: dropped only where `_ends_clause` holds.
A colon is always meaning (`x: int`, "the : operator"), and so is a semicolon but after a
Greek word, where it is the question mark (`a = 1; b = 2`)."""
SCRIPT_MARKS = frozenset(
    "。，、；：！？｡､"  # CJK full-width and half-width
    "،؛؟۔"  # Arabic, Urdu
    "।॥"  # Devanagari and other Indic scripts
    "።፣፤፥፧"  # Ethiopic
    "၊။"  # Myanmar
    "។៕"  # Khmer
    "¿¡"  # Spanish inverted marks
)
"""Sentence punctuation no code or formula uses: always dropped (outside quotes and code)."""
SENTENCE_ENDS = frozenset(".!?…;。！？｡؟۔।॥።፧။។៕")
"""Marks after which the next word starts a sentence (its capital says nothing)."""
OPENERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "（": "）", "［": "］", "｛": "｝",
           "〈": "〉", "《": "》", "【": "】", "〔": "〕"}
QUOTES = {"“": "”", "‘": "’", "«": "»", "‹": "›", "„": "“", "「": "」", "『": "』"}
APOSTROPHES = frozenset("'’")
JOINERS = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: part of a word (Persian, Indic) or of an emoji."""


@dataclass(frozen=True)
class Token:
    """One unit of meaning. `joined`: no whitespace before it. `start`: the first word of a
    sentence, whose capital is the sentence's, not the word's. `guarded`: inside quotes,
    brackets or code, where no courtesy word is dropped."""

    text: str
    kind: str
    """"word", "symbol", "code" (a backtick span, exact), "space" (inside quotes) or "break"
    (line breaks, with the next line's indentation)."""
    joined: bool = False
    start: bool = False
    guarded: bool = False


@dataclass
class Scan:
    """The tokens of a request split into clauses at dropped punctuation.

    `marks[i]` is the punctuation dropped before clause `i` ("" for the first)."""

    clauses: list[list[Token]] = field(default_factory=list)
    marks: list[str] = field(default_factory=list)


@lru_cache(maxsize=8192)
def is_word_char(ch: str) -> bool:
    """A letter, mark or digit of any script."""
    return unicodedata.category(ch)[0] in "LMN"


_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_NONSPACE = re.compile(r"\S")


def _attached(ch: str) -> bool:
    """Characters that belong to the symbol before them: combining marks, variation
    selectors, emoji skin tones and tags."""
    cat = unicodedata.category(ch)
    return cat[0] == "M" or "\U0001f3fb" <= ch <= "\U0001f3ff" or "\U000e0020" <= ch <= "\U000e007f"


class _Scanner:
    """One pass over the text, keeping the bracket and quote nesting it is in."""

    def __init__(self, text: str, punctuation: bool, courtesy: bool) -> None:
        self.text = text
        self.punctuation = punctuation
        self.courtesy = courtesy
        self.has_small = text != text.upper()
        """Whether the text has small letters: only then does a capital start a sentence."""
        self.scan = Scan([[]], [""])
        self.closers: list[str] = []
        self.in_quote = 0
        self.space_before = False
        self.sentence_start = True

    @property
    def guarded(self) -> bool:
        return bool(self.closers)

    def emit(self, text: str, kind: str) -> None:
        start = kind == "word" and self.sentence_start
        if kind in ("word", "code"):
            self.sentence_start = False
        last = self.scan.clauses[-1]
        joined = bool(last) and not self.space_before
        last.append(Token(text, kind, joined, start, self.guarded))
        self.space_before = False

    def previous(self) -> Token | None:
        last = self.scan.clauses[-1]
        return last[-1] if last else None

    def run(self) -> Scan:
        text, i = self.text, 0
        while i < len(text):
            ch = text[i]
            if ch == "`":
                i = self._code(i)
            elif ch.isspace():
                i = self._space(i)
            elif is_word_char(ch):
                i = self._word(i)
            elif self.punctuation and ch in SCRIPT_MARKS and not self.in_quote:
                j = i
                while j < len(text) and text[j] in SCRIPT_MARKS | CLAUSE_MARKS:
                    j += 1
                self._end_clause(text[i:j])
                i = j
            elif self.punctuation and ch in CLAUSE_MARKS:
                i = self._marks(i)
            elif ch == ":" and self._introduced(i):
                self._end_clause(":")
                i += 1
            else:
                i = self._symbol(i)
        return self.scan

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
            self.emit(ticks, "symbol")
            return j
        self.emit(text[i: end + len(ticks)], "code")
        return end + len(ticks)

    def _space(self, i: int) -> int:
        text = self.text
        j = i
        while j < len(text) and text[j].isspace():
            j += 1
        run = text[i:j]
        if j == len(text):
            return j
        if "\n" in run and self.scan.clauses[-1]:
            indent = run[run.rfind("\n") + 1:]
            self.emit("\n" * run.count("\n") + indent, "break")
            self.space_before = True
        elif self.in_quote:
            self.emit(run, "space")
            self.space_before = True
        else:
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
            elif (ch in APOSTROPHES or ch in JOINERS) and j + 1 < len(text) and (
                is_word_char(text[j + 1])
            ):
                j += 2
            else:
                break
        self.emit(text[i:j].replace("’", "'"), "word")
        return j

    def _marks(self, i: int) -> int:
        text = self.text
        j = i
        while j < len(text) and text[j] in CLAUSE_MARKS:
            j += 1
        run = text[i:j]
        if self._ends_clause(run, j):
            self._end_clause(run)
            return j
        for ch in run:
            self.emit(ch, "symbol")
        return j

    def _ends_clause(self, run: str, after: int) -> bool:
        """Whether a run of `. , ! ? … ;` is sentence punctuation here, not an operator.

        It is when it ends a word and is followed by whitespace or the end, outside quotes and
        brackets. Kept: `?`, `!`, `.` or `…` after a single letter (`a?` in a pattern, `n!`);
        `!` after a digit or a closing bracket (`5!`, `(n+1)!`); a comma between digits
        (`2, 3` is a tuple in Python); `;` but after a Greek word (its question mark). Before
        more text, a full stop, `?`, `!`, `…` or `;` (or any mark after a closing bracket or
        quote, `[a-z]? b`) ends a sentence only when the next word starts like one: a capital
        in a text that also has small letters, a digit, or a script without case; `ab? match`
        keeps its `?`. A greeting that opens the request ends at its mark whatever follows
        ("hello! how many…"), and so does the sentence before closing thanks ("…? thanks").
        """
        text = self.text
        if self.guarded or self.in_quote:
            return False
        if after < len(text) and not text[after].isspace():
            return False
        before = self.previous()
        if before is None:
            return False
        enders = set(run) & {".", "!", "?", "…", ";"}
        if ";" in run and not (before.kind == "word" and _greek(before.text[-1])):
            return False
        if before.kind == "word":
            if enders and len(before.text) == 1 and before.text.isalpha():
                return False
            if "!" in run and not before.text[-1].isalpha():
                return False
        elif before.kind != "symbol" or before.text not in _CLOSERS or "!" in run:
            return False
        nonspace = _NONSPACE.search(text, after)
        if nonspace is None:
            return True
        if "," in run and nonspace.group(0).isdigit() and before.text[-1].isdigit():
            return False
        if self.courtesy and before.kind == "word" and (
            (len(self.scan.clauses) == 1 and self._clause_words() in LEADING_CLAUSES)
            or _words_of(text[after:]) in TRAILING_CLAUSES
        ):
            return True
        if not enders:
            return True
        first = nonspace.group(0)
        if first.isdigit():
            return True
        if not first.isalpha():
            return False
        if first.isupper():
            return self.has_small  # in capitals throughout, a capital says nothing
        return not first.islower()

    def _clause_words(self) -> tuple[str, ...]:
        return tuple(t.text.lower() for t in self.scan.clauses[-1])

    def _introduced(self, i: int) -> bool:
        """A colon after "Quick question" only announces what follows."""
        after = i + 1
        return (
            self.courtesy and self.punctuation and not self.guarded and not self.in_quote
            and (after == len(self.text) or self.text[after].isspace())
            and self._clause_words() in INTRODUCTIONS
        )

    def _end_clause(self, mark: str) -> None:
        self.scan.clauses.append([])
        self.scan.marks.append(mark)
        self.space_before = True
        if set(mark) & SENTENCE_ENDS:
            self.sentence_start = True

    def _symbol(self, i: int) -> int:
        text = self.text
        j = i + 1
        while j < len(text) and (
            _attached(text[j])
            or (text[j] in JOINERS and j + 1 < len(text) and not text[j + 1].isspace())
        ):
            j += 2 if text[j] in JOINERS else 1
        ch = text[i]
        opened = self._track(ch, i)
        self.emit(text[i:j], "symbol")
        if not opened and ch in _CLOSERS:
            self._untrack(ch)
        return j

    def _track(self, ch: str, i: int) -> bool:
        """Open a bracket or a quote before the symbol is emitted (it is inside its span)."""
        if ch in OPENERS:
            self.closers.append(OPENERS[ch])
        elif ch in QUOTES and ch not in self.closers:
            self.closers.append(QUOTES[ch])
            self.in_quote += 1
        elif ch in ('"', "'") and ch not in self.closers and self._opens(i):
            self.closers.append(ch)
            self.in_quote += 1
        else:
            return False
        return True

    def _untrack(self, ch: str) -> None:
        """Close the innermost span this character closes, if one is open."""
        if ch in self.closers and (ch not in ('"', "'") or self.closers[-1] == ch):
            while self.closers:
                closed = self.closers.pop()
                if closed in _QUOTE_CLOSERS or closed in ('"', "'"):
                    self.in_quote -= 1
                if closed == ch:
                    break

    def _opens(self, i: int) -> bool:
        """A straight quote opens a span when a word follows it and none precedes it."""
        text = self.text
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        return not is_word_char(before) and not after.isspace()


def _greek(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("GREEK")


_CLOSERS = frozenset(OPENERS.values()) | frozenset(QUOTES.values()) | {'"', "'"}
_QUOTE_CLOSERS = frozenset(QUOTES.values())


def _words_of(rest: str) -> tuple[str, ...] | None:
    """The words of a short rest of the text, in small letters, without end marks."""
    if len(rest) > 40:
        return None
    return tuple(rest.lower().rstrip("".join(CLAUSE_MARKS) + " ").split())


def scan(text: str, *, punctuation: bool = True, courtesy: bool = True) -> Scan:
    """The request's tokens in clauses; `punctuation=False` keeps every mark as a symbol.

    With `courtesy`, a greeting that opens the request ends at its mark even before a small
    letter ("hi! how…"), so does a sentence before closing thanks ("…? thanks"), and a colon
    after "Quick question" ends that clause."""
    normal = unicodedata.normalize("NFC", text).strip()
    return _Scanner(normal, punctuation, courtesy).run()
