"""What marking a cached answer wrong removes from the cache."""

from __future__ import annotations

from stepchat.core.ports import Store
from stepchat.core.types import TaskKind


def forget_wrong(store: Store, entry_id: str) -> int:
    """Delete the entry marked wrong and return how many entries went.

    A word problem's entries of one problem (one signature: the same request with other
    numbers and names) are one solution solved several times: each keeps the others as the
    earlier instances its variants are recomputed with. Reasoning found wrong in one is
    wrong in all of them, so they all go; any other answer goes alone."""
    entry = store.get(entry_id)
    if entry is None or not store.delete(entry_id):
        return 0
    removed = 1
    if entry.task != TaskKind.WORD_PROBLEM:
        return removed
    while (sibling := store.find_signature(scope=entry.scope, signature=entry.signature)):
        if sibling.task != entry.task or not store.delete(sibling.id):
            break
        removed += 1
    return removed
