"""Reduce an open-text request to the words that carry its meaning, in order.

Two requests whose reduced forms agree ask the same thing: the reduction removes only what
never changes an answer (case, punctuation, spacing, contractions, greetings, courtesy,
hesitation, articles, spelling variants, regular plurals) and keeps everything that can
(numbers, names, negation, prepositions, word order). Comma-separated clauses are kept apart
so that a fronted clause ("In Excel, how do I merge cells?") can be recognised as a move,
not a change.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from stepchat.core.textgate.lexicon import (
    ARTICLES,
    CLAUSE_FILLER,
    CONTRACTION_IS,
    FILLER_ANYWHERE,
    LEADING_FILLER,
    NUMBER_WORDS,
    PHRASES,
    PLURAL_KEEP,
    SPELLING,
    TRAILING_FILLER,
    WH_AUXILIARIES,
    WH_WORDS,
)

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_TOKEN = re.compile(
    r"\d+(?:[.,:]\d+)*"  # numbers and times: 40,000  2:30  3.5
    r"|[a-z](?:[a-z0-9]|[-.+#'](?=[a-z0-9+#]))*[+#]*"  # words: wi-fi, node.js, c++, c#, ipv4
    r"|[=<>+*/^%&|$£€¥-]"  # operators and currencies: "21+1" must not read as "1+1"
)
_ACRONYM = re.compile(r"\b(?:[a-z]\.){2,}(?![a-z])")
"""`b.m.i.` and `u.s.a.` read as `bmi` and `usa`."""
_CLAUSE = re.compile(r"[,:](?!\d)|(?<!\d)[,:]|;|[?!]+|\s[-—–]+\s|\.{2,}|\.(?=\s|$)")


@dataclass(frozen=True)
class GateOptions:
    """What the reduction may forgive; each can be switched off to measure what it buys."""

    courtesy: bool = True
    """Drop greetings, thanks, hesitation and articles."""
    variants: bool = True
    """Merge spelling variants, regular plurals, one-meaning synonyms and stock phrasings."""
    clause_moves: bool = True
    """Accept a fronted clause moved to the end."""
    typos: bool = True
    """Accept a word that is one edit (two for long words) from the other side's dictionary word."""


@dataclass(frozen=True)
class Reduced:
    """A request reduced to meaning-bearing tokens, clause by clause."""

    clauses: tuple[tuple[str, ...], ...]

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(t for clause in self.clauses for t in clause)

    def orders(self, options: GateOptions) -> list[tuple[str, ...]]:
        """The token sequence as written, and with its first clause moved to the end.

        A fronted clause is the one reordering that keeps a question's meaning without
        exception ("At the pharmacy, can I pay by card?"); other reorders can swap roles.
        """
        out = [self.tokens]
        if options.clause_moves and len(self.clauses) >= 2:
            moved = tuple(t for clause in (*self.clauses[1:], self.clauses[0]) for t in clause)
            if moved != out[0]:
                out.append(moved)
        return out

    def key(self) -> str:
        return " ".join(self.tokens)


def reduce_text(text: str, options: GateOptions | None = None) -> Reduced:
    """The meaning-bearing tokens of `text`; equal results mean the same request."""
    options = options or GateOptions()
    lowered = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower()
    lowered = _ACRONYM.sub(lambda m: m.group(0).replace(".", ""), lowered)
    raw = [
        tuple(piece for t in _TOKEN.findall(part) for piece in _compound_parts(t.strip("'")))
        for part in _CLAUSE.split(_expand_contractions(lowered))
    ]
    clauses = [c for c in raw if c]
    if options.courtesy:
        clauses = [_drop_hesitation(c) for c in clauses]
        clauses = list(_strip_filler([c for c in clauses if c]))
    reduced = (_canonical_tokens(c, options) for c in clauses)
    return Reduced(tuple(c for c in reduced if c))


def _compound_parts(token: str) -> tuple[str, ...]:
    """`cold-brew` reads as `cold brew`, `linked-list` as `linked list` (after `e-mail` ->
    `email`, whose parts mean nothing alone)."""
    if "-" not in token or not token.replace("-", "").isalnum():
        return (token,)
    token = SPELLING.get(token, token)
    return tuple(part for part in token.split("-") if part)


