"""The environment the heavy imports need to stay quiet and offline, written once.

Set before torch, sentence-transformers and LanceDB load: their progress bars and log lines
on stderr would land under the app or across the bench's progress line, and the bundled
embedder must never try to reach a model hub. The app, the bench and the bench's child
processes all take it from here.
"""

from __future__ import annotations

import os

QUIET_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TOKENIZERS_PARALLELISM": "false",
    "LANCEDB_LOG": "error",
}


def quiet_environment() -> None:
    """Apply `QUIET_ENV` to this process, keeping any value the user set."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
