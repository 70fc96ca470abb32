"""A SeaweedFS S3 server on loopback for the bucket tests, started and stopped by the tests.

Nothing starts unless a test asks for a bucket.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.s3server import WeedServer

_PREFIXES = itertools.count()


@contextmanager
def _running(root: Path) -> Iterator[WeedServer]:
    server = WeedServer(root)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _export(server: WeedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's endpoint and credentials in this process's environment."""
    for key, value in server.env().items():
        monkeypatch.setenv(key, value)


@pytest.fixture(scope="session")
def weed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WeedServer]:
    """One server for the session; tests keep apart by prefix."""
    with _running(tmp_path_factory.mktemp("weed")) as server:
        yield server


@pytest.fixture
def weed_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WeedServer]:
    """A server of the test's own (in the environment), for tests that stop and restart it."""
    with _running(tmp_path / "weed") as server:
        _export(server, monkeypatch)
        yield server


@pytest.fixture
def bucket_env(weed: WeedServer, monkeypatch: pytest.MonkeyPatch) -> WeedServer:
    """The shared server, in this process's environment."""
    _export(weed, monkeypatch)
    return weed


@pytest.fixture
def bucket_uri(bucket_env: WeedServer, request: pytest.FixtureRequest) -> str:
    """A fresh prefix in the shared server's bucket."""
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower())[:40]
    return bucket_env.uri(f"t{next(_PREFIXES)}-{name}")
