"""A conversation as Markdown: readable, and with every answer's code and JSON copyable.

Each step is tagged with where it came from in an HTML comment, which Markdown viewers do
not show. A tag must never land inside a fenced code block (the copied code would not run),
so code stays whole, and a JSON answer is written as one object in a `json` block with its
members' statuses on a line below it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from stepchat.core.tasks.text_task import fence_after
from stepchat.paths import ensure_private_dir
from stepchat.tui.history import Conversation, HistoryError, Turn, dropped_note


def member_statuses(record: dict[str, Any]) -> str:
    """'name: reused · age: fallback', with each member's check where the record has one."""
    parts = []
    for step in record.get("steps", []):
        label = f"{step.get('key') or '?'}: {step.get('status', '?')}"
        if step.get("check"):
            label += f" ({step['check']})"
        parts.append(label)
    return " · ".join(parts)


def is_json_record(record: dict[str, Any]) -> bool:
    steps = record.get("steps", [])
    return record.get("task") == "json" or (
        bool(steps) and all(s.get("kind") == "member" for s in steps)
    )


def _steps(record: dict[str, Any]) -> list[str]:
    """Tagged steps; a step continuing an open fence (a record written before code blocks
    were kept whole) is appended untagged so the block still closes around real code."""
    lines: list[str] = []
    fence = ""
    for step in record.get("steps", []):
        text = str(step.get("text", ""))
        if not fence:
            lines.append(f"<!-- {step.get('status', '?')} -->")
        lines += [text, ""]
        fence = fence_after(text, fence)
    if fence:
        lines += [fence, ""]
    return lines


def _answer(record: dict[str, Any]) -> list[str]:
    lines = [f"## stepchat ({record.get('path', '?')})", ""]
    if record.get("skip_reason"):
        lines += [f"*skip-reuse: {record['skip_reason']}*", ""]
    if is_json_record(record):
        lines += ["```json", str(record.get("answer", "")).strip(), "```", ""]
        lines += [f"*{member_statuses(record)}*", ""]
    else:
        lines += _steps(record)
    tokens = record.get("tokens", {})
    lines += [
        f"*{tokens.get('generated', 0)} tokens generated, {tokens.get('saved', 0)} saved*",
        "",
    ]
    return lines


def _turn(turn: Turn) -> list[str]:
    lines = ["## You", ""]
    lines += [f"> {line}" if line else ">" for line in turn.prompt.splitlines()] or [">"]
    lines.append("")
    if turn.dropped:
        lines += [f"*{dropped_note(turn.dropped)}*", ""]
    if turn.record is not None:
        lines += _answer(turn.record)
    elif turn.cancelled:
        if turn.partial:
            lines += ["## stepchat (cancelled)", "", turn.partial.strip(), ""]
            if fence := fence_after(turn.partial):
                lines += [fence, ""]
        lines += ["*cancelled*", ""]
    elif turn.error:
        lines += [f"*error: {turn.error}*", ""]
    return lines


def to_markdown(conversation: Conversation) -> str:
    """The transcript as Markdown, each step tagged with where it came from."""
    lines = [f"# {conversation.title}", "", f"Model: `{conversation.model}`", ""]
    for turn in conversation.turns:
        lines += _turn(turn)
    return "\n".join(lines).rstrip() + "\n"


def export_markdown(conversation: Conversation, directory: Path) -> Path:
    """Write the transcript to `directory/<id>.md` (private) and return the path."""
    try:
        ensure_private_dir(directory)
        target = directory / f"{conversation.id}.md"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(to_markdown(conversation))
        return target
    except OSError as exc:
        raise HistoryError(f"cannot export to {directory}: {exc.strerror}") from None
