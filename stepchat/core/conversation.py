"""Earlier turns sent with a request, trimmed oldest-first to fit the model's context.

A chat model answers "What is my favourite colour?" only if it sees the turn that said so,
so every front end (the app, `stepchat serve`) sends the conversation so far with each
request. A small model's context fills after a few answers (2048 tokens for the bundled
one), so whole exchanges are dropped from the oldest end until the rest, the system prompt,
the request and room for the reply fit. Tokens are counted with the model's own tokenizer;
callers show how many exchanges were left out, so nobody wonders why the model forgot.

Which of these requests the cache may serve is the engine's rule (`StepCache.answer`): any
request can lean on earlier turns, so inside a conversation none is served from or written
to the cache, even when every earlier turn was trimmed away here (front ends say so with
`in_conversation`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stepchat.core.types import ChatMessage

FOLLOW_UP_NOTE = "a follow-up in a conversation: not cached"
"""Why a follow-up neither came from nor went to the cache: front ends show it
on the answer itself, where the reader looks for why the cache was not used."""

WAITING_NOTE = "asked while an earlier question waits for its answer: not cached"
"""FOLLOW_UP_NOTE's wording where an earlier question has no answer yet (the app answers
from the cache while the model writes): the request may lean on that question as on any
earlier turn, but "a follow-up" reads as if something was answered."""


def waiting_in(history: Sequence[ChatMessage]) -> bool:
    """Whether `history` holds a question no answer follows yet."""
    return any(m.role == "user" and (i + 1 == len(history) or history[i + 1].role != "assistant")
               for i, m in enumerate(history))


MESSAGE_OVERHEAD = 6
"""Tokens a chat template adds around each message (ChatML: `<|im_start|>`, the role, a
newline, `<|im_end|>` and a newline), so a history of many short turns is not undercounted."""


@dataclass(frozen=True)
class FittedHistory:
    """The earlier turns to send, and how many exchanges did not fit."""

    messages: tuple[ChatMessage, ...]
    dropped: int
    """Exchanges (a user turn and the replies after it) left out, counted from the oldest."""
    tokens: int
    """What the kept messages cost, template overhead included."""


def exchanges(history: Sequence[ChatMessage]) -> list[list[ChatMessage]]:
    """Group turns so each starts at a user message: they are kept or dropped together,
    since a reply sent without the question it answers reads as a non sequitur."""
    groups: list[list[ChatMessage]] = []
    for message in history:
        if message.role == "user" or not groups:
            groups.append([message])
        else:
            groups[-1].append(message)
    return groups


def fit_history(
    history: Sequence[ChatMessage],
    request: str,
    *,
    count_tokens: Callable[[str], int],
    context: int,
    reply_tokens: int,
    system_prompt: str = "",
) -> FittedHistory:
    """The newest exchanges of `history` that fit `context` beside the request and reply.

    Dropping stops at the first exchange that does not fit: a conversation with a gap in
    the middle would tell the model something that never happened.
    """

    def cost(text: str) -> int:
        return count_tokens(text) + MESSAGE_OVERHEAD

    budget = context - reply_tokens - cost(request)
    if system_prompt:
        budget -= cost(system_prompt)
    groups = exchanges(history)
    kept: list[list[ChatMessage]] = []
    used = 0
    for group in reversed(groups):
        size = sum(cost(m.content) for m in group)
        if used + size > budget:
            break
        kept.append(group)
        used += size
    messages = tuple(m for group in reversed(kept) for m in group)
    return FittedHistory(messages, len(groups) - len(kept), used)


def dropped_note(count: int) -> str:
    """What a front end says of a request that left `count` earlier exchanges out (the
    app's transcript mark and export, the note on a served answer)."""
    noun = "exchange" if count == 1 else "exchanges"
    return f"{count} earlier {noun} not sent to the model: they no longer fit its context"
