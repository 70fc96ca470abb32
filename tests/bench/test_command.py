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
    assert args.run_bench is run
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
    from stepchat.bench.scale import measure_size, scale_table

    row = measure_size(500, tmp_path, lookups=20, inserts=5, evict=10)
    assert row["index"] == "flat"
    assert row["lookup_top1_found"] == 1.0
    assert row["evicted"] == 10
    assert row["disk_bytes"] > 0 and row["rss_bytes"] > 0
    assert "| 500 | flat |" in scale_table([row])


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
