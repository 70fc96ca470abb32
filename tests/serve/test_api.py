"""The HTTP API on fakes, through a real socket: shapes, the cache's story, refusals.

The official `openai` client parses every reply here, so a shape it does not accept fails
the test; raw requests check what a client library would hide (headers, error bodies).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import httpx2 as httpx
import openai
import pytest

from stepchat.core.conversation import FOLLOW_UP_NOTE
from stepchat.core.ports import PromptTooLong
from stepchat.core.types import ChatMessage
from stepchat.serve.app import create_app
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


def client(base_url: str, **kwargs: object) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0, **kwargs)  # type: ignore[arg-type]


def post(
    base_url: str, body: object, headers: dict[str, str] | None = None,
    path: str = "/chat/completions",
) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(
        base_url + path, content=content,
        headers={"Content-Type": "application/json", **(headers or {})}, timeout=30,
    )


def assert_openai_error(reply: httpx.Response, status: int, words: str) -> None:
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert words in error["message"]
    assert "Traceback" not in reply.text and "\n" not in error["message"]


# ---- answers and their story -----------------------------------------------------------


def test_openai_client_gets_the_answer_with_the_cache_story(base_url: str) -> None:
    raw = client(base_url).chat.completions.with_raw_response.create(
        model=MODEL, messages=user(TEXT_PROMPT)  # type: ignore[arg-type]
    )
    reply = raw.parse()
    assert reply.choices[0].message.content == TEXT_REPLY
    assert raw.headers["x-stepchat-path"] == "miss"
    assert raw.headers["x-stepchat-tokens-saved"] == "0"
    story = (reply.model_extra or {})["stepchat"]
    assert [s["status"] for s in story["steps"]] == ["regenerated", "regenerated"]
    assert story["lane"] == "model" and story["stored_entry"]
    assert reply.usage is not None and reply.usage.completion_tokens > 0

    again = client(base_url).chat.completions.with_raw_response.create(
        model=MODEL, messages=user(TEXT_PROMPT)  # type: ignore[arg-type]
    )
    assert again.headers["x-stepchat-path"] == "reuse-only"
    assert int(again.headers["x-stepchat-tokens-saved"]) > 0
    hit = again.parse()
    assert hit.choices[0].message.content == TEXT_REPLY
    assert (hit.model_extra or {})["stepchat"]["lane"] == "cache"
    assert hit.usage is not None and hit.usage.completion_tokens == 0


def test_streamed_pieces_add_up_to_the_answer(base_url: str) -> None:
    with httpx.stream(
        "POST", base_url + "/chat/completions",
        json={"model": MODEL, "messages": user(TEXT_PROMPT), "stream": True}, timeout=30,
    ) as raw:
        assert raw.headers["content-type"].startswith("text/event-stream")
        assert raw.headers["x-stepchat-path"] == "miss"
        raw.read()
    stream = client(base_url).chat.completions.create(  # type: ignore[call-overload]
        model=MODEL, messages=user("Tell me about Paris."),
        stream=True, stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == TEXT_REPLY
    assert chunks[0].choices[0].delta.role == "assistant"
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason == "stop"]
    assert len(finals) == 1
    assert chunks[-1].usage is not None and chunks[-1].choices == []
    # The extension field is on the last chunk, the usage one, and on no other.
    story = (chunks[-1].model_extra or {})["stepchat"]
    assert story["path"] == "miss" and story["task"] == "text"
    assert [c for c in chunks[:-1] if "stepchat" in (c.model_extra or {})] == []


def test_a_verified_answer_streams_once_it_is_checked(base_url: str) -> None:
    """Equations are streamed step by step after verification: the header is the final path."""
    with httpx.stream(
        "POST", base_url + "/chat/completions",
        json={"model": MODEL, "messages": user(LINEAR_PROMPT), "stream": True}, timeout=30,
    ) as raw:
        assert raw.headers["x-stepchat-path"] == "solver"
        events = [line[6:] for line in raw.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text.splitlines()[-1] == "x = 5"
    assert chunks[-1]["stepchat"]["steps"][-1]["text"] == "x = 5"


def test_requests_can_opt_out_of_reuse_and_store(base_url: str, store: MemoryStore) -> None:
    off = post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT)},
               {"x-stepchat-store": "off"})
    assert off.headers["x-stepchat-path"] == "miss" and store.count() == 0
    post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT)})
    assert store.count() == 1
    no_reuse = post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT)},
                    {"x-stepchat-reuse": "OFF"})
    assert no_reuse.headers["x-stepchat-path"] == "miss"
    assert post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT)}).headers[
        "x-stepchat-path"] == "reuse-only"


def test_an_answer_that_is_never_stored_is_written_only_to_max_tokens(
    base_url: str, store: MemoryStore
) -> None:
    """An answer to keep is written whole (a later request gets all of it); one that is
    never stored (store off, a follow-up) was written whole too, only to be cut."""
    body = {"model": MODEL, "messages": user(TEXT_PROMPT), "max_tokens": 2}
    off = post(base_url, body, {"x-stepchat-store": "off"}).json()
    assert off["choices"][0]["message"]["content"] == "The capital"
    assert off["usage"]["completion_tokens"] == 2 and store.count() == 0
    follow_up = [*user(TEXT_PROMPT), {"role": "assistant", "content": "Paris."},
                 *user("And of Spain?")]
    later = post(base_url, {**body, "messages": follow_up}).json()
    assert later["usage"]["completion_tokens"] == 2 and store.count() == 0
    kept = post(base_url, body).json()
    assert kept["choices"][0]["message"]["content"] == "The capital"
    assert kept["usage"]["completion_tokens"] == len(TEXT_REPLY.split()) and store.count() == 1


def test_the_key_is_the_last_user_turn_under_the_system_prompt(base_url: str) -> None:
    """A system prompt is another scope; a follow-up of any kind (open text, an equation) is
    neither served from nor written to the cache: earlier turns may change what it asks."""
    first = post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT)})
    assert first.headers["x-stepchat-path"] == "miss"
    history = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi! How can I help?"},
    ]
    follow_up = post(base_url, {"model": MODEL, "messages": [*history, *user(TEXT_PROMPT)]})
    assert follow_up.headers["x-stepchat-path"] == "miss"
    assert FOLLOW_UP_NOTE in follow_up.json()["stepchat"]["notes"]
    post(base_url, {"model": MODEL, "messages": user(LINEAR_PROMPT)})
    linear = post(base_url, {"model": MODEL, "messages": [*history, *user(LINEAR_PROMPT)]})
    assert linear.headers["x-stepchat-path"] != "reuse-only"
    assert FOLLOW_UP_NOTE in linear.json()["stepchat"]["notes"]
    alone = post(base_url, {"model": MODEL, "messages": user(LINEAR_PROMPT)})
    assert alone.headers["x-stepchat-path"] == "reuse-only"
    system = [{"role": "system", "content": "Answer like a pirate."}]
    scoped = post(base_url, {"model": MODEL, "messages": [*system, *user(TEXT_PROMPT)]})
    assert scoped.headers["x-stepchat-path"] == "miss"


def test_models_and_health(base_url: str) -> None:
    listed = client(base_url).models.list()
    assert [m.id for m in listed.data] == [MODEL]
    assert client(base_url).models.retrieve(MODEL).id == MODEL
    health = httpx.get(base_url.removesuffix("/v1") + "/health", timeout=10).json()
    assert health["status"] == "ok" and health["models"][0]["id"] == MODEL


# ---- refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "must be a JSON object"),
        (b"\xff\xfe", 400, "not valid JSON"),
        # Standard JSON only: Python's reader also takes these.
        (b'{"model": "tiny", "messages": [], "temperature": NaN}', 400, "not valid JSON"),
        (b'{"model": "tiny", "max_tokens": 1e999}', 400, "not valid JSON"),
        (b'{"model": "tiny", "messages": [{"role": "user", "content": "\\ud800"}]}', 400,
         "not valid JSON"),
        ({"messages": user("hi")}, 400, "missing required field: model"),
        ({"model": MODEL}, 400, "missing required field: messages"),
        ({"model": MODEL, "messages": []}, 400, "messages"),
        ({"model": MODEL, "messages": user("hi"), "n": 2}, 400, "n"),
        ({"model": MODEL, "messages": [{"role": "wizard", "content": "hi"}]}, 400, "role"),
        ({"model": MODEL, "messages": [{"role": "assistant", "content": "hi"}]}, 400,
         "last message must be the user's"),
        ({"model": MODEL, "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "http://x"}}]}]}, 400, "only text"),
        ({"model": MODEL, "messages": user("\x00\x01")}, 400, "binary"),
        ({"model": MODEL, "messages": user("   ")}, 400, "empty"),
        ({"model": "gpt-9", "messages": user("hi")}, 404, "not served here"),
    ],
)
def test_bad_requests_get_openai_errors(
    base_url: str, body: object, status: int, words: str
) -> None:
    assert_openai_error(post(base_url, body), status, words)


@pytest.mark.parametrize("field", ["stream", "n"])
def test_a_null_switch_or_count_is_its_default(
    base_url: str, backend: HeldBackend, field: str
) -> None:
    """OpenAI's schema makes both nullable; generated clients send unset fields as null."""
    reply = post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT), field: None})
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"stream": "yes"}, "stream"),
        ({"stream": "false"}, "stream"),
        ({"stream": 1}, "stream"),
        ({"stream": 0}, "stream"),
        ({"stream": True, "stream_options": {"include_usage": "yes"}},
         "stream_options.include_usage"),
    ],
)
def test_a_switch_is_a_json_boolean_not_a_word_or_a_number(
    base_url: str, backend: HeldBackend, extra: dict[str, object], param: str
) -> None:
    reply = post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT), **extra})
    assert_openai_error(reply, 400, f"invalid {param}: Input should be a valid boolean")
    assert reply.json()["error"]["param"] == param
    assert backend.calls == []


