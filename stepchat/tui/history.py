"""Conversations saved as JSON files, so a chat survives restarts and can be reopened.

One file per conversation under `config.paths.history_dir` (created 0700, files 0600:
prompts are private). A turn keeps the prompt and the answer's record, the same story
`stepchat ask --json` prints, so the transcript can be rebuilt with its step colours.
Writes go to a temporary file first and are renamed, so a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stepchat.paths import ensure_private_dir
from stepchat.tui.sanitize import clean, one_line

FORMAT_VERSION = 1


class HistoryError(Exception):
    """A conversation could not be saved or read; one line for the user."""


@dataclass
class Turn:
    """One prompt and what became of it: an answer record, an error, or a cancellation."""

    prompt: str
    record: dict[str, Any] | None = None
    error: str | None = None
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"prompt": self.prompt}
        if self.record is not None:
            data["record"] = self.record
        if self.error is not None:
            data["error"] = self.error
        if self.cancelled:
            data["cancelled"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Turn:
        return cls(
            prompt=str(data.get("prompt", "")),
            record=data.get("record"),
            error=data.get("error"),
            cancelled=bool(data.get("cancelled", False)),
        )


@dataclass
class Conversation:
    id: str
    created: float
    updated: float
    model: str
    turns: list[Turn] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The first prompt, on one line; conversations are named by how they started."""
        return one_line(self.turns[0].prompt, 60) if self.turns else "(empty)"

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "id": self.id,
            "created": self.created,
            "updated": self.updated,
            "model": self.model,
            "turns": [t.to_json() for t in self.turns],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Conversation:
        return cls(
            id=str(data["id"]),
            created=float(data.get("created", 0.0)),
            updated=float(data.get("updated", 0.0)),
            model=str(data.get("model", "")),
            turns=[Turn.from_json(t) for t in data.get("turns", [])],
        )


@dataclass(frozen=True)
class Summary:
    """What the reopen list shows, without keeping every conversation in memory."""

    id: str
    title: str
    updated: float
    turns: int
    model: str


class History:
    """The conversations directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def new_id(self, now: float) -> str:
        """A sortable id from the time; a suffix keeps it unique within the same second."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
        candidate, n = stamp, 1
        while (self.directory / f"{candidate}.json").exists():
            n += 1
            candidate = f"{stamp}-{n}"
        return candidate

    def path(self, conversation_id: str) -> Path:
        return self.directory / f"{conversation_id}.json"

    def save(self, conversation: Conversation) -> Path:
        try:
            ensure_private_dir(self.directory)
            target = self.path(conversation.id)
            tmp = target.with_suffix(".json.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(conversation.to_json(), fh, ensure_ascii=False, indent=1)
            os.replace(tmp, target)
            return target
        except OSError as exc:
            raise HistoryError(
                f"cannot save conversation in {self.directory}: {exc.strerror}"
            ) from None

    def load(self, conversation_id: str) -> Conversation:
        path = self.path(conversation_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return Conversation.from_json(data)
        except OSError as exc:
            raise HistoryError(f"cannot read {path.name}: {exc.strerror}") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise HistoryError(f"{path.name} is not a stepchat conversation: {exc}") from None

    def delete(self, conversation_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(conversation_id).unlink()

    def list(self) -> list[Summary]:
        """Saved conversations, most recently updated first; unreadable files are skipped."""
        if not self.directory.is_dir():
            return []
        out: list[Summary] = []
        for path in self.directory.glob("*.json"):
            try:
                conv = Conversation.from_json(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if conv.turns:
                out.append(Summary(conv.id, conv.title, conv.updated, len(conv.turns), conv.model))
        out.sort(key=lambda s: (s.updated, s.id), reverse=True)
        return out


_MD_ANYWHERE = re.compile(r"([\\`*_\[\]<>!|~])")
_MD_LINE_START = re.compile(r"^(\s*)(\d*)((?<![0-9])[#+=-]|(?<=[0-9])[.)](?=\s|$))", re.M)
_STATUSES = {"reused", "patched", "regenerated", "fallback"}


def md_literal(text: str) -> str:
    """`text` for a Markdown file, shown as written: controls and escapes removed, and the
    characters that would start emphasis, links, images, HTML, code, tables, headings or
    lists backslash-escaped (so a prompt cannot add a link or hide text in a comment)."""
    text = _MD_ANYWHERE.sub(r"\\\1", clean(text))
    return _MD_LINE_START.sub(lambda m: f"{m.group(1)}{m.group(2)}\\{m.group(3)}", text)


def to_markdown(conversation: Conversation) -> str:
    """The transcript as Markdown, each step tagged with where it came from."""
    title, model = md_literal(conversation.title), md_literal(conversation.model)
    lines = [f"# {title}", "", f"Model: {model}", ""]
    for turn in conversation.turns:
        lines += ["## You", ""]
        prompt = md_literal(turn.prompt).splitlines()
        lines += [f"> {line}" if line else ">" for line in prompt] or [">"]
        lines.append("")
        if turn.record is not None:
            record = turn.record
            lines += [f"## stepchat ({md_literal(str(record.get('path', '?')))})", ""]
            if record.get("skip_reason"):
                lines += [f"*skip-reuse: {md_literal(one_line(str(record['skip_reason'])))}*", ""]
            for step in record.get("steps", []):
                status = str(step.get("status", "?"))
                label = status if status in _STATUSES else "?"
                lines += [f"<!-- {label} -->", md_literal(str(step.get("text", ""))), ""]
            tokens = record.get("tokens", {})
            lines += [
                f"*{int(tokens.get('generated', 0))} tokens generated, "
                f"{int(tokens.get('saved', 0))} saved*",
                "",
            ]
        elif turn.cancelled:
            lines += ["*cancelled*", ""]
        elif turn.error:
            lines += [f"*error: {md_literal(one_line(turn.error))}*", ""]
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
