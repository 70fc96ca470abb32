"""Is a token an English dictionary word? Tells a misspelling from a different word.

"adress" is one edit from "address" and no word of its own, so it is a typo; "debt" is one
edit from "debit" but a word in its own right, so the two requests differ. The word list is
pyspellchecker's English frequency list, shipped inside that package (no download); it loads
on the first question, which only a request that differs from a cached one by such a token asks.
"""

from __future__ import annotations

from functools import cache


@cache
def _dictionary() -> frozenset[str]:
    from spellchecker import SpellChecker

    return frozenset(SpellChecker(language="en", distance=1).word_frequency.dictionary)


def is_known_word(token: str) -> bool:
    return token.lower() in _dictionary()
