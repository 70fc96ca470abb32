"""The constructions a JSON request's values are read from: a closed list.

Each pattern here is a way people state a value that the reader accepts, and what kind of
key the value fits (`aged 40` an age, `from Lisbon` a place, `directed by X` a director).
The words a construction matches are accounted for (see `json_account`); anything said
another way is not, and declines the keys it could touch. docs/checks.md lists them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from stepchat.core.tasks.json_assign import FIRST, OWN_NAME, key_classes, tiers
from stepchat.core.tasks.json_words import (
    NOT_DESCRIBING,
    NUMBER,
    PROPN,
    RELATION_NOUNS,
    UPPER,
    Value,
    word_set,
)

_WHOLE = r"(?![\d%°]|[.,]\d)"
_YEAR_AFTER = r"(?:\s+in)?\s+(?P<n>\d{4})\b"
"""A number ends its token: `is 1` is not read out of `is 1.000,50`."""
UNITS: tuple[tuple[str, str], ...] = (
    (rf"[$€£]\s?(?P<n>{NUMBER})", "PRICE"),
    (rf"(?P<n>{NUMBER})\s*(?:dollars|euros?|pounds|usd|eur|gbp|€)\b", "PRICE"),
    (rf"\b(?:costs?|costing|priced\s+at|sells?\s+for|price\s+of)\s+[$€£]?(?P<n>{NUMBER})",
     "PRICE"),
    (rf"\brated\s+(?P<n>{NUMBER})(?:\s+stars?\b)?", "RATING"),
    (rf"(?P<n>{NUMBER})\s*/\s*(?:5|10|100)\b", "RATING"),
    (rf"\b(?:earns?|earning|paid|makes|salary\s+of)\s+[$€£]?(?P<n>{NUMBER})"
     r"(?:\s+(?:a|per)\s+year\b|\s+(?:annually|yearly)\b)?", "SALARY"),
    (rf"\bweigh(?:s|ing)?\s+(?P<n>{NUMBER})", "WEIGHT"),
    (rf"(?P<n>{NUMBER})\s*kg\b", "WEIGHT"),
    (rf"(?P<n>{NUMBER})\s*(?:degrees|°)", "TEMPERATURE"),
    (rf"\bserves\s+(?P<n>{NUMBER})", "SERVINGS"),
    (rf"\baged\s+(?P<n>\d{{1,3}}){_WHOLE}", "AGE"),
    (r"\b(?P<n>\d{1,3})(?:\s+|-)years?(?:\s+|-)old\b", "AGE"),
    (r"\b(?P<n>\d{1,3})\s+years\s+of\s+age\b", "AGE"),
    (rf"\b(?:is|turned|who's|she's|he's)\s+(?P<n>\d{{1,3}}){_WHOLE}"
     r"(?=\s*(?:[,;.)]|$|and\b))", "AGE"),
    (r"\((?P<n>\d{4})\)", "YEAR"),
    (rf"\breleased{_YEAR_AFTER}", "YEAR RELEASE"),
    (rf"\bpublished{_YEAR_AFTER}", "YEAR PUBLICATION"),
    (rf"\bcame\s+out{_YEAR_AFTER}", "YEAR RELEASE PUBLICATION"),
    (rf"\b(?:founded|established){_YEAR_AFTER}", "YEAR FOUNDING"),
    (rf"\bbuilt{_YEAR_AFTER}", "YEAR BUILDING"),
    (r"\b(?:in|from|since|made\s+in|dated)\s+(?P<n>\d{4})\b", "YEAR"),
    (r"\b(?:an?|the)\s+(?P<n>\d{4})\s+(?=[A-Z]|one\b|film\b|movie\b|model\b|version\b"
     r"|edition\b)", "YEAR"),
)
"""A year fills a key of the event its verb names (`released in` a release year, `founded`
and `established` a founding year, `built` a building year) or a bare `year`; `since`,
`in`, `(1995)` or `the 1995 film` name no event, so only a bare `year` takes them. The
event patterns come first: `released in 1995` is not read as `in 1995`."""
COMPILED_UNITS = tuple((re.compile(p, re.I), cls) for p, cls in UNITS)

NAMED = (
    (re.compile(r"\b(?:also\s+(?:known\s+as|called)|aka|a\.k\.a\.)\s+", re.I),
     tiers("ALIAS NICKNAME")),
    (re.compile(r"\bnicknamed\s+", re.I), tiers("NICKNAME ALIAS")),
    (re.compile(r"\b(?:titled|entitled)\s+", re.I), tiers("TITLE", "NAME")),
    (re.compile(r"\b(?:named|called)\s+", re.I), tiers("NAME USERNAME", "TITLE", FIRST)),
)
WHERE_NOW = tiers("CITY LOCATION RESIDENCE COUNTRY")
"""Where the subject lives or is now: a bare city, location or country, or a residence;
never a hometown, an origin, a birthplace, a workplace or a venue."""
_CITY_OF = r"(?:the\s+)?(?:city\s+of\s+)?"
"""`born in the city of Lisbon`: the relation is the cue's, not the phrase's."""


def _place_cue(words: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{words})\s+{_CITY_OF}", re.I)


_NOT_FROM = r"(?<!works )"
_NOT_IN = (r"(?<!based )(?<!lives )(?<!living )(?<!located )(?<!resides )(?<!headquartered )"
           r"(?<!born )(?<!now )(?<!currently )")
PLACES = (
    (_place_cue(r"born\s+in"), tiers("BIRTHPLACE")),
    (_place_cue(r"(?:flights?|flying|flies|travel\w*|trip|heading|going|bound|ticket)\s+to"),
     tiers("DESTINATION")),
    (_place_cue(r"moved\s+to|now\s+lives\s+in|relocated\s+to"), WHERE_NOW),
    (_place_cue(r"now\s+in|currently\s+in"), WHERE_NOW),
    (_place_cue(r"based\s+in|lives\s+in|living\s+in|located\s+in|resides\s+in"), WHERE_NOW),
    (_place_cue(r"headquartered\s+in"), tiers("CITY LOCATION HQ COUNTRY")),
    (_place_cue(r"works\s+from"), tiers("WORKPLACE")),
    (re.compile(rf"{_NOT_FROM}\bfrom\s+{_CITY_OF}", re.I), tiers("CITY HOMETOWN ORIGIN COUNTRY")),
    (re.compile(rf"{_NOT_IN}\bin\s+{_CITY_OF}", re.I), tiers("CITY LOCATION COUNTRY")),
)
"""Each place cue fills the keys of the relation it states: `born in` a birthplace, `flight
to` a destination, `lives in` where the subject is now, `headquartered in` a
headquarters, `works from` a workplace, `from` where it is from (a bare city or country,
a hometown, an origin), `in` where it is (a bare city, location or country). Birth is no
residence, working from a place is not living there, `from` is no headquarters, and no
cue fills a venue or an address."""
VISIT = PLACES[3][0]
"""`now in X`, `currently in X`: where the subject is now, and where it lives only when the
clause ends at the place (`VISIT_END`): with a purpose, a span or anything else after it
(`now in Lisbon for a conference`, `currently in Rome until May`, `as a tourist`) it is a
visit, so it states nothing."""
VISIT_END = re.compile(r"\s*(?:[.!?;)\n]|\Z)|\s+and\b|\s*,(?!\s*(?:as|for|until|till|through|"
                       r"over|during|while|this|next|on)\b)", re.I)
"""What may follow the place of `now in X` for it to say where the subject lives: the end of
the clause. Anything else (`as a tourist`, `for a week`, `with friends`) may make it a visit,
so it states nothing."""
TRIP_FROM = re.compile(rf"\bto\s+{_CITY_OF}{PROPN},?\s+\Z")
"""`to Lisbon from Porto`: a `from X` after a `to Y` is where a trip or a move started, no
hometown or origin, so it states nothing."""
TRIP_OR_MOVE = re.compile(r"\b(?:flights?|flying|flies|flew|travel\w*|trips?|journey\w*|heading"
                          r"|going|bound|tickets?|moved|moving|moves|relocat\w*|emigrat\w*"
                          r"|immigrat\w*|commut\w*|driv\w*|sail\w*)\b", re.I)
"""A trip or a move anywhere in the request (`from Porto on a flight to Lisbon`, `moved to
Lisbon, Portugal, from Porto`): any `from X` in it may be where the trip or the move
started, so it states no hometown or origin, wherever it stands."""
AGENT_END = re.compile(r"\s*(?:[.!?](?=\s|\Z)|\n|\Z)")
"""The end of the sentence an agent named by `by` is in: a `;` does not end it (`by Acme
Records; established in 1980` is still the label's)."""
PRONOUN_SENTENCE = re.compile(r"(?:^|(?<=[.!?])\s+|\n\s*)(?:He|She|It|They|His|Her|Its|Their"
                              r"|He's|She's|It's|They're)\b[^.!?\n]*(?:[.!?]|\Z)")
"""A sentence opening on a pronoun. After a second person or thing was named (an agent
named by `by`), the pronoun may be that one: the sentence cannot be shown to be about the
subject, so it states nothing (`directed by Michael Mann. He is from Chicago.`)."""
_DET = r"(?:a|an|the|my|our|your|his|her|their|some|this|that)"
BENEFICIARY = re.compile(rf"\b(?i:for|about|describing|of)\s+(?i:{_DET})\s+"
                         rf"(?:[a-z][\w-]*\s+){{1,3}}(?i:for|to)\s+(?=[A-Z])")
"""`for a dog for Bruno`, `for a present for Ana`: the request's object is introduced, so the
second `for NAME` is whom it is for, not the subject; it states nothing, and every value
may be either's."""
_GREETING = r"(?i:hey|hi|hello|dear|yo|ok|okay|thanks|thank\s+you)"
ADDRESSEE = re.compile(
    rf"^\s*{_GREETING}[,\s]+[A-Z]"
    rf"|^\s*(?P<who>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s*[:,!]\s*(?i:please\s+)?"
    r"(?i:return|give|make|create|produce|output|generate|write|build|provide|send|list|show"
    r"|fill|reply|respond|emit|print)\b"
    r"|\b(?i:for)\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+(?i:with\s+(?:the\s+)?(?:keys|fields"
    r"|properties|attributes))\b.*\b(?i:for|about|describing)\s", re.S)
"""Whom the request is addressed to or for (`Bruno: return ...`, `Hey Bruno! Return ...`, `a
JSON object for Bruno with keys ... for a dog`): a second person beside the subject, so the
subject is unsure and every value may be either's."""
CHANGES = (
    re.compile(rf"\b(?i:moved\s+from)\s+(?P<old>{PROPN})\s+to\s+(?P<new>{PROPN})"),
    re.compile(rf"\b(?i:moved|relocated)\s+to\s+(?P<new>{PROPN})\s+(?i:from)\s+(?P<old>{PROPN})"),
    re.compile(rf"\b(?i:originally|formerly|previously)\s+from\s+(?P<old>{PROPN}),?\s+"
               rf"(?:but\s+)?now\s+(?:lives\s+|living\s+|based\s+)?in\s+(?P<new>{PROPN})"),
    re.compile(rf"\b(?i:used\s+to\s+live)\s+in\s+(?P<old>{PROPN}),?\s+but\s+now\s+"
               rf"(?:lives\s+|living\s+|is\s+based\s+)?in\s+(?P<new>{PROPN})"),
)
"""A move, read whole: `moved from Leeds to York`, `originally from Goa, now in Pune`, `used
to live in Madrid but now lives in Seville`, `relocated to York from Leeds`. The new place is
where the subject lives now (never a hometown or birthplace); the old one is accounted for
as a former place."""
RELATIONS = "(?:" + "|".join(sorted(RELATION_NOUNS, key=len, reverse=True)) + ")"
RELATIVE = re.compile(
    rf"(?:^|(?<=[.!?;])\s+)(?:Her|His|Their|My|Our)\s+(?:(?:older|younger|elder|little|big"
    rf"|twin|only)\s+)?{RELATIONS}(?:,?\s+{PROPN},?)?\s+(?:is|who\s+is)\s+"
    rf"(?:\d{{1,3}}(?:\s+years\s+old)?|from\s+{PROPN}|(?:based|living)\s+in\s+{PROPN}"
    rf"|an?\s+[a-z]+|named\s+{PROPN}|called\s+{PROPN})"
    rf"|(?:^|(?<=[.!?;])\s+)(?:Her|His|Their|My|Our)\s+{RELATIONS}(?:,?\s+{PROPN},?)?"
    rf"\s+lives\s+in\s+{PROPN}"
)
"""A sentence about a relative (`Her daughter is 12.`, `His father Tomas lives in Cork.`):
its values are the relative's, so none is read, and the sentence is accounted for."""
SENTENCE_END = re.compile(r"\s*(?:[.!?;]|$)")
LANGUAGE_LEAD = re.compile(r"\b(?:written|coded|programmed|implemented|built)\s+\Z", re.I)
AS_ROLE = re.compile(r"(?<!was )(?<!were )(?<!had been )\b(?:works|working)\s+as\s+\Z", re.I)
"""`works as a nurse` states the current job; `worked as`, `has worked as`, `was working as`
a former one, so they fill no job key."""


@lru_cache(maxsize=1)
def occupations() -> frozenset[str]:
    """The closed list of job nouns (`occupations.txt`) that `works as a N` fills a job key
    with: `works as a team` or `as a whole` says how, not what job."""
    text = resources.files("stepchat.core.tasks").joinpath("occupations.txt").read_text("utf-8")
    return frozenset(line.strip() for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


BY = (
    (re.compile(r"\bdirected\s+by\s+", re.I), tiers("DIRECTOR")),
    (re.compile(r"\b(?:written|authored)\s+by\s+", re.I), tiers("AUTHOR")),
    (re.compile(r"\b(?:made|manufactured|built|produced)\s+by\s+", re.I), tiers("BRAND")),
    (re.compile(r"\b(?:sung|performed|recorded)\s+by\s+", re.I), tiers("ARTIST")),
    (re.compile(r"\bby\s+", re.I), tiers("AUTHOR DIRECTOR ARTIST BRAND")),
)
LISTS = (
    (re.compile(r"\btagged\s+(?:as\s+|with\s+)?", re.I), tiers("TAGS")),
    (re.compile(r"\bskilled\s+in\s+", re.I), tiers("SKILLS")),
    (re.compile(r"\bspeaks\s+", re.I), tiers("LANGUAGE")),
)

OTHER_ONE = NOT_DESCRIBING | word_set(
    "other another different same younger older elder second real true two")
"""Words before a name that make it another person or several (`the other Bruno`, `the
younger Bruno`, `both Brunos`)."""
FIRMS = ("Bros|Brothers|Books|Press|Records|Pictures|Studios?|Films|Media|Group|Inc|Ltd|LLC"
          "|Co|Corp|Company|Publishing|Publishers|Entertainment|Music|Games|Labs|Productions")
PERSON = re.compile(rf"(?:[{UPPER}][\w'’.\-]*[ \t]+(?:(?:du|de|da|di|van|von|der|den|del|la"
                     rf"|le|ten|bin|al)[ \t]+)?){{1,2}}(?!(?:{FIRMS})\b)[{UPPER}][\w'’\-]+")
"""A bare `by X` names a person (an author, a director, an artist) only as a first and last
name (`by Jane Austen`, `by J.R.R. Tolkien`), never one word (`by Penguin`, `by Netflix`)
nor a firm's name (`by Warner Bros`): those are a maker, a brand."""
TEXT_KINDS = frozenset({OWN_NAME, "CITY", "COUNTRY", "HOMETOWN", "RESIDENCE", "LOCATION"})
NUMBER_KINDS = frozenset({"AGE", "YEAR", "PRICE", "RATING", "SALARY", "WEIGHT",
                           "TEMPERATURE", "SERVINGS"})


def kind_fits(value: Value, key: str) -> bool:
    """Whether a key's name says it takes such a value: a name or a place for text, an age,
    a year, a price ... for a number."""
    kinds = key_classes(key)
    return bool(kinds & (NUMBER_KINDS if value.kind == "number" else TEXT_KINDS))


WORK_AFTER = re.compile(r"\s*\(\d{4}\)|,?\s+(?:by|directed\s+by|written\s+by)\s+[A-Z]")
"""What makes a bare name a work's title: its year in brackets or its maker right after it."""
