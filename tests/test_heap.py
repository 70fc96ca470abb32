"""`stepchat.heap.PauseClock`: the time garbage collections hold the process up."""

import gc
from itertools import pairwise

from stepchat.heap import PauseClock


def test_a_collection_inside_the_clock_is_counted_and_none_after_it() -> None:
    with PauseClock() as clock:
        assert clock.paused_ms == 0.0
        garbage: list[list[object]] = [[] for _ in range(50_000)]
        for a, b in pairwise(garbage):
            a.append(b)
            b.append(a)
        del garbage
        gc.collect()
        counted = clock.paused_ms
        assert counted > 0.0
    gc.collect()
    assert clock.paused_ms == counted
    assert clock._on_collection not in gc.callbacks