def _drop_hesitation(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """"um", "please" anywhere; "like" as a hesitation after "do I" ("how do I like reset")."""
    out: list[str] = []
    for token in tokens:
        if token in FILLER_ANYWHERE:
            continue
        if token == "like" and len(out) >= 2 and out[-1] in ("i", "you", "we") and (
            out[-2] in WH_AUXILIARIES
        ):
            continue
        out.append(token)
    return tuple(out)


def _expand_contractions(text: str) -> str:
    text = re.sub(r"\b(won)'?t\b", "will not", text)
    text = re.sub(r"\b(can)'?t\b", "can not", text)
    text = re.sub(r"\bcannot\b", "can not", text)
    text = re.sub(r"\b(shan)'t\b", "shall not", text)
    text = re.sub(r"\b(\w+)n't\b", r"\1 not", text)
    text = re.sub(r"\b(ain)'t\b", "is not", text)
    text = re.sub(r"'re\b", " are", text)
    text = re.sub(r"'ve\b", " have", text)
    text = re.sub(r"'ll\b", " will", text)
    text = re.sub(r"'d\b", " would", text)
    text = re.sub(r"\bi'm\b", "i am", text)
    text = re.sub(rf"\b({CONTRACTION_IS})'?s\b", r"\1 is", text)
    text = re.sub(r"(\w)'s\b", r"\1", text)  # possessive: "child's" -> "child"
    return re.sub(r"\b(\w{2,}s)'(?=\s|$)", r"\1", text)  # "residents' permit"


def _canonical_tokens(raw: tuple[str, ...], options: GateOptions) -> tuple[str, ...]:
    out: list[str] = []
    for token in raw:
        if not token or (options.courtesy and token in ARTICLES):
            continue
        token = NUMBER_WORDS.get(token, token)
        out.append(_spelling(token) if options.variants else token)
    if not options.variants:
        return tuple(out)
    return _merge_phrases(_drop_wh_auxiliary(out))


def _spelling(token: str) -> str:
    """One spelling per word: British and American forms, regular plurals."""
    token = SPELLING.get(token, token)
    if token in PLURAL_KEEP or len(token) <= 3 or not token.isalpha():
        return token
    if re.search(r"i[sz](?:e|ed|es|ing|ation|ations)$", token) and len(token) >= 7:
        token = re.sub(r"iz(e|ed|es|ing|ation|ations)$", r"is\1", token)
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z)es$", token):
        return token[:-2]
    if token.endswith("s") and not re.search(r"(?:ss|us|is|ous|ics)$", token):
        return token[:-1]
    return token


def _drop_wh_auxiliary(tokens: list[str]) -> list[str]:
    """`how do I`, `how can I`, `how should I`, `how I` all ask for the same procedure."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        previous = out[-1] if out else ""
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if previous in WH_WORDS and token in WH_AUXILIARIES and following in ("i", "we"):
            continue
        out.append(token)
    return out


def _merge_phrases(tokens: list[str]) -> tuple[str, ...]:
    """Multi-word forms with one meaning become one form ("have you got" -> "do you have")."""
    text = " ".join(tokens)
    for pattern, replacement in PHRASES:
        text = re.sub(rf"(?:^|(?<= )){pattern}(?=$| )", replacement, text)
    return tuple(text.split())


def _strip_filler(clauses: list[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """Greetings and courtesy at either end of the request, as whole clauses or prefixes."""
    kept = [c for c in clauses if c not in CLAUSE_FILLER]
    kept = _strip_end(kept, LEADING_FILLER)
    backwards = [c[::-1] for c in reversed(kept)]
    trailing = tuple(p[::-1] for p in TRAILING_FILLER)
    return tuple(c[::-1] for c in reversed(_strip_end(backwards, trailing)))


def _strip_end(
    clauses: list[tuple[str, ...]], phrases: tuple[tuple[str, ...], ...]
) -> list[tuple[str, ...]]:
    """Remove `phrases` from the front of the first clause, repeatedly, dropping clauses they
    empty; the trailing side is the same walk over the reversed request."""
    clauses = list(clauses)
    while clauses:
        tokens = clauses[0]
        match = next((p for p in phrases if tokens[: len(p)] == p), None)
        if match is None:
            break
        tokens = tokens[len(match):]
        if tokens:
            clauses[0] = tokens
        else:
            clauses.pop(0)
    return clauses
