"""Whether a model entry can be used right now, said in one line for the model picker.

A local entry is usable when its GGUF file is there; a server entry when the server answers
`/v1/models` within a couple of seconds. Checking never loads a model, so the picker can
ask about every entry each time it opens.
"""

from __future__ import annotations

from dataclasses import dataclass

from stepchat.config import ConfigError, ModelEntry, ModelSpec
from stepchat.core.ports import BackendError

PROBE_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class ModelState:
    usable: bool
    detail: str
    """"local GGUF", "reachable", or why not ("unreachable: connection refused ...")."""


def check_model(spec: ModelEntry, timeout: float = PROBE_TIMEOUT_S) -> ModelState:
    """The entry's state; never raises."""
    if isinstance(spec, ModelSpec):
        try:
            spec.gguf_path()
        except ConfigError as exc:
            return ModelState(False, f"missing: {_reason(str(exc), spec)}")
        return ModelState(True, "local GGUF")
    from stepchat.backends.openai_http import probe_server

    try:
        probe_server(spec.base_url, spec.api_key(), timeout=timeout)
    except (BackendError, ConfigError) as exc:
        return ModelState(False, f"unreachable: {_reason(str(exc), spec)}")
    return ModelState(True, f"reachable at {spec.base_url}")


def _reason(message: str, spec: ModelEntry) -> str:
    """The message without the `model <id>: ` prefix the picker already shows."""
    return message.removeprefix(f"model {spec.id}: ")
