"""Session totals for the savings panel, computed from the answers served.

Kept apart from the widgets so the arithmetic (hit rate, tokens saved, time saved) is
tested without a terminal.

Time saved is an estimate and is shown as one. Each hit is priced once, when it is served,
from the measured cost of the answer it replaces: the answer that stored the cached entry
this session, or else the full answer's tokens at the model's median speed. Totals are
never re-priced afterwards, and the speed is a median over answers, so one slow first
answer (a model warming up) does not drag every estimate with it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from stepchat.core.types import Answer

SPEED_WINDOW = 20
"""Answers the model-speed median looks back over: recent enough to follow a model
switch or a busy machine, long enough to ignore one outlier."""


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

    @classmethod
    def of(cls, answer: Answer) -> LastAnswer:
        return cls(
            path=str(answer.path),
            total_ms=answer.timings.total_ms,
            generated=answer.tokens.generated,
            saved=answer.tokens.saved,
            skip_reason=answer.skip_reason,
        )


@dataclass
class SessionStats:
    """Running totals over the answers served since the app started."""

    requests: int = 0
    paths: Counter[str] = field(default_factory=Counter)
    hits: int = 0
    tokens_generated: int = 0
    tokens_saved: int = 0
    entries: int | None = None
    last: LastAnswer | None = None
    speeds: list[float] = field(default_factory=list)
    """Tokens per second of each answer the model wrote, newest last."""
    costs: dict[str, float] = field(default_factory=dict)
    """Measured milliseconds of the answer that stored each entry this session."""
    saved_ms: float = 0.0
    priced_hits: int = 0

    def record(self, answer: Answer) -> None:
        """Count one served answer, pricing it now if it was a hit."""
        generated, saved = answer.tokens.generated, answer.tokens.saved
        total_ms, generate_ms = answer.timings.total_ms, answer.timings.generate_ms
        path = str(answer.path)
        self.requests += 1
        self.paths[path] += 1
        self.tokens_generated += generated
        self.tokens_saved += saved
        if generated > 0 and generate_ms > 0:
            self.speeds = [*self.speeds, generated / (generate_ms / 1000.0)][-SPEED_WINDOW:]
        if answer.hit:
            self.hits += 1
            replaced = self._replaced_ms(answer.matched_entry, generated + saved)
            if replaced is not None:
                self.saved_ms += max(0.0, replaced - total_ms)
                self.priced_hits += 1
        if answer.stored_entry:
            self.costs[answer.stored_entry] = total_ms
        self.last = LastAnswer.of(answer)

    def _replaced_ms(self, matched: str | None, full_tokens: int) -> float | None:
        """What the answer this hit stands in for cost: measured, or estimated from tokens."""
        if matched is not None and matched in self.costs:
            return self.costs[matched]
        rate = self.tokens_per_second
        if rate is None or full_tokens <= 0:
            return None
        return full_tokens / rate * 1000.0

    @property
    def hit_rate(self) -> float | None:
        """Share of requests served at least partly from the cache."""
        return self.hits / self.requests if self.requests else None

    @property
    def tokens_per_second(self) -> float | None:
        """The model's median speed over recent answers it wrote, if it wrote any."""
        return statistics.median(self.speeds) if self.speeds else None

    @property
    def seconds_saved(self) -> float | None:
        """Estimated seconds the hits saved; None until a hit could be priced."""
        return self.saved_ms / 1000.0 if self.priced_hits else None


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
