"""Siblings of the third hostile review's classes with other numbers, other words and
other cycles than the findings: a class is closed, not the instances found. Each is
declined or served right."""

from __future__ import annotations

from typing import Any

import pytest

from stepchat.bench.wordprob.reference import ReferenceBackend
from stepchat.core.pipeline import StepCache
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore
from tests.core.test_wordprob_found2 import assert_declined_or_right, final

CUTS = ("Ana cuts a log into {p} pieces. Each cut takes {c} seconds, and she sands each "
        "piece for {s} seconds. {extra} How many seconds does Ana spend in total?")
WORDS = {2: "Her saw cost double the price of Ben's saw.",
         3: "Her saw cost triple the price of Ben's saw.",
         4: "Her saw cost quadruple the price of Ben's saw.",
         7: "She sharpens her saw once a week.",
         12: "She oils her saw once a month."}


def cuts(p: int, c: int, s: int, extra: str, new_p: int) -> dict[str, Any]:
    """A pieces - 1 count beside a word or unit of the same value, then more pieces."""
    total = (p - 1) * c + p * s
    return {
        "cached": [{"prompt": CUTS.format(p=p, c=c, s=s, extra=extra),
                    "model_text": f"1. {p - 1} × {c} = {(p - 1) * c} seconds of cutting.\n"
                                  f"2. {p} × {s} = {p * s} seconds of sanding.\n"
                                  f"3. {(p - 1) * c} + {p * s} = {total} seconds.\n"
                                  f"#### {total}"}],
        "prompt": CUTS.format(p=new_p, c=c, s=s, extra=extra),
        "right": (new_p - 1) * c + new_p * s, "why_wrong": "pieces - 1 cuts",
    }


def clock(start: int, hours: int, new_start: int, new_hours: int) -> dict[str, Any]:
    text = ("It is {h}:00 and Ana's train ride takes {d} hours. What hour of the day is it "
            "when she arrives?")
    return {
        "cached": [{"prompt": text.format(h=start, d=hours),
                    "model_text": f"1. {start} + {hours} = {start + hours}.\n"
                                  f"#### {start + hours}"}],
        "prompt": text.format(h=new_start, d=new_hours),
        "right": (new_start + new_hours) % 24, "why_wrong": "a clock wraps at 24",
    }


def shops(a: int, b: int, new_a: int, new_b: int) -> dict[str, Any]:
    text = ("Shop A sells cups at ${a} each and shop B sells them at ${b} each. Ana buys 20 "
            "cups at the cheaper shop and 30 cups at the other shop. How much does Ana pay?")
    return {
        "cached": [{"prompt": text.format(a=a, b=b),
                    "model_text": f"1. Shop A is cheaper: 20 × ${a} = ${20 * a}.\n"
                                  f"2. At shop B: 30 × ${b} = ${30 * b}.\n"
                                  f"3. ${20 * a} + ${30 * b} = ${20 * a + 30 * b}.\n"
                                  f"#### {20 * a + 30 * b}"}],
        "prompt": text.format(a=new_a, b=new_b),
        "right": 20 * min(new_a, new_b) + 30 * max(new_a, new_b),
        "why_wrong": "the cheaper shop changed",
    }


CASES = [
    *(cuts(p, 15, 40, WORDS[p - 1], new_p) for p in (3, 4, 5, 8, 13) for new_p in (6, 10)),
    *(cuts(p, 15, 40, f"{p - 1} friends watch her.", new_p) for p, new_p in ((4, 6), (8, 5))),
    *(clock(start, hours, new_start, new_hours) for start, hours, new_start, new_hours in
      ((9, 5, 20, 7), (13, 3, 23, 2), (6, 8, 18, 9))),
    *(shops(a, b, new_a, new_b) for a, b, new_a, new_b in ((4, 7, 9, 5), (2, 3, 8, 6))),
]


@pytest.mark.parametrize("case", CASES, ids=[f"sibling-{n}" for n in range(len(CASES))])
def test_a_sibling_of_a_found_class_is_declined_or_right(case: dict[str, Any]) -> None:
    assert_declined_or_right(case)


@pytest.mark.parametrize(("case", "earlier"), [
    (clock(9, 5, 10, 6), clock(7, 3, 0, 0)), (shops(4, 7, 5, 9), shops(3, 8, 0, 0)),
], ids=["clock-under-24", "shops-in-order"])
def test_a_sibling_that_keeps_its_order_is_served_right(
    case: dict[str, Any], earlier: dict[str, Any],
) -> None:
    """Served once an earlier instance shows each number following its value."""
    asked = [earlier["cached"][0], case["cached"][0]]
    engine = StepCache(ReferenceBackend({c["prompt"]: c["model_text"] for c in asked}),
                       HashedEmbedder(), MemoryStore())
    for cached in asked:
        engine.answer(cached["prompt"])
    answer = engine.answer(case["prompt"])
    assert answer.hit and final(answer.text) == str(case["right"]), answer.text
