"""Record a real session to an SVG: `python -m stepchat.tui.screenshot OUT.svg [PROMPT ...]`.

Runs the app headless on the real parts (the configured model, MiniLM, LanceDB) in a fresh
temporary STEPCHAT home, asks the prompts in order and saves the final screen. This is how
`assets/session.svg` in the README is made, so it can be remade after a visual change.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from stepchat.tui import QUIET_ENV

DEFAULT_PROMPTS = (
    "Explain in one sentence what a cache is.",
    "Solve 3x + 5 = 20 for x.",
    "Solve 3x + 5 = 26 for x.",
    "Solve 3y + 5 = 20 for y.",
    "Solve 3x + 5 = 20 for x.",
)


async def record(out: Path, prompts: tuple[str, ...], size: tuple[int, int] = (120, 40)) -> int:
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    from stepchat.config import load_config
    from stepchat.paths import UserPaths
    from stepchat.runtime import lazy_parts
    from stepchat.tui.app import build_app

    root = Path(tempfile.mkdtemp(prefix="stepchat-shot-"))
    config = load_config(UserPaths(root / "config", root / "data"))
    app = build_app(config, lazy_parts, blink=False)
    async with app.run_test(size=size) as pilot:
        while app.cache is None and app.load_error is None:
            await pilot.pause(0.2)
        if app.load_error:
            print(f"stepchat: {app.load_error}", file=sys.stderr)
            return 1
        for prompt in prompts:
            app.chat.prompt.text = prompt
            await pilot.press("enter")
            while app.busy:
                await pilot.pause(0.1)
            await pilot.pause(0.3)
        app.save_screenshot(str(out))
    app.close_parts()
    return 0


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    return asyncio.run(record(Path(argv[0]), tuple(argv[1:]) or DEFAULT_PROMPTS))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
