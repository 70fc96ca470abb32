"""`python -m stepchat.bench.llama_server ARGS`: `llama_cpp.server` with llama.cpp's extra
buffer types set as stepchat sets them for its own model: off on AMX CPUs, where they
crash the process on any multi-token prompt.

The serving bench and its tests use this server as the baseline (the model served
directly, no cache). `llama_cpp.server` has no option for the setting, so the `Llama`
class its model loader builds is replaced, before the server starts, by one that takes
the decision of `stepchat.backends.extra_buffers`.
"""

from __future__ import annotations

from typing import Any


def main() -> None:
    import llama_cpp
    from llama_cpp.server.__main__ import main as serve

    from stepchat.backends.extra_buffers import ExtraBuffersHook, cpu_flags, use_extra_buffers

    extra = use_extra_buffers(None, cpu_flags())

    class Llama(ExtraBuffersHook, llama_cpp.Llama):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, extra_buffers=extra, **kwargs)

    llama_cpp.Llama = Llama  # type: ignore[misc]
    serve()


if __name__ == "__main__":
    main()
