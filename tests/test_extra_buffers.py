"""Issue 19 item 1: llama.cpp's extra buffer types, off on AMX CPUs, as a model sets them.

The decision is read from a CPU's flags; the real-model tests load the bundled GGUF with a
cpuinfo file of another CPU and observe what reached llama.cpp twice over: the parameters
the model was loaded with (`_model.params`), and llama.cpp's own log, which names the
`CPU_REPACK` buffer type (`AMX` on a CPU that has it) only when extra buffer types are in
use (on a CPU without AMX, llama.cpp may have no extra buffer type for the bundled
model: `_host_repacks`).
"""

from __future__ import annotations

import ctypes
import logging
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from stepchat.backends.extra_buffers import (
    ExtraBuffersHook,
    ExtraBuffersHookBroken,
    cpu_flags,
    use_extra_buffers,
)
from stepchat.backends.llama_cpp import LlamaCppBackend
from stepchat.config import ModelSpec, load_config

SAPPHIRE_RAPIDS = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
    "sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology "
    "nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 "
    "x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch "
    "fsgsbase bmi1 hle avx2 smep bmi2 erms invpcid rtm avx512f avx512dq rdseed adx smap "
    "avx512ifma clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 "
    "xsaves avx_vnni avx512_bf16 wbnoinvd arat avx512vbmi umip pku ospke waitpkg "
    "avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq rdpid "
    "cldemote movdiri movdir64b md_clear serialize tsxldtrk amx_bf16 avx512_fp16 amx_tile "
    "amx_int8 arch_capabilities"
)
EPYC_GENOA = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
    "sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl "
    "cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic "
    "movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm cmp_legacy cr8_legacy abm "
    "sse4a misalignsse 3dnowprefetch osvw topoext ssbd ibrs ibpb stibp vmmcall fsgsbase bmi1 "
    "avx2 smep bmi2 erms invpcid avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb "
    "avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves avx512_bf16 clzero "
    "xsaveerptr wbnoinvd arat avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes vpclmulqdq "
    "avx512_vnni avx512_bitalg avx512_vpopcntdq rdpid fsrm"
)


def cpuinfo(tmp_path: Path, flags: str, *, name: str = "Intel(R) Xeon(R) Platinum 8488C",
            cores: int = 2, key: str = "flags") -> Path:
    """A /proc/cpuinfo of `cores` processors with these flags."""
    blocks = [
        f"processor\t: {n}\nvendor_id\t: x\nmodel name\t: {name}\n{key}\t\t: {flags}\n"
        f"bugs\t\t: spectre_v1\n"
        for n in range(cores)
    ]
    path = tmp_path / f"cpuinfo-{abs(hash((flags, name, key)))}"
    path.write_text("\n".join(blocks))
    return path


# ------------------------------------------------------------------------ the decision


@pytest.mark.parametrize(
    ("flags", "name", "key", "extra"),
    [
        (SAPPHIRE_RAPIDS, "Intel(R) Xeon(R) Platinum 8488C", "flags", False),
        (SAPPHIRE_RAPIDS.replace(" amx_bf16", "").replace(" amx_int8", ""), "Xeon", "flags",
         False),  # any one AMX flag is enough
        (EPYC_GENOA, "AMD EPYC 9R14", "flags", True),
        (EPYC_GENOA, "AMD EPYC with amx_tile in its name", "flags", True),  # the name is no flag
        (EPYC_GENOA + " amx", "AMD EPYC", "flags", True),  # a look-alike flag is not AMX
        ("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics", "Neoverse-N1", "Features", True),
    ],
    ids=["sapphire-rapids", "one-amx-flag", "epyc", "amx-in-name", "amx-look-alike", "arm"],
)
def test_extra_buffers_are_off_exactly_where_the_cpu_has_amx(
    tmp_path: Path, flags: str, name: str, key: str, extra: bool
) -> None:
    found = cpu_flags(cpuinfo(tmp_path, flags, name=name, key=key))
    assert use_extra_buffers(None, found) is extra


def test_the_setting_wins_and_a_missing_cpuinfo_means_no_amx(tmp_path: Path) -> None:
    amx = cpu_flags(cpuinfo(tmp_path, SAPPHIRE_RAPIDS))
    assert "amx_tile" in amx
    assert use_extra_buffers(True, amx) is True
    assert use_extra_buffers(False, frozenset()) is False
    assert cpu_flags(tmp_path / "missing") == frozenset()
    assert use_extra_buffers(None, cpu_flags(tmp_path / "missing")) is True


# ------------------------------------------------------------------------ the hook


class _Params(ctypes.Structure):
    _fields_ = [("vocab_only", ctypes.c_bool), ("use_extra_bufts", ctypes.c_bool)]


