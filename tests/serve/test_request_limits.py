"""A request's `max_tokens` and `stop` shape what it gets back, hit or miss, streamed or
whole, and never what is stored, and its `stepchat` story tells the reply it got; what
the server cannot honour (tools, a JSON `response_format` for a request answered as text,
log probabilities, audio, ...) is refused with a 400 naming the field.

A hostile review found all of these accepted and ignored: `max_tokens: 3`, `stop: ["\\n"]`,
`response_format: json_object` and `tool_choice: "required"` each got the whole cached
paragraph with finish_reason "stop".
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest

from stepchat.backends.openai_http import estimate_tokens
from stepchat.core.tasks.text_task import segment_text, stitch_text
from stepchat.serve.app import create_app
from stepchat.serve.limits import LimitedSender, ReplyLimits, stop_at
from stepchat.serve.textstream import TextStreamer
from stepchat.store.memory import MemoryStore
from tests.serve.conftest import (
    LINEAR_PROMPT,
    MODEL,
    TEXT_PROMPT,
    TEXT_REPLY,
    HeldBackend,
    live,
    make_pool,
    user,
)

JSON_PROMPT = "Return a JSON object with keys name and email for a person named Ann."
JSON_REPLY = '{"name": "Ann", "email": "ann@example.com"}'

# TEXT_REPLY is "The capital of France is Paris.\n\nIt lies on the Seine."; the scripted
# model counts a token per word.
CASES = [
    ({"max_tokens": 3}, "The capital of", "length", "max_tokens"),
    ({"max_completion_tokens": 5}, "The capital of France is", "length", "max_tokens"),
    ({"max_tokens": 50, "max_completion_tokens": 4}, "The capital of France", "length",
     "max_tokens"),
    ({"max_tokens": 50}, TEXT_REPLY, "stop", None),
    ({"stop": ["\n"]}, "The capital of France is Paris.", "stop", "stop"),
    ({"stop": "Seine"}, "The capital of France is Paris.\n\nIt lies on the ", "stop", "stop"),
    ({"stop": ["Moon", "lies", "It"]}, "The capital of France is Paris.\n\n", "stop", "stop"),
    ({"stop": ["Moon"]}, TEXT_REPLY, "stop", None),
    ({"stop": ["Paris"], "max_tokens": 2}, "The capital", "length", "max_tokens"),
    ({"stop": ["Paris"], "max_tokens": 20}, "The capital of France is ", "stop", "stop"),
]


def ask(url: str, extra: dict[str, Any], stream: bool, prompt: str = TEXT_PROMPT
        ) -> dict[str, Any]:
    """One request's content, finish_reason, story and path header (or its error)."""
    body = {"model": MODEL, "messages": user(prompt), "stream": stream, **extra}
    if not stream:
        raw = httpx.post(url + "/chat/completions", json=body, timeout=30)
        if raw.status_code != 200:
            return {"status": raw.status_code, "error": raw.json()["error"]}
        data = raw.json()
        choice = data["choices"][0]
        return {"status": 200, "content": choice["message"]["content"],
                "finish_reason": choice["finish_reason"], "story": data["stepchat"],
                "path": raw.headers["x-stepchat-path"]}
    with httpx.stream("POST", url + "/chat/completions", json=body, timeout=30) as raw:
        if raw.status_code != 200:
            raw.read()
            return {"status": raw.status_code, "error": raw.json()["error"]}
        path = raw.headers["x-stepchat-path"]
        events = [line[6:] for line in raw.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    finishes = [c["choices"][0]["finish_reason"] for c in chunks
                if c["choices"] and c["choices"][0]["finish_reason"]]
    assert len(finishes) == 1
    pieces = [c["choices"][0]["delta"].get("content") for c in chunks if c["choices"]]
    return {"status": 200, "path": path, "finish_reason": finishes[0],
            "content": "".join(p or "" for p in pieces), "pieces": [p for p in pieces if p],
            "story": chunks[-1]["stepchat"]}


@pytest.fixture
def server() -> Iterator[tuple[str, HeldBackend, MemoryStore]]:
    # Tokens arrive at a model's pace, so a streamed miss streams as it is written.
    backend = HeldBackend([TEXT_REPLY], token_delay=0.005)
    store = MemoryStore()
    with live(create_app(make_pool(backend, store))) as url:
        yield url, backend, store


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("hit", [False, True], ids=["miss", "hit"])
@pytest.mark.parametrize(("extra", "text", "finish", "cut"), CASES)
def test_max_tokens_and_stop_shape_the_reply_not_the_cache(
    server: tuple[str, HeldBackend, MemoryStore], hit: bool, stream: bool,
    extra: dict[str, Any], text: str, finish: str, cut: str | None,
) -> None:
    url, backend, store = server
    if hit:
        assert ask(url, {}, False)["path"] == "miss"
    reply = ask(url, extra, stream)
    assert reply["path"] == ("reuse-only" if hit else "miss")
    assert (reply["content"], reply["finish_reason"]) == (text, finish)
    story = reply["story"]
    assert (story.get("cut"), story["finish_reason"]) == (cut, finish)
    # The story's steps hold the text returned, no more: the whole answer is two steps.
    steps = [s["text"] for s in story["steps"]]
    assert all(step in text for step in steps)
    if cut is None:
        assert steps == TEXT_REPLY.split("\n\n") and "cut_at" not in story
    else:
        assert story["cut_at"] == len(text)
        assert len(steps) + story["steps_left_out"] == 2
    if stream and not hit:
        # Streamed as the model wrote it, word by word, not line by line at the end.
        assert len(reply["pieces"]) > len(text.splitlines())
    # The engine stored the whole answer it made, and the next request gets all of it.
    assert [stitch_text(e.steps) for e in store.entries()] == [TEXT_REPLY]
    again = ask(url, {}, stream)
    assert (again["path"], again["content"], again["finish_reason"]) == (
        "reuse-only", TEXT_REPLY, "stop")
    assert len(backend.calls) == 1


def test_a_cut_reply_s_story_tells_the_cut_not_the_whole_answer(
    server: tuple[str, HeldBackend, MemoryStore]
) -> None:
    """A hostile review found a cut reply's `stepchat` field holding both whole paragraphs
    and finish_reason "stop" while the content was "Paris is the", finish "length"."""
    url, _, _ = server
    ask(url, {}, False)
    for stream in (False, True):
        story = ask(url, {"max_tokens": 3}, stream)["story"]
        assert (story["finish_reason"], story["cut"], story["cut_at"]) == (
            "length", "max_tokens", len("The capital of"))
        assert [(s["text"], s.get("cut")) for s in story["steps"]] == [("The capital of", True)]
        assert story["steps_left_out"] == 1
        story = ask(url, {"stop": "Seine"}, stream)["story"]
        assert (story["finish_reason"], story["cut"]) == ("stop", "stop")
        assert [(s["text"], s.get("cut")) for s in story["steps"]] == [
            ("The capital of France is Paris.", None), ("It lies on the ", True)]
        assert story["steps_left_out"] == 0
        story = ask(url, {"stop": "\n"}, stream)["story"]
        assert [(s["text"], s.get("cut")) for s in story["steps"]] == [
            ("The capital of France is Paris.", None)]
        assert story["steps_left_out"] == 1


REFUSED = [
    ({"tool_choice": "required", "tools": [{"type": "function", "function": {"name": "f"}}]},
     "tool_choice"),
    ({"tool_choice": "auto"}, "tool_choice"),
    ({"tool_choice": {"type": "function", "function": {"name": "f"}}}, "tool_choice"),
    ({"tools": [{"type": "function", "function": {"name": "f"}}]}, "tools"),
    ({"functions": [{"name": "f"}]}, "functions"),
    ({"function_call": "auto", "functions": [{"name": "f"}]}, "function_call"),
    ({"response_format": {"type": "json_object"}}, "response_format"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "x"}}},
     "response_format"),
    ({"response_format": {"type": "yaml"}}, "response_format"),
    ({"max_tokens": 0}, "max_tokens"),
    ({"stop": 3}, "stop"),
    # A hostile review found these answered 200 and ignored (logprobs null, no audio).
    ({"logprobs": True}, "logprobs"),
    ({"logprobs": True, "top_logprobs": 2}, "logprobs"),
    ({"top_logprobs": 3}, "top_logprobs"),
    ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
    ({"modalities": ["text", "audio"]}, "modalities"),
    ({"modalities": ["audio"]}, "modalities"),
    ({"audio": {"voice": "alloy", "format": "wav"}}, "audio"),
    ({"prediction": {"type": "content", "content": "Paris"}}, "prediction"),
    ({"echo": True}, "echo"),
    ({"suffix": "."}, "suffix"),
    ({"web_search_options": {}}, "web_search_options"),
    ({"max_tokens": True}, "max_tokens"),
    ({"logit_bias": {"123": -100}}, "logit_bias"),
    ({"tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": "none",
      "parallel_tool_calls": True}, "parallel_tool_calls"),
    ({"stream_options": {"include_usage": True, "include_obfuscation": True}},
     "stream_options.include_obfuscation"),
]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("hit", [False, True], ids=["miss", "hit"])
@pytest.mark.parametrize(("extra", "param"), REFUSED)
def test_what_cannot_be_honoured_is_refused_naming_the_field(
    server: tuple[str, HeldBackend, MemoryStore], hit: bool, stream: bool,
    extra: dict[str, Any], param: str,
) -> None:
    url, backend, store = server
    if hit:
        ask(url, {}, False)
    calls, stored = len(backend.calls), len(store.entries())
    reply = ask(url, extra, stream)
    assert reply["status"] == 400
    error = reply["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param or error["param"].startswith(param + ".")
    assert param in error["message"] and "\n" not in error["message"]
    # Refused before the engine ran: no model call, nothing stored.
    assert (len(backend.calls), len(store.entries())) == (calls, stored)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    "extra",
    [
        {"tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": "none"},
        {"tools": [], "function_call": "none"},
        {"response_format": {"type": "text"}},
        {"stop": None, "max_tokens": None, "tools": None, "response_format": None},
        {"logprobs": False, "modalities": ["text"], "logit_bias": {}, "echo": False},
        {"logprobs": None, "top_logprobs": None, "audio": None, "prediction": None,
         "suffix": None, "modalities": None, "logit_bias": None},
        {"parallel_tool_calls": False},
        {"top_logprobs": 0, "stop": ["Moon", "Mars", "Venus", "Io"]},
        {"temperature": 0.2, "top_p": 0.9, "seed": 7, "presence_penalty": 0.5,
         "frequency_penalty": 0.5, "user": "u1", "metadata": {"a": "b"}, "store": False},
        {"stream_options": {"include_usage": False}},
    ],
)
def test_what_changes_nothing_is_accepted(
    server: tuple[str, HeldBackend, MemoryStore], stream: bool, extra: dict[str, Any]
) -> None:
    url, _, _ = server
    reply = ask(url, extra, stream)
    assert (reply["status"], reply["content"], reply["finish_reason"]) == (
        200, TEXT_REPLY, "stop")


