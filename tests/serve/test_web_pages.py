"""What a web page can do to the server: nothing, unless its name or origin is allowed.

Each attack is replayed over a real socket against uvicorn serving the app: a form post
(`text/plain` or form-encoded carrying a JSON body), a DNS-rebinding page (a foreign
`Host`), and a cross-site fetch (an `Origin`). The model must not run and nothing may be
stored; command-line clients (no Origin, JSON bodies, the server's own address) still work.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2 as httpx
import openai
import pytest

from stepchat.serve.app import create_app
from stepchat.serve.guard import HostPolicy, host_name
from stepchat.store.memory import MemoryStore
from tests.serve.conftest import MODEL, TEXT_PROMPT, TEXT_REPLY, HeldBackend, live, make_pool, user

BODY = json.dumps({"model": MODEL, "messages": user("Poisoned by a form")}).encode()
EVIL = "http://evil.example"


def chat(url: str, headers: dict[str, str], body: bytes = BODY) -> httpx.Response:
    return httpx.post(url + "/chat/completions", content=body, headers=headers, timeout=30)


def assert_refused(reply: httpx.Response, status: int, code: str, words: str) -> None:
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert error["code"] == code and words in error["message"]


@pytest.fixture
def served() -> Iterator[tuple[str, HeldBackend, MemoryStore]]:
    backend, store = HeldBackend([TEXT_REPLY]), MemoryStore()
    with live(create_app(make_pool(backend, store))) as url:
        yield url, backend, store


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
     "multipart/form-data; boundary=x", None],
)
def test_a_body_not_declared_json_gets_415_and_runs_nothing(
    served: tuple[str, HeldBackend, MemoryStore], content_type: str | None
) -> None:
    url, backend, store = served
    headers = {} if content_type is None else {"Content-Type": content_type}
    assert_refused(chat(url, headers), 415, "unsupported_media_type", "application/json")
    assert not backend.started.is_set() and store.count() == 0


def test_the_form_post_from_the_report_is_refused(
    served: tuple[str, HeldBackend, MemoryStore],
) -> None:
    """The exact request that poisoned the cache: a page's form, text/plain, from its origin."""
    url, backend, store = served
    reply = chat(url, {"Origin": EVIL, "Content-Type": "text/plain"})
    assert reply.status_code == 403
    assert not backend.started.is_set() and store.count() == 0


def test_json_with_charset_is_still_json(served: tuple[str, HeldBackend, MemoryStore]) -> None:
    url, _, store = served
    body = json.dumps({"model": MODEL, "messages": user(TEXT_PROMPT)}).encode()
    reply = chat(url, {"Content-Type": "application/json; charset=utf-8"}, body)
    assert reply.status_code == 200 and store.count() == 1


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "127.0.0.1.evil.example",
                                  "localhost.evil.example", "10.0.0.5"])
def test_a_foreign_host_is_refused_on_every_route(
    served: tuple[str, HeldBackend, MemoryStore], host: str
) -> None:
    """A rebinding page sends its own name as Host: no reply, no cache probe, no model."""
    url, backend, store = served
    root = url.removesuffix("/v1")
    for reply in (
        httpx.get(url + "/models", headers={"Host": host}, timeout=10),
        httpx.get(root + "/health", headers={"Host": host}, timeout=10),
        chat(url, {"Host": host, "Content-Type": "application/json"}),
    ):
        assert_refused(reply, 403, "host_not_allowed", "--allow-host")
        assert "x-stepchat-path" not in reply.headers
    assert not backend.started.is_set() and store.count() == 0


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LOCALHOST:1234", "[::1]:80"])
def test_loopback_names_are_this_servers(
    served: tuple[str, HeldBackend, MemoryStore], host: str
) -> None:
    url, _, _ = served
    assert httpx.get(url + "/models", headers={"Host": host}, timeout=10).status_code == 200


@pytest.mark.parametrize("origin", [EVIL, "null", "http://localhost:3000", "http://127.0.0.1"])
def test_requests_from_web_pages_are_refused(
    served: tuple[str, HeldBackend, MemoryStore], origin: str
) -> None:
    url, backend, store = served
    reply = chat(url, {"Origin": origin, "Content-Type": "application/json"})
    assert_refused(reply, 403, "origin_not_allowed", "--allow-origin")
    models = httpx.get(url + "/models", headers={"Origin": origin}, timeout=10)
    assert models.status_code == 403
    assert not backend.started.is_set() and store.count() == 0


def test_the_official_client_sends_neither_and_is_served(
    served: tuple[str, HeldBackend, MemoryStore],
) -> None:
    url, _, store = served
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0)
    reply = client.chat.completions.create(model=MODEL, messages=user(TEXT_PROMPT))  # type: ignore[arg-type]
    assert reply.choices[0].message.content == TEXT_REPLY and store.count() == 1


@pytest.fixture
def opened() -> Iterator[tuple[str, MemoryStore]]:
    store = MemoryStore()
    app = create_app(
        make_pool(HeldBackend([TEXT_REPLY]), store),
        hosts=HostPolicy("127.0.0.1", ["stepchat.lan"]),
        origins=["http://localhost:3000"],
    )
    with live(app) as url:
        yield url, store


def test_allowed_names_and_origins_are_served_with_cors(opened: tuple[str, MemoryStore]) -> None:
    url, store = opened
    page = "http://localhost:3000"
    headers = {"Host": "stepchat.lan:8080", "Origin": page, "Content-Type": "application/json"}
    body = json.dumps({"model": MODEL, "messages": user(TEXT_PROMPT)}).encode()
    reply = chat(url, headers, body)
    assert reply.status_code == 200 and store.count() == 1
    assert reply.headers["access-control-allow-origin"] == page
    assert "x-stepchat-path" in reply.headers["access-control-expose-headers"]
    preflight = httpx.options(url + "/chat/completions", timeout=10, headers={
        "Origin": page, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, authorization"})
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == page
    assert_refused(chat(url, {**headers, "Origin": EVIL}), 403, "origin_not_allowed", EVIL)
    assert_refused(chat(url, {**headers, "Host": "other.lan"}), 403, "host_not_allowed",
                   "other.lan")


@pytest.mark.parametrize(
    ("bind", "host", "allowed"),
    [
        ("127.0.0.1", "127.0.0.1", True),
        ("127.0.0.1", "localhost", True),
        ("127.0.0.1", "192.168.1.4", False),
        ("::1", "::1", True),
        ("127.0.0.2", "127.0.0.2", True),   # the address the server prints
        ("127.0.0.2", "127.0.0.3", False),
        ("192.168.1.4", "192.168.1.4", True),
        ("192.168.1.4", "localhost", False),
        ("192.168.1.4", "box.lan", False),
        ("0.0.0.0", "192.168.1.4", True),   # an IP literal cannot be a rebound name
        ("0.0.0.0", "fe80::1", True),
        ("0.0.0.0", "box.lan", False),
        ("0.0.0.0", "evil.example", False),
    ],
)
def test_which_hosts_a_bind_address_answers_to(bind: str, host: str, allowed: bool) -> None:
    assert HostPolicy(bind).allows(host) is allowed
    assert HostPolicy(bind, ["box.lan"]).allows("box.lan")


@pytest.mark.parametrize(
    ("header", "name"),
    [("Example.ORG:8080", "example.org"), ("[::1]:8080", "::1"), ("[::1]", "::1"),
     ("localhost.", "localhost"), ("", "")],
)
def test_host_names_are_read_without_port_or_brackets(header: str, name: str) -> None:
    assert host_name(header) == name
