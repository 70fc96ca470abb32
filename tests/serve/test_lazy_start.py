"""`stepchat serve` listens before its parts load: a cache hit never waits for the model.

Real parts (the bundled GGUF, the numpy MiniLM, LanceDB under a temp home): the pool is
opened the way `stepchat serve` opens it, requests are answered before anything was loaded
ahead of them, and the background warm-up then loads the rest.
"""

from __future__ import annotations

from pathlib import Path

import httpx2 as httpx
import pytest

from stepchat.config import ConfigError, load_config
from stepchat.paths import UserPaths
from stepchat.serve.app import create_app
from stepchat.serve.pool import open_pool, warm_up
from tests.serve.conftest import live

pytestmark = pytest.mark.slow


def test_hits_are_served_before_the_model_loads(tmp_path: Path) -> None:
    config = load_config(UserPaths(tmp_path / "config", tmp_path / "data"))
    pool = open_pool(config, [config.default_model], queue_limit=4)
    parts = pool.parts
    assert parts is not None
    assert not pool.ready and not parts.store.loaded and not parts.backends[0].loaded

    with live(create_app(pool)) as base_url, httpx.Client(
        base_url=base_url.removesuffix("/v1"), timeout=60
    ) as client:
        health = client.get("/health").json()
        assert health["status"] == "loading" and health["models"][0]["loaded"] is False
        assert client.get("/health/ready").status_code == 503

        def ask(prompt: str) -> httpx.Response:
            body = {"model": config.default_model,
                    "messages": [{"role": "user", "content": prompt}]}
            return client.post("/v1/chat/completions", json=body)

        first = ask("Solve for x: 3x + 5 = 20")
        assert first.status_code == 200 and first.headers["x-stepchat-path"] == "solver"
        second = ask("Solve for x: 3x + 7 = 20")
        assert second.status_code == 200
        assert "x = 13/3" in second.json()["choices"][0]["message"]["content"]
        # Neither the solved request nor its structural repeat needed the model.
        assert not parts.backends[0].loaded

        said: list[str] = []
        warm_up(pool, said.append)
        assert pool.ready, said
        assert [line.split(" ready")[0] for line in said] == [
            "cache", "embedder", f"model {config.default_model}"]
        health = client.get("/health").json()
        assert health["status"] == "ok" and health["models"][0]["loaded"] is True
        assert client.get("/health/ready").status_code == 200
    pool.close()


def test_a_missing_gguf_fails_before_the_server_starts(tmp_path: Path) -> None:
    paths = UserPaths(tmp_path / "config", tmp_path / "data")
    paths.config_dir.mkdir(parents=True)
    paths.config_file.write_text(
        '[[models]]\nid = "gone"\nname = "Gone"\nsource = "/nonexistent/model.gguf"\n'
    )
    config = load_config(paths)
    with pytest.raises(ConfigError, match="GGUF file not found"):
        open_pool(config, ["gone"], queue_limit=4)