def _tools(name: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("first", "second", "field"),
    [
        ({"messages": [{"role": "user", "content": TEXT_PROMPT, "name": "Alice"}]},
         {"messages": [{"role": "user", "content": TEXT_PROMPT, "name": "Bob"}]},
         "messages.0.name"),
        ({"tools": _tools("get_weather"), "tool_choice": "none"},
         {"tools": _tools("send_email"), "tool_choice": "none"}, "tools"),
    ],
    ids=["name", "tools"],
)
def test_what_the_key_does_not_take_in_keeps_the_answer_out_of_the_cache(
    server: tuple[str, HeldBackend, MemoryStore], stream: bool,
    first: dict[str, Any], second: dict[str, Any], field: str,
) -> None:
    """A hostile review got "You are Alice." back for Bob: a message's name and tools under
    "none" reach neither the model nor the key, so the two requests shared one entry."""
    url, backend, store = server
    for extra in (first, second):
        reply = ask(url, extra, stream)
        assert (reply["status"], reply["path"]) == (200, "miss")
        assert any(field in note and "neither reused nor stored" in note
                   for note in reply["story"]["notes"])
    assert len(backend.calls) == 2 and store.entries() == []
    # The same request without them is cached as ever.
    ask(url, {}, stream)
    assert ask(url, {}, stream)["path"] == "reuse-only" and len(store.entries()) == 1


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("kind", ["json_object", "json_schema"])
def test_a_json_response_format_is_answered_for_a_json_request(
    stream: bool, kind: str
) -> None:
    backend = HeldBackend([JSON_REPLY])
    fmt: dict[str, Any] = {"type": kind}
    if kind == "json_schema":
        fmt["json_schema"] = {"name": "person", "schema": {"type": "object"}}
    with live(create_app(make_pool(backend))) as url:
        reply = ask(url, {"response_format": fmt}, stream, JSON_PROMPT)
        assert reply["status"] == 200 and reply["story"]["task"] == "json"
        assert json.loads(reply["content"]) == json.loads(JSON_REPLY)


