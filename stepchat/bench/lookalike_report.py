"""Count what the text gate does with generated look-alikes and with surface edits.

The look-alikes (`lookalikes.Generator`) each change what a request asks: a pass is a false
hit the cache would serve. The surface edits (`surface_edits`) keep what it asks: a pass is
a near repeat served. Both are counted per kind, and the look-alikes per script too, for
`stepchat bench --pairs` and CI.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stepchat.bench.lookalikes import EDIT_CLASSES, Generator, Request
from stepchat.bench.surface_edits import REPORTED_EDITS, SURFACE_EDITS
from stepchat.core.textgate.gate import compare

Decide = Callable[[str, str], bool]


def gate_passes(a: str, b: str) -> bool:
    """The shipped gate: would a cached answer to `a` be served for `b`?"""
    return compare(a, b).same


@dataclass
class Tally:
    """Edits tried and passed, per look-alike class, per script, and per surface edit."""

    edits: Counter[str] = field(default_factory=Counter)
    passed: Counter[str] = field(default_factory=Counter)
    script_edits: Counter[str] = field(default_factory=Counter)
    script_passed: Counter[str] = field(default_factory=Counter)
    surface_edits: Counter[str] = field(default_factory=Counter)
    surface_passed: Counter[str] = field(default_factory=Counter)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)
    """A passed look-alike per class, to show what leaked."""

    @property
    def total(self) -> int:
        return sum(self.edits.values())

    def summary(self) -> dict[str, Any]:
        return {
            "lookalikes": {k: {"edits": self.edits[k], "passed": self.passed[k]}
                           for k in EDIT_CLASSES},
            "scripts": {k: {"edits": n, "passed": self.script_passed[k]}
                        for k, n in sorted(self.script_edits.items())},
            "surface": {k: {"edits": n, "passed": self.surface_passed[k]}
                        for k, n in self.surface_edits.items()},
        }


def measure(
    requests: Sequence[Request], decide: Decide = gate_passes, *, surface: bool = True
) -> Tally:
    """Run every look-alike of `requests` and (with `surface`) every surface edit of their
    English ones."""
    tally = Tally()
    for edit in Generator(requests).edits():
        tally.edits[edit.kind] += 1
        tally.script_edits[edit.script] += 1
        if decide(edit.a, edit.b):
            tally.passed[edit.kind] += 1
            tally.script_passed[edit.script] += 1
            tally.examples.setdefault(edit.kind, (edit.a, edit.b))
    for name, edit_of in {**SURFACE_EDITS, **REPORTED_EDITS}.items() if surface else ():
        for request in requests:
            if request.lang != "en":
                continue
            edited = edit_of(request.text)
            if edited != request.text:
                tally.surface_edits[name] += 1
                tally.surface_passed[name] += decide(request.text, edited)
    return tally


def lookalike_tables(tally: Tally) -> str:
    """Markdown: look-alikes per class and per script (passes are false hits), then the
    surface edits (passes are near repeats served)."""
    out = ["| look-alike edit (must not pass) | edits | passed |", "|---|---:|---:|"]
    for kind in EDIT_CLASSES:
        passed = _share(tally.passed[kind], tally.edits[kind])
        out.append(f"| {kind} | {tally.edits[kind]:,} | {passed} |")
    out.append(f"| all | {tally.total:,} | {_share(sum(tally.passed.values()), tally.total)} |")
    out += ["", "| script of the request | edits | passed |", "|---|---:|---:|"]
    for name, edits in sorted(tally.script_edits.items()):
        out.append(f"| {name} | {edits:,} | {_share(tally.script_passed[name], edits)} |")
    out += ["", "| surface edit (must pass) | edits | passed |", "|---|---:|---:|"]
    for name, edits in tally.surface_edits.items():
        shown = f"{name} (reported only)" if name in REPORTED_EDITS else name
        out.append(f"| {shown} | {edits:,} | {_share(tally.surface_passed[name], edits)} |")
    leaked = [f"- {kind}: {a!r} → {b!r}" for kind, (a, b) in tally.examples.items()]
    return "\n".join(out + (["", *leaked] if leaked else [])) + "\n"


def _share(passed: int, total: int) -> str:
    return f"{passed:,} ({passed / total * 100:.1f}%)" if total else "–"
