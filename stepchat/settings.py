"""The settings the adapters run under: a model entry of either kind, the cache's limits,
and the error a bad one raises.

They live below `stepchat.config` (the TOML loader) so that the stores and the backends,
which only read them, never import the loader; the loader validates config.toml into these
dataclasses. Constraints are `annotated_types`, which the validator reads (a server's URL
pattern is pydantic's own); every field's docstring is its documentation in config.toml.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from annotated_types import Ge, Gt, Interval, MinLen
from pydantic import StringConstraints

from stepchat.paths import package_data

STRICT: dict[str, Any] = {"extra": "forbid", "use_attribute_docstrings": True}
"""How every config table is validated: an unknown key is an error, and docstrings are the
fields' descriptions."""


class ConfigError(Exception):
    """The configuration is invalid; the message is one line for the user."""


@dataclass(frozen=True)
class ModelCommon:
    """What every `[[models]]` entry has, whichever `kind` it is."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT

    id: Annotated[str, MinLen(1)]
    """Short name used by `--model`, `default` and the cache scope."""
    name: str
    """What the app shows for this model."""
    context: Annotated[int, Ge(16)] = 2048
    """Context window in tokens (prompt and reply together); for a server, what stepchat
    sends is trimmed to fit it."""
    temperature: Annotated[float, Ge(0.0)] = 0.0
    """Sampling temperature; 0 is greedy and repeatable."""
    top_p: Annotated[float, Interval(gt=0.0, le=1.0)] = 1.0
    """Nucleus sampling mass."""
    max_tokens: Annotated[int, Ge(1)] = 256
    """The most tokens one reply of this model may have (every model call is capped by it)."""
    seed: int = 42
    """Sampling seed, so answers are repeatable."""

    def sampling_id(self) -> str:
        """How replies are drawn, for the cache scope: another temperature or nucleus mass
        gives other answers, and the seed matters only where sampling is not greedy."""
        seed = f" seed={self.seed}" if self.temperature > 0 else ""
        return f"temperature={self.temperature:g} top_p={self.top_p:g}{seed}"


@dataclass(frozen=True, kw_only=True)
class ModelSpec(ModelCommon):
    """A `[[models]]` entry with `kind = "llama"` (the default): a local GGUF model run by
    llama.cpp in a process of its own, and how to run it."""

    kind: Literal["llama"] = "llama"
    """"llama": a GGUF file run on this machine (the default)."""
    source: Annotated[str, MinLen(1)]
    """A GGUF path ("~" expanded), or "package:<python package>/<file>" for a bundled one."""
    chat_format: str = "chatml"
    """llama.cpp chat template name, e.g. "chatml"."""
    repeat_penalty: Annotated[float, Ge(0.0)] = 1.1
    """Small models loop at temperature 0 ("john_john_john..."); a mild penalty breaks it."""
    extra_buffers: bool | None = None
    """Whether llama.cpp may use its extra CPU buffer types (weight repacking, AMX). Absent:
    off on a CPU with AMX, where llama.cpp crashes with them, on elsewhere. `false` is the
    fix for a model process that keeps crashing."""

    def source_id(self) -> str:
        """The GGUF file and its size (a file replaced at the same path is another model),
        the chat template it is prompted with and how replies are drawn from it."""
        try:
            file = f"{self.source} {self.gguf_path().stat().st_size}"
        except (ConfigError, OSError):
            file = self.source
        return (f"llama {file} chat_format={self.chat_format} {self.sampling_id()} "
                f"repeat_penalty={self.repeat_penalty:g}")

    def gguf_path(self) -> Path:
        """Where the GGUF file is; raises ConfigError naming the file and the fix."""
        if self.source.startswith("package:"):
            package, _, inner = self.source.removeprefix("package:").partition("/")
            root = package_data(package)
            if root is None:
                raise ConfigError(
                    f"model {self.id}: package {package!r} is not installed "
                    f"(fix: pip install {package.replace('_', '-')})"
                )
            path = Path(str(root.joinpath(inner)))
        else:
            path = Path(self.source).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"model {self.id}: GGUF file not found: {path} "
                "(fix: correct 'source' in config.toml, see: stepchat config; or reinstall "
                "the package)"
            )
        if not os.access(path, os.R_OK):
            raise ConfigError(f"model {self.id}: GGUF file not readable: {path} (fix: chmod)")
        return path


URL_PATTERN = r"^https?://[^\s/]+"
"""What a server's `base_url` must look like: http(s), a host, no spaces."""


@dataclass(frozen=True, kw_only=True)
class ServerSpec(ModelCommon):
    """A `[[models]]` entry with `kind = "openai"`: a model behind any OpenAI-compatible
    server (llama.cpp's server, Ollama, LM Studio, vLLM), reached over HTTP."""

    kind: Literal["openai"]
    """"openai": a model served over the OpenAI chat-completions API."""
    base_url: Annotated[str, StringConstraints(pattern=URL_PATTERN)]
    """The server's root or its `/v1` URL, e.g. "http://127.0.0.1:8080/v1"."""
    model: Annotated[str, MinLen(1)]
    """The model name the server expects in each request."""
    api_key_env: str = ""
    """The name of the environment variable holding the API key (never the key itself);
    empty when the server needs none."""
    timeout_s: Annotated[float, Gt(0.0)] = 120.0
    """Seconds to wait for the server to connect or send the next piece of a reply."""

    def source_id(self) -> str:
        """The server, the model it is asked for and how replies are drawn."""
        return f"openai {self.base_url.rstrip('/')} {self.model} {self.sampling_id()}"

    def api_key(self) -> str | None:
        """The key from `$api_key_env`; raises ConfigError naming the variable, never a value."""
        if not self.api_key_env:
            return None
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise ConfigError(
                f"model {self.id}: environment variable {self.api_key_env} is not set "
                f"(fix: export {self.api_key_env}=<key> or remove api_key_env)"
            )
        return key


ModelEntry = ModelSpec | ServerSpec
"""One `[[models]]` entry of either kind."""

KIND_SPECS: dict[str, type[ModelEntry]] = {"llama": ModelSpec, "openai": ServerSpec}
"""Each `kind` and the shape of its entries."""


@dataclass(frozen=True)
class CacheLimits:
    """The `[limits]` section: how big and how old the cache may get."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT

    max_entries: Annotated[int, Ge(1)] = 50_000
    """Most cached requests kept; the least recently hit go first."""
    max_bytes: Annotated[int, Ge(1)] = 512 * 1024 * 1024
    """Most bytes of prompts, steps and vectors kept; the least recently hit go first."""
    ttl_days: Annotated[float, Ge(0.0)] = 90.0
    """Entries not hit for this many days are evicted; 0 turns expiry off (entries never
    expire by age; `max_entries` and `max_bytes` still evict)."""
