"""Look-alikes at the edges of the forgiven list: one step past what each rule forgives.

Each rule of the text gate forgives a closed list of edits (`textgate.forgiven`). A rule
narrowed by too little lets through the edit just outside it: a case change of a short symbol
against a request typed in small letters, a comma between two values, a greeting that is a
list item, a `?` after a space, a line break where a space was. Every edit here is such a
step, and each changes what the request asks, so the gate must pass none. The classes follow
what a hostile pass over the gate found (tests/core/hostile_pairs.jsonl); each is made for
every request, by editing it or by adding a carrier phrase to both sides.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

Pair = tuple[str, str]
Maker = Callable[[str, random.Random], Iterator[Pair]]

SHORT_SYMBOLS = ("Co", "CO", "Mm", "Ms", "MW", "mW", "IT", "US", "Hf", "HF", "Ta", "pH", "C",
                 "Go", "Nm", "K2", "OR", "AM", "PM", "UK")
"""Elements, units, languages, acronyms: their case is what they name."""
CASE_SENSES = ("Polish", "Turkey", "China", "Mercury", "Apple", "Amazon", "March", "May",
               "Bill", "Rust", "Python", "Swift", "Reading", "Nice", "Bath", "Jersey", "August",
               "Frank", "Mark", "Will", "Error", "WHO", "Who", "Go")
"""Words whose capital is a name: a language, a country, a month, a product, a person."""
VALUE_COMMAS = (" Compute x = a, b.", " Solve x + y = 5, x - y = 1.", " Plot sin x, cos x.",
                " What is 5, -3?", " Return f(x), g(y).", " Use 1, 2 and 3.", " Take 5，3.")
COURTESY_INSIDE = (
    ("Translate into Spanish: yes, no, please. {t}", "Translate into Spanish: yes, no. {t}"),
    ("Hello, Dolly! {t}", "Dolly! {t}"),
    ("Good morning, Vietnam: {t}", "Vietnam: {t}"),
    ("Hi, hello, hey: {t}", "Hey: {t}"),
    ("{o}, thanks", "{o}"),
    ("{o} Cheers.", "{o}."),
    ("{o} Ta.", "{o}."),
    ("{o} Please.", "{o}."),
    ("Okay, {l}", "{t}"),
    ("Sorry, but {l}", "{t}"),
    ("Um, {l}", "{t}"),
    ("One question, {l}", "{t}"),
    ("{o}, will you please", "{o}, will you"),
    ("Please in Japanese? {t}", "In Japanese? {t}"),
    ("{o}, please.", "{o}."),
)
"""A greeting, thanks or "please" that is part of the request: a list item, a title, a name's
greeting, the reply to translate, a hesitation."""
MARKS_APART = (" .", " ..", " ?", " !!", "...", "…", " Tell me about Oklahoma!")
INNER_MARKS = (".", "?", "!", "。", "？", "؟", "।", ";")
NUMBER_BANGS = (" 5!", " n!", " 5！", " n！", " 12!")
SPACES = ("\n", "\t", "\u2028", "\u00a0", " \n", "\n    ", "\u3000")
CONTRACTED = (("How'd you do it?", "How would you do it?"), ("Let's go.", "Let us go."),
              ("Can not voting help?", "Can't voting help?"), ("Who's called?", "Who is called?"),
              ("Where'd he go?", "Where would he go?"), ("What's happened?", "What is happened?"))
PLACES = ("in Excel", "in the car", "in winter", "after 2020", "with milk", "to be honest",
          "between you and me", "in time", "on Sunday", "for a beginner")
SINGLETONS = (("\uf90a", "\u91d1"), ("\uf914", "\u6a02"), ("\u2126", "\u03a9"),
              ("\u212a", "K"), ("\u212b", "\u00c5"), ("\uf95c", "\uf914"))
"""Characters Unicode maps to one other character, each beside that character."""
QUOTED = (' len(b"a  b")', ' f"a, b"', " N'a  b'", ' " a  b "', " ‚a, b‘", " «a, b»",
          " 「a，b」", " 'the dogs' toys, balls'", " “a  b”")


def _open(text: str) -> str:
    """The request without its closing marks."""
    return text.rstrip(" ?.!。？！")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def recased(text: str, symbols: tuple[str, ...], rng: random.Random) -> Iterator[Pair]:
    """Each symbol in brackets after the request, then in another case: alone or with the
    whole request in one case."""
    for symbol in rng.sample(symbols, len(symbols)):
        a = f"{text} ({symbol})"
        for b in rng.sample([a.lower(), a.upper(), f"{text} ({symbol.swapcase()})"], 3):
            if b.rsplit("(", 1)[1] != a.rsplit("(", 1)[1]:
                yield a, b


def short_symbol_case(text: str, rng: random.Random) -> Iterator[Pair]:
    """A short symbol in another case, alone or with the whole request in one case."""
    yield from recased(text, tuple(f"5 {symbol}" for symbol in SHORT_SYMBOLS), rng)


def quoted_case(text: str, rng: random.Random) -> Iterator[Pair]:
    """A quoted word in another case, with the whole request in one case."""
    for word in rng.sample(CASE_SENSES, len(CASE_SENSES)):
        a = f'{text} (grep "{word}")'
        yield a, rng.choice([a.lower(), a.upper()]) if word.istitle() else a.lower()


def sentence_capital(text: str, rng: random.Random) -> Iterator[Pair]:
    """A sentence's first word that is a name, in small letters, in a request that still has
    a capitalised word (in small letters throughout, the request is forgiven: a documented
    failure)."""
    if not any(w[:1].isupper() and len(w) > 2 for w in re.findall(r"[^\W\d_]+", text)):
        return
    for word in rng.sample([w for w in CASE_SENSES if w.istitle()], len(CASE_SENSES) - 2):
        yield f"{word} is the topic. {text}", f"{_lower_first(word)} is the topic. {text}"


def value_comma(text: str, rng: random.Random) -> Iterator[Pair]:
    """A comma between two values, names or numbers, dropped."""
    carrier = rng.choice(VALUE_COMMAS)
    yield text + carrier, text + carrier.replace(", ", " ").replace("，", " ")


def courtesy_inside(text: str, rng: random.Random) -> Iterator[Pair]:
    """A greeting, thanks or "please" that is part of what is asked, dropped."""
    for a, b in rng.sample(COURTESY_INSIDE, len(COURTESY_INSIDE)):
        fill = {"t": text, "o": _open(text), "l": _lower_first(text)}
        yield a.format(**fill), b.format(**fill)


def mark_apart(text: str, rng: random.Random) -> Iterator[Pair]:
    """A mark after a space, an ellipsis, or `!` in a title, dropped or changed."""
    tail = rng.choice(MARKS_APART)
    if tail.endswith("Oklahoma!"):
        yield text + tail, text + tail[:-1] + "."
    else:
        yield _open(text) + tail, _open(text)


def inner_mark(text: str, rng: random.Random) -> Iterator[Pair]:
    """A sentence mark added inside the text before a word without a capital (a small letter,
    or a script without case): two sentences where there was one ("هل هو؟ لا")."""
    gaps = [i for i, ch in enumerate(text[:-1]) if ch == " " and text[i - 1].isalpha()
            and text[i + 1].isalpha() and not text[i + 1].isupper()]
    for i in rng.sample(gaps, len(gaps)):
        yield text, text[:i] + rng.choice(INNER_MARKS) + text[i:]


def number_bang(text: str, rng: random.Random) -> Iterator[Pair]:
    """A factorial's `!` after a number or a one-letter name, in either width, dropped."""
    tail = rng.choice(NUMBER_BANGS)
    yield _open(text) + tail, _open(text) + tail[:-1]


