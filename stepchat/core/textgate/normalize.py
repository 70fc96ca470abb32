"""Reduce a request to what the gate compares: its tokens, less the edits it forgives.

Everything `scan` keeps is meaning. This module takes away only the closed list in
`forgiven.FORGIVEN`: English contractions written with an apostrophe, greetings and thanks
that make a whole clause at either end, "please" at either end, and it notes what the
comparison may still forgive: the case of a request written in one case throughout, the
capital that starts a sentence, and a fronted clause moved to the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from stepchat.core.textgate.lexicon import (
    ASKING,
    CONTRACTIONS,
    EXCLAIMED,
    FRONTED,
    INTRODUCTIONS,
    IS_STEMS,
    LEADING_CLAUSES,
    NOT_STEMS,
    PLEASE,
    SUFFIXES,
    TRAILING_CLAUSES,
    UNMARKED,
)
from stepchat.core.textgate.scan import Token, scan


@dataclass(frozen=True)
class GateOptions:
    """What the gate may forgive beyond whitespace and canonical Unicode equivalence; each
    can be switched off to measure what it buys (`stepchat bench --pairs`)."""

    case: bool = True
    """Case in a request written in one case throughout, and a sentence's first capital."""
    punctuation: bool = True
    """Sentence punctuation where it cannot be an operator (see `scan`)."""
    courtesy: bool = True
    """Greetings and thanks as whole clauses at either end; "please" at either end."""
    contractions: bool = True
    """English contractions with an apostrophe: "what's" is "what is"."""
    clause_moves: bool = True
    """A first clause opened by a preposition or "if/when…" moved to the end."""


Clause = tuple[Token, ...]


@dataclass(frozen=True)
class Reduced:
    """A request reduced to its tokens, clause by clause, with what comparison needs."""

    clauses: tuple[Clause, ...]
    marks: tuple[str, ...]
    """The punctuation dropped before each clause ("" before the first)."""
    single_case: bool
    """No word has both capitals and small letters across the request (or it has no case)."""

    @cached_property
    def tokens(self) -> Clause:
        return tuple(t for clause in self.clauses for t in clause)

    def orders(self, options: GateOptions) -> list[Clause]:
        """The tokens as written, and with a fronted clause moved to the end."""
        out = [self.tokens]
        if options.clause_moves and self._fronted():
            out.append(tuple(t for clause in (*self.clauses[1:], self.clauses[0]) for t in clause))
        return out

    def _fronted(self) -> bool:
        """A first clause that may move: opened by a `FRONTED` word, ended by a comma."""
        if len(self.clauses) < 2 or self.marks[1] != ",":
            return False
        first = self.clauses[0][0]
        return first.kind == "word" and not first.guarded and first.text.lower() in FRONTED

    def key(self) -> str:
        """A case-blind form for finding candidates: equal keys are worth comparing."""
        return " ".join(("+" if t.joined else "") + t.text.lower() for t in self.tokens)


def sequence_key(tokens: Sequence[Token], *, fold: bool) -> tuple[str, ...]:
    """Each token's text (in small letters when `fold`) and whether whitespace precedes it."""
    return tuple(
        ("+" if token.joined and i else "")
        + (token.text.lower() if fold and token.kind == "word" else token.text)
        for i, token in enumerate(tokens)
    )


def same_sequence(a: Sequence[Token], b: Sequence[Token], *, fold: bool, starts: bool) -> bool:
    """Token for token the same: text and spacing, words in small letters when `fold`, and
    (when `starts`) the first letter of a word that starts a sentence on either side free
    ("hour. How" and "hour How" ask the same)."""
    if len(a) != len(b):
        return False
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if (i and x.joined != y.joined) or x.kind != y.kind:
            return False
        tx, ty = x.text, y.text
        if x.kind == "word":
            if fold:
                tx, ty = tx.lower(), ty.lower()
            elif starts and (i == 0 or x.start or y.start):
                tx, ty = tx[:1].lower() + tx[1:], ty[:1].lower() + ty[1:]
        if tx != ty:
            return False
    return True


def reduce_text(text: str, options: GateOptions | None = None) -> Reduced:
    """The request's tokens less the edits `options` forgive; see the module docstring."""
    return _reduce(text, options or GateOptions())


@lru_cache(maxsize=256)
def _reduce(text: str, options: GateOptions) -> Reduced:
    """Remembered: a cached request is compared with each new one that finds it nearest."""
    scanned = scan(text, punctuation=options.punctuation, courtesy=options.courtesy)
    clauses: list[list[Token]] = scanned.clauses
    if options.contractions:
        clauses = [list(_expand(clause)) for clause in clauses]
    pairs, tail = _non_empty(clauses, scanned.marks)
    if options.courtesy:
        pairs = _strip_courtesy(pairs, tail)
    return Reduced(
        tuple(tuple(c) for _, c in pairs),
        tuple(m for m, _ in pairs),
        _single_case(t for _, c in pairs for t in c),
    )


