"""Reading a streamed chat completion, the same for both backends.

llama-cpp-python's binding yields OpenAI-shaped chunks and a server sends the same chunks as
server-sent events, so the text, the finish reason and the usage are gathered here once. A
cancel is honoured between chunks: the caller closes its source, which stops the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stepchat.core.ports import CancelToken, GenerationCancelled


@dataclass
class StreamedReply:
    text: str = ""
    finish: str = ""
    """The last finish reason a chunk gave: "stop" at the reply's end, "length" when the token
    limit cut it; empty when no chunk gave one, and then nothing shows the reply finished."""
    usage: dict[str, Any] = field(default_factory=dict)
    """The last `usage` a chunk carried (servers send it in a final chunk, if asked)."""


def read_chunks(
    chunks: Iterable[Mapping[str, Any]],
    on_token: Callable[[str], None] | None,
    cancel: CancelToken | None,
) -> StreamedReply:
    """Gather streamed chunks, passing each piece of text to `on_token` as it arrives;
    raises GenerationCancelled once `cancel` is set."""
    pieces: list[str] = []
    reply = StreamedReply()
    for chunk in chunks:
        if cancel is not None and cancel.is_set():
            raise GenerationCancelled()
        reply.usage = chunk.get("usage") or reply.usage
        for choice in chunk.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                pieces.append(piece)
                if on_token is not None:
                    on_token(piece)
            if choice.get("finish_reason"):
                reply.finish = str(choice["finish_reason"])
    reply.text = "".join(pieces)
    return reply
