"""Reduce a request to what the gate compares: its tokens, less the edits it forgives.

Everything `scan` keeps is meaning. This module takes away only what the closed list in
`forgiven.FORGIVEN` allows before the comparison: courtesy at the ends (`courtesy`) and
English contractions written with an apostrophe, and it notes what the comparison (`match`)
needs to forgive case: whether the request is written in one case throughout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from stepchat.core.textgate.courtesy import Framed, cut_courtesy
from stepchat.core.textgate.lexicon import (
    CONTRACTIONS,
    HAS_PARTICIPLES,
    IS_STEMS,
    NOT_STEMS,
    SUFFIXES,
    VERB_PREFIXES,
)
from stepchat.core.textgate.scan import ONE_CASE_WORDS, Token, in_capitals, scan

SHORT_SYMBOL = 2
"""A word this short with a capital is a symbol (an element, a unit, a country, a language):
its case is kept."""
UNIT_LETTERS = 3
"""A word this short with a capital after a number is a unit's symbol (`Mib`, `Mm²`)."""
MIXED_SYMBOL = 4
"""A word this short with a capital past its first letter and a small letter is a unit's
symbol with its prefix (`mPa`, `MWh`, `MBps`, `mmHg`) wherever it stands."""


@dataclass(frozen=True)
class GateOptions:
    """What the gate may forgive beyond canonical Unicode equivalence and the number of spaces
    between two tokens; each can be switched off to measure what it buys
    (`stepchat bench --pairs`)."""

    case: bool = True
    """Case against a request written in one case, and after a greeting (see `match`)."""
    punctuation: bool = True
    """Sentence punctuation where it cannot be part of the request (see `scan`)."""
    courtesy: bool = True
    """A greeting at the start, thanks and ", please?" at the end (see `courtesy`)."""
    contractions: bool = True
    """English contractions with an apostrophe: "what's" is "what is"."""


@dataclass(frozen=True)
class Reduced:
    """A request reduced to its tokens, with the case it is written in."""

    tokens: tuple[Token, ...]
    case: str
    """"lower" or "upper" when written in one case throughout (`ONE_CASE_WORDS`), else
    "mixed" (also a request with too few words that have case, or none)."""

    def key(self) -> str:
        """A case-blind form for finding candidates: equal keys are worth comparing."""
        return " ".join(
            ("+" if t.joined else "") + t.text.lower() for t in self.tokens if t.kind != "mark"
        )


def reduce_text(text: str, options: GateOptions | None = None) -> Reduced:
    """The request's tokens less the edits `options` forgive; see the module docstring."""
    return _reduce(text, options or GateOptions())


@lru_cache(maxsize=256)
def _reduce(text: str, options: GateOptions) -> Reduced:
    """Remembered: a cached request is compared with each new one that finds it nearest."""
    framed = cut_courtesy(text) if options.courtesy else Framed(text)
    tokens: Sequence[Token] = scan(
        framed.text, punctuation=options.punctuation, resumed=framed.resumed
    )
    if options.contractions:
        tokens = list(_expand(tokens))
    return Reduced(tuple(tokens), case_of(tokens))


def case_of(tokens: Sequence[Token]) -> str:
    """"lower", "upper" or "mixed": see `Reduced.case`. A short symbol inside a sentence
    ("UK", "Co") does not count against small letters: "what's the drinking age in the UK" is
    typed in small letters ("Do you…" is not)."""
    if in_capitals([t.text for t in tokens if t.kind == "word"]):
        return "upper"
    words = [
        t.text for t in tokens
        if t.kind == "word" and t.text.lower() != t.text.upper()
        and (t.start or not keeps_case(t.text, unit=t.unit))
    ]
    if len(words) >= ONE_CASE_WORDS and all(w == w.lower() for w in words):
        return "lower"
    return "mixed"


def _expand(tokens: Sequence[Token]) -> Iterable[Token]:
    """English contractions written with an apostrophe, as the words they stand for."""
    for i, token in enumerate(tokens):
        words = (
            _contraction(token.text, _clause_words(tokens[i + 1:]))
            if token.kind == "word" and not token.guarded else None
        )
        if words is None:
            yield token
            continue
        yield replace(token, text=words[0])
        for word in words[1:]:
            yield Token(word, "word")


PARTICIPLE_REACH = 3
"""Words after "'s" read for a participle: one, or a subject and an adverb before it ("What's
he sat on?", "What's the dog eaten?", "Who's just sat down?")."""


