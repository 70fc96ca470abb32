"""Generated look-alikes: single edits that change what a request asks, for the text gate.

For each request (the pair sets' and a set in twelve scripts, `data/lookalikes/`), the
generator makes single edits of every class the gate must catch: a word for one from another
script or another word of the same script, a symbol for another of its class, an article
beside a capitalised word, a noun's number, a one-edit neighbour (a vocabulary word or a
misspelling), a tool or package name, a synonym with a second sense, a digit in another form,
and the edits one step past each forgiven rule (`lookalike_edges`). None of them is on the
gate's forgiven list, so the gate must pass none. The surface edits
it must forgive (case, punctuation, spacing, courtesy, contractions) are here too, as the
other side of the measurement.

Edits are found with this module's own idea of a word (letters and marks of any script),
not the gate's, so a request the gate reads wrongly still gets edited where it should.
Everything is seeded: the same requests give the same edits on every machine.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from stepchat.bench.lookalike_banks import (
    ARTICLES,
    CARRIERS,
    CIRCLED,
    DIGIT_FORMS,
    NUMBER_WORDS,
    ROMAN,
    SYMBOL_CLASSES,
    SYNONYMS,
    TOOLS,
    UNTOUCHED,
)
from stepchat.bench.lookalike_edges import CASE_EDGES, EDGE_CLASSES, ENGLISH_EDGES
from stepchat.bench.lookalike_second_pass import SECOND_PASS_CASE, SECOND_PASS_CLASSES

DATA = Path(__file__).resolve().parents[2] / "data"
PER_CLASS = 1
"""Edits per English request and class, where the request allows one (three for each request
in another language, which are fewer): 2,800 requests make 58,000 edits in 23 classes, which
the gate decides in under a minute."""

PAIR_SETS = "English (pair sets)"
"""The script column of the pair sets' requests (Latin, nearly all English)."""
APOSTROPHES = frozenset("'’")
UNSPACED = frozenset({"CJK", "THAI"})
ENGLISH_ONLY = frozenset({"article beside a capital", "noun number", "synonym"})
"""Classes built on English grammar or words, made for the English requests only."""
EDIT_CLASSES = (
    "word from another script", "word of the same script", "symbol of the same class",
    "article beside a capital", "noun number", "one-edit vocabulary word", "misspelling",
    "tool or package name", "synonym", "digit form", *EDGE_CLASSES, *SECOND_PASS_CLASSES,
)
"""The classes of word and symbol edits, then those at the forgiven rules' edges
(`lookalike_edges`, `lookalike_second_pass`)."""


@dataclass(frozen=True)
class Request:
    text: str
    script: str
    lang: str


@dataclass(frozen=True)
class Edit:
    kind: str
    a: str
    b: str
    script: str
    """The script of the request edited (the set it comes from: "Latin" for the pair sets)."""


T = TypeVar("T")
Pair = tuple[str, str]
"""A request and its edit (or, for an edit that needs a carrier, both with it)."""


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    text: str


@lru_cache(maxsize=4096)
def words(text: str) -> tuple[Word, ...]:
    """Runs of letters and marks (any script), with their places in `text`; a run in a
    script written without spaces (Chinese, Japanese, Thai) is taken two letters at a time."""
    out: list[Word] = []
    start = None
    for i, ch in enumerate(text + " "):
        if unicodedata.category(ch)[0] in "LM":
            start = i if start is None else start
        elif start is not None:
            step = 2 if script_of(text[start]) in UNSPACED else i - start
            out += [Word(j, min(j + step, i), text[j: min(j + step, i)])
                    for j in range(start, i, step)]
            start = None
    return tuple(out)


def script_of(word: str) -> str:
    """The script a word is written in, by the Unicode name of its first letter."""
    name = unicodedata.name(word[0], "")
    for script in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "CYRILLIC", "GREEK", "ARABIC",
                   "HEBREW", "DEVANAGARI", "THAI", "ARMENIAN", "GEORGIAN", "LATIN"):
        if name.startswith(script) or f" {script} " in f" {name} ":
            return {"HIRAGANA": "CJK", "KATAKANA": "CJK"}.get(script, script)
    return "OTHER"


def load_requests(pair_files: Sequence[Path] = ()) -> list[Request]:
    """The pair sets' requests (both sides) and the requests written in other scripts."""
    from stepchat.bench.pairs_data import load_pairs

    seen: dict[str, Request] = {}
    for path in pair_files:
        for pair in load_pairs(path):
            for text in (pair.a, pair.b):
                seen.setdefault(text, Request(text, PAIR_SETS, "en"))
    for line in (DATA / "lookalikes" / "requests.jsonl").read_text().splitlines():
        row = json.loads(line)
        seen.setdefault(row["request"], Request(row["request"], row["script"], row["lang"]))
    return list(seen.values())


