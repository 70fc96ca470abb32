"""The look-alikes of issue 20 through the engine: each is answered by the model (skip-reuse),
and the reason names what changed.

Before the gate kept every script and symbol, each of these was served the other request's
answer (`reuse-only`, `hit: true`). Here every request embeds to the same vector, so the
cached request is always the nearest neighbour and the gate alone decides.
"""

from __future__ import annotations

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.bench.pairs import restate
from stepchat.core.pipeline import StepCache
from stepchat.core.types import CachePath
from stepchat.store.memory import MemoryStore

ISSUE_CASES = [
    # (cached, new, what the reason must quote from each side)
    ("Translate to English: Я люблю тебя", "Translate to English: Я ненавижу тебя",
     ("люблю", "ненавижу")),
    ("What does 谢谢 mean?", "What does 再见 mean?", ("谢谢", "再见")),
    ("What is the value of π?", "What is the value of φ?", ("π", "φ")),
    ("What is 12 × 4?", "What is 12 − 4?", ("×", "−")),
    ("Is 5 ≥ 3?", "Is 5 ≤ 3?", ("≥", "≤")),
    ("What is 10³?", "What is 103?", ("10³", "103")),
    ("How much is 500₹ in dollars?", "How much is 500₽ in dollars?", ("₹", "₽")),
    ("How do I clean my telephone?", "How do I clean my cellphone?", ("telephone", "cellphone")),
    ("How do I develop film at home?", "How do I develop a movie at home?", ("film", "movie")),
    ("What are the first signs of shingles?", "What are the first signs of a shingle?",
     ("shingles", "shingle")),
    ("How is hepatitis A transmitted?", "How is hepatitis transmitted?", ("A", "∅")),
    ("How do I install deno on Linux?", "How do I install demo on Linux?", ("deno", "demo")),
    # the classes of the 63 pairs written separately
    ("How long does Python take to learn?", "How long does a python take to learn?",
     ("Python", "a python")),
    ("How far is Mercury from the sun?", "How far is the mercury from the sun?",
     ("Mercury", "the mercury")),
    ("Where can I buy glasses?", "Where can I buy glass?", ("glasses", "glass")),
    ("What is the colour of a ruby?", "What is the color of a ruby?", ("colour", "color")),
    ("How do I set up yarn?", "How do I set up yard?", ("yarn", "yard")),
    ("What does {x} mean in Python?", "What does [x] mean in Python?", ("{", "[")),
    ("What does @user do on Twitter?", "What does #user do on Twitter?", ("@", "#")),
    ("What is 2^10?", "What is 2*10?", ("^", "*")),
    ("Is 😀 a happy face?", "Is 😢 a happy face?", ("😀", "😢")),
]


class SameVector:
    """Every request embeds to one vector: the nearest cached request is always a candidate."""

    name = "same-vector"
    dim = 4

    def load(self) -> float:
        return 0.0

    def embed(self, text: str) -> list[float]:
        return [0.5, 0.5, 0.5, 0.5]


@pytest.mark.parametrize(("cached", "new", "quoted"), ISSUE_CASES)
def test_each_look_alike_goes_to_the_model_with_a_reason(
    cached: str, new: str, quoted: tuple[str, str]
) -> None:
    cache = StepCache(ScriptedBackend([restate]), SameVector(), MemoryStore())
    cache.answer(cached)
    answer = cache.answer(new)
    assert answer.path == CachePath.SKIP_REUSE and not answer.hit
    assert answer.text == f"An answer to: {new}"
    reason = answer.skip_reason or ""
    old_side, new_side = reason.split(": ", 1)[1].split(" → ")
    assert quoted[0] in old_side and quoted[1] in new_side, reason
