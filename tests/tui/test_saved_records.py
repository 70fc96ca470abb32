"""A conversation saved by an older version opens, renders, goes on and exports.

Saved turns hold the answer's record; the app reads it into an `Answer` once, when the
file loads. Records written before `hit` and the members' `check` existed (and without
timings, tokens or model) must still draw their steps in the right colours.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.widgets import Static

from stepchat.config import Config
from stepchat.core.types import StepStatus
from stepchat.tui.export import export_name
from stepchat.tui.history import FORMAT_VERSION
from stepchat.tui.widgets.steps import AnswerView, StepBlock, UserTurn

from .conftest import FakeLoader, ask, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 36)
OLD_ID = "20240101-120000"
OLD_PROMPT = "Solve 3x + 5 = 26 for x."
OLD_ANSWER = "3x + 5 = 26\n3x = 21\nx = 7"
OLD_FILE = {
    "version": FORMAT_VERSION,
    "id": OLD_ID,
    "created": 0.0,
    "updated": 0.0,
    "model": "tiny",
    "turns": [
        {
            "prompt": OLD_PROMPT,
            "record": {
                "answer": OLD_ANSWER,
                "path": "patched",
                "task": "linear",
                "steps": [
                    {"text": "3x + 5 = 26", "status": "reused", "kind": "equation", "key": None},
                    {"text": "3x = 21", "status": "patched", "kind": "equation", "key": None},
                    {"text": "x = 7", "status": "fallback", "kind": "final", "key": None},
                ],
                "tokens": {"generated": 0, "saved": 28},
                "skip_reason": None,
            },
        },
        {"prompt": "Name a colour.", "cancelled": True, "partial": "Re"},
    ],
}


async def test_an_old_conversation_opens_renders_and_goes_on(
    make_app: Any, config: Config
) -> None:
    directory = config.paths.history_dir
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{OLD_ID}.json").write_text(json.dumps(OLD_FILE), encoding="utf-8")
    loader = FakeLoader(["Blue."])
    app = make_app(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.open_conversation(OLD_ID)
        await settle(pilot)
        assert [t.prompt for t in app.chat.query(UserTurn)] == [OLD_PROMPT, "Name a colour."]
        answered, cancelled = app.chat.query(AnswerView)
        shown = [(b.step.status, b.step.text) for b in answered.query(StepBlock)]
        assert shown == [
            (StepStatus.REUSED, "3x + 5 = 26"),
            (StepStatus.PATCHED, "3x = 21"),
            (StepStatus.FALLBACK, "x = 7"),
        ]
        summary = answered.query_one(".summary", Static).content
        assert str(summary) == "patched · 0 ms · 0 of 28 tokens written · 28 saved"
        assert answered.text == OLD_ANSWER
        assert cancelled.cancelled and cancelled.partial == "Re"

        # Going on sends the old answer as the conversation so far (not the cancelled turn).
        await ask(pilot, "Name a colour.")
        sent = [(m.role, m.content) for m in loader.backends[0].calls[-1]]
        assert sent[:2] == [("user", OLD_PROMPT), ("assistant", OLD_ANSWER)]
        assert ("user", "Name a colour.") in sent[2:]

        app.action_export()
        exported = (config.paths.exports_dir / export_name(app.conversation)).read_text()
        assert "<!-- ✓ reused -->\n3x + 5 = 26" in exported
        assert "<!-- ∑ solver -->\nx = 7" in exported

    # Saved again, the old turn is written in today's record format: `hit` is now there.
    saved = json.loads((directory / f"{OLD_ID}.json").read_text(encoding="utf-8"))
    first = saved["turns"][0]["record"]
    assert first["hit"] is True and first["answer"] == OLD_ANSWER
    assert [s["status"] for s in first["steps"]] == ["reused", "patched", "fallback"]
    assert saved["turns"][-1]["record"]["answer"] == "Blue."
