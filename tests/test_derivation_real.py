"""Issue 21 on the real stack: `stepchat ask` with the bundled SmolLM2 GGUF, MiniLM and
LanceDB in a private home. After 3x + 5 = 20 is cached, equations with the same root no
longer come back `reuse-only` with 3x + 5 = 20's steps; a derivation the real model wrote
is reused only where its steps follow from the new equation (judged by the bench checker).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stepchat.bench.checker import check_linear

pytestmark = pytest.mark.slow


def _ask(home: Path, prompt: str, config: Path | None = None) -> dict[str, object]:
    env = {**os.environ, "STEPCHAT_HOME": str(home)}
    env.pop("STEPCHAT_CONFIG", None)
    if config is not None:
        env["STEPCHAT_CONFIG"] = str(config)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "stepchat"), "ask", "--json", prompt],
        env=env, capture_output=True, text=True, timeout=900, check=True,
    )
    record: dict[str, object] = json.loads(done.stdout)
    return record


@pytest.mark.parametrize("equation", ["5x + 3 = 28", "10 = 2x", "2x + 10 = 20", "9x = 45"])
def test_the_issue_cases_through_ask(tmp_path: Path, equation: str) -> None:
    first = _ask(tmp_path, "Solve for x: 3x + 5 = 20.")
    assert first["verified"] is True
    answer = _ask(tmp_path, f"Solve for x: {equation}.")
    text = str(answer["answer"])
    assert answer["path"] in ("patched", "solver"), answer["path"]
    assert "3x = 15" not in text and "15/3" not in text
    assert answer["verified"] is True and text.endswith("x = 5")
    assert check_linear(text, "x", "5", equation).ok
    repeat = _ask(tmp_path, "Solve for x: 3x + 5 = 20.")
    assert repeat["path"] == "reuse-only" and repeat["answer"] == first["answer"]


def test_a_model_written_derivation_is_reused_only_where_it_follows(tmp_path: Path) -> None:
    """model-first: the real model writes the first answer (repaired where it is wrong);
    each later answer's reused and patched steps must follow from its own equation."""
    config = tmp_path / "config.toml"
    config.write_text('[cache]\nlinear_strategy = "model-first"\nrepair_tries = 1\n')
    home = tmp_path / "home"
    first = _ask(home, "Solve for x: 4x - 3 = 17. Show each step.", config)
    assert first["verified"] is True
    for equation in ["4x - 3 = 17", "2x + 7 = 17", "17 = 4x - 3", "6x - 5 = 25", "x + 15 = 20"]:
        answer = _ask(home, f"Solve for x: {equation}. Show each step.", config)
        text = str(answer["answer"])
        verdict = check_linear(text, "x", "5", equation)
        assert verdict.ok, (equation, text, verdict.reason)
        assert answer["verified"] is True

