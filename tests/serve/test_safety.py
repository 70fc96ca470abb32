"""Who may talk to the server: loopback by default, a bearer token for anything else."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import openai
import pytest

from stepchat.config import ConfigError
from stepchat.serve.app import BearerAuth, create_app
from stepchat.serve.command import bearer_token, is_loopback
from tests.serve.conftest import MODEL, TEXT_REPLY, HeldBackend, live, make_pool, user

TOKEN = "s3cret-token-for-tests"


@pytest.fixture
def guarded() -> Iterator[str]:
    with live(create_app(make_pool(HeldBackend([TEXT_REPLY])), token=TOKEN)) as url:
        yield url


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", TOKEN],
)
def test_requests_without_the_token_get_401(guarded: str, authorization: str | None) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    for method, path in [("GET", "/models"), ("GET", "/../health"), ("POST", "/chat/completions"),
                         ("GET", "/nowhere")]:
        reply = httpx.request(method, guarded + path, headers=headers, timeout=10,
                              json={"model": MODEL, "messages": user("hi")})
        assert reply.status_code == 401, (method, path)
        assert reply.headers["www-authenticate"] == "Bearer"
        assert reply.json()["error"]["code"] == "invalid_api_key"


def test_the_token_opens_every_route(guarded: str) -> None:
    client = openai.OpenAI(base_url=guarded, api_key=TOKEN, max_retries=0)
    assert client.chat.completions.create(
        model=MODEL, messages=user("What is the capital of France?")  # type: ignore[arg-type]
    ).choices[0].message.content == TEXT_REPLY
    health = httpx.get(guarded.removesuffix("/v1") + "/health", timeout=10,
                       headers={"Authorization": f"bearer {TOKEN}"})
    assert health.status_code == 200
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=guarded, api_key="nope", max_retries=0).models.list()


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check goes through hmac.compare_digest (timing-safe), not ==."""
    import stepchat.serve.app as app_module

    seen: list[tuple[bytes, bytes]] = []

    def spy(a: bytes, b: bytes) -> bool:
        seen.append((a, b))
        return a == b

    monkeypatch.setattr(app_module.hmac, "compare_digest", spy)
    auth = BearerAuth(lambda *a: None, TOKEN)  # type: ignore[arg-type]
    scope = {"type": "http", "headers": [(b"authorization", b"Bearer abc")]}
    assert auth._allowed(scope) is False
    assert seen == [(b"abc", TOKEN.encode())]


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("localhost", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.4", False), ("example.org", False)],
)
def test_loopback_detection(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_binding_off_loopback_needs_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    assert bearer_token("127.0.0.1", None) is None
    with pytest.raises(ConfigError, match="--token-env"):
        bearer_token("0.0.0.0", None)
    monkeypatch.delenv("STEPCHAT_TEST_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="STEPCHAT_TEST_TOKEN"):
        bearer_token("0.0.0.0", "STEPCHAT_TEST_TOKEN")
    monkeypatch.setenv("STEPCHAT_TEST_TOKEN", TOKEN)
    assert bearer_token("0.0.0.0", "STEPCHAT_TEST_TOKEN") == TOKEN


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--host", "0.0.0.0", "--port", "0"], "--token-env"),
        (["--host", "0.0.0.0", "--port", "0", "--token-env", "STEPCHAT_UNSET_TOKEN"],
         "STEPCHAT_UNSET_TOKEN"),
        # An address that cannot be bound is said first: a token would not fix it.
        (["--host", "999.1.1.1", "--port", "0"], "cannot listen on 999.1.1.1"),
        (["--model", "ghost"], "unknown model 'ghost'"),
    ],
)
def test_serve_refuses_to_start_with_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "STEPCHAT_UNSET_TOKEN"}
    env["STEPCHAT_HOME"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "serve", *args],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in out.stderr
