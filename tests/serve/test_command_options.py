"""`stepchat serve`'s options: a value the server cannot use is refused when the command
line is read, in one line naming the option and what it takes, never taken for the default
or left to fail with a traceback once the server starts."""

from __future__ import annotations

import argparse
import json

import httpx2 as httpx
import pytest

from stepchat.cli import build_parser
from stepchat.serve.app import create_app
from stepchat.serve.command import web_origin
from tests.serve.conftest import MODEL, TEXT_PROMPT, TEXT_REPLY, HeldBackend, live, make_pool, user

HOST_SHAPE = ("(expected a name such as llm.example.lan or an address, without scheme or "
              "path; '*' is not supported)")
ORIGIN_SHAPE = "(expected scheme://host[:port] with scheme http or https, e.g. http://localhost:3000)"


def serve_args(*args: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *args])


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--port", "99999"], "--port: expected a port from 0 to 65535, not '99999'"),
        (["--port", "-1"], "--port: expected a port from 0 to 65535, not '-1'"),
        (["--port", "http"], "--port: expected a port from 0 to 65535, not 'http'"),
        (["--max-body", "0"], "--max-body: expected a size in bytes, 1 or more, not '0'"),
        (["--max-body", "-5"], "--max-body: expected a size in bytes, 1 or more, not '-5'"),
        (["--threads", "0"], "--threads: expected a whole number, 1 or more, not '0'"),
        (["--queue", "-1"], "--queue: expected a whole number, 0 or more, not '-1'"),
        (["--allow-origin", "*"], "--allow-origin: '*' is not supported: name each web page's "
         "origin, e.g. http://localhost:3000 (any page would otherwise use the model and the "
         "cache from a visitor's browser)"),
        (["--allow-origin", "localhost:3000"],
         f"--allow-origin: not an origin: 'localhost:3000' {ORIGIN_SHAPE}"),
        (["--allow-origin", "http://localhost:3000/app"],
         f"--allow-origin: not an origin: 'http://localhost:3000/app' {ORIGIN_SHAPE}"),
        (["--allow-origin", "ftp://files.example"],
         f"--allow-origin: not an origin: 'ftp://files.example' {ORIGIN_SHAPE}"),
        (["--allow-origin", "http://localhost:70000"],
         f"--allow-origin: not an origin: 'http://localhost:70000' {ORIGIN_SHAPE}"),
        (["--allow-origin", "null"], f"--allow-origin: not an origin: 'null' {ORIGIN_SHAPE}"),
        (["--allow-host", ""], f"--allow-host: not a host name: '' {HOST_SHAPE}"),
        (["--allow-host", "*"], f"--allow-host: not a host name: '*' {HOST_SHAPE}"),
        (["--allow-host", "http://llm.lan"],
         f"--allow-host: not a host name: 'http://llm.lan' {HOST_SHAPE}"),
        (["--allow-host", "llm.lan/v1"],
         f"--allow-host: not a host name: 'llm.lan/v1' {HOST_SHAPE}"),
    ],
)
def test_an_unusable_value_is_one_line_naming_the_option(
    capsys: pytest.CaptureFixture[str], args: list[str], line: str
) -> None:
    with pytest.raises(SystemExit) as info:
        serve_args(*args)
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"stepchat serve: error: argument {line}"


def test_the_ends_of_each_range_are_taken() -> None:
    low = serve_args("--port", "0", "--max-body", "1", "--threads", "1", "--queue", "0")
    assert (low.port, low.max_body, low.threads, low.queue) == (0, 1, 1, 0)
    assert serve_args("--port", "65535").port == 65535
    default = serve_args()
    assert (default.port, default.max_body, default.threads, default.queue) == (
        8080, None, None, 32)


@pytest.mark.parametrize("name", ["llm.example.lan", "llm.lan:8080", "10.0.0.5", "[::1]:80"])
def test_a_host_header_form_is_taken(name: str) -> None:
    """An empty `--allow-host` was taken too: it matched no request, and said nothing."""
    assert serve_args("--allow-host", name).allow_host == [name]


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("http://localhost:3000", "http://localhost:3000"),
        ("HTTP://LocalHost:3000/", "http://localhost:3000"),
        ("https://app.example:443", "https://app.example"),
        ("http://app.example:80", "http://app.example"),
        ("http://[::1]:5173", "http://[::1]:5173"),
    ],
)
def test_an_origin_is_kept_as_browsers_send_it(given: str, sent: str) -> None:
    assert serve_args("--allow-origin", given).allow_origin == [sent]


def test_an_origin_given_another_way_is_served_with_cors() -> None:
    """A browser writes its page's origin in small letters and without the default port;
    the server matches that, and answers it with CORS headers naming it."""
    page = "https://app.example"
    app = create_app(make_pool(HeldBackend([TEXT_REPLY])),
                     origins=[web_origin("HTTPS://App.Example:443/")])
    body = json.dumps({"model": MODEL, "messages": user(TEXT_PROMPT)}).encode()
    with live(app) as url:
        reply = httpx.post(url + "/chat/completions", content=body, timeout=30,
                           headers={"Origin": page, "Content-Type": "application/json"})
    assert reply.status_code == 200, reply.text
    assert reply.headers["access-control-allow-origin"] == page
