"""The text gate's decisions on cases written to break it (the pair sets and the generated
look-alikes test it at scale)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stepchat.core.textgate.forgiven import FORGIVEN, Forgiven
from stepchat.core.textgate.gate import compare
from stepchat.core.textgate.normalize import GateOptions, reduce_text

SAME = [
    ("What is the capital of France?", "what's the capital of france"),
    ("How do I reset my router?", "Hi team, how do I reset my router? Thanks!"),
    ("How do I reset my router?", "Hello! How do I reset my router?"),
    ("Explain recursion?", "Explain recursion, please?"),
    ("Cancel my subscription.", "Hi there, cancel my subscription. Thanks!"),
    ("What is the drinking age in the UK?", "what is the drinking age in the UK"),
    ("What's the Spanish word for 'library'?", "What's the Spanish word for 'library'"),
    ("Hello", "Hello!"),
    ("HI, WHAT IS THE STATE BIRD?", "WHAT IS THE STATE BIRD?"),  # shouted: courtesy
    ("Hey, can you explain recursion?", "Can you explain recursion?"),
    ("Hello, in Excel, how do I merge cells?", "In Excel, how do I merge cells?"),
    ("What is 7pm in UTC?", "WHAT IS 7PM IN UTC?"),  # no capital to lose
    ("What is the capital of France?", "WHAT IS THE CAPITAL OF FRANCE"),
    ("Why do GPUs run hot?", "why do gpus run hot"),  # an acronym's plural is not a symbol
    ("A pump moves 120 litres per hour. How much in 5 hours?",
     "A pump moves 120 litres per hour. How much in 5 hours"),
    ("A pump moves 120 litres per hour. How much in 5 hours?",
     "a pump moves 120 litres per hour. how much in 5 hours?"),
    ("Что такое фотосинтез?", "что такое фотосинтез"),
    ("¿Qué es la fotosíntesis?", "Qué es la fotosíntesis"),
    ("光合作用是什么？", "光合作用是什么"),
    ("ما هو التمثيل الضوئي؟", "ما هو التمثيل الضوئي"),
    ("प्रकाश संश्लेषण क्या है।", "प्रकाश संश्लेषण क्या है"),
    ("Τι είναι η φωτοσύνθεση;", "τι είναι η φωτοσύνθεση"),
    ("Qu'est-ce que le café ?", "Qu'est-ce que le cafe\u0301 ?"),
]

DIFFERENT = [
    ("Line one.\nLine two.", "Line one\nLine two"),  # a line's own mark is the text's
    # a mark inside the request meets only a mark of its kind, never none: it may be moved
    ("Send the report to Anna. Maria Lopez will review it.",
     "Send the report to Anna Maria. Lopez will review it."),
    ("Who sang No. One?", "Who sang No One?"),
    ("A pump moves 120 litres per hour. How much in 5 hours?",
     "A pump moves 120 litres per hour How much in 5 hours"),
    ("Send it to Anna, Maria Lopez will check it.", "Send it to Anna Maria, Lopez will check it."),
    # a greeting before a comma only before a word that opens a request, not listed itself
    ("Hi, bye, see you later: translate each into Spanish.",
     "Bye, see you later: translate each into Spanish."),
    ("Hi, ciao and bye are common words. Translate them into German.",
     "Ciao and bye are common words. Translate them into German."),
    ("Hi, how and why are question words. Which is older?",
     "How and why are question words. Which is older?"),
    # courtesy in capitals is a name or a code outside a request in capitals
    ("HI, what is the state bird?", "What is the state bird?"),
    ("Which cinemas in London are certified? THX.", "Which cinemas in London are certified?"),
    # a word with a digit and a capital keeps the case of every letter
    ("What is the molar mass of COCl2?", "what is the molar mass of cocl2"),
    ("COCl2 molar mass?", "cocl2 molar mass?"),  # also opening a sentence
    # names, numbers, directions, polarity, order
    ("What is the capital of Australia?", "What is the capital of Austria?"),
    ("Convert 5 km to miles", "Convert 5 miles to km"),
    ("How do I merge main into develop?", "How do I merge develop into main?"),
    ("What is 1+1?", "What is 21+1?"),
    ("How do I enable 2FA?", "How do I disable 2FA?"),
    ("Is ibuprofen safe with alcohol?", "Is ibuprofen unsafe with alcohol?"),
    ("Call me at 2pm", "Call me at 2am"),
    ("Is Python faster than Java?", "Is Java faster than Python?"),
    ("How do I cancel my order?", "How do I not cancel my order?"),
    ("In Excel, how do I merge cells?", "How do I merge cells?"),
    # one word for another: no synonyms, plurals, spellings or misspellings are merged
    ("Set up a direct debit", "Set up a direct debt"),
    ("Does Lyft operate in Boston?", "Does lift operate in Boston?"),
    ("How do I change the email address?", "How do I chnage the email adress?"),
    ("How do I make cold brew coffee?", "How do I make cold-brew coffee?"),
    ("How do you calculate BMI?", "How do you calculate B.M.I.?"),
    ("Can I pay in five instalments?", "Can I pay in 5 instalments?"),
    ("How should I vote?", "How do I vote?"),
    # articles and capitals
    ("What does Python eat?", "What does a python eat?"),
    ("How do I polish Polish silver?", "How do I polish polish silver?"),
    ("What is i times i?", "What is I times I?"),
    ("How long is 5 Mm?", "HOW LONG IS 5 MM?"),
    # a unit keeps its case next to its number, however the two are spaced or joined, and a
    # short mixed-case symbol keeps its case anywhere
    ("Is 5\u00a0mWh a lot?", "IS 5\u00a0MWH A LOT?"),
    ("Is 5\u2060Gib a lot?", "is 5\u2060gib a lot?"),
    ("Is a 5-Gib file big?", "IS A 5-GIB FILE BIG?"),
    ("Is ¾Gib a lot?", "is ¾gib a lot?"),
    ("Is a dozen Gib a lot?", "IS A DOZEN GIB A LOT?"),
    ("Is a few mWh a lot?", "IS A FEW MWH A LOT?"),
    ("MWh to J: how many joules is that?", "mwh to j: how many joules is that?"),
    # digits in other forms
    ("What is 10²?", "What is 102?"),
    ("What is ½ of 8?", "What is 1/2 of 8?"),
    ("What is ٣ + ٤?", "What is 3 + 4?"),
    ("What is １２ times 3?", "What is 12 times 3?"),
    # symbols, operators and where they stand
    ("What is 5!", "What is 5"),
    ("What is (n+1)! for n = 3?", "What is (n+1) for n = 3?"),
    ("What does the regex ab? match", "What does the regex ab match"),
    ("What does [a-z]? b match", "What does [a-z] b match"),
    ("What does a? match?", "What does a match?"),
    ("What is 12×4?", "What is 12 × 4?"),
    ("What does x ?? y do in JavaScript?", "What does x y do in JavaScript?"),
    ("Is a && b the same as a || b?", "Is a || b the same as a && b?"),
    ("What does ls -l do?", "What does ls - l do?"),
    ("Split 'a, b' on commas", "Split 'a b' on commas"),
    ("Count the spaces in 'a  b'", "Count the spaces in 'a b'"),
    ("What does `Foo` do?", "What does `foo` do?"),
    ("Fix:\nif x:\n    y()\nz()", "Fix:\nif x:\n    y()\n    z()"),
    ("Is 👍 rude?", "Is 👎 rude?"),
    ("What does 👨‍👩‍👧 mean?", "What does 👨👩👧 mean?"),
    ("What is 1,5 + 2?", "What is 15 + 2?"),
    ("What does the : operator do in Python?", "What does the operator do in Python?"),
    ("What is x after x = 1; y = 2?", "What is x after x = 1 y = 2?"),
    ("What is 2, 3 in Python?", "What is 2 3 in Python?"),
    # a zero-width space or word joiner after a colon still introduces the text
    ("Translate into French:\u200byou are coming?", "Translate into French:\u200byou are coming"),
    ("Translate into French:\u2060you are coming?", "Translate into French:\u2060you are coming"),
    # courtesy words that are the request
    ("Translate to French: thank you", "Translate to French: please"),
    ("Translate 'thanks' into German", "Translate 'please' into German"),
    ("Who sang Thank You?", "Who sang?"),
    ("What rhymes with please?", "What rhymes with?"),
    ("Please Please Me: who wrote it?", "Please Me: who wrote it?"),
    ("Hello", "Hi"),
    # "'s" before an irregular past participle may be "has"
    ("Who is sat on the Iron Throne?", "Who's sat on the Iron Throne?"),
    ("Who is lent the most money by the IMF?", "Who's lent the most money by the IMF?"),
    ("In poker, who is dealt the cards first?", "In poker, who's dealt the cards first?"),
    ("Who is shot first in Reservoir Dogs?", "Who's shot first in Reservoir Dogs?"),
    ("Who is struck out the most in MLB history?", "Who's struck out the most in MLB history?"),
    # ... with markup, a subject or an adverb between, or with a prefix
    ("Who is *sat* on the throne?", "Who's *sat* on the throne?"),
    ("What is he sat on?", "What's he sat on?"),
    ("Who is just sat on the throne?", "Who's just sat on the throne?"),
    ("What is already broken?", "What's already broken?"),
    ("Who is overpaid?", "Who's overpaid?"),
    ("Who is misunderstood the brief?", "Who's misunderstood the brief?"),
    ("Who is `sat` on the throne?", "Who's `sat` on the throne?"),
    ("Who is input the data?", "Who's input the data?"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_same_requests_pass(a: str, b: str) -> None:
    verdict = compare(a, b)
    assert verdict.same, verdict.reason


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_requests_fail_with_a_reason(a: str, b: str) -> None:
    verdict = compare(a, b)
    assert not verdict.same
    assert verdict.reason


@pytest.mark.parametrize(
    ("a", "b", "rule"),
    [
        ("Convert 5 km to miles", "Convert 5 miles to km", "word order changed"),
        ("Is the clinic open?", "Is the clinic not open?", "negation changed"),
        ("What does HTTP 404 mean?", "What does HTTP 403 mean?", "a number changed"),
        ("What is the capital of France?", "What is the capital of Germany?", "a name changed"),
        ("Sort a list in ascending order", "Sort a list in descending order",
         "the wording changed"),
        ("What is 12 × 4?", "What is 12 − 4?", "a symbol or mark changed"),
        ("What is 12×4?", "What is 12 × 4?", "spacing changed"),
        ("How do I polish Polish silver?", "How do I polish polish silver?",
         "the case of a word changed"),
        ("Move it from A to B", "Move it into A to B", "a direction or relation changed"),
    ],
)
def test_the_reason_names_the_change(a: str, b: str, rule: str) -> None:
    assert compare(a, b).rule == rule


@pytest.mark.parametrize("entry", FORGIVEN, ids=lambda f: f.name)
def test_each_forgiven_edit_passes_and_its_failure_classes_are_what_they_say(
    entry: Forgiven,
) -> None:
    """The closed list is the gate: its example passes, and so does each known failure it
    documents; with its switch off, none does."""
    assert compare(*entry.same).same
    assert entry.failures
    for failure in entry.failures:
        assert compare(*failure.example).same, failure.what
    if entry.option is not None:
        off = replace(GateOptions(), **{entry.option: False})
        assert not compare(*entry.same, off).same
        for failure in entry.failures:
            assert not compare(*failure.example, off).same, failure.what


def test_reduction_keeps_every_script_digit_form_and_symbol() -> None:
    tokens = [t.text for t in reduce_text("Don't use 40,000 + 5% of π·r² → ₹ ½ @x #y ~z").tokens]
    assert tokens == ["Do", "not", "use", "40", ",", "000", "+", "5", "%", "of", "π", "·",
                      "r²", "→", "₹", "½", "@", "x", "#", "y", "~", "z"]


def test_nothing_left_is_compared_as_written() -> None:
    """A request that is all courtesy keeps it: "Hi" is not "Hello", "Hi!" is "Hi"."""
    assert compare("Hi!", "Hi").same
    assert not compare("Thanks!", "Hello!").same


def test_the_docs_list_what_the_gate_forgives() -> None:
    """docs/open-text.md's table names every entry of the closed list, and no other."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "open-text.md").read_text()
    table = docs.split("## What the gate forgives", 1)[1].split("\n\n")[2]
    named = [row.split("|")[1].strip() for row in table.splitlines()[2:]]
    assert named == [entry.name for entry in FORGIVEN]
