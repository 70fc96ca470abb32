"""`stepchat serve` on the real stack, answering the official `openai` client and the `llm`
command-line tool, streaming and not:

- `local`: serve runs the bundled SmolLM2 GGUF in process;
- `remote`: serve runs a `kind = "openai"` entry pointing at `python -m llama_cpp.server`
  (the same GGUF behind a real OpenAI-compatible server), with a bearer token.

The same remote entry also drives `stepchat ask`, the app and the bench. Every server is a
child process on a free loopback port, started and stopped here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import openai
import pytest

from stepchat.backends.openai_http import OpenAIHttpBackend
from stepchat.bench.servers import free_port, llama_server_command, running, serve_command
from stepchat.config import ModelSpec, ServerSpec, load_config
from stepchat.core.types import ChatMessage
from stepchat.paths import UserPaths

pytestmark = pytest.mark.slow

TOKEN = "real-stack-test-token"
TOKEN_ENV = "STEPCHAT_TEST_SERVE_TOKEN"
REMOTE_ENTRY = """
[[models]]
id = "remote"
name = "SmolLM2 behind llama_cpp.server"
kind = "openai"
base_url = "http://127.0.0.1:{port}/v1"
model = "smol"
context = 2048
max_tokens = 96
temperature = 0.0
timeout_s = 120
"""


@dataclass(frozen=True)
class Target:
    name: str
    url: str
    model: str
    token: str | None
    log: Path

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.url, api_key=self.token or "none", max_retries=0,
                             timeout=300)


@pytest.fixture(scope="module")
def bundled() -> ModelSpec:
    spec = load_config().model()
    assert isinstance(spec, ModelSpec)
    return spec


@pytest.fixture(scope="module")
def llama_port(bundled: ModelSpec, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "llama.log"
    command = llama_server_command(bundled.gguf_path(), port, alias="smol",
                                   context=bundled.context, threads=2,
                                   chat_format=bundled.chat_format)
    with running(command, f"http://127.0.0.1:{port}/v1/models", log):
        yield port


def remote_home(root: Path, llama_port: int) -> Path:
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "config" / "config.toml").write_text(REMOTE_ENTRY.format(port=llama_port))
    return root


def home_env(home: Path) -> dict[str, str]:
    return {"STEPCHAT_HOME": str(home), "STEPCHAT_CONFIG": str(home / "config" / "config.toml"),
            TOKEN_ENV: TOKEN}


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    home = tmp_path_factory.mktemp("serve-local")
    (home / "config").mkdir()
    (home / "config" / "config.toml").write_text("")  # STEPCHAT_CONFIG names it: it must be there
    port = free_port()
    with running(serve_command(port, []), f"http://127.0.0.1:{port}/health", home / "log",
                 env=home_env(home)):
        yield Target("local", f"http://127.0.0.1:{port}/v1", load_config().default_model, None,
                     home / "log")


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory, llama_port: int) -> Iterator[Target]:
    home = remote_home(tmp_path_factory.mktemp("serve-remote"), llama_port)
    port = free_port()
    command = serve_command(port, ["remote"], ["--token-env", TOKEN_ENV])
    with running(command, f"http://127.0.0.1:{port}/health", home / "log", env=home_env(home),
                 headers={"Authorization": f"Bearer {TOKEN}"}):
        yield Target("remote", f"http://127.0.0.1:{port}/v1", "remote", TOKEN, home / "log")


@pytest.fixture(params=["local", "remote"])
def target(request: pytest.FixtureRequest) -> Target:
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="module")
def llm_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("llm-user")


def llm(target: Target, home: Path, *args: str) -> str:
    """The `llm` tool with an OpenAI-compatible endpoint configured the documented way."""
    models = [{"model_id": f"sc-{target.name}", "model_name": target.model,
               "api_base": target.url}]
    if target.token:
        models[0]["api_key_name"] = "stepchat"
        (home / "keys.json").write_text(json.dumps({"stepchat": target.token}))
    (home / "extra-openai-models.yaml").write_text(json.dumps(models))  # YAML reads JSON
    out = subprocess.run(
        [sys.executable, "-m", "llm", *args], capture_output=True, text=True, timeout=600,
        env={**os.environ, "LLM_USER_PATH": str(home)},
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def ask_llm(target: Target, home: Path, prompt: str, *, stream: bool) -> str:
    flags = [] if stream else ["--no-stream"]
    return llm(target, home, "-m", f"sc-{target.name}", *flags, prompt).rstrip("\n")


def last_logged(target: Target, home: Path) -> dict[str, Any]:
    records = json.loads(llm(target, home, "logs", "-n", "1", "--json"))
    return records[0]["response_json"]


def stream_text(target: Target, prompt: str) -> tuple[str, list[Any]]:
    chunks = list(target.client().chat.completions.create(
        model=target.model, messages=[{"role": "user", "content": prompt}], stream=True,
        stream_options={"include_usage": True},
    ))
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices), chunks


def test_openai_client_streaming_and_not(target: Target) -> None:
    prompt = "What is the capital of France? Answer in one sentence."
    streamed, chunks = stream_text(target, prompt)
    assert "Paris" in streamed
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    assert (chunks[-1].model_extra or {})["stepchat"]["path"] == "miss"  # on the last chunk

    raw = target.client().chat.completions.with_raw_response.create(
        model=target.model, messages=[{"role": "user", "content": prompt}],
    )
    assert raw.headers["x-stepchat-path"] == "reuse-only"
    assert int(raw.headers["x-stepchat-tokens-saved"]) > 0
    assert raw.parse().choices[0].message.content == streamed  # what streamed is what is kept

    json_prompt = ("Return a JSON object with keys name, age and city for a person whose name "
                   "is Alice, age is 30 and city is Paris.")
    reply = target.client().chat.completions.create(
        model=target.model, messages=[{"role": "user", "content": json_prompt}],
    )
    assert json.loads(reply.choices[0].message.content or "") == {
        "name": "Alice", "age": 30, "city": "Paris"}


def test_a_hit_made_by_one_client_is_served_to_the_other(target: Target, llm_home: Path) -> None:
    prompt = "Solve for x: 4x - 3 = 13. Show each step."
    first = target.client().chat.completions.with_raw_response.create(
        model=target.model, messages=[{"role": "user", "content": prompt}],
    )
    assert first.headers["x-stepchat-path"] in ("solver", "miss")
    text = first.parse().choices[0].message.content
    assert text is not None and text.splitlines()[-1] == "x = 4"

    assert ask_llm(target, llm_home, prompt, stream=False) == text
    assert last_logged(target, llm_home)["stepchat"]["path"] == "reuse-only"
    assert ask_llm(target, llm_home, prompt, stream=True) == text

    by_llm = "Write one sentence about the sea."
    said = ask_llm(target, llm_home, by_llm, stream=True)
    assert said.strip()
    again = target.client().chat.completions.with_raw_response.create(
        model=target.model, messages=[{"role": "user", "content": by_llm}],
    )
    assert again.headers["x-stepchat-path"] == "reuse-only"
    assert again.parse().choices[0].message.content == said


def test_web_pages_are_refused_and_every_request_is_logged(local: Target) -> None:
    """The real server refuses a form post, a rebound Host and a page's Origin before the
    model runs, and logs one line for each request it answered."""
    body = json.dumps({"model": local.model, "messages": [
        {"role": "user", "content": "Solve for x: 9x - 4 = 14."}]}).encode()
    chat = local.url + "/chat/completions"
    json_type = {"Content-Type": "application/json"}
    refusals = [
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({**json_type, "Host": "evil.example"}, 403),
        ({**json_type, "Origin": "http://evil.example"}, 403),
    ]
    for headers, status in refusals:
        assert httpx.post(chat, content=body, headers=headers, timeout=60).status_code == status
    served = httpx.post(chat, content=body, headers=json_type, timeout=300)
    assert served.status_code == 200 and served.headers["x-stepchat-path"] == "solver"
    def logged(what: str) -> int:
        lines = local.log.read_text(errors="replace").splitlines()
        return sum(what in line for line in lines)

    deadline = time.monotonic() + 10  # a line is written once its reply's last byte is out
    while logged(" 200 POST /v1/chat/completions solver ") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert logged(" 200 POST /v1/chat/completions solver ") >= 1
    assert logged(" 415 POST /v1/chat/completions ") >= 2
    assert logged(" 403 POST /v1/chat/completions ") >= 2


# ---- the same server entry in the rest of stepchat -------------------------------------


def test_the_server_entry_learns_the_json_shape_of_llama_cpp_server(llama_port: int) -> None:
    """llama-cpp-python's server refuses `json_schema` (500) and constrains `json_object`."""
    spec = ServerSpec(id="remote", name="r", kind="openai",
                      base_url=f"http://127.0.0.1:{llama_port}", model="smol")
    backend = OpenAIHttpBackend.from_spec(spec)
    schema = {"type": "object", "properties": {"name": {"type": "string"},
              "age": {"type": "integer"}}, "required": ["name", "age"]}
    done = backend.complete(
        [ChatMessage("user", "Return only a JSON object with keys name and age for Bob, 40.")],
        max_tokens=48, json_schema=schema,
    )
    assert set(json.loads(done.text)) == {"name", "age"}
    assert backend.json_format == "json_object"


