"""From a chat request's messages to what the cache sees: system prompt, history, request.

The cache key is the last user turn, under the model and the system prompt (the scope).
Earlier turns go to the engine as history, and the engine applies the conversation rule:
an open-text follow-up ("and in winter?") can lean on them, so it is neither served from
nor written to the cache; an equation or a JSON object is checked against the request
itself, so it is reused whatever came before. Keying on the whole conversation instead
would make every follow-up a miss, even "Solve for x: 3x + 5 = 20" asked on turn five.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stepchat.core.types import ChatMessage
from stepchat.serve.protocol import ApiError, MessageIn

_SYSTEM_ROLES = frozenset({"system", "developer"})
_TOKENS_PER_MESSAGE = 4
"""Role and separator tokens a chat template adds around every message."""


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
                f"messages[{index}]: only text content is supported, not {part.type!r}",
                param=f"messages.{index}.content",
            )
        texts.append(part.text)
    return "".join(texts)


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
                f"messages[{index}]: role {message.role!r} is not supported "
                "(tools are not offered)",
                param=f"messages.{index}.role",
            )
    if not rest or rest[-1].role != "user":
        raise ApiError(400, "the last message must be the user's", param="messages")
    return Turns("\n\n".join(system) if system else None, tuple(rest[:-1]), rest[-1].content)


def trim_history(
    history: Sequence[ChatMessage],
    budget: int,
    count_tokens: Callable[[str], int],
) -> tuple[ChatMessage, ...]:
    """The newest turns that fit in `budget` tokens; older ones are dropped whole.

    Dropping from the oldest end keeps the turns a follow-up most likely refers to, and an
    assistant turn never leads what is kept (a reply without its question misleads).
    """
    kept: list[ChatMessage] = []
    used = 0
    for message in reversed(history):
        cost = count_tokens(message.content) + _TOKENS_PER_MESSAGE
        if used + cost > budget:
            break
        kept.append(message)
        used += cost
    kept.reverse()
    while kept and kept[0].role == "assistant":
        kept.pop(0)
    return tuple(kept)


def history_budget(
    context: int, max_tokens: int, system_prompt: str, prompt: str,
    count_tokens: Callable[[str], int],
) -> int:
    """Tokens left for earlier turns once the system prompt, request and reply have room."""
    fixed = count_tokens(system_prompt) + count_tokens(prompt) + 2 * _TOKENS_PER_MESSAGE
    return max(0, context - max_tokens - fixed)
