"""Typed configuration: the models stepchat can run and the cache settings.

The shipped `models.toml` lists the bundled models; the user's `config.toml` (see
`stepchat.paths`; `stepchat config` prints where it is) may add models, pick a default and
tune the cache without editing the repository. `$STEPCHAT_CONFIG` points at another config
file. config.toml is the one file a user writes, and every message calls it that: a
`models.toml` beside it, or a `$STEPCHAT_CONFIG` naming a file that is not there, is an
error rather than silently ignored.

Both files are validated by pydantic against the dataclasses below, the model entries and
limits of `stepchat.settings` and `PipelineSettings` for `[cache]`: TOML already has types,
so a string where a number belongs, an unknown key or a value outside the allowed ones is an
error, reported in one line that names the file, the key and what was expected
(`stepchat.config_errors`). Every field's docstring is its documentation.
"""

from __future__ import annotations

import codecs
import json
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, ClassVar
from urllib.parse import urlparse

from annotated_types import Ge, MinLen
from pydantic import Discriminator, Tag

from stepchat.core.ports import StoreError
from stepchat.core.scope import scope_of
from stepchat.core.settings import PipelineSettings
from stepchat.paths import UserPaths, absolute, user_paths
from stepchat.settings import (
    STRICT,
    CacheLimits,
    ConfigError,
    ModelEntry,
    ModelSpec,
    ServerSpec,
)
from stepchat.store.location import CacheLocation


def _entry_kind(entry: Any) -> str | None:
    """The `kind` an entry names; an entry without one is a local GGUF, and so is what is
    not a table at all (its shape then reports "expected a table")."""
    if isinstance(entry, dict):
        kind = entry.get("kind", "llama")
        return kind if isinstance(kind, str) else None
    return getattr(entry, "kind", "llama")


ModelEntryField = Annotated[
    Annotated[ModelSpec, Tag("llama")] | Annotated[ServerSpec, Tag("openai")],
    Discriminator(_entry_kind),
]
"""How a `[[models]]` table is read: its `kind` picks the shape, and each shape takes only
its own keys, so a `source` on a server entry is an error, not silently ignored."""


@dataclass(frozen=True)
class CacheSection(PipelineSettings):
    """The `[cache]` section: the pipeline's knobs, and where the cache lives."""

    uri: Annotated[str, MinLen(1)] | None = None
    """A local directory, or `s3://bucket/prefix` for one cache shared through an
    S3-compatible bucket. Endpoint, region and credentials come from the environment
    (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), never from
    this file. Unset: the cache folder in the user's data directory."""

    def pipeline(self) -> PipelineSettings:
        """The pipeline's knobs alone (the core knows nothing of where the cache lives)."""
        return PipelineSettings(**{f.name: getattr(self, f.name) for f in fields(PipelineSettings)})


@dataclass(frozen=True)
class ConfigFile:
    """What `models.toml` and the user's `config.toml` may contain."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT

    default: Annotated[str, MinLen(1)] | None = None
    """Id of the model to run when none is given."""
    system_prompt: str | None = None
    """The system message every new chat, `stepchat ask` and a server request without one
    starts with (the app can change it per chat; `ask --system` per request). Part of the
    cache scope: answers written under another system prompt are never reused."""
    threads: Annotated[int, Ge(1)] | None = None
    """CPU threads the model may use (default 2)."""
    models: list[ModelEntryField] = field(default_factory=list)
    """Models to add; an entry with the id of a shipped one replaces it."""
    cache: CacheSection = field(default_factory=CacheSection)
    """Where the cache lives and how it reuses, checks and patches answers."""
    limits: CacheLimits = field(default_factory=CacheLimits)
    """How big and how old the cache may get."""


SHIPPED = "the models.toml shipped with stepchat"
"""Where a model entry or the default comes from when the user's file does not set it."""