def _strict(properties: dict[str, str]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "x", "strict": True, "schema": {
        "type": "object", "properties": {k: {"type": t} for k, t in properties.items()},
        "required": list(properties), "additionalProperties": False}}}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_json_schema_is_held_to(stream: bool) -> None:
    """A hostile review got `{"name": ..., "age": ...}` from the cache for a strict schema
    asking for `city` alone: the object follows the request's words, so one the schema
    refuses is refused, not returned as if it matched."""
    backend = HeldBackend([JSON_REPLY])
    with live(create_app(make_pool(backend))) as url:
        matching = ask(url, {"response_format": _strict({"name": "string", "email": "string"})},
                       stream, JSON_PROMPT)
        assert matching["status"] == 200
        assert json.loads(matching["content"]) == json.loads(JSON_REPLY)
        for other in ({"city": "string"}, {"name": "string", "email": "integer"},
                      {"name": "string"}):
            reply = ask(url, {"response_format": _strict(other)}, stream, JSON_PROMPT)
            assert reply["status"] == 400, other
            assert reply["error"]["param"] == "response_format.json_schema.schema"
            assert reply["error"]["message"].startswith("the answer does not match")
        # A stop sequence that cuts the object leaves no object to match.
        cut = ask(url, {"response_format": _strict({"name": "string", "email": "string"}),
                        "stop": [","]}, stream, JSON_PROMPT)
        assert cut["status"] == 400 and "not one JSON object" in cut["error"]["message"]


