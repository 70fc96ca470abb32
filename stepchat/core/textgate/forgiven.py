"""The closed list of edits the text gate forgives, each with the requests it gets wrong.

Everything not on this list is meaning. Each entry names the `GateOptions` switch that turns
it off (None: always on), an edit it forgives, and its known failure class with an example:
two requests that need different answers and that the gate, because of this entry, takes for
one. The tests check every example both ways (tests/core/test_textgate.py), so the list, the
docs that print it (docs/open-text.md) and the gate cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Forgiven:
    name: str
    option: str | None
    what: str
    same: tuple[str, str]
    """Two requests the entry makes one (the gate without it tells them apart)."""
    fails: str
    """The class of requests that need different answers and read the same because of it."""
    failure: tuple[str, str]
    """An instance of that class: the gate passes it, wrongly."""


FORGIVEN: tuple[Forgiven, ...] = (
    Forgiven(
        "canonical equivalence", None,
        "Unicode canonical equivalents (NFC): an accented letter typed as one character or "
        "as a letter and a combining accent",
        ("Qu'est-ce que le café ?", "Qu'est-ce que le cafe\u0301 ?"),
        "none known: Unicode defines the two as the same text (compatibility forms such as "
        "`³`, `½`, `ﬁ` or full-width digits are not folded)",
        ("Ω", "\u2126"),
    ),
    Forgiven(
        "whitespace", None,
        "how much whitespace separates two tokens, of which kind, and any at either end; not "
        "whether there is any (`12×4` is not `12 × 4`), not a line break and the indentation "
        "after it, not inside quotes or backticks",
        ("How do I   undo a commit?", "  How do I undo a commit?"),
        "spacing that is the subject outside quotes and code",
        ("Count the spaces in a  b", "Count the spaces in a b"),
    ),
    Forgiven(
        "case", "case",
        "letter case when either request is written in one case throughout (all small "
        "letters, all capitals, or a script without case), and the first letter of a word "
        "that starts a sentence",
        ("What is the capital of France?", "what is the capital of france"),
        "a word that means something else with a capital, beside a request typed without "
        "capitals (or in capitals only), or standing first in a sentence",
        ("How do I say hello in Polish?", "how do i say hello in polish"),
    ),
    Forgiven(
        "sentence punctuation", "punctuation",
        "`. , ! ? …` that end a word before whitespace or the end, outside quotes, brackets "
        "and code; kept after a single letter (`a?`), `!` after a digit or bracket (`5!`), a "
        "comma between digits (`2, 3`), and a mid-text `. ? ! …` before a small letter "
        "(`ab? match`); `:` and `;` are always meaning (but `;` as the Greek question mark); "
        "other scripts' sentence marks (`。，？` `،؟` `।`) wherever they stand",
        ("What is the capital of France?", "What is the capital of France"),
        "a comma whose place is the meaning, and an operator after a word before a capital",
        ("Let's eat, grandma", "Let's eat grandma"),
    ),
    Forgiven(
        "courtesy at either end", "courtesy",
        "a greeting or hesitation that makes the whole first clause (\"Hi team,\" \"Um,\"), "
        "thanks that make the whole last clause (\"? Thanks!\", \", thank you.\", or "
        "\"… Thanks!\" set off by its capital), and \"please\" as a clause of its own, as the "
        "first word before a small letter, or after \"can/could/would/will you\" (all English, "
        "all outside quotes)",
        ("How do I reset my router?", "Hi team, how do I reset my router? Thanks!"),
        "a greeting or thanks that is itself the subject, written as a clause of its own",
        ("Hello, World in Rust?", "World in Rust?"),
    ),
    Forgiven(
        "contractions", "contractions",
        "English contractions written with an apostrophe, as the words they stand for "
        "(\"what's\"/\"what is\", \"don't\"/\"do not\", \"can't\"/\"cannot\"/\"can not\"), "
        "outside quotes; a possessive \"'s\" stays",
        ("What's the capital of France?", "What is the capital of France?"),
        "a request about the written words themselves",
        ("How do you spell don't?", "How do you spell do not?"),
    ),
    Forgiven(
        "a fronted clause moved", "clause_moves",
        "a first clause opened by a preposition or \"if/when/while/before/after/unless…\" "
        "and ended by a comma, moved to the end",
        ("In Excel, how do I merge two cells?", "How do I merge two cells in Excel?"),
        "a phrase that at the end can attach to the last noun instead",
        ("With a telescope, how do I spot the man?", "How do I spot the man with a telescope?"),
    ),
)
