"""Issue 12 item 12: every directory stepchat creates for the user is 0700.

`mkdir(parents=True, mode=0o700)` gave the mode to the last component only, so
`$STEPCHAT_HOME/data` and the platform data dir were 0755; LanceDB's own folders inside the
cache followed the umask. Both runs below start from paths that do not exist yet.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAKE = [sys.executable, "-m", "tests.reliability.fake_cli"]


def _ask(env: dict[str, str]) -> None:
    out = subprocess.run([*FAKE, "ask", "Solve for x: 3x + 5 = 20."], cwd=ROOT, env=env,
                         capture_output=True, timeout=180)
    assert out.returncode == 0, out.stderr


def _modes(root: Path) -> dict[str, str]:
    dirs = [root, *(p for p in root.rglob("*") if p.is_dir())]
    return {str(d.relative_to(root.parent)): oct(stat.S_IMODE(d.stat().st_mode)) for d in dirs}


def test_stepchat_home_dirs_are_private(tmp_path: Path) -> None:
    home = tmp_path / "fresh" / "home"
    _ask({**os.environ, "STEPCHAT_HOME": str(home), "HF_HUB_OFFLINE": "1"})
    modes = _modes(tmp_path / "fresh")
    assert len(modes) >= 5, modes  # fresh, home, data, cache and the table's folders
    assert set(modes.values()) == {"0o700"}, modes


def test_platform_data_dir_is_private(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "STEPCHAT_HOME"}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg" / "share"),
               XDG_CONFIG_HOME=str(tmp_path / "xdg" / "config"), HF_HUB_OFFLINE="1")
    _ask(env)
    modes = _modes(tmp_path / "xdg")
    assert "xdg/share/stepchat/cache" in modes, modes
    assert set(modes.values()) == {"0o700"}, modes
