"""Word problems: earlier solved instances of a problem decide the roles one solution
cannot, and nothing an instance says can make a served number wrong."""

from __future__ import annotations

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.wordprob.evidence import Instance, witnesses
from stepchat.core.tasks.wordprob.handler import WordProblemConstraints, WordProblemHandler
from stepchat.core.tasks.wordprob.recompute import Declined
from stepchat.core.tasks.wordprob.request import NotSame
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore
from tests.wordprob_cases import CACHED, CACHED_SOLUTION, pens, pens_solution


def recompute(new: str, *earlier: Instance) -> list[str]:
    handler = WordProblemHandler()
    task = handler.detect(new)
    assert task is not None
    cached = WordProblemConstraints(CACHED, earlier=earlier)
    return handler.recomputed(task, cached, handler.segment(CACHED_SOLUTION)).texts


def instance(boxes: int, each: int, spare: int, solution: str | None = None) -> Instance:
    text = solution if solution is not None else pens_solution(boxes, each, spare)
    return Instance(pens(boxes, each, spare), tuple(text.splitlines()))


def test_one_instance_alone_declines_the_coincidence() -> None:
    with pytest.raises(Declined, match="fits two roles"):
        recompute(pens(3, 4, 10))


def test_a_second_instance_resolves_the_coincidence() -> None:
    assert recompute(pens(3, 4, 10), instance(3, 5, 8)) == [
        "The boxes hold 3 * 4 = 12 pens.", "She has 12 + 10 = 22 pens.", "#### 22"]
    assert recompute(pens(3, 5, 7), instance(3, 5, 8))[-1] == "#### 22"


def test_a_value_no_instance_showed_changing_declines() -> None:
    """The instance kept 3 boxes: nothing shows the 3 of `3 * 4` follows the stated 3 (a
    word such as "a trio" could state it too). The cached request, whose 12 pens in boxes
    tie its 12 spare ones, is not recomputed from (`coincidences`)."""
    with pytest.raises(Declined, match=r"shows it following|shows nothing of the choice"):
        recompute(pens(2, 5, 12), instance(3, 5, 8))


def test_a_solution_phrased_otherwise_is_no_witness() -> None:
    other = pens_solution(3, 5, 8).replace("She has", "In all she has")
    assert witnesses(CACHED, CACHED_SOLUTION.splitlines(), [instance(3, 5, 8, other)]) == []
    with pytest.raises(Declined, match="fits two roles"):
        recompute(pens(3, 4, 10), instance(3, 5, 8, other))


def test_an_instance_whose_arithmetic_fails_is_no_witness() -> None:
    slipped = pens_solution(3, 5, 8).replace("= 15", "= 16").replace("15 +", "16 +")
    assert witnesses(CACHED, CACHED_SOLUTION.splitlines(), [instance(3, 5, 8, slipped)]) == []


@pytest.mark.parametrize("solution", [
    # holds, but its 9 is no stated value, result or constant of the cached solution
    "The boxes hold 3 * 5 = 15 pens.\nShe has 15 + 9 = 24 pens.\n#### 24",
    # holds, but says the second 12 was the result all along
    "The boxes hold 3 * 5 = 15 pens.\nShe has 15 + 15 = 30 pens.\n#### 30",
])
def test_a_wrong_witness_declines_and_never_changes_the_answer(solution: str) -> None:
    with pytest.raises(Declined):
        recompute(pens(3, 4, 10), instance(3, 5, 8, solution))


def test_a_declined_variant_answered_by_the_model_becomes_the_evidence() -> None:
    backend = ScriptedBackend([CACHED_SOLUTION, pens_solution(3, 5, 8), "not asked"])
    engine = StepCache(backend, HashedEmbedder(), MemoryStore())
    assert engine.answer(CACHED).stored_entry is not None
    declined = engine.answer(pens(3, 5, 8))
    assert not declined.hit and declined.stored_entry is not None
    served = engine.answer(pens(3, 4, 10))
    assert served.hit and len(backend.calls) == 2
    assert served.text.endswith("#### 22")


JOBS = ("{n} people apply for a job at the shop, and {share} of the people accept the "
        "position. How many people accept the position?")


def jobs(n: int, share: str) -> str:
    return JOBS.format(n=n, share=share)


def test_a_word_changes_only_to_words_an_instance_was_solved_with() -> None:
    handler = WordProblemHandler()
    earlier = (Instance(jobs(9, "two thirds"), ("9*2/3 = 6 people", "#### 6")),)
    cached = WordProblemConstraints(jobs(6, "one third"), earlier=earlier)
    steps = handler.segment("6*1/3 = 2 people\n#### 2")

    def served(new: str) -> list[str]:
        task = handler.detect(new)
        assert task is not None
        return handler.recomputed(task, cached, steps).texts

    # The 3 of "third" is a constant no stated value gives: an instance solved with
    # "thirds" does not make it safe to change the values around it.
    with pytest.raises(Declined, match="constant of the solution"):
        served(jobs(12, "two thirds"))
    # nothing shows what "quarter" does to it (4, not 3)
    with pytest.raises(Declined):
        served(jobs(12, "one quarter"))


WEEK = ("Tom works {h} hours a day at the shop from {a} to {b} every week, and Tom earns "
        "{r} dollars for each hour of work there. How much does Tom earn in a week?")


def week(h: int, a: str, b: str, r: int) -> str:
    return WEEK.format(h=h, a=a, b=b, r=r)


def week_solution(h: int, r: int, days: int) -> str:
    return (f"Tom works {days} days a week.\nHe earns {days} * {h} * {r} = {days * h * r} "
            f"dollars.\n#### {days * h * r}")


def test_a_constant_kept_under_one_rename_says_nothing_of_another() -> None:
    handler = WordProblemHandler()
    earlier = (Instance(week(6, "Tuesday", "Saturday", 9),
                        tuple(week_solution(6, 9, 5).splitlines())),)
    cached = WordProblemConstraints(week(8, "Monday", "Friday", 10), earlier=earlier)
    steps = handler.segment(week_solution(8, 10, 5))

    def served(new: str) -> list[str]:
        task = handler.detect(new)
        assert task is not None
        return handler.recomputed(task, cached, steps).texts

    # The 5 days come from the weekdays in words: a constant no stated value gives, and
    # weekdays carry meaning, so no instance makes a change around them safe.
    with pytest.raises(Declined, match="constant of the solution"):
        served(week(7, "Monday", "Friday", 12))
    with pytest.raises(NotSame, match="carries meaning"):
        served(week(7, "Tuesday", "Saturday", 12))
    # Monday to Wednesday is 3 days: the 5 kept for Tuesday to Saturday must not be served
    with pytest.raises(NotSame, match="carries meaning"):
        served(week(7, "Monday", "Wednesday", 12))
