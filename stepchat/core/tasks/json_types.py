"""JSON member types: the words people use for them, what a key's name says, and checks.

A type is a short string so it can live in a task's stored constraints: `string`,
`integer`, `number`, `boolean`, or `array:<item type>` (`array:string`, ...), with plain
`array` for a list whose items nobody typed. The same type drives the schema used for the
checks and the schema handed to the model for constrained decoding.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

SCALARS = ("string", "integer", "number", "boolean")

MAX_STRING_CHARS = 80
"""Bounds a generated string: a small model otherwise loops inside one ("john_john_...")."""
MAX_ITEMS = 12
"""Bounds a generated list for the same reason."""

_ITEM_WORDS = {
    "strings": "string", "string": "string", "words": "string", "names": "string",
    "integers": "integer", "ints": "integer", "whole numbers": "integer",
    "numbers": "number", "floats": "number", "decimals": "number",
    "booleans": "boolean", "bools": "boolean",
}
_SCALAR_WORDS = {
    "string": "string", "str": "string", "text": "string", "word": "string",
    "integer": "integer", "int": "integer", "whole number": "integer",
    "number": "number", "float": "number", "decimal": "number", "numeric": "number",
    "boolean": "boolean", "bool": "boolean", "flag": "boolean",
    "true or false": "boolean", "true/false": "boolean", "yes or no": "boolean",
    "yes/no": "boolean",
}
TYPE_PHRASE = (
    r"(?:(?:list|array)s?\s+of\s+(?:whole\s+numbers|[a-z]+)|list|array"
    r"|whole\s+number|true\s+or\s+false|true/false|yes\s+or\s+no|yes/no"
    r"|string|str|text|integer|int|number|float|decimal|numeric|boolean|bool|flag)"
)
"""A type said in words; `read_type` turns a match into a type. Its `list of <word>` takes
any word, so a match is not yet a type: `read_type` reads only the item words it knows."""
KNOWN_TYPE_PHRASE = (
    r"(?:(?:list|array)s?\s+of\s+(?:"
    + "|".join(w.replace(" ", r"\s+") for w in sorted(_ITEM_WORDS, key=len, reverse=True))
    + r")\b|list|array"
    r"|whole\s+number|true\s+or\s+false|true/false|yes\s+or\s+no|yes/no"
    r"|string|str|text|integer|int|number|float|decimal|numeric|boolean|bool|flag)"
)
"""A type in which every word is a type word: `integer`, `list of strings`, `array`; not
`list of dogs` or `array of puppies`, whose last word is no type. Where words are passed over
as a type (`age (list of strings): ...`), only this is."""

_TYPE_ONLY = re.compile(rf"^\s*(?:as\s+|of\s+type\s+)?(?:an?\s+)?(?P<t>{TYPE_PHRASE})\s*$", re.I)

_BOOL_KEY = re.compile(
    r"^(?:is|has|can|was|should|allows?|needs?)_|^in_stock$|(?:^|_)(?:available|active|enabled"
    r"|verified|visible|public|private|deleted|archived|remote|married|vegetarian|vegan"
    r"|electric|delayed|open|completed|done|paid|coastal|online|featured|required|in_stock)$"
)
_INT_KEY = re.compile(
    r"(?:^|_)(?:age|years?|count|quantity|qty|pages|id|rank|floor|population|doors|seats"
    r"|servings|moons|stars|followers|employees|founded|minutes|attendees_count)$"
    r"|^(?:num|number_of|n)_|_count$|^year_"
)
_NUM_KEY = re.compile(
    r"(?:^|_)(?:price|cost|amount|fee|total|score|rating|height|weight|kg|km|percent"
    r"|latitude|longitude|lat|lon|lng|temperature|balance|salary|income|wage|cm|mm|m|km|g|lb"
    r"|lbs|ft|kmh|mph|hours|hrs|seconds|secs|ms|usd|eur|gbp|elevation|altitude|distance)$"
)
_LIST_KEY = re.compile(
    r"^(?:tags|labels|keywords|genres|categories|hobbies|skills|languages|aliases|ingredients"
    r"|interests|topics|speakers|authors|members|items|colors|colours|emails|phones|friends"
    r"|features|platforms|cast|actors|steps|nicknames)$"
)


def read_type(words: str | None) -> str | None:
    """`a list of strings` -> `array:string`, `(true or false)` -> `boolean`, else None."""
    if not words:
        return None
    m = _TYPE_ONLY.match(words.replace("(", " ").replace(")", " "))
    if not m:
        return None
    phrase = re.sub(r"\s+", " ", m.group("t").lower())
    if phrase.startswith(("list", "array")):
        of = re.match(r"(?:list|array)s? of (.+)$", phrase)
        if not of:
            return "array"
        item = _ITEM_WORDS.get(of.group(1))
        return f"array:{item}" if item else None
    return _SCALAR_WORDS.get(phrase)


@lru_cache(maxsize=1024)
def type_from_name(key: str) -> str | None:
    """What a key's name says about its type (`is_admin`, `in_stock`, `page_count`, `price`)."""
    low = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()
    if _BOOL_KEY.search(low):
        return "boolean"
    if _NUM_KEY.search(low):
        return "number"
    if _INT_KEY.search(low):
        return "integer"
    if _LIST_KEY.search(low):
        return "array:string"
    return None


