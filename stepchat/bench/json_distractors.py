"""Distractors inserted into hand-written JSON requests: does any of them become `stated`?

Every request of a phrasing file (data/json_phrasings*.jsonl) states its values in words
that were written down beside it. Into each, this inserts words that name other values
without stating any for the request's keys: a relative's age, a place denied or left, an
old value, a past state, a value written with symbols, a number in another country's
format, a comparison, a sum, and the classes a hostile review found (see `CLASSES`). The
truth does not move: a key is stated with the value the file gives, or not at all. So any
member the reader calls stated with another value is a wrong reading, whatever the
distractor was; so is a key lost, added or made open by the distractor. Only where the
distractor takes the values back, asks for them changed or in another form, hedges them or
gives an instruction about them (`REVOKING`) is nothing stated any more.

Each distractor is put in three places: a sentence before the request, a sentence after
it, and a clause right after the first value the request states ("for Bruno, whose
daughter is 12, 40, ..."), where it is hardest to tell apart. Values are chosen to fit the
request's keys (a number for a numeric key, a name for a text key) and never equal a value
the request states.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from stepchat.bench.checker import same_value
from stepchat.bench.phrasings import Phrasing

CLASSES = ("relative", "negated-place", "old-value", "past-state", "symbols",
           "number-format", "comparison", "arithmetic", "taken-back", "change-asked",
           "form-asked", "hedge", "someone-else", "not-a-place", "no-value", "number-written",
           "instruction", "negated-open", "second-thing", "request-words", "pronoun-scope",
           "second-subject", "cut-short", "quoted-inside", "modifier", "value-cut")
"""The first eight are the issue's; the rest are the classes a hostile review found
(`taken-back`: a later sentence takes a value back in words no list holds; `change-asked`:
a change or conversion asked in words; `form-asked`: another form of the value; `hedge`;
`someone-else`: the speaker's, a pronoun's or a character's value; `not-a-place`: a
company, department, street or season after `from`/`in`; `no-value`: a key named beside
words that state none; `number-written`: trailing zeros, dashes and minus signs;
`instruction`: `Add ...`/`Include ...` sentences; `negated-open`: `No dummy data`). The last
eight are the second review's: `second-thing`: a connector bringing in another person or
thing (`who has a 12-year-old`, `and the one from Lisbon`); `request-words`: the request's
words after it (`with a record from Lisbon`); `pronoun-scope`: a value said of `it`/`this`
or scoped to one (`It is 40.`, `aged 40 in this`); `second-subject`: another thing or
another person of the same name (`The car is 12.`, `The other Bruno is 40.`); `cut-short`:
an ellipsis or an open bracket; `quoted-inside`: values inside a quoted title;
`modifier`: a hedging modifier before a value (`a would-be admin`, `a so-called
20-year-old`); `value-cut`: a value asked cut short (`Don't include the surname.`)."""

_CLAUSES: dict[str, tuple[str, ...]] = {
    "relative": (
        "whose daughter is {n}", "whose son {Name} is {n}", "with a {n}-year-old son",
        "and her brother, {n}", "whose father lives in {City}", "whose niece {Name} is {n}",
        "and his friend {Name} from {City}",
    ),
    "negated-place": (
        "not from {City}", "from neither {City} nor {City2}", "who does not live in {City}",
        "formerly of {City}", "who moved away from {City}", "who refused to move to {City}",
        "never based in {City}",
    ),
    "old-value": (
        "previously {n}", "formerly {Name}", "once priced at {n}", "earlier listed as {Name}",
        "last year {n}", "the old value being {n}", "with the old name {Name}",
    ),
    "past-state": (
        "who was {n} in {y}", "who used to be called {Name}", "once a resident of {City}",
        "who was an admin until last year", "who used to be vegan", "who was married once",
        "no longer {Name}'s partner",
    ),
    "symbols": (
        "who codes in C++", "fluent in C# and F#", "building with Next.js",
        "a .NET developer", "who uses Node.js", "tagged #{word}", "at {n}% of capacity",
    ),
    "number-format": (
        "with 1.000,50 in savings", "who paid 1,000.50", "priced at 1.000 EUR elsewhere",
        "with 2.500 followers", "about 1,000 strong", "worth 12.345,67", "with 3,500 fans",
    ),
    "comparison": (
        "{n} years younger than his {m}-year-old father", "older than {Name}",
        "taller than {n} cm", "more than {n}", "who scored {n} out of {m}",
        "cheaper than {City}'s {n}", "at least {n}",
    ),
    "arithmetic": (
        "who had {n} apples and ate {m}", "twice as old as {Name}", "{n} minus {m}",
        "with {m} more than {Name}", "half of {n}", "{n} plus {m} in total",
        "with {n} times {m} points",
    ),
    "taken-back": (
        "who has since moved away", "though that changed", "all of it false",
        "but that is his twin", "which bounces", "which went up since",
        "though he lied",
    ),
    "change-asked": (
        "plus a year", "in months", "rounded up", "converted to pounds",
        "in cents", "halved", "a decade older",
    ),
    "form-asked": (
        "in Japanese", "in initials", "in capitals", "as an iso code",
        "written in reverse", "in the native spelling", "in lowercase",
    ),
    "hedge": (
        "if possible", "ballpark", "from memory", "to be confirmed",
        "pending confirmation", "needs checking", "off the top of my head",
    ),
    "someone-else": (
        "the actor playing {Name}", "such as {Name}", "the nurse treating {Name}",
        "and my age is {n}", "who called {Name}", "and its age is {n}",
        "resembling {Name}",
    ),
    "not-a-place": (
        "from Google", "who works in Sales", "born in Winter", "from Baker Street",
        "a student in Gryffindor", "from Heathrow", "in Marketing",
    ),
    "no-value": (
        "{key} up to you", "{key} whatever", "{key} dunno", "{key} blank",
        "{key} several", "{key} anywhere", "{key} any of them",
    ),
    "number-written": (
        "version 3.10", "at −{n} degrees", "at –{n} degrees", "at ‐{n} degrees",
        "rated 4.50", "release 18.10", "from '{m}",
    ),
    "instruction": (
        "with keys sorted", "and include tax", "add a decade", "with comments",
        "plus a brief explanation", "and add quotes", "etc.",
    ),
    "negated-open": (
        "no dummy data", "not fake data", "any capital letters are fine",
        "never made up", "no sample values", "without invented values", "no random data",
    ),
    "second-thing": (
        "who has a {n}-year-old", "with one aged {n}", "and the one from {City}",
        "who has it from {City}", "who is with a {n}-year-old", "and an admin",
        "who has one in {City}",
    ),
    "request-words": (
        "with a record from {City}", "containing one aged {n}", "describing a {n}-year-old",
        "using data from {City}", "having one from {City}", "listing a {n}-year-old",
        "with a payload from {City}",
    ),
    "pronoun-scope": (
        "aged {n} in this", "from {City} as of that", "who is {n} in it",
        "who lives in {City} in this", "aged {n} as of it", "{n} years old in that",
        "from {City} in it",
    ),
    "second-subject": (
        "and the other {Name} is {n}", "unlike the younger {Name}", "and both {Name}s",
        "and the older {Name} is from {City}", "and a different {Name} is {n}",
        "and the other {Name}", "with the elder {Name}",
    ),
    "cut-short": ("…", "[...]", "and (", "{Name}…", "...", "[…]", "{n}…"),
    "quoted-inside": (
        'known for "Aged {n} in {City}"', 'from the show "Not an Admin"',
        'of the book "{Name} from {City}"', 'a fan of "{n} Years Old"',
        'of the film "Write to {word}@x.org"', 'of "The Inactive"', 'of the song "In Stock"',
    ),
    "modifier": (
        "a would-be {n}-year-old", "a self-proclaimed admin", "a one-time resident of {City}",
        "a so-called {n}-year-old", "a make-believe admin", "an alleged {n}-year-old",
        "a could-be resident of {City}",
    ),
    "value-cut": (
        "without the surname", "but not the domain", "minus the last name",
        "first name only", "without the cents", "domain only", "just the initial",
    ),
}
"""Clauses about something else than the request's values, one set per class."""