def _clause_words(tokens: Sequence[Token]) -> list[str]:
    """The first `PARTICIPLE_REACH` words after a token in its sentence (a mark or a line
    break ends it), whatever stands between them (markup, spaces), code spans included."""
    words: list[str] = []
    for token in tokens:
        if len(words) == PARTICIPLE_REACH or (
                token.kind in ("mark", "break") and any(c in ".?!;\n" for c in token.text)):
            break
        if token.kind in ("word", "code"):  # `sat` in backticks is still a word read
            words.append(token.text.strip("`"))
    return words


def _contraction(word: str, clause: Sequence[str]) -> tuple[str, ...] | None:
    lower = word.lower()
    if not lower.isascii() or "'" not in lower:
        return None  # "dont" is French, "cant" and "wont" are words
    shout = word.isupper()
    parts: tuple[str, ...] | None = None
    if lower in CONTRACTIONS:
        head, *rest = CONTRACTIONS[lower]
        if shout:
            head = head.upper()
        elif word[0].isupper():
            head = head[:1].upper() + head[1:]
        parts = (head, *rest)
    elif lower.endswith("n't") and lower[:-3] in NOT_STEMS:
        parts = (word[:-3], "not")
    elif lower.endswith("'s") and lower[:-2] in IS_STEMS and not (
            clause and _regular_participle(clause[0])) and not any(
            _irregular_participle(w) for w in clause):
        parts = (word[:-2], "is")
    else:
        for suffix, full in SUFFIXES.items():
            stem = lower[: -len(suffix)]
            if lower.endswith(suffix) and stem.isalpha():
                parts = (word[: -len(suffix)], full)
                break
    if parts is None:
        return None
    return (parts[0], *(p.upper() if shout else p for p in parts[1:]))


def _bare(word: str) -> str:
    """A word in lower case without the markup or quotes around it (`*sat*`, `"sat"`)."""
    return word.lower().strip("*_'\"`’‘“”")


def _regular_participle(word: str) -> bool:
    """A word in -ed or -en right after "'s": "What's happened?", "Who's called?". Further
    on, too many words end so ("the speed", "between") to read them there."""
    return _bare(word).endswith(("ed", "en"))


def _irregular_participle(word: str) -> bool:
    """An irregular past participle, or one with a verb prefix, anywhere within reach:
    "What's he sat on?", "What's the dog eaten?", "Who's overpaid?"."""
    lower = _bare(word)
    return any(lower[len(prefix):] in HAS_PARTICIPLES
               for prefix in VERB_PREFIXES if lower.startswith(prefix))


def short_symbol(word: str) -> bool:
    """Two letters or fewer with a capital, but the pronoun "I": "Co", "Mm", "IT", "MW", "pH"."""
    return len(word) <= SHORT_SYMBOL and word != "I" and any(c.isupper() for c in word)


def mixed_symbol(word: str) -> bool:
    """Three or four letters with a capital past the first and a small letter: the case
    pattern of a unit with its prefix (`mPa`, `MWh`, `mWh`, `kWh`, `GHz`, `MBps`, `MiB`,
    `mmHg`, `μSv`), never an ordinary word in either case, so its case is meaning anywhere.
    Not an acronym's plural (`IDs`, `GPUs`), whose small letter is the plural's."""
    return (
        SHORT_SYMBOL < len(word) <= MIXED_SYMBOL and word.isalpha()
        and any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)
        and not (word[:-1].isupper() and word[-1] == "s")
    )


def coded(word: str) -> bool:
    """A digit and a capital in one word: a formula, a part number or a code, whose every
    letter's case is meaning (`COCl2` phosgene, `CoCl2` cobalt chloride; `NO2`, `SnO2`,
    `IPv4`), so no other case stands for it, wherever it stands. A word of digits and small
    letters (`7pm`, `1kg`, `base64`) has no capital to lose: a request in capitals may stand
    for it (`7PM`), as for any word."""
    return any(c.isdigit() for c in word) and any(c.isupper() for c in word)


def keeps_case(word: str, *, unit: bool) -> bool:
    """A short symbol, a short mixed-case symbol (`mixed_symbol`: `mPa`, `MWh`, `GHz`) or a
    coded word (`coded`: `COCl2`) anywhere, or a unit's symbol next to a number (`unit`, see
    `scan._units`): a capital past
    the first character or three characters at most with a capital. `5Mm` is not `5mm`,
    `10mA` not `10MA`, `a dozen mWh` not `a dozen MWh`, `5 Mib` not `5 mib`, `5 MWH` not
    `5 mwh`; `0 Kelvin` is a capitalised word."""
    if short_symbol(word) or mixed_symbol(word) or coded(word):
        return True
    return unit and (
        any(c.isupper() for c in word[1:])
        or (len(word) <= UNIT_LETTERS and any(c.isupper() for c in word))
    )
