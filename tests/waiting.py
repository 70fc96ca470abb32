"""Waiting for a fact, never for a fixed time.

A test that sleeps to let a request reach a queue is wrong both ways: on a loaded machine
the sleep is too short (the request is not queued yet, so what should be refused is
accepted and the test blocks), and on an idle one it is time wasted. Tests wait on what
they need instead: a queue length, a flag a worker set. Pilot tests have the same helper
for the app's loop (`tests.tui.conftest.wait_until`).
"""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    """Return once `condition()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)
