"""A word problem and its solution shared by the core, real-stack and app tests."""

from collections.abc import Sequence

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.wordprob.evidence import Instance
from stepchat.core.tasks.wordprob.handler import WordProblemConstraints, WordProblemHandler
from stepchat.core.types import Answer
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

FOG = (
    "A fog bank rolls in from the ocean to cover a city. It takes 10 minutes to cover every "
    "3 miles of the city. If the city is 42 miles across, how many minutes will it take for "
    "the fog bank to cover the whole city?"
)
FOG_SOLUTION = (
    "The city will be covered in 42/3 = 14 intervals of 10 minutes.\n"
    "Thus, it will take 14 * 10 = 140 minutes for the fog to cover the whole city.\n"
    "#### 140"
)

def fog(minutes: int, miles: int, across: int) -> str:
    return FOG.replace("10 minutes", f"{minutes} minutes").replace(
        "3 miles", f"{miles} miles").replace("42 miles", f"{across} miles")


def fog_solution(minutes: int, miles: int, across: int) -> str:
    intervals = across // miles
    return (f"The city will be covered in {across}/{miles} = {intervals} intervals of "
            f"{minutes} minutes.\n"
            f"Thus, it will take {intervals} * {minutes} = {intervals * minutes} minutes for "
            "the fog to cover the whole city.\n"
            f"#### {intervals * minutes}")


FOG_SEEN = ((fog(5, 2, 30), fog_solution(5, 2, 30)),)
"""An earlier instance of FOG with every value changed: what shows each number following
the value it is read as."""


PENS = ("Ana buys {boxes} boxes with {each} pens in each box and {spare} spare pens for "
        "her class. How many pens does she have?")


def pens(boxes: int, each: int, spare: int) -> str:
    return PENS.format(boxes=boxes, each=each, spare=spare)


def pens_solution(boxes: int, each: int, spare: int) -> str:
    inside = boxes * each
    return (f"The boxes hold {boxes} * {each} = {inside} pens.\n"
            f"She has {inside} + {spare} = {inside + spare} pens.\n#### {inside + spare}")


CACHED = pens(3, 4, 12)
"""The spare 12 equals the result 3 * 4: in this solution alone each 12 fits two roles."""
CACHED_SOLUTION = pens_solution(3, 4, 12)


def recompute(
    cached: str, solution: str, new: str, earlier: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The cached solution's steps recomputed for `new`, or Declined / NotSame. `earlier`
    are instances solved before it (request, solution): a changed value is taken only
    where one of them shows the solution following it."""
    handler = WordProblemHandler()
    task = handler.detect(new)
    assert task is not None
    instances = tuple(Instance(request, tuple(handler.stitch(handler.segment(text)).split("\n")))
                      for request, text in earlier)
    outcome = handler.recomputed(task, WordProblemConstraints(cached, earlier=instances),
                                 handler.segment(solution))
    return outcome.texts


def answers(solved: Sequence[tuple[str, str]], new: str) -> Answer:
    """Each solved request asked in turn of a fresh cache (the model answers it), then
    `new`: served from the cache, or answered "#### -1"."""
    backend = ScriptedBackend([text for _, text in solved] + ["#### -1"])
    cache = StepCache(backend, HashedEmbedder(), MemoryStore())
    for prompt, _ in solved:
        cache.answer(prompt)
    return cache.answer(new)
