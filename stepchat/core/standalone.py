"""Whether a request stands alone: the condition for reading it as a checked kind.

An equation, a JSON object and a word problem are read from the request's own words: the
solver writes an equation's steps, values the request states fill an object, a cached
solution is recomputed for new numbers. A system prompt or an earlier turn can change what
those words ask ("always answer in French", "every number I write is in base 8", "give
ages in months"), and nothing reads them: an answer built from the words alone would be
wrong for the request, and marked verified. So a request is read as a checked kind only
where nothing but its own words speaks; anything else is open text, which the model
answers with everything it was sent.

What is forgiven, a closed list:
- a system prompt that is empty, or one of `NEUTRAL_SYSTEM_PROMPTS` (the persona lines
  clients send by default, which say nothing about any answer), compared without case,
  outer spaces and a final full stop;
- earlier turns that are each a request of a kind whose reader takes a closed grammar
  (`closed_grammar`: an equation and its framing, nothing else) followed by an answer
  that kind's check passes whole: homework asked equation after equation in one chat.
Earlier turns trimmed away to fit the model's context are never forgiven: nobody can read
what they said.
"""

from __future__ import annotations

from collections.abc import Sequence

from stepchat.core.tasks.registry import Handlers
from stepchat.core.types import ChatMessage

NEUTRAL_SYSTEM_PROMPTS = frozenset({
    "you are a helpful assistant",
    "you are a helpful ai assistant",
    "you are an ai assistant",
    "you are an assistant",
})
"""The persona lines forgiven as a system prompt, lower case, without a final full stop."""

NOT_ALONE_NOTE = ("read as open text: the system prompt or earlier turns may change what "
                  "it asks, and no check reads them")


def neutral_system_prompt(system_prompt: str) -> bool:
    """Whether `system_prompt` is empty or a persona line of the closed list."""
    text = " ".join(system_prompt.split()).lower().removesuffix(".")
    return not text or text in NEUTRAL_SYSTEM_PROMPTS


def stands_alone(
    handlers: Handlers,
    system_prompt: str,
    history: Sequence[ChatMessage],
    *,
    trimmed: bool = False,
) -> bool:
    """Whether nothing but the request's own words can change what it asks (see above).
    `trimmed` says earlier turns were sent to nobody: all of them were cut to fit."""
    if trimmed or not neutral_system_prompt(system_prompt):
        return False
    if len(history) % 2:
        return False
    exchanges = zip(history[::2], history[1::2], strict=True)
    return all(_equation_exchange(handlers, asked, answered) for asked, answered in exchanges)


def _equation_exchange(handlers: Handlers, asked: ChatMessage, answered: ChatMessage) -> bool:
    if asked.role != "user" or answered.role != "assistant":
        return False
    handler, task = handlers.detect(asked.content)
    closed = getattr(handler, "closed_grammar", False) is True
    return closed and handler.integrity(task, answered.content) is True
