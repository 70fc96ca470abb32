"""BERT's encoder as numpy array operations, for all-MiniLM-L6-v2's bundled weights.

The model is small (6 layers, 384 wide), so its forward pass needs no deep-learning
runtime: importing torch costs seconds, numpy a tenth of one. Weights come as the
`{name: array}` dict `safetensors.numpy.load_file` returns for a Hugging Face BertModel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
"""Abramowitz & Stegun 7.1.26: erf within 1.5e-7, below float32 rounding of the activations."""


def _erf(x: Any) -> Any:
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


class BertEncoder:
    """The encoder's weights, laid out for `x @ W` (PyTorch stores them as [out, in])."""

    def __init__(self, tensors: dict[str, Any], config: dict[str, Any]) -> None:
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


