"""Placing stated values on keys: each value goes where only it fits, or nowhere.

A value found in the prompt is a `Candidate`: bound to one key when the prompt names the key
("city: Lisbon", "120 stars"), or carrying the kinds of key it can fill ("from Lisbon" fills
a city-like key, "aged 40" an age). A candidate is placed when exactly one open key takes
it and no rival of equal strength wants that key; what cannot be placed leaves the keys it
could fill *pending*: the model writes them, and the answer says they are unchecked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from stepchat.core.tasks.json_places import is_city, names_its_kind, place_fits, place_kind
from stepchat.core.tasks.json_types import fits, same_value, type_of_value
from stepchat.core.tasks.json_words import word_set, written_form_matters

BOUND, CUED, BARE, HINT = 3, 2, 1, 0
"""Candidate strengths: named by its key > placed by a cue or as the request's subject > bare.
Neither a BARE value (a name or number no construction reads) nor a HINT is ever placed: it
only marks the keys it could fill as unchecked, and, left over, declines every value."""

ANY = "*"
FIRST = "FIRST"
"""The request's first key when it names the thing itself (`country` in `country, capital
for France`)."""


@dataclass
class Candidate:
    value: Any
    raw: str
    span: tuple[int, int]
    kind: str
    strength: int
    key: str | None = None
    tiers: tuple[frozenset[str], ...] = ()
    cover: tuple[int, int] | None = None
    """The whole construction the value was read from (`aged 40`); the value alone if None."""
    role: str = ""
    """`subject` for what the request is about (`for Bruno`), `speaker` for a value the
    speaker states of themself (`my email is e`), `owner:NAME` for a value stated as NAME's
    (`Bruno's age is 40`); see `json_spec.whose`."""

    @property
    def construction(self) -> tuple[int, int]:
        return self.cover or self.span


def tiers(*groups: str) -> tuple[frozenset[str], ...]:
    """`tiers("NAME USERNAME", "TITLE")`: try the first group of classes, then the next."""
    return tuple(frozenset(g.split()) for g in groups)


OWN_NAME = "OWN_NAME"
PLACE_FIRST = "PLACE_FIRST"
"""The request's first key, when it is a city or country key and the subject is known as one."""
_WORKS = "film|movie|book|song|album|post|article"
_CLASSES: tuple[tuple[str, str], ...] = (
    (OWN_NAME, r"name|full_?name|display_name"),
    ("NAME", r"name|full_?name|display_name|person|customer|client|player|employee|student"),
    ("USERNAME", r"user_?name|handle|login|user|screen_name|account"),
    ("TITLE", rf"title|(?:{_WORKS})_title|headline"),
    ("CITY", r"city|town|city_name"),
    ("LOCATION", r"location|place|based_in|residence|region|area|venue|address"),
    ("SITE", r"place|region|area|venue|address"),
    ("HOMETOWN", r"home_?town"),
    ("RESIDENCE", r"residence|based_in|current_city|current_location|lives_in"),
    ("WORKPLACE", r"workplace|work_city|work_location|office|office_location"),
    ("HQ", r"headquarters|hq"),
    ("ORIGIN", r"origin|country_of_origin"),
    ("COUNTRY", r"country|nation|country_name|country_of_origin"),
    ("BIRTHPLACE", r"birthplace|place_of_birth|born_in|birth_city"),
    ("DESTINATION", r"destination|arrival_city|arrival|to_city"),
    ("CITY_KIND", r"(?:\w+_)?city|town|home_?town|city_name"),
    ("AGE", r"age|age_years|current_age"),
    ("YEAR", r"year|(?:release|publication|founding|build)_year"
             r"|year_(?:released|published|founded|established|built)"
             r"|founded|published|released|built"),
    ("RELEASE", r"release_year|year_released|released"),
    ("PUBLICATION", r"publication_year|year_published|published"),
    ("FOUNDING", r"founding_year|year_founded|year_established|founded"),
    ("BUILDING", r"build_year|year_built|built"),
    ("EMAIL", r"e_?mail|email_address|mail|contact_email"),
    ("CONTACT", r"contact"),
    ("PRICE", r"price|cost|unit_price|fee|amount"),
    ("RATING", r"rating|score|star_rating"),
    ("SALARY", r"salary|income|pay|wage|wages|earnings"),
    ("WEIGHT", r"weight|weight_kg|mass"),
    ("TEMPERATURE", r"temperature|temp"),
    ("SERVINGS", r"servings|portions|serves"),
    ("DATE", r"date|day|when"),
    ("AUTHOR", r"author|writer|authors|written_by"),
    ("DIRECTOR", r"director|directed_by"),
    ("ARTIST", r"artist|band|singer|musician|performer"),
    ("BRAND", r"brand|maker|manufacturer|make|company"),
    ("AIRLINE", r"airline|carrier"),
    ("NICKNAME", r"nickname|nicknames|nick"),
    ("ALIAS", r"alias|aliases|aka|also_known_as"),
    ("LANGUAGE", r"language|languages|lang|programming_language"),
    ("TAGS", r"tags|labels|keywords|categories|genres"),
    ("SKILLS", r"skills"),
    ("NOUN_ATTR", r"job|job_title|occupation|profession|role|position|species|kind|type|genre"
                  r"|category|animal"),
    ("JOB", r"job|job_title|occupation|profession|role|position"),
    ("SORT", r"species|kind|type|genre|category|animal"),
    ("ID", r"id|\w+_id|number"),
    ("RELATION", r"capital|parent|owner|manager|mayor|leader|ceo|founder|spouse|partner"
                 r"|president|employer|school|boss|coach|mother|father|friend|author|director"),
)
"""What kind of value a key takes, from its whole name. A qualifier changes whose or which
value it is (`retirement_age`, `max_age`, `mother_age`, `sequel_year`, `weight_lb`,
`work_email`), so only a closed list of qualified names is here, each naming the same
value as the bare word (`current_age`, `release_year`, `weight_kg`); any other qualified
key takes no cued value and is left to the model."""
RELATIONS = frozenset({"SITE", "HOMETOWN", "RESIDENCE", "WORKPLACE", "HQ", "ORIGIN", "BIRTHPLACE",
                       "DESTINATION", "RELEASE", "PUBLICATION", "FOUNDING", "BUILDING", "JOB",
                       "SORT"})
