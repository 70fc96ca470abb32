"""A backend that replies from a script: deterministic tests and snapshots.

Each call pops the next reply; when the script runs out the last reply repeats. Replies may
also be a callable of the messages, for tests that answer from the prompt. Tokens are
counted as whitespace-separated words, so counts are predictable; a reply longer than the
call's `max_tokens` is cut there and says so (`finish_reason` "length"), as a model's would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stepchat.core.ports import CancelToken, GenerationCancelled
from stepchat.core.types import ChatMessage, Completion

Reply = str | Callable[[Sequence[ChatMessage]], str]


class ScriptedBackend:
    def __init__(self, replies: Sequence[Reply] = ("",), model_id: str = "scripted") -> None:
        self._replies = list(replies) or [""]
        self.model_id = model_id
        self.calls: list[list[ChatMessage]] = []
        self.schemas: list[dict[str, Any] | None] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def load(self) -> float:
        """Nothing to load: a script is ready at once."""
        return 0.0

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Completion:
        self.calls.append(list(messages))
        self.schemas.append(json_schema)
        reply = self._replies.pop(0) if len(self._replies) > 1 else self._replies[0]
        text = reply(messages) if callable(reply) else reply
        every = text.split(" ")
        words = every[:max_tokens] if max_tokens > 0 else []
        finish = "length" if len(words) < len(every) and text else "stop"
        produced: list[str] = []
        for i, word in enumerate(words):
            if cancel is not None and cancel.is_set():
                raise GenerationCancelled()
            piece = word if i == 0 else " " + word
            produced.append(piece)
            if on_token is not None:
                on_token(piece)
        out = "".join(produced)
        prompt_tokens = sum(self.count_tokens(m.content) for m in messages)
        return Completion(out, prompt_tokens, self.count_tokens(out), finish)