REVOKING = frozenset({"taken-back", "change-asked", "form-asked", "hedge", "instruction",
                      "pronoun-scope", "cut-short", "modifier", "value-cut"})
"""Classes whose words take the request's values back, ask for them changed or in another
form, hedge them or give an instruction about them: the prompt no longer states any value
completely and uniquely, so every member called stated counts as wrong. The second review's
`pronoun-scope`, `cut-short`, `modifier` and `value-cut` may take back or cut any value."""

_SENTENCES: dict[str, tuple[str, ...]] = {
    "relative": (
        "Her daughter is {n}.", "His father {Name} is {n}.", "Their son {Name} lives in {City}.",
        "Her niece is {n} years old.", "His friend {Name}, {n}, is from {City}.",
    ),
    "negated-place": (
        "Not from {City}.", "She never lived in {City}.", "He refused to move to {City}.",
        "They no longer live in {City}.", "Neither {City} nor {City2} is right.",
    ),
    "old-value": (
        "The old value was {n}.", "Last year it was {n}.", "It was listed as {Name} before.",
        "The previous entry said {Name}, {n}.", "Old record: {Name} from {City}.",
    ),
    "past-state": (
        "She was {n} back then.", "He used to live in {City}.", "It was called {Name} until {y}.",
        "She was an admin until last year.", "He was married once.",
    ),
    "symbols": (
        "She likes C++.", "He works with F# and .NET.", "Stack: Next.js and Node.js.",
        "Also fluent in C#.", "See {Name}++ for details.",
    ),
    "number-format": (
        "The budget is 1.000,50.", "It cost 1,000.50 once.", "Shipping is 1.000 EUR.",
        "Savings: 2.500,00.", "About 1,000 people came.",
    ),
    "comparison": (
        "She is older than {Name}.", "He earns more than {n}.", "It scored {n} out of {m}.",
        "It is {n} years younger than {Name}.", "It is cheaper than {City}'s.",
    ),
    "arithmetic": (
        "She had {n} and gave away {m}.", "Add {m} to {n}.", "He had {n} apples and ate {m}.",
        "It is twice {n}.", "Take {m} from {n}.",
    ),
    "taken-back": (
        "He moved away.", "It bounces.", "All false.", "That is his twin brother.",
        "She got demoted.", "It burned down.", "He lives elsewhere now.",
    ),
    "change-asked": (
        "Make it a decade older.", "Convert to pounds.", "Use USD.", "Round up.",
        "Express everything in months.", "Halve it.", "Drop the cents.",
    ),
    "form-asked": (
        "Use initials only.", "Make all values uppercase.", "Use iso codes.",
        "Write the values in reverse.", "Use the native spelling.", "In Japanese.",
        "Make everything lowercase.",
    ),
    "hedge": (
        "Ballpark figure.", "To be confirmed.", "From memory.", "Is that right?",
        "Pending confirmation.", "Needs checking.", "Off the top of my head.",
    ),
    "someone-else": (
        "My age is {n}.", "Its age is {n}.", "I am {n}.", "Her email is {word}@x.org.",
        "My city is {City}.", "{Name}'s age is {n}.", "I'm {n}.",
    ),
    "not-a-place": (
        "She works in Sales.", "He is from Google.", "Born in Winter.",
        "They live on Baker Street.", "He works in Marketing.", "She is from Harvard.",
        "In Summer.",
    ),
    "no-value": (
        "The {key} is up to you.", "{key} whatever.", "{key}: dunno.", "{key}: blank.",
        "{key} anywhere.", "{key}: several.", "{key}: any of them.",
    ),
    "number-written": (
        "Version 3.10 is out.", "It was −{n} degrees.", "Around –{n} degrees.",
        "Rated 4.50.", "Back in '{m}.", "Release 18.10.", "Range {n}–{m}.",
    ),
    "instruction": (
        "Add a decade.", "Include tax.", "Add comments.", "Include a brief explanation.",
        "Include nothing else.", "Add quotes.", "Include everything.",
    ),
    "negated-open": (
        "No dummy data.", "Do not use fake data.", "Any capital letters are fine.",
        "Nothing made up.", "No sample values.", "Never invent values.", "No random data.",
    ),
    "second-thing": (
        "He has a {n}-year-old.", "She is with one aged {n}.", "They have an admin.",
        "He has one from {City}.", "She has it from {City}.",
    ),
    "request-words": (
        "One is from {City}.", "A record is {n}.", "Data from {City}.",
        "The payload is {n}.", "Containing one aged {n}.",
    ),
    "pronoun-scope": (
        "It is {n}.", "This is from {City}.", "That is {n}.", "They are in {City}.",
        "It is an admin.", "This is {n} years old.",
    ),
    "second-subject": (
        "The other {Name} is {n}.", "The car is {n}.", "My car is from {City}.",
        "The office is in {City}.", "A different {Name} is {n}.", "The younger {Name} is {n}.",
        "The cat is from {City}.",
    ),
    "cut-short": ("…", "[...]", "See (", "...", "[…]"),
    "quoted-inside": (
        'The motto is "{n} years in {City}".', 'Tagline: "Not an admin".',
        'Slogan: "{Name} from {City}".', 'Quote: "aged {n}".',
        'Its label reads "In Stock".',
    ),
    "modifier": (
        "A would-be {n}-year-old.", "A self-proclaimed admin.", "A one-time resident of {City}.",
        "A so-called {n}-year-old.", "An alleged {n}-year-old.",
    ),
    "value-cut": (
        "Don't include the surname.", "Don't include the domain.", "Leave out the cents.",
        "Don't include the last name.", "Don't include {Name}.", "Only the initial.",
        "Drop the domain.",
    ),
}
"""Whole sentences of each class, put before or after the request."""