"""Classes that say which relation a key's value stands in: where the subject lives, was
born, works or is headquartered; which event a year dates; that a noun is a job, not a
species or a genre. A cue fills a key only when it states every relation the key names
(`born in` states a birthplace, not a residence; `released in` a release year, not a
founding year; `works as` a job, not a species); a key that names none (`city`, `country`,
`location`, `year`) takes any cue of its kind. `SITE` (`venue`, `address`, `place`,
`region`, `area`) and `SORT` (`species`, `genre`, `type`, ...) are stated by no cue: a
person's city is no venue, and an apposed `a nurse` may be a job, a breed or a genre."""
_COMPILED = tuple((name, re.compile(rf"^(?:{pattern})$")) for name, pattern in _CLASSES)
_RANGES = {"AGE": (0, 130), "YEAR": (1000, 2100)}
_NUMERIC = ("number", "integer")
_VERSION = re.compile(r"^(?:version|\w+_version|ver|release)$")
IDENTITY_KEYS = word_set("""name full_name fullname display_name username user_name
    screen_name title product product_name item item_name company company_name museum event
    planet building recipe dish student player person customer employee film movie book song
    album city country""")
"""The keys that name the thing a request is about, so that its subject (`for Bruno`) is
their value: a closed list. `breed`, `club`, `ticker`, `surname` or `hometown` for Rex,
Ronaldo, Apple or Ana is not what the subject's name says. A city or country key takes the
subject only when the name is known as one (`json_places`)."""


_PLACE_KEYS = frozenset({"CITY", "COUNTRY"})


@lru_cache(maxsize=1024)
def snake(key: str) -> str:
    """`firstName`, `first-name` and `first name` are `first_name`."""
    return re.sub(r"[- ]", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key)).lower()


@lru_cache(maxsize=1024)
def key_classes(key: str) -> frozenset[str]:
    """The kinds of value a key takes, read from its name (`home_city` -> CITY)."""
    low = snake(key)
    return frozenset(name for name, pattern in _COMPILED if pattern.match(low))


def matches_noun(key: str, noun: str) -> bool:
    """`pages` names `page_count`, `moons` names `moon_count`, `stars` names `stars`."""
    low, noun = snake(key), noun.lower()
    stem = noun[:-1] if noun.endswith("s") else noun
    forms = {noun, stem, f"{stem}s", f"{stem}_count", f"{noun}_count", f"num_{noun}",
             f"number_of_{noun}", f"{stem}_id", f"{stem}_name", f"{stem}_number"}
    return low in forms


