"""`stepchat bench --json-phrasings`: the file format, the judge, and a whole run on fakes."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.bench.command import register
from stepchat.bench.phrasings import (
    PhrasingError,
    ServedTally,
    distractor_table,
    judge,
    load,
    score_reader,
    serve_all,
    tables,
)
from stepchat.core.pipeline import StepCache
from stepchat.core.types import ChatMessage
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

DATA = Path(__file__).resolve().parents[2] / "data" / "json_phrasings.jsonl"


def record(answer: dict, checks: dict, verified: bool) -> dict:
    return {
        "answer": json.dumps(answer),
        "verified": verified,
        "steps": [{"key": k, "check": c} for k, c in checks.items()],
    }


def test_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    for text, words in (("{nope\n", "not valid JSON"), ('{"prompt": 3}\n', "prompt"),
                        ('{"prompt": "x", "keys": "a"}\n', "keys"), ("\n", "no phrasings")):
        bad.write_text(text)
        with pytest.raises(PhrasingError) as info:
            load(bad)
        assert words in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(PhrasingError):
        load(tmp_path / "missing.jsonl")


def test_judge_counts_what_the_engine_claims() -> None:
    keys = ("name", "age", "city")
    stated = {"name": "Bruno", "age": 40, "city": "Lisbon"}
    right = judge(record({"name": "Bruno", "age": 40, "city": "Lisbon"},
                         dict.fromkeys(keys, "stated"), True), keys, stated)
    assert (right.members, right.right, right.wrong, right.verified_wrong) == (3, 3, 0, 0)
    assert right.one_object == 1
    lied = judge(record({"name": "Bruno", "age": 40, "city": "Bruno"},
                        dict.fromkeys(keys, "stated"), True), keys, stated)
    assert (lied.wrong, lied.wrong_claimed, lied.verified_wrong) == (1, 1, 1)
    flagged = judge(record({"name": "Bruno", "age": 40, "city": "Bruno"},
                           {"name": "stated", "age": "stated", "city": "unchecked"}, False),
                    keys, stated)
    assert (flagged.wrong, flagged.wrong_claimed, flagged.marked_unchecked) == (1, 0, 1)
    invented = judge(record({"name": "Bruno", "age": 40, "city": "Paris"},
                            dict.fromkeys(keys, "stated"), True), keys, {"name": "Bruno"})
    assert invented.false_stated == 2 and invented.verified_wrong == 1
    prose = judge({"answer": "Sure! {}", "verified": None, "steps": []}, keys, stated)
    assert prose.one_object == 0 and prose.wrong == 3


def test_reader_figures_on_a_tiny_set(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    lines = [
        {"id": "1", "prompt": "Return a JSON object with keys name and age for Ivan, 64.",
         "keys": ["name", "age"], "types": {"age": "integer"},
         "stated": {"name": "Ivan", "age": 64}},
        {"id": "2", "prompt": "What is JSON?", "json": False},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    tally = score_reader(load(path))
    assert (tally.prompts, tally.recognised, tally.keys_right) == (2, 2, 1)
    assert (tally.recall, tally.precision, tally.types_right) == (1.0, 1.0, 1)


def test_a_model_that_is_always_wrong_never_gets_a_wrong_member_vouched_for() -> None:
    """The whole phrasing set on fakes, with a model that answers every request with the
    same wrong object: what the prompt states is filled or the member is flagged."""

    def wrong(messages: Sequence[ChatMessage]) -> str:
        return '{"name": "Mallory", "age": 99, "city": "Atlantis", "title": "The Shining"}'

    def new_cache() -> StepCache:
        return StepCache(ScriptedBackend([wrong]), HashedEmbedder(), MemoryStore())

    cases = load(DATA)
    served = serve_all(cases, new_cache)
    assert served.requests == sum(len(c.requests()) for c in cases if c.is_json)
    assert served.errors == 0
    assert served.one_object == served.requests
    assert served.wrong_claimed == 0 and served.false_stated == 0 and served.verified_wrong == 0
    # Recall: members the reader states (774 of 831 with the whole-prompt accounting);
    # a member it cannot account for is the (here always wrong) model's, marked unchecked.
    # 0.902 after the second review; 0.885 (735) since a cue states only its own relation
    # and whose it is must be shown: an apposed "a nurse" is no job, a year in brackets
    # after a maker's name may be the maker's.
    assert served.right >= 0.88 * served.members
    text = tables("set", score_reader(cases), served, distractor_table(cases[:20]))
    assert "**wrong stated members served**" in text and "| **0** |" in text
    assert "| distractor |" in text and "| **1.000** |" in text


def test_the_flag_reaches_the_handler(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser(prog="stepchat")
    register(parser.add_subparsers(dest="command"))
    bad = tmp_path / "x.jsonl"
    bad.write_text("{broken\n")
    args = parser.parse_args(["bench", "--json-phrasings", str(bad), "--out", str(tmp_path)])
    assert args.json_phrasings == bad
    assert args.func(args) == 2  # a one-line error, before any model is loaded


def test_served_tallies_add_up() -> None:
    total = ServedTally()
    total.add(ServedTally(requests=1, right=2))
    total.add(ServedTally(requests=1, wrong=1))
    assert (total.requests, total.right, total.wrong) == (2, 2, 1)
