"""The labelled pairs in data/pairs: every file loads, and the set is fit to measure a gate.

The loader is tested on malformed rows written here; the data checks are tested on small
sets with a planted fault before they are trusted on the real files.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest

from stepchat.bench.pairs_data import CATEGORIES, Pair, load_pairs

ROOT = Path(__file__).resolve().parents[2]
PAIRS_DIR = ROOT / "data" / "pairs"
EXPECTED = {
    "fow-cache.jsonl": 600,
    "reported.jsonl": 25,
    "handwritten.jsonl": 350,
    "holdout.jsonl": 250,
}
"""Each file the set must have, with the fewest pairs it may hold."""
OWN_FILES = ("handwritten.jsonl", "holdout.jsonl")
"""Files written for this project: each must cover every kind of difference but `reported`."""


def pair_files() -> list[Path]:
    return sorted(PAIRS_DIR.glob("*.jsonl"))


def load_all() -> dict[str, list[Pair]]:
    return {path.name: load_pairs(path) for path in pair_files()}


def pair_key(pair: Pair) -> frozenset[str]:
    """The two requests regardless of order: (a, b) and (b, a) are the same pair."""
    return frozenset((pair.a.strip(), pair.b.strip()))


def repeated(named: dict[str, list[Pair]]) -> list[str]:
    """Pairs that occur twice, within one file or across files, as `file:id` strings."""
    first: dict[frozenset[str], str] = {}
    clashes = []
    for name, pairs in named.items():
        for pair in pairs:
            where = f"{name}:{pair.id}"
            key = pair_key(pair)
            if key in first:
                clashes.append(f"{first[key]} = {where}")
            else:
                first[key] = where
    return clashes


def reused_ids(named: dict[str, list[Pair]]) -> list[str]:
    counts = Counter(pair.id for pairs in named.values() for pair in pairs)
    return sorted(pair_id for pair_id, n in counts.items() if n > 1)


def identical_sides(pairs: Iterable[Pair]) -> list[str]:
    """Pairs whose two requests are one string; padding alone is a near repeat worth keeping."""
    return [pair.id for pair in pairs if pair.a == pair.b]


def normalised(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def shared_sentences(one: Iterable[Pair], other: Iterable[Pair]) -> set[str]:
    """Requests (ignoring case, spacing and punctuation) that appear in both sets."""
    seen = {normalised(side) for pair in one for side in (pair.a, pair.b)}
    return {normalised(s) for pair in other for s in (pair.a, pair.b)} & seen


# ---- the loader on malformed rows ----------------------------------------------------------

GOOD = {"id": "x-1", "a": "Is port 22 open?", "b": "Is port 22 closed?", "same": False,
        "category": "negation", "source": "test"}

BAD_ROWS = [
    ("{not json", "not valid JSON"),
    ('["a", "b"]', "JSON object"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "b"}), "'b'"),
    (json.dumps({**GOOD, "same": "false"}), "'same'"),
    (json.dumps({**GOOD, "same": 0}), "'same'"),
    (json.dumps({**GOOD, "category": "typo"}), "unknown category"),
    (json.dumps({**GOOD, "a": "   "}), "'a'"),
    (json.dumps({**GOOD, "same_answer": False}), "unknown field"),
    (json.dumps({**GOOD, "style": 3}), "'style'"),
    (json.dumps({**GOOD, "source": None}), "'source'"),
]


@pytest.mark.parametrize(("row", "reason"), BAD_ROWS)
def test_a_malformed_row_is_refused_with_one_line_naming_file_and_line(
    tmp_path: Path, row: str, reason: str
) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + row + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_pairs(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: ")
    assert reason in message
    assert "\n" not in message


def test_a_duplicate_id_in_one_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    other = {**GOOD, "b": "Is port 23 open?", "category": "number_date"}
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(other) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r":2: duplicate id 'x-1'$"):
        load_pairs(path)


def test_an_empty_or_missing_file_is_refused_in_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no pairs"):
        load_pairs(empty)
    with pytest.raises(ValueError, match="cannot read") as caught:
        load_pairs(tmp_path / "absent.jsonl")
    assert "\n" not in str(caught.value)


def test_a_valid_file_loads_into_pairs_with_optional_tags_dropped(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    tagged = {**GOOD, "id": "x-2", "same": True, "style": "minimal", "ambiguous": "complementary"}
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(tagged) + "\n", encoding="utf-8")
    assert load_pairs(path) == [
        Pair("x-1", "Is port 22 open?", "Is port 22 closed?", False, "negation", "test"),
        Pair("x-2", "Is port 22 open?", "Is port 22 closed?", True, "negation", "test"),
    ]


# ---- the data checks, each shown to catch a planted fault ----------------------------------


def test_the_checks_catch_repeats_reused_ids_identical_sides_and_shared_sentences() -> None:
    one = Pair("p-1", "Open port 80", "Close port 80", False, "antonym", "t")
    flipped = Pair("p-2", "Close port 80 ", "Open port 80", False, "antonym", "t")
    same_id = Pair("p-1", "Open port 81", "Close port 81", False, "antonym", "t")
    echo = Pair("p-3", "Hi", "Hi", True, "near_repeat", "t")
    assert repeated({"f.jsonl": [one], "g.jsonl": [flipped]}) == ["f.jsonl:p-1 = g.jsonl:p-2"]
    assert reused_ids({"f.jsonl": [one], "g.jsonl": [same_id]}) == ["p-1"]
    assert identical_sides([one, echo]) == ["p-3"]
    assert shared_sentences([one], [Pair("p-4", "open port 80!", "x", False, "antonym", "t")])


# ---- the real files ------------------------------------------------------------------------


def test_every_expected_file_is_present_and_large_enough() -> None:
    counts = {name: len(pairs) for name, pairs in load_all().items()}
    for name, least in EXPECTED.items():
        assert counts.get(name, 0) >= least, f"{name}: {counts.get(name, 0)} pairs < {least}"


@pytest.mark.parametrize("path", pair_files(), ids=lambda p: p.name)
def test_each_file_loads_and_has_both_labels_and_no_identical_sides(path: Path) -> None:
    pairs = load_pairs(path)
    assert {pair.same for pair in pairs} == {True, False}
    assert {pair.category for pair in pairs} <= CATEGORIES
    assert identical_sides(pairs) == []


def test_ids_are_unique_and_no_pair_is_repeated_within_or_across_files() -> None:
    named = load_all()
    assert reused_ids(named) == []
    assert repeated(named) == []


def test_every_category_is_present_in_the_set() -> None:
    present = {pair.category for pairs in load_all().values() for pair in pairs}
    assert present == CATEGORIES


@pytest.mark.parametrize("name", OWN_FILES)
def test_own_files_cover_every_kind_and_are_roughly_balanced(name: str) -> None:
    pairs = load_pairs(PAIRS_DIR / name)
    assert {pair.category for pair in pairs} == CATEGORIES - {"reported"}
    share_same = sum(pair.same for pair in pairs) / len(pairs)
    assert 0.35 <= share_same <= 0.55, f"{name}: {share_same:.0%} same"


def test_reported_pairs_all_cite_where_they_were_reported() -> None:
    for pair in load_pairs(PAIRS_DIR / "reported.jsonl"):
        assert pair.category == "reported"
        assert pair.source.startswith("https://github.com/") or pair.source == "issue 8", pair.id


def test_the_holdout_shares_no_request_with_the_development_files() -> None:
    named = load_all()
    holdout = named.pop("holdout.jsonl")
    development = [pair for pairs in named.values() for pair in pairs]
    assert shared_sentences(development, holdout) == set()


def readme_counts(text: str) -> dict[str, dict[str, tuple[int, int]]]:
    """The per-file count tables of data/pairs/README.md: file -> category -> (same, different)."""
    tables: dict[str, dict[str, tuple[int, int]]] = {}
    current: dict[str, tuple[int, int]] | None = None
    for line in text.splitlines():
        heading = re.fullmatch(r"### `(.+\.jsonl)`", line.strip())
        if heading:
            current = tables.setdefault(heading.group(1), {})
            continue
        row = re.fullmatch(r"\| (\w+) \| (\d+) \| (\d+) \| (\d+) \|", line.strip())
        if current is not None and row:
            current[row.group(1)] = (int(row.group(2)), int(row.group(3)))
    return tables


def test_the_readme_counts_match_the_files() -> None:
    documented = readme_counts((PAIRS_DIR / "README.md").read_text(encoding="utf-8"))
    actual: dict[str, dict[str, tuple[int, int]]] = {}
    for name, pairs in load_all().items():
        counts = Counter((pair.category, pair.same) for pair in pairs)
        table = {cat: (counts[(cat, True)], counts[(cat, False)]) for cat, _ in counts}
        table["all"] = (sum(p.same for p in pairs), sum(not p.same for p in pairs))
        actual[name] = table
    assert documented == actual
