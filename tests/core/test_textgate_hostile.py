"""Pairs written to break the text gate, each needing two different answers.

A hostile pass over the gate found 91 such pairs that it served from the cache, in nineteen
classes (hostile_pairs.jsonl: both requests, the class, why the answers differ); a second
pass found 115 more (hostile_pairs2.jsonl), a third 29 more in three classes
(hostile_pairs3.jsonl, with 26 look-alikes of them in other languages and scripts), a fourth
16 more in three classes of one rule (hostile_pairs4.jsonl, with 32 look-alikes), a fifth 11
more in two classes (hostile_pairs5.jsonl, with 11 look-alikes), a sixth 27 more on the
fifth's fixes (hostile_pairs6.jsonl), a seventh 40 more on the sixth's (hostile_pairs7.jsonl),
an eighth 14 documented ones (hostile_pairs8.jsonl), a ninth 229 more in five classes
(hostile_pairs9.jsonl, with 33 look-alikes), a tenth 621 more on the ninth's fixes
(hostile_pairs10.jsonl, with 28 look-alikes). Each class
was fixed by narrowing its rule, except where narrowing would lose a surface edit a person
makes when asking again; those pairs are marked `documented` with the forgiven entry that
names their failure class, and are asserted to pass, so a change to the gate notices them.

Every other pair goes through the engine, as a user would send it (prompt cleaning
included): the first request is answered and stored, the second must be answered by the
model. Every request embeds to the same vector, so the gate alone decides.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.prompt import LONG_NOTE, MAX_PROMPT_CHARS
from stepchat.core.textgate.forgiven import FORGIVEN
from stepchat.core.textgate.gate import compare
from stepchat.core.types import CachePath, ChatMessage, TaskKind
from stepchat.store.memory import MemoryStore
from tests.core.test_textgate_issue_cases import SameVector

HERE = Path(__file__).parent


def _pairs(name: str) -> list[dict[str, Any]]:
    text = (HERE / name).read_text("utf-8")
    return [json.loads(line) for line in text.split("\n") if line]
    # not splitlines(): a request holds U+2028, which it splits at


ROUND_ONE = _pairs("hostile_pairs.jsonl")
ROUND_TWO = _pairs("hostile_pairs2.jsonl")
"""A second pass with fresh eyes: 115 pairs in eighteen classes, 84 in classes the forgiven
list did not name (units joined to numbers, names ending in a mark, marks after brackets,
colon-introduced text, Markdown lists, time-of-day greetings, a greeting eating a line break,
apostrophe-less contractions, quote characters and string prefixes the scanner did not know,
other scripts' commas beside a name) and 31 in documented ones."""
ROUND_THREE = _pairs("hostile_pairs3.jsonl")
"""A third pass: 29 pairs in three classes, 28 fixed by narrowing the rule that let the class
through: a typographic apostrophe inside quotes was read as `'` (10; quoted text is now kept
as written), a final mark was forgiven for a mark of another kind, so "…coming?" and
"…coming." were one request (9; a mark now meets only a mark of its kind or none), a unit's
case was kept only after plain digits (9; now after a number in any form the project reads:
`1e3`, `2k`, `five`, `twenty`); one is documented (a request about its own last character,
against the same request without that mark). Then 26 look-alikes in other languages and
scripts, written after the fix and not tuned on, all fixed; 4 of them (an apostrophe the
scanner reads as a quote mark) the gate declined before the fix too."""
ROUND_FOUR = _pairs("hostile_pairs4.jsonl")
"""A fourth pass: 16 pairs where a unit's case was folded though a number stood beside it,
in three classes: a space other than U+0020 between them (8: no-break, narrow no-break, thin,
tab, zero-width), a numeral that is not a digit glued to the unit or a joiner between them
(7: `½mWh`, `⅓MWh`, `五mWh`, `5-mWh`, `$50/mWh`, `5 (mPa)`, `5~mWh`), a quantity word (1: "a
dozen mWh"). All 16 are fixed by one rule: a short mixed-case symbol (`mPa`, `MWh`, `GHz`,
`MBps`) keeps its case anywhere, and any word keeps a unit's case when the nearest word
before it is a number in any form, whatever whitespace, symbols or marks stand between.
Then 30 look-alikes written after the fix and not tuned on (other units, spaces, numerals,
joiners and quantity words), all declined (14 of them the gate declined before the fix too),
and 2 documented ones that the rule leaves: a word between a capitalised unit and its number
(`5 more Gib`) and a four-letter unit with only its first capital (`100 Mbps`)."""
ROUND_FIVE = _pairs("hostile_pairs5.jsonl")
"""A fifth pass: 11 pairs in two classes. The case of the text a colon introduces was folded
against a request typed in one case though its marks and spacing were kept (4: `count the
capital letters in: hello world`, `ENCODE IN BASE64: HELLO`); that text now keeps its case
as well, and a colon after a space, as French writes it, introduces text too. A Spanish
opening mark moved within the sentence was forgiven as absent on each side in turn (4:
`¿Juan dice que vienes?` / `Juan dice ¿que vienes?`); such a mark, like another script's
comma, is now only left out, never moved. Three, the text a request works on with no colon
or quotes to show it (`reverse the string hello`), are documented. Then 11 look-alikes in
other languages and scripts written after the fix, all declined (3 of them, two other
scripts' commas moved and one more, declined before it too)."""
ROUND_SIX = _pairs("hostile_pairs6.jsonl")
"""A sixth pass, on the fifth's fixes: 27 pairs. A colon the reader did not take as
introducing text kept no case (14: glued, `in:hello`; French spacing variants and `::`;
other colon characters, `∶` `꞉`, the Greek `·`, the Armenian `․`, a spaced `：`; a request
in a script written without spaces read as one word before it): case is now the text's own
after a colon of any form, glued or spaced, but a time's, a URL's and one after a single
word of a spaced script, a topic far more often (`Python: read a CSV file`); those 5 (`Reverse:
Hello`) were documented, and since the seventh pass 2 of them (`MD5:`, `Base64-encode:`) are
declined. A Spanish opening mark left out inside a sentence, where it starts an
embedded question (5), or swapped for the other one (3): it is now left out only where it
opens the request or a sentence, and the two are one family when counted."""
ROUND_SEVEN = _pairs("hostile_pairs7.jsonl")
"""A seventh pass, on the sixth's fixes: 40 pairs. Colons that kept the case of their text
but not its marks, courtesy or spacing (12: `Translate into French:you are coming?`), a
digit before and after a colon read as a clock time (4: `ROT13:3 Little Pigs`), `://` read
as a URL (3), blank-looking letters (Braille blank, Hangul fillers) joining two words into a
one-word topic (5), and a Spanish opening mark after an abbreviation or a line break read as
opening a sentence, or glued to a comma (12). Now one rule says where the text a colon
introduces starts, for case, marks, spacing and courtesy alike: after a colon of any form
Unicode names (glued or spaced), but a clock time's (`10:30`) and a one-word topic's (one
word of letters with case, `Python:`); an opening mark opens a sentence only after `. ? !`
and before a capital; a comma glued to one is no comma alone. Three, a greeting cut before a
one-word topic (`Hi, reverse: Hello`), were documented with that topic's failure; since the
ninth pass a greeting's comma is courtesy only before a word that opens a request, so two are
declined and one (`Hi! Reverse: Hello`, a greeting sentence) is still documented. (Four more
found with them, `How many characters are in: abc   ` against no trailing spaces, are no
gate case: every prompt is trimmed before the model or the cache sees it.)"""
ROUND_EIGHT = _pairs("hostile_pairs8.jsonl")
"""An eighth pass: 14 pairs, all documented beside the entry that forgives them, since no
rule tells them from a retyping: a song or film title written with a contraction against
its words, outside quotes (`you're not alone` / `you are not alone`, two songs; 5); a shell
command written without backticks, where `'` opens a string (`echo it's` / `echo it is`,
and `’` for `'`; 4); a unit after a number word the reader does not read (`hundert Cal` /
`hundert cal`, 418,400 J against 418.4 J; `tusen`, `hundra`; 5)."""
ROUND_NINE = _pairs("hostile_pairs9.jsonl")
"""A ninth pass: 229 pairs in five classes (`source: review`), and 33 look-alikes written
after the fix (`source: look-alike`). A greeting that is a list's first item cut as courtesy
before its comma (122: `Hi, bye, see you later: translate each`, `hi, ta, te: which code is
Tamil?`): now a greeting's comma is courtesy only before a word that opens a request
(`lexicon.OPENERS`) and a space and a word that is no coordinator. A sentence mark moved
between capitalised words (80: `to Anna. Maria Lopez` / `to Anna Maria. Lopez`) and an
abbreviation's full stop dropped before a capital (4: `No. One` / `No One`): a mark inside the
request meets only a mark of its kind, never none, and a comma is left out, never moved. A
greeting or thanks in capitals that is a name or a code (16: `HI, what is the state bird?`,
`…certified? THX.`): courtesy in capitals only in a request in capitals. Small letters for
the capitals of a word with a digit (7: `COCl2` / `cocl2`): such a word keeps its case
anywhere."""
ROUND_TEN = _pairs("hostile_pairs10.jsonl")
"""A tenth pass, on the ninth's fixes: 621 pairs in two classes, and 28 look-alikes. A comma
moved when it changes script (276: `to Anna， Maria Lopez` / `to Anna Maria, Lopez`): each
side left out its own, since `,` and other scripts' commas were counted apart; all commas
are one family now. A greeting before an opener joined to a next item by a coordinator the
list did not hold or a sign (345: `Hi, can vs. may: …`, `Hi, what + which: …`, `y`, `et`,
`und`, `and/or`, `->`): a coordinator is read with its full stop and part by part across a
slash, the list holds other languages' and/or, and a token with no letter or digit there
is a coordinator too."""
PAIRS = (ROUND_ONE + ROUND_TWO + ROUND_THREE + ROUND_FOUR + ROUND_FIVE + ROUND_SIX + ROUND_SEVEN
         + ROUND_EIGHT + ROUND_NINE + ROUND_TEN)
FIXED = [p for p in PAIRS if p["documented"] is None]
DOCUMENTED = [p for p in PAIRS if p["documented"] is not None]


def short_answer(messages: Sequence[ChatMessage]) -> str:
    """A distinct answer well under the token limit (a cut-off answer is never stored)."""
    return f"An answer to: {messages[-1].content[:60]}"


def _label(pair: dict[str, Any]) -> str:
    return f"{pair['class'][:40]}: {pair['a'][:40]!r}"


def test_the_pairs_are_all_here() -> None:
    def documented(pairs: list[dict[str, Any]]) -> int:
        return sum(p["documented"] is not None for p in pairs)

    assert len(ROUND_ONE) == 91 and documented(ROUND_ONE) == 5
    assert len(ROUND_TWO) == 115 and documented(ROUND_TWO) == 18
    assert len(ROUND_THREE) == 55 and documented(ROUND_THREE) == 1
    assert len(ROUND_FOUR) == 48 and documented(ROUND_FOUR) == 2
    assert len(ROUND_FIVE) == 22 and documented(ROUND_FIVE) == 2
    assert len(ROUND_SIX) == 27 and documented(ROUND_SIX) == 3
    assert len(ROUND_SEVEN) == 40 and documented(ROUND_SEVEN) == 1
    assert len(ROUND_EIGHT) == 14 and documented(ROUND_EIGHT) == 14
    assert len(ROUND_NINE) == 262 and documented(ROUND_NINE) == 0
    assert sum(p["source"] == "review" for p in ROUND_NINE) == 229
    assert len(ROUND_TEN) == 649 and documented(ROUND_TEN) == 0
    assert sum(p["source"] == "review" for p in ROUND_TEN) == 621


@pytest.mark.parametrize("pair", FIXED, ids=_label)
def test_a_fixed_pair_goes_to_the_model(pair: dict[str, Any]) -> None:
    assert not compare(pair["a"], pair["b"]).same
    cache = StepCache(ScriptedBackend([short_answer]), SameVector(), MemoryStore())
    first = cache.answer(pair["a"])
    assert first.finish_reason == "stop"
    answer = cache.answer(pair["b"])
    assert not answer.hit, answer.path
    assert answer.path in (CachePath.SKIP_REUSE, CachePath.MISS)
    if first.stored_entry and len(pair["b"]) <= MAX_PROMPT_CHARS:  # a word problem is not
        assert answer.path == CachePath.SKIP_REUSE and answer.skip_reason


@pytest.mark.parametrize("pair", DOCUMENTED, ids=_label)
def test_a_documented_pair_passes_as_its_entry_says(pair: dict[str, Any]) -> None:
    """The failure is known and named beside its rule: if the gate starts telling these
    apart, the entry's failure list and the docs are out of date."""
    entry = next(e for e in FORGIVEN if e.name == pair["documented"])
    assert compare(pair["a"], pair["b"]).same
    assert any(compare(*f.example).same for f in entry.failures)


@pytest.mark.parametrize("document", [
    "The report covers revenue and costs. " * 200,
    "Solve for x: 3x + 5 = 20. " * 300,  # no checked kind reads a text that long
])
def test_a_long_prompt_is_sent_whole_and_neither_served_nor_stored(document: str) -> None:
    """The instruction after a document is its last line: a cut would answer another
    prompt."""
    store = MemoryStore()
    backend = ScriptedBackend([short_answer] * 2)
    cache = StepCache(backend, SameVector(), store)
    first = cache.answer(document + "Summarize it.")
    assert len(document) > MAX_PROMPT_CHARS
    assert first.notes == [LONG_NOTE] and first.task == TaskKind.TEXT
    assert backend.calls[-1][-1].content == document.strip() + " Summarize it."
    assert store.count() == 0
    again = cache.answer(document + "Translate it.")
    assert not again.hit and again.path == CachePath.MISS


def test_a_lone_carriage_return_is_a_line_break() -> None:
    store = MemoryStore()
    cache = StepCache(ScriptedBackend([short_answer]), SameVector(), store)
    assert cache.answer("What is 1\r2 + 1?").prompt == "What is 1\n2 + 1?"
    assert cache.answer("What is 12 + 1?").path == CachePath.SKIP_REUSE
