"""Snapshots of the app, grouped by feature; each docstring says what you should see.

Run with `--snapshot-update` after a deliberate visual change and look at the SVGs in
`__snapshots__/` before committing them.
"""

from __future__ import annotations

import threading
from typing import Any

from stepchat.config import ConfigError
from stepchat.core.events import RouteEvent, StepEvent, TokenEvent
from stepchat.core.ports import BackendError
from stepchat.core.types import Answer, AnswerStep, CachePath, StepStatus, TaskKind
from stepchat.tui.widgets.steps import AnswerView
from tests.wordprob_cases import FOG_SOLUTION, fog, fog_solution

from .conftest import LINEAR_REPLIES, FakeLoader, ask, settle

WIDE = (110, 36)


# ---- chat: empty, steps, skip-reuse ------------------------------------------------------


def test_empty_chat(snap_compare: Any, make_app: Any) -> None:
    """The chat after loading: a welcome text explaining the four step colours on the left,
    the savings panel on the right ('Tiny Test Model', 'ready', 'no answer yet', requests 0,
    cache entries 0), the empty prompt box with its placeholder, and the footer bindings."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=WIDE, run_before=run_before)


FOUR_KINDS = Answer.from_record({
    "answer": "",
    "path": "patched",
    "task": "text",
    "steps": [
        {"text": "3x + 5 = 26", "status": "reused", "kind": "equation", "key": None},
        {"text": "3x = 21", "status": "patched", "kind": "equation", "key": None},
        {
            "text": "Model text with **bold** Markdown, literal [red]markup[/red] and an"
            " escape\x1b[2J that must not clear the screen.",
            "status": "regenerated",
            "kind": "paragraph",
            "key": None,
        },
        {"text": "x = 7", "status": "fallback", "kind": "final", "key": None},
    ],
    "skip_reason": None,
    "timings_ms": {"embed": 1, "retrieve": 2, "verify": 1, "generate": 40, "total": 44},
    "tokens": {"prompt": 10, "generated": 9, "saved": 21},
    "model": "tiny",
})


def test_answer_with_all_four_step_kinds(snap_compare: Any, make_app: Any) -> None:
    """One answer, four steps, top to bottom: '✓ reused' with a green left border and badge,
    '✎ patched' amber, '✚ new' blue (its text shows **bold** rendered as bold and the words
    '[red]markup[/red]' literally, in the normal colour; no screen clearing), '∑ solver'
    magenta. Under them the dim summary 'patched · 44 ms · 9 of 30 tokens written · 21 saved'."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        view = await pilot.app.chat.add_turn("Solve 3x + 5 = 26 for x, and explain.")
        await pilot.pause()
        await view.finish(FOUR_KINDS)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=WIDE, run_before=run_before)


def test_streaming_tokens_under_settled_steps(snap_compare: Any, make_app: Any) -> None:
    """An answer still being written: route line 'cached answer, patched (patched)', one
    settled green '✓ reused' step '3x + 5 = 26', and below it, with a dashed amber border,
    the streamed text 'Subtract 5 from both' that the model is producing right now."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        view: AnswerView = await pilot.app.chat.add_turn("Solve 3x + 5 = 26 for x.")
        await pilot.pause()
        await view.apply(RouteEvent(CachePath.PATCHED, task=TaskKind.LINEAR))
        await view.apply(StepEvent(0, AnswerStep("3x + 5 = 26", "equation", StepStatus.REUSED)))
        for piece in ("Subtract", " 5", " from", " both"):
            await view.apply(TokenEvent(piece, StepStatus.PATCHED))
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=WIDE, run_before=run_before)


async def new_chat(pilot: Any) -> None:
    """Ctrl+N: the next request is a first turn, read from and written to the cache (a
    follow-up in a conversation is neither)."""
    await pilot.press("ctrl+n")
    await settle(pilot)


def test_skip_reuse_note(snap_compare: Any, make_app: Any) -> None:
    """'3x + 5 = 20' is asked and cached; then, as the first turn of a new chat (the only
    turn on screen), '2x + 4 = x + 9' shows the route 'cache skipped' and under it the dim
    italic line 'skip-reuse: equation structure changed (unknown on both sides)', then its
    blue '✚ new' steps."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        await new_chat(pilot)
        await ask(pilot, "Solve 2x + 4 = x + 9 for x.")

    app = make_app(FakeLoader(LINEAR_REPLIES))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


