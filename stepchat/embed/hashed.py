"""A deterministic embedder for tests: hashed word and character-trigram features.

Similar prompts get similar vectors, which is all the pipeline asks of an embedder; no
model, no torch, identical results on every machine.
"""

from __future__ import annotations

import hashlib
import math
import re

_WORD = re.compile(r"[A-Za-z]+|\d+")


class HashedEmbedder:
    name = "hashed"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def _bucket(self, feature: str) -> int:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little") % self.dim

    def load(self) -> float:
        """Nothing to load: hashing needs no model."""
        return 0.0

    def embed(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        lowered = text.lower()
        for word in _WORD.findall(lowered):
            vec[self._bucket("w:" + word)] += 1.0
        squashed = re.sub(r"\s+", " ", lowered)
        for i in range(len(squashed) - 2):
            vec[self._bucket("t:" + squashed[i : i + 3])] += 0.5
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]