class Placement:
    """Resolve candidates against the keys; read `entities` and `pending` afterwards."""

    def __init__(self, keys: list[str], types: dict[str, str], declared: set[str]) -> None:
        self.keys = keys
        self.types = types
        self.declared = declared
        self.classes = {k: key_classes(k) for k in keys}
        self.relations = {k: self.classes[k] & RELATIONS for k in keys}
        first = keys[0] if keys else None
        self.identity = (
            first if first and types.get(first) == "string" and snake(first) in IDENTITY_KEYS
            else None
        )
        self.entities: dict[str, Any] = {}
        self.pending: set[str] = set()
        self.used: set[int] = set()
        """ids of the candidates whose value went to a key (each mention of a placed value)."""

    def _fits(self, cand: Candidate, key: str) -> bool:
        kind = type_of_value(cand.value)
        if not fits(kind, self.types[key]):
            return False
        if kind == "string" and not names_its_kind(str(cand.value), self.classes[key]):
            return False
        for cls, (low, high) in _RANGES.items():
            if cls in self.classes[key] and kind == "integer" and not low <= cand.value <= high:
                return False
        return True

    def _as_declared(self, cand: Candidate, key: str) -> Any:
        """A number stated for a key declared as text keeps its digits (`zip 02139`), and so
        does a number whose written form matters: trailing decimal zeros (`3.10` is not
        3.1) unless the key is typed as a number, and any version (`version 3.12`)."""
        if isinstance(cand.value, int | float) and not isinstance(cand.value, bool) and (
                _VERSION.match(snake(key)) or (written_form_matters(cand.raw)
                                                and self.types.get(key) not in _NUMERIC)):
            return cand.raw
        if self.types.get(key) == "string" and key in self.declared:
            return cand.raw if not isinstance(cand.value, list) else cand.value
        return cand.value

    def _bound_fits(self, value: Any, key: str) -> bool:
        """A value the prompt states for a key by name wins over what the name suggests;
        only a type the prompt itself declares can reject it."""
        low, high = _RANGES["AGE"]  # `age: -50`, `Sven, 500, Bergen`; a year may be 387
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if "AGE" in self.classes[key] and number and not low <= value <= high:
            return False
        if "YEAR" in self.classes[key] and number and 0 <= value < 100:
            return False  # `year 95`: a year written in two digits is not the year 95
        if isinstance(value, str) and not place_fits(value, self.classes[key]):
            return False  # `city: up to you`, `city: Google`: no place the lists know
        if key not in self.declared:
            return True
        return fits(type_of_value(value), self.types[key])

    def _names_a_place(self, cand: Candidate, key: str) -> bool:
        """A subject fills a city or country key only when it is known as one."""
        if "COUNTRY" in self.classes[key]:
            return place_kind(str(cand.value)) in ("country", "both")
        if "CITY" in self.classes[key]:
            return is_city(str(cand.value))
        return True

    def _in_tier(self, cand: Candidate, tier: frozenset[str], key: str) -> bool:
        for cls in tier:
            if cls == ANY:
                return True
            if cls == FIRST and key == self.identity:
                return self._names_a_place(cand, key)
            if cls == PLACE_FIRST and key == self.identity and self.classes[key] & _PLACE_KEYS:
                return self._names_a_place(cand, key)
            if cls.startswith("HEAD:") and matches_noun(key, cls[5:]):
                return True
            if cls in self.classes[key]:
                return self.relations[key] <= tier
        return False

    def compatible(self, cand: Candidate, keys: list[str], *, first_tier: bool = True) -> list[str]:
        found: list[str] = []
        for tier in cand.tiers:
            hits = [k for k in keys if self._in_tier(cand, tier, k) and self._fits(cand, k)]
            if hits and first_tier:
                return hits
            found += [k for k in hits if k not in found]
        return found

    def resolve(self, candidates: list[Candidate]) -> None:
        bound: dict[str, list[Candidate]] = {}
        for cand in candidates:
            if cand.key is not None and cand.key in self.types:
                bound.setdefault(cand.key, []).append(cand)
        for key, cands in bound.items():
            values = _distinct([self._as_declared(c, key) for c in cands])
            if len(values) == 1 and self._bound_fits(values[0], key):
                self.entities[key] = values[0]
                self.used.update(id(c) for c in cands)
            else:
                self.pending.add(key)
        free = []
        for cand in candidates:
            if cand.key is None and _placed(cand, self.entities):
                self.used.add(id(cand))
            elif cand.key is None:
                free.append(cand)
        open_keys = [k for k in self.keys if k not in self.entities and k not in self.pending]
        compat = {id(c): self.compatible(c, open_keys) for c in free}
        placed: set[int] = set()
        changed = True
        while changed:
            changed = False
            for cand in free:
                if id(cand) in placed:
                    continue
                options = [k for k in compat[id(cand)] if k not in self.entities]
                if len(options) != 1 or cand.strength <= BARE:
                    continue
                key = options[0]
                rivals = [
                    d for d in free
                    if id(d) not in placed and key in compat[id(d)]
                    and d.strength >= cand.strength and not same_value(d.value, cand.value)
                ]
                if rivals:
                    continue
                self.entities[key] = self._as_declared(cand, key)
                placed.update(id(d) for d in free if same_value(d.value, cand.value))
                changed = True
        self.used |= placed
        left = [k for k in self.keys if k not in self.entities]
        for cand in free:
            if id(cand) not in placed:
                self.pending.update(self.compatible(cand, left, first_tier=False))


def _distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if not any(same_value(v, w) for w in out):
            out.append(v)
    return out


def _placed(cand: Candidate, entities: dict[str, Any]) -> bool:
    """A free candidate repeating a value already bound to a key is that same mention."""
    return any(same_value(cand.value, v) for v in entities.values())
