"""The real backends against the bundled SmolLM2 GGUF: in process, and over HTTP.

The HTTP backend is tested against a real llama-cpp-python server started on loopback, so
the SSE parsing, `response_format` and cancellation meet an actual OpenAI-compatible peer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from stepchat.backends.isolated import IsolatedBackend
from stepchat.backends.llama_cpp import LlamaCppBackend
from stepchat.backends.openai_http import OpenAIHttpBackend
from stepchat.bench.servers import free_port, llama_server_command, running
from stepchat.config import ModelSpec, load_config
from stepchat.core.ports import Backend, BackendError, GenerationCancelled, PromptTooLong
from stepchat.core.prompt import MAX_PROMPT_CHARS
from stepchat.core.types import ChatMessage
from tests.cancelling import CancelAfter

pytestmark = pytest.mark.slow

PERSON_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}
JSON_PROMPT = [ChatMessage("user", "Return only a JSON object with keys name and age for Bob, 40.")]
STORY_PROMPT = [ChatMessage("user", "Write a long story about a dragon who learns to cook.")]
OVER_CONTEXT = "Summarize: " + "Lorem ipsum dolor sit amet. " * 3000
"""Its first 6,000 characters (`MAX_PROMPT_CHARS`, the most a prompt of a checked kind or
the cache may have) are still over the bundled model's context of 2048 tokens: 2371 under
its chat template."""
OVER_CONTEXT_CUT = [ChatMessage("user", OVER_CONTEXT[:MAX_PROMPT_CHARS])]
TOO_LONG = (
    "model smollm2-135m: the prompt is 2371 tokens, too long for its context of 2048 "
    "(send a shorter one)"
)


@pytest.fixture(scope="module")
def spec() -> ModelSpec:
    bundled = load_config().model()
    assert isinstance(bundled, ModelSpec)
    return bundled


Local = LlamaCppBackend | IsolatedBackend


@pytest.fixture(scope="module", params=["in-process", "own-process"])
def local(spec: ModelSpec, request: pytest.FixtureRequest) -> Iterator[Local]:
    """The GGUF run here, and run as stepchat runs it: in a process of its own."""
    backend: Local = (LlamaCppBackend(spec, threads=2) if request.param == "in-process"
                      else IsolatedBackend.for_gguf(spec, threads=2))
    backend.load()
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def server_url(spec: ModelSpec, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    command = llama_server_command(
        spec.gguf_path(), port, alias=spec.id, context=spec.context, threads=2,
        chat_format=spec.chat_format,
    )
    url = f"http://127.0.0.1:{port}"
    with running(command, url + "/v1/models", log):
        yield url


@pytest.fixture(scope="module")
def remote(server_url: str, spec: ModelSpec) -> OpenAIHttpBackend:
    return OpenAIHttpBackend(server_url, spec.id, timeout=60)


# ---------------------------------------------------------------------------- local GGUF


def test_local_backend_is_a_backend(local: Local) -> None:
    assert isinstance(local, Backend)
    assert local.loaded and local.load_seconds is not None and local.load_seconds > 0


def test_local_generates_and_streams(local: Local) -> None:
    pieces: list[str] = []
    done = local.complete(
        [ChatMessage("user", "What is the capital of France? Answer in one sentence.")],
        max_tokens=48,
        on_token=pieces.append,
    )
    assert "Paris" in done.text
    assert len(pieces) > 3 and "".join(pieces) == done.text
    assert done.completion_tokens > 3
    # Counts come from the tokenizer, not from the chunk count or a character estimate.
    assert abs(done.completion_tokens - local.count_tokens(done.text)) <= 2
    question_tokens = local.count_tokens("What is the capital of France? Answer in one sentence.")
    assert done.prompt_tokens > question_tokens  # the chat template adds its own tokens
    assert done.elapsed_ms > 0


def test_local_respects_max_tokens(local: Local) -> None:
    done = local.complete(STORY_PROMPT, max_tokens=8)
    assert done.finish_reason == "length"
    assert done.completion_tokens == 8
    assert 5 <= local.count_tokens(done.text) <= 9


def test_local_is_deterministic_at_temperature_zero(local: Local) -> None:
    first = local.complete(STORY_PROMPT, max_tokens=16)
    second = local.complete(STORY_PROMPT, max_tokens=16)
    assert first.text == second.text


def test_local_honours_cancel_mid_stream(local: Local) -> None:
    reader = CancelAfter(3)
    with pytest.raises(GenerationCancelled):
        local.complete(STORY_PROMPT, max_tokens=200, on_token=reader, cancel=reader.cancel)
    assert len(reader.seen) == 3
    # The model is usable straight after a cancel.
    again = local.complete(STORY_PROMPT, max_tokens=4)
    assert again.completion_tokens == 4


def test_local_json_schema_output_parses(local: Local) -> None:
    done = local.complete(JSON_PROMPT, max_tokens=64, json_schema=PERSON_SCHEMA)
    data = json.loads(done.text)
    assert set(data) == {"name", "age"}
    assert isinstance(data["name"], str) and isinstance(data["age"], int)


def test_local_stop_sequences_cut_the_reply(local: Local) -> None:
    done = local.complete(
        [ChatMessage("user", "List the numbers 1 to 10 separated by commas.")],
        max_tokens=64,
        stop=["5"],
    )
    assert "5" not in done.text and "6" not in done.text


def test_a_prompt_over_the_context_is_prompt_too_long_in_one_line(local: Local) -> None:
    """Also across the model process's boundary: the caller can tell the sender's mistake
    from a model that failed. The model answers the next request as usual."""
    with pytest.raises(PromptTooLong) as info:
        local.complete(OVER_CONTEXT_CUT, max_tokens=16)
    assert str(info.value) == TOO_LONG
    assert local.complete(STORY_PROMPT, max_tokens=4).completion_tokens == 4


def test_missing_gguf_is_a_one_line_backend_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    backend = LlamaCppBackend(ModelSpec(id="ghost", name="Ghost", source=str(missing)), 1)
    with pytest.raises(BackendError) as info:
        backend.load()
    message = str(info.value)
    assert "\n" not in message and str(missing) in message and "fix" in message


def test_corrupt_gguf_is_a_one_line_backend_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"GGUF" + os.urandom(4096))
    backend = LlamaCppBackend(ModelSpec(id="junk", name="Junk", source=str(junk)), 1)
    with pytest.raises(BackendError) as info:
        backend.complete([ChatMessage("user", "hi")], max_tokens=4)
    assert "\n" not in str(info.value) and "junk.gguf" in str(info.value)


# ---------------------------------------------------------------------------- over HTTP


def test_http_chat_completion(remote: OpenAIHttpBackend) -> None:
    done = remote.complete(
        [ChatMessage("user", "What is the capital of France? Answer in one sentence.")],
        max_tokens=48,
    )
    assert "Paris" in done.text
    assert done.prompt_tokens > 0 and done.completion_tokens > 0


def test_http_streams_pieces_and_respects_max_tokens(remote: OpenAIHttpBackend) -> None:
    pieces: list[str] = []
    done = remote.complete(STORY_PROMPT, max_tokens=12, on_token=pieces.append)
    assert len(pieces) >= 6 and "".join(pieces) == done.text
    assert done.finish_reason == "length"


def test_http_json_schema_output_parses(remote: OpenAIHttpBackend) -> None:
    done = remote.complete(JSON_PROMPT, max_tokens=64, json_schema=PERSON_SCHEMA)
    data = json.loads(done.text)
    assert set(data) == {"name", "age"}
    assert isinstance(data["age"], int)


def test_http_honours_cancel(remote: OpenAIHttpBackend) -> None:
    reader = CancelAfter(2)
    with pytest.raises(GenerationCancelled):
        remote.complete(STORY_PROMPT, max_tokens=200, on_token=reader, cancel=reader.cancel)
    assert len(reader.seen) == 2
    assert remote.complete(STORY_PROMPT, max_tokens=4).text


def test_http_a_prompt_over_the_server_s_context_is_prompt_too_long(server_url: str) -> None:
    """No `context` on the entry, so nothing is checked here: the server refuses it, and
    its 400 becomes the same line as the local model's."""
    remote = OpenAIHttpBackend(server_url, "smollm2-135m", timeout=60)
    with pytest.raises(PromptTooLong) as info:
        remote.complete(OVER_CONTEXT_CUT, max_tokens=16)
    assert str(info.value) == TOO_LONG