_NAMES = ("Lina", "Tomas", "Greta", "Ivo", "Sade", "Renata", "Kwabena", "Maud", "Petr", "Yusra")
_CITIES = ("Madrid", "Porto", "Turin", "Ghent", "Cork", "Tartu", "Dakar", "Quito", "Perth",
           "Hue")
_WORDS = ("draft", "legacy", "beta", "archive")

POSITIONS = ("before", "after", "inside")


@dataclass(frozen=True)
class Distracted:
    """A request with one distractor in it, and what the request states (unchanged, except
    in a `REVOKING` class, where nothing is stated any more)."""

    id: str
    cls: str
    position: str
    prompt: str
    keys: tuple[str, ...]
    stated: dict[str, Any] = field(default_factory=dict)
    original: str = ""
    inserted: str = ""


def _fill(template: str, rng: random.Random, avoid: set[str], keys: tuple[str, ...] = ("name",)
          ) -> str:
    numbers = [str(n) for n in rng.sample(range(2, 99), 8) if str(n) not in avoid]
    names = [n for n in _NAMES if n not in avoid]
    cities = [c for c in _CITIES if c not in avoid]
    rng.shuffle(names)
    rng.shuffle(cities)
    year = next(str(y) for y in rng.sample(range(1950, 2016), 8) if str(y) not in avoid)
    return template.format(n=numbers[0], m=numbers[1], Name=names[0], City=cities[0],
                           City2=cities[1], word=rng.choice(_WORDS), y=year,
                           key=rng.choice(keys) if keys else "name")


