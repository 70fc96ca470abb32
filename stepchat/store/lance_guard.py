"""What a LanceDB call's failure means for the user, and commits that lose a race.

Every LanceDB, Arrow or OS failure inside the store becomes one line (`store_errors`): an
unreachable bucket says so in the bucket's words (`CacheLocation.explain`), a table whose
files cannot be read on open is a `CorruptStoreError` (so the opener can move it aside),
and the Rust source locations LanceDB appends are cut. Two processes may write one table:
a commit that lost to another writer, or whose table version another process's cleanup
dropped, is retried with jittered backoff (`retry_commit`).
"""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from stepchat.core.ports import StoreError
from stepchat.store.lance_schema import CorruptStoreError
from stepchat.store.location import CacheLocation
from stepchat.store.upkeep import vanished

T = TypeVar("T")

COMMIT_TRIES = 12
"""A commit that lost a race with another writer is retried this many times."""
_CONFLICT = re.compile(r"conflict|retryable|concurrent", re.I)
"""How LanceDB words such a race."""
_SOURCE_LOCATION = re.compile(r",? /\S+\.rs:\d+:\d+")
"""Where in LanceDB's Rust sources an error was raised: noise in a line for the user."""


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return _SOURCE_LOCATION.sub("", text.splitlines()[0])[:200]


@contextmanager
def store_errors(location: CacheLocation, action: str, corrupt: bool = False) -> Iterator[None]:
    """Turn any LanceDB / Arrow / OS failure into a one-line StoreError.

    With `corrupt`, a failure means the table's files cannot be read (used on open).
    """
    try:
        yield
    except StoreError:
        raise
    except Exception as exc:
        remote = location.explain(str(exc))
        if remote is not None:  # an unreachable bucket is not a damaged table
            raise StoreError(f"cache store {location}: {action} failed: {remote}") from exc
        cls = CorruptStoreError if corrupt else StoreError
        raise cls(f"cache store {location}: {action} failed: {first_line(exc)}") from exc


def retry_commit(write: Callable[[], T], catch_up: Callable[[], object]) -> T:
    """Run one commit, retrying when another writer committed first (or dropped the
    version this handle was on); `catch_up` moves the handle to the newest version."""
    for attempt in range(COMMIT_TRIES):
        try:
            return write()
        except Exception as exc:
            retry = _CONFLICT.search(str(exc)) or vanished(exc)
            if attempt == COMMIT_TRIES - 1 or not retry:
                raise
            time.sleep(random.uniform(0.005, 0.02) * (attempt + 1))
            with contextlib.suppress(Exception):
                catch_up()
    raise AssertionError("unreachable")
