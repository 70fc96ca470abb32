"""Look-alike key lists: the hand-written JSON requests with their keys changed in the ways
a hostile review found the reader taken in by.

The distractors (`json_distractors`) add words to a request and keep its keys. These change
the keys themselves, and so what the request asks:

- `qualified-key`: a key renamed with a qualifier that makes it another value
  (`age` -> `retirement_age`, `year` -> `sequel_year`, `city` -> `mother_city`): nothing the
  request states is that value, so the renamed key must never be stated.
- `identity-key`: the first key, a name, renamed to a key naming something else (`title`,
  `song`, `company`, `username`, `player`): the subject's name is not its value.
- `list-joiner`: the first joiner of the key list replaced by one no closed list holds
  (`、`, ` · `, ` + `, ` along with `, ` as well as `): the reader must read every key or be
  unsure of the list; a key lost or added on a list it calls sure is wrong.

A member stated for a renamed key counts against precision, as does a key list read wrong
while the reader calls it sure. Recall is not asked: these requests are not the originals.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from stepchat.bench.phrasings import Phrasing

CLASSES = ("qualified-key", "identity-key", "list-joiner")
_QUALIFIERS = ("retirement", "max", "mother", "sequel", "previous", "target", "average")
_UNITS = ("lb", "in_dog_years", "next_year", "usd")
_IDENTITIES = ("title", "song", "company", "username", "player", "product", "customer")
_BY_POSITION = re.compile(r"\w\s*:\s*[^:]*,[^:]*$|^[^.]*,[^.]*\.\s+\S[^.]*\bjson\b", re.I)
"""A request whose values follow its key list after a colon, or come first, bound by
position (`keys name, age and city: Sven, 50, Bergen`): renaming a key renames what the
request says of it, so no look-alike of those kinds is made from it."""
_LICENSED = {"username": ("user", "account"),
             "title": ("post", "film", "movie", "book", "novel", "song", "album")}
_JOINERS = ("、", " · ", " + ", " along with ", " as well as ", " together with ", " • ")


@dataclass(frozen=True)
class KeyAlike:
    """A request with its key list changed, the key that must not be stated (if any) and
    the keys the changed list names."""

    id: str
    cls: str
    prompt: str
    renamed: str | None
    keys: tuple[str, ...]


def _rename(prompt: str, key: str, new: str) -> str | None:
    """The prompt with the key's first mention as a word renamed, or None."""
    m = re.search(rf"(?<![\w\"'])({re.escape(key)})(?![\w\"'])", prompt)
    if m is None:
        return None
    return prompt[: m.start()] + new + prompt[m.end() :]


def keyalikes(cases: list[Phrasing]) -> Iterator[KeyAlike]:
    """Every request of `cases` with each class applied where it can be."""
    for case in (c for c in cases if c.is_json and len(c.keys) >= 2):
        for which, prompt, _stated in case.requests():
            base = f"{case.id}-{which}"
            joined = re.search(rf"\b{re.escape(case.keys[0])}(,\s*|\s+and\s+)"
                               rf"{re.escape(case.keys[1])}\b", prompt)
            if joined is not None:
                for joiner in _JOINERS:
                    changed = prompt[: joined.start(1)] + joiner + prompt[joined.end(1) :]
                    yield KeyAlike(f"{base}-j-{joiner.strip()}", "list-joiner", changed, None,
                                   case.keys)
            if _BY_POSITION.search(prompt):
                continue  # `keys title, age and city: Sven, 50, Bergen` binds by position
            for i, key in enumerate(case.keys[1:], 1):
                word = _QUALIFIERS[i % len(_QUALIFIERS)]
                for new in (f"{word}_{key}", f"{key}_{_UNITS[i % len(_UNITS)]}"):
                    renamed = _rename(prompt, key, new)
                    if renamed is not None:
                        keys = tuple(new if k == key else k for k in case.keys)
                        yield KeyAlike(f"{base}-q-{new}", "qualified-key", renamed, new, keys)
            if case.keys[0] in ("name", "full_name"):
                for new in _IDENTITIES:
                    renamed = _rename(prompt, case.keys[0], new)
                    said = set(re.findall(r"[a-z]+", prompt.lower()))
                    if renamed is not None and not said & {new, *_LICENSED.get(new, ())}:
                        # (`a player called Lionel Messi`, `an account named Carol`, `a post
                        # named Launch` do say what the name is)
                        keys = (new, *case.keys[1:])
                        yield KeyAlike(f"{base}-i-{new}", "identity-key", renamed, new, keys)


@dataclass
class KeyTally:
    prompts: int = 0
    wrong: list[str] = field(default_factory=list)

    @property
    def precision_ok(self) -> bool:
        return not self.wrong


def score(items: list[KeyAlike]) -> dict[str, KeyTally]:
    """Per class, the prompts read wrong: a renamed key stated, or a key list read short or
    long while the reader calls it sure."""
    from stepchat.core.tasks.json_request import read_keys
    from stepchat.core.tasks.json_spec import read_spec

    out = {cls: KeyTally() for cls in CLASSES}
    for item in items:
        tally = out[item.cls]
        tally.prompts += 1
        spec = read_spec(item.prompt)
        if spec is None:
            continue
        if item.renamed is not None and item.renamed in spec.entities:
            tally.wrong.append(f"{item.id}: {item.renamed}={spec.entities[item.renamed]!r} "
                               f"in {item.prompt!r}")
        if item.cls == "list-joiner" and spec.keys and read_keys(item.prompt).sure \
                and set(spec.keys) != set(item.keys):
            tally.wrong.append(f"{item.id}: keys {spec.keys} in {item.prompt!r}")
    return out


def table(tallies: dict[str, KeyTally]) -> str:
    """Prompts and wrong readings per class (Markdown)."""
    lines = ["| look-alike key list | prompts | read wrong |", "|---|---:|---:|"]
    lines += [f"| {cls} | {t.prompts} | {len(t.wrong)} |" for cls, t in tallies.items()]
    return "\n".join(lines) + "\n"
