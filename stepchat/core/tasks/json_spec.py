"""Reading a JSON request: its keys, their types, the values it states and the keys it
leaves open.

`read_spec` puts the parts together: `json_request` finds the request and its key list,
`json_flags` reads types, booleans and open keys said in words, `json_cues` finds stated
values, `json_assign` places them on keys, and `json_account` checks that every word of the
prompt is accounted for. A key gets a stated value only when exactly one reading fits and
nothing left unread could change it or be its value instead; otherwise it is *pending*
(the model writes it, unchecked). When the key list itself could be read two ways, no value
is stated at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from stepchat.core.tasks.json_account import (
    SCOPELESS,
    Ledger,
    output_instructions,
    request_phrases,
    request_sentences,
    subject_descriptions,
    unaccounted,
    unknown_keys,
)
from stepchat.core.tasks.json_assign import (
    CUED,
    OWN_NAME,
    Candidate,
    Placement,
    key_classes,
    snake,
)
from stepchat.core.tasks.json_cues import Reader
from stepchat.core.tasks.json_flags import flag_words, open_keys, read_boolean, stated_types
from stepchat.core.tasks.json_request import KeyList, is_json_request, read_keys
from stepchat.core.tasks.json_types import (
    fits,
    type_from_name,
    type_of_value,
    type_schema,
)
from stepchat.core.tasks.json_words import UPPER, inside, quote_insides

__all__ = ["JsonSpec", "read_spec"]


@dataclass(frozen=True)
class JsonSpec:
    """A JSON request: keys in order, their types, stated values, open and pending keys."""

    keys: tuple[str, ...]
    types: dict[str, str]
    entities: dict[str, Any]
    open: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    declared: tuple[str, ...] = field(default=(), compare=False)
    declined: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    """Keys a value was read for but not accounted for, each with the word that declined it."""

    def schema(self, keys: tuple[str, ...] | None = None, *, typed: bool = True) -> dict[str, Any]:
        """The object's JSON Schema (bounded for decoding); no keys asked means any object."""
        wanted = keys if keys is not None else self.keys
        if not wanted and keys is None:
            return {"type": "object"}
        props = {k: (type_schema(self.types[k], bounded=True) if typed else {}) for k in wanted}
        return {
            "type": "object",
            "properties": props,
            "required": list(wanted),
            "additionalProperties": False,
        }


_CLASS_TYPES = {
    "AGE": "integer", "YEAR": "integer", "SERVINGS": "integer", "PRICE": "number",
    "RATING": "number", "SALARY": "number", "WEIGHT": "number", "TEMPERATURE": "number",
    "TAGS": "array:string", "SKILLS": "array:string",
}
"""Kinds of key whose values are numbers or lists even when the name alone does not say so."""


def _named_type(key: str) -> str | None:
    named = type_from_name(key)
    if named:
        return named
    return next((_CLASS_TYPES[c] for c in sorted(key_classes(key)) if c in _CLASS_TYPES), None)


def _placement_type(key: str, declared: dict[str, str]) -> str:
    said = declared.get(key)
    named = _named_type(key)
    if said == "array" and named and named.startswith("array"):
        return named
    return said or named or "string"


def _final_type(key: str, declared: dict[str, str], placed: str, entities: dict[str, Any]) -> str:
    """Declared in words > what the key's name says, if the stated value fits it > what the
    stated value is > text."""
    if key in declared and placed != "array":
        return placed
    if key in entities:
        value_type = type_of_value(entities[key])
        if placed != "string" and fits(value_type, placed):
            return placed
        return value_type
    return placed


def _placed_flags(prompt: str, keys: list[str], types: dict[str, str],
                  candidates: list[Candidate], blocked: list[tuple[int, int]],
                  spans: list[tuple[int, int]]) -> list[Candidate]:
    """Flags said in words (`not an admin`, `in stock`) as candidates bound to their keys,
    one per statement read."""
    flags: list[Candidate] = []
    explicit_spans = [c.span for c in candidates if c.key is not None]
    for key in keys:
        if types[key] != "boolean" or any(c.key == key for c in candidates):
            continue
        said, read = read_boolean(prompt, key, blocked + explicit_spans)
        spans.extend(read)
        if said is not None:
            flags += [Candidate(said, str(said).lower(), span, "bool", 3, key) for span in read]
    return flags


_SOMEONE_ELSE = re.compile(
    r"\b(?:for|about|describing|of)\s+(?!me\b|myself\b|us\b|my\s+(?:profile|details|data"
    r"|info|information|account|record)\b)(?:the|an?|this|that|our|my|his|her|their|your"
    rf"|[{UPPER}])", re.I)
