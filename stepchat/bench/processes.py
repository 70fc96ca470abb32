"""Run a child process and measure it whole: wall time, CPU time and peak resident memory.

Startup cost is a property of the whole process (interpreter, imports, loading, the answer,
the exit), so it is measured from outside. A process started from this one would inherit
this one's peak resident size (Linux keeps the high-water mark across fork and exec), so
each command is started by a small measuring process (`_MEASURE`, a bare interpreter) that
spawns it, waits for it with `os.wait4` and reports that child's own wall time, CPU time
and peak RSS. `run_in_terminal` runs the app under a pseudo-terminal and notes when given
texts first appear on its screen.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_POLL_S = 0.002
_MEASURE = (
    "import json, os, sys, time\n"
    "report, argv = sys.argv[1], sys.argv[2:]\n"
    "started = time.perf_counter()\n"
    "pid = os.posix_spawn(argv[0], argv, os.environ)\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "wall = time.perf_counter() - started\n"
    "with open(report, 'w') as fh:\n"
    "    json.dump({'wall': wall, 'cpu': usage.ru_utime + usage.ru_stime,\n"
    "               'rss_kib': usage.ru_maxrss,\n"
    "               'code': os.waitstatus_to_exitcode(status)}, fh)\n"
)
"""Runs argv[2:] and writes its figures to argv[1]; `-S -I` keeps this process small."""
_SCREEN_TAIL = 200_000
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


@dataclass(frozen=True)
class ProcessRun:
    """One finished child: how long it took and the most memory it held."""

    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    returncode: int
    stdout: str = ""
    stderr: str = ""
    marks: dict[str, float] = field(default_factory=dict)
    """Seconds from start until each watched text first appeared on the terminal."""


class ProcessTimeout(Exception):
    """The child ran past its time limit and was killed."""


def _reap(pid: int, deadline: float) -> None:
    """Wait for the measuring process (polling, so a deadline can stop it)."""
    while True:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return
        if time.perf_counter() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, 9)
            os.wait4(pid, 0)
            raise ProcessTimeout(f"no exit within the time limit: pid {pid}")
        time.sleep(_POLL_S)


def _measured_argv(argv: Sequence[str], report: str) -> list[str]:
    program = shutil.which(argv[0]) or argv[0]
    return [sys.executable, "-S", "-I", "-c", _MEASURE, report, program, *argv[1:]]


def _report(path: str, fallback_wall: float) -> tuple[float, float, float, int]:
    """Wall s, CPU s, peak RSS MiB and exit code as the measuring process wrote them."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return (float(data.get("wall", fallback_wall)), float(data["cpu"]),
            float(data["rss_kib"]) / 1024, int(data["code"]))


def run_measured(
    argv: Sequence[str], env: Mapping[str, str], *, timeout: float = 600.0
) -> ProcessRun:
    """Run `argv` to the end with no input; output is kept for the caller to check."""
    with tempfile.TemporaryDirectory(prefix="stepchat-measure-") as tmp, \
            tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        report = os.path.join(tmp, "report.json")
        started = time.perf_counter()
        proc = subprocess.Popen(
            _measured_argv(argv, report), env=dict(env), stdin=subprocess.DEVNULL,
            stdout=out, stderr=err, start_new_session=True,
        )
        _reap(proc.pid, started + timeout)
        wall, cpu, rss, code = _report(report, time.perf_counter() - started)
        proc.returncode = code
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return ProcessRun(wall, cpu, rss, code, stdout, stderr)


def screen_text(raw: bytes) -> str:
    """What a terminal stream says with its escape sequences removed."""
    return _ANSI.sub("", raw.decode("utf-8", "replace"))


def run_in_terminal(
    argv: Sequence[str],
    env: Mapping[str, str],
    marks: Mapping[str, str],
    *,
    quit_after: str,
    quit_keys: bytes = b"\x11",
    size: tuple[int, int] = (40, 140),
    timeout: float = 600.0,
) -> ProcessRun:
    """Run a full-screen program on a pseudo-terminal; time when each pattern first shows.

    `marks` maps a name to a regular expression searched in the screen text. Once the mark
    `quit_after` is seen, `quit_keys` are typed (Ctrl+Q by default) and the run ends when
    the program exits.
    """
    master, slave = pty.openpty()
    report_dir = tempfile.mkdtemp(prefix="stepchat-measure-")
    report = os.path.join(report_dir, "report.json")
    rows, cols = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    patterns = {name: re.compile(expr) for name, expr in marks.items()}
    seen: dict[str, float] = {}
    raw = b""
    started = time.perf_counter()
    proc = subprocess.Popen(
        _measured_argv(argv, report),
        env={**env, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)},
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )
    os.close(slave)
    deadline = started + timeout
    exited = False
    quitting = False
    try:
        while not exited and time.perf_counter() < deadline:
            if select.select([master], [], [], 0.01)[0]:
                try:
                    raw += os.read(master, 65536)
                except OSError:  # the program exited and closed the terminal
                    pass
                else:
                    now = time.perf_counter() - started
                    text = screen_text(raw[-_SCREEN_TAIL:])
                    for name, pattern in patterns.items():
                        if name not in seen and pattern.search(text):
                            seen[name] = now
            if quit_after in seen and not quitting:
                os.write(master, quit_keys)
                quitting = True
            exited = os.waitpid(proc.pid, os.WNOHANG)[0] == proc.pid
        if not exited:
            _reap(proc.pid, deadline)
        wall = time.perf_counter() - started
        _, cpu, rss, code = _report(report, wall)
    finally:
        os.close(master)
        shutil.rmtree(report_dir, ignore_errors=True)
    proc.returncode = code
    return ProcessRun(wall, cpu, rss, code, stdout=screen_text(raw[-4000:]), marks=seen)