def test_ask_says_a_prompt_over_the_context_in_one_line(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "ask", "--no-cache", OVER_CONTEXT_CUT[0].content],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "STEPCHAT_HOME": str(tmp_path)},
    )
    assert (out.returncode, out.stdout, out.stderr) == (2, "", f"stepchat: {TOO_LONG}\n")


def test_http_unreachable_server_is_a_one_line_backend_error() -> None:
    backend = OpenAIHttpBackend(f"http://127.0.0.1:{free_port()}", "none", timeout=5)
    with pytest.raises(BackendError) as info:
        backend.complete([ChatMessage("user", "hi")], max_tokens=4)
    assert "\n" not in str(info.value) and "cannot reach" in str(info.value)


def test_tokens_counted_before_loading_match_the_loaded_model(spec: ModelSpec) -> None:
    """A cache hit counts the tokens it saved from the vocabulary alone; the figures must
    be the loaded model's own."""
    texts = ["x = 13/3", "When it rains, wear a waterproof jacket.", '{"name": "Bob"}', "東京"]
    unloaded = LlamaCppBackend(spec, threads=1)
    before = [unloaded.count_tokens(t) for t in texts]
    assert not unloaded.loaded
    loaded = LlamaCppBackend(spec, threads=1)
    loaded.load()
    assert before == [loaded.count_tokens(t) for t in texts]
    assert all(n > 0 for n in before)
    loaded.close()
    unloaded.close()
