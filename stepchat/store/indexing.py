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

import math
from dataclasses import dataclass
from typing import Any

SCALAR_COLUMNS = ("scope", "task")


@dataclass(frozen=True)
class IndexPlan:
    """Index parameters for 384-d MiniLM vectors, measured with `stepchat bench --scale`.

    What a lookup costs is mostly the partitions it opens, not the rows it scans: at 1M rows
    (measured alone, 200 lookups), 1,000 partitions searched 24 at a time took 20/28 ms
    (p50/p95) for 100% top-1 recall; 250 partitions searched 24 at a time 11/15 ms, 8 at a
    time 8/10 ms, both at 100% recall, and the index built in 25 s instead of 72 s. At 100k
    rows, 97 partitions searched a little faster than 79 (6.6/8.3 against 7.2/11.7 ms). So
    partitions grow with the square root of the table, under a third of LanceDB's usual
    count: 95 at 100k rows, 300 at 1M.
    """

    partition_scale: float = 0.3
    """Partitions per square root of the row count."""
    nprobes: int = 24
    """IVF partitions a search looks into. Fewer would do for today's indexes (4 gave 100%
    recall at 100k and 1M), but an index built before partitions grew (1,000 at 1M) needs 24
    for its recall, and it is kept until the table is rebuilt."""
    refine: int = 5
    """Candidates per wanted hit re-ranked on the exact stored vectors."""

    def partitions(self, rows: int) -> int:
        return max(1, round(math.sqrt(rows) * self.partition_scale))

    def vector_config(self, rows: int, dim: int) -> Any:
        from lancedb.index import IvfSq

        return IvfSq(distance_type="cosine", num_partitions=self.partitions(rows))

    def tune(self, query: Any) -> Any:
        """Search parameters for a query that goes through the vector index."""
        return query.nprobes(self.nprobes).refine_factor(self.refine)


DEFAULT_PLAN = IndexPlan()