"""`for a person`, `for my dad`, `of Tomas`: the request is about someone, maybe not the
speaker (`for me`, `about my profile` are the speaker)."""


def whose(candidates: list[Candidate], prompt: str) -> list[Candidate]:
    """Only the subject's own values. What the speaker says of themself (`my email is e`,
    `I am 30`) is read only when the request is about no one else (no subject is named or
    described: `My name is Eva and my email is e. Return JSON ...`); a value stated as
    someone's (`Ana's age is 31`) only when that someone is the subject. The rest is
    dropped, and so left over: it declines every value."""
    subjects = {c.raw for c in candidates if c.role == "subject"}
    alone = not subjects and _SOMEONE_ELSE.search(prompt) is None
    return [c for c in candidates
            if (c.role != "speaker" or alone)
            and (not c.role.startswith("owner:") or c.role[len("owner:"):] in subjects)]


_ATTACHED_OWNER = re.compile(r"[ \t]*,?[ \t]*(?P<prep>(?i:for|of|to))\s+(?P<what>\S+)")
"""A preposition right after a value's construction (a comma between them at most) and the
word after it: what the value is for, of or to."""


def someone_elses(prompt: str, candidates: list[Candidate], placed: set[int]) -> str | None:
    """The word after a stated value that says whose it is when that is not shown to be
    the subject's, else None. A value followed by `for`, `of` or `to` and a noun phrase
    (`age 40 for the dog`, `price 5 for my refill`, `city Paris for the company`, `rating
    8.3 of the remake`) is that thing's value, whatever the noun: no list of nouns is kept.
    The phrase is passed over only when the reader reads it itself, as the subject (`age
    40 for Bruno`, Bruno the subject) or as a value of its own (`from Lisbon to Porto`,
    `a Qantas flight to Sydney`); any other declines every value, as a leftover word does.
    `placed`: the ids of the candidates whose values are stated on a key."""
    read = [c.construction for c in candidates]
    for cand in sorted(candidates, key=lambda c: c.construction[1]):
        if cand.role == "subject" or id(cand) not in placed:
            continue
        m = _ATTACHED_OWNER.match(prompt, cand.construction[1])
        if m and not any(a <= m.start(g) < b for a, b in read for g in ("prep", "what")):
            return m.group("what").strip(".,;:!?")
    return None


def unsent(candidates: list[Candidate], prompt: str) -> list[Candidate]:
    """`for a gift from Florence`, `the letter from Charlotte`: with no one named, a bare
    `from X` may be who sent it as well as where it is from, so it is not read (its words
    are left over). After a name (`for Ana from Porto`) it is where the subject is from."""
    if any(c.role == "subject" for c in candidates):
        return candidates
    return [c for c in candidates
            if not (c.key is None and c.cover
                    and _BARE_FROM.fullmatch(prompt, c.cover[0], c.span[0]))]


_BARE_FROM = re.compile(r"(?i:from)\s+(?:the\s+)?")


def _accounted_for(prompt: str, listed: KeyList, keys: list[str], placement: Placement,
                   candidates: list[Candidate], spans: list[tuple[int, int]]) -> Ledger:
    """What the accepted constructions account for (see `json_account`)."""
    ledger = Ledger(prompt)
    language_key = any("LANGUAGE" in key_classes(k) for k in keys)
    taboo = {w for k in keys for w in (k.lower(), snake(k).replace("_", " "), *flag_words(k))}
    named_at = _named_at(candidates)
    unplaced = []
    for cand in candidates:
        if id(cand) in placement.used or _explained(cand, keys, placement):
            ledger.cover(cand.construction)
        else:
            unplaced.append(cand.span)
    for span in unplaced:
        ledger.uncover(span)
    # What no value is read from (the key list, instructions, flags, descriptions) last:
    # a number in `Reply in under 50 words` is accounted for by the instruction.
    texts = any(isinstance(v, str) for v in placement.entities.values())
    for span in [*listed.spans, *spans, *output_instructions(prompt, keys, language_key, texts),
                 *subject_descriptions(prompt, taboo, named_at)]:
        ledger.cover(span)
    return ledger


def _named_at(candidates: list[Candidate]) -> int | None:
    """Where the subject is first named: as whom the request is for (`for Bruno`), or by a
    name key beside its value (`Name: Bo.`, `The name is Bo.`, `my name is Bo`). After it,
    a sentence opening on a description (`The dog is 12.`, `The bulb costs 5.`) is about a
    second thing, however the subject was named."""
    return min((c.span[0] for c in candidates if c.role == "subject" or (
        c.key is not None and OWN_NAME in key_classes(c.key))), default=None)


