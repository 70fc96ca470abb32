"""Conversations saved as JSON files, so a chat survives restarts and can be reopened.

One file per conversation under `config.paths.history_dir` (created 0700, files 0600:
prompts are private). A turn keeps the prompt and the answer's record, the same story
`stepchat ask --json` prints, so the transcript can be rebuilt with its step colours, and
the earlier turns can be sent to the model again when the chat goes on after a restart.
The record is read back into an `Answer` here, once, when a file loads (tolerant of the
keys older versions did not write); the app and its widgets only ever see `Answer`s.
Writes go to a temporary file first and are renamed, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from stepchat.core.types import Answer, ChatMessage, Delivery
from stepchat.paths import ensure_private_dir
from stepchat.tui.sanitize import one_line

FORMAT_VERSION = 1


class HistoryError(Exception):
    """A conversation could not be saved or read; one line for the user."""


@dataclass
class Turn:
    """One prompt and what became of it: an answer, an error, or a cancellation."""

    prompt: str
    answer: Answer | None = None
    error: str | None = None
    cancelled: bool = False
    partial: str = ""
    """What the model had streamed when the answer was cancelled or cut off by an error
    (never cached)."""
    dropped: int = 0
    """Earlier exchanges left out of this request because they no longer fit the context."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"prompt": self.prompt}
        if self.answer is not None:
            data["record"] = self.answer.to_record()
            data["delivery"] = asdict(self.answer.delivery)
        if self.error is not None:
            data["error"] = self.error
        if self.cancelled:
            data["cancelled"] = True
        if self.partial:
            data["partial"] = self.partial
        if self.dropped:
            data["dropped"] = self.dropped
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Turn:
        prompt = str(data.get("prompt", ""))
        record = data.get("record")
        return cls(
            prompt=prompt,
            answer=None if record is None else _answer(record, prompt, data.get("delivery")),
            error=data.get("error"),
            cancelled=bool(data.get("cancelled", False)),
            partial=str(data.get("partial", "")),
            dropped=int(data.get("dropped", 0)),
        )


def _answer(record: dict[str, Any], prompt: str, saved: Any) -> Answer:
    """The saved answer with its kind's `delivery` (how it is shown and exported), saved
    beside the record. A file written before it was saved there is asked of the engine's
    kinds by the name the record gives (which loads them: once, for an old file)."""
    answer = Answer.from_record(record, prompt)
    if isinstance(saved, dict):
        document = saved.get("document")
        answer.delivery = Delivery(
            streams=saved.get("streams") is True, markdown=saved.get("markdown") is True,
            document=document if isinstance(document, str) else None,
        )
    else:
        from stepchat.core.tasks.registry import BUILT_IN

        answer.delivery = BUILT_IN.delivery_of(answer.task)
    return answer


def earlier_turns(turns: list[Turn], *, unanswered: bool = False) -> list[ChatMessage]:
    """The answered turns as chat messages, oldest first: what the model is sent as the
    conversation so far. Cancelled and failed turns are left out: a question without its
    answer would read as one still waiting for a reply. `unanswered` adds the prompts of
    turns still waiting for their answer, where they are: what a prompt answered out of
    order follows (`stepchat.tui.requests`; never sent to a model)."""
    messages: list[ChatMessage] = []
    for turn in turns:
        if turn.answer is not None and turn.answer.text:
            messages += [
                ChatMessage("user", turn.prompt), ChatMessage("assistant", turn.answer.text)
            ]
        elif unanswered and turn.answer is None and turn.error is None and not turn.cancelled:
            messages.append(ChatMessage("user", turn.prompt))
    return messages


@dataclass
class Conversation:
    id: str
    created: float
    updated: float
    model: str
    turns: list[Turn] = field(default_factory=list)
    name: str = ""
    """A title the user gave it in the conversation picker; empty for none."""
    system_prompt: str | None = None
    """This chat's system prompt ("" for none); None: the one in config.toml."""

    @property
    def title(self) -> str:
        """The user's name for it, else the first prompt on one line."""
        if self.name:
            return one_line(self.name, 60)
        return one_line(self.turns[0].prompt, 60) if self.turns else "(empty)"

    @property
    def worth_listing(self) -> bool:
        """Has a turn: a chat whose only question was cancelled, or left unanswered when the
        app quit or crashed, still holds what the user typed."""
        return bool(self.turns)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": FORMAT_VERSION,
            "id": self.id,
            "created": self.created,
            "updated": self.updated,
            "model": self.model,
            "turns": [t.to_json() for t in self.turns],
        }
        if self.name:
            data["name"] = self.name
        if self.system_prompt is not None:
            data["system_prompt"] = self.system_prompt
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Conversation:
        return cls(
            id=str(data["id"]),
            created=float(data.get("created", 0.0)),
            updated=float(data.get("updated", 0.0)),
            model=str(data.get("model", "")),
            turns=[Turn.from_json(t) for t in data.get("turns", [])],
            name=str(data.get("name", "")),
            system_prompt=_optional_text(data.get("system_prompt")),
        )


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


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
        try:
            self.path(conversation_id).unlink()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise HistoryError(f"cannot delete {conversation_id}: {exc.strerror}") from None

    def rename(self, conversation_id: str, name: str) -> Conversation:
        """Give a saved conversation a title (an empty name goes back to the first prompt)."""
        conversation = self.load(conversation_id)
        conversation.name = " ".join(name.split())
        self.save(conversation)
        return conversation

    def problem(self) -> str | None:
        """Why conversations cannot be saved here, or None: checked once at start so the
        user reads the reason once instead of a failure after every answer."""
        for parent in (self.directory, *self.directory.parents):
            if parent.exists():
                if not parent.is_dir():
                    return f"{parent} is a file, not a directory"
                if not os.access(parent, os.W_OK | os.X_OK):
                    return f"{parent} is not writable"
                return None
        return None

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
            if conv.worth_listing:
                out.append(Summary(conv.id, conv.title, conv.updated, len(conv.turns), conv.model))
        out.sort(key=lambda s: (s.updated, s.id), reverse=True)
        return out