def other_space(text: str, rng: random.Random) -> Iterator[Pair]:
    """A plain space between two words as a line break, a tab or another kind of space."""
    gaps = [i for i, ch in enumerate(text) if ch == " " and 0 < i < len(text) - 1
            and text[i - 1].isalnum() and text[i + 1].isalnum()]
    for i in rng.sample(gaps, len(gaps)):
        yield text, text[:i] + rng.choice(SPACES) + text[i + 1:]
    yield f"{_open(text)}: one.\nTwo.", f"{_open(text)}: one. Two."


def contraction(text: str, rng: random.Random) -> Iterator[Pair]:
    """A contraction whose expansion is another request: `'d`, "let's", "can't" for "can
    not", `'s` before a participle."""
    a, b = rng.choice(CONTRACTED)
    yield f"{text} {a}", f"{text} {b}"


def clause_moved(text: str, rng: random.Random) -> Iterator[Pair]:
    """A phrase moved from the front to the end, where it can attach elsewhere or read
    literally ("To be honest, is it worth it?")."""
    place = rng.choice(PLACES)
    closing = text.rstrip()[-1:] if text.rstrip()[-1:] in "?.!" else ""
    yield f"{place[:1].upper()}{place[1:]}, {_lower_first(text)}", f"{_open(text)} {place}{closing}"


def singleton(text: str, rng: random.Random) -> Iterator[Pair]:
    """A character beside the one Unicode maps it to."""
    first, second = rng.choice(SINGLETONS)
    yield f"{text} ({first})", f"{text} ({second})"


def quoted_text(text: str, rng: random.Random) -> Iterator[Pair]:
    """Spacing or a comma inside a quotation that opens after a prefix, a space or with a
    mark of another script."""
    quote = rng.choice(QUOTED)
    inner = quote.replace("  ", " ", 1) if "  " in quote else quote.replace(",", "", 1)
    yield text + quote, text + inner.replace("，", "")


EDGE_CLASSES: dict[str, Maker] = {
    "case of a short symbol": short_symbol_case,
    "case inside quotes": quoted_case,
    "a sentence's first capital": sentence_capital,
    "comma between values": value_comma,
    "courtesy that is the request": courtesy_inside,
    "mark after a space or a title": mark_apart,
    "sentence mark inside the text": inner_mark,
    "! after a number": number_bang,
    "line break or other space": other_space,
    "contraction with two readings": contraction,
    "clause moved to the end": clause_moved,
    "compatibility character": singleton,
    "quotation the scanner may miss": quoted_text,
}
ENGLISH_EDGES = frozenset({"a sentence's first capital", "courtesy that is the request",
                           "contraction with two readings", "clause moved to the end"})
"""Classes built on English words, made for the English requests only."""
CASE_EDGES = frozenset({"case of a short symbol", "case inside quotes",
                        "a sentence's first capital"})
"""Classes whose edit changes only case (the other classes skip such an edit)."""
