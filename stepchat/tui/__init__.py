"""The stepchat terminal app; `run` is what `stepchat` with no arguments calls."""

from __future__ import annotations

import os
from dataclasses import replace

from stepchat.config import Config

QUIET_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TOKENIZERS_PARALLELISM": "false",
    "LANCEDB_LOG": "error",
}
"""Set before the heavy imports: progress bars and log lines on stderr would land under
the TUI, and the bundled embedder must never try to reach a model hub."""


def run(config: Config, model_id: str | None = None) -> int:
    """Open the app on `model_id` (default: the config's), loading the real parts; exit code."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)

    from stepchat.runtime import lazy_parts
    from stepchat.tui.app import build_app

    if model_id is not None:
        # An unknown id is reported by the app's loading state, not as a traceback here.
        config = replace(config, default_model=model_id)
    app = build_app(config, lazy_parts)
    try:
        result = app.run()
    finally:
        app.close_parts()
    return result if isinstance(result, int) else 0
