"""What the app remembers between runs that is not configuration: the chosen theme.

Kept apart from the user's `config.toml`, which the app never rewrites (it may carry the
user's comments and layout). A missing or unreadable file means defaults; a failed write
is reported by the caller once and otherwise ignored: a theme is not worth an error loop.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from stepchat.paths import ensure_private_dir


def load_prefs(path: Path) -> dict[str, Any]:
    """The saved preferences, or {} when there are none or they cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_pref(path: Path, key: str, value: Any) -> None:
    """Set one preference, keeping the others; raises OSError when it cannot be written."""
    prefs = load_prefs(path)
    prefs[key] = value
    ensure_private_dir(path.parent)
    tmp = path.with_suffix(".json.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(prefs, fh, indent=1)
    os.replace(tmp, path)
