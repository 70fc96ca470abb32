"""`stepchat.heap`: the time garbage collections hold the process up, and where the full
ones run."""

import gc
from collections.abc import Callable, Iterator
from itertools import pairwise

import pytest

from stepchat.heap import FULL_DEFERRED, FULL_DUE, PauseClock, collect_if_due, settle


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


@pytest.fixture
def thresholds() -> Iterator[None]:
    """The process's collector settings, as they were after the test."""
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)
    gc.unfreeze()


def _full_collections() -> tuple[list[int], Callable[[str, dict[str, int]], None]]:
    seen: list[int] = []

    def on_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    return seen, on_collection


def _age_until(due: int) -> None:
    """Make and drop cycles until `due` middle-generation collections have run."""
    kept: list[object] = []
    while gc.get_count()[2] < due:
        pair: list[object] = []
        pair.append(pair)
        kept.append(pair)
        if len(kept) > 10_000:
            kept.clear()


def test_settle_puts_full_collections_off_to_a_call_that_asks_for_them(thresholds: None) -> None:
    settle()
    assert gc.get_threshold()[2] == FULL_DEFERRED
    seen, on_collection = _full_collections()
    gc.callbacks.append(on_collection)
    try:
        collect_if_due()  # just settled: nothing is due
        assert seen == []
        _age_until(FULL_DUE)
        assert seen == []  # past CPython's default, and none ran by itself
        collect_if_due()
        assert seen == [1]
        assert gc.get_count()[2] == 0
    finally:
        gc.callbacks.remove(on_collection)
