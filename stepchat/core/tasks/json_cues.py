"""Finding the values a JSON request states, the ways people state them.

Readers run strongest first and each claims the text it reads, so a later, weaker reader
never re-reads a claimed value: the key named beside a value ("city: Lisbon", "with the
email e"), values listed in key order ("name, age and city: Sven, 50, Bergen"), cue words
("named Carol", "aged 40", "from Lisbon", "(1995)", "tagged a and b", "$19.99", "120 stars"),
the request's subject ("for Bruno, ..."), and last any bare name or number. Nothing is read
from the key list itself, nor from denied or past context ("not Ana", "originally from Goa"),
nor from a sentence about a relative ("Her daughter is 12."). Each reading records the whole
construction it came from, so `json_account` can tell what the prompt says that no reading
accounts for; the constructions themselves are listed in `json_constructions`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from stepchat.core.tasks.json_account import NUMBER_WORDS, REQUEST_WORDS
from stepchat.core.tasks.json_assign import (
    ANY,
    BARE,
    BOUND,
    CUED,
    HINT,
    OWN_NAME,
    PLACE_FIRST,
    Candidate,
    key_classes,
    matches_noun,
    snake,
    tiers,
)
from stepchat.core.tasks.json_constructions import (
    ADDRESSEE,
    AGENT_END,
    AS_ROLE,
    BENEFICIARY,
    BY,
    CHANGES,
    COMPILED_UNITS,
    LANGUAGE_LEAD,
    LISTS,
    NAMED,
    OTHER_ONE,
    PERSON,
    PLACES,
    PRONOUN_SENTENCE,
    RELATIVE,
    SENTENCE_END,
    TRIP_FROM,
    TRIP_OR_MOVE,
    VISIT,
    VISIT_END,
    WHERE_NOW,
    WORK_AFTER,
    kind_fits,
    occupations,
)
from stepchat.core.tasks.json_places import of_kind, place_kind
from stepchat.core.tasks.json_types import KNOWN_TYPE_PHRASE, TYPE_PHRASE
from stepchat.core.tasks.json_words import (
    CASELESS,
    COMPOUND,
    DATE,
    EMAIL,
    LANGUAGES,
    LEAVES_OPEN,
    NOT_DESCRIBING,
    NOT_VALUES,
    NUMBER,
    PROPN,
    TIMES,
    UNDERMINING,
    UPPER,
    Value,
    ambiguous_number,
    bool_word_at,
    inside,
    list_at,
    lone_word,
    number_at,
    number_value,
    number_words_at,
    overlaps,
    propn_at,
    quote_insides,
    quoted_at,
    says_nothing,
    scalar_at,
    void_spans,
    word_set,
)

_KEY_LEAD = re.compile(r"(?:\b(?:with|whose|where|use)\s+)?(?:\b(?:the|a|an)\s+)?\Z", re.I)
"""Words before a key named beside its value (`with the email e`, `whose color is teal`,
`Use name: Grace`): part of that construction. A possessive is not (`my email is e`, `her
age is 12`, `its age is 12`): the value is someone else's, or may be; only the subject's
own name before the key is read (`Bruno's age is 40`, see `Reader.explicit`)."""
_OWNER_LEAD = re.compile(rf"(?:\b(?P<my>[Mm]y)|(?P<owner>{PROPN})['’]s)[ \t]+\Z")
"""`my email is e`, `Bruno's age is 40`: a value stated as the speaker's or as someone's,
read only when that is whom the request is about (see `json_spec.whose`)."""
_QUALIFIER = re.compile(r"(?P<q>[^\W\d_][\w'’\-]*)[ \t]+\Z")
"""The word right before a key named beside its value (after its lead and owner words)."""
_KEY_OPENERS = frozenset({"with", "whose", "where", "use", "the", "a", "an", "my", "and",
                          "or", "its", "his", "her", "their", "our", "your", "for", "of",
                          "to", "in", "on", "at", "by", "as", "is", "are", "has", "have"})
"""Words that may stand right before a key without qualifying it: the lead and owner words
(`with the email e`, `my email is e`; a possessive other than `my` is read as someone else's
elsewhere, and declines), a joiner (`name Bo and age 40`) and a preposition or a verb
that opens a phrase (`for flight LH400`, `for level: hard`, `has role editor`). Any other
word qualifies the key (`my middle name is Eva`, `the retirement age is 65`, `my dog name
is Rex`, `Nearest city: Lisbon`): the value is another attribute's or another owner's."""
_PERSON_BEFORE_IS = frozenset({"who", "he", "she"})
"""The lower-case words after which `is 40` is an age: a pronoun for a person."""
_OPENS = re.compile(r"(?:\A|[.;:!?\n])\s*\Z")
"""Where a sentence or a line opens."""
_SPEAKER_AGE = re.compile(r"\bI(?:[ \t]+am|['’]m)[ \t]+(?P<n>\d{1,3})(?=\s*(?:[,;.)]|$|and\b))")
"""`I am 30`: the speaker's age, read like `my age is 30`."""
_SAID_CITY = re.compile(r"[ \t]*\((?:the\s+)?city\)", re.I)
_CITY_OF = re.compile(r"\bthe\s+city\s+of\s+\Z", re.I)
"""`Bruno from Springfield (city)`, `in the city of Springfield`: the prompt says it is a
city, whatever the city list holds."""
_CALLING = re.compile(r"\b(?:who|which|that|he|she|they|i|we|you|it|has|have|had|and|then"
                      r"|never|once|just|to|will|would|can|could|did)[ \t]+\Z", re.I)
