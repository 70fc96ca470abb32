"""Parts load when a request needs them: the engine over lazy proxies.

A structural hit must leave the embedder and the model unloaded; a request that needs a
vector loads only the embedder; only a step that must be written loads the model. The
proxies carry the model id and the embedder's name and width without building anything.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.settings import LinearStrategy, PipelineSettings
from stepchat.core.types import ChatMessage
from stepchat.embed.hashed import HashedEmbedder
from stepchat.lazy import LazyBackend, LazyEmbedder
from stepchat.store.lazy import LazyStore
from stepchat.store.memory import MemoryStore
from stepchat.store.signature_index import SignatureIndex


class CountingBackend(ScriptedBackend):
    loads = 0

    def load(self) -> float:
        CountingBackend.loads += 1
        time.sleep(0.05)  # long enough for a second caller to arrive meanwhile
        return 0.05


class CountingEmbedder(HashedEmbedder):
    loads = 0

    def load(self) -> float:
        CountingEmbedder.loads += 1
        return 0.0


class Built:
    """Factories that record what was built."""

    def __init__(self) -> None:
        self.backends: list[CountingBackend] = []
        self.embedders: list[CountingEmbedder] = []
        CountingBackend.loads = CountingEmbedder.loads = 0

    def backend(self) -> CountingBackend:
        self.backends.append(CountingBackend(["3x + 5 = 20\n3x = 15\nx = 5"], model_id="m"))
        return self.backends[-1]

    def embedder(self) -> CountingEmbedder:
        self.embedders.append(CountingEmbedder(dim=64))
        return self.embedders[-1]


def engine(built: Built, store: MemoryStore, index_dir: Path) -> StepCache:
    return StepCache(
        LazyBackend("m", built.backend),
        LazyEmbedder("hashed", 64, built.embedder),
        LazyStore(lambda: (store, []), SignatureIndex(index_dir)),
        settings=PipelineSettings(linear_strategy=LinearStrategy.MODEL_FIRST),
    )


def test_proxies_know_their_identity_without_building() -> None:
    built = Built()
    backend = LazyBackend("m", built.backend)
    embedder = LazyEmbedder("hashed", 64, built.embedder)
    assert (backend.model_id, embedder.name, embedder.dim) == ("m", "hashed", 64)
    assert built.backends == [] and built.embedders == []
    assert not backend.loaded and not embedder.loaded


def test_counting_tokens_builds_the_backend_but_does_not_load_it() -> None:
    built = Built()
    backend = LazyBackend("m", built.backend)
    assert backend.count_tokens("three short words") == 3
    assert len(built.backends) == 1 and CountingBackend.loads == 0 and not backend.loaded


def test_concurrent_loads_load_once() -> None:
    built = Built()
    backend = LazyBackend("m", built.backend)
    threads = [threading.Thread(target=backend.load) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert CountingBackend.loads == 1 and len(built.backends) == 1 and backend.loaded


def test_each_request_loads_only_what_it_needs(tmp_path: Path) -> None:
    store = MemoryStore()
    built = Built()
    miss = engine(built, store, tmp_path).answer("Solve for x: 3x + 5 = 20")
    assert miss.path == "miss" and CountingBackend.loads == 1 and CountingEmbedder.loads == 1

    built = Built()  # a new process over the same cache
    repeat = engine(built, store, tmp_path).answer("Solve for x: 3x + 5 = 20")
    assert repeat.path == "reuse-only"
    assert CountingBackend.loads == 0 and CountingEmbedder.loads == 0
    assert built.embedders == []
    # The tokens it saved were counted when the steps were stored: no tokenizer is opened.
    assert built.backends == []
    assert repeat.tokens.saved == sum(len(s.text.split()) for s in miss.steps) > 0

    built = Built()
    renamed = engine(built, store, tmp_path).answer("Solve for y: 3y + 5 = 20")
    assert renamed.hit and renamed.timings.embed_ms == 0
    assert CountingBackend.loads == 0 and CountingEmbedder.loads == 0

    built = Built()
    other = engine(built, store, tmp_path).answer("Return a JSON object with keys a and b.")
    assert other.path == "miss"
    assert CountingEmbedder.loads == 1 and CountingBackend.loads == 1


def test_a_forgiven_repeat_loads_no_model(tmp_path: Path) -> None:
    """A repeat the gate forgives (case, marks, spacing) is found by its canonical signature:
    served without building the model, and without embedding."""
    store = MemoryStore()
    built = Built()
    engine(built, store, tmp_path).answer("If it rains tomorrow, what should I wear to work?")
    built = Built()
    moved = engine(built, store, tmp_path).answer(
        "If it rains tomorrow,  what should I wear to work??"
    )
    assert moved.path == "reuse-only" and moved.timings.embed_ms == 0
    assert CountingBackend.loads == 0
    assert built.backends == [] and moved.tokens.saved > 0


def test_a_loaded_part_is_kept_out_of_later_collections() -> None:
    """What a part loads lives as long as the process: once loaded it is frozen, so a full
    collection inside a request does not walk the model's and the embedder's objects."""
    import gc

    gc.unfreeze()
    try:
        weights = [[k] for k in range(1000)]  # stands for what a load leaves alive

        class Loading(CountingEmbedder):
            def load(self) -> float:
                self.weights = weights
                return 0.0

        lazy = LazyEmbedder("e", 64, lambda: Loading(dim=64))
        assert gc.get_freeze_count() == 0
        lazy.embed("a request")
        assert gc.get_freeze_count() >= len(weights)
        frozen = gc.get_freeze_count()
        # Loaded once: a second request freezes nothing, not even what was allocated since.
        # The frozen count may shrink (a frozen object freed by its refcount), never grow.
        since = [[k] for k in range(1000)]
        lazy.embed("another request")
        assert gc.get_freeze_count() < frozen + len(since)
    finally:
        gc.unfreeze()


def test_the_wait_for_the_model_to_load_is_not_its_writing_time() -> None:
    """The first answer's model speed would count the load (about 2 tokens a second for a
    model that writes tens), and the time saved that later hits are priced at with it."""
    backend = LazyBackend("m", Built().backend)
    first = backend.complete([ChatMessage("user", "hi")], max_tokens=8)
    again = backend.complete([ChatMessage("user", "hi")], max_tokens=8)
    assert first.load_ms >= 50 and again.load_ms == 0
    answer = StepCache(LazyBackend("m", Built().backend), HashedEmbedder(dim=64), MemoryStore(),
                       settings=PipelineSettings(linear_strategy=LinearStrategy.MODEL_FIRST)
                       ).answer("Solve for x: 3x + 5 = 20")
    assert answer.timings.generate_ms < 50 <= answer.timings.total_ms
