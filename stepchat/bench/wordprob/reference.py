"""The reference stand-in: a "strong model" that replies with the template's own solution.

It plays what a large model behind a `kind = "openai"` entry would be for these problems:
right on every request it has a solution for, at the token cost of writing that solution.
It is a stand-in, said so in every table: no model is run. A question it has no solution
for (a trap, whose meaning changed) gets a reply without a number, which the engine
neither trusts nor stores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stepchat.core.ports import CancelToken
from stepchat.core.types import ChatMessage, Completion

UNKNOWN = "I have no reference solution for this question."


class ReferenceBackend:
    """Answers each known question with its solution; counts tokens with `counter`."""

    def __init__(
        self,
        solutions: dict[str, str],
        counter: Callable[[str], int] | None = None,
        model_id: str = "reference",
    ) -> None:
        self.solutions = solutions
        self.model_id = model_id
        self._count = counter or (lambda text: max(1, round(len(text.split()) * 1.3)))
        self.calls = 0

    def count_tokens(self, text: str) -> int:
        return self._count(text)

    def load(self) -> float:
        return 0.0

    def reply_for(self, prompt: str) -> str:
        return self.solutions.get(prompt.strip(), UNKNOWN)

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
        self.calls += 1
        user = next((m.content for m in reversed(messages) if m.role == "user"), "")
        text = self.reply_for(user)
        if on_token is not None:
            on_token(text)
        prompt_tokens = sum(self.count_tokens(m.content) for m in messages)
        return Completion(text, prompt_tokens, self.count_tokens(text))
