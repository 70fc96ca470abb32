"""The local backend: a GGUF model run on the CPU by llama.cpp (llama-cpp-python).

Loading takes a noticeable fraction of a second, so it is a separate `load()` the UI can run
in a worker and time; `complete` loads on first use otherwise. llama.cpp's own log lines are
routed into Python logging instead of stderr, where they would land under the TUI.

Token counts are real: a thin subclass of `Llama` records how many prompt tokens each
generation fed and how many tokens it sampled, because the streaming API reports no usage.
The same subclass chooses whether llama.cpp may use its extra buffer types
(`stepchat.backends.extra_buffers`).

This is the model itself, run in whatever process creates it. The app, `ask` and `serve`
run it in a process of its own (`stepchat.backends.isolated`), where a native crash cannot
take them down; this class is what runs there.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from stepchat.backends.extra_buffers import (
    CPUINFO,
    ExtraBuffersHook,
    ExtraBuffersHookBroken,
    cpu_flags,
    use_extra_buffers,
    why,
)
from stepchat.backends.streaming import read_chunks
from stepchat.core.ports import BackendError, CancelToken, GenerationCancelled, PromptTooLong
from stepchat.core.types import ChatMessage, Completion
from stepchat.settings import ConfigError, ModelSpec

log = logging.getLogger("stepchat.llama")

# The ctypes callback must outlive every call into llama.cpp, so it is kept here.
_log_callback: Any = None


def _route_native_logs() -> None:
    """Send llama.cpp's log lines to the `stepchat.llama` logger (debug) instead of stderr."""
    global _log_callback
    if _log_callback is not None:
        return
    import ctypes

    import llama_cpp

    @llama_cpp.llama_log_callback
    def _callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        log.debug("%s", text.decode("utf-8", "replace").rstrip())

    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
    _log_callback = _callback


@functools.cache
def _counting_llama() -> type:
    """`Llama` that remembers the prompt length and sampled-token count of its last run."""
    import llama_cpp

    # Typed as Any: the override widens `generate`'s keyword list to pass it all through.
    base: Any = llama_cpp.Llama

    class CountingLlama(ExtraBuffersHook, base):
        last_prompt_tokens = 0
        last_sampled_tokens = 0
        last_ended_on_eog = False

        def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
            self.last_prompt_tokens = len(tokens)
            self.last_sampled_tokens = 0
            self.last_ended_on_eog = False
            vocab = llama_cpp.llama_model_get_vocab(self.model)
            for token in super().generate(tokens, *args, **kwargs):
                self.last_sampled_tokens += 1
                self.last_ended_on_eog = bool(llama_cpp.llama_vocab_is_eog(vocab, token))
                yield token

    return CountingLlama


def _count(llm: Any, text: str) -> int:
    return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


_OVER_CONTEXT = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")
"""How llama-cpp-python refuses a prompt that fills the whole context window."""


def model_error(model_id: str, exc: ValueError) -> BackendError:
    """What llama-cpp-python's ValueError during a generation means for the user: a prompt
    over the context is the sender's to shorten (`PromptTooLong`), anything else the
    model's failure, in its own first line."""
    found = _OVER_CONTEXT.search(str(exc))
    if found is not None:
        return PromptTooLong.for_model(model_id, int(found[1]), int(found[2]))
    return BackendError(f"model {model_id}: {_first_line(exc)}")


class GgufVocabulary:
    """A GGUF's tokenizer alone (llama.cpp's `vocab_only`): counts tokens without the
    weights, in a fifth of a second, so a cache hit can count what it saved without loading
    the model, and a process that runs the model elsewhere can still count here."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self._vocab: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Read the vocabulary now (idempotent)."""
        with self._lock:
            if self._vocab is None:
                self._vocab = self._open()

    def count_tokens(self, text: str) -> int:
        self.load()
        return _count(self._vocab, text)

    def close(self) -> None:
        with self._lock:
            if self._vocab is not None:
                self._vocab.close()
            self._vocab = None

    def _open(self) -> Any:
        try:
            path = self.spec.gguf_path()
            _route_native_logs()
            import llama_cpp

            return llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
        except ConfigError as exc:
            raise BackendError(str(exc)) from None
        except ImportError as exc:
            raise BackendError(
                f"llama-cpp-python is not installed ({_first_line(exc)}) "
                "(fix: pip install llama-cpp-python)"
            ) from None
        except (ValueError, RuntimeError, OSError) as exc:
            raise BackendError(
                f"model {self.spec.id}: cannot read the vocabulary of {self.spec.source}: "
                f"{_first_line(exc)} (fix: reinstall or re-download the GGUF file)"
            ) from None