def _pick(templates: tuple[str, ...], rng: random.Random, avoid: set[str],
          keys: tuple[str, ...], stated: dict[str, Any]) -> str:
    """A filled template that repeats no stated value (`EUR` in `priced at 1.000 EUR` for a
    request that states the currency EUR); the first of a few tries, else the last."""
    said = [str(v) for v in stated.values() if isinstance(v, str | int) and not isinstance(v, bool)]
    for _ in range(6):
        text = _fill(rng.choice(templates), rng, avoid, keys)
        if not any(re.search(rf"(?<![\w.,]){re.escape(v)}(?!\w|[.,]\d)", text) for v in said):
            break
    return text


def _first_value_end(prompt: str, stated: dict[str, Any]) -> int | None:
    """Where the first value the request states ends, if it is written as stated."""
    ends = []
    for value in stated.values():
        if isinstance(value, bool | list):
            continue
        m = re.search(rf"(?<![\w.]){re.escape(str(value))}(?![\w])[\"'”’)]*", prompt)
        if m:
            ends.append(m.end())
    return min(ends) if ends else None


def _insert(prompt: str, position: str, clause: str, sentence: str,
            stated: dict[str, Any]) -> tuple[str, str] | None:
    """The prompt with the distractor in `position`, and the text inserted."""
    if position == "before":
        return f"{sentence} {prompt}", f"{sentence} "
    if position == "after":  # a request without a closing point gets one first
        sep = " " if prompt.rstrip()[-1:] in ".!?" else ". "
        return f"{prompt}{sep}{sentence}", f"{sep}{sentence}"
    end = _first_value_end(prompt, stated)
    if end is None:
        return None
    return f"{prompt[:end]}, {clause},{prompt[end:]}", f", {clause},"


