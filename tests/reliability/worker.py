"""A cache client run as a separate process by the concurrency and crash tests.

    python -m tests.reliability.worker ask DIR TAG N   # N requests through StepCache
    python -m tests.reliability.worker add DIR TAG N   # N raw adds (0 = until killed)
    python -m tests.reliability.worker oneshot DIR TAG N  # 3 adds with optimize_every=N,
                                                          # then the fragment count
    python -m tests.reliability.worker adds DIR TAG N  # N adds, failures reported, not fatal
    python -m tests.reliability.worker clear DIR TAG N # N clears
    python -m tests.reliability.worker open DIR TAG N  # N opens (count each time)

Every entry id is printed on its own line (`stored <id>`) only after the store call that
wrote it returned, so the parent knows exactly which writes were acknowledged.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from stepchat.core.types import CacheEntry, Step, TaskKind
from tests.reliability.helpers import DIM, EMBED, make_cache, open_lance, solve_text


def _report(*words: object) -> None:
    """Print one line with a single write, so a kill cannot leave half of it in the pipe."""
    os.write(sys.stdout.fileno(), (" ".join(map(str, words)) + "\n").encode())


def entry_for(entry_id: str) -> CacheEntry:
    """The entry a writer stores under `entry_id`: its content is a function of the id."""
    prompt = f"Solve for x: 7x + 3 = {len(entry_id)} ({entry_id})"
    return CacheEntry(
        id=entry_id,
        prompt=prompt,
        vector=EMBED.embed(prompt),
        scope="crash",
        task=TaskKind.LINEAR,
        signature=f"sig-{entry_id}",
        constraints={"id": entry_id},
        steps=[Step(f"step {i} of {entry_id}", "equation") for i in range(3)],
        model="scripted",
        created=1.0,
        last_hit=1.0,
    )


def ask(directory: Path, tag: int, count: int) -> None:
    store = open_lance(directory, optimize_every=32)
    backend_replies = [
        lambda messages: _reply(messages[-1].content),
    ]
    cache = make_cache(backend_replies, store=store)
    for i in range(count):
        if i % 4 == 3:
            prompt = (
                f"Return a JSON object with keys name and age for a person whose name is "
                f"Worker{tag}x{i} and age is {i}."
            )
        else:
            c = tag * 100_000 + i * i + 3 * i  # distinct solutions: (almost) every answer stores
            prompt = f"Solve for x: {2 + i % 5}x + {i} = {c}. Show each step."
        # Most requests skip reuse so they store (a patch made without the model is not
        # stored again); every eighth reads the shared cache while the other process writes.
        answer = cache.answer(prompt, read_cache=i % 8 == 7)
        if answer.stored_entry:
            _report("stored", answer.stored_entry)


def _reply(prompt: str) -> str:
    import re

    m = re.search(r"(\d+)x \+ (\d+) = (\d+)", prompt)
    if m:
        return solve_text(*(int(g) for g in m.groups()))
    return '{"name": "someone", "age": 1}'


def add(directory: Path, tag: int, count: int) -> None:
    store = open_lance(directory, optimize_every=7)
    i = 0
    while count == 0 or i < count:
        entry_id = f"w{tag}-{i}"
        store.add(entry_for(entry_id))
        _report("stored", entry_id)
        if i % 5 == 4:
            store.touch(entry_id, 2.0)
        i += 1


def oneshot(directory: Path, tag: int, optimize_every: int) -> None:
    """One short-lived writer, as `stepchat ask` is: open, write a little, close."""
    store = open_lance(directory, optimize_every=optimize_every)
    for i in range(3):
        store.add(entry_for(f"o{tag}-{i}"))
    getattr(store, "close", lambda: None)()  # finish upkeep, as the CLI does on exit
    _report("fragments", store.stats()["fragments"])


def adds(directory: Path, tag: int, count: int) -> None:
    """N adds with stepchat's store options (a table handle may be up to 1 s stale); a
    failed add is reported and the next one tried."""
    from stepchat.core.ports import StoreError
    from stepchat.store.lance import LanceStore

    store = LanceStore(directory, DIM)
    for i in range(count):
        entry_id = f"w{tag}-{i}"
        try:
            store.add(entry_for(entry_id))
        except StoreError as exc:
            _report("failed", entry_id, str(exc).replace("\n", " "))
        else:
            _report("stored", entry_id)


def clear(directory: Path, tag: int, count: int) -> None:
    import time

    from stepchat.store.lance import LanceStore

    store = LanceStore(directory, DIM)
    for _ in range(count):
        _report("cleared", store.clear())
        time.sleep(0.2)


def open_count(directory: Path, tag: int, count: int) -> None:
    """Open the cache the way stepchat does (a damaged table is moved aside) and count."""
    from stepchat.store.maintenance import open_lance as open_or_recover

    for _ in range(count):
        store, notes = open_or_recover(directory, DIM)
        _report("opened", store.count(), *notes)


if __name__ == "__main__":
    mode, directory, tag, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    modes = {"ask": ask, "add": add, "adds": adds, "oneshot": oneshot, "clear": clear,
             "open": open_count}
    modes[mode](directory, tag, count)