class _OldParams(ctypes.Structure):
    _fields_ = [("vocab_only", ctypes.c_bool)]


class _Loaded:
    def __init__(self, params: Any) -> None:
        self.params = params


class _LlamaLike:
    """The shape of `Llama.__init__` the hook relies on: assign, then load from it."""

    params_type: Any = _Params
    assigns = True

    def __init__(self) -> None:
        params = self.params_type()
        params.use_extra_bufts = True  # llama.cpp's default
        if self.assigns:
            self.model_params = params
            params = self.model_params
        self._model = _Loaded(params)  # what llama_model_load_from_file is given

    def close(self) -> None:
        closed.append(self)


closed: list[Any] = []


def test_the_hook_sets_the_field_before_the_load_reads_it() -> None:
    class Hooked(ExtraBuffersHook, _LlamaLike):
        pass

    assert Hooked(extra_buffers=False)._model.params.use_extra_bufts is False
    assert Hooked(extra_buffers=True)._model.params.use_extra_bufts is True


def test_a_release_without_the_field_fails_loudly() -> None:
    class Old(_LlamaLike):
        params_type = _OldParams

    class Hooked(ExtraBuffersHook, Old):
        pass

    with pytest.raises(ExtraBuffersHookBroken, match="no use_extra_bufts field"):
        Hooked(extra_buffers=False)


def test_a_release_that_no_longer_assigns_model_params_fails_loudly() -> None:
    class Elsewhere(_LlamaLike):
        assigns = False

    class Hooked(ExtraBuffersHook, Elsewhere):
        pass

    closed.clear()
    with pytest.raises(ExtraBuffersHookBroken, match="loaded the model without"):
        Hooked(extra_buffers=False)
    assert len(closed) == 1  # the model loaded the wrong way is freed, not left behind


# ------------------------------------------------------------------------ the real model


@pytest.fixture(scope="module")
def bundled() -> ModelSpec:
    spec = load_config().model()
    assert isinstance(spec, ModelSpec)
    return spec


EXTRA_BUFFER_LOG = re.compile(r"\b(CPU_REPACK|AMX) model buffer")
"""How llama.cpp's log names an extra buffer type: `CPU_REPACK`, or `AMX` on a CPU that
has it (whatever cpuinfo file stepchat was given, llama.cpp reads the real CPU)."""


def _load_and_observe(
    spec: ModelSpec, info: Path, caplog: pytest.LogCaptureFixture
) -> tuple[bool, bool]:
    """Load the model; (the value it was loaded with, whether llama.cpp named CPU_REPACK)."""
    caplog.clear()
    backend = LlamaCppBackend(spec, threads=1, cpuinfo=info)
    with caplog.at_level(logging.DEBUG, logger="stepchat.llama"):
        backend.load()
    try:
        loaded = bool(backend._llm._model.params.use_extra_bufts)
        repack = any(EXTRA_BUFFER_LOG.search(r.getMessage()) for r in caplog.records)
        assert backend.extra_buffers is loaded
        return loaded, repack
    finally:
        backend.close()


def _host_repacks(spec: ModelSpec, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> bool:
    """Whether llama.cpp on this machine gives the model an extra buffer type when asked
    to: it does on a CPU with AMX (`AMX model buffer`), and on one without AMX only where
    it has a repacked kernel for the model's quantisation (on an AMD EPYC with AVX-512 it
    logs none for the bundled model). Where it does not, only the loaded parameter can
    show the setting."""
    loaded, repack = _load_and_observe(replace(spec, extra_buffers=True),
                                       cpuinfo(tmp_path, EPYC_GENOA), caplog)
    assert loaded
    return repack


@pytest.mark.slow
def test_an_amx_cpu_loads_the_real_model_without_extra_buffers(
    bundled: ModelSpec, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repacks = _host_repacks(bundled, tmp_path, caplog)
    assert _load_and_observe(bundled, cpuinfo(tmp_path, SAPPHIRE_RAPIDS), caplog) == (
        False, False)
    assert _load_and_observe(bundled, cpuinfo(tmp_path, EPYC_GENOA), caplog) == (
        True, repacks)


@pytest.mark.slow
def test_the_model_setting_reaches_llama_cpp_as_set(
    bundled: ModelSpec, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repacks = _host_repacks(bundled, tmp_path, caplog)
    forced_on = replace(bundled, extra_buffers=True)
    forced_off = replace(bundled, extra_buffers=False)
    assert _load_and_observe(forced_on, cpuinfo(tmp_path, SAPPHIRE_RAPIDS), caplog) == (
        True, repacks)
    assert _load_and_observe(forced_off, cpuinfo(tmp_path, EPYC_GENOA), caplog) == (
        False, False)
