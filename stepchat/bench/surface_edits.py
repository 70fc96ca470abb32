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
            ("i am", "I'm"), ("can not", "can't"), ("it is", "it's"), ("is not", "isn't")]


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


SURFACE_EDITS: dict[str, Callable[[str], str]] = {
    "lower case": str.lower,
    "upper case": str.upper,
    "no punctuation": lambda t: re.sub(r"[?.!,]", "", t),
    "extra question marks": lambda t: t.rstrip("?.! ") + "??",
    "extra spaces": lambda t: "  " + re.sub(r" ", "  ", t) + "  ",
    "contracted": _contract,
    "expanded": _expand,
    "please": lambda t: t.rstrip("?.! ") + ", please?",
    "greeting and thanks": lambda t: "Hi there, " + t[0].lower() + t[1:] + " Thanks!",
}
