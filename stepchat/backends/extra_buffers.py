"""Whether llama.cpp may use its extra CPU buffer types, and the hook that tells it.

llama.cpp can keep a model's weights in "extra" buffer types: layouts repacked for the
CPU's matrix instructions (`CPU_REPACK`) and, on Intel Xeons since Sapphire Rapids, AMX
tiles. On those AMX CPUs llama-cpp-python 0.3.36 built with native flags crashes in
`ggml_backend_amx_mul_mat` on any prompt longer than one token; loading the model with
`use_extra_bufts = False` avoids it. Elsewhere the bundled Q4_1 model has nothing to
repack and runs as fast either way (docs/model.md), so the default is decided per CPU:
off where /proc/cpuinfo lists an AMX flag, on elsewhere. A model's `extra_buffers` setting
overrides the decision.

`Llama.__init__` does not take the field: it builds `self.model_params` from
`llama_model_default_params()` and loads the model from it in the same call. Rather than
fork that function, `ExtraBuffersHook` (mixed into stepchat's `Llama` subclass) makes
`model_params` a property, so the struct is caught as `__init__` assigns it and the field
is set before the load reads it. Both ends are checked, so a release that builds its
parameters another way fails loudly instead of silently loading with the default: the
struct must have the field, and after the load the parameters the model was loaded with
(`_model.params`) must carry the value asked for.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("stepchat.llama")

AMX_FLAGS = frozenset({"amx_tile", "amx_int8", "amx_bf16"})
"""/proc/cpuinfo flags of the CPUs where llama.cpp's extra buffer types crash."""

CPUINFO = Path("/proc/cpuinfo")
FIELD = "use_extra_bufts"
"""The `llama_model_params` field (llama.h: "use extra buffer types (used for weight
repacking)")."""


class ExtraBuffersHookBroken(RuntimeError):
    """llama-cpp-python no longer builds its model parameters the way the hook expects."""


def cpu_flags(path: Path = CPUINFO) -> frozenset[str]:
    """The CPU's feature flags from the first `flags` line; none where the file is missing
    (not Linux) or unreadable."""
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                name, sep, value = line.partition(":")
                if sep and name.strip() == "flags":
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def use_extra_buffers(setting: bool | None, flags: frozenset[str]) -> bool:
    """The model's setting when it has one; otherwise off exactly on AMX CPUs."""
    if setting is not None:
        return setting
    return not (flags & AMX_FLAGS)


def why(setting: bool | None, flags: frozenset[str]) -> str:
    """The decision in words, for the log."""
    value = "on" if use_extra_buffers(setting, flags) else "off"
    if setting is not None:
        return f"extra buffer types {value}: set by the model's extra_buffers"
    amx = sorted(flags & AMX_FLAGS)
    reason = f"this CPU has AMX ({', '.join(amx)})" if amx else "this CPU has no AMX"
    return f"extra buffer types {value}: {reason}"


def _set_field(params: Any, value: bool) -> None:
    names = {name for name, *_ in getattr(type(params), "_fields_", ())}
    if FIELD not in names:
        raise ExtraBuffersHookBroken(
            f"llama-cpp-python's {type(params).__name__} has no {FIELD} field, so extra "
            "buffer types cannot be chosen (fix: install llama-cpp-python 0.3.36)"
        )
    setattr(params, FIELD, value)


class ExtraBuffersHook:
    """Mixed in before `llama_cpp.Llama`: `extra_buffers=` reaches llama.cpp's parameters.

    `__init__` records the wish before `Llama.__init__` runs; the `model_params` property
    sets it on the struct as `Llama.__init__` assigns it; after the load, the value the model
    was loaded with is read back and compared.
    """

    def __init__(self, *args: Any, extra_buffers: bool, **kwargs: Any) -> None:
        self._extra_buffers = extra_buffers
        self._extra_buffers_set = False
        super().__init__(*args, **kwargs)
        loaded = getattr(getattr(getattr(self, "_model", None), "params", None), FIELD, None)
        if not self._extra_buffers_set or loaded is not extra_buffers:
            close = getattr(self, "close", None)
            if close is not None:
                close()
            raise ExtraBuffersHookBroken(
                f"llama-cpp-python loaded the model without the {FIELD} = {extra_buffers} "
                "stepchat asked for (fix: install llama-cpp-python 0.3.36)"
            )

    @property
    def model_params(self) -> Any:
        return self.__dict__["model_params"]

    @model_params.setter
    def model_params(self, params: Any) -> None:
        _set_field(params, self._extra_buffers)
        self._extra_buffers_set = True
        self.__dict__["model_params"] = params
