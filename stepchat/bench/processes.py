"""Run a child process and measure it whole: wall time, CPU time and peak resident memory.

Startup cost is a property of the whole process (interpreter, imports, loading, the answer,
the exit), so it is measured from outside. `os.wait4` gives the resource usage of exactly
that child, so no external `time` program is needed. `run_in_terminal` runs the app under a
pseudo-terminal and notes when given texts first appear on its screen.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import resource
import select
import struct
import subprocess
import tempfile
import termios
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_POLL_S = 0.002
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


def _reap(pid: int, deadline: float) -> tuple[int, resource.struct_rusage]:
    """Wait for `pid` (polling, so a deadline can stop it); its exit code and rusage."""
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done == pid:
            return os.waitstatus_to_exitcode(status), usage
        if time.perf_counter() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, 9)
            os.wait4(pid, 0)
            raise ProcessTimeout(f"no exit within the time limit: pid {pid}")
        time.sleep(_POLL_S)


def _usage(usage: resource.struct_rusage) -> tuple[float, float]:
    """CPU seconds and peak RSS in MiB (Linux reports ru_maxrss in KiB)."""
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_measured(
    argv: Sequence[str], env: Mapping[str, str], *, timeout: float = 600.0
) -> ProcessRun:
    """Run `argv` to the end with no input; output is kept for the caller to check."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            list(argv), env=dict(env), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )
        code, usage = _reap(proc.pid, started + timeout)
        wall = time.perf_counter() - started
        proc.returncode = code
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    cpu, rss = _usage(usage)
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
    rows, cols = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    patterns = {name: re.compile(expr) for name, expr in marks.items()}
    seen: dict[str, float] = {}
    raw = b""
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv), env={**env, "TERM": "xterm-256color", "COLUMNS": str(cols),
                         "LINES": str(rows)},
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )
    os.close(slave)
    deadline = started + timeout
    exited: tuple[int, resource.struct_rusage] | None = None
    quitting = False
    try:
        while exited is None and time.perf_counter() < deadline:
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
            # Not proc.poll(): reaping through Popen would lose the child's rusage.
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                exited = os.waitstatus_to_exitcode(status), usage
        code, usage = exited or _reap(proc.pid, deadline)
    finally:
        os.close(master)
    proc.returncode = code
    wall = time.perf_counter() - started
    cpu, rss = _usage(usage)
    return ProcessRun(wall, cpu, rss, code, stdout=screen_text(raw[-4000:]), marks=seen)
