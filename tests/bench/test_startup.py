"""The start-up bench's measuring parts: whole-process figures, screen marks, route checks."""

from __future__ import annotations

import os
import sys

import pytest

from stepchat.bench.processes import ProcessTimeout, run_in_terminal, run_measured, screen_text
from stepchat.bench.startup import CASES, CaseResult, StartupError, _checked, startup_table


def test_peak_rss_and_cpu_are_those_of_the_child() -> None:
    """A child that holds 200 MiB must report at least that; this process holds far less
    of its own garbage, so the figure cannot come from the parent."""
    code = "b = bytearray(200 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('done')"
    run = run_measured([sys.executable, "-c", code], os.environ)
    assert run.returncode == 0 and run.stdout.strip() == "done"
    assert 200 <= run.peak_rss_mib < 400
    assert run.cpu_s > 0 and run.wall_s >= run.cpu_s * 0.5


def test_a_child_past_its_time_limit_is_killed() -> None:
    with pytest.raises(ProcessTimeout):
        run_measured([sys.executable, "-c", "import time; time.sleep(30)"], os.environ,
                     timeout=0.5)


def test_terminal_marks_are_timed_when_their_text_appears() -> None:
    code = (
        "import sys, time\n"
        "print('\\x1b[1mfirst\\x1b[0m', flush=True)\n"
        "time.sleep(0.6)\n"
        "print('\\x1b[2;5Hsecond', flush=True)\n"
        "sys.stdin.read(1)\n"
    )
    run = run_in_terminal([sys.executable, "-c", code], os.environ,
                          {"one": "first", "two": "second"}, quit_after="two",
                          quit_keys=b"q\n", timeout=30)
    assert run.returncode == 0
    assert run.marks["two"] - run.marks["one"] >= 0.5


def test_screen_text_drops_escape_sequences() -> None:
    raw = b"\x1b[?1049h\x1b]0;stepchat\x07\x1b[1;1H\x1b[38;5;2mready\x1b[0m"
    assert screen_text(raw) == "ready"


def test_a_case_that_takes_another_route_is_an_error() -> None:
    structural = next(c for c in CASES if c.name.startswith("ask: structural"))
    embedded = '{"path": "reuse-only", "hit": true, "matched_entry": "e1", ' \
               '"timings_ms": {"embed": 12.5}}'
    run = run_measured([sys.executable, "-c", f"print({embedded!r})"], os.environ)
    with pytest.raises(StartupError, match="structural lookup"):
        _checked(structural, run)
    direct = embedded.replace("12.5", "0.0")
    run = run_measured([sys.executable, "-c", f"print({direct!r})"], os.environ)
    assert _checked(structural, run) == "reuse-only"


def test_table_has_a_row_per_case_with_medians() -> None:
    runs = [run_measured([sys.executable, "-c", "pass"], os.environ) for _ in range(3)]
    table = startup_table([CaseResult("--help", runs)])
    row = table.splitlines()[2]
    wall = sorted(r.wall_s for r in runs)[1]
    assert row.startswith("| --help | – | ") and f"{wall:.2f}" in row


def test_the_parents_memory_is_not_counted_as_the_childs() -> None:
    """Linux carries a process's peak RSS across fork and exec, so a child started straight
    from a big bench process would report the bench's size; the measuring process avoids it."""
    ballast = bytearray(300 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])
    run = run_measured([sys.executable, "-c", "pass"], os.environ)
    assert run.peak_rss_mib < 100
    del ballast
