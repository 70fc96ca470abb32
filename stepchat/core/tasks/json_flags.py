"""What a JSON request says in words rather than values: true/false, types, open keys.

"in stock", "not an admin", "without a garden", "inactive" state booleans; "year as an
integer" states a type; "a short description" or "a fictional person" leaves a key to the
model, so whatever it writes there is right by construction.
"""

from __future__ import annotations

import re

from stepchat.core.tasks.json_assign import snake
from stepchat.core.tasks.json_types import TYPE_PHRASE, read_type
from stepchat.core.tasks.json_words import EMAIL, overlaps, quote_insides

_NEGATORS = re.compile(
    r"\b(?:not|never|no|isn't|aren't|wasn't|doesn't|don't|didn't|no\s+longer|non|without)\b"
    r"(?:\W+\w+){0,2}\W*$",
    re.I,
)
_TIGHT_NEGATION = re.compile(
    r"\b(?:(?:does|do|is|are)\s+not|not|never|no|isn't|aren't|doesn't|don't|no\s+longer"
    r"|without)\s+"
    r"(?:(?:a|an|the|currently|yet|work|works)\s+)?\Z"
    r"|\b(?:works|work)\s+\Z",
    re.I,
)
"""The negations read as saying a flag is off (`not an admin`, `isn't currently open`): the
negation right before the word. Any other wording around a negation (`not only an admin`,
`wasn't`) is not accounted for, so the flag is not called stated."""
_ANTONYMS = {
    "open": ("closed", "shut"),
    "married": ("single", "unmarried", "divorced"),
    "delayed": ("on time", "on-time", "punctual"),
    "available": ("unavailable", "sold out"),
    "active": ("inactive", "disabled"),
    "enabled": ("disabled",),
    "online": ("offline",),
    "public": ("private",),
    "private": ("public",),
    "visible": ("hidden", "invisible"),
    "remote": ("on-site", "onsite", "in the office", "in office"),
    "in stock": ("out of stock", "sold out"),
    "verified": ("unverified",),
    "paid": ("unpaid",),
    "completed": ("incomplete", "unfinished"),
}
_SYNONYMS = {"admin": ("admin", "administrator"), "remote": ("remote", "remotely")}
_OPEN_NAMES = re.compile(
    r"^(?:description|summary|bio|biography|about|notes?|comments?|tagline|slogan|motto"
    r"|greeting|message|quote|excerpt|review|blurb|caption|story|joke|poem|advice|tips?"
    r"|overview|intro|introduction|remarks|fun_fact|short_description|\w+_description)$"
)
_OPEN_WORDS = re.compile(
    r"\b(?:fictional|fictitious|made[- ]up|make\s+up|invent(?:ed)?|imaginary|random|dummy"
    r"|fake|placeholder|hypothetical|an?\s+(?:sample|example)"
    r"|(?:sample|example|test|mock)\s+(?:data|values?|record|object|person|user|entry))\b",
    re.I,
)
_MADE_UP_THING = re.compile(
    r"\s+(?:[a-z]+\s+)?(?:person|persons|people|user|users|customer|company|product|data"
    r"|values?|record|entry|entries|object|character|name|names|book|film|movie|city|pet"
    r"|employee|profile|account)\b",
    re.I,
)
"""What a made-up thing is (`a fictional person`, `sample data`): without one, `fake` or `an
example` qualifies a value (`Bruno (fake)`, `40, just an example`) and is not accounted for."""
_OPEN_NOTES = r"(?:a\s+)?(?:short|brief|one-line|one\s+line|catchy|funny|few\s+words" \
              r"|free(?:\s+|-)?text|your\s+choice|made[- ]up|invented)"
_ANY = r"any(?=\s*(?:[,;.)]|$))"
"""`city: any`, `city (any)`: the key is left open; `any capital letters` leaves nothing."""


def is_open_note(text: str) -> bool:
    """Whether a bracket beside a key says only that the key is left open (`hobby (your
    choice)`, `city (any)`): a closed form, so the key list it sits in stays sure."""
    return re.fullmatch(rf"\s*(?:{_OPEN_NOTES}|{_ANY})\s*", text, re.I) is not None
