"""Issue 12 items 7 and 8: nothing from the cache, the model or a prompt drives the terminal.

Stored prompts and steps may carry escape sequences (OSC 0 retitles the window, OSC 8 fakes
a link, CSI 2J clears the screen), C1 controls (`\\x9b` is a one-byte CSI) and bidi
overrides (U+202E). They are written into the table with LanceDB's own API, as a tampering
user could; `cache list` and `ask` must print none of them, `show --json` and `ask --json`
must spell them as `\\uXXXX`, and a prompt keeps none of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import lancedb

from stepchat.core.prompt import clean_prompt
from stepchat.store.lance import TABLE_NAME
from tests.reliability.helpers import fake_cli

HOSTILE = (
    "\x1b]0;pwned\x07\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x1b[2J\x9b31m"
    "\u202eevil\u2066\x07\x85"
)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What must never reach a terminal: C0 (but tab/newline), DEL, C1 and bidi controls."""


def _tamper(home: Path, entry_id: str, prompt: str, steps: list[dict[str, str]]) -> None:
    table = lancedb.connect(home / "data" / "cache").open_table(TABLE_NAME)
    table.update(where=f"id = '{entry_id}'",
                 values={"prompt": prompt, "steps": json.dumps(steps)})
    # The signature index is derived from the table and keeps its own copy: drop it, so the
    # tampered row is what the next request reads (and indexes again).
    for index in (home / "data" / "cache").glob("signatures.sqlite3*"):
        index.unlink()


def test_cli_prints_no_control_characters(tmp_path: Path) -> None:
    home = tmp_path / "home"
    story = "Tell me a short story about a red kite over the hills."
    stored = json.loads(fake_cli(home, "ask", "--json", story).stdout)
    entry_id = stored["stored_entry"]
    hostile_prompt = story + HOSTILE
    _tamper(home, entry_id, hostile_prompt, [{"text": "Once" + HOSTILE, "kind": "paragraph"}])

    listing = fake_cli(home, "cache", "list").stdout
    assert entry_id in listing and RAW.findall(listing) == []

    shown = fake_cli(home, "cache", "show", entry_id).stdout
    assert RAW.findall(shown) == [] and "\\u009b" in shown and "\\u202e" in shown
    assert json.loads(shown)["prompt"] == hostile_prompt  # escaped, not lost

    again = fake_cli(home, "ask", story)  # served from the (tampered) cache
    assert "Once" in again.stdout and RAW.findall(again.stdout + again.stderr) == []
    record = fake_cli(home, "ask", "--json", story).stdout
    assert RAW.findall(record) == [] and json.loads(record)["answer"].startswith("Once")


def test_a_prompt_keeps_no_bidi_or_c1_controls() -> None:
    text, _ = clean_prompt("Solve for x: 3x + 5 = 20\u202e02 = 5 + x3\x9b2J\u2066.")
    assert RAW.findall(text) == [] and text.startswith("Solve for x: 3x + 5 = 20")