"""`the man who called Ana`, `the person who named Bruno`: a verb of calling or naming
someone, not the subject's name."""
_EMAIL_LEAD = re.compile(r"\b(?:(?:reachable|contactable)\s+)?at\s+\Z|<\Z", re.I)
_LINK = re.compile(
    rf"(?:\s*\(\s*(?:of\s+type\s+|as\s+)?(?:an?\s+)?{KNOWN_TYPE_PHRASE}\s*\))?"
    r"(?P<link>\s*(?:[:=]|->|→)|\s+(?:is|are|equals?|should\s+be"
    r"|must\s+be|set\s+to|of)(?=\s))?\s*",
    re.I,
)
"""What may stand between a key and its value: a type in parentheses (`age (integer): 40`,
read by `json_flags.stated_types`), then a link word or mark. The parenthetical is passed
over only when every word in it is read as part of a type (`KNOWN_TYPE_PHRASE`: `(integer)`,
`(as a number)`, `(of type string)`, `(list of strings)`); `(list of dogs)`, `(array of
puppies)`, `(as a dog)` are not types. Nothing else is passed over: a parenthetical that says
anything other than a type (`age (of the dog) 4`, `price (refill) 2`, `city (company) Lyon`,
`age (list of dogs) 4`), in any brackets, and any other words between the key and its
value (`age, the dog's, 4`, `age - of the dog - 4`) are not part of the key's construction,
so no value is read there and those words are left over: every value declines."""
MAX_CANDIDATES = 200
"""Values read from one prompt; past this the rest stays unread and its keys unchecked."""

_TYPE_WORDS = re.compile(rf"(?:an?\s+)?{TYPE_PHRASE}\b", re.I)
_PHRASE = re.compile(r"(?P<article>(?:a|an|the|one|some)\s+)?"
                     r"(?P<p>[a-z][\w'\-]*(?:[ \t][a-z][\w'\-]*){0,3}?)"
                     r"(?=\s*(?:[,;.)]|$|\s(?:and|with|for|but)\b))")
INSTRUCTION_WORDS = {"short", "brief", "long", "detailed", "catchy", "funny", "few", "one",
                     "two", "three", "single", "quick", "simple", "any", "random", "made-up"}
"""Words that open a description of what to write (`a short sentence`), never a value."""
_TITLE_NOUNS = {"film", "movie", "book", "novel", "song", "album", "show", "series", "game",
                "play", "poem", "article", "paper", "painting", "opera", "podcast", "essay",
                "post"}
_GENERIC_NOUNS = {"person", "people", "user", "account", "thing", "item", "object", "json",
                  "record", "entry", "one", "man", "woman", "guy", "someone", "value", "list",
                  "string", "number", "key", "field", "pet", "animal", "baby", "kid", "child",
                  "boy", "girl", "lady", "gentleman", "member", "customer", "client", "new",
                  "good", "short", "long", "few", "lot", "bit", "city", "country", "company"}
_NOT_ID_NOUNS = NOT_VALUES | {"aged", "has", "have", "had", "under", "over", "than", "top",
                              "about", "around", "nearly", "almost", "only", "at", "to", "by",
                              "of", "is", "was", "costs", "earns", "serves", "rated", "weighs",
                              "weighing", "priced", "page", "step", "line", "lines", "words"}

_CAPITAL = f"[{UPPER}{CASELESS}]"
_LEFTOVER_START = re.compile(rf"(?<![\w'’\-.@])(?=[\"'“‘\d-]|{_CAPITAL})")
_HANDLE_NOUNS = {"user", "account", "handle", "username", "login", "server", "host", "repo",
                 "repository", "package", "channel", "team", "project", "bot"}
_USER_NOUNS = {"user", "account", "handle", "login", "username"}
"""Nouns whose name is a username (`a user called jdoe`, `the account bob42`); a repository's
or a server's name is not."""
_THE_NOUN = re.compile(r"\b(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?P<noun>[a-z]+)\s+"
                       rf"(?=[\"'“‘]|{_CAPITAL}|[a-z][\w\-]*[\d_\-]"
                       r"|[a-z]+(?=\s*[,;.)]|\s+(?:who|which|that|with)\b))")
_NOUN_ATTR = re.compile(
    r"(?:^|,\s*|\b(?:is|as|was|for|of)\s+|\bthe\s+)(?P<article>an?)\s+"
    rf"(?:(?:\d+-year-old|{COMPOUND})\s+)?"
    r"(?P<noun>[a-z]+)(?=\s*(?:[,;.]|$|\s(?:from|in|named|called|who|that|with|based"
    r"|living)\b))"
)
_SUBJECT = re.compile(
    r"(?:\b[Ff]or|\b[Dd]escribing|(?<=[a-z] )of)\s+(?:(?:the|a|an|this|our|my)\s+)?"
    rf"(?:(?P<head>[a-z]+)\s+)?(?:(?:\d+-year-old|\d{{4}}|{COMPOUND})\s+)?"
    rf"(?=[\"'“‘]|{_CAPITAL}|[a-z][\w\-]*[\d_\-])"
)
_STARTER = re.compile(r"(?:^|(?<!\b[A-Z])(?<!\bMr)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\bMrs)"
                      rf"(?<!\bProf)[.;!?]\s+)(?=[{UPPER}{CASELESS}\"'“])")
