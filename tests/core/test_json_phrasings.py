"""The JSON request reader against requests whose stated values were written by hand.

data/json_phrasings.jsonl (200 prompts, 187 with a variant) was written before the reader;
data/json_phrasings_heldout.jsonl (60 prompts) after it, without running it first; the
bench generator's requests were written by someone else for another purpose. Each bound
sits just under what the reader measures, so a change that loses values or, worse, places
a wrong one fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stepchat.bench import workload as wl
from stepchat.bench.checker import same_value
from stepchat.bench.phrasings import ReaderTally, load, score_reader
from stepchat.core.tasks.json_spec import read_spec

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def main_set() -> ReaderTally:
    return score_reader(load(DATA / "json_phrasings.jsonl"))


@pytest.fixture(scope="module")
def heldout() -> ReaderTally:
    return score_reader(load(DATA / "json_phrasings_heldout.jsonl"))


def test_the_set_is_large_and_varied() -> None:
    cases = load(DATA / "json_phrasings.jsonl")
    keyed = [c for c in cases if c.is_json and c.keys]
    assert len(keyed) >= 150
    assert sum(len(c.requests()) for c in keyed) >= 300
    assert len({c.shape for c in cases}) >= 15
    assert sum(1 for c in cases if not c.is_json) >= 10


def test_every_json_request_is_recognised_and_nothing_else(
    main_set: ReaderTally, heldout: ReaderTally
) -> None:
    assert main_set.recognised == main_set.prompts
    assert heldout.recognised == heldout.prompts


def test_keys_and_types_are_read(main_set: ReaderTally, heldout: ReaderTally) -> None:
    assert main_set.keys_right == main_set.keyed
    assert heldout.keys_right >= heldout.keyed - 1
    assert main_set.types_right >= 0.99 * main_set.types_stated
    assert heldout.types_right >= 0.95 * heldout.types_stated


def test_no_stated_value_is_placed_wrong(main_set: ReaderTally, heldout: ReaderTally) -> None:
    assert main_set.found_right == main_set.found, "a value placed on the wrong key"
    assert heldout.found_right == heldout.found, "a value placed on the wrong key"


def test_stated_value_recall(main_set: ReaderTally, heldout: ReaderTally) -> None:
    """Values are stated only where every word of the prompt is accounted for, so prompts
    built to fool the reader ("not Ana", "out of 5", "Ana is 31; Bruno is 40") decline
    their keys, and so do a city the GeoNames list does not hold (`Faro`), a pronoun's
    value (`Her email is e`) and a name no construction reads: recall is lower than when
    the reader placed whatever it could not refute (0.961 and 0.790 before this). After the
    second hostile review a bare name fills only a name key, a connector before a
    determiner, a modifier or a second subject declines, `works in X` is no place: 0.901
    and 0.748 (0.930 and 0.798 before it). A cue fills only the keys of the relation it
    states (a hostile review found `born in` stated as a residence, `a nurse` as a species,
    `released in` as a founding year): an apposed noun fills no key (`a nurse` as the job,
    `a comedy` as the genre, `a parrot called Kiwi` as the species) and `works from Berlin`
    is no city: 0.890 and 0.739 (9 and 1 values the model now writes, unchecked). A cue
    after an agent named by `by` is the agent's (a later hostile review found `by Pablo
    Picasso (1881)` stated as the painting's year): `the album Blue by Joni Mitchell (1971)`
    and its twin decline, 0.883 (6 values the model now writes, unchecked)."""
    assert main_set.recall >= 0.88
    assert heldout.recall >= 0.73


def test_the_bench_generators_requests_are_read_exactly() -> None:
    """Phrasings written by someone else: every key, type and value, seeds 42-44."""
    requests = [r for seed in (42, 43, 44) for r in wl.generate(seed)
                if r.check["kind"] == "json"]
    assert len(requests) >= 400
    for req in requests:
        spec = read_spec(req.prompt)
        assert spec is not None, req.prompt
        equals = req.check["equals"]
        assert set(spec.keys) == set(equals), req.prompt
        assert set(spec.entities) == set(equals), req.prompt
        assert all(same_value(v, spec.entities[k]) for k, v in equals.items()), req.prompt
        for key, prop in req.check["schema"]["properties"].items():
            assert spec.types[key] in (prop["type"], "number" if prop["type"] == "integer"
                                       else prop["type"]), req.prompt