def distract(cases: list[Phrasing], seed: int = 21) -> Iterator[Distracted]:
    """Every request and variant of `cases`, with every class in every position."""
    rng = random.Random(seed)
    for case in (c for c in cases if c.is_json):
        for which, prompt, stated in case.requests():
            avoid = {str(v) for v in stated.values()} | set(re.findall(r"\w+", prompt))
            for cls in CLASSES:
                for position in POSITIONS:
                    clause = _pick(_CLAUSES[cls], rng, avoid, case.keys, stated)
                    sentence = _pick(_SENTENCES[cls], rng, avoid, case.keys, stated)
                    sentence = sentence[:1].upper() + sentence[1:]
                    done = _insert(prompt, position, clause, sentence, stated)
                    if done is not None:
                        yield Distracted(f"{case.id}-{which}-{cls}-{position}", cls, position,
                                         done[0], case.keys, dict(stated), prompt, done[1])


@dataclass
class ClassTally:
    """One class of distractor: how many values were stated right, wrong, or declined."""

    prompts: int = 0
    stated: int = 0  # values the prompts state
    found: int = 0  # members the reader called stated
    right: int = 0
    wrong: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.right / self.stated if self.stated else 1.0

    @property
    def precision(self) -> float:
        return self.right / self.found if self.found else 1.0


@lru_cache(maxsize=1024)
def _read_alone(prompt: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The keys and open keys of a request without its distractor."""
    from stepchat.core.tasks.json_spec import read_spec

    spec = read_spec(prompt)
    return (spec.keys, frozenset(spec.open)) if spec is not None else ((), frozenset())


def score(items: list[Distracted]) -> dict[str, ClassTally]:
    """Per class: every member the reader states, judged against the file's values (in a
    `REVOKING` class, against nothing); and a key lost, a key added or a key made open by
    the distractor counts as a wrong member too, unless the reader is not sure of the key
    list (then nothing is stated and the answer is not verified)."""
    from stepchat.core.tasks.json_request import read_keys
    from stepchat.core.tasks.json_spec import read_spec

    out = {cls: ClassTally() for cls in CLASSES}
    for item in items:
        tally = out[item.cls]
        tally.prompts += 1
        revoked = item.cls in REVOKING
        tally.stated += 0 if revoked else len(item.stated)
        spec = read_spec(item.prompt)
        if spec is None:
            continue
        keys, opened = _read_alone(item.original)
        # a list the reader is not sure of states nothing and verifies nothing: declined
        sure = read_keys(item.prompt).sure
        moved = [f"key {k} lost" for k in keys if k not in spec.keys and sure]
        moved += [f"key {k} added" for k in spec.keys if k not in keys and sure]
        moved += [f"{k} made open" for k in spec.open if k not in opened]
        tally.found += len(moved)
        tally.wrong += [f"{item.id}: {m} in {item.prompt!r}" for m in moved]
        for key, value in spec.entities.items():
            tally.found += 1
            if not revoked and key in item.stated and same_value(item.stated[key], value):
                tally.right += 1
            else:
                tally.wrong.append(f"{item.id}: {key}={value!r} in {item.prompt!r}")
    return out


def table(tallies: dict[str, ClassTally]) -> str:
    """Precision and recall per class (Markdown)."""
    lines = ["| distractor | prompts | stated values | recall | members called stated "
             "| precision |", "|---|---:|---:|---:|---:|---:|"]
    total = ClassTally()
    for cls, t in tallies.items():
        recall = f"{t.recall:.3f}" if t.stated else "–"
        lines.append(f"| {cls} | {t.prompts} | {t.stated} | {recall} | {t.found} "
                     f"| {t.precision:.3f} |")
        total.prompts += t.prompts
        total.stated += t.stated
        total.found += t.found
        total.right += t.right
    lines.append(f"| **all** | {total.prompts} | {total.stated} | {total.recall:.3f} "
                 f"| {total.found} | **{total.precision:.3f}** |")
    return "\n".join(lines) + "\n"
