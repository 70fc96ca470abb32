"""The reported JSON cases on the real stack: SmolLM2, MiniLM and LanceDB in a temp dir.

On a fresh cache: Ana then Bruno (a change of every stated value) and the Heat request twice
(the miss, then its reuse). Whatever the model writes, the served members must be the stated
ones, each marked `stated`, and the answers verified. Then issue 21's hostile requests, each
asked twice: what the prompt does not state completely and uniquely is written by the real
model, marked unchecked, and neither verified nor cached.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from stepchat.config import load_config
from stepchat.core.pipeline import StepCache
from stepchat.core.types import CachePath
from stepchat.runtime import build_cache, load_parts

pytestmark = pytest.mark.slow

PERSON = "Return a JSON object with keys name, age and city for {}."
HEAT = (
    "Return a JSON object with keys title, year and tags (a list of strings) for the film "
    "Heat (1995), tagged crime and thriller. JSON only."
)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StepCache]:
    home: Path = tmp_path_factory.mktemp("stepchat-json-home")
    with pytest.MonkeyPatch.context() as env:  # restores STEPCHAT_HOME afterwards
        env.setenv("STEPCHAT_HOME", str(home))
        config = load_config()
        yield build_cache(config, load_parts(config))


def marks(record: dict) -> set[str]:
    return {s["check"] for s in record["steps"]}


def test_bruno_after_ana(cache: StepCache) -> None:
    ana = cache.answer(PERSON.format("Ana, 31, from Porto"))
    assert json.loads(ana.text) == {"name": "Ana", "age": 31, "city": "Porto"}
    bruno = cache.answer(PERSON.format("Bruno, 40, from Lisbon")).to_record()
    assert json.loads(bruno["answer"]) == {"name": "Bruno", "age": 40, "city": "Lisbon"}
    assert bruno["verified"] is True and marks(bruno) == {"stated"}


def test_heat_twice(cache: StepCache) -> None:
    expected = {"title": "Heat", "year": 1995, "tags": ["crime", "thriller"]}
    first = cache.answer(HEAT)
    assert json.loads(first.text) == expected
    assert first.verified is True and first.stored_entry is not None
    again = cache.answer(HEAT)
    assert again.path == CachePath.REUSE_ONLY
    assert json.loads(again.text) == expected and marks(again.to_record()) == {"stated"}


HOSTILE = [
    ("Return a JSON object with keys name and age for Bruno, whose daughter is 12.",
     {"name": "Bruno"}, "age"),
    ("Return a JSON object with keys name and city for Bruno, from neither Lisbon nor Porto.",
     {"name": "Bruno"}, "city"),
    ("Return a JSON object with keys product and price for a lamp, price 1.000 EUR.",
     {}, "price"),
]


@pytest.mark.parametrize(("prompt", "kept", "declined"), HOSTILE)
def test_a_value_the_prompt_does_not_state_whole_is_never_vouched_for(
    cache: StepCache, prompt: str, kept: dict, declined: str
) -> None:
    for _ in range(2):
        record = cache.answer(prompt).to_record()
        checks = {s["key"]: s["check"] for s in record["steps"]}
        assert checks[declined] in ("unchecked", "typed"), record
        assert record["verified"] is False and record["path"] != "reuse-only", record
        for key in kept:
            assert checks[key] != "stated" or json.loads(record["answer"])[key] == kept[key]


REVIEW = Path(__file__).resolve().parents[1] / "data" / "json_hostile_review.jsonl"


def _one_per_class() -> list[dict]:
    """The hostile review's first finding of each class that it saw served from the shell."""
    records = [json.loads(line) for line in REVIEW.read_text().splitlines()]
    chosen: dict[str, dict] = {}
    for record in records:
        cls = record["class"].split()[0]
        if cls != "C12" and record["confirmed_cli"] and cls not in chosen:
            chosen[cls] = record
    return list(chosen.values())