_AFTER_COLON = re.compile(rf":\s+(?=[{UPPER}{CASELESS}\"'“])")
_CLAUSE = re.compile(r"(?:^|(?<=[.;:!?])\s+|(?<=:))((?:[^.;:!?]|\.(?=\d))+)")
_LEAD = re.compile(r"^\s*(?:(?:for|about|of)\s+)?(?:(?:the|a|an)\s+)?", re.I)
_SEP = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
_CAPITAL_BY_PLACE = re.compile(rf"[{UPPER}][\w'’\-]*[ \t]+[{UPPER}]")
"""Two capitalised words opening a sentence: the first one's capital may be the sentence's,
not a name's (`Contact Tom, 60.`, `Like Tom, 60.`), so no name is read there; one word
(`Ana is 31.`) is read."""
_NO_VALUE = LEAVES_OPEN | UNDERMINING | word_set(
    """mine yours hers ours theirs first invented dummy surprise required lowercase
    uppercase capitalized capitalised quoted unquoted""")
"""Words that are no value in any case (`keys name and age: blank, 31`, `Random, 31`): they
leave the value open, hedge it or place it in time, say how to write it, or stand for
someone's. Another word (`keys name and age: lamp, 31`) is the value as written."""
_NO_BARE_VALUE = _NO_VALUE | NOT_DESCRIBING
"""... and, in lower case, words that only qualify (`below`, `both`): capitalised, some of
them are given names (Will, May)."""
_APPOSED = re.compile(rf",[ \t]*(?P<n>{NUMBER})(?=[ \t]*(?:[,;.)]|$))"
                      rf"|[ \t]*\((?P<p>{NUMBER})\)")
_ATTRIBUTIVE = re.compile(r"[ \t]+(?!(?:and|or|of|with|from|in|who|which|that|whose|for|to|is|was"
                          r"|has|by|at|on|as|but|lives|works|now|also|came|earns|speaks"
                          r"|based|located|living|born|directed|written|released|published"
                          r"|rated|priced|costs|serves|weighs|reachable)\b|[a-z]+ly(?=\s*(?:[,.;)]|$)))[a-z]")


_NOT_ADDRESSEES = frozenset({"task", "request", "instructions", "instruction", "note", "prompt",
                             "format", "input", "example", "goal", "query", "question", "hint",
                             "system", "user", "assistant", "data", "context", "rules", "now",
                             "ok", "okay", "important", "reminder", "output", "schema"})
"""Words before `: return ...` that open an instruction, not a name."""
_WORK_EVENTS = frozenset({"RELEASE", "PUBLICATION"})
"""Events only a work has: `released in`, `published in` after its maker are the work's."""


def _without(groups: tuple[frozenset[str], ...], cls: str) -> tuple[frozenset[str], ...]:
    return tuple(g - {cls} for g in groups if g - {cls})