@pytest.mark.parametrize(
    ("extra", "message", "param"),
    [
        ({"messages": [{"role": "user", "content": 5}]},
         "invalid messages.0.content: Input should be a valid string", "messages.0.content"),
        ({"messages": [{"role": "user", "content": {"str": 5}}]},
         "invalid messages.0.content: Input should be a valid string", "messages.0.content"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
         "invalid messages.0.content.0.text: Input should be a valid string",
         "messages.0.content.0.text"),
        ({"messages": [{"role": "user", "content": [{"text": "hi"}]}]},
         "missing required field: messages.0.content.0.type", "messages.0.content.0.type"),
        ({"stop": 5}, "invalid stop: Input should be a valid string", "stop"),
        ({"stop": ["END", 5]}, "invalid stop.1: Input should be a valid string", "stop.1"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "invalid stop: at most 4 stop sequences, not 5",
         "stop"),
        ({"max_tokens": "many"}, "invalid max_tokens: Input should be a valid integer",
         "max_tokens"),
    ],
)
def test_an_error_names_the_field_as_the_client_wrote_it(
    base_url: str, extra: dict[str, object], message: str, param: str
) -> None:
    """Not pydantic's location, which also names the member of a union it tried
    (`messages.0.content.str`, `stop.list[str].1`)."""
    reply = post(base_url, {"model": MODEL, "messages": user(TEXT_PROMPT), **extra})
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert (error["message"], error["param"]) == (message, param)


