"""Segmenting answers into steps and stitching them back, for every task kind."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.tasks.text_task import segment_text, stitch_text
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40
).map(str.strip).filter(bool)
paragraph = st.lists(line, min_size=1, max_size=3).map(lambda ls: " ".join(ls))
item = line.map(lambda s: "- " + s)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(paragraph, st.lists(item, min_size=2, max_size=4)), max_size=6))
def test_text_round_trip(blocks: list) -> None:
    text = "\n\n".join(b if isinstance(b, str) else "\n".join(b) for b in blocks)
    steps = segment_text(text)
    assert segment_text(stitch_text(steps)) == steps


@settings(max_examples=200, deadline=None)
@given(st.lists(line, min_size=1, max_size=8))
def test_linear_round_trip(lines: list[str]) -> None:
    handler = LinearHandler()
    steps = handler.segment("\n".join(lines))
    assert handler.segment(handler.stitch(steps)) == steps


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=200))
def test_detection_never_raises(prompt: str) -> None:
    cache = StepCache(ScriptedBackend(["x"]), HashedEmbedder(), MemoryStore())
    handler, task = cache.detect(prompt)
    assert task.kind == handler.kind
