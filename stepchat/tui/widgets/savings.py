"""Live savings: what this answer cost and what the cache saved this session.

Two views of the same numbers: a side panel on wide terminals and a one-line status bar
on narrow ones (the chat screen's breakpoints pick which is visible). Both are redrawn
from a `PanelState` snapshot, so they never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from stepchat.tui.sanitize import clean
from stepchat.tui.stats import SessionStats, format_ms


@dataclass(frozen=True)
class PanelState:
    """Everything the savings views show besides the session totals."""

    model: str
    status: str = "ready"
    reuse: bool = True
    store: bool = True


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 100:
        return "~" + format_ms(value * 1000)
    return f"~{value / 60:.1f} min"


def _grid(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(style="dim", no_wrap=True)
    table.add_column(justify="right", overflow="fold")
    for label, value in rows:
        table.add_row(label, Text(value))
    return table


class SavingsPanel(Static):
    """Side panel: model, this answer, session totals, cache flags."""

    def show(self, state: PanelState, stats: SessionStats) -> None:
        parts: list[Text | Table] = [
            Text("Model", style="bold"),
            Text(clean(state.model), overflow="fold"),
            Text(clean(state.status), style="italic dim"),
            Text(""),
            Text("This answer", style="bold"),
        ]
        last = stats.last
        if last is None:
            parts.append(Text("no answer yet", style="dim"))
        else:
            parts.append(
                _grid(
                    [
                        ("path", last.path),
                        ("latency", format_ms(last.total_ms)),
                        ("generated", f"{last.generated} of {last.full} tok"),
                        ("saved", f"{last.saved} tok"),
                    ]
                )
            )
        rate = stats.tokens_per_second
        entries = "—" if stats.entries is None else str(stats.entries)
        parts += [
            Text(""),
            Text("Session", style="bold"),
            _grid(
                [
                    ("requests", str(stats.requests)),
                    ("hit rate", _pct(stats.hit_rate)),
                    ("tokens saved", str(stats.tokens_saved)),
                    ("time saved (est.)", _seconds(stats.seconds_saved)),
                    ("model speed", "—" if rate is None else f"~{rate:.0f} tok/s"),
                    ("cache entries", entries),
                ]
            ),
            Text(""),
            Text(
                f"reuse {'on' if state.reuse else 'OFF'} · store {'on' if state.store else 'OFF'}",
                style="dim" if state.reuse and state.store else "bold",
            ),
        ]
        self.update(Group(*parts))


class StatusLine(Static):
    """The same numbers on one line, for terminals too narrow for the side panel."""

    def show(self, state: PanelState, stats: SessionStats) -> None:
        pieces = [clean(state.model)]
        if state.status != "ready":
            pieces.append(clean(state.status))
        if stats.last is not None:
            pieces.append(f"{stats.last.path} {format_ms(stats.last.total_ms)}")
        pieces.append(f"hit {_pct(stats.hit_rate)}")
        pieces.append(f"saved {stats.tokens_saved} tok")
        if stats.entries is not None:
            pieces.append(f"{stats.entries} cached")
        if not state.reuse:
            pieces.append("no-reuse")
        if not state.store:
            pieces.append("no-store")
        self.update(Text(" · ".join(pieces)))
