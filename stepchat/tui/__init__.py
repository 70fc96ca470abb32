"""The stepchat terminal app; `run` is what `stepchat` with no arguments calls."""

from __future__ import annotations

from dataclasses import replace

from stepchat.config import Config
from stepchat.quiet import quiet_environment


def run(config: Config, model_id: str | None = None) -> int:
    """Open the app on `model_id` (default: the config's), loading the real parts; exit code."""
    quiet_environment()

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