class Reader:
    """Collects candidates from one prompt; see `read` for the order."""

    def __init__(self, text: str, keys: list[str], types: dict[str, str],
                 blocked: list[tuple[int, int]]) -> None:
        self.text = text
        self.keys = keys
        self.types = types
        self.taken = list(blocked)
        self.keylists = list(blocked)
        self.voids = void_spans(text)
        self.quotes = quote_insides(text)
        self.crowded: list[tuple[int, int]] = []
        """Names said with a word that makes them someone else or more than one (`the other
        Bruno`, `both Brunos`): every value is declined."""
        self.explained: list[tuple[int, int]] = []
        """Spans read as being about something else than the request (a relative)."""
        self.agents = self._agents()
        self.others = self._others()
        """Sentences opening on a pronoun after an agent was named: every value in them is
        the other one's."""
        self.crowded += self._second_persons()
        self.trip = TRIP_OR_MOVE.search(text) is not None
        self.found: list[Candidate] = []
        self.typed = {k for k in keys if types[k] != "string"}
        self.names = {k.lower() for k in keys} | {snake(k).replace("_", " ") for k in keys}

    # ------------------------------------------------------------------ bookkeeping

    def free(self, start: int, end: int) -> bool:
        return not overlaps((start, end), self.taken)

    def add(self, value: Value, strength: int, *, key: str | None = None,
            groups: tuple[frozenset[str], ...] = (), cue: int | None = None,
            until: int | None = None, role: str = "") -> bool:
        """Record a reading. `cue`..`until` is the whole construction it was read from (`aged
        40`, `(1995)`, `city: Lisbon`): what the prompt says there is accounted for by it."""
        span = (value.start, value.end)
        if value.kind == "quoted" and says_nothing(str(value.value)):
            return False  # `name "whatever"`, `"<name>"`: its words are left over
        if value.kind != "quoted" and inside(span, self.quotes):
            return False  # `the book "Write to me at a@b.org"`: no email is stated
        start = value.start if cue is None else min(cue, value.start)
        end = value.end if until is None else max(until, value.end)
        if key is None and groups and not role and strength == CUED and not any(
                g & _WORK_EVENTS for g in groups):
            role = next((f"owner:{who}" for a, b, who in self.agents if a <= start < b), "")
        if key is None and groups and not role and strength == CUED:
            role = next((f"owner:{who}" for a, b, who in self.others if a <= start < b), "")
        same = next((c for c in self.found if c.span == span), None)
        if same is not None and same.tiers == groups and same.key == key:
            # `costs $5`: a second construction reading the same value the same way
            old = same.construction
            same.cover = (min(old[0], start), max(old[1], end))
            return False
        if len(self.taken) >= MAX_CANDIDATES or not self.free(*span):
            return False
        self.taken.append(span)
        if inside(span, self.voids):
            return True
        self.found.append(Candidate(value.value, value.raw, span, value.kind, strength, key,
                                    groups, (start, end), role))
        return True

    def _agents(self) -> list[tuple[int, int, str]]:
        """`the film Heat, by Acme, founded in 1990`, `by Pablo Picasso (1881)`, `directed by
        Christopher Nolan, from London`: a cue after an agent named by `by` (any `BY`
        construction), up to the end of its clause, may describe the agent, not the
        subject, so it is read as the agent's (whose values fill no key of the subject's).
        A work's own event (`directed by Ridley Scott, released in 1979`) is the subject's."""
        spans: list[tuple[int, int, str]] = []
        for pattern, _ in BY:
            for m in pattern.finditer(self.text):
                who = propn_at(self.text, m.end())
                if who is None or who.start != m.end():
                    continue
                end = AGENT_END.search(self.text, who.end)
                spans.append((who.end, end.start() if end else len(self.text), who.raw))
        return spans

    def _others(self) -> list[tuple[int, int, str]]:
        """`directed by Michael Mann. He is from Chicago.`: once an agent was named, a sentence
        opening on a pronoun may be about the agent; it cannot be shown to be the subject's,
        so its values are the agent's (a work's own events too)."""
        if not self.agents:
            return []
        first = min(a for a, _, _ in self.agents)
        who = self.agents[0][2]
        return [(m.start(), m.end(), who) for m in PRONOUN_SENTENCE.finditer(self.text)
                if m.start() >= first]

    def _second_persons(self) -> list[tuple[int, int]]:
        """`for a dog for Bruno` (whom the object is for), `Bruno: return ...`, `Hey Bruno!
        Return ...`, `for Bruno with keys ... for a dog` (whom the request is addressed to or
        for): a second person beside the subject, so every value is declined."""
        spans = [m.span() for m in BENEFICIARY.finditer(self.text)]
        for m in ADDRESSEE.finditer(self.text):
            who = m.group("who")
            if who and who.split()[0].lower() in REQUEST_WORDS | _NOT_ADDRESSEES:
                continue  # `JSON: return ...`, `Task: return ...`
            spans.append(m.span())
        return spans

    def attributive(self, value: Value) -> bool:
        """`Qantas flight`, `UK office`: a name that qualifies the next noun is no value."""
        return value.kind == "possessive" or bool(_ATTRIBUTIVE.match(self.text, value.end))

    # ------------------------------------------------------------------ readers

    def read(self) -> list[Candidate]:
        self.relatives()
        self.explicit()
        self.positional()
        self.listed()
        self.named()
        self.speaker()
        self.numbers()
        self.changes()
        self.places()
        self.by()
        self.emails_and_dates()
        self.count_nouns()
        self.the_noun()
        self.noun_attributes()
        self.subjects()
        self.appositions()
        self.leftovers()
        return self.found

    def relatives(self) -> None:
        for m in RELATIVE.finditer(self.text):
            if SENTENCE_END.match(self.text, m.end()) and self.free(*m.span()):
                self.taken.append(m.span())
                self.explained.append(m.span())

    def explicit(self) -> None:
        """`city: Lisbon`, `age is 40`, `name Quinn`, `with the email e`, `is_admin: false`."""
        for key in self.keys:
            spoken = {key, key.replace("_", " "), snake(key).replace("_", " ")}
            words = "|".join(re.escape(s).replace(r"\ ", r"[ _]") for s in sorted(spoken))
            kind = self.types[key]
            for m in re.finditer(rf"(?<![\w\-])(?:{words})(?![\w\-])", self.text, re.I):
                if not self.free(*m.span()):
                    continue
                link = _LINK.match(self.text, m.end())
                assert link is not None
                at = link.end()
                if _TYPE_WORDS.match(self.text, at):
                    continue
                value = self._explicit_value(at, kind, link.group("link"))
                lead = _KEY_LEAD.search(self.text, max(0, m.start() - 24), m.start())
                cue = lead.start() if lead else m.start()
                qualifier = self._qualifier(m.start()) if value is not None else None
                if qualifier is not None:  # the answer names the qualifier as what declined
                    self.crowded.append(qualifier)
                    continue
                owner = _OWNER_LEAD.search(self.text, max(0, cue - 80), cue)
                role = "" if owner is None else "speaker" if owner.group("my") else \
                    f"owner:{owner.group('owner')}"
                if value is not None and self.add(value, BOUND, key=key, role=role,
                                                  cue=owner.start() if owner else cue):
                    self.taken.append(m.span())

    def _qualifier(self, key_at: int) -> tuple[int, int] | None:
        """The span of a word that qualifies the key named at `key_at`, or None (see
        `_KEY_OPENERS`): a word between its article or owner and the key word (`the
        retirement age`, `my middle name`), or opening the sentence before it (`Middle
        name: Eva`). Such a key is another attribute
        than the one asked for, so every value is declined (see `crowded`). A name before
        the key inside a sentence (`for Bruno age 40`) and a possessive (`Bruno's age`, read
        by `_OWNER_LEAD`) say whose the key is, not which."""
        q = _QUALIFIER.search(self.text, max(0, key_at - 40), key_at)
        if q is None or q.group("q").lower() in _KEY_OPENERS or \
                re.search(r"['’]s\Z", q.group("q")):
            return None
        if q.group("q")[:1].islower() or _OPENS.search(self.text, 0, q.start()) is not None:
            return q.span("q")
        return None

    def _explicit_value(self, at: int, kind: str, link: str | None) -> Value | None:
        """The value right after a key named beside it, read only when it parses as the
        key's type: a list, a number (digits or words: `thirty-one`), a boolean word of the
        closed table (`sí`, `nein`), or text that is one token or a quoted span ending its
        clause. Anything else (`city up to you`, `bio is a short sentence`) is not a value."""
        if kind.startswith("array"):
            return list_at(self.text, at)
        if link and link.strip().lower() == "of":
            return number_at(self.text, at)
        if kind == "boolean":
            return bool_word_at(self.text, at)
        value = scalar_at(self.text, at, words=True, bools=bool(link))
        if kind in ("integer", "number"):
            if value is not None and value.kind == "number":
                return value
            return number_words_at(self.text, at)
        if value is None or (value.kind == "word" and not lone_word(self.text, value)):
            return None
        if value.kind == "bool" and (kind != "string" or not link):
            return None
        if value.kind == "bool" and value.raw.lower() in ("yes", "no"):
            return Value(value.raw, value.raw, value.start, value.end, "word")
        return value

    def positional(self) -> None:
        """A clause of bare values, as many as the keys, each fitting its key in order. Right
        after the key list and a colon (`keys name, age and city: Sven, 50, Bergen`) the
        request binds them by position; anywhere else (`Ida, 22, Vienna.`, `For Tim, 45.`)
        each key's name must also say it takes such a value (`kind_fits`): `max_age`,
        `title` or `breed` do not."""
        for m in _CLAUSE.finditer(self.text):
            body_start = m.start(1) + _LEAD.match(m.group(1)).end()  # type: ignore[union-attr]
            after_colon = self._after_key_list(m.start(1))
            items = self._bare_items(body_start, m.end(1), words=after_colon)
            if items is None or len(items) != len(self.keys) or (
                    not after_colon and _CAPITAL_BY_PLACE.match(self.text, items[0].start)
            ) or any(
                    v.raw.lower() in (_NO_BARE_VALUE if v.kind == "word" else _NO_VALUE)
                    for v in items):
                continue
            if all(self._fits_in_order(v, k) and (after_colon or kind_fits(v, k))
                   for v, k in zip(items, self.keys, strict=True)):
                for value, key in zip(items, self.keys, strict=True):
                    self.add(value, BOUND, key=key, cue=m.start(1), until=m.end(1))

    def _after_key_list(self, pos: int) -> bool:
        """Whether `pos` follows a colon that closes a key list (`keys name and age: Ana,
        31`); `for: Rex, 3` says whom the object is for, not which value each key takes."""
        before = self.text[:pos].rstrip()
        return before.endswith(":") and len(before[:-1].rstrip()) in {
            end for _, end in self.keylists}

    def _bare_items(self, start: int, end: int, *, words: bool) -> list[Value] | None:
        items: list[Value] = []
        pos = start
        while pos < end:
            value = scalar_at(self.text, pos, words=words, bools=words)
            if value is None or value.end > end or not self.free(value.start, value.end):
                return None
            items.append(value)
            sep = _SEP.match(self.text, value.end)
            if sep is None or sep.end() >= end:
                return items if self.text[value.end : end].strip() == "" else None
            pos = sep.end()
        return items or None

    def _fits_in_order(self, value: Value, key: str) -> bool:
        kind = self.types[key]
        if key not in self.typed:
            return value.kind != "list"
        if value.kind == "bool":
            return kind == "boolean"
        if value.kind == "number":
            return kind in ("integer", "number") if isinstance(value.value, int) \
                else kind == "number"
        return kind == "string"

    def listed(self) -> None:
        for pattern, groups in LISTS:
            for m in pattern.finditer(self.text):
                found = list_at(self.text, m.end())
                if found is not None and not says_nothing(" ".join(map(str, found.value))):
                    self.add(found, CUED, groups=groups, cue=m.start())

    def named(self) -> None:
        for pattern, groups in NAMED:
            for m in pattern.finditer(self.text):
                alias = "ALIAS" in groups[0]
                found = list_at(self.text, m.end()) if alias else None
                if found is not None and len(found.value) < 2:
                    found = None
                if found is None:
                    found = self._name_at(m.end())
                if found is not None and not _CALLING.search(self.text, max(0, m.start() - 12),
                                                             m.start()):
                    other = groups[0] & {"ALIAS", "NICKNAME"}  # another name, same one
                    self.add(found, CUED, groups=self._named_as(groups, m.start()),
                             cue=m.start(), role="" if other else "subject")

    def _named_as(self, groups: tuple[frozenset[str], ...], at: int
                  ) -> tuple[frozenset[str], ...]:
        """`named X` fills a name key; a username only after a user's or an account's noun
        (`a user called jdoe`), a title only after a work's (`a post named Launch`): `a
        teacher named Lars` is no `title`, `username` or `player`."""
        if "NAME" not in groups[0]:
            return groups  # `titled`, `nicknamed`, `also known as`
        noun = re.search(r"\b([a-z]+)\s+\Z", self.text[max(0, at - 30) : at])
        said = noun.group(1) if noun else ""
        extra = "USERNAME" if said in _USER_NOUNS else "TITLE" if said in _TITLE_NOUNS \
            else ""
        return tiers(f"{OWN_NAME} {extra}".strip(), f"HEAD:{said}" if said else OWN_NAME)

    def _name_at(self, pos: int) -> Value | None:
        found = quoted_at(self.text, pos) or propn_at(self.text, pos)
        if found is not None and found.start == pos:
            return found
        found = scalar_at(self.text, pos, words=True)
        if found is not None and found.kind in ("ident", "word"):
            return found
        return None

    def numbers(self) -> None:
        for pattern, cls in COMPILED_UNITS:
            for m in pattern.finditer(self.text):
                raw = m.group("n")
                if ambiguous_number(raw):
                    continue
                value = Value(raw, number_value(raw), m.start("n"), m.end("n"), "number")
                if "YEAR" in cls.split() and not 1000 <= value.value <= 2100:
                    continue
                if self._said_of_a_thing(m, cls):
                    self.add(value, CUED, groups=(), cue=m.start(), until=m.end())
                    continue
                self.add(value, CUED, groups=tiers(cls), cue=m.start(), until=m.end())

    def _said_of_a_thing(self, m: re.Match[str], cls: str) -> bool:
        """`My weight is 60`, `The dog is 12`, `my favourite number is 7`: the `is N` (or
        `turned N`) age cue states an age only after a name or a pronoun for a person (`Bruno
        is 40`, `who is 40`, `she is 40`); after any other word it says a number of
        something else, whatever the noun, so the number fills no key (and, left over,
        declines every value)."""
        if "AGE" not in cls.split() or not re.match(r"(?i:is|turned)\b", m.group(0)):
            return False
        word = _QUALIFIER.search(self.text, max(0, m.start() - 40), m.start())
        return word is not None and word.group("q")[:1].islower() and \
            word.group("q").lower() not in _PERSON_BEFORE_IS

    def speaker(self) -> None:
        for m in _SPEAKER_AGE.finditer(self.text):
            raw = m.group("n")
            self.add(Value(raw, int(raw), m.start("n"), m.end("n"), "number"), CUED,
                     groups=tiers("AGE"), cue=m.start(), role="speaker")

    def changes(self) -> None:
        for pattern in CHANGES:
            for m in pattern.finditer(self.text):
                new = propn_at(self.text, m.start("new"))
                if new is None or new.end != m.end("new") or self.attributive(new):
                    continue
                kinds = of_kind(new.raw, WHERE_NOW)
                if kinds and self.add(new, CUED, groups=kinds, cue=m.start(), until=m.end()):
                    self.taken.append(m.span("old"))

    def places(self) -> None:
        country = any("COUNTRY" in key_classes(k) for k in self.keys)
        for pattern, groups in PLACES:
            for m in pattern.finditer(self.text):
                place = propn_at(self.text, m.end())
                if place is None or place.start != m.end() or self.attributive(place):
                    continue
                if place.raw.lower() in TIMES:  # `from Monday`, `in May`: a time
                    continue
                if pattern is VISIT and not VISIT_END.match(self.text, place.end):
                    continue  # `now in Lisbon as a tourist`: a visit, not where one lives
                if "HOMETOWN" in groups[0] and (self.trip or TRIP_FROM.search(
                        self.text, max(0, m.start() - 80), m.start())):
                    # `travelling to Lisbon from Porto`, `from Porto on a flight to Lisbon`:
                    # where the trip or the move started, no hometown or origin
                    self.add(place, CUED, groups=(), cue=m.start())
                    continue
                if place.raw.lower() in LANGUAGES:
                    # `written in Python`; a bare `in Japanese` may ask for the values in it
                    lead = LANGUAGE_LEAD.search(self.text, max(0, m.start() - 20), m.start())
                    if lead is not None:
                        self.add(place, CUED, groups=tiers("LANGUAGE"), cue=lead.start())
                    continue
                marked = _SAID_CITY.match(self.text, place.end)
                said = "city" if marked or _CITY_OF.search(self.text, max(0, m.start() - 12),
                                                           m.end()) else None
                pair = re.match(rf",\s+({PROPN})(?=\s*(?:[,;.)]|$|\s(?:and|with|who)\b))",
                                self.text[place.end :])
                if pair and place_kind(pair.group(1)) not in ("country", "region", "both"):
                    pair = None  # `from Lisbon, Porto`: not a place and what holds it
                if pair and country and place_kind(pair.group(1)) == "country":  # not Georgia
                    nation = propn_at(self.text, place.end + pair.start(1))
                    kinds = of_kind(place.raw, _without(groups, "COUNTRY"), said=said)
                    if kinds:
                        self.add(place, CUED, groups=kinds, cue=m.start())
                    if nation is not None and "COUNTRY" in groups[0]:
                        self.add(nation, CUED, groups=tiers("COUNTRY"), cue=place.end)
                    continue
                kinds = of_kind(place.raw, groups, said=said)
                if not kinds:
                    continue  # `from Google`, `works in Sales`: no place is stated
                until = place.end + pair.end(1) if pair else marked.end() if marked else None
                if self.add(place, CUED, groups=kinds, cue=m.start(), until=until) and pair:
                    self.taken.append((place.end, place.end + pair.end(1)))

    def by(self) -> None:
        for pattern, groups in BY:
            for m in pattern.finditer(self.text):
                several = list_at(self.text, m.end())
                if several is not None and len(several.value) >= 2 and all(
                    v[:1].isupper() for v in several.value
                ):
                    self.add(several, CUED, groups=groups, cue=m.start())
                    continue
                who = propn_at(self.text, m.end())
                if who is not None and who.start == m.end() and not self.attributive(who):
                    if "BRAND" in groups[0] and len(groups[0]) > 1 and not PERSON.fullmatch(
                            str(who.value)):
                        groups = tiers("BRAND")  # `by Netflix`, `by Warner Bros`: a firm
                    self.add(who, CUED, groups=groups, cue=m.start())

    def emails_and_dates(self) -> None:
        for pattern, groups in ((EMAIL, tiers("EMAIL", "CONTACT")), (DATE, tiers("DATE"))):
            for m in pattern.finditer(self.text):
                raw = m.group(0)
                lead = _EMAIL_LEAD.search(self.text, max(0, m.start() - 24), m.start())
                closed = self.text.startswith(">", m.end()) and lead and lead.group(0) == "<"
                self.add(Value(raw, raw, m.start(), m.end(), "text"), CUED, groups=groups,
                         cue=lead.start() if lead else None,
                         until=m.end() + 1 if closed else None)

    def count_nouns(self) -> None:
        """`120 stars`, `240 pages`, `3 keys`: the noun names what the number counts."""
        for m in re.finditer(rf"(?<![\w.\-])(?P<n>{NUMBER})\s+(?P<noun>[a-z]+)\b", self.text):
            value = number_at(self.text, m.start("n"))
            if value is None:
                continue
            noun = m.group("noun")
            named = [k for k in self.keys if matches_noun(k, noun)]
            if len(named) == 1:
                self.add(value, BOUND, key=named[0], until=m.end())
            elif noun not in ("and", "or", "to", "in", "of", "for"):
                self.add(value, CUED, groups=tiers(f"HEAD:{noun}"), until=m.end())
        for m in re.finditer(r"\b(?P<noun>[a-z]+)\s+#?(?P<n>\d+)\b(?![.,]\d)", self.text):
            noun = m.group("noun")
            value = number_at(self.text, m.start("n"))
            if value is not None and noun not in _NOT_ID_NOUNS:
                self.add(value, CUED, groups=tiers(f"HEAD:{noun}", "ID"), cue=m.start())

    def the_noun(self) -> None:
        """`the film Heat`, `the student Yusuf`, `the intern Dave`."""
        for m in _THE_NOUN.finditer(self.text):
            noun = m.group("noun")
            value = self._name_at(m.end())
            if value is None or noun in NOT_VALUES:
                continue
            if re.search(r"\bof\s+\Z", self.text[max(0, m.start() - 4) : m.start()]):
                self.crowded.append((value.start, value.end))  # `Up, of the film "X"`
                continue
            if noun.lower() in OTHER_ONE:  # `The other Bruno is 40.`: someone else
                self.crowded.append((value.start, value.end))
                continue
            if value.kind == "word" and noun not in _HANDLE_NOUNS:
                continue
            if noun in _TITLE_NOUNS:
                groups = tiers("TITLE", OWN_NAME)
            else:  # `the hotel Vista` is no title, `the account bob42` no player
                handle = " USERNAME" if noun in _USER_NOUNS else ""
                groups = tiers(f"HEAD:{noun}", f"{OWN_NAME}{handle}")
            if self.add(value, CUED, groups=groups, cue=m.start(), role="subject") and \
                    noun not in _GENERIC_NOUNS | _TITLE_NOUNS:
                start = m.start("noun")
                self.add(Value(noun, noun, start, start + len(noun), "word"), CUED, groups=())

    def noun_attributes(self) -> None:
        """`Ana, 31, a nurse from Porto`, `that is a rabbit`, `a comedy`: read so that its
        words are accounted for, but what a noun is (a job, a species, a genre) is not
        known, so it fills no key; only `works as a plumber` says it is a job. `the intern
        Dave` (`the_noun`) is the same."""
        for m in _NOUN_ATTR.finditer(self.text):
            noun = m.group("noun")
            if noun in _GENERIC_NOUNS or noun in NOT_VALUES or noun in _TITLE_NOUNS:
                continue
            value = Value(noun, noun, m.start("noun"), m.end("noun"), "word")
            role = AS_ROLE.search(self.text, max(0, m.start("article") - 20), m.start("article"))
            if noun not in occupations():
                role = None  # `works as a team`, `as a whole`: how one works, not a job
            self.add(value, CUED, groups=tiers("JOB") if role else (),
                     cue=role.start() if role else m.start("article"))

    def subjects(self) -> None:
        """What the request is about: `for Bruno, ...`, `Bruno is 40`, `: Up (2009)`."""
        starts: list[tuple[int, str | None]] = []
        cue: dict[int, int] = {}
        for m in _SUBJECT.finditer(self.text):
            starts.append((m.end(), m.group("head")))
            cue[m.end()] = m.start()
        openings = {m.end() for m in _STARTER.finditer(self.text)}
        starts += [(pos, None) for pos in openings]
        ends = {end for _, end in self.keylists}
        starts += [(m.end(), None) for m in _AFTER_COLON.finditer(self.text)
                   if len(self.text[: m.start()].rstrip()) in ends]
        for pos, head in sorted(starts):
            if pos in openings and pos not in cue and _CAPITAL_BY_PLACE.match(self.text, pos):
                continue
            value = quoted_at(self.text, pos) or propn_at(self.text, pos)
            if value is None or value.start != pos:
                value = scalar_at(self.text, pos)
                if value is None or value.kind != "ident":
                    continue
            if value.kind == "possessive" or (value.kind == "propn" and (
                    self.attributive(value) or value.start != pos)):
                continue  # `Ana's age is 31` says whose the age is, not whom the JSON is about
            if value.raw.lower() in self.names:
                continue
            if value.raw.lower() in REQUEST_WORDS | NUMBER_WORDS | _NO_VALUE:
                continue  # `One is from Dakar.`, `Data from Perth.`, `: Random, 31`: no name
            # A bare name (`for Adele`, `for Google`) is the subject's own name: it fills a
            # key that holds a name and nothing else (`name`, `full_name`), never `song`,
            # `title`, `player`, `company` or `username` (what it is is not said).
            # A city or country key takes it when the place lists know it as one; a title key
            # when the subject is said to be a work: `Heat (1995)`, `Emma by Jane Austen`.
            # `for both Brunos`: more than one; `for the Brunos`, `for the Louvre`: a family,
            # a team or a thing, not a person whose name the name key holds.
            if head and head.lower() in OTHER_ONE:
                self.crowded.append((value.start, value.end))
            own = OWN_NAME if head or not re.search(r"\bthe\s+\Z", self.text[:pos], re.I) \
                else PLACE_FIRST
            first = f"HEAD:{head.lower()}" if head else own
            work = "TITLE" if WORK_AFTER.match(self.text, value.end) else own
            self.add(value, CUED, groups=tiers(first, own, work, PLACE_FIRST),
                     cue=cue.get(pos), role="subject")

    def appositions(self) -> None:
        """`for Ana, 31, from Porto`: numbers set beside the subject's name, between commas,
        each an age (a bare number beside a name says nothing else it could be: not a
        retirement age, a price or an age in dog years)."""
        for cand in [c for c in self.found if c.role == "subject"]:
            pos = cand.span[1]
            while (m := _APPOSED.match(self.text, pos)) is not None:
                group = "n" if m.group("n") is not None else "p"
                value = number_at(self.text, m.start(group))
                if value is None or value.end != m.end(group):
                    break
                self.add(value, CUED, groups=tiers("AGE"), cue=m.start())
                pos = value.end

    def leftovers(self) -> None:
        """Any name, quoted text or number nobody claimed: it may still be a stated value."""
        readers: tuple[Callable[[str, int], Value | None], ...] = (quoted_at, number_at)
        for m in _LEFTOVER_START.finditer(self.text):
            if len(self.taken) >= MAX_CANDIDATES:
                break
            pos = m.start()
            value = next((v for r in readers if (v := r(self.text, pos)) is not None), None)
            if value is None:
                value = propn_at(self.text, pos)
                if value is None:
                    continue
                if value.kind == "possessive":
                    continue
                if self.attributive(value):
                    # `a Qantas flight`: the one noun whose name is read (an airline's)
                    flight = re.match(r"[ \t]+flights?\b", self.text[value.end:])
                    self.add(value, CUED if flight else BARE, groups=tiers(
                        "AIRLINE" if flight else "BRAND AIRLINE"),
                        until=value.end + flight.end() if flight else None)
                    continue
            # `2001: A Space Odyssey`: a name glued to a number or word by a colon may be
            # only part of the value, so it can only mark keys unchecked.
            # A name after `Mr.` or after another name and a comma (`Paris, Texas`) may be
            # only part of the value or qualify it: it too only marks keys unchecked.
            before = self.text[max(0, pos - 80) : pos]
            glued = re.search(r"(?:\w:|\b(?:Mr|Mrs|Ms|Dr|Prof|Sir|St)\.?|\b(?:about|on|over|near"
                              r"|around|at|like|than|into|onto|across|behind|under|via|per"
                              r"|against|versus|vs\.?))\s*$", before, re.I) is not None
            glued = glued or (value.kind != "number" and re.search(rf"{PROPN},\s*$", before)
                              is not None)
            self.add(value, HINT if glued else BARE, groups=(frozenset({ANY}),))