class LlamaCppBackend:
    """A `Backend` over one GGUF file, loaded once and shared by every request."""

    def __init__(
        self, spec: ModelSpec, threads: int = 2, *, n_batch: int = 256, cpuinfo: Path = CPUINFO
    ) -> None:
        self.spec = spec
        self.model_id = spec.id
        self.threads = max(1, threads)
        self._n_batch = n_batch
        self._llm: Any = None
        # llama.cpp contexts are not thread safe: one generation at a time.
        self._lock = threading.Lock()
        self._vocabulary = GgufVocabulary(spec)
        self.load_seconds: float | None = None
        self._cpuinfo = cpuinfo
        self.extra_buffers: bool | None = None
        """Whether the loaded model may use llama.cpp's extra buffer types (None: not loaded)."""

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    def load(self) -> float:
        """Load the model now (idempotent); returns the seconds loading took."""
        with self._lock:
            return self._load_locked()

    def _load_locked(self) -> float:
        if self._llm is not None and self.load_seconds is not None:
            return self.load_seconds
        try:
            path = self.spec.gguf_path()
        except ConfigError as exc:
            raise BackendError(str(exc)) from None
        started = time.perf_counter()
        try:
            _route_native_logs()
            from llama_cpp import llama_chat_format

            llama_chat_format.get_chat_completion_handler(self.spec.chat_format)
        except ImportError as exc:
            raise BackendError(
                f"llama-cpp-python is not installed ({_first_line(exc)}) "
                "(fix: pip install llama-cpp-python)"
            ) from None
        except (ValueError, KeyError):
            raise BackendError(
                f"model {self.spec.id}: unknown chat_format {self.spec.chat_format!r} "
                "(fix: use one llama-cpp-python knows, e.g. 'chatml')"
            ) from None
        flags = cpu_flags(self._cpuinfo)
        extra = use_extra_buffers(self.spec.extra_buffers, flags)
        log.info("model %s: %s", self.spec.id, why(self.spec.extra_buffers, flags))
        try:
            llm = _counting_llama()(
                extra_buffers=extra,
                model_path=str(path),
                n_ctx=self.spec.context,
                n_batch=min(self._n_batch, self.spec.context),
                n_threads=self.threads,
                n_threads_batch=self.threads,
                seed=self.spec.seed,
                chat_format=self.spec.chat_format,
                verbose=False,
            )
        except ExtraBuffersHookBroken as exc:
            raise BackendError(f"model {self.spec.id}: {exc}") from None
        except (ValueError, RuntimeError, OSError) as exc:
            raise BackendError(
                f"model {self.spec.id}: cannot load {path}: {_first_line(exc)} "
                "(fix: reinstall or re-download the GGUF file)"
            ) from None
        self._llm = llm
        self.extra_buffers = extra
        self.load_seconds = time.perf_counter() - started
        return self.load_seconds

    def close(self) -> None:
        """Free the model's memory; the next call loads it again."""
        with self._lock:
            if self._llm is not None:
                self._llm.close()
            self._llm = None
            self._vocabulary.close()
            self.load_seconds = None

    def count_tokens(self, text: str) -> int:
        """Tokens under the model's tokenizer, without loading the model or waiting for it.

        Before the model is loaded only its vocabulary is read (`GgufVocabulary`). Once it
        is loaded, tokenizing reads only the vocabulary, never the context a generation
        decodes into (llama.cpp's own server tokenizes on request threads while its main
        loop decodes), so it takes no generation lock: a hit counts its tokens while another
        request generates.
        """
        llm = self._llm
        if llm is not None:
            return _count(llm, text)
        return self._vocabulary.count_tokens(text)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Completion:
        """Stream one reply; with `json_schema`, decoding is constrained to that schema."""
        with self._lock:
            self._load_locked()
            if cancel is not None and cancel.is_set():
                raise GenerationCancelled()
            started = time.perf_counter()
            llm = self._llm
            llm.last_prompt_tokens = llm.last_sampled_tokens = 0
            llm.last_ended_on_eog = False
            if max_tokens <= 0:
                return Completion("", self._prompt_tokens(messages), 0, "length")
            kwargs: dict[str, Any] = {
                "messages": [{"role": m.role, "content": m.content} for m in messages],
                "stream": True,
                "max_tokens": max_tokens,
                "stop": list(stop),
                "temperature": self.spec.temperature,
                "top_p": self.spec.top_p,
                "repeat_penalty": self.spec.repeat_penalty,
                "seed": self.spec.seed,
            }
            if json_schema is not None:
                kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
            text, finish = self._stream(llm, kwargs, on_token, cancel)
            sampled = llm.last_sampled_tokens - (1 if llm.last_ended_on_eog else 0)
            return Completion(
                text=text,
                prompt_tokens=llm.last_prompt_tokens or self._prompt_tokens(messages),
                completion_tokens=max(0, sampled),
                finish_reason=finish,
                elapsed_ms=(time.perf_counter() - started) * 1000.0,
            )

    def _stream(
        self,
        llm: Any,
        kwargs: dict[str, Any],
        on_token: Callable[[str], None] | None,
        cancel: CancelToken | None,
    ) -> tuple[str, str]:
        try:
            chunks = llm.create_chat_completion(**kwargs)
        except ValueError as exc:
            raise model_error(self.spec.id, exc) from None
        try:
            reply = read_chunks(chunks, on_token, cancel)
        except ValueError as exc:
            raise model_error(self.spec.id, exc) from None
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        return reply.text, reply.finish

    def _prompt_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """Prompt size when no generation ran: the messages' own tokens."""
        return sum(_count(self._llm, m.content) for m in messages)


def in_model_process(spec: dict[str, Any], threads: int, cpuinfo: str) -> LlamaCppBackend:
    """What the model process runs (`stepchat.backends.isolated`): the entry, checked by
    the parent when it read the config, arrives as JSON."""
    return LlamaCppBackend(ModelSpec(**spec), threads, cpuinfo=Path(cpuinfo))