_WRITING = (r"(?:(?:a|an|one|two|three|the|some)\s+)?(?:(?:short|brief|long|detailed|catchy"
            r"|funny|simple|single|one-line|one-sentence|few)\s+){0,2}"
            r"(?:sentences?|description|summary|line|paragraph|phrase|text|blurb|note|words?"
            r"|tagline|slogan)\b"
            r"(?:\s+(?:of|about|on|describing)\s+(?:him|her|them|it|this|that)\b)?")
"""What to write in a key, said in words: `a short description of him`, `one sentence about
her`, `a few words`. The key is left to the model."""


def _spoken(key: str) -> str:
    forms = {key, key.replace("_", " "), snake(key).replace("_", " ")}
    return "|".join(re.escape(f).replace(r"\ ", r"[ _]") for f in sorted(forms))


def _boolean_words(key: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """Words that say the flag is on, words that say it is off, and whether it is `has_`."""
    low = snake(key)
    if low == "in_stock":
        return ("in stock",), _ANTONYMS["in stock"], False
    has = low.startswith("has_")
    stem = re.sub(r"^(?:is|has|can|was)_", "", low).replace("_", " ")
    return _SYNONYMS.get(stem, (stem,)), _ANTONYMS.get(stem, ()), has


_STATE_NOUN = re.compile(
    r"[ \t]+(?:user|account|address|member|person|customer|client|rights|access"
    r"|privileges|product|item)\b"
)
"""`a verified user`, `admin rights`: the noun the flag's word describes."""


def _statement(text: str, start: int, end: int) -> tuple[int, int]:
    """The words that say a flag's state: the word itself, a negation right before it
    (`not an admin`, `does not work remotely`), and the noun it describes."""
    tight = _TIGHT_NEGATION.search(text, max(0, start - 40), start)
    noun = _STATE_NOUN.match(text, end)
    return (tight.start() if tight else start, noun.end() if noun else end)


def flag_words(key: str) -> tuple[str, ...]:
    """The words that say a boolean key's state, either way (`admin`, `closed`)."""
    on_words, off_words, _ = _boolean_words(key)
    return tuple(w for w in (*on_words, *off_words) if w)


def read_boolean(text: str, key: str,
                 blocked: list[tuple[int, int]]) -> tuple[bool | None, list[tuple[int, int]]]:
    """True or false when the prompt says so in words (None when it does not or says both),
    and the spans of the statements read."""
    on_words, off_words, has = _boolean_words(key)
    if not on_words[0]:
        return None, []
    said: set[bool] = set()
    spans: list[tuple[int, int]] = []
    stems = "|".join(re.escape(w) for w in on_words)
    if has:
        for m in re.finditer(rf"\b(?P<v>has|have|with|includes?|no|without|lacks?)\s+"
                             rf"(?:an?\s+|the\s+|\d+\s+)?(?:{stems})s?\b", text, re.I):
            if not overlaps(m.span(), blocked):
                said.add(m.group("v").lower() not in ("no", "without", "lack", "lacks"))
                spans.append(m.span())
        return (said.pop() if len(said) == 1 else None), spans
    blocked = blocked + quote_insides(text)
    for m in re.finditer(rf"(?<![\w\-])(?P<pre>un|in|non-?|dis)?(?:{stems})s?(?![\w\-])", text,
                         re.I):
        if overlaps(m.span(), blocked) or not _in_flag_place(text, m.start()):
            continue
        negator = bool(_NEGATORS.search(_clause_before(text, m.start())))
        said.add(not (bool(m.group("pre")) ^ negator))
        # `not a non-admin`: a negated negative is not accounted for (its negation is left)
        spans.append(_statement(text, *m.span()) if not m.group("pre") else m.span())
    for word in off_words:
        for m in re.finditer(rf"(?<![\w\-]){re.escape(word)}(?![\w\-])", text, re.I):
            if not overlaps(m.span(), blocked) and _in_flag_place(text, m.start()):
                said.add(bool(_NEGATORS.search(_clause_before(text, m.start()))))
                spans.append(_statement(text, *m.span()))
    return (said.pop() if len(said) == 1 else None), spans


_FLAG_PLACE = re.compile(
    r"(?:^|[,;:.(]|\b(?:is|are|was|currently|who|which|that|and|not|n't|an?|has|have|with"
    r"|works|work|does|do))\s*\Z", re.I)
_ARTICLE_PLACE = re.compile(r"(?:^|[,;:.(]|\b(?:is|are|not|currently))\s*(?:an?)\s*\Z", re.I)


def _in_flag_place(text: str, start: int) -> bool:
    """Whether a flag's word stands where a closed list of forms says a state: after `is`,
    `who`, `currently`, `not`, a comma, `a`/`an` after one of those (`Bruno, an admin`), or
    as an adverb (`remotely`). Not after a name or title's words (`named admin`, `the user
    admin`, `Bob the admin`) nor after a modifier (`a would-be admin`, `a one-time admin`)."""
    if re.match(r"\w+ly\b", text[start:]):
        return True
    head = text[max(0, start - 40):start]
    if re.search(r"\ban?\s*\Z", head, re.I):
        return _ARTICLE_PLACE.search(head) is not None
    return _FLAG_PLACE.search(head) is not None


def _clause_before(text: str, pos: int) -> str:
    head = text[:pos]
    cut = max(head.rfind(c) for c in ",;.:(")
    return head[cut + 1 :]


def stated_types(text: str, keys: list[str], blocked: list[tuple[int, int]],
                 spans: list[tuple[int, int]] | None = None) -> dict[str, str]:
    """`year as an integer`, `tags should be a list of strings`, `price (a number)`; the
    spans read are added to `spans`."""
    found: dict[str, str] = {}
    for key in keys:
        pattern = (rf"(?<![\w\-])(?:{_spoken(key)})(?![\w\-])\s*(?:\(\s*|,\s*)?"
                   rf"(?:as|should\s+be|must\s+be|is|being|of\s+type|:)?\s*"
                   rf"(?P<t>(?:an?\s+)?{TYPE_PHRASE})\b")
        for m in re.finditer(pattern, text, re.I):
            if overlaps(m.span(), blocked):
                continue
            declared = read_type(m.group("t"))
            if declared:
                found[key] = declared
                if spans is not None:
                    spans.append(m.span())
    return found


def open_keys(text: str, keys: list[str], stated: set[str],
              spans: list[tuple[int, int]] | None = None) -> list[str]:
    """Keys the prompt leaves to the model: descriptions, or anything about a made-up thing.
    The instructions read (`with a short description`) are added to `spans`."""
    plain = EMAIL.sub(" ", text)
    made_up = _OPEN_WORDS.search(plain)
    if made_up is not None and _NEGATORS.search(_clause_before(plain, made_up.start())):
        made_up = None  # `No dummy data.`, `Do not use fake data.`: nothing is left open
    everything = made_up is not None
    if made_up is not None and spans is not None and (
        _MADE_UP_THING.search(made_up.group(0)) or _MADE_UP_THING.match(plain, made_up.end())
    ):
        spans.append(made_up.span())  # `a fictional person`; a lone `(fake)` stays unread
    out: list[str] = []
    for key in keys:
        if key in stated:
            continue
        described = re.search(
            rf"(?:{_OPEN_NOTES})\s+(?:{_spoken(key)})\b|(?<![\w\-])(?:{_spoken(key)})\s*"
            rf"(?:(?:\(|:|=|-|—|\bis|\bshould\s+be|\bmust\s+be)\s*{_WRITING}"
            rf"|\(\s*(?:{_OPEN_NOTES}|{_ANY})|:\s*(?:{_OPEN_NOTES}|{_ANY}))",
            plain,
            re.I,
        )
        if everything or described or _OPEN_NAMES.match(snake(key)):
            out.append(key)
        if described is not None and spans is not None:
            spans.append(described.span())
    return out