def test_a_wrong_method_is_405_with_its_code(
    base_url: str,
) -> None:
    unknown = httpx.get(base_url + "/nope", timeout=10)
    assert_openai_error(unknown, 404, "Not Found")
    assert unknown.json()["error"]["code"] == "not_found"
    wrong = httpx.get(base_url + "/chat/completions", timeout=10)
    assert_openai_error(wrong, 405, "Method Not Allowed")
    assert wrong.json()["error"]["code"] == "method_not_allowed"
    assert wrong.headers["allow"] == "POST"


def test_unknown_routes_and_switches(base_url: str) -> None:
    assert_openai_error(httpx.get(base_url + "/nope", timeout=10), 404, "Not Found")
    slashed = post(base_url, {"model": MODEL, "messages": user("hi")}, path="/chat/completions/")
    assert_openai_error(slashed, 404, "the path is /v1/chat/completions, without the final /")
    assert_openai_error(httpx.get(base_url + "/models/gpt-9", timeout=10), 404, "gpt-9")
    assert_openai_error(
        post(base_url, {"model": MODEL, "messages": user("hi")}, {"x-stepchat-reuse": "maybe"}),
        400, "x-stepchat-reuse",
    )


def test_the_openai_client_raises_its_own_errors(base_url: str) -> None:
    with pytest.raises(openai.NotFoundError):
        client(base_url).chat.completions.create(model="gpt-9", messages=user("hi"))  # type: ignore[arg-type]
    with pytest.raises(openai.BadRequestError):
        client(base_url).chat.completions.create(model=MODEL, messages=[])


def _over_context(_messages: Sequence[ChatMessage]) -> str:
    raise PromptTooLong.for_model(MODEL, 2371, 2048)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_prompt_over_the_model_s_context_is_the_client_s_400(stream: bool) -> None:
    """The sender's to shorten, in OpenAI's shape for it; not the model's failure (502)."""
    with live(create_app(make_pool(HeldBackend([_over_context])))) as url:
        reply = post(url, {"model": MODEL, "messages": user(TEXT_PROMPT), "stream": stream})
        with pytest.raises(openai.BadRequestError):
            client(url).chat.completions.create(model=MODEL, messages=user(TEXT_PROMPT))  # type: ignore[arg-type]
    assert reply.status_code == 400
    assert reply.json() == {"error": {
        "message": f"model {MODEL}: the prompt is 2371 tokens, too long for its context of "
        "2048 (send a shorter one)",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
    }}


@pytest.fixture
def small_body_url() -> Iterator[str]:
    with live(create_app(make_pool(HeldBackend([TEXT_REPLY])), max_body=200)) as url:
        yield url


def test_bodies_over_the_cap_are_refused(small_body_url: str) -> None:
    big = {"model": MODEL, "messages": user("x" * 500)}
    declared = post(small_body_url, big)
    assert_openai_error(declared, 413, "200-byte limit")

    def chunked() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield json.dumps(big).encode()

    reply = httpx.post(small_body_url + "/chat/completions", content=chunked(), timeout=10,
                       headers={"Content-Type": "application/json"})
    assert_openai_error(reply, 413, "200-byte limit")
    for refused in (declared, reply):
        assert refused.json()["error"]["code"] == "request_too_large"
    assert post(small_body_url, {"model": MODEL, "messages": user("hi")}).status_code == 200
