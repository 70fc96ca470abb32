"""An in-memory copy of the cache's vectors, for exact nearest-neighbour search in ~1 ms.

Every LanceDB query costs several milliseconds before it reads a row, and a flat LanceDB
scan of 10k rows costs 15-60 ms on two busy cores, while one matrix-vector product over the
same 10k vectors costs well under a millisecond. So while the table is small the store keeps
its vectors here, grouped by (scope, task) as searches are, and reads only the few rows a
search returns. Past a size the memory would not pay back, the store drops the mirror and
searches through LanceDB's ANN index instead.

The mirror is exact: it never answers with a neighbour an exhaustive scan would not give.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

NO_ROW = -1
"""Row id of an entry whose LanceDB address is not known yet (added since the last reload)."""


@dataclass
class _Group:
    """The vectors of one (scope, task): a growable matrix and who owns each row."""

    dim: int
    matrix: np.ndarray = field(init=False)
    ids: list[str] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)
    where: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.matrix = np.empty((16, self.dim), dtype=np.float32)

    def put(self, entry_id: str, vector: np.ndarray, row: int) -> None:
        at = self.where.get(entry_id)
        if at is None:
            at = len(self.ids)
            if at == len(self.matrix):
                grown = np.empty((2 * len(self.matrix), self.dim), dtype=np.float32)
                grown[:at] = self.matrix[:at]
                self.matrix = grown
            self.ids.append(entry_id)
            self.rows.append(row)
            self.where[entry_id] = at
        else:
            self.rows[at] = row
        self.matrix[at] = vector

    def drop(self, entry_id: str) -> None:
        """Remove by moving the last row into the hole: O(1), order does not matter."""
        at = self.where.pop(entry_id)
        last = len(self.ids) - 1
        if at != last:
            moved = self.ids[last]
            self.matrix[at] = self.matrix[last]
            self.ids[at] = moved
            self.rows[at] = self.rows[last]
            self.where[moved] = at
        self.ids.pop()
        self.rows.pop()

    def nearest(self, query: np.ndarray, k: int) -> list[tuple[str, float, int]]:
        n = len(self.ids)
        if n == 0:
            return []
        # einsum, not `@`: numpy's threaded BLAS spins for milliseconds on a busy machine
        # (28 ms p50 for 5k vectors under load, 0.3 ms with einsum's single thread).
        sims = np.einsum("ij,j->i", self.matrix[:n], query)
        top = np.argpartition(sims, n - k)[n - k :] if k < n else np.arange(n)
        order = top[np.argsort(-sims[top], kind="stable")]
        return [(self.ids[i], float(sims[i]), self.rows[i]) for i in order]


class VectorMirror:
    """Unit vectors by entry id, searchable by cosine similarity within a (scope, task)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._groups: dict[tuple[str, str], _Group] = {}
        self._group_of: dict[str, tuple[str, str]] = {}

    def __len__(self) -> int:
        return len(self._group_of)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._group_of

    def put(
        self, entry_id: str, scope: str, task: str, vector: Sequence[float] | np.ndarray,
        row: int = NO_ROW,
    ) -> None:
        """Insert or replace; vectors are stored normalised so a dot product is the cosine."""
        key = (scope, task)
        old = self._group_of.get(entry_id)
        if old is not None and old != key:
            self._groups[old].drop(entry_id)
        vec = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(vec))
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group(self.dim)
        group.put(entry_id, vec / norm if norm > 0 else vec, row)
        self._group_of[entry_id] = key

    def set_row(self, entry_id: str, row: int) -> None:
        """Record where an entry now lives in the table (rows move when fragments compact)."""
        key = self._group_of.get(entry_id)
        if key is not None:
            group = self._groups[key]
            group.rows[group.where[entry_id]] = row

    def row_of(self, entry_id: str) -> int:
        key = self._group_of.get(entry_id)
        if key is None:
            return NO_ROW
        group = self._groups[key]
        return group.rows[group.where[entry_id]]

    def drop(self, entry_id: str) -> None:
        key = self._group_of.pop(entry_id, None)
        if key is not None:
            self._groups[key].drop(entry_id)

    def ids(self) -> list[str]:
        return list(self._group_of)

    def search(
        self, vector: Sequence[float], scope: str, task: str, k: int
    ) -> list[tuple[str, float, int]]:
        """The `k` most similar entries of one (scope, task): (id, cosine, row id), best first."""
        group = self._groups.get((scope, task))
        if group is None:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        return group.nearest(query / norm if norm > 0 else query, k)

    def nbytes(self) -> int:
        return sum(g.matrix.nbytes for g in self._groups.values())
