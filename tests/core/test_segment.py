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


# ---- fenced code is one step -------------------------------------------------------------

REVERSE = '''Here is a function that reverses a string:

```python
def reverse(text):
    """Return text backwards."""

    return text[::-1]


# Example usage:
print(reverse("hello"))
```

It uses slicing with a step of -1.'''


def test_a_fenced_block_with_blank_lines_is_one_step() -> None:
    """The issue's example: a blank line inside the block used to split it in two, and the
    second half rendered '# Example usage:' as a heading."""
    steps = segment_text(REVERSE)
    assert [s.kind for s in steps] == ["paragraph", "code", "paragraph"]
    code = steps[1].text
    assert code.startswith("```python\n") and code.endswith("\n```")
    assert "\n\n    return text[::-1]\n\n\n# Example usage:" in code
    assert stitch_text(steps) == REVERSE


def test_fence_variants() -> None:
    text = "Intro line\n~~~~\na\n\n```\nstill code\n~~~~\nafter"
    steps = segment_text(text)
    assert [s.kind for s in steps] == ["paragraph", "code", "paragraph"]
    assert steps[1].text == "~~~~\na\n\n```\nstill code\n~~~~"
    # A longer closing fence closes; a shorter one does not.
    steps = segment_text("````\n```\nx\n````\ntail")
    assert [s.text for s in steps] == ["````\n```\nx\n````", "tail"]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    """A reply cut at its token limit: the open block is still one code step."""
    steps = segment_text("Code:\n\n```js\nlet a = 1;\n\nlet b = 2;")
    assert [s.kind for s in steps] == ["paragraph", "code"]
    assert steps[1].text == "```js\nlet a = 1;\n\nlet b = 2;"


def test_indented_fence_inside_a_list() -> None:
    text = "1. Install it:\n   ```sh\n   pip install x\n\n   x --help\n   ```\n2. Run it."
    steps = segment_text(text)
    assert [s.kind for s in steps] == ["item", "code", "item"]
    assert "\n\n   x --help" in steps[1].text


no_fence = line.filter(lambda s: "```" not in s and "~~~" not in s)
fenced = st.lists(no_fence, max_size=4).map(lambda ls: "```py\n" + "\n\n".join(ls) + "\n```")
prose = st.lists(no_fence, min_size=1, max_size=3).map(lambda ls: " ".join(ls))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(prose, fenced, st.lists(item, min_size=2, max_size=4)), max_size=6))
def test_text_round_trip_with_code(blocks: list) -> None:
    text = "\n\n".join(b if isinstance(b, str) else "\n".join(b) for b in blocks)
    steps = segment_text(text)
    assert segment_text(stitch_text(steps)) == steps
    assert sum(s.kind == "code" for s in steps) == sum(
        isinstance(b, str) and b.startswith("```py") for b in blocks
    )
