"""Streamed open text equals the answer for any split of the model's reply into tokens.

A hostile review found a prose line directly followed by a code fence with a blank line in
the code streamed cut ('To install it, run:\\n```bash\\npip install x') while the stored
answer was whole: the streamer read code as prose. These tests cut replies with fences,
blank lines, lists and unicode at every point, at every pair of points, character by
character and at random points (fixed seed), and compare the pieces with the answer.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx2 as httpx
import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.ports import CancelToken, GenerationCancelled
from stepchat.core.tasks.text_task import segment_text, stitch_text
from stepchat.core.types import ChatMessage, Completion
from stepchat.serve.app import create_app
from stepchat.serve.textstream import TextStreamer
from tests.serve.conftest import MODEL, live, make_pool, user

TEXTS = [
    "To install it, run:\n```bash\npip install x\n\npython -m x\n```\nThat's it.",
    "Example:\n```python\nimport os\n\n\ndef main():\n    print(os.getcwd())\n```",
    "Here's a function:\n```js\nfunction f() {\n\n  return 1;\n}\n```\nCall it with f().",
    "Zutaten:\n- Äpfel\n- Birnen\n\n1. Schälen\n2) Kochen\nDanach servieren.\n\n"
    "東京は日本の首都です。\n\n- 一\n\n- 二",
    "Run this:  \n~~~\n```not a close\n\n   indented  \n~~~  \n\n\n* a\n* b\n"
    "````\nunclosed ``` code\n\n",
    "Steps:\r\n- one\r\n- two\r\n```sh\r\nmake\r\n\r\nmake test\r\n```\r\n- three\u2028- four",
    "  \n\nA paragraph\nwith two lines.   \n \n- item\ncontinued\n\nafter\n- x\n- y\n```",
]


def answer(text: str) -> str:
    return stitch_text(segment_text(text))


def streamed(pieces: Sequence[str]) -> str:
    """What a client pieces together: every delta, then the rest sent at the end."""
    streamer = TextStreamer()
    sent = "".join(streamer.feed(piece) for piece in pieces)
    rest = streamer.finish(answer("".join(pieces)))
    assert rest is not None, f"sent {sent!r}, not a prefix of the answer"
    return sent + rest


def cut(text: str, points: Sequence[int]) -> list[str]:
    bounds = sorted({0, len(text), *points})
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize("text", TEXTS)
def test_every_split_streams_the_answer(text: str) -> None:
    final = answer(text)
    assert streamed(list(text)) == final
    for i, j in itertools.combinations_with_replacement(range(len(text) + 1), 2):
        assert streamed(cut(text, [i, j])) == final, (i, j)


@pytest.mark.parametrize("text", TEXTS)
def test_random_splits_stream_the_answer(text: str) -> None:
    rng = random.Random(71)
    final = answer(text)
    for _ in range(300):
        points = [rng.randrange(len(text) + 1) for _ in range(rng.randrange(1, 25))]
        assert streamed(cut(text, points)) == final, points


def test_code_streams_before_it_is_closed() -> None:
    streamer = TextStreamer()
    assert streamer.feed("To install it, run:\n") == "To install it, run:"
    assert streamer.feed("``") == ""  # could still open a fence
    assert streamer.feed("`bash\npip install x\n\n") == "\n\n```bash\npip install x"
    assert streamer.feed("python") == "\n\npython"
    assert streamer.feed(" -m x\n```\nThat") == " -m x\n```\n\nThat"


class SplitBackend(ScriptedBackend):
    """A model that writes its reply in pieces cut at random points, at a model's pace."""

    def __init__(self, replies: Sequence[str], seed: int) -> None:
        super().__init__(replies, model_id=MODEL)
        self.rng = random.Random(seed)

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Completion:
        self.calls.append(list(messages))
        text = str(self._replies.pop(0))
        on_token: Callable[[str], None] | None = kwargs.get("on_token")
        cancel: CancelToken | None = kwargs.get("cancel")
        points = [self.rng.randrange(len(text) + 1) for _ in range(len(text) // 3)]
        for piece in cut(text, points):
            if cancel is not None and cancel.is_set():
                raise GenerationCancelled()
            time.sleep(0.002)
            if on_token is not None:
                on_token(piece)
        return Completion(text, 10, self.count_tokens(text), "stop")


def sse_text(url: str, prompt: str) -> tuple[str, str]:
    """The streamed content and the path header of one streamed request."""
    body = {"model": MODEL, "messages": user(prompt), "stream": True}
    with httpx.stream("POST", url + "/chat/completions", json=body, timeout=30) as raw:
        path = raw.headers["x-stepchat-path"]
        lines = [line[6:] for line in raw.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    chunks = [httpx.Response(200, content=line).json() for line in lines[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or ""
                   for c in chunks if c["choices"])
    return text, path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_streamed_miss_equals_the_answer_served_whole(seed: int) -> None:
    prompts = ["How do I install the x tool?", "Show me a main function in Python.",
               "Write a JS function that returns one.", "What goes into apple compote?",
               "Show a fenced block inside another.", "How do I build with make?",
               "Describe an unclosed code fence."]
    backend = SplitBackend(TEXTS, seed)
    with live(create_app(make_pool(backend))) as url:
        for prompt, text in zip(prompts, TEXTS, strict=True):
            content, path = sse_text(url, prompt)
            assert path == "miss"
            whole = httpx.post(url + "/chat/completions", timeout=30,
                               json={"model": MODEL, "messages": user(prompt)}).json()
            assert whole["stepchat"]["path"] == "reuse-only"
            assert content == whole["choices"][0]["message"]["content"] == answer(text)
