"""A SeaweedFS S3 server on loopback for the bucket tests, started and stopped by the tests.

Nothing starts unless a test asks for a bucket.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.s3server import WeedServer

_PREFIXES = itertools.count()


@pytest.fixture(scope="session")
def weed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WeedServer]:
    """One server for the session; tests keep apart by prefix."""
    server = WeedServer(tmp_path_factory.mktemp("weed"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def weed_own(tmp_path: Path) -> Iterator[WeedServer]:
    """A server of the test's own, for tests that stop and restart it."""
    server = WeedServer(tmp_path / "weed")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def bucket_env(weed: WeedServer, monkeypatch: pytest.MonkeyPatch) -> WeedServer:
    """The shared server's endpoint and credentials in this process's environment."""
    for key, value in weed.env().items():
        monkeypatch.setenv(key, value)
    return weed


@pytest.fixture
def bucket_uri(bucket_env: WeedServer, request: pytest.FixtureRequest) -> str:
    """A fresh prefix in the shared server's bucket."""
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower())[:40]
    return bucket_env.uri(f"t{next(_PREFIXES)}-{name}")
