"""Issue 12 item 11 / issue 11 item 5: settings that do what they say.

A config value of the wrong type, an unknown key or a value outside the allowed ones is one
line on stderr naming the file, the key and what was expected (never a traceback, never
accepted silently); every setting is documented; a model's `max_tokens` caps its replies.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from stepchat import cli
from stepchat.backends.scripted import ScriptedBackend
from stepchat.config import ModelSpec, load_config
from stepchat.core.settings import PipelineSettings
from stepchat.core.types import Completion
from stepchat.embed.hashed import HashedEmbedder
from stepchat.paths import UserPaths
from stepchat.runtime import Parts, build_cache
from stepchat.store.memory import MemoryStore

MODEL = '[[models]]\nid = "m"\nname = "M"\nsource = "/models/m.gguf"\n'
BAD: list[tuple[str, str, str]] = [
    # (file body, key as reported, what must be said about it)
    ('threads = "two"', "threads", 'expected a whole number, got "two"'),
    ("cache = 5", "cache", "expected a table, got 5"),
    ('[cache]\nrepair_tries = "3"', "[cache] repair_tries", 'expected a whole number, got "3"'),
    ('[cache]\nlinear_strategy = "bogus"', "[cache] linear_strategy",
     "expected 'solver-first' or 'model-first', got \"bogus\""),
    ("[cache]\nmin_similarity = 7", "[cache] min_similarity", "expected a number <= 1.0"),
    ("[cache]\nsubstitution = 1", "[cache] substitution", "expected true or false, got 1"),
    ("[cache]\nno_such_key = 1", "[cache] no_such_key", "unknown key"),
    ("[cache]\nmax_tokens = 9", "[cache] max_tokens", "[[models]] entry"),
    ("[limits]\nttl_days = -1", "[limits] ttl_days", "expected a number >= 0"),
    ('[limits]\nmax_entries = "lots"', "[limits] max_entries", "expected a whole number"),
    (MODEL + "max_tokens = 0", "[[models]] #1 ('m') max_tokens", "expected a number >= 1"),
    (MODEL + 'context = "big"', "[[models]] #1 ('m') context", "expected a whole number"),
    ('[[models]]\nid = "m"\nname = "M"', "[[models]] #1 ('m') source", "missing"),
    (MODEL + 'extra_buffers = "no"', "[[models]] #1 ('m') extra_buffers",
     'expected true or false, got "no"'),
    (MODEL + "extra_buffers = 0", "[[models]] #1 ('m') extra_buffers",
     "expected true or false, got 0"),
    ('[[models]]\nid = "s"\nname = "S"\nkind = "openai"\nbase_url = "http://h:1/v1"\n'
     'model = "x"\nextra_buffers = false', "[[models]] #1 ('s') extra_buffers",
     'not a key of kind = "openai" (only kind = "llama" takes it)'),
    ("models = 3", "models", "expected an array, got 3"),
    ("default = 3", "default", "expected a string in quotes, got 3"),
    ("[cache]\nuri = 3", "[cache] uri", "expected a string in quotes, got 3"),
    ('[cache]\nuri = "s3://key:secret@team/cache"', "[cache] uri", "AWS_SECRET_ACCESS_KEY"),
    ('[cache]\nuri = "ftp://team/cache"', "[cache] uri", "unsupported scheme 'ftp'"),
    ('[cache]\nuri = "s3:///cache"', "[cache] uri", "no bucket name"),
]


@pytest.mark.parametrize(("body", "key", "expected"), BAD, ids=[b[1] for b in BAD])
def test_a_bad_value_is_one_line_naming_file_key_and_expectation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    body: str, key: str, expected: str,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(body + "\n")
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STEPCHAT_CONFIG", str(config))
    code = cli.main(["cache", "stats"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"stepchat: {config}: {key}: ") and expected in err, err


def test_good_values_are_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'threads = 3\n[cache]\nlinear_strategy = "model-first"\nmin_similarity = 1\n'
        'uri = "s3://team/stepchat/"\n[limits]\nmax_entries = 7\nttl_days = 0\n'
        '[[models]]\nid = "off"\nname = "Off"\nsource = "/m.gguf"\nextra_buffers = false\n'
        '[[models]]\nid = "auto"\nname = "Auto"\nsource = "/m.gguf"\n'
    )
    monkeypatch.setenv("STEPCHAT_CONFIG", str(config))
    loaded = load_config(UserPaths(tmp_path / "c", tmp_path / "d"))
    off, auto = loaded.model("off"), loaded.model("auto")
    assert isinstance(off, ModelSpec) and isinstance(auto, ModelSpec)
    assert off.extra_buffers is False and auto.extra_buffers is None  # absent: automatic
    assert loaded.threads == 3 and loaded.pipeline.linear_strategy == "model-first"
    assert loaded.pipeline.min_similarity == 1.0 and loaded.limits.max_entries == 7
    assert loaded.cache_location.uri == "s3://team/stepchat"
    assert type(loaded.pipeline) is PipelineSettings  # the core never sees where the cache is


@pytest.mark.parametrize(
    "name",
    ["ConfigFile", "ModelSpec", "ServerSpec", "CacheLimits", "CacheSection", "PipelineSettings"],
)
def test_every_setting_has_a_docstring(name: str) -> None:
    from pydantic import TypeAdapter

    from stepchat import config

    cls = PipelineSettings if name == "PipelineSettings" else getattr(config, name)

    schema = TypeAdapter(cls).json_schema()
    fields = schema["properties"]
    assert set(fields) == {f.name for f in dataclasses.fields(cls)}
    # A field is documented where it is declared: pydantic reads the docstrings of the
    # class itself, so those of a shared base (the fields every model entry has) come
    # from the base's own schema.
    described = {
        name
        for base in cls.__mro__
        if dataclasses.is_dataclass(base)
        for name, spec in TypeAdapter(base).json_schema()["properties"].items()
        if spec.get("description")
    }
    undocumented = [name for name in fields if name not in described]
    assert undocumented == []


class RecordingBackend(ScriptedBackend):
    """The scripted model, noting the reply budget of each call."""

    def __init__(self, replies: list[str], model_id: str) -> None:
        super().__init__(replies, model_id=model_id)
        self.budgets: list[int] = []

    def complete(self, messages: Any, *, max_tokens: int, **options: Any) -> Completion:
        self.budgets.append(max_tokens)
        return super().complete(messages, max_tokens=max_tokens, **options)


def test_the_models_max_tokens_caps_every_reply(tmp_path: Path) -> None:
    """The models.toml entry's max_tokens reaches the backend (it was read and never used)."""
    config = load_config(UserPaths(tmp_path / "c", tmp_path / "d"))
    spec = dataclasses.replace(config.model(), max_tokens=7)
    config = dataclasses.replace(config, models={spec.id: spec})
    backend = RecordingBackend(["Once upon a time."], model_id=spec.id)
    cache = build_cache(config, Parts(backend, HashedEmbedder(), MemoryStore()))
    cache.answer("Tell me a story about a lighthouse keeper.")
    json_cache = build_cache(config, Parts(backend, HashedEmbedder(), MemoryStore()))
    json_cache.answer("Return a JSON object with keys name, age and city for a person.")
    assert len(backend.budgets) >= 2 and set(backend.budgets) == {7}, backend.budgets
