"""Import LanceDB without the REST namespace client it loads and stepchat never uses.

`import lancedb` (0.40) imports `lance_namespace`, which imports the data models of
`lance_namespace_urllib3_client`; that package's `__init__` also builds the whole REST client,
and pydantic wraps each of its 366 endpoint methods in a validator as the module loads. That
was 0.8 s of the 1.4 s the import takes on this machine, paid by every process that opens
the cache (an embedding hit from the shell may take 2 s in all). stepchat connects to a
directory or an object-store URI, never to a REST namespace, and the models live in their
own subpackage.

So before the first import the client package is registered as a package whose `__init__`
has not run: its subpackages (`.models`) import as usual, its top-level names do not exist.
Only the REST namespace (`lancedb.connect_namespace("rest", ...)`) would need them.
Nothing is done when the package is already imported or cannot be found, and if LanceDB
does not import that way (another release that wants more of the package), the stand-in
and whatever it half-imported are dropped and LanceDB is imported the ordinary way.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

REST_CLIENT = "lance_namespace_urllib3_client"


def import_lancedb() -> ModuleType:
    """`lancedb`, imported without running the REST client package's `__init__` if it can."""
    standing_in = (
        "lancedb" not in sys.modules
        and REST_CLIENT not in sys.modules
        and _register_unexecuted(REST_CLIENT)
    )
    try:
        import lancedb
    except (ImportError, AttributeError):
        if not standing_in:
            raise
        _forget("lancedb", "lance_namespace", REST_CLIENT)
        import lancedb
    return lancedb


def _register_unexecuted(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        return False
    sys.modules[name] = importlib.util.module_from_spec(spec)
    return True


def _forget(*packages: str) -> None:
    """Drop these packages' Python modules from the import cache. Compiled extensions stay:
    LanceDB's cannot initialise twice in one process, and importing again reuses it."""
    for name, module in list(sys.modules.items()):
        origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
        if name.split(".")[0] in packages and not origin.endswith((".so", ".pyd")):
            del sys.modules[name]
