"""The surface edits a person makes when asking again, which the text gate must forgive.

Case, punctuation, spacing, contractions, "please", a greeting and thanks, doubled question
marks: each a function from a request to its near repeat. The gate must pass at least 95% of
each kind on the pair sets' requests (tests/core/test_textgate_surface.py), and
`stepchat bench --pairs` reports the share beside the look-alikes it must refuse.
"""

from __future__ import annotations

import re
from collections.abc import Callable

CONTRACT = [("what is", "what's"), ("do not", "don't"), ("does not", "doesn't"),
            ("i am", "I'm"), ("cannot", "can't"), ("it is", "it's"), ("is not", "isn't")]
"""Contractions and the words they stand for. "can't" is "cannot", not "can not": "Can not
voting be a form of protest?" asks whether abstaining is a protest, "Can't voting…" whether
voting is one, so "can not" is not a retyping of "can't"."""


def _as_written(found: re.Match[str], replacement: str) -> str:
    """`replacement` with the capital the replaced words had, as a person retyping writes it:
    "What's" becomes "What is", "I'm" becomes "I am"."""
    if found.group(0)[0].isupper() or replacement.startswith("I"):
        return replacement[0].upper() + replacement[1:]
    return replacement


def _replace(text: str, pattern: str, replacement: str) -> str:
    def written(found: re.Match[str]) -> str:
        return _as_written(found, replacement)

    return re.sub(pattern, written, text, flags=re.IGNORECASE)


def _contract(text: str) -> str:
    for long, short in CONTRACT:
        text = _replace(text, rf"\b{long}\b", short)
    return text


def _expand(text: str) -> str:
    for long, short in CONTRACT:
        text = _replace(text, rf"\b{re.escape(short)}", long)
    return text


def _short_symbol(word: str) -> bool:
    """Two letters or fewer with a capital, but "I": an element, a unit, a country, a
    language, an acronym (Co, Mm, MW, UK, US, IT, Go, C, pH)."""
    return len(word) <= 2 and word != "I" and any(c.isupper() for c in word)


def _lower_case(text: str) -> str:
    """Every word in small letters but a short symbol inside a sentence, which lowering makes
    another word or symbol as often as not ("IT"/"it", "US"/"us", "Co"/"co", "C"/"c",
    "Go"/"go", "Nm"/"nm", "MW"/"mw"), so that no gate can take the retyping for the same
    request without a list of which are safe. `REPORTED_EDITS` measures the edit that lowers
    them too."""

    def lowered(found: re.Match[str]) -> str:
        word = found.group(0)
        opens = re.search(r"(^|[.?!:]\s+)$", text[: found.start()]) is not None
        capitals = sum(c.isupper() for c in word)
        keep = _short_symbol(word) and (capitals > 1 or not opens)
        return word if keep else word.lower()

    return re.sub(r"[^\W_]+", lowered, text)


def _greeting_and_thanks(text: str) -> str:
    """"Hi there, " before the request and " Thanks!" after it as a sentence of its own: a
    request without a closing mark gets a full stop first, since a capitalised word ending a
    sentence can be a title ("Play Dido's Thank You", "Tell me about the show Cheers")."""
    closed = text if text.rstrip()[-1:] in ".?!" else text.rstrip() + "."
    return "Hi there, " + closed[0].lower() + closed[1:] + " Thanks!"


SURFACE_EDITS: dict[str, Callable[[str], str]] = {
    "lower case": _lower_case,
    "upper case": str.upper,
    "no punctuation": lambda t: re.sub(r"[?.!,]", "", t),
    "extra question marks": lambda t: t.rstrip("?.! ") + "??",
    "extra spaces": lambda t: "  " + re.sub(r" ", "  ", t) + "  ",
    "contracted": _contract,
    "expanded": _expand,
    "please": lambda t: t.rstrip("?.! ") + ", please?",
    "greeting and thanks": _greeting_and_thanks,
}

REPORTED_EDITS: dict[str, Callable[[str], str]] = {
    "lower case, short symbols too": str.lower,
}
"""Edits measured and reported beside `SURFACE_EDITS` but not held to 95%: their near repeat
cannot be told from a different request without a word list (see `_lower_case`)."""
