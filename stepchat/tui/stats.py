"""Session totals for the savings panel, computed from answer records.

Kept apart from the widgets so the arithmetic (hit rate, tokens saved, time saved at the
model's measured speed) is tested without a terminal. Records are `Answer.to_record()`
dicts, the same ones saved in conversations, so a reopened chat can be counted too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

HIT_PATHS = frozenset({"reuse-only", "patched"})


@dataclass
class LastAnswer:
    """What the panel shows about the most recent answer."""

    path: str
    total_ms: float
    generated: int
    saved: int
    skip_reason: str | None = None

    @property
    def full(self) -> int:
        """Tokens a full generation would have cost: what was generated plus what was saved."""
        return self.generated + self.saved


@dataclass
class SessionStats:
    """Running totals over the answers served since the app started."""

    requests: int = 0
    paths: Counter[str] = field(default_factory=Counter)
    tokens_generated: int = 0
    tokens_saved: int = 0
    timed_tokens: int = 0
    timed_ms: float = 0.0
    entries: int | None = None
    last: LastAnswer | None = None

    def record(self, record: dict[str, Any]) -> None:
        """Count one served answer."""
        tokens = record.get("tokens", {})
        timings = record.get("timings_ms", {})
        generated = int(tokens.get("generated", 0))
        saved = int(tokens.get("saved", 0))
        path = str(record.get("path", "miss"))
        self.requests += 1
        self.paths[path] += 1
        self.tokens_generated += generated
        self.tokens_saved += saved
        generate_ms = float(timings.get("generate", 0.0))
        if generated > 0 and generate_ms > 0:
            self.timed_tokens += generated
            self.timed_ms += generate_ms
        self.last = LastAnswer(
            path=path,
            total_ms=float(timings.get("total", 0.0)),
            generated=generated,
            saved=saved,
            skip_reason=record.get("skip_reason"),
        )

    @property
    def hits(self) -> int:
        return sum(n for path, n in self.paths.items() if path in HIT_PATHS)

    @property
    def hit_rate(self) -> float | None:
        """Share of requests served at least partly from the cache."""
        return self.hits / self.requests if self.requests else None

    @property
    def tokens_per_second(self) -> float | None:
        """The model's measured generation speed this session, if it generated anything."""
        if self.timed_ms <= 0:
            return None
        return self.timed_tokens / (self.timed_ms / 1000.0)

    @property
    def seconds_saved(self) -> float | None:
        """Tokens saved priced at the measured speed: an estimate, hence None until measured."""
        rate = self.tokens_per_second
        if rate is None or rate <= 0:
            return None
        return self.tokens_saved / rate


def format_ms(ms: float) -> str:
    """Latency for humans: milliseconds below a second, seconds above."""
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.2f} s"


def format_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def format_age(seconds: float) -> str:
    """How long ago, coarse: '5s', '3m', '2h', '4d'."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s ago"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m ago"
    if seconds < 86400:
        return f"{seconds / 3600:.0f}h ago"
    return f"{seconds / 86400:.0f}d ago"
