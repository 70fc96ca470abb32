"""Items 9 and 10 through the real command line: bad input and privacy.

Most cases run `stepchat` with the scripted model (tests/reliability/fake_cli.py) so each
process costs imports only; one case loads the real model to prove `--no-store` leaves no
trace of the prompt anywhere under $STEPCHAT_HOME.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from stepchat.paths import UserPaths

ROOT = Path(__file__).resolve().parents[2]
FAKE = [sys.executable, "-m", "tests.reliability.fake_cli"]
REAL = [sys.executable, "-m", "stepchat.cli"]


def run(cmd: list[str], home: Path, args: list[str | bytes], stdin: bytes = b"",
        timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "STEPCHAT_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([*cmd, *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, timeout=timeout)


def one_line_error(out: subprocess.CompletedProcess[bytes], words: str) -> None:
    err = out.stderr.decode(errors="replace").strip()
    assert out.returncode == 2, err
    assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err


CASES: list[tuple[str, list[str | bytes], bytes, str]] = [
    ("empty", ["ask", ""], b"", "empty"),
    ("whitespace", ["ask", "  \n\t  "], b"", "empty"),
    ("binary argv", ["ask", b"\xff\xfe\x80 solve x"], b"", "not UTF-8"),
    ("binary stdin", ["ask", "-"], b"\xff\xfe\x00\x81binary", "not UTF-8"),
    ("nul stdin", ["ask", "-"], b"solve\x00 x = 1", "NUL"),
]


def test_bad_prompts_are_one_line_errors(tmp_path: Path) -> None:
    """All cases run side by side; each ends with exit 2 and one line on stderr."""
    env = {**os.environ, "STEPCHAT_HOME": str(tmp_path)}
    procs = [
        (name, words, subprocess.Popen([*FAKE, *args], cwd=ROOT, env=env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE))
        for name, args, _stdin, words in CASES
    ]
    for (_name, words, proc), case in zip(procs, CASES, strict=True):
        out, err = proc.communicate(case[2], timeout=120)
        one_line_error(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), words)


def test_a_prompt_over_a_million_characters_is_one_line_and_exit_2(tmp_path: Path) -> None:
    prompt = ("Solve for x: 3x + 5 = 20. " + "padding " * 140_000).encode()
    assert len(prompt) > 1_000_000
    out = run(FAKE, tmp_path, ["ask", "-"], stdin=prompt)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr == (b"stepchat: the prompt is 1,120,025 characters; the most one may "
                          b"have is 1,000,000\n")


def test_cache_and_history_dirs_are_private(tmp_path: Path) -> None:
    from stepchat.tui.history import Conversation, History, Turn

    out = run(FAKE, tmp_path, ["ask", "Solve for x: 3x + 5 = 20."])
    assert out.returncode == 0, out.stderr
    paths = UserPaths(config_dir=tmp_path / "config", data_dir=tmp_path / "data")
    saved = History(paths.history_dir).save(
        Conversation("c1", 0.0, 0.0, "scripted", [Turn("a private prompt")])
    )
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    for directory in (paths.cache_dir, paths.history_dir):
        assert directory.is_dir()
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory


def _tree_contains(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def _marked_solve_request() -> tuple[str, str]:
    """A solve request carrying a unique number (a linear request holds no other word, so
    the marker is a constant of its equation), and that number."""
    marker = str(10**11 + uuid.uuid4().int % 10**11)
    return f"Solve for x: 3x + {marker} = {15 + int(marker)}.", marker


def test_a_stored_prompt_is_found_on_disk(tmp_path: Path) -> None:
    """The control for the --no-store test: the search does find a stored prompt."""
    prompt, marker = _marked_solve_request()
    out = run(FAKE, tmp_path, ["ask", prompt])
    assert out.returncode == 0, out.stderr
    assert _tree_contains(tmp_path, marker.encode())


@pytest.mark.slow
def test_no_store_leaves_no_trace_with_the_real_model(tmp_path: Path) -> None:
    prompt, marker = _marked_solve_request()
    out = run(REAL, tmp_path, ["ask", "--no-store", prompt], timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().strip().splitlines()[-1] == "x = 5"
    assert _tree_contains(tmp_path, marker.encode()) == []


@pytest.mark.slow
def test_over_context_prompt_with_the_real_model(tmp_path: Path) -> None:
    """~3000 tokens against a 2048-token context: a one-line error or a told truncation."""
    prompt = "Tell me about " + " ".join(f"{i % 10}" for i in range(2990))
    out = run(REAL, tmp_path, ["ask", prompt], timeout=300)
    err = out.stderr.decode(errors="replace")
    assert "Traceback" not in err
    if out.returncode == 0:
        assert "truncat" in err
    else:
        assert out.returncode == 2 and len(err.strip().splitlines()) == 1, err
