"""Near repeats as the gate must serve them: surface edits of every request in the pair sets.

The requests come from the labelled sets in data/pairs (public, reported and hand-written
questions); the edits are the ones a person makes when asking again: case, punctuation,
spacing, contractions, "please", greetings and thanks, trailing question marks. The gate must
pass at least 95% of each kind of edit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from stepchat.bench.pairs_data import load_pairs
from stepchat.core.textgate.gate import compare

PAIRS = Path(__file__).resolve().parents[2] / "data" / "pairs"

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


EDITS: dict[str, Callable[[str], str]] = {
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


def _requests() -> list[str]:
    seen: dict[str, None] = {}
    for path in sorted(PAIRS.glob("*.jsonl")):
        for pair in load_pairs(path):
            seen.setdefault(pair.a, None)
    return list(seen)


@pytest.mark.parametrize("edit", list(EDITS))
def test_surface_edits_pass_the_gate(edit: str) -> None:
    requests = _requests()
    assert len(requests) > 500
    changed = [(r, EDITS[edit](r)) for r in requests if EDITS[edit](r) != r]
    passed = sum(compare(a, b).same for a, b in changed)
    assert changed and passed / len(changed) >= 0.95, f"{passed}/{len(changed)}"
