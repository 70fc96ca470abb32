"""The numpy embedder gives sentence-transformers' vectors for the same bundled weights.

The reference is sentence-transformers itself (a test dependency only), loaded from the same
folder. The prompts are the bench's generated workload (equations and JSON requests in
every perturbation) plus open-text requests, edge cases the tokenizer must treat alike
(empty, whitespace, accents, CJK, emoji, markup) and one longer than the model's 256-token
window, so truncation is compared too.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from stepchat.bench import workload as wl
from stepchat.embed.minilm import MiniLMEmbedder, bundled_model_dir

pytestmark = pytest.mark.slow

MIN_COSINE = 0.999

TOPICS = ("bread", "the French Revolution", "photosynthesis", "a hash table", "jazz",
          "compound interest", "the moon landing", "TCP handshakes", "tea", "volcanoes")
TEMPLATES = (
    "Explain {} in two sentences.",
    "What is the history of {}?",
    "If I know nothing about {}, where should I start?",
    "give me 3 fun facts abt {} pls",
    "Why do people care about {}? Answer briefly.",
    "Write a haiku about {}.",
)
EDGES = (
    "", " ", "\n\t", "?", "naïve café déjà vu", "東京で一番おいしいラーメンはどこですか",
    "🙂🙃 emoji only 🚀", "<b>markup</b> &amp; entities", "ALL CAPS SHOUTING REQUEST",
    "x" * 300, "Solve for x: 3x + 5 = 20", "{\"name\": \"Bob\", \"age\": 40}",
    " ".join(f"word{i}" for i in range(400)),
)


def prompts() -> list[str]:
    generated = [r.prompt for r in wl.generate(42)]
    text = [t.format(topic) for t in TEMPLATES for topic in TOPICS]
    return generated + text + list(EDGES)


def test_vectors_match_sentence_transformers() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from sentence_transformers import SentenceTransformer

    texts = prompts()
    assert len(texts) >= 300
    reference = SentenceTransformer(str(bundled_model_dir()), device="cpu",
                                    local_files_only=True)
    expected = reference.encode(texts, batch_size=32, normalize_embeddings=True,
                                convert_to_numpy=True, show_progress_bar=False)
    ours = np.array(MiniLMEmbedder().embed_many(texts))
    cosines = (ours * expected).sum(axis=1) / (
        np.linalg.norm(ours, axis=1) * np.linalg.norm(expected, axis=1)
    )
    worst = int(np.argmin(cosines))
    print(f"{len(texts)} prompts, lowest cosine {cosines[worst]:.7f}")
    assert cosines[worst] >= MIN_COSINE, (texts[worst][:80], float(cosines[worst]))
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
