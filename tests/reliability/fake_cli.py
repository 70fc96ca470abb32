"""`stepchat` with the scripted model and the hashed embedder, for CLI tests in subprocesses.

Loading the real model costs ~8 s per process; this runs the real `stepchat.cli.main` with
only the model and the embedder swapped, so argument handling, prompt checks, the LanceDB
cache under $STEPCHAT_HOME and the error paths are the real ones.

`STEPCHAT_TEST_REPLY` replaces the scripted reply (a reply longer than the model's
`max_tokens` is cut there, as a real model's is).

`STEPCHAT_TEST_FULL_DISK=1` makes every write of the cache fail as a full disk does
(`No space left on device`), for machines where a small tmpfs cannot be mounted.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from stepchat import runtime
from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.ports import StoreError
from stepchat.embed.hashed import HashedEmbedder

REPLY = "3x + 5 = 20\n3x = 15\nx = 5"


def _full_disk(store: Any) -> Any:
    """The store with its LanceDB writes failing like ENOSPC, at the store boundary."""
    lance = store.inner

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise StoreError(
            f"cache store {lance.directory}: write failed: lance error: LanceError(IO): "
            "No space left on device (os error 28)"
        )

    lance._retry = refuse
    return store


if __name__ == "__main__":
    reply = os.environ.get("STEPCHAT_TEST_REPLY", REPLY)
    runtime.load_backend = lambda config, model_id=None: ScriptedBackend([reply])
    runtime.load_embedder = lambda: HashedEmbedder(dim=runtime.EMBED_DIM)
    if os.environ.get("STEPCHAT_TEST_FULL_DISK") == "1":
        real_open = runtime.open_store

        def open_full(*args: Any, **kwargs: Any) -> Any:
            store, notes = real_open(*args, **kwargs)
            return _full_disk(store), notes

        runtime.open_store = open_full
    from stepchat.cli import main

    raise SystemExit(main(sys.argv[1:]))
