"""Every finding of the second hostile review of the JSON reader: none is served wrong.

tests/core/json_hostile_review2.jsonl has one record per wrong, missing or extra member the
second review saw (classes D1-D19; its last line is the review's summary). Each must now be
declined or right: a value served as `stated` is not stated with that value; a key the
request names is read, or the key list is unsure (nothing stated, the answer not
verified); a key it does not name is not read, or the list is unsure. Then end to end,
twice, with a model that writes exactly the value the review saw served, as round one's
findings are asked (tests/core/test_json_hostile_review.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stepchat.core.tasks.json_request import read_keys
from stepchat.core.tasks.json_spec import read_spec
from tests.core import test_json_hostile_review as round_one

FOUND = Path(__file__).with_name("json_hostile_review2.jsonl")
LINES: list[dict[str, Any]] = [json.loads(line) for line in FOUND.read_text().splitlines()]
RECORDS = [r for r in LINES if not r.get("done")]


def _id(record: dict[str, Any]) -> str:
    return f"{record['class'].split()[0]}:{record['key']}:{record['prompt'][38:100]}"


def test_the_review_is_all_here() -> None:
    assert LINES[-1]["done"] is True and LINES[-1]["tried"] == 1216
    assert len(RECORDS) == 220


def _still_found(record: dict[str, Any]) -> bool:
    """Whether the reader still reads the prompt as the review found it, in a way that
    could be verified (an unsure key list states nothing and verifies nothing)."""
    spec = read_spec(record["prompt"])
    if spec is None:
        return False
    key, check = record["key"], record["check"]
    if check == "stated":
        return key in spec.entities and spec.entities[key] == record["served"]
    if check == "open":
        return key in spec.open
    sure = read_keys(record["prompt"]).sure
    if check == "missing":
        return sure and key not in spec.keys
    return sure and key in spec.keys  # extra


@pytest.mark.parametrize("record", RECORDS, ids=_id)
def test_no_finding_holds_in_the_reading(record: dict[str, Any]) -> None:
    assert not _still_found(record), record


@pytest.mark.parametrize("record", RECORDS, ids=_id)
def test_asked_twice_nothing_is_served_as_checked(record: dict[str, Any]) -> None:
    round_one.test_asked_twice_no_finding_is_served_as_checked(record)
