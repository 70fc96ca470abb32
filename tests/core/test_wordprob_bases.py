"""Which solved instance a new request is recomputed from first (`bases.py`)."""

from stepchat.core.tasks.wordprob.bases import bases
from stepchat.core.tasks.wordprob.evidence import Instance
from stepchat.core.tasks.wordprob.request import Alignment
from tests.wordprob_cases import pens, pens_solution, recompute


def _instance(boxes: int, each: int, spare: int) -> Instance:
    return Instance(pens(boxes, each, spare),
                    tuple(pens_solution(boxes, each, spare).split("\n")))


ENTRY = _instance(3, 4, 13)
"""Stated values in rising order: 3 < 4 < 13."""
FALLING = _instance(9, 5, 4)
"""An earlier instance with them in falling order."""
ELSEWHERE = Instance("A train leaves at 9 and travels 40 miles, then 15 more. How far has it gone?",
                     ("It travels 40 miles.", "It has gone 40 + 15 = 55 miles.", "#### 55"))
"""Another problem with as many steps."""


def test_the_entry_is_tried_first_when_the_new_values_keep_its_order() -> None:
    tried = list(bases(ENTRY, (FALLING,), pens(2, 6, 20)))
    assert [b.instance for b in tried] == [ENTRY, FALLING]
    assert tried[0].reorders == 0 and tried[1].reorders == 3


def test_an_instance_in_the_new_order_is_tried_before_the_entry() -> None:
    tried = list(bases(ENTRY, (FALLING,), pens(8, 3, 2)))
    assert [b.instance for b in tried] == [FALLING, ENTRY]
    assert [b.reorders for b in tried] == [0, 3]
    assert tried[1].others == (FALLING,)


def test_an_instance_that_does_not_align_is_tried_last() -> None:
    tried = list(bases(ENTRY, (ELSEWHERE, FALLING), pens(8, 3, 2)))
    assert [b.instance for b in tried][-1] is ELSEWHERE
    assert not isinstance(tried[-1].alignment, Alignment)


def test_the_order_of_tries_does_not_change_the_answer() -> None:
    earlier = [(FALLING.request, "\n".join(FALLING.steps))]
    served = recompute(ENTRY.request, "\n".join(ENTRY.steps), pens(8, 3, 2), earlier)
    assert served[-1] == "#### 26"
    assert served == pens_solution(8, 3, 2).split("\n")