def type_of_value(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        kinds = {type_of_value(v) for v in value}
        return f"array:{kinds.pop()}" if len(kinds) == 1 else "array"
    return "string"


def fits(value_type: str, key_type: str) -> bool:
    """A value of `value_type` may fill a key of `key_type` (an integer fills a number)."""
    if value_type == key_type:
        return True
    if key_type == "number" and value_type == "integer":
        return True
    if key_type == "array" and value_type.startswith("array"):
        return True
    return key_type == "array:number" and value_type == "array:integer"


def type_schema(type_name: str, *, bounded: bool = False) -> dict[str, Any]:
    """The JSON Schema of one member; `bounded` adds the length limits used for decoding."""
    if type_name.startswith("array"):
        _, _, item = type_name.partition(":")
        schema: dict[str, Any] = {"type": "array"}
        if item:
            schema["items"] = type_schema(item, bounded=bounded)
        if bounded:
            schema["maxItems"] = MAX_ITEMS
        return schema
    if type_name == "string" and bounded:
        return {"type": "string", "maxLength": MAX_STRING_CHARS}
    return {"type": type_name if type_name in SCALARS else "string"}


def default_value(type_name: str) -> Any:
    """The placeholder used when the model gives no valid value: never a real answer."""
    if type_name.startswith("array"):
        return []
    return {"string": "", "integer": 0, "number": 0, "boolean": False}.get(type_name, "")


_TYPE_WORDS = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})


def is_placeholder(value: Any, type_name: str) -> bool:
    """A value that stands for one rather than being one: the typed default, a string with
    no letter or digit in any script (" ", "...", a zero-width space), a JSON type's name
    ("string", as a schema reads) or a form's slot ("<name>")."""
    if same_value(value, default_value(type_name)):
        return True
    if not isinstance(value, str):
        return False
    text = value.strip()
    return (not any(ch.isalnum() for ch in text) or text.casefold() in _TYPE_WORDS
            or (text.startswith("<") and text.endswith(">")))


def as_typed(value: Any, type_name: str) -> Any:
    """A whole number the model wrote as a float (30.0, 3e1) written as the integer its
    key's type asks for."""
    if type_name == "integer" and isinstance(value, float) and value.is_integer() and (
            abs(value) < 2**53):
        return int(value)
    return value


def same_value(a: Any, b: Any) -> bool:
    """Equal as JSON values: a boolean is never a number, 40 equals 40.0, lists item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)