def test_a_json_schema_that_is_no_schema_is_refused_before_the_model(
    server: tuple[str, HeldBackend, MemoryStore]
) -> None:
    url, backend, _ = server
    for schema in ({"type": 5}, ["name"]):
        fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
        reply = ask(url, {"response_format": fmt}, False, JSON_PROMPT)
        assert reply["status"] == 400
        assert reply["error"]["param"] == "response_format.json_schema.schema"
    assert backend.calls == []


def test_a_json_response_format_names_the_kind_it_is_refused_for(
    server: tuple[str, HeldBackend, MemoryStore]
) -> None:
    url, backend, _ = server
    for prompt, kind in ((TEXT_PROMPT, "text"), (LINEAR_PROMPT, "linear")):
        reply = ask(url, {"response_format": {"type": "json_object"}}, False, prompt)
        assert reply["status"] == 400 and f"this one is a {kind} request" in reply["error"][
            "message"]
    assert backend.calls == []


def test_a_json_response_format_is_refused_where_the_system_prompt_makes_it_open_text(
    server: tuple[str, HeldBackend, MemoryStore]
) -> None:
    """Under the client's own system prompt a JSON request is open text, so the check asks
    under that system prompt too: it was asked under the configured one and let a
    `json_object` through to a request then answered as text."""
    url, backend, _ = server
    messages = [{"role": "system", "content": "Answer in French."}, *user(JSON_PROMPT)]
    reply = ask(url, {"response_format": {"type": "json_object"}, "messages": messages}, False)
    assert reply["status"] == 400 and "this one is a text request" in reply["error"]["message"]
    assert backend.calls == []


# ------------------------------------------------------------------ the limits alone

def test_the_stop_completed_first_wins() -> None:
    assert stop_at("abcdef", ["abcdef", "c"]) == 2
    assert stop_at("xab", ["b", "ab"]) == 1
    assert stop_at("abc", ["z"]) is None


PIECES = ["Paris", " is", " big", ".", "\n", "\n\n", " ", "- ", "1. ", "item", "```",
          "```py\n", "x = 1  ", "東京", "é", "\r\n", "stop", "sto", "END"]
STOPS = [(), ("\n",), ("stop",), ("p\n", "big."), ("END", "\n\n-"), (" ",)]


@pytest.mark.parametrize("counter", [lambda t: len(t.split()), estimate_tokens],
                         ids=["words", "estimate"])
def test_streamed_limited_text_equals_the_limited_answer(counter: Any) -> None:
    """For any reply, token split, stops and limit: what a stream sends adds up to what a
    whole reply returns, and nothing sent is ever taken back."""
    rng = random.Random(71)
    for _ in range(1500):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 25)))
        limits = ReplyLimits(rng.choice([None, 1, 2, 3, 5, 8, 13]), rng.choice(STOPS))
        final = stitch_text(segment_text(text))
        expected = limits.apply(final, "stop", counter).text
        points = sorted({0, len(text), *(rng.randrange(len(text) + 1) for _ in range(9))})
        streamer, sender = TextStreamer(), LimitedSender(limits, counter)
        sent = ""
        for a, b in itertools.pairwise(points):
            if streamer.feed(text[a:b]):
                sent += sender.offer(streamer.sent)
        rest = sender.finish(expected)
        assert rest is not None, (text, limits, sent, expected)
        assert sent + rest == expected
