"""The generated workload: deterministic per seed, well-formed, in the paper's shape."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

from stepchat.bench import workload as wl
from stepchat.bench.algebra import parse_solution, parse_text, solution_set
from stepchat.bench.checker import check
from stepchat.bench.records import Request

KINDS = {
    "linear": {"para", "rename", "const", "format", "semantic"},
    "json": {"para", "value", "addkey", "renamekey", "semantic"},
}


def test_same_seed_gives_the_same_workload_byte_for_byte() -> None:
    assert wl.dumps(wl.generate(42)) == wl.dumps(wl.generate(42))


def test_different_seeds_give_different_workloads() -> None:
    assert wl.dumps(wl.generate(42)) != wl.dumps(wl.generate(43))


def test_size_matches_the_documented_count() -> None:
    requests = wl.generate(44)
    assert len(requests) == wl.requests_per_seed() == 320
    assert len({r.id for r in requests}) == len(requests)


def test_each_family_has_k_variants_of_each_kind_and_its_base_arrives_first() -> None:
    requests = wl.generate(42)
    position = {r.id: i for i, r in enumerate(requests)}
    families = Counter(r.id.split("-")[0] for r in requests)
    assert len(families) == 2 * wl.BASES_PER_TASK
    for family in families:
        members = [r for r in requests if r.id.split("-")[0] == family]
        base = position[f"{family}-base"]
        assert all(position[m.id] > base for m in members if not m.id.endswith("-base"))
        task = members[0].check["kind"]
        kinds = Counter(m.id.split("-")[1] for m in members if not m.id.endswith("-base"))
        assert kinds == dict.fromkeys(KINDS[task], wl.VARIANTS_PER_PERTURBATION)


def test_bases_are_interleaved_rather_than_one_family_after_another() -> None:
    requests = wl.generate(42)
    switches = sum(
        a.id.split("-")[0] != b.id.split("-")[0] for a, b in itertools.pairwise(requests)
    )
    assert switches > len(requests) // 2


@pytest.mark.parametrize("seed", [42, 43, 44])
def test_every_linear_solution_follows_from_the_equation_in_the_prompt(seed: int) -> None:
    """Re-solve each prompt's equation with the checker's own reader, exactly."""
    for req in wl.generate(seed):
        if req.check["kind"] != "linear":
            continue
        v = req.check["variable"]
        match = re.search(rf"([-\d{v}() +]+) = ([-\d{v}() +]+?)(?:[.?,]| for)", req.prompt)
        assert match, req.prompt
        found = solution_set(parse_text(match.group(1)), parse_text(match.group(2)))
        assert found == parse_solution(req.check["solution"]), req.id


def test_semantic_linear_variants_cover_unique_none_and_all() -> None:
    solutions = Counter(
        r.check["solution"] if r.check["solution"] in ("none", "all") else "value"
        for r in wl.generate(42)
        if "-semantic-" in r.id and r.check["kind"] == "linear"
    )
    assert solutions["none"] > 0 and solutions["all"] > 0 and solutions["value"] > 0


@pytest.mark.parametrize("seed", [42, 43])
def test_json_checks_are_valid_and_determinable_from_the_prompt(seed: int) -> None:
    for req in wl.generate(seed):
        if req.check["kind"] != "json":
            continue
        assert "JSON" in req.prompt
        schema, equals = req.check["schema"], req.check["equals"]
        jsonschema.validate(equals, schema)
        assert set(schema["required"]) == set(equals)
        for key, value in equals.items():
            shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
            assert re.search(rf"\b{key}(:| is)? {re.escape(shown)}\b", req.prompt), (req.id, key)


def test_dump_and_load_round_trip(tmp_path: Path) -> None:
    requests = wl.generate(42)
    path = tmp_path / "w.jsonl"
    wl.dump(requests, path)
    assert wl.load(path) == requests


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ('{"id": "a", "prompt": "p"}', "line 2: missing check"),
        ('{"id": "a", "prompt": "p", "check": {"kind": "poem"}}', "check.kind"),
        ('{"id": "a", "prompt": "p", "check": {"kind": "linear", "variable": "x"}}', "solution"),
        ('{"id": "ok", "prompt": "p", "check": {"kind": "json", "schema": {}}}', "duplicate"),
    ],
)
def test_load_names_the_bad_line(tmp_path: Path, line: str, message: str) -> None:
    good = '{"id": "ok", "prompt": "Solve for x: x = 1.", "check": {"kind": "linear", '
    good += '"variable": "x", "solution": "1"}}'
    path = tmp_path / "w.jsonl"
    path.write_text(good + "\n" + line + "\n")
    with pytest.raises(wl.WorkloadError, match=message):
        wl.load(path)


def test_quick_subset_keeps_two_families_per_task_one_variant_each_in_order() -> None:
    full = wl.generate(42)
    quick = wl.quick_subset(full, bases=2, k=1)
    assert len(quick) == 2 * 2 * (1 + 5)
    order = [r.id for r in full]
    assert [r.id for r in quick] == [i for i in order if i in {q.id for q in quick}]


def test_quick_subset_of_a_file_without_families_takes_its_head() -> None:
    loose = [Request(f"r{i}", "hello", {"kind": "json", "schema": {}}) for i in range(40)]
    assert wl.quick_subset(loose) == loose[:24]


def test_a_linear_line_without_an_equation_takes_it_from_its_prompt(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text(
        '{"id": "a", "prompt": "Solve for x: 5x + 3 = 28.", "check": {"kind": "linear", '
        '"variable": "x", "solution": "5"}}\n'
    )
    (request,) = wl.load(path)
    assert not check("3x = 15\nx = 15/3\nx = 5", request.check).ok
    assert check("5x = 25\nx = 25/5\nx = 5", request.check).ok
