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
from urllib.parse import urlparse

from stepchat.core.settings import PipelineSettings
from stepchat.paths import UserPaths, user_paths


class ConfigError(Exception):
    """The configuration is invalid; the message is one line for the user."""


@dataclass(frozen=True)
class ModelSpec:
    id: str
    name: str
    source: str
    context: int = 2048
    chat_format: str = "chatml"
    temperature: float = 0.0
    top_p: float = 1.0
    repeat_penalty: float = 1.1
    """Small models loop at temperature 0 ("john_john_john..."); a mild penalty breaks it."""
    max_tokens: int = 256
    seed: int = 42

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
    cache_uri: str | None = None
    """`[cache] uri`: a bucket (`s3://bucket/prefix`) shared by a team; None is the local dir."""

    @property
    def cache_location(self) -> str:
        """Where the cache lives: the configured URI, else the local data dir."""
        return self.cache_uri or str(self.paths.cache_dir)

    def model(self, model_id: str | None = None) -> ModelSpec:
        key = model_id or self.default_model
        try:
            return self.models[key]
        except KeyError:
            known = ", ".join(sorted(self.models))
            raise ConfigError(f"unknown model {key!r} (known: {known})") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def _models_from(data: dict[str, Any], origin: str) -> dict[str, ModelSpec]:
    known = {f.name for f in fields(ModelSpec)}
    out: dict[str, ModelSpec] = {}
    for raw in data.get("models", []):
        unknown = set(raw) - known
        if unknown:
            raise ConfigError(f"{origin}: unknown model field(s): {', '.join(sorted(unknown))}")
        try:
            spec = ModelSpec(**raw)
        except TypeError as exc:
            raise ConfigError(f"{origin}: model entry is missing a field: {exc}") from None
        out[spec.id] = spec
    return out


def _section(data: dict[str, Any], name: str, cls: type, origin: str) -> dict[str, Any]:
    section = data.get(name, {})
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
    cache_uri: str | None = None

    override = os.environ.get("STEPCHAT_CONFIG")
    config_file = Path(override) if override else paths.config_file
    if config_file.exists():
        user = _read_toml(config_file)
        origin = str(config_file)
        models.update(_models_from(user, origin))
        default_model = str(user.get("default", default_model))
        cache = dict(user.get("cache", {}))
        cache_uri = _cache_uri(cache.pop("uri", None), origin)
        pipeline = replace(
            pipeline, **_section({"cache": cache}, "cache", PipelineSettings, origin)
        )
        limits = replace(limits, **_section(user, "limits", CacheLimits, origin))
        threads = int(user.get("threads", threads))
    if default_model not in models:
        raise ConfigError(f"default model {default_model!r} is not listed in any models.toml")
    return Config(models, default_model, pipeline, limits, threads, paths, cache_uri)


def _cache_uri(value: Any, origin: str) -> str | None:
    """`[cache] uri`: a local directory or `s3://bucket/prefix`, never with credentials."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{origin}: [cache] uri must be a non-empty string")
    parsed = urlparse(value.strip())
    if parsed.username or parsed.password or parsed.query:
        raise ConfigError(
            f"{origin}: [cache] uri must name only the bucket and prefix; credentials and "
            "endpoint come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL"
        )
    from stepchat.core.ports import StoreError
    from stepchat.store.location import CacheLocation

    try:
        return CacheLocation.of(value).uri
    except StoreError as exc:
        raise ConfigError(f"{origin}: {exc}") from None
