"""`stepchat serve` says when the token limit cut an answer, whole and streamed, and the
official client reads it: `finish_reason` "length" is what clients check to ask again with a
larger budget or to tell the user the reply is incomplete."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2 as httpx
import openai
import pytest

from stepchat.core.settings import PipelineSettings
from stepchat.serve.app import create_app
from stepchat.store.memory import MemoryStore
from tests.serve.conftest import MODEL, HeldBackend, live, make_pool, user

LIMIT = 6
LONG = "An engine burns fuel in its cylinders, and the pistons turn the crankshaft round."
PROMPT = "Explain in detail how a car engine works."


@pytest.fixture
def cut_url() -> Iterator[str]:
    settings = PipelineSettings(max_tokens=LIMIT)
    pool = make_pool(HeldBackend([LONG]), MemoryStore(), settings=settings)
    with live(create_app(pool)) as url:
        yield url


def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0)


def test_a_whole_reply_cut_at_the_limit_says_length_and_is_not_cached(cut_url: str) -> None:
    for _ in range(2):
        raw = client(cut_url).chat.completions.with_raw_response.create(
            model=MODEL, messages=user(PROMPT)  # type: ignore[arg-type]
        )
        reply = raw.parse()
        assert reply.choices[0].finish_reason == "length"
        assert reply.choices[0].message.content == " ".join(LONG.split(" ")[:LIMIT])
        assert raw.headers["x-stepchat-path"] == "miss"  # the second time too: never stored
        story = (reply.model_extra or {})["stepchat"]
        assert story["finish_reason"] == "length" and story["stored_entry"] is None


def test_the_last_chunk_of_a_cut_stream_says_length(cut_url: str) -> None:
    stream = client(cut_url).chat.completions.create(  # type: ignore[call-overload]
        model=MODEL, messages=user(PROMPT), stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert reasons[-1] == "length" and set(reasons[:-1]) == {None}
    with httpx.stream(
        "POST", cut_url + "/chat/completions",
        json={"model": MODEL, "messages": user(PROMPT), "stream": True}, timeout=30,
    ) as again:
        assert again.headers["x-stepchat-path"] == "miss"
        again.read()
