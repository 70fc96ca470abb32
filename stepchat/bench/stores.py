"""Stores a bench mode opens in a temporary directory, each closed before it is removed.

A LanceDB store may still be working when its last request returns: background upkeep
(a sweep, compaction, an index build) writes into its folder, and queued hit counts wait to
be written. Removing the folder under it turns that work into errors, and a store dropped
without `close()` never finishes it. So every bench mode opens its stores here: they are
closed, in the order opened, when the mode ends, whether it ended well or raised, and only
then is the directory removed.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from stepchat.core.ports import MaintainedStore, StoreError

log = logging.getLogger("stepchat.bench")


class BenchStores:
    """Opens fresh stores under `directory` and closes every one of them in `close()`."""

    def __init__(self, directory: Path, dim: int) -> None:
        self.directory = directory
        self.dim = dim
        self.opened: list[MaintainedStore] = []

    def new(self) -> MaintainedStore:
        """A fresh store, opened as stepchat opens its cache."""
        from stepchat.runtime import load_store

        return self.keep(load_store(self.directory / f"store-{len(self.opened)}", self.dim))

    def keep(self, store: MaintainedStore) -> MaintainedStore:
        """Close `store` with the others (one opened another way, e.g. a bare LanceStore)."""
        self.opened.append(store)
        return store

    def close(self) -> None:
        """Close every store; one that fails to close is logged and the rest still close."""
        from stepchat.runtime import close_store

        opened, self.opened = self.opened, []
        for store in opened:
            try:
                close_store(store)
            except StoreError as exc:
                log.warning("stepchat bench: %s", exc)


@contextmanager
def temp_stores(prefix: str, dim: int) -> Iterator[BenchStores]:
    """`BenchStores` in a new temporary directory; all closed before it is removed."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        stores = BenchStores(Path(tmp), dim)
        try:
            yield stores
        finally:
            stores.close()