# ---- savings ------------------------------------------------------------------------------


def test_savings_panel_after_several_turns(snap_compare: Any, make_app: Any) -> None:
    """After four requests, each the first turn of a new chat (miss in blue, patched with
    magenta solver steps, patched by renaming in amber, reuse-only in green; the transcript
    shows the last chat's one turn, its green reused steps), the panel shows: this answer
    'reuse-only',
    0 of 11 tok generated, 11 saved; session requests 4, hit rate 75%, the tokens saved
    (only reused model text counts), a time-saved estimate from the measured model speed, and
    the cache entries (2: a patch made without the model is not stored again)."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        for n, prompt in enumerate((
            "Solve 3x + 5 = 20 for x.",
            "Solve 3x + 5 = 26 for x.",
            "Solve 3y + 5 = 20 for y.",
            "Solve 3x + 5 = 20 for x.",
        )):
            if n:
                await new_chat(pilot)
            await ask(pilot, prompt)

    app = make_app(FakeLoader(LINEAR_REPLIES[:1]))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


# ---- loading and errors -------------------------------------------------------------------


def test_loading_state(snap_compare: Any, make_app: Any) -> None:
    """While the parts load: a blue banner above the prompt 'Loading Tiny Test Model, the
    embedder and the cache… you can type meanwhile.', the panel status 'loading model,
    embedder and cache…', and a typed prompt waiting in the box."""
    gate = threading.Event()

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        pilot.app.chat.prompt.text = "Solve 3x + 5 = 20 for x."
        await pilot.pause()

    try:
        app = make_app(FakeLoader(gate=gate))
        assert snap_compare(app, terminal_size=WIDE, run_before=run_before)
    finally:
        gate.set()


def test_error_state(snap_compare: Any, make_app: Any) -> None:
    """Loading failed: a red banner '⚠ Could not load Tiny Test Model: model tiny: GGUF file
    not found: /nonexistent/tiny.gguf (fix: …) — F3 picks another model, Ctrl+R retries.',
    panel status 'not loaded', 'Retry load' in the footer; no traceback anywhere."""
    error = ConfigError(
        "model tiny: GGUF file not found: /nonexistent/tiny.gguf "
        "(fix: correct 'source' in your config.toml or reinstall the package)"
    )

    async def run_before(pilot: Any) -> None:
        await settle(pilot)

    app = make_app(FakeLoader(error=error))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def _crash(_messages: object) -> str:
    raise BackendError("llama.cpp failed to decode: out of memory (fix: lower 'context')")


