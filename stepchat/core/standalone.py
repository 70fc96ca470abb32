"""Whether a system prompt leaves a request's words alone: the condition for reading it as
a checked kind.

An equation, a JSON object and a word problem are read from the request's own words: the
solver writes an equation's steps, values the request states fill an object, a cached
solution is recomputed for new numbers. A system prompt governs every turn and can change
what those words ask ("always answer in French", "every number is in base 8", "give ages
in months"), and nothing reads it: an answer built from the words alone would be wrong for
the request, and marked verified. So under a system prompt a request is open text, which
the model answers with the system prompt as it was written, unless the system prompt is on
a closed list:

- empty;
- one of `NEUTRAL_SYSTEM_PROMPTS`, the persona lines clients send by default, which say
  nothing about any answer, compared without case, runs of spaces and a final full stop.

Earlier turns of a conversation are another matter (`StepCache.answer`): a checked kind is
still answered from the request's words there, as it writes them, and never cached.
"""

from __future__ import annotations

NEUTRAL_SYSTEM_PROMPTS = frozenset({
    "you are a helpful assistant",
    "you are a helpful ai assistant",
    "you are an ai assistant",
    "you are an assistant",
})
"""The persona lines forgiven as a system prompt, lower case, without a final full stop."""

NOT_ALONE_NOTE = ("read as open text: the system prompt may change what it asks, and no "
                  "check reads it")


def neutral_system_prompt(system_prompt: str) -> bool:
    """Whether `system_prompt` is empty or a persona line of the closed list."""
    text = " ".join(system_prompt.split()).lower().removesuffix(".")
    return not text or text in NEUTRAL_SYSTEM_PROMPTS