class Generator:
    """Single edits of each class for a list of requests (see the module docstring)."""

    def __init__(
        self, requests: Sequence[Request], *, seed: int = 20, per_class: int = PER_CLASS
    ) -> None:
        self.requests = list(requests)
        self.seed = seed
        self.per_class = per_class
        self.bank: dict[str, list[str]] = defaultdict(list)
        for request in self.requests:
            for word in words(request.text):
                if word.text.lower() not in UNTOUCHED:
                    self.bank[script_of(word.text)].append(word.text)
        for script, found in self.bank.items():
            self.bank[script] = sorted(set(found))
        self.vocabulary = {w.lower() for found in self.bank.values() for w in found}
        self.neighbours = _one_edit_index(self.vocabulary)
        tools = _one_edit_index(set(TOOLS) | self.vocabulary)
        self.tools_near = {w: sorted(near & set(TOOLS)) for w, near in tools.items()}
        self.symbol_class = {m: members for members in SYMBOL_CLASSES.values() for m in members}
        self.synonyms: dict[str, list[str]] = defaultdict(list)
        for x, y in SYNONYMS:
            self.synonyms[x].append(y)
            self.synonyms[y].append(x)

    def edits(self) -> Iterator[Edit]:
        makers: dict[str, Callable[[str, random.Random], Iterator[Pair]]] = {
            "word from another script": self._other_script,
            "word of the same script": self._same_script,
            "symbol of the same class": self._symbol,
            "article beside a capital": self._article,
            "noun number": self._number,
            "one-edit vocabulary word": self._vocabulary_neighbour,
            "misspelling": self._misspelling,
            "tool or package name": self._tool,
            "synonym": self._synonym,
            "digit form": self._digit_form,
            **EDGE_CLASSES,
            **SECOND_PASS_CLASSES,
        }
        for index, request in enumerate(self.requests):
            for kind, make in makers.items():
                if kind in ENGLISH_ONLY | ENGLISH_EDGES and request.lang != "en":
                    continue
                rng = random.Random(f"{self.seed}:{index}:{kind}")
                made: set[tuple[str, str]] = set()
                for a, b in make(request.text, rng):
                    case_only = kind in CASE_EDGES | SECOND_PASS_CASE
                    changed = a != b if case_only else _really_changed(a, b)
                    if (a, b) not in made and changed:
                        made.add((a, b))
                        yield Edit(kind, a, b, request.script)
                    if len(made) == self.per_class * (1 if request.lang == "en" else 3):
                        break

    # ------------------------------------------------------------------ the classes

    def _editable(self, text: str) -> list[Word]:
        """Words the edits may change: not courtesy, not part of a contraction ("what's")."""
        return [
            w for w in words(text)
            if w.text.lower() not in UNTOUCHED
            and text[w.start - 1: w.start] not in APOSTROPHES
            and text[w.end: w.end + 1] not in APOSTROPHES
        ]

    def _other_script(self, text: str, rng: random.Random) -> Iterator[Pair]:
        for word in _shuffled(self._editable(text), rng):
            own = script_of(word.text)
            others = [s for s in sorted(self.bank) if s not in (own, "OTHER")]
            if not others:
                return
            script = rng.choice(others)
            yield text, _put(text, word, rng.choice(self.bank[script]))

    def _same_script(self, text: str, rng: random.Random) -> Iterator[Pair]:
        for word in _shuffled(self._editable(text), rng):
            yield text, _put(text, word, rng.choice(self.bank[script_of(word.text)]))

    def _symbol(self, text: str, rng: random.Random) -> Iterator[Pair]:
        found = [(i, ch) for i, ch in enumerate(text) if ch in self.symbol_class]
        for i, ch in _shuffled(found, rng):
            other = rng.choice([m for m in self.symbol_class[ch] if m != ch])
            yield text, text[:i] + other + text[i + 1:]
        for name in _shuffled(list(SYMBOL_CLASSES), rng):
            first, second = rng.sample(SYMBOL_CLASSES[name], 2)
            carrier = CARRIERS[name]
            yield text + carrier.format(s=first), text + carrier.format(s=second)

    def _article(self, text: str, rng: random.Random) -> Iterator[Pair]:
        found = words(text)
        for n, word in _shuffled(list(enumerate(found)), rng):
            if n == 0 or len(word.text) < 2 or not word.text[:1].isupper():
                continue
            before = found[n - 1]
            if before.text.lower() in ARTICLES and before.end + 1 == word.start:
                yield text, text[: before.start] + text[word.start:]
            else:
                article = rng.choice(ARTICLES)
                yield text, text[: word.start] + article + " " + text[word.start:]
                lower = word.text[:1].lower() + word.text[1:]
                yield text, text[: word.start] + article + " " + lower + text[word.end:]

    def _number(self, text: str, rng: random.Random) -> Iterator[Pair]:
        for word in _shuffled(self._editable(text), rng):
            w = word.text
            if len(w) < 3 or script_of(w) != "LATIN" or not w.isalpha():
                continue
            if w.endswith("ies"):
                yield text, _put(text, word, w[:-3] + "y")
            elif w.endswith(("ches", "shes", "xes", "sses")):
                yield text, _put(text, word, w[:-2])
            elif w.endswith("s") and not w.endswith("ss"):
                yield text, _put(text, word, w[:-1])
            elif w.endswith("y") and w[-2:-1] not in "aeiou":
                yield text, _put(text, word, w[:-1] + "ies")
            else:
                plural = w + ("es" if w.endswith(("ch", "sh", "x", "s")) else "s")
                yield text, _put(text, word, plural)

    def _vocabulary_neighbour(self, text: str, rng: random.Random) -> Iterator[Pair]:
        for word in _shuffled(self._editable(text), rng):
            close = sorted(self.neighbours.get(word.text.lower(), set()) - UNTOUCHED)
            if close:
                yield text, _put(text, word, _like(word.text, rng.choice(close)))

    def _misspelling(self, text: str, rng: random.Random) -> Iterator[Pair]:
        for word in _shuffled(self._editable(text), rng):
            if len(word.text) >= 3:
                yield text, _put(text, word, _one_edit(word.text, rng))

    def _tool(self, text: str, rng: random.Random) -> Iterator[Pair]:
        for word in _shuffled(self._editable(text), rng):
            close = self.tools_near.get(word.text.lower()) or list(TOOLS)
            yield text, _put(text, word, rng.choice(close))

    def _synonym(self, text: str, rng: random.Random) -> Iterator[Pair]:
        for word in _shuffled(self._editable(text), rng):
            for other in self.synonyms.get(word.text.lower(), []):
                yield text, _put(text, word, _like(word.text, other))

    def _digit_form(self, text: str, rng: random.Random) -> Iterator[Pair]:
        runs = list(re.finditer(r"[0-9]+", text))
        if not runs:
            for form in _shuffled(list(_forms("2")), rng):
                yield text + " (2)", text + f" ({form})"
            return
        for run in _shuffled(runs, rng):
            for form in _shuffled(list(_forms(run.group(0))), rng):
                yield text, text[: run.start()] + form + text[run.end():]


