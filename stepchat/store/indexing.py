"""Which indexes a big cache table gets, and how a search uses them.

Small tables are searched in memory (see `stepchat.store.mirror`). Past `index_threshold`
rows the table gets:
- an IVF_SQ index on the vectors (cosine): k-means partitions, and each vector kept as one
  byte per dimension. Cache entries come in tight families (one template, many numbers)
  whose vectors differ in the second decimal; product quantisation (IVF_PQ, 48 bytes a
  vector) blurs siblings together and, on such families, found the true nearest entry in
  86% of lookups even re-ranking 20 candidates, against 100% for IVF_SQ re-ranking 5. Every
  search re-ranks `refine` times `k` candidates on the exact stored vectors, so the
  similarities it returns are exact;
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


@dataclass(frozen=True)
class IndexPlan:
    """Index parameters for 384-d MiniLM vectors, measured with `stepchat bench --scale`."""

    partition_rows: int = 1024
    """Rows per IVF partition. A search scans `nprobes` partitions, so its cost follows
    partition size, not table size: ~16k vectors per lookup at 50k rows and at 1M alike."""
    nprobes: int = 24
    """IVF partitions a search looks into."""
    refine: int = 5
    """Candidates per wanted hit re-ranked on the exact vectors."""

    def partitions(self, rows: int) -> int:
        return max(1, rows // self.partition_rows)

    def vector_config(self, rows: int, dim: int) -> Any:
        from lancedb.index import IvfSq

        return IvfSq(distance_type="cosine", num_partitions=self.partitions(rows))

    def tune(self, query: Any) -> Any:
        """Search parameters for a query that goes through the vector index."""
        return query.nprobes(self.nprobes).refine_factor(self.refine)


DEFAULT_PLAN = IndexPlan()
