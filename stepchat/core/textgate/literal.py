"""Where a request quotes text, and the canonical form of the rest.

Inside quotes every character is the quoted text's: spacing, punctuation and case all count,
and a typographic apostrophe (`"it’s"`) is not the ASCII one (`"it's"`).
A scanner that misses a quote mark leaves quoted text forgivable, so the reading here is
conservative: every quote character of every script opens literal text, except an apostrophe
inside a word ("don't"; after a string prefix, `N'a b'`, `b'…'`, it starts a quote) and one
closing a plural possessive ("the kids' menu") when the text has no other single quote.
Literal text runs from the first quote mark of a kind to the last one of that kind, or to
the end of the request when there is only one (a quote left open), so a mark read as a
closing quote cannot end a quotation early.

Canonical equivalence (NFC) joins an accented letter typed as one character and as a letter
and a combining accent, outside quotes and code. It leaves alone the characters Unicode maps
to one other character (singleton decompositions: U+2126 OHM SIGN, U+212A KELVIN SIGN,
U+212B ANGSTROM SIGN, the CJK compatibility ideographs such as U+F90A, which KS X 1001
encodes once per Korean reading): they were encoded to carry a distinction.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

SINGLE_QUOTES = frozenset("'‘’‚‛＇❛❜")
DOUBLE_QUOTES = frozenset('"“”„‟＂〝〞〟❝❞⹂″‶\U0001f676\U0001f677\U0001f678')
PAIRED_QUOTES = (frozenset("«»"), frozenset("‹›"), frozenset("「」｢｣"), frozenset("『』"),
                 frozenset("﹁﹂"), frozenset("﹃﹄"), frozenset("⸌⸍"))
QUOTE_FAMILIES = (SINGLE_QUOTES, DOUBLE_QUOTES, *PAIRED_QUOTES)
QUOTE_CHARS = frozenset().union(*QUOTE_FAMILIES)
"""Every character with Unicode's Quotation_Mark property (the halfwidth corner brackets
`｢｣` and the low reversed `⹂` among them), and the ones written as quotes without it: the
ornaments `❛❜❝❞🙶🙷🙸`, the raised omission brackets `⸌⸍` and the primes `″‶` typed for
quotes in code and on phones."""
APOSTROPHES = frozenset("'’")
STRING_PREFIXES = frozenset({"b", "f", "r", "u", "n", "l", "e", "x", "rb", "br", "fr", "rf",
                             "q", "qq", "qw", "qr", "qx", "tr"})
"""Letters that open a string literal before a quote (`b'…'`, `f'…'`, SQL `N'…'`, C `L'…'`,
PostgreSQL `E'…'`, `X'…'`, Perl `q'…'`, `qq'…'`, `qw'…'`): an apostrophe after them starts
a quote, not a contraction."""
ELIDED = frozenset("iojydmstc")
"""The single letters an apostrophe follows in a word: I'm, o'clock, y'all, and the elisions
of French and Italian (d', j', m', s', t', c'). After any other single letter an apostrophe
starts a quote (a string prefix of some language: Perl `q'…'`, `m'…'` is ambiguous and
stays a word)."""
INVISIBLE_SPACES = frozenset("\u200b\u2060\ufeff\u180e")
"""Zero-width space, word joiner, zero-width no-break space and the Mongolian vowel separator:
not whitespace to `str.isspace`, but a space no one can see between two characters."""


def is_space(ch: str) -> bool:
    """Whitespace of any kind: a plain space, a tab, a line break, a no-break, thin or
    ideographic space (Unicode's Zs), or one of the zero-width `INVISIBLE_SPACES`. Wherever
    the gate decides whether two characters are adjacent, each separates as a plain space
    does."""
    return ch.isspace() or ch in INVISIBLE_SPACES


_COLON_LIKE = frozenset("∶·\u0387\u2024ꓽ׃")
"""Colons whose Unicode name does not say so: the ratio sign, the middle dot (NFC's form of
the Greek ano teleia), the Armenian colon (one dot leader), Lisu's and Hebrew's."""
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
"""Hangul fillers: letters to Unicode, blank to the eye."""
_TIME = re.compile(r"(?<![\w:])\d{1,2}$")
_MINUTES = re.compile(r"\d{2}(?![\w:])")


@lru_cache(maxsize=4096)
def is_colon(ch: str) -> bool:
    """A colon of any script or form: `:`, `：`, `﹕`, `꞉`, `᠄`, `፥`, `⁝`, ... (every
    character Unicode names a colon, not a semicolon or the colón currency sign) and the
    ones in `_COLON_LIKE`."""
    name = unicodedata.name(ch, "")
    return ch in _COLON_LIKE or (
        "COLON" in name and "SEMICOLON" not in name and name != "COLON SIGN")


def target_start(text: str) -> int:
    """Where the text a colon introduces begins ("Translate into French: you are coming?",
    "How many sentences are in:It rains. It pours.", "翻译成英文：你去。"), or `len(text)`.

    That text is what the request works on: its case, its marks, its spacing, its "please"
    and its thanks are its own. Which colon introduces it no spacing rule can tell (`in:x`,
    `chaîne : x`, `chaîne :x`), so every colon does, of any form (`is_colon`), but a clock
    time's (`at 10:30`) and one after a single word written in letters with case, a topic
    far more often than an instruction (`Python: how do I…`; `Reverse: Hello` is a listed
    failure)."""
    for i, ch in enumerate(text):
        if is_colon(ch) and not _time(text, i) and not _topic(text[:i]):
            return i + 1
    return len(text)


def _time(text: str, i: int) -> bool:
    """Whether the colon at `i` is a clock time's (`10:30`, not `ROT13:3` or `2:3`)."""
    return text[i] == ":" and bool(_TIME.search(text, 0, i)) and bool(_MINUTES.match(text, i + 1))


def _topic(before: str) -> bool:
    """One word of letters with case and nothing else (`Python`, `SQL`, `Reverse`): a
    hyphen, a digit, a symbol, an emoji, a blank-looking letter or a caseless script makes
    it more than a topic, and the colon introduces text."""
    word = before.strip()
    return bool(word) and all(
        ch.isalpha() and ch not in _FILLERS and ch.lower() != ch.upper() for ch in word)


def _letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def _apostrophe(text: str, i: int) -> str | None:
    """"word" for an apostrophe inside a word ("don't", "O'Brien"; but not after a string
    prefix, `N'a b'`), "possessive" for one that may close a plural possessive before a space
    ("the kids' menu"), None for a quote mark."""
    if text[i] not in APOSTROPHES or i == 0:
        return None
    start = i
    while start > 0 and _letter(text[start - 1]):
        start -= 1
    word = text[start:i]
    if i + 1 == len(text) or is_space(text[i + 1]):
        return "possessive" if len(word) > 1 and word[-1] in "sS" else None
    prefix = word.lower() in STRING_PREFIXES or (len(word) == 1 and word.lower() not in ELIDED)
    inside = bool(word) and _letter(text[i + 1]) and not prefix
    return "word" if inside else None


def quote_marks(text: str) -> frozenset[int]:
    """Positions of the quote characters that open or close quoted text.

    A possessive apostrophe is one whenever the text has another single quote mark: it may
    close a quotation ("'we dance under the stars' in Spanish", "'its' and 'it's'") or stand
    inside one ("'the dogs' toys, balls'"), and either way the quotation then runs at least to
    it ("the kids' menu" alone is a possessive)."""
    kinds = {i: _apostrophe(text, i) for i, ch in enumerate(text) if ch in QUOTE_CHARS}
    marks = {i for i, kind in kinds.items() if kind is None}
    if any(text[i] in SINGLE_QUOTES for i in marks):
        marks |= {i for i, kind in kinds.items() if kind == "possessive"}
    return frozenset(marks)


def literal_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) ranges of quoted text, quote marks included, merged where they overlap."""
    marks = sorted(quote_marks(text))
    spans = []
    for family in QUOTE_FAMILIES:
        mine = [i for i in marks if text[i] in family]
        if mine:
            spans.append((mine[0], mine[-1] + 1 if len(mine) > 1 else len(text)))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@lru_cache(maxsize=8192)
def _singleton(ch: str) -> bool:
    """A character whose canonical decomposition is one other character (NFC replaces it)."""
    mapping = unicodedata.decomposition(ch)
    return bool(mapping) and not mapping.startswith("<") and " " not in mapping


def canonical(text: str) -> str:
    """`text` in NFC, but for characters with a singleton decomposition, kept as written."""
    if text.isascii():
        return text
    out, start = [], 0
    for i, ch in enumerate(text):
        if _singleton(ch):
            out += [unicodedata.normalize("NFC", text[start:i]), ch]
            start = i + 1
    out.append(unicodedata.normalize("NFC", text[start:]))
    return "".join(out)
