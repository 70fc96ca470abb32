"""JSON-object families for the bench workload.

A base asks for an object with three named keys about one entity and states every value
in the prompt ("... whose name is Alice, age is 30 and city is Paris."), with types where
a reader would expect them ("age (integer)"). So the checker's `equals` is always
determinable from the prompt alone. Variants follow the paper's five perturbation kinds
for JSON: paraphrase, value/entity change, added key, renamed key, semantic change (a
mostly or entirely new key set, or another kind of entity).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from stepchat.bench.records import Family, Request

Value = str | int | float | bool


@dataclass(frozen=True)
class KeySpec:
    name: str
    type: str  # JSON Schema type: string, integer, number, boolean
    pool: tuple[Value, ...]
    synonym: str


@dataclass(frozen=True)
class Entity:
    noun: str
    keys: tuple[KeySpec, ...]  # the first three form the base request; the rest are extras


def _k(name: str, type_: str, pool: tuple[Value, ...], synonym: str) -> KeySpec:
    return KeySpec(name, type_, pool, synonym)


_BOOL: tuple[Value, ...] = (True, False)
_NAMES: tuple[Value, ...] = ("Alice", "Bruno", "Carla", "Dmitri", "Emma", "Farid", "Grace", "Hiro")
_CITIES: tuple[Value, ...] = ("Paris", "Lisbon", "Osaka", "Toronto", "Nairobi", "Oslo", "Lima")
_COUNTRIES: tuple[Value, ...] = ("France", "Chile", "Japan", "Kenya", "Norway", "Peru", "Canada")

ENTITIES: tuple[Entity, ...] = (
    Entity(
        "a person",
        (
            _k("name", "string", _NAMES, "full_name"),
            _k("age", "integer", tuple(range(18, 81)), "age_years"),
            _k("city", "string", _CITIES, "home_city"),
            _k("job", "string", ("teacher", "nurse", "pilot", "baker", "engineer"), "occupation"),
            _k("country", "string", _COUNTRIES, "nation"),
            _k("married", "boolean", _BOOL, "is_married"),
        ),
    ),
    Entity(
        "a book",
        (
            _k(
                "title",
                "string",
                ("Dune", "Emma", "Ulysses", "Beloved", "Rebecca", "Matilda"),
                "book_title",
            ),
            _k("author", "string", ("Herbert", "Austen", "Joyce", "Morrison", "Dahl"), "writer"),
            _k("year", "integer", tuple(range(1800, 2024)), "published"),
            _k("pages", "integer", tuple(range(90, 900)), "page_count"),
            _k("genre", "string", ("fantasy", "mystery", "romance", "history"), "category"),
            _k("available", "boolean", _BOOL, "in_library"),
        ),
    ),
    Entity(
        "a product",
        (
            _k(
                "name",
                "string",
                ("lamp", "kettle", "backpack", "headphones", "blender"),
                "product_name",
            ),
            _k("price", "number", (4.99, 12.5, 19.99, 35.0, 49.95, 89.9, 129.99), "cost"),
            _k("in_stock", "boolean", _BOOL, "available"),
            _k("brand", "string", ("Acme", "Globex", "Initech", "Umbrella", "Hooli"), "maker"),
            _k("weight_kg", "number", (0.4, 1.2, 2.5, 3.75, 6.0), "mass_kg"),
            _k("color", "string", ("red", "black", "white", "green", "blue"), "colour"),
        ),
    ),
    Entity(
        "a movie",
        (
            _k("title", "string", ("Alien", "Heat", "Up", "Jaws", "Rocky", "Amelie"), "film_title"),
            _k(
                "director",
                "string",
                ("Scott", "Mann", "Docter", "Spielberg", "Jeunet"),
                "directed_by",
            ),
            _k("year", "integer", tuple(range(1950, 2024)), "release_year"),
            _k("rating", "number", (5.5, 6.8, 7.2, 8.1, 8.6, 9.0), "score"),
            _k("genre", "string", ("drama", "comedy", "thriller", "animation"), "category"),
            _k("runtime_minutes", "integer", tuple(range(80, 181)), "length_minutes"),
        ),
    ),
    Entity(
        "a city",
        (
            _k(
                "name",
                "string",
                ("Lyon", "Porto", "Kyoto", "Quebec", "Mombasa", "Bergen"),
                "city_name",
            ),
            _k("country", "string", _COUNTRIES, "nation"),
            _k("population", "integer", tuple(range(50_000, 3_000_000, 12_345)), "inhabitants"),
            _k("coastal", "boolean", _BOOL, "on_coast"),
            _k("founded", "integer", tuple(range(100, 1900)), "founding_year"),
            _k("mayor", "string", _NAMES, "leader"),
        ),
    ),
    Entity(
        "a car",
        (
            _k("make", "string", ("Toyota", "Ford", "Volvo", "Fiat", "Honda"), "manufacturer"),
            _k("model", "string", ("Civic", "Focus", "Panda", "Golf", "Corolla"), "model_name"),
            _k("year", "integer", tuple(range(1995, 2025)), "model_year"),
            _k("electric", "boolean", _BOOL, "is_electric"),
            _k("color", "string", ("silver", "black", "white", "red", "blue"), "paint"),
            _k("doors", "integer", (2, 3, 4, 5), "door_count"),
        ),
    ),
    Entity(
        "an employee",
        (
            _k("name", "string", _NAMES, "employee_name"),
            _k("role", "string", ("analyst", "designer", "manager", "developer"), "title"),
            _k("salary", "integer", tuple(range(30_000, 150_000, 2_500)), "pay"),
            _k("department", "string", ("sales", "finance", "legal", "research"), "team"),
            _k("remote", "boolean", _BOOL, "works_remotely"),
            _k("start_year", "integer", tuple(range(1995, 2025)), "joined"),
        ),
    ),
    Entity(
        "a planet",
        (
            _k(
                "name",
                "string",
                ("Mars", "Venus", "Jupiter", "Saturn", "Neptune", "Mercury"),
                "planet_name",
            ),
            _k("moons", "integer", tuple(range(0, 100)), "moon_count"),
            _k("has_rings", "boolean", _BOOL, "ringed"),
            _k("order", "integer", tuple(range(1, 9)), "position"),
            _k("gas_giant", "boolean", _BOOL, "is_gas_giant"),
            _k("day_hours", "number", (9.9, 10.7, 16.1, 17.2, 24.6), "rotation_hours"),
        ),
    ),
    Entity(
        "a recipe",
        (
            _k(
                "dish",
                "string",
                ("risotto", "curry", "lasagna", "paella", "goulash"),
                "recipe_name",
            ),
            _k("servings", "integer", tuple(range(1, 13)), "portions"),
            _k("vegetarian", "boolean", _BOOL, "meat_free"),
            _k("cuisine", "string", ("Italian", "Indian", "Spanish", "Hungarian"), "origin"),
            _k("minutes", "integer", tuple(range(10, 181, 5)), "cooking_minutes"),
            _k("difficulty", "string", ("easy", "medium", "hard"), "level"),
        ),
    ),
    Entity(
        "a flight",
        (
            _k(
                "airline",
                "string",
                ("Lufthansa", "Qantas", "Emirates", "Iberia", "Finnair"),
                "carrier",
            ),
            _k("destination", "string", _CITIES, "arrival_city"),
            _k("passengers", "integer", tuple(range(40, 400)), "passenger_count"),
            _k("delayed", "boolean", _BOOL, "is_delayed"),
            _k("gate", "string", ("A4", "B12", "C7", "D22", "E3"), "boarding_gate"),
            _k("duration_hours", "number", (1.5, 2.25, 3.0, 7.5, 11.75), "flight_hours"),
        ),
    ),
)

_TYPE_LABEL = {"integer": "integer", "number": "number", "boolean": "boolean"}

BASE_TEMPLATE = "Return a JSON object with keys {keys} for {noun} whose {values_is}."
PARAPHRASES = (
    "Give me a JSON object for {noun} with the keys {keys}. Use {values_colon}.",
    "Produce JSON with keys {keys} describing {noun}: {values_plain}.",
    "Output only a JSON object with the keys {keys}, where {values_is}.",
)


def _render_value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _join(items: list[str], sep: str = ", ", last: str = " and ") -> str:
    return items[0] if len(items) == 1 else sep.join(items[:-1]) + last + items[-1]


@dataclass(frozen=True)
class Spec:
    """A concrete JSON request: which keys (name, type) with which values, about what."""

    noun: str
    fields: tuple[tuple[str, str, Value], ...]

    def prompt(self, template: str) -> str:
        keys = [
            f"{name} ({_TYPE_LABEL[t]})" if t in _TYPE_LABEL else name for name, t, _ in self.fields
        ]
        vals = [(name, _render_value(v)) for name, _, v in self.fields]
        return template.format(
            keys=_join(keys),
            noun=self.noun,
            values_is=_join([f"{n} is {v}" for n, v in vals]),
            values_colon=", ".join(f"{n}: {v}" for n, v in vals),
            values_plain=_join([f"{n} {v}" for n, v in vals]),
        )

    def check(self) -> dict[str, Any]:
        schema = {
            "type": "object",
            "properties": {name: {"type": t} for name, t, _ in self.fields},
            "required": [name for name, _, _ in self.fields],
            "additionalProperties": False,
        }
        return {"kind": "json", "schema": schema, "equals": {n: v for n, _, v in self.fields}}


def _pick(rng: random.Random, key: KeySpec, avoid: Value | None = None) -> Value:
    choices = [v for v in key.pool if v != avoid]
    return rng.choice(choices or list(key.pool))


def _spec(rng: random.Random, entity: Entity, keys: list[KeySpec]) -> Spec:
    return Spec(entity.noun, tuple((k.name, k.type, _pick(rng, k)) for k in keys))


def json_family(rng: random.Random, index: int, k: int) -> Family:
    """One base request about an entity and k variants of each perturbation kind."""
    entity = ENTITIES[(index - 1) % len(ENTITIES)]
    base_keys, extras = list(entity.keys[:3]), list(entity.keys[3:])
    base = _spec(rng, entity, base_keys)
    fid = f"json{index:02d}"
    out: list[Request] = []

    def add(kind: str, i: int, spec: Spec, template: str = BASE_TEMPLATE) -> None:
        out.append(Request(f"{fid}-{kind}-{i + 1}", spec.prompt(template), spec.check()))

    for i in range(k):
        add("para", i, base, PARAPHRASES[i % len(PARAPHRASES)])
    for i in range(k):
        fields = list(base.fields)
        targets = range(len(fields)) if i % 3 == 2 else [i % 3]
        for t in targets:
            name, type_, old = fields[t]
            fields[t] = (name, type_, _pick(rng, base_keys[t], avoid=old))
        add("value", i, Spec(base.noun, tuple(fields)))
    for i in range(k):
        extra = extras[i % len(extras)]
        added = (extra.name, extra.type, _pick(rng, extra))
        add("addkey", i, Spec(base.noun, (*base.fields, added)))
    for i in range(k):
        t = i % len(base.fields)
        fields = list(base.fields)
        name, type_, value = fields[t]
        fields[t] = (base_keys[t].synonym, type_, value)
        add("renamekey", i, Spec(base.noun, tuple(fields)))
    for i in range(k):
        which = i % 3
        if which == 0:
            spec = Spec(base.noun, (base.fields[0], *_spec(rng, entity, extras[:2]).fields))
        elif which == 1:
            spec = _spec(rng, entity, extras[:3])
        else:
            other = ENTITIES[index % len(ENTITIES)]
            spec = _spec(rng, other, list(other.keys[:3]))
        add("semantic", i, spec)
    return Family(Request(f"{fid}-base", base.prompt(BASE_TEMPLATE), base.check()), out)


def json_families(rng: random.Random, bases: int, k: int) -> list[Family]:
    return [json_family(rng, i + 1, k) for i in range(bases)]
