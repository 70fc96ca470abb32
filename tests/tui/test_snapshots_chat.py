"""Snapshots of the chat as a conversation: code, JSON, cancelled and trimmed answers,
dialogs shown whole. Each docstring says what you should see.

Run with `--snapshot-update` after a deliberate visual change and look at the SVGs in
`__snapshots__/` before committing them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from stepchat.config import Config
from stepchat.paths import UserPaths
from stepchat.tui.app import build_app

from .conftest import FOUR_STATUSES, FakeLoader, PacedBackend, ask, send_until_paused, settle

WIDE = (110, 36)

CODE_ANSWER = (
    "Here is a function that reverses a string:\n\n```python\ndef reverse(text):\n"
    "    return text[::-1]\n\n\n# Example usage:\nprint(reverse(\"hello\"))\n```\n\n"
    "It uses slicing with a step of -1."
)


def test_code_answer_is_one_highlighted_block(snap_compare: Any, make_app: Any) -> None:
    """Three blue '✚ new' steps: a sentence, then ONE code step holding the whole Python
    function, blank lines included, highlighted, with '# Example usage:' as a comment in
    the code (not a centred heading), then the closing sentence."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await ask(pilot, "Write a Python function that reverses a string.")

    app = make_app(FakeLoader([CODE_ANSWER]))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_json_answer_is_one_object(snap_compare: Any, make_app: Any) -> None:
    """The same JSON object asked twice, the second time as the first turn of a new chat
    (the only turn on screen). Its answer is one highlighted object: '{', the three members
    with commas, '}'; the members carry green '✓ reused' badges, the braces none."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        prompt = (
            "Return a JSON object with keys name, age and hobby (your choice) for Ana, 30."
        )
        await ask(pilot, prompt)
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, prompt)

    app = make_app(FakeLoader(['{"name": "Ana", "age": 30, "hobby": "chess"}']))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_cancelled_answer_keeps_its_partial_text(snap_compare: Any, make_app: Any) -> None:
    """The answer was cancelled with Esc after four words: under the route line the words
    'Paris is the capital' stay, with a dashed border, and below them the italic line
    'cancelled · the partial answer is not cached'."""
    backend = PacedBackend("Paris is the capital of France and its largest city.", pause_at=4)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await send_until_paused(pilot, "Tell me about Paris.", backend)
        await pilot.press("escape")
        backend.release.set()
        await settle(pilot)

    try:
        app = make_app(FakeLoader(backend=backend))
        assert snap_compare(app, terminal_size=WIDE, run_before=run_before)
    finally:
        backend.release.set()


def test_dropped_turns_are_marked(snap_compare: Any, config: Config, clock: Any) -> None:
    """A small context: the third answer starts with an amber italic line '⋯ 1 earlier
    exchange not sent to the model: they no longer fit its context' above its route."""
    small = replace(config.models["tiny"], context=330)
    config = replace(config, models={**config.models, "tiny": small})

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        for n in range(3):
            await ask(pilot, f"Tell me about topic number {n} in twenty words please.")

    app = build_app(config, FakeLoader([" ".join(["word"] * 20)]), clock, blink=False)
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_model_picker_says_how_to_add_a_model(
    snap_compare: Any, config: Config, clock: Any
) -> None:
    """F3: the dialog 'Switch model' with the whole sentence 'Each model has its own cache:
    answers are never reused across models.', the two models (the current one marked ●),
    each with its state ('missing: GGUF file not found: /nonexistent/...'), and a hint
    naming the config file where a [[models]] entry adds a GGUF or a server."""
    # A fixed config dir so the path in the hint is the same on every run (nothing is
    # written there: no theme is chosen and no model is added).
    paths = UserPaths(Path("/home/you/.config/stepchat"), config.paths.data_dir)
    app = build_app(replace(config, paths=paths), FakeLoader(), clock, blink=False)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("f3")
        for _ in range(100):  # the states are checked in a worker
            if len(getattr(app.screen, "states", {})) == len(config.models):
                break
            await pilot.pause(0.05)
        await settle(pilot)

    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_badges_in_a_light_theme(snap_compare: Any, make_app: Any) -> None:
    """The light theme: the green '✓ reused', amber '✎ patched', blue '✚ new' and magenta
    '∑ solver' badges have dark or light text, whichever reads on their colour."""
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.theme = "textual-light"
        view = await pilot.app.chat.add_turn("Solve 3x + 5 = 26 for x.")
        await view.finish(FOUR_STATUSES)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=WIDE, run_before=run_before)
