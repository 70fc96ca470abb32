"""`stepchat bench --word-problems --instances`: solved instances grouped by problem, in the
GSM-Symbolic release's format, as a workload the rules were not built on. The files here
are written from the package templates' own variants (the release itself is not on the
package index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stepchat.bench.wordprob.instances import InstancesError, read_instances
from stepchat.bench.wordprob.run import of_kinds, run_language, summarise, workload
from stepchat.bench.wordprob.templates import TemplateSource
from stepchat.core.settings import DEFAULT_SETTINGS
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore


def _release_file(templates: TemplateSource, path: Path, per_kind: int, limit: int) -> int:
    """The templates' first requests and numbers variants written as the release writes
    its instances, templates interleaved; how many templates."""
    requests = of_kinds(workload(templates, "eng", seed=11, per_kind=per_kind, limit=limit),
                        "numbers")
    order: dict[str, int] = {}
    rows = []
    for request in requests:
        n = order.setdefault(request.template, 0)
        order[request.template] = n + 1
        rows.append({"id": int(request.template), "instance": n,
                     "question": request.prompt, "answer": request.solution})
    rows.sort(key=lambda row: (row["instance"], row["id"]))
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return len(order)


def test_instances_are_grouped_per_problem_first_then_variants(
    templates: TemplateSource, tmp_path: Path,
) -> None:
    path = tmp_path / "GSM_p1.jsonl"
    count = _release_file(templates, path, per_kind=4, limit=6)
    requests = read_instances(path, "eng", per_template=3)
    assert len({r.template for r in requests}) == count
    for template in {r.template for r in requests}:
        mine = [r for r in requests if r.template == template]
        assert [r.kind for r in mine] == ["first", "everything", "everything", "everything"]
        assert [r.position for r in mine] == [0, 0, 1, 2]
        assert len({r.prompt for r in mine}) == 4
        assert all(r.answer is not None for r in mine)
    assert len({r.template for r in read_instances(path, "eng", 1, limit=2)}) == 2


def test_instances_are_served_and_never_wrong(templates: TemplateSource, tmp_path: Path) -> None:
    path = tmp_path / "instances.jsonl"
    _release_file(templates, path, per_kind=5, limit=25)
    judged = run_language(
        read_instances(path, "eng", per_template=5), ["stepcache"], bundled=None,
        embedder=HashedEmbedder(), new_store=MemoryStore, settings=DEFAULT_SETTINGS,
    )
    ours = summarise(judged)["eng"]["stepcache"]["everything"]
    assert ours["served_right"] > 0
    assert ours["served_wrong"] == 0


@pytest.mark.parametrize(("line", "why"), [
    ("not json", r"instances.jsonl:2: not JSON"),
    (json.dumps({"id": 1, "instance": 0, "question": "q"}), r":2: needs `id`, `instance`"),
    (json.dumps({"id": 1, "instance": 0, "question": "q", "answer": "2 + 2 = 4"}),
     r":2: the answer ends in no `#### number`"),
])
def test_a_damaged_line_is_one_clear_error(tmp_path: Path, line: str, why: str) -> None:
    path = tmp_path / "instances.jsonl"
    good = {"id": 0, "instance": 0, "question": "Ana has 3 apples.", "answer": "3\n#### 3"}
    path.write_text(json.dumps(good) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InstancesError, match=why):
        read_instances(path, "eng", 5)


def test_the_command_runs_a_file_of_instances(templates: TemplateSource, tmp_path: Path) -> None:
    path = tmp_path / "GSM_p2.jsonl"
    _release_file(templates, path, per_kind=3, limit=3)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "bench", "--word-problems", "--instances", str(path),
         "--variants", "3", "--word-arms", "reference,stepcache", "--out", str(out)],
        capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "wordprob.json").read_text())
    assert summary["config"]["templates"] == str(path)
    assert summary["summary"]["eng"]["stepcache"]["everything"]["requests"] == 9
    missing = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "bench", "--word-problems", "--instances",
         str(tmp_path / "none.jsonl"), "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert missing.returncode == 2
    assert missing.stderr.strip().count("\n") == 0 and "none.jsonl" in missing.stderr