def test_the_server_entry_drives_ask(tmp_path: Path, llama_port: int) -> None:
    home = remote_home(tmp_path, llama_port)
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "ask", "--model", "remote", "--json",
         "Return a JSON object with keys name and age for a person whose name is Bob and "
         "age is 41."],
        capture_output=True, text=True, env={**os.environ, **home_env(home)}, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert json.loads(record["answer"]) == {"name": "Bob", "age": 41}
    assert record["model"] == "remote"


def test_the_server_entry_drives_the_bench(tmp_path: Path, llama_port: int) -> None:
    home = remote_home(tmp_path, llama_port)
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "bench", "--quick", "--arms", "stepcache",
         "--model", "remote", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, env={**os.environ, **home_env(home)}, timeout=1200,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["config"]["model"] == "remote"
    summary = results["summary"]["stepcache"]
    assert summary["requests"] == 24 and summary["errors"]["mean"] == 0
    assert summary["correctness"]["mean"] == 1.0


@pytest.mark.anyio
async def test_the_server_entry_drives_the_app(tmp_path: Path, llama_port: int) -> None:
    from stepchat.runtime import load_parts
    from stepchat.tui.app import build_app
    from stepchat.tui.screens.dialogs import ModelPickerScreen

    home = remote_home(tmp_path, llama_port)
    config = load_config(UserPaths(home / "config", home / "data"))
    app = build_app(config, load_parts, blink=False)
    async with app.run_test(size=(110, 36)) as pilot:
        app.switch_model("remote")
        for _ in range(600):
            await pilot.pause(0.1)
            if app.cache is not None:
                break
        assert app.cache is not None and app.cache.backend.model_id == "remote"
        app.chat.prompt.text = "Solve for x: 5x + 2 = 17. Show each step."
        await pilot.press("enter")
        for _ in range(600):
            await pilot.pause(0.1)
            turns = app.conversation.turns
            if turns and (turns[-1].answer is not None or turns[-1].error):
                break
        turn = app.conversation.turns[-1]
        assert turn.error is None, turn.error
        assert turn.answer is not None and turn.answer.text.splitlines()[-1] == "x = 3"
        await pilot.press("f3")
        picker = app.screen
        assert isinstance(picker, ModelPickerScreen)
        for _ in range(100):
            await pilot.pause(0.05)
            if "remote" in picker.states:
                break
        assert picker.states["remote"].usable
        assert picker.states["remote"].detail.startswith("reachable")
