"""Is this a request for JSON, and which keys does it ask for?

People ask for JSON in many shapes: "Return a JSON object with keys a, b and c", "JSON with
a, b and c: ...", "Output only JSON: {a, b, c} for ...", "Give me a, b and c as JSON",
"fields a, b and c". A question *about* JSON ("How do I parse JSON ...?") is not a request
for it. The key list's span is reported so the value reader never mistakes a key for a value.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from stepchat.core.tasks.json_flags import is_open_note
from stepchat.core.tasks.json_types import TYPE_PHRASE, read_type
from stepchat.core.tasks.json_words import word_set

_JSON = re.compile(r"(?<![\w.])json\b", re.I)
_OUTPUT_BEFORE = re.compile(
    r"(?:\b(?:as|in|into|to)\s+(?:(?:valid|plain|strict|compact|pure|a|an|the|one|single)\s+)*"
    r"|\bjson\b\s*$)$",
    re.I,
)
_VERB_BEFORE = re.compile(
    r"\b(?:return|returns|give|produce|make|write|output|create|generate|emit|provide|send"
    r"|build|respond|reply|answer|print|need|want|fill|format|show|only|just)\b[^.?!;]{0,40}$",
    re.I,
)
_OUTPUT_AFTER = re.compile(
    r"^\s*(?:object|only|record|output|response|reply|document|payload|with|for|containing"
    r"|having|that|listing|describing|[:({])",
    re.I,
)
_INPUT_BEFORE = re.compile(
    r"\b(?:parse|parsing|parses|parser|validate|validates|validating|read|reads|reading|load"
    r"|loads|loading|convert|converts|converting|serialize|deserialize|decode|encode|escape"
    r"|minify|lint|debug|fix|handle|process|merge|diff|compare|query|this|these|that|my"
    r"|your|following|nested|about|of|between|is|are|does|do)\b[^.?!;]{0,12}$",
    re.I,
)
_QUESTION = re.compile(r"^\s*(?:what|why|how|when|where|which|who|whose|is|are|does|do)\b", re.I)
_ABOUT = re.compile(r"^\s*(?:explain|describe|compare|define|summari[sz]e|tell me about)\b", re.I)
_AS_FORM = re.compile(r"\b(?:as|in|into)\s+(?:an?\s+|valid\s+)?json\b|\bjson\s+(?:object|only)\b",
                      re.I)

MAX_MENTIONS = 32
"""Mentions of "JSON" looked at; the request says so near the start or not at all."""
MAX_KEYS = 40
"""Keys read from one list: an object with more is not something to ask for in a sentence."""

_KEY = (r"(?:[\"'`“‘](?P<quoted>[^\W\d][\w\- ]{0,39}?)[\"'`”’]"
        r"|(?P<key>[^\W\d]\w*(?:-[^\W\d_]\w*)*))")
"""A key as written: any script (`имя`), hyphens kept (`e-mail`, `date-of-birth`), and in
quotes with spaces (`'full name'`)."""
_DESCRIBED = r"short|brief|long|detailed|one-line|one-sentence|catchy|funny|little|quick"
"""Words before a key that say what to write there (`a short bio`): the key is `bio`, and it
is left to the model."""
_ITEM = re.compile(
    rf"(?:(?:the|a|an|its|his|her|their|and)\s+)?"
    rf"(?:(?P<described>(?:(?:{_DESCRIBED})\s+){{1,2}}))?{_KEY}"
    rf"(?:[ \t]+(?P<second>(?-i:[a-z][a-z0-9_]*))"
    rf"(?=\s*(?:,|\b(?:and|or|for|with|about|describing|of|from)\b|&|[.;:!?)]|$)))?"
    rf"(?:\s*\((?P<paren>[^)]{{1,40}})\)"
    rf"|\s+as\s+(?P<as>(?:an?\s+)?{TYPE_PHRASE})\b"
    rf"|\s*:\s*(?P<colon>(?:an?\s+)?{TYPE_PHRASE})\b)?",
    re.I,
)
_ONE_WORD_ITEM = re.compile(_ITEM.pattern.replace("(?P<second>", "(?P<unused>(?!)"), re.I)
"""One key of a list: a word, or two read as one key (`first name` is `first_name`), after
an article and words that describe what to write there."""
_KEY_HEADS = word_set(
    """name number code date time address count id type year price age city email title
    status level size rate score url link phone length width height weight""")
"""The second words a two-word key may end with: a closed list."""
_SEP = re.compile(r"\s*(?:,\s*(?:and\s+|&\s+|plus\s+|as\s+well\s+as\s+)?|\s+and\s+"
                  r"|\s*&\s*|\s+or\s+|\s+(?:y|e|et|und|и|og|och)\s+|\s*[;/|]\s*(?:and\s+)?"
                  r"|\s+(?=[\"'`“‘]))", re.I)
"""Between two keys: commas, `and`, `&`, `plus`, `and` in other languages (`nombre y
ciudad`), and, when the list uses them throughout, `;`, `/` or `|`; quoted keys may stand
side by side (`"name" "age"`). See `_sep_style`."""
_OPENERS = re.compile(r"\s+(?:for|of|about|describing|with|from|in|on)\b|\s*[:(]", re.I)
"""What may follow the last key of a list (`keys from and to for a flight`)."""
_INSTRUCTION_ITEMS = frozenset(
    ["sorted", "ordered", "alphabetical", "alphabetically", "quoted", "unquoted", "lowercase",
     "uppercase", "camelcase", "indented", "only", "first", "last", "etc", "etcetera"])
"""Words after a second `keys` that say how the keys should be, not which (`keys sorted`)."""
_LIST_FOLLOWER = re.compile(
    r"\s*(?:[.;:!?)]|$|\n|\(|,?\s*(?:for|of|about|describing|with|from|in|on|to|that|which"
    r"|where|whose|using|by|at|filled|given|set|please|only|each|if|based|into|per)\b"
    r"|,?\s*as\s+(?:an?\s+)?(?:json|valid|plain|compact|single|one)\b)", re.I)
"""What may follow a key list: the end of its sentence or clause, a bracket, or a word that
opens what comes after it (`for Bruno`, `with values`, `as JSON`). Anything else (`name、age`,
`name · age`, `name + age`, `name as well as age`, `, camelCase,`, `, and/or city`, `(and
city)`) is a list the reader cannot read exactly: it is not sure, nothing is stated."""
_HEDGED = re.compile(
    r"[ \t]*,?[ \t]*(?:(?:an?|the|any)[ \t]+)?"
    r"(?:if|unless|when|whenever|where\s+(?:possible|available|known|applicable)"
    r"|only\s+if|maybe|perhaps|possibly|probably|optionally|ideally|preferably|of\s+course|also|even"
    r"|sometimes|often|always|never|else|otherwise|at\s+(?:best|least|most)"
    r"|optional\w*|opcional\w*|opzional\w*|optionnel\w*|facultati\w*|fakultativ\w*"
    r"|eventuell\w*|évent\w*|evtl|vielleicht|quizás|quizas|tal\s+vez|peut[- ]être|forse"
    r"|nullable|any|extra|additional|non[- ]?(?:mandatory|required|essential|obligatory)"
    r"|unrequired|nice[- ]to[- ]have|bonus|spare|secondary|possible|potential|desired"
    r"|allenfalls|ggf|gegebenenfalls|wahlweise|falls|éventuel\w*|opcionalmente|posible"
    r"|(?!only\b)[a-z]{2,}ly)(?![\w])", re.I)
"""A condition, an adverb or a hedge beside a key (`name, if possible age and city`, `name,
age, and optionally city`, `name, of course age`, `name and age, ideally`, `and optional
city`, `und eventuell city`, `non-mandatory city`): whether that key, or the ones after it,
is asked for at all is not said plainly, so the list is not sure. Not read as part of a key
(`optionally_city`, `optional_city`), nor as the list's end. The hedges are a closed list,
in English and the few words other languages hedge with most."""
_LIST_END = re.compile(r"\s*(?:[.;:!?)]|$)")
_GOES_ON = re.compile(r"\s+(?:of|and|or|&)\s+[a-z_][a-z0-9_]*\s*(?:,|\band\b|[.;:!?]|$)", re.I)
"""After a list, words that look like more of it (`date of birth and city`): not sure."""
_STOP = {
    "for", "of", "with", "whose", "where", "that", "the", "a", "an", "about", "to", "in",
    "describing", "which", "who", "only", "each", "all", "and", "or", "values", "set", "on",
    "from", "at", "by", "using", "is", "are", "be", "json", "object", "as", "format", "this",
    "it", "them", "me", "please", "then", "no", "not", "like", "per", "into", "based", "if",
    "but", "so", "than", "too", "also", "here", "there", "well",
    "filled", "given", "following", "same", "these", "those", "its", "their", "his", "her",
}
_KEY_WORD = re.compile(
    r"\b(?:keys?|fields?|properties|property|attributes?|members?|entries|columns)\b"
    r"(?:\s*(?::|-|—|named|called|of))?\s*",
    re.I,
)
_JSON_WITH = re.compile(
    r"\bjson\b(?:\s+(?:object|record|document|output))?\s*"
    r"(?:with|containing|having|including|listing|that\s+has|that\s+contains|:)\s+",
    re.I,
)
_BRACES = re.compile(r"\{([^{}]{1,400})\}")
_BRACE_ITEM = re.compile(rf"^\s*{_KEY}\s*(?::\s*(?P<template>.*))?$", re.S)
_AS_JSON = re.compile(r"\s+(?:as|in)\s+json\b", re.I)


@dataclass
class KeyList:
    """Keys in the order asked, the types stated beside them, and where the list lies.

    `described` holds keys the list itself leaves to the model ("a short bio"); `sure` is
    False when the list could be read more than one way ("date of birth and city"), and
    then no value is served as stated (see `json_spec`)."""

    keys: list[str] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    spans: list[tuple[int, int]] = field(default_factory=list)
    described: list[str] = field(default_factory=list)
    sure: bool = True


def is_json_request(prompt: str) -> bool:
    """The prompt asks for JSON as its answer (not a question about JSON)."""
    asked = False
    for m in itertools.islice(_JSON.finditer(prompt), MAX_MENTIONS):
        # The cues sit next to the word, so a window keeps long prompts linear.
        before, after = prompt[max(0, m.start() - 80) : m.start()], prompt[m.end() : m.end() + 40]
        if _INPUT_BEFORE.search(before) and not re.search(
            r"\b(?:as|in|into|to)\s+(?:\w+\s+)?$", before, re.I
        ):
            continue
        cued = _OUTPUT_BEFORE.search(before) or _VERB_BEFORE.search(before)
        asked = asked or bool(cued or _OUTPUT_AFTER.match(after))
    if not asked or _QUESTION.match(prompt):
        return False
    # "Describe X as a JSON object" asks for JSON; "Describe the JSON format" does not.
    return not _ABOUT.match(prompt) or _AS_FORM.search(prompt) is not None


def _template_type(text: str | None) -> str | None:
    if text is None:
        return None
    text = text.strip().strip("\"'")
    if re.fullmatch(r"-?\d+", text):
        return "integer"
    if re.fullmatch(r"-?\d+\.\d+", text):
        return "number"
    if text in ("true", "false"):
        return "boolean"
    if text.startswith("["):
        return "array"
    return read_type(text)


def _read_braces(prompt: str, out: KeyList) -> bool:
    for m in _BRACES.finditer(prompt):
        parts = m.group(1).split(",")[:MAX_KEYS]
        items = [_BRACE_ITEM.match(p) for p in parts]
        if not all(items) or not parts:
            continue
        for item in items:
            assert item is not None
            key = _word(item)
            if key not in out.keys:
                out.keys.append(key)
            declared = _template_type(item.group("template"))
            if declared:
                out.types[key] = declared
        out.spans.append(m.span())
        return True
    return False


def _word(item: re.Match[str]) -> str:
    """The key an item names as written: its word, or its quoted words."""
    return item.group("quoted") or item.group("key")


def _item_at(prompt: str, pos: int) -> re.Match[str] | None:
    """The item at `pos`; a second word joins the key only if it is a key's head noun (`first
    name`, `zip code`: `_KEY_HEADS`) and neither word is a small word (`name along with age`
    is no key `name_along`)."""
    item = _ITEM.match(prompt, pos)
    if item and item.group("second") and (
        item.group("second").lower() not in _KEY_HEADS
        or item.group("key") is None or item.group("key").lower() in _STOP
        or item.group("second") in _STOP or not item.group("key").islower()
        or item.group("second") in ("y", "e", "et", "und", "og", "och")
    ):
        item = _ONE_WORD_ITEM.match(prompt, pos)
    return item


def _item_key(item: re.Match[str]) -> str:
    key = _word(item)
    second = item.groupdict().get("second")
    return f"{key}_{second}" if second else key


def _sep_style(sep: re.Match[str]) -> str:
    """`;`, `/`, `|` or `,` (commas, `and`, ...): a list keeps the one it starts with."""
    mark = sep.group(0).strip()[:1]
    return mark if mark in (";", "/", "|") else ","


def _small_word_item(prompt: str, item: re.Match[str], after_and: bool) -> bool:
    """A word like `from` or `to` is a key inside a list (`flight, from, to and seats`):
    where the list goes on after it, or where it closes the list after `and`."""
    sep = _SEP.match(prompt, item.end())
    if sep is not None and sep.group(0).strip() and _item_at(prompt, sep.end()):
        return True
    return after_and and (_LIST_END.match(prompt, item.end()) is not None
                          or _OPENERS.match(prompt, item.end()) is not None)


def _read_list(prompt: str, start: int, out: KeyList, *, lower_only: bool) -> int:
    """Keys listed from `start`; returns how many were read (the list's span is recorded).
    After a word such as `keys`, any word is a key where the list goes on after it or closes
    with it (`keys from and to for a flight`); `etc.` makes the list unsure."""
    pos = start
    found: list[str] = []
    after_and = False
    style = ""
    while len(found) < MAX_KEYS:
        item = _item_at(prompt, pos)
        if not item:
            break
        key = _item_key(item)
        if lower_only and not key[0].islower():
            break
        if key.lower() in ("etc", "etcetera"):
            out.sure = False  # more keys than the list names
            break
        small = item.group("key") is not None and item.group("key").lower() in _STOP
        single = len(key) == 1 and not lower_only and _SEP.match(prompt, item.end())
        if small and not single and not ((found or not lower_only)
                                         and _small_word_item(prompt, item, after_and)):
            break  # single letters (`keys a, b and c`) are keys, other small words end the list
        if _HEDGED.match(prompt, item.start()):
            out.sure = False  # `and optionally city`: the key is a maybe
        found.append(key)
        if item.group("described"):
            out.described.append(key)
        declared = read_type(item.group("paren") or item.group("as") or item.group("colon"))
        if declared:
            out.types[key] = declared
        pos = item.end()
        paren = item.group("paren")
        if paren and not declared and not item.group("described") and not is_open_note(paren):
            out.sure = False  # `name and age (and city)`: a bracket that says no type
        if after_and and not re.match(r"\s*,\s*plus\s", prompt[pos : pos + 12], re.I):
            break  # `name and age` is closed: `, both required,` after it is no key
        sep = _SEP.match(prompt, pos)
        if not sep or not _fits_style(sep, style, item, key):
            break
        style = style or _sep_style(sep)
        nxt = _item_at(prompt, sep.end())
        after_and = bool(re.search(r"and|&", sep.group(0), re.I))
        if not nxt or (_item_key(nxt).lower() in _STOP and len(_item_key(nxt)) > 1
                       and not _small_word_item(prompt, nxt, after_and)):
            break
        pos = sep.end()
    if found:
        for key in found:
            if key not in out.keys:
                out.keys.append(key)
        out.spans.append((start, pos))
        after = re.match(r"\s+(?P<word>[a-z_][a-z0-9_]*)\b", prompt[pos : pos + 60])
        if _GOES_ON.match(prompt, pos) or (after and after.group("word") not in _STOP) \
                or not _LIST_FOLLOWER.match(prompt, pos) or _HEDGED.match(prompt, pos):
            out.sure = False
    return len(found)


def _fits_style(sep: re.Match[str], style: str, item: re.Match[str], key: str) -> bool:
    """A separator that goes on with the list: the kind it started with (`name; age; city`,
    not `name and age; Bruno is 40`), keys side by side only in quotes, and a one-letter
    `y` or `e` as `and` only between longer keys (`keys x, y and z` keeps `y`)."""
    text = sep.group(0).strip().lower()
    if not text:
        return item.group("quoted") is not None
    if text in ("y", "e") and len(key) == 1:
        return False
    mark = _sep_style(sep)
    return not style or mark == style or text in ("and", "&") or (
        style in (";", "/", "|") and text.endswith("and"))


_BULLET = re.compile(r"(?:[ \t]*\n|(?<=\n))[ \t]*(?:[-*•·]|\d{1,2}[.)])[ \t]+")


def _read_bullets(prompt: str, start: int, out: KeyList) -> int:
    """`keys:` then one key a line, bulleted or numbered: the keys are the lines; a line
    that is not one key alone makes the list unsure."""
    pos = start
    found: list[str] = []
    while (bullet := _BULLET.match(prompt, pos)) is not None and len(found) < MAX_KEYS:
        item = _item_at(prompt, bullet.end())
        if item is None:
            out.sure = False
            break
        found.append(_item_key(item))
        declared = read_type(item.group("paren") or item.group("as") or item.group("colon"))
        if declared:
            out.types[found[-1]] = declared
        pos = item.end()
        if not re.match(r"[ \t]*(?:\n|$)", prompt[pos:]):
            out.sure = False
            break
    if found:
        out.keys.extend(k for k in found if k not in out.keys)
        out.spans.append((start, pos))
    return len(found)


def _trailing_keys(prompt: str, out: KeyList) -> bool:
    """`Give me name, age and city as JSON`: a list that ends right before "as JSON"."""
    m = _AS_JSON.search(prompt)
    if not m:
        return False
    head = prompt[: m.start()]
    items = re.search(
        r"(?:^|\b(?:me|the|return|give|output|provide|list)\s+)"
        r"((?:[a-z_][a-z0-9_]*\s*(?:,\s*(?:and\s+)?|\s+and\s+))+[a-z_][a-z0-9_]*)$",
        head,
        re.I,
    )
    if not items:
        return False
    keys = [k for k in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", items.group(1)) if k]
    if len(keys) < 2 or any(k.lower() in _STOP for k in keys):
        return False
    out.keys.extend(k for k in keys if k not in out.keys)
    out.spans.append((items.start(1), items.end(1)))
    return True


_LEADING_LIST = re.compile(
    r"(?:^|(?<=[.!?])[ \t]+)"
    r"(?P<list>[A-Za-z_]\w*(?:\s*,\s*[a-z_]\w*)*\s*,?\s+and\s+[a-z_]\w*)\s+(?:of|for)\s"
)


def _leading_keys(prompt: str, out: KeyList) -> bool:
    """`Name, age and city of Abe, 50, ... JSON only.`: the request's sentence opens with
    its keys."""
    m = _LEADING_LIST.search(prompt)
    if not m:
        return False
    keys = [k.lower() for k in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", m.group("list"))]
    if any(k in _STOP for k in keys):
        return False
    out.keys.extend(k for k in keys if k not in out.keys)
    out.spans.append(m.span("list"))
    return True


_ADDED = re.compile(
    r"(?:^|(?<=[.;!?])\s+)(?:also\s+)?(?:include|add)\s+(?:also\s+)?(?:(?:a|an|the)\s+)?"
    r"(?:key|field|property|member)s?\s+",
    re.I,
)
_ADDED_END = re.compile(r"\s*(?:,?\s*(?:too|as\s+well|also))?\s*(?:[.;!]|$)", re.I)


def _added_keys(prompt: str, out: KeyList) -> None:
    """`Add the field email too.`: a key named after the list, in a sentence that is only
    that and says it is a key or field, is a key too. Any other `Add ...` or `Include ...`
    (`Add a decade.`, `Include tax.`, `Add comments.`) is an instruction: it adds no key,
    and, left unread, declines every value."""
    if not out.keys:
        return
    for m in _ADDED.finditer(prompt):
        trial = KeyList()
        if not _read_list(prompt, m.end(), trial, lower_only=True):
            continue
        end = _ADDED_END.match(prompt, trial.spans[-1][1])
        if not end:
            continue
        out.keys.extend(k for k in trial.keys if k not in out.keys)
        out.types.update(trial.types)
        out.spans.append((m.start(), end.end()))


def read_keys(prompt: str) -> KeyList:
    """The first key list the prompt states, in any of the shapes people write, and any key
    it adds afterwards (`Also include city`)."""
    out = _first_list(prompt)
    _added_keys(prompt, out)
    _other_lists(prompt, out)
    out.sure = out.sure and bool(out.keys)  # no list read is no list known
    return out


def _other_lists(prompt: str, out: KeyList) -> None:
    """The same list said twice (`keys name and age. Example: {"name": ...}`) is read as one;
    a second list naming other keys adds them, and the list is then not sure."""
    if not out.keys:
        return
    for m in _KEY_WORD.finditer(prompt):
        if any(a <= m.start() < b for a, b in out.spans):
            continue
        trial = KeyList()
        if not _read_list(prompt, m.end(), trial, lower_only=False):
            continue
        if m.group(0).split()[0].rstrip(":-—").lower() in out.keys:
            continue  # `keys key and value ... Key: theme`: the key `key` named beside a value
        new = [k for k in trial.keys if k not in out.keys]
        # `with keys sorted, euros` says how the keys are, not which: the words read with
        # it are no keys either, and the list is not sure
        if not any(_instruction_item(k) for k in trial.keys):
            out.keys.extend(new)
        out.sure = out.sure and not new and trial.sure
        out.spans.append((m.start(), trial.spans[-1][1]))


def _instruction_item(key: str) -> bool:
    """`sorted`, `quoted`, `indented`: a word after a second `keys` that says how they are,
    not which (the first list only for the words of `_INSTRUCTION_ITEMS`: `created` may be
    a key)."""
    return key.lower() in _INSTRUCTION_ITEMS or key.lower().endswith("ed")


def _first_list(prompt: str) -> KeyList:
    out = KeyList()
    if _read_braces(prompt, out):
        return out
    for m in _KEY_WORD.finditer(prompt):
        trial = KeyList()
        if _read_bullets(prompt, m.end(), trial) or _read_list(prompt, m.end(), trial,
                                                                lower_only=False):
            if any(k.lower() in _INSTRUCTION_ITEMS for k in trial.keys):
                continue  # `with keys sorted`: read with the other lists, never as the first
            trial.spans[-1] = (m.start(), trial.spans[-1][1])
            return trial
    for m in _JSON_WITH.finditer(prompt):
        before = len(out.keys)
        count = _read_list(prompt, m.end(), out, lower_only=True)
        if count >= 2:
            out.spans[-1] = (m.start(), out.spans[-1][1])
            return out
        del out.keys[before:]
        if count:
            out.spans.pop()
    if not _trailing_keys(prompt, out):
        _leading_keys(prompt, out)
    return out
