"""Which indexes a big cache table gets, and how a search uses them.

Small tables are searched in memory (see `stepchat.store.mirror`). Past `index_threshold`
rows the table gets:
- an IVF_PQ index on the vectors (cosine). Cache entries come in tight families (one template,
  many numbers), so PQ's approximate distances alone confuse siblings; every search re-ranks
  `refine` times `k` candidates on the exact stored vectors, so similarities stay exact and
  the true nearest entry wins whenever it is among the candidates;
- bitmap indexes on `scope` and `task`, so the per-scope, per-task prefilter is a lookup
  instead of a scan of a million strings.
Rows appended after a build are not in the index; LanceDB scans them exhaustively and merges
them in, and the next compaction folds them into the index, so a search never misses one and
an index that is still being built is simply not used yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SCALAR_COLUMNS = ("scope", "task")


def sub_vectors(dim: int, width: int = 8) -> int:
    """PQ sub-vector count: the divisor of `dim` closest to `width` dimensions each."""
    divisors = [d for d in range(1, dim + 1) if dim % d == 0]
    return min(divisors, key=lambda d: abs(dim / d - width))


@dataclass(frozen=True)
class IndexPlan:
    """Index parameters for 384-d MiniLM vectors, measured with `stepchat bench --scale`."""

    partition_rows: int = 2048
    """Rows per IVF partition (fewer, bigger partitions: better recall, more scanning)."""
    nprobes: int = 24
    """IVF partitions a search looks into."""
    refine: int = 20
    """Candidates per wanted hit re-ranked on the exact vectors."""
    sub_vector_width: int = 8
    """Dimensions per PQ sub-vector: 384 / 8 = 48 bytes per vector."""

    def partitions(self, rows: int) -> int:
        return max(1, rows // self.partition_rows)

    def vector_config(self, rows: int, dim: int) -> Any:
        from lancedb.index import IvfPq

        return IvfPq(
            distance_type="cosine",
            num_partitions=self.partitions(rows),
            num_sub_vectors=sub_vectors(dim, self.sub_vector_width),
        )

    def tune(self, query: Any) -> Any:
        """Search parameters for a query that goes through the vector index."""
        return query.nprobes(self.nprobes).refine_factor(self.refine)


DEFAULT_PLAN = IndexPlan()
