"""Items 3 and 4: hostile model output and poisoned cache entries.

Invalid JSON, endless output, markup and terminal escapes from the model: verified answers
stay right or fail cleanly, and the UI's sanitizer shows the text literally. An entry
tampered with on disk is caught at reuse time; "mark wrong" (delete) evicts it for good.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import lancedb
import pytest
from rich.console import Console

from stepchat.core.types import CachePath
from stepchat.store.lance import TABLE_NAME
from tests.reliability.helpers import final_line, make_cache, open_lance

BASE = "Solve for x: 3x + 5 = 20. Show each step."
GOOD = "3x + 5 = 20\n3x = 15\nx = 5"
PERSON = ("Return a JSON object with keys name, age and city for a person whose name is Alice, "
          "age is 30 and city is Paris.")
HOSTILE = (
    "[bold red]x = 10[/bold red] [link=https://evil.example]click[/link] [@click=app.quit]q[/]"
    "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1bP+q\x1b\\\x9b31m\u202eevil\r"
)


@pytest.mark.parametrize("reply", [
    "{name: Alice, age: thirty", "```json\n{'name': 'Alice',}\n```", "not json at all",
    "{" * 5000, '{"name": "Alice", "age": "30", "city": null, "extra": 1}', HOSTILE,
])
def test_invalid_json_from_the_model_still_gives_one_valid_object(reply: str) -> None:
    answer = make_cache([reply]).answer(PERSON)
    assert json.loads(answer.text) == {"name": "alice", "age": 30, "city": "paris"} or (
        json.loads(answer.text) == {"name": "Alice", "age": 30, "city": "Paris"}
    )


def test_endless_output_is_capped_and_the_answer_stays_right() -> None:
    cache = make_cache(["x = 10 and so on " * 200_000])
    answer = cache.answer(BASE)
    assert final_line(answer.text) == "x = 5" and answer.verified is True
    calls = len(cache.backend.calls)  # type: ignore[attr-defined]
    assert answer.tokens.generated <= calls * cache.settings.max_tokens


def test_markup_and_escapes_from_the_model() -> None:
    linear = make_cache([HOSTILE + "\n" + GOOD]).answer(BASE)
    assert final_line(linear.text) == "x = 5" and "x = 10" not in linear.text
    text = make_cache([HOSTILE]).answer("Tell me a story about a cat.")
    sanitize = pytest.importorskip("stepchat.tui.sanitize")
    shown = sanitize.plain(text.text)
    assert "\x1b" not in shown.plain and "\x9b" not in shown.plain and "\u202e" not in shown.plain
    assert "[bold red]" in shown.plain and shown.spans == []  # markup shown, not applied
    buffer = io.StringIO()
    Console(file=buffer, width=200, force_terminal=True, color_system=None).print(shown)
    printed = buffer.getvalue()
    assert "[bold red]x = 10" in printed and "pwned" not in printed and "\x1b]" not in printed


def _tamper(directory: Path, entry_id: str, steps: list[dict[str, str]]) -> None:
    table = lancedb.connect(directory).open_table(TABLE_NAME)
    table.update(where=f"id = '{entry_id}'", values={"steps": json.dumps(steps)})


def test_poisoned_linear_entry_is_caught_then_mark_wrong_evicts_it(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    first = make_cache([GOOD], store=open_lance(directory)).answer(BASE)
    assert first.stored_entry
    poison = [{"text": "3x + 5 = 20", "kind": "equation"}, {"text": "3x = 30", "kind": "equation"},
              {"text": "x = 10", "kind": "final"}]
    _tamper(directory, first.stored_entry, poison)
    store = open_lance(directory)
    cache = make_cache([GOOD], store=store)
    again = cache.answer(BASE)
    assert final_line(again.text) == "x = 5" and "x = 10" not in again.text
    assert again.path == CachePath.PATCHED and again.matched_entry == first.stored_entry

    assert store.delete(first.stored_entry)  # "mark wrong"
    assert store.get(first.stored_entry) is None
    assert open_lance(directory).get(first.stored_entry) is None
    store.compact(timedelta(0))
    leftovers = [p for p in directory.rglob("*") if p.is_file() and b"3x = 30" in p.read_bytes()]
    assert leftovers == []


def test_poisoned_json_entry_is_caught(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    reply = '{"name": "Alice", "age": 30, "city": "Paris"}'
    first = make_cache([reply], store=open_lance(directory)).answer(PERSON)
    assert first.stored_entry
    expected = json.loads(first.text)
    _tamper(directory, first.stored_entry, [
        {"text": '"name": "Mallory"', "kind": "member", "key": "name"},
        {"text": '"age": "\\u001b[2J"', "kind": "member", "key": "age"},
        {"text": '"city": {"__import__": "os"}', "kind": "member", "key": "city"},
    ])
    again = make_cache(["{}"], store=open_lance(directory)).answer(PERSON)
    assert json.loads(again.text) == expected and again.path != CachePath.REUSE_ONLY