def _explained(cand: Candidate, keys: list[str], placement: Placement) -> bool:
    """A value read by a cue that no requested key takes (`from Porto` when no key is a
    place) is accounted for as what its cue says it is. Numbers never are: a number the
    request does not ask for may still be the value of a numeric key."""
    if cand.strength != CUED or isinstance(cand.value, int | float | bool):
        return False
    if str(cand.value).lower() in SCOPELESS:  # `is a pseudonym`, `a guess`
        return False
    return not placement.compatible(cand, keys, first_tier=False)


_FOR_COLON = re.compile(r"(?<=\w[ \t])(?:for|describing)(?P<colon>:)(?=[ \t]+\S)")
"""`... age for: Ana is 31`: a colon after the word that names whom the object is for, inside
a sentence. `For:` or `Describing:` opening a line is a label, read as written."""


def _without_for_colons(prompt: str) -> str:
    """`prompt` with a colon after `for` or `describing` read as a space (outside quotes),
    so that every reading sees `for Ana` as written without it: the subject, and the
    readings that decline a second person (`for a dog for: Bruno`). The text keeps its
    length, so every span read from it is the prompt's own."""
    quoted = quote_insides(prompt)
    colons = [m.start("colon") for m in _FOR_COLON.finditer(prompt)
              if not inside((m.start(), m.end()), quoted)]
    for at in colons:
        prompt = prompt[:at] + " " + prompt[at + 1:]
    return prompt


def read_spec(prompt: str) -> JsonSpec | None:
    """The JSON request in `prompt`, or None when it does not ask for JSON."""
    if not is_json_request(prompt):
        return None
    prompt = _without_for_colons(prompt)
    listed = read_keys(prompt)
    keys = listed.keys
    blocked = list(listed.spans)
    spans: list[tuple[int, int]] = []
    said = stated_types(prompt, keys, blocked, spans)
    declared = {**said, **listed.types}
    torn = {k for k in said if k in listed.types and said[k] != listed.types[k]}
    types = {k: _placement_type(k, declared) for k in keys}
    reader = Reader(prompt, keys, types, blocked)
    candidates = unsent(whose(reader.read(), prompt), prompt)
    flags = _placed_flags(prompt, keys, types, candidates, blocked, spans)
    placement = Placement(keys, types, set(declared))
    placement.resolve(candidates + flags)
    read = {k: placement.entities[k] for k in keys if k in placement.entities}
    final = {k: _final_type(k, declared, types[k], read) for k in keys}
    opened = [k for k in open_keys(prompt, keys, set(read), spans)
              if k not in placement.pending]
    opened += [k for k in listed.described if k not in read and k not in opened]
    ledger = _accounted_for(prompt, listed, keys, placement, candidates + flags,
                            spans + reader.explained)
    anchors = [m.span() for m in re.finditer(r"(?i)json", prompt)][:8] + listed.spans
    request = request_sentences(prompt, anchors)
    # Once the prompt speaks of someone else too (a relative), a pronoun could be either.
    leftovers = ledger.leftovers(request, crowded=bool(reader.explained),
                                 phrases=request_phrases(prompt, anchors))
    word = unaccounted(leftovers, ledger, request) if listed.sure else ""
    if word is None and reader.crowded:  # `The other Bruno is 40.`, `for both Brunos`
        word = prompt[slice(*reader.crowded[0])]
    if word is None:  # `age 40 for the dog`, `price 5 for the lid`: another thing's value
        word = someone_elses(prompt, candidates + flags, placement.used)
    named = list(dict.fromkeys(c.raw for c in candidates if c.role == "subject"))
    if word is None and len(named) > 1:  # two things named: whose values are whose?
        word = named[1]
    gone = dict.fromkeys(read, word) if word is not None else {}
    if word is not None:  # what the prompt leaves open may have been taken back too
        opened = []
    gone.update((k, "unknown") for k in unknown_keys(prompt, keys) if k in read)
    gone.update((k, "two types") for k in torn if k in read)  # `age (a number) ... as a string`
    entities = {k: v for k, v in read.items() if k not in gone}
    pending = tuple(k for k in keys if k not in entities and (
        k in placement.pending or k in gone or not listed.sure))
    return JsonSpec(tuple(keys), final, entities, tuple(k for k in opened if k not in pending),
                    pending, tuple(declared),
                    declined=tuple(sorted(gone.items())))
