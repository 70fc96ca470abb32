"""Generated look-alikes against the text gate: over 20,000 single edits that change what a
request asks, in every class and in twelve scripts, and the gate passes none of them."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from stepchat.bench.lookalike_report import Tally, measure
from stepchat.bench.lookalikes import EDIT_CLASSES, PAIR_SETS, Generator, load_requests

PAIRS = sorted((Path(__file__).resolve().parents[2] / "data" / "pairs").glob("*.jsonl"))
SCRIPTS = {"Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "CJK", "Hangul",
           "Thai"}


@pytest.fixture(scope="module")
def tally() -> Tally:
    return measure(load_requests(PAIRS), surface=False)


def test_over_20000_edits_of_every_class_in_every_script(tally: Tally) -> None:
    assert tally.total >= 20_000
    assert all(tally.edits[kind] >= 500 for kind in EDIT_CLASSES), tally.edits
    assert {s for s, n in tally.script_edits.items() if n >= 100} >= SCRIPTS
    assert tally.script_edits[PAIR_SETS] > 15_000


@pytest.mark.parametrize("kind", EDIT_CLASSES)
def test_the_gate_passes_no_look_alike(tally: Tally, kind: str) -> None:
    assert tally.passed[kind] == 0, tally.examples.get(kind)


def _ascii_words(text: str) -> str:
    """What the gate before kept: NFKC-folded, case-blind ASCII words."""
    return " ".join(re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", text).lower()))


def test_the_edits_catch_a_reduction_that_drops_scripts_and_symbols() -> None:
    """The generator is not vacuous: a gate that kept only ASCII words would pass whole
    classes of these edits."""
    requests = load_requests(PAIRS[:1])
    tally = measure(requests, lambda a, b: _ascii_words(a) == _ascii_words(b), surface=False)
    assert tally.passed["word from another script"] > 100
    assert tally.passed["symbol of the same class"] > 100
    assert tally.passed["digit form"] > 100


def _folded(text: str) -> str:
    """What a gate that forgives too much keeps: NFKC, small letters, no sentence marks,
    words apart by any whitespace."""
    text = re.sub(r"[.,!?…;。，？！؟।]", " ", unicodedata.normalize("NFKC", text).lower())
    return " ".join(text.split())


def test_the_edge_classes_catch_a_gate_that_forgives_too_much() -> None:
    """The edge classes are not vacuous: a gate that folds case, drops every sentence mark
    and reads any whitespace as a space passes many of each (the gate before the hostile
    pass passed 79% of them)."""
    requests = load_requests(PAIRS[:1])
    tally = measure(requests, lambda a, b: _folded(a) == _folded(b), surface=False)
    for kind in ("case of a short symbol", "case inside quotes", "a sentence's first capital",
                 "comma between values", "sentence mark inside the text", "! after a number",
                 "line break or other space", "compatibility character",
                 "quotation the scanner may miss", "case of a unit after a number",
                 "mark that ends a name", "mark after a bracket", "text a colon introduces",
                 "numbered list or a line's mark", "quote character or string prefix",
                 "another script's comma beside a name"):
        assert tally.passed[kind] > tally.edits[kind] // 4, kind


def test_the_same_requests_give_the_same_edits() -> None:
    requests = load_requests(PAIRS[:1])[:50]
    assert list(Generator(requests).edits()) == list(Generator(requests).edits())