@dataclass(frozen=True)
class Config:
    models: dict[str, ModelEntry]
    default_model: str
    pipeline: PipelineSettings = field(default_factory=PipelineSettings)
    limits: CacheLimits = field(default_factory=CacheLimits)
    threads: int = 2
    paths: UserPaths = field(default_factory=user_paths)
    cache_at: CacheLocation | None = None
    """`[cache] uri`: a directory, or a bucket (`s3://bucket/prefix`) shared by a team; None
    is the cache folder in the user's data directory."""
    config_file: Path | None = None
    """The user's config file: read if it exists, else where it would be."""
    origins: dict[str, str] = field(default_factory=dict)
    """Where each model entry (by id) and the default (key "default") came from."""

    @property
    def cache_location(self) -> CacheLocation:
        """Where the cache lives: the configured one, else the local data dir."""
        return self.cache_at or CacheLocation.of(self.paths.cache_dir)

    def model(self, model_id: str | None = None) -> ModelEntry:
        key = model_id or self.default_model
        try:
            return self.models[key]
        except KeyError:
            known = ", ".join(sorted(self.models))
            raise ConfigError(f"unknown model {key!r} (known: {known})") from None

    def pipeline_for(self, model_id: str | None = None) -> PipelineSettings:
        """The pipeline settings for one model: its `max_tokens` caps every reply, and what
        it runs is part of the cache scope."""
        entry = self.model(model_id)
        return replace(self.pipeline, max_tokens=entry.max_tokens, model_source=entry.source_id())

    def scope(self, model_id: str | None = None) -> str:
        """The cache scope a chat with this model and the configured system prompt reads
        and writes (`StepCache.scope`)."""
        entry = self.model(model_id)
        return scope_of(entry.id, self.pipeline.system_prompt, entry.source_id())


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return tomllib.loads(_utf8_text(raw, path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _utf8_text(raw: bytes, path: Path) -> str:
    """The file's text. TOML is UTF-8, and a byte-order mark at the start (which editors on
    Windows write) means nothing in UTF-8, so it is skipped rather than reported as an
    invalid statement the user cannot see. Any other byte that is not UTF-8 is named with
    its line, since a Latin-1 `é` looks right in the editor that wrote it."""
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: not UTF-8 text: byte 0x{raw[exc.start]:02x} at line {line} "
            "(fix: save the file as UTF-8)"
        ) from None


def parse_config_file(data: dict[str, Any], origin: str) -> ConfigFile:
    """`data` (a parsed TOML file) checked against `ConfigFile`; ConfigError names the key."""
    from pydantic import TypeAdapter, ValidationError

    from stepchat.config_errors import describe_validation_error

    cache = data.get("cache")
    if isinstance(cache, dict) and "max_tokens" in cache:
        raise ConfigError(
            f"{origin}: [cache] max_tokens: not a cache setting "
            "(set max_tokens on the model's [[models]] entry)"
        )
    if isinstance(cache, dict) and "model_source" in cache:
        raise ConfigError(f"{origin}: [cache] model_source: not a setting (stepchat sets it "
                          "from the model's [[models]] entry)")
    if isinstance(cache, dict) and "system_prompt" in cache:
        raise ConfigError(
            f"{origin}: [cache] system_prompt: not a cache setting "
            "(set system_prompt at the top of the file, before any [section])"
        )
    # Strict JSON-mode validation: TOML values keep their types (no "3" -> 3), and tables
    # become the dataclasses. Dates, the one TOML type JSON lacks, turn into strings.
    try:
        text = json.dumps(data, default=str)
        return TypeAdapter(ConfigFile).validate_json(text, strict=True)
    except ValidationError as exc:
        raise ConfigError(f"{origin}: {describe_validation_error(exc, data, ConfigFile)}") from None


def load_config(paths: UserPaths | None = None) -> Config:
    """The shipped models plus the user's config file, if there is one."""
    paths = paths or user_paths()
    shipped_text = resources.files("stepchat").joinpath("models.toml").read_text()
    shipped = parse_config_file(tomllib.loads(shipped_text), "models.toml")
    models = {spec.id: spec for spec in shipped.models}
    default_model = shipped.default or next(iter(models))
    pipeline = PipelineSettings()
    limits = CacheLimits()
    threads = 2
    cache_at: CacheLocation | None = None

    origins = {model_id: SHIPPED for model_id in models} | {"default": SHIPPED}
    config_file = config_file_path(paths)
    if config_file.exists():
        origin = str(config_file)
        user = parse_config_file(_read_toml(config_file), origin)
        models.update({spec.id: spec for spec in user.models})
        origins.update({spec.id: origin for spec in user.models})
        if user.default:
            default_model, origins["default"] = user.default, origin
        pipeline = user.cache.pipeline()
        if user.system_prompt:
            pipeline = replace(pipeline, system_prompt=user.system_prompt)
        cache_at = _cache_location(user.cache.uri, origin)
        limits = user.limits
        threads = user.threads if user.threads is not None else threads
    if default_model not in models:
        raise ConfigError(
            f"{origins['default']}: default model {default_model!r} has no [[models]] entry "
            f"(known: {', '.join(sorted(models))})"
        )
    return Config(
        models, default_model, pipeline, limits, threads, paths, cache_at, config_file, origins
    )


def with_system_prompt(config: Config, text: str) -> Config:
    """`config` with `text` as the system prompt (checked like a prompt; "" for none)."""
    from stepchat.core.prompt import PromptError, clean_prompt

    system = ""
    if text.strip():
        try:
            system, _ = clean_prompt(text)
        except PromptError as exc:
            raise ConfigError("the system " + str(exc).removeprefix("the ")) from None
    return replace(config, pipeline=replace(config.pipeline, system_prompt=system))


def config_file_path(paths: UserPaths) -> Path:
    """The config file stepchat reads: `$STEPCHAT_CONFIG`, else config.toml in the config
    dir. A name it would not read is an error, so a user's edits are never silently lost."""
    override = os.environ.get("STEPCHAT_CONFIG")
    if override:
        path = absolute(override)
        if not path.is_file():
            raise ConfigError(f"STEPCHAT_CONFIG={override}: {_not_a_file(path)}")
        return path
    stray = paths.config_dir / "models.toml"
    if stray.exists():
        raise ConfigError(
            f"{stray} is not read: stepchat reads {paths.config_file} "
            "(fix: move its [[models]] entries there)"
        )
    return paths.config_file


def _not_a_file(path: Path) -> str:
    """What `$STEPCHAT_CONFIG` names instead of a file, and the fix."""
    fix = "unset STEPCHAT_CONFIG to use config.toml in the config dir"
    if path.is_dir():
        return f"a directory (fix: name the file in it, such as {path / 'config.toml'}, or {fix})"
    if path.exists():
        return f"not a regular file (fix: name a TOML file, or {fix})"
    return f"no such file (fix: create it, or {fix})"


def _cache_location(value: str | None, origin: str) -> CacheLocation | None:
    """`[cache] uri`: a local directory or `s3://bucket/prefix`, never with credentials."""
    if value is None:
        return None
    where = f"{origin}: [cache] uri"
    if not value.strip():
        raise ConfigError(f"{where}: expected a directory or s3://bucket/prefix, got \"\"")
    parsed = urlparse(value.strip())
    if parsed.username or parsed.password or parsed.query:
        raise ConfigError(
            f"{where}: expected only the bucket and prefix (credentials and endpoint come "
            "from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL)"
        )
    try:
        return CacheLocation.of(value)
    except StoreError as exc:
        raise ConfigError(f"{where}: {str(exc).split(': ', 1)[-1]}") from None
