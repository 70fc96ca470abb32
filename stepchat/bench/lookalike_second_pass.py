"""Look-alikes at the forgiven rules' edges that a second hostile pass found.

Each class is one step past what a rule forgave before that pass (tests/core/
hostile_pairs2.jsonl): a unit joined to a number in another case, a mark that ends a name or
follows a bracket, the marks, spacing and courtesy of the text a colon introduces, a numbered
list's full stop, a line's own mark, a greeting that tells the time or sits on its own line,
a contraction typed without its apostrophe, quote characters and string prefixes the scanner
did not know, another script's comma beside a one-letter name. Every edit changes what the
request asks, so the gate must pass none; each is made for every request by adding a carrier
to both sides.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from stepchat.bench.lookalike_edges import Maker, Pair, _lower_first, recased

UNITS = ("5Mm", "5MW", "10mA", "10Ms", "3Mg", "3Pm", "50mSv", "5Mm²", "5 mPa", "100 MBps",
         "5 mHz", "3 mWh", "1 Mib", "2Gb")
"""Quantities whose unit's case is the unit: mega against milli, bits against bytes."""
NAMES = ("[1, 2].uniq", "0.zero", "user.name", "mail.example.com", "File::open", "ptr->next",
         "obj.save", "save", "vec", "set")
NAME_MARKS = ("!", "?", ".", "!!")
BRACKETED = ("if (x)", "f(1)", "int a[3]", "(ab)", "(path)", "while (busy())", "{x}")
BRACKET_MARKS = (";", "?", ".", "!")
COLON_TEXT = (
    ("Translate into French: you are coming?", "Translate into French: you are coming."),
    ("Translate into French: you are coming?", "Translate into French: you are coming"),
    ("Is this a question: he left?", "Is this a question: he left!"),
    ("How many sentences are in: It rains. It pours.",
     "How many sentences are in: It rains It pours."),
    ("Translate into German: can I have the bill, please?",
     "Translate into German: can I have the bill?"),
    ("Translate into German: Where is it? Thank you.", "Translate into German: Where is it?"),
    ("Decode this Morse code: .-   -", "Decode this Morse code: .- -"),
    ("翻译成英文：你去。", "翻译成英文：你去？"),
    ("ترجم إلى الإنجليزية: أنت قادم؟", "ترجم إلى الإنجليزية: أنت قادم"),
    ("Traduce al inglés: ¿hablas inglés?", "Traduce al inglés: hablas inglés"),
    ("Is this valid C: int a[3];", "Is this valid C: int a[3]"),
)
LINES = (
    ("\n1. Apples\n2. Pears", "\n1 Apples\n2 Pears"),
    (" Does 2. Item start a list?", " Does 2 Item start a list?"),
    ("\nZebra.\nApple", "\nZebra\nApple"),
)
TIME_GREETINGS = ("Good morning", "Good afternoon", "Good evening", "Good night", "Morning",
                  "Evening")
GREETING_LINES = (
    ("Hello!\n    # Not a heading\n{t}", "Hello!\n# Not a heading\n{t}"),
    ("Hi!\n    print(1)\nprint(2)\n{t}", "print(1)\nprint(2)\n{t}"),
    ("Hi,\n    foo()\nbar()\n{l}", "Hi,\nfoo()\nbar()\n{l}"),
    ("Hello.\nWorld.\n{t}", "World.\n{t}"),
    ("Hello, world! {t}", "Hi, world! {t}"),
)
UNMARKED = (("dont", "do not"), ("doesnt", "does not"), ("whats", "what is"),
            ("isnt", "is not"), ("cant", "cannot"), ("wont", "will not"), ("im", "I am"))
QUOTES = ("｢{}｣", "❝{}❞", "⹂{}“", "\U0001f676{}\U0001f677", "⸌{}⸍", "″{}″", "❛{}❜", "‶{}″")
PREFIXES = ("q'{}'", "qq'{}'", "qw'{}'", "g'{}'", "k'{}'")
SCRIPT_COMMAS = (" 画出 sin x，cos x", " sin x、cos x のグラフ", " ارسم sin x، cos x",
                 " Python 里 x = a，b", " 求 f，g")


