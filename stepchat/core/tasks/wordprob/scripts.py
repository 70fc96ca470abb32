"""Scripts written without spaces between words, read by the character's Unicode name.

Chinese, Japanese, Thai, Lao, Khmer and Myanmar write a sentence as one run of letters with
numbers inside it ("小明有5个苹果"). Two things follow for the word-problem reader:
- a digit joined to such a letter is a number, not part of an identifier as in `A4`; so is
  one joined to a letter of a script that writes a one-letter preposition or conjunction
  on the word after it (Arabic "بـ16", "و48", Hebrew "ב5", Ethiopic "ለ300");
- a run of Han or kana is no one word: each character is an atom (a morpheme, or a
  syllable), so a sentence that differs in one name or one character differs in those
  atoms only, and the comparison stays atom by atom as in every other script. Thai and its
  neighbours are alphabets: their runs stay whole, as the words of a spaced script do.
A request's length in words is counted from its letters there (`word_count`).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_CHARACTER_SCRIPTS = ("CJK ", "HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA", "IDEOGRAPHIC")
"""Scripts whose every character is an atom of its own."""
_RUN_SCRIPTS = ("THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN")
"""Alphabets written without spaces between words."""
CHARACTERS_PER_WORD = 1.5
"""A Chinese or Japanese word is one or two characters, mostly."""
LETTERS_PER_WORD = 4
"""A Thai, Lao, Khmer or Myanmar word is a few letters and vowel signs."""


@lru_cache(maxsize=8192)
def one_atom_each(ch: str) -> bool:
    """A Han character, a kana, or an ideographic sign (`々`): an atom on its own."""
    return unicodedata.name(ch, "").startswith(_CHARACTER_SCRIPTS)


@lru_cache(maxsize=8192)
def unspaced(ch: str) -> bool:
    """A letter of a script written without spaces between words."""
    return one_atom_each(ch) or unicodedata.name(ch, "").startswith(_RUN_SCRIPTS)


_PROCLITIC_SCRIPTS = ("ARABIC", "HEBREW", "SYRIAC", "THAANA", "NKO", "ETHIOPIC")
"""Scripts that join a one-letter preposition or conjunction to the word, or the number,
after it: "بـ16 كرة" is "with 16 balls"."""


@lru_cache(maxsize=8192)
def joins_numbers(ch: str) -> bool:
    """A letter after which a joined digit starts a number, not an identifier's digits."""
    return unspaced(ch) or unicodedata.name(ch, "").startswith(_PROCLITIC_SCRIPTS)


def is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "L"


def is_mark(ch: str) -> bool:
    """A combining mark: a Thai or Indic vowel sign, a diacritic written apart."""
    return unicodedata.category(ch)[0] == "M"


def is_word(text: str) -> bool:
    """Letters, and the vowel signs and marks some scripts write with them ("तीन"):
    `str.isalpha` is false for such a word."""
    return bool(text) and all(is_letter(c) or is_mark(c) for c in text)


def is_caseless(text: str) -> bool:
    """A word of a script without capitals (Arabic, Devanagari, Chinese, Japanese): its
    case cannot show whether it is a name."""
    return any(is_letter(c) for c in text) and not any(c.isupper() or c.islower() for c in text)


def is_latin(text: str) -> bool:
    """A text with a letter of the Latin script."""
    return any(unicodedata.name(c, "").startswith("LATIN") for c in text)


def word_count(token: str) -> float:
    """How many words a token of the text gate's reading is: one for a word of a spaced
    script (letters and marks only); for letters of an unspaced script, their number over
    the letters of a word there, wherever they stand (digits may sit among them); none for
    anything else."""
    characters = sum(1 for c in token if one_atom_each(c))
    letters = sum(1 for c in token if unspaced(c)) - characters
    if characters or letters:
        return characters / CHARACTERS_PER_WORD + letters / LETTERS_PER_WORD
    if any(is_letter(c) for c in token) and all(is_letter(c) or is_mark(c) for c in token):
        return 1
    return 0