def _really_changed(a: str, b: str) -> bool:
    """Not the same text, nor the same but for case (an edit the gate may forgive)."""
    return a != b and a.lower() != b.lower()


def _shuffled(items: Sequence[T], rng: random.Random) -> list[T]:
    items = list(items)
    rng.shuffle(items)
    return items


def _put(text: str, word: Word, new: str) -> str:
    return text[: word.start] + new + text[word.end:]


def _like(model: str, word: str) -> str:
    """`word` with the capital `model` has."""
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


def _forms(digits: str) -> Iterator[str]:
    """`digits` written otherwise: another digit set for one digit, a numeral, a word."""
    last = len(digits) - 1
    for table in DIGIT_FORMS.values():
        yield digits[:last] + table[int(digits[last])]
    value = int(digits) if len(digits) < 4 else -1
    if 0 < value < len(ROMAN):
        yield ROMAN[value]
    if 0 <= value < len(CIRCLED):
        yield CIRCLED[value]
    if 0 <= value < len(NUMBER_WORDS):
        yield NUMBER_WORDS[value]


def _one_edit(word: str, rng: random.Random) -> str:
    """A misspelling one edit away: a letter dropped, doubled, swapped or replaced."""
    i = rng.randrange(1, len(word) - 1)
    how = rng.choice(("drop", "double", "swap", "replace"))
    if how == "drop":
        return word[:i] + word[i + 1:]
    if how == "double":
        return word[:i] + word[i] + word[i:]
    if how == "swap" and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    letters = sorted({c for c in word + ("aeioustrnlm" if word.isascii() else "")} - {word[i]})
    return word[:i] + rng.choice(letters) + word[i + 1:] if letters else word[:i] + word[i + 1:]


def _one_edit_index(vocabulary: set[str]) -> dict[str, set[str]]:
    """Each word's vocabulary neighbours one substitution, insertion or deletion away,
    found through shared deletions (every word of distance one shares one)."""
    by_deletion: dict[str, set[str]] = defaultdict(set)
    for word in vocabulary:
        by_deletion[word].add(word)
        for i in range(len(word)):
            by_deletion[word[:i] + word[i + 1:]].add(word)
    out: dict[str, set[str]] = defaultdict(set)
    for group in by_deletion.values():
        for word in group:
            out[word] |= {w for w in group if w != word and _distance_one(w, word)}
    return out


def _distance_one(x: str, y: str) -> bool:
    """One substitution, insertion or deletion apart."""
    if abs(len(x) - len(y)) > 1 or x == y:
        return False
    if len(x) == len(y):
        return sum(a != b for a, b in zip(x, y, strict=True)) == 1
    short, long = sorted((x, y), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))