def unit_case(text: str, rng: random.Random) -> Iterator[Pair]:
    """A unit after or joined to a number in another case, alone or with the request."""
    yield from recased(text, UNITS, rng)


def named_mark(text: str, rng: random.Random) -> Iterator[Pair]:
    """A final `!`, `?` or `.` that ends a method's or a domain's name, dropped."""
    name, mark = rng.choice(NAMES), rng.choice(NAME_MARKS)
    if mark in "!!" or "." in name or ":" in name or ">" in name:
        yield f"{text} Explain {name}{mark}", f"{text} Explain {name}"


def bracket_mark(text: str, rng: random.Random) -> Iterator[Pair]:
    """A mark after a closing bracket at the end (`if (x);`, `(ab)?`), dropped."""
    code = rng.choice(BRACKETED)
    yield f"{text} Check {code}{rng.choice(BRACKET_MARKS)}", f"{text} Check {code}"


def colon_text(text: str, rng: random.Random) -> Iterator[Pair]:
    """A mark, spacing, "please" or thanks of the text a colon introduces, changed."""
    for a, b in rng.sample(COLON_TEXT, len(COLON_TEXT)):
        yield f"{text} {a}", f"{text} {b}"


def line_mark(text: str, rng: random.Random) -> Iterator[Pair]:
    """A numbered list's full stop or a line's own mark, dropped or changed."""
    a, b = rng.choice(LINES)
    yield text + a, text + b


def time_greeting(text: str, rng: random.Random) -> Iterator[Pair]:
    """A greeting that tells the time of day, dropped or swapped for another."""
    first, second = rng.sample(TIME_GREETINGS, 2)
    yield f"{first}! {text}", rng.choice([text, f"{second}! {text}"])
    yield f"{first}, {_lower_first(text)}", f"{second}, {_lower_first(text)}"


def greeting_line(text: str, rng: random.Random) -> Iterator[Pair]:
    """A greeting whose line break, next line's indentation or lines are the text's."""
    a, b = rng.choice(GREETING_LINES)
    fill = {"t": text, "l": _lower_first(text)}
    yield a.format(**fill), b.format(**fill)


def unmarked_contraction(text: str, rng: random.Random) -> Iterator[Pair]:
    """A contraction typed without its apostrophe (a word elsewhere: French "dont") against
    the words it would stand for."""
    short, long = rng.choice(UNMARKED)
    yield f"{text} What does {short} mean?", f"{text} What does {long} mean?"


def quote_character(text: str, rng: random.Random) -> Iterator[Pair]:
    """Spacing inside quotes of a kind the scanner did not know, or after a string prefix."""
    quote = rng.choice(QUOTES + PREFIXES)
    yield f"{text} {quote.format('a  b')}", f"{text} {quote.format('a b')}"


def script_comma(text: str, rng: random.Random) -> Iterator[Pair]:
    """Another script's comma beside a one-letter name, dropped."""
    carrier = rng.choice(SCRIPT_COMMAS)
    yield text + carrier, text + carrier.replace("，", " ").replace("、", " ").replace("،", "")


SECOND_PASS_CLASSES: dict[str, Maker] = {
    "case of a unit after a number": unit_case,
    "mark that ends a name": named_mark,
    "mark after a bracket": bracket_mark,
    "text a colon introduces": colon_text,
    "numbered list or a line's mark": line_mark,
    "time-of-day greeting": time_greeting,
    "greeting before lines of text": greeting_line,
    "contraction without apostrophe": unmarked_contraction,
    "quote character or string prefix": quote_character,
    "another script's comma beside a name": script_comma,
}
SECOND_PASS_CASE = frozenset({"case of a unit after a number"})
"""Classes whose edit changes only case."""
