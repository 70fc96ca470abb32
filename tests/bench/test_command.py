"""The `bench` subcommand's flags, workload selection, progress bar and scale bench."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from stepchat.bench import workload as wl
from stepchat.bench.arms import ARM_NAMES
from stepchat.bench.command import build_workloads, register, run
from stepchat.bench.progress import ProgressBar


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="stepchat")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["bench", *argv])


def test_defaults_run_every_arm_on_three_seeds() -> None:
    args = parse()
    assert args.arms == list(ARM_NAMES)
    assert args.func is run
    workloads = build_workloads(args)
    assert list(workloads) == [42, 43, 44]
    assert all(len(w) == wl.requests_per_seed() for w in workloads.values())


def test_quick_is_one_seed_and_a_small_subset_of_the_full_workload() -> None:
    workloads = build_workloads(parse("--quick", "--seeds", "7,8"))
    assert list(workloads) == [7]
    full_ids = {r.id: r for r in wl.generate(7)}
    assert len(workloads[7]) == 24
    assert all(full_ids[r.id] == r for r in workloads[7])


def test_flags_parse_lists() -> None:
    args = parse("--seeds", "1,2", "--arms", "nocache,stepcache", "--scale", "1_000,10000")
    assert args.seeds == [1, 2]
    assert args.arms == ["nocache", "stepcache"]
    assert args.scale == [1000, 10000]


@pytest.mark.parametrize(("flag", "value"), [("--arms", "nocache,redis"), ("--seeds", "a,b")])
def test_bad_lists_are_usage_errors(flag: str, value: str) -> None:
    with pytest.raises(SystemExit):
        parse(flag, value)


def test_a_workload_file_is_used_for_every_seed(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text(
        '{"id": "a", "prompt": "Solve for x: 2x = 4.", '
        '"check": {"kind": "linear", "variable": "x", "solution": "2"}}\n'
    )
    workloads = build_workloads(parse("--workload", str(path), "--seeds", "5,6"))
    assert {s: [r.id for r in w] for s, w in workloads.items()} == {5: ["a"], 6: ["a"]}


def test_a_bad_workload_file_exits_2_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{oops\n")
    assert run(parse("--workload", str(path))) == 2
    assert "line 1" in capsys.readouterr().err


def test_write_workload_writes_the_first_seed_and_loads_back(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    assert run(parse("--write-workload", str(path), "--seeds", "43")) == 0
    assert wl.load(path) == wl.generate(43)


def test_progress_bar_off_a_terminal_prints_a_line_per_tenth() -> None:
    stream = io.StringIO()
    bar = ProgressBar(20, stream=stream)
    for _ in range(20):
        bar.advance("seed 42 nocache")
    out = stream.getvalue().splitlines()
    assert len(out) == 11  # the first request, then every tenth
    assert out[-1].startswith("[" + "#" * 30 + "] 20/20")


@pytest.mark.slow
def test_scale_bench_measures_a_real_store(tmp_path: Path) -> None:
    """Real MiniLM vectors, a real LanceDB cache, the probe in a process of its own."""
    from stepchat.bench.scale import inspector_table, run_scale, scale_table

    rows = run_scale(
        [400, 1200], workdir=tmp_path, lookups=30, with_model=False, vectors_dir=tmp_path / "v"
    )
    small, big = rows
    assert small["vectors"] == "MiniLM" and small["search"] == "mirror"
    assert small["top1_recall"] == 1.0 and big["top1_recall"] == 1.0
    assert small["evicted"] == 100 and big["entries"] == 1200
    assert small["disk_bytes"] > 0 and small["rss_store_bytes"] > 0
    assert "| 400 | MiniLM | local disk | mirror |" in scale_table(rows)
    # Opening the inspector and a lookup made meanwhile, as it is and as it was.
    assert all(r["f2_open_ms"] > 0 and r["f2_lookup_max_ms"] > 0 for r in rows)
    assert all(r["f2_before_open_ms"] > 0 for r in rows)
    assert inspector_table(rows).count("\n| 1,200 |") == 1
    assert len(list((tmp_path / "v").glob("minilm-1200-*.npy"))) == 1  # one embedding served both


def test_scale_workload_past_the_real_pool_is_synthetic_and_says_so() -> None:
    import numpy as np

    from stepchat.bench import scale_data

    def embed(texts: list[str]) -> np.ndarray:
        rng = np.random.default_rng(len(texts))
        v = rng.standard_normal((len(texts), 16)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    real = scale_data.build(150, 10, embed, None, real_pool=200)
    grown = scale_data.build(1000, 10, embed, None, real_pool=200)
    assert not real.synthetic and len(real) == 150 and real.vectors.shape == (150, 16)
    assert grown.synthetic and len(grown) == 1000 and grown.queries.shape == (10, 16)
    assert all(p.startswith("synthetic #") for p in grown.prompts[:5])
    assert np.allclose(np.linalg.norm(grown.vectors, axis=1), 1.0, atol=1e-5)
    best = scale_data.exact_bests(grown)
    assert best.shape == (10,) and (best > 0.5).all()  # each lookup has a close family member


def test_bench_without_its_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "gptcache" else real(name)
    )
    from stepchat.bench.command import main

    assert main(["--quick"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "gptcache" in err and "[bench]" in err