def _non_empty(
    clauses: list[list[Token]], marks: list[str]
) -> tuple[list[tuple[str, list[Token]]], str]:
    """Clauses with tokens, each with the marks dropped before it (an empty clause's marks
    join the next one's: "¿Qué?" is one clause), and the marks that end the request."""
    out: list[tuple[str, list[Token]]] = []
    pending = ""
    for mark, clause in zip(marks, clauses, strict=True):
        pending += mark
        if clause:
            out.append((pending if out else "", clause))
            pending = ""
    return out, pending


def _single_case(tokens: Iterable[Token]) -> bool:
    """No capitals, or no small letters, among the words (a script without case has neither)."""
    letters = "".join(t.text for t in tokens if t.kind == "word")
    return letters == letters.lower() or letters == letters.upper()


def _expand(clause: Sequence[Token]) -> Iterable[Token]:
    """English contractions written with an apostrophe, as the words they stand for."""
    for token in clause:
        words = _contraction(token.text) if token.kind == "word" and not token.guarded else None
        if words is None:
            yield token
            continue
        yield replace(token, text=words[0])
        for word in words[1:]:
            yield Token(word, "word", guarded=token.guarded)


def _contraction(word: str) -> tuple[str, ...] | None:
    lower = word.lower()
    if not lower.isascii() or ("'" not in lower and lower not in UNMARKED | CONTRACTIONS.keys()):
        return None
    shout = word.isupper()
    parts: tuple[str, ...] | None = None
    if lower in UNMARKED:  # "doesnt" reads as "doesn't"
        at = UNMARKED[lower].index("'")
        word, lower = word[:at] + "'" + word[at:], UNMARKED[lower]
    if lower in CONTRACTIONS:
        head, *rest = CONTRACTIONS[lower]
        if shout:
            head = head.upper()
        elif word[0].isupper():
            head = head[:1].upper() + head[1:]
        parts = (head, *rest)
    elif lower.endswith("n't") and lower[:-3] in NOT_STEMS:
        parts = (word[:-3], "not")
    elif lower.endswith("'s") and lower[:-2] in IS_STEMS:
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


def _words(clause: Sequence[Token]) -> tuple[str, ...] | None:
    """The clause as lower-case words, or None when it holds anything else or is guarded."""
    if any(t.kind != "word" or t.guarded for t in clause):
        return None
    return tuple(t.text.lower() for t in clause)


def _strip_courtesy(
    pairs: list[tuple[str, list[Token]]], tail: str
) -> list[tuple[str, list[Token]]]:
    """Greeting clauses at the start, thanks at the end, "please" at either end; never the
    whole request ("Hello" stays "Hello")."""
    pairs = [(m, list(c)) for m, c in pairs]
    if not pairs:
        return pairs
    while len(pairs) > 1 and "：" not in pairs[-1][0] and (
        _words(pairs[-1][1]) in TRAILING_CLAUSES
    ):
        pairs.pop()
    stripped = False
    while len(pairs) > 1 and _leading(pairs[0][1], pairs[1][0]):
        pairs.pop(0)
        pairs[0] = ("", pairs[0][1])
        stripped = True
    first, last = pairs[0][1], pairs[-1][1]
    if stripped and len(first) > 1 and _words(first[:1]) == ("but",):
        first.pop(0)  # "Sorry to bother you, but how do I…"
    mixed = not _single_case(t for _, c in pairs for t in c)
    if set(tail) & {"!", "."} and mixed:
        del last[len(last) - _capital_thanks(last):]
    if len(first) > 1 and _is_please(first[0]) and not (
        mixed and first[1].text[:1].isupper()
    ):
        first.pop(0)
    for _, clause in pairs:
        for i in range(len(clause) - 1, 1, -1):
            if _is_please(clause[i]) and clause[i - 1].text.lower() == "you" and (
                clause[i - 2].text.lower() in ASKING
            ):
                clause.pop(i)
    first = pairs[0][1]
    first[0] = replace(first[0], start=first[0].kind == "word", joined=False)
    return pairs


def _leading(clause: Sequence[Token], mark: str) -> bool:
    """A first clause that only greets or announces; "Morning" only as an exclamation
    ("Morning!", not "Morning, what should I eat?")."""
    words = _words(clause)
    return words in LEADING_CLAUSES or words in INTRODUCTIONS or (
        words in EXCLAIMED and "!" in mark
    )


def _capital_thanks(clause: Sequence[Token]) -> int:
    """How many closing words of `clause` are thanks set off by a capital ("…my
    subscription Thanks!"), or 0; the caller checks the request ends with "!" or ".", so
    "Who sang Thank You?" keeps its title."""
    for size in sorted({len(p) for p in TRAILING_CLAUSES}, reverse=True):
        end = clause[-size:]
        if len(clause) > size and _words(end) in TRAILING_CLAUSES and end[0].text[:1].isupper():
            return size
    return 0


def _is_please(token: Token) -> bool:
    return token.kind == "word" and not token.guarded and token.text.lower() == PLEASE