def test_answer_error_is_shown_inline(snap_compare: Any, make_app: Any) -> None:
    """The model fails mid-request: under the prompt 'Write a haiku about caches.' come the
    route line 'not in the cache (miss)' and a red line '⚠ llama.cpp failed to decode: out
    of memory (fix: lower 'context')' instead of a traceback; the prompt box is ready for
    the next one."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await ask(pilot, "Write a haiku about caches.")

    app = make_app(FakeLoader([_crash]))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


# ---- cache inspector ----------------------------------------------------------------------


async def _three_entries(pilot: Any) -> None:
    """Three requests, each the first turn of its own chat, so each answer is cached (a
    follow-up in a conversation is not)."""
    await settle(pilot)
    for n, prompt in enumerate((
        "Solve 3x + 5 = 20 for x.",
        "Return a JSON object with keys name and age for Bob, 40.",
        "Solve 2x + 4 = x + 9 for x.",
    )):
        if n:
            await new_chat(pilot)
        await ask(pilot, prompt)


def test_inspector_list(snap_compare: Any, make_app: Any) -> None:
    """The inspector after three answers, each a new chat's first turn: a filter box, a
    table with columns Prompt, Task, Steps, Hits, Last used, Size and one row per cached
    request (linear and json), the first row highlighted, its details below, and 'N cached
    entries' at the bottom."""

    async def run_before(pilot: Any) -> None:
        await _three_entries(pilot)
        await pilot.press("f2")
        await settle(pilot)

    app = make_app(FakeLoader(LINEAR_REPLIES))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_inspector_detail_pane(snap_compare: Any, make_app: Any) -> None:
    """The inspector filtered by 'json': one row left, and the detail pane shows its prompt,
    id, task json, model tiny, hits, size, the constraints as JSON and its numbered steps
    ('member name', 'member age') with their text."""

    async def run_before(pilot: Any) -> None:
        await _three_entries(pilot)
        await pilot.press("f2")
        await settle(pilot)
        await pilot.press("slash", *"json", "enter")
        await settle(pilot)

    app = make_app(FakeLoader(LINEAR_REPLIES))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_evict_all_confirmation(snap_compare: Any, make_app: Any) -> None:
    """Pressing D in the inspector opens a red-bordered dialog 'Evict all N cached
    entries?' with an explanation and two buttons, 'Evict all' and 'Cancel' (focused)."""

    async def run_before(pilot: Any) -> None:
        await _three_entries(pilot)
        await pilot.press("f2")
        await settle(pilot)
        await pilot.press("D")
        await pilot.pause()

    app = make_app(FakeLoader(LINEAR_REPLIES))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


# ---- small terminals ----------------------------------------------------------------------


def test_layout_80x24(snap_compare: Any, make_app: Any) -> None:
    """At 80x24 the side panel is gone; a one-line status bar above the prompt carries the
    savings ('Tiny Test Model · reuse-only … · hit 50% · saved 11 tok · 1 cached') and
    the transcript shows the answer's green reused steps above it: the request asked again
    as the first turn of a new chat."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")
        await new_chat(pilot)
        await ask(pilot, "Solve 3x + 5 = 20 for x.")

    app = make_app(FakeLoader(LINEAR_REPLIES[:1]))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_answering_shows_cancel_key(snap_compare: Any, make_app: Any) -> None:
    """While the model is still generating, the footer offers 'esc Cancel' (absent in the
    other snapshots), the panel status reads 'answering…' and under the prompt the route
    line reads 'not in the cache (miss) · generate…'."""
    started = threading.Event()
    release = threading.Event()

    def slow(_messages: object) -> str:
        started.set()
        release.wait(timeout=10)
        return "3x + 5 = 20\n3x = 15\nx = 5"

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.chat.prompt.text = "Solve 3x + 5 = 20 for x."
        await pilot.press("enter")
        while not started.is_set():
            await pilot.pause(0.01)
        await pilot.pause()

    try:
        assert snap_compare(make_app(FakeLoader([slow])), terminal_size=WIDE, run_before=run_before)
    finally:
        release.set()


# ---- word problems --------------------------------------------------------------------------



def test_recomputed_word_problem(snap_compare: Any, make_app: Any, clock: Any) -> None:
    """A word problem asked in a new chat after the model answered it with 10 minutes and
    then with 5 (the earlier instance that shows each number following its value): it states
    8 minutes, and its three lines carry the teal '↻ recalc' badge (recomputed) and read
    '42/3 = 14 intervals of 8 minutes', '14 * 8 = 112 minutes' and '#### 112'; the
    summary line says 'patched' with tokens saved, and the panel one hit in three."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        for minutes in (10, 5, 8):
            if minutes != 10:
                clock.advance(60)  # the newer entry of the problem is the one recomputed
                await pilot.press("ctrl+n")
                await settle(pilot)
            await ask(pilot, fog(minutes, 3, 42))

    app = make_app(FakeLoader([FOG_SOLUTION, fog_solution(5, 3, 42),
                               "the model is not asked again"]))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)
