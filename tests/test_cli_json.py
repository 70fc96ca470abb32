"""`stepchat ask` on a JSON request: what checked each member reaches the user.

Runs the real command line with the scripted model (tests/reliability/fake_cli.py), whose
reply holds no JSON at all, so every member nobody stated falls back to a placeholder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE = [sys.executable, "-m", "tests.reliability.fake_cli"]
PROMPT = "Return a JSON object with keys name and role for a guest account named Carol."


def ask(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STEPCHAT_HOME": str(home)}
    return subprocess.run([*FAKE, "ask", *args, PROMPT], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=120)


def test_plain_ask_names_the_members_the_prompt_does_not_confirm(tmp_path: Path) -> None:
    out = ask(tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["name"] == "Carol"
    assert 'not confirmed by the prompt: "role"' in out.stderr


def test_ask_json_reports_each_members_check(tmp_path: Path) -> None:
    out = ask(tmp_path, "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert {s["key"]: s["check"] for s in record["steps"]} == {
        "name": "stated", "role": "unchecked"
    }
    assert record["verified"] is False and record["stored_entry"] is None


def test_ask_json_says_a_cut_off_answer_is_cut_off_and_does_not_cache_it(tmp_path: Path) -> None:
    """The scripted model's 300-word reply is cut at the 256-token limit."""
    env = {**os.environ, "STEPCHAT_HOME": str(tmp_path),
           "STEPCHAT_TEST_REPLY": " ".join(["piston"] * 300)}
    prompt = "Explain in detail how a car engine works."
    records = []
    for _ in range(2):
        out = subprocess.run([*FAKE, "ask", "--json", prompt], cwd=ROOT, env=env, text=True,
                             capture_output=True, timeout=120)
        assert out.returncode == 0, out.stderr
        records.append(json.loads(out.stdout))
        assert "cut off at the token limit (256 tokens); not cached" in out.stderr
    first, again = records
    assert first["finish_reason"] == "length" and first["stored_entry"] is None
    assert again["path"] == "miss" and again["hit"] is False
