"""`stepchat` with the scripted model and the hashed embedder, for CLI tests in subprocesses.

Loading the real model costs ~8 s per process; this runs the real `stepchat.cli.main` with
only the model and the embedder swapped, so argument handling, prompt checks, the LanceDB
cache under $STEPCHAT_HOME and the error paths are the real ones.
"""

from __future__ import annotations

import sys

from stepchat import runtime
from stepchat.backends.scripted import ScriptedBackend
from stepchat.embed.hashed import HashedEmbedder

REPLY = "3x + 5 = 20\n3x = 15\nx = 5"

if __name__ == "__main__":
    runtime.load_backend = lambda config, model_id=None: ScriptedBackend([REPLY])  # type: ignore[assignment]
    runtime.load_embedder = lambda: HashedEmbedder(dim=runtime.EMBED_DIM)  # type: ignore[assignment]
    from stepchat.cli import main

    raise SystemExit(main(sys.argv[1:]))
