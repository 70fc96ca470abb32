"""From a chat request's messages to what the cache sees: system prompt, history, request.

The cache key is the last user turn, under the model and the system prompt (the scope).
Earlier turns go to the engine as history, and the engine applies the conversation rule
(`StepCache.answer`): any request can lean on them ("and in winter?", "Bruno is a chef")
and no check reads them, so a request with earlier turns is neither served from nor
written to the cache, whatever its kind. System messages are not turns: a request with
only those before it is cached as a single request, under its system prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stepchat.core.types import ChatMessage
from stepchat.serve.protocol import ApiError, MessageIn

_SYSTEM_ROLES = frozenset({"system", "developer"})


@dataclass(frozen=True)
class Turns:
    system_prompt: str | None
    """None when the request has no system message: the configured one applies."""
    history: tuple[ChatMessage, ...]
    prompt: str


def _text(message: MessageIn, index: int) -> str:
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content:
        if part.type != "text" or part.text is None:
            raise ApiError(
                400,
                f"messages.{index}.content: only text content is supported, not {part.type!r}",
                param=f"messages.{index}.content",
            )
        texts.append(part.text)
    # One part per line, as vLLM joins them: joined with nothing, "Translate into
    # French:" and "I love you" would reach the model as one run-on line.
    return "\n".join(texts)


def split_turns(messages: Sequence[MessageIn]) -> Turns:
    """System messages form the system prompt; the last message must be the user's request."""
    system: list[str] = []
    rest: list[ChatMessage] = []
    for index, message in enumerate(messages):
        text = _text(message, index)
        if message.role in _SYSTEM_ROLES:
            system.append(text)
        elif message.role in ("user", "assistant"):
            rest.append(ChatMessage(message.role, text))
        else:
            raise ApiError(
                400,
                f"messages.{index}.role: {message.role!r} is not supported "
                "(tools are not offered)",
                param=f"messages.{index}.role",
            )
    if not rest or rest[-1].role != "user":
        raise ApiError(400, "the last message must be the user's", param="messages")
    return Turns("\n\n".join(system) if system else None, tuple(rest[:-1]), rest[-1].content)