@pytest.mark.parametrize("finding", _one_per_class(), ids=lambda r: r["class"].split()[0])
def test_the_review_findings_are_not_served_as_checked(cache: StepCache, finding: dict) -> None:
    """Asked twice with the real model: the key the review saw served wrong is present when
    the request names it, absent when it does not, never `stated` with the wrong value, and
    an answer whose member was not checked is neither verified nor cached."""
    _asked_twice(cache, finding, unsure_list_declines=False)


def _asked_twice(cache: StepCache, finding: dict, *, unsure_list_declines: bool) -> None:
    """Ask the finding's prompt twice: the finding must not hold in either answer. With
    `unsure_list_declines`, a key list read short or long may instead leave the answer not
    verified (the reader is not sure of it, so nothing is stated)."""
    key, check = finding["key"], finding["check"]
    for _ in range(2):
        answer = cache.answer(finding["prompt"])
        obj = json.loads(answer.text)
        checks = {s.key: s.check for s in answer.steps}
        declined = unsure_list_declines and not answer.verified
        if check == "missing":
            assert key in obj or declined, (obj, finding)
        elif check.startswith("extra"):
            assert key not in obj or declined, (obj, finding)
        elif check == "open":
            assert checks.get(key) != "open", (checks, finding)
        else:
            assert not (checks.get(key) == "stated" and obj.get(key) == finding["served"])
        if any(c in ("unchecked", "typed") for c in checks.values()):
            assert answer.verified is False and answer.path != CachePath.REUSE_ONLY, finding


def test_a_request_differing_only_in_symbols_is_not_served_the_others_answer(
    cache: StepCache,
) -> None:
    """C# then C++ on one cache: the second is written for itself, never served the first's
    members (its summary and tagline are checked by type only, so the first is not even
    stored; were it stored, the canonical form keeps `#` and `++` apart)."""
    first = cache.answer("Return a JSON object with keys summary and tagline for a C# bootcamp.")
    second = cache.answer("Return a JSON object with keys summary and tagline for a C++ "
                          "bootcamp.")
    assert second.path != CachePath.REUSE_ONLY
    assert first.stored_entry is None or second.matched_entry != first.stored_entry


def test_a_json_answer_is_exported_as_one_json_block_after_a_save_and_load(
    cache: StepCache, tmp_path: Path
) -> None:
    """The JSON kind's delivery rides on the real answer, survives the conversation file and
    is what the transcript reads: one `json` block holding the object, whole."""
    from stepchat.core.events import Delivery
    from stepchat.tui.export import to_markdown
    from stepchat.tui.history import Conversation, History, Turn

    answer = cache.answer(HEAT)
    assert answer.delivery == Delivery(document="json")
    history = History(tmp_path / "conversations")
    history.save(Conversation("20260102-101500", 0, 0, "tiny", [Turn(HEAT, answer=answer)]))
    loaded = history.load("20260102-101500")
    [turn] = loaded.turns
    assert turn.answer is not None and turn.answer.delivery == Delivery(document="json")
    block = to_markdown(loaded).split("```json\n", 1)[1].split("\n```", 1)[0]
    assert json.loads(block) == {"title": "Heat", "year": 1995, "tags": ["crime", "thriller"]}


REVIEW2 = Path(__file__).resolve().parent / "core" / "json_hostile_review2.jsonl"


def _one_per_class_of_round_two() -> list[dict]:
    """The second review's first finding of each class."""
    chosen: dict[str, dict] = {}
    for line in REVIEW2.read_text().splitlines():
        record = json.loads(line)
        if not record.get("done"):
            chosen.setdefault(record["class"].split()[0], record)
    return list(chosen.values())


@pytest.mark.parametrize("finding", _one_per_class_of_round_two(),
                         ids=lambda r: r["class"].split()[0])
def test_the_second_review_findings_are_not_served_as_checked(cache: StepCache,
                                                              finding: dict) -> None:
    """Asked twice with the real model: never `stated` with the value the review saw; a key
    list the reader reads short or long is not sure, so the answer is not verified; an
    answer with a member not checked is neither verified nor reused."""
    _asked_twice(cache, finding, unsure_list_declines=True)
