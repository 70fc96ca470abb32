"""`stepchat bench --startup`: what one command costs from the shell, start to exit.

Inside the engine a hit takes milliseconds; a user who runs `stepchat ask` from a script pays
the interpreter, the imports and whatever gets loaded as well. This bench seeds a private
cache, then runs each case as a whole process (median of `runs` after one discarded warm-up
run) and reports wall time, CPU time and peak RSS. Each `ask` case checks from its `--json`
record that it took the route it is named after (structural lookup, embedding, miss), so a
figure never describes a different path than its label says. The app is run on a
pseudo-terminal: time to first paint, to answering from the cache, and to fully loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stepchat.bench.processes import ProcessRun, run_in_terminal, run_measured
from stepchat.output import say
from stepchat.quiet import QUIET_ENV

LINEAR_SEED = "Solve for x: 3x + 5 = 20"
TEXT_SEED = "If it rains tomorrow, what should I wear to work?"
SEED_PROMPTS = (LINEAR_SEED, TEXT_SEED)
MISS_PROMPT = "Return a JSON object with keys title, director and year for the film Alien."

APP_MARKS = {
    "first paint": r"stepchat",
    "answers from cache": r"answers from the cache|\bready\b",
    "ready": r"\bready\b",
}
"""Screen texts of the app's milestones: the header, the cache-only status, full load."""



class StartupError(Exception):
    """A case failed or took another route than its name says; one line for the user."""


@dataclass(frozen=True)
class Case:
    """One command to time; `route` checks its `--json` record (None: nothing to check)."""

    name: str
    args: tuple[str, ...]
    route: Callable[[dict[str, Any]], str | None] | None = None
    fresh_cache: bool = False
    """Run on a new copy of the seeded cache each time, so every run meets the same state."""


def _structural(record: dict[str, Any]) -> str | None:
    if not record.get("matched_entry") or record["timings_ms"].get("embed", 0) > 0:
        return "expected a cached entry found by the structural lookup, without embedding"
    return None


def _embedding(record: dict[str, Any]) -> str | None:
    if not record.get("hit") or record["timings_ms"].get("embed", 0) <= 0:
        return "expected a hit found through the embedding"
    return None


def _miss(record: dict[str, Any]) -> str | None:
    return None if record.get("path") == "miss" else "expected a miss"


CASES = (
    Case("--help", ("--help",)),
    Case("ask: exact repeat", ("ask", "--json", TEXT_SEED), _structural),
    Case("ask: structural hit (changed constant)", ("ask", "--json", "Solve for x: 3x + 7 = 20"),
         _structural),
    Case("ask: embedding hit (paraphrase)",
         ("ask", "--json", "What should I wear to work if it rains tomorrow?"), _embedding),
    Case("ask: miss", ("ask", "--json", MISS_PROMPT), _miss, fresh_cache=True),
)


@dataclass
class CaseResult:
    name: str
    runs: list[ProcessRun] = field(default_factory=list)
    path: str | None = None

    def median(self, value: Callable[[ProcessRun], float | None]) -> float | None:
        values = [v for v in (value(r) for r in self.runs) if v is not None]
        return statistics.median(values) if values else None

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "wall_s": self.median(lambda r: r.wall_s),
            "cpu_s": self.median(lambda r: r.cpu_s),
            "peak_rss_mib": self.median(lambda r: r.peak_rss_mib),
            "marks_s": {
                mark: self.median(lambda r, m=mark: r.marks.get(m))  # type: ignore[misc]
                for mark in sorted({m for r in self.runs for m in r.marks})
            },
            "runs": [
                {"wall_s": r.wall_s, "cpu_s": r.cpu_s, "peak_rss_mib": r.peak_rss_mib,
                 "marks_s": r.marks}
                for r in self.runs
            ],
        }


def child_env(home: Path) -> dict[str, str]:
    return {**os.environ, **QUIET_ENV, "STEPCHAT_HOME": str(home)}


def stepchat_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "stepchat.cli", *args]


def _checked(case: Case, run: ProcessRun) -> str | None:
    """The route the run took; raises when it failed or took another route."""
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise StartupError(f"{case.name}: exit {run.returncode}: {last}")
    if case.route is None:
        return None
    record = json.loads(run.stdout)
    problem = case.route(record)
    if problem:
        raise StartupError(f"{case.name}: {problem}, got path {record.get('path')!r}")
    return str(record["path"])


def seed_cache(home: Path) -> None:
    """Answer the seed prompts once so the cases find them cached."""
    for prompt in SEED_PROMPTS:
        run = run_measured(stepchat_argv("ask", "--json", prompt), child_env(home))
        if run.returncode != 0:
            raise StartupError(f"seeding {prompt!r} failed: {run.stderr.strip()[-300:]}")


def measure_case(
    case: Case, home: Path, runs: int, on_run: Callable[[str], None] | None = None
) -> CaseResult:
    result = CaseResult(case.name)
    for index in range(runs + 1):
        target = home
        if case.fresh_cache:
            target = Path(tempfile.mkdtemp(prefix="stepchat-startup-run-"))
            shutil.copytree(home, target, dirs_exist_ok=True)
        try:
            run = run_measured(stepchat_argv(*case.args), child_env(target))
        finally:
            if target != home:
                shutil.rmtree(target, ignore_errors=True)
        result.path = _checked(case, run)
        if index:  # the first run warms the disk cache and is discarded
            result.runs.append(run)
        if on_run:
            on_run(f"{case.name}: run {index}/{runs} {run.wall_s:.2f} s")
    return result


def measure_app(
    home: Path, runs: int, on_run: Callable[[str], None] | None = None
) -> CaseResult:
    result = CaseResult("app")
    for index in range(runs + 1):
        run = run_in_terminal(stepchat_argv(), child_env(home), APP_MARKS, quit_after="ready")
        if "ready" not in run.marks:
            raise StartupError(f"app never showed 'ready'; last screen: {run.stdout[-300:]!r}")
        if index:
            result.runs.append(run)
        if on_run:
            on_run(f"app: run {index}/{runs} ready at {run.marks['ready']:.2f} s")
    return result


def run_startup(
    runs: int = 5,
    cases: Sequence[Case] = CASES,
    *,
    app: bool = True,
    on_run: Callable[[str], None] | None = None,
) -> list[CaseResult]:
    """Seed a private cache, then measure every case (and the app) on it."""
    home = Path(tempfile.mkdtemp(prefix="stepchat-startup-"))
    try:
        seed_cache(home)
        results = [measure_case(case, home, runs, on_run) for case in cases]
        if app:
            results.append(measure_app(home, runs, on_run))
        return results
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def startup_table(results: Sequence[CaseResult]) -> str:
    """Markdown: one row per case; the app's milestones as extra rows."""
    lines = [
        "| case | route | wall s | CPU s | peak RSS MiB |",
        "|---|---|---:|---:|---:|",
    ]
    for result in results:
        if result.name == "app":
            for mark in APP_MARKS:
                lines.append(
                    f"| app: {mark} | – | {_fmt(result.median(lambda r, m=mark: r.marks.get(m)))}"  # type: ignore[misc]
                    " | – | – |"
                )
            lines.append(
                f"| app: whole run (to ready, then quit) | – | "
                f"{_fmt(result.median(lambda r: r.wall_s))} | "
                f"{_fmt(result.median(lambda r: r.cpu_s))} | "
                f"{_fmt(result.median(lambda r: r.peak_rss_mib), 0)} |"
            )
            continue
        lines.append(
            f"| {result.name} | {result.path or '–'} | "
            f"{_fmt(result.median(lambda r: r.wall_s))} | "
            f"{_fmt(result.median(lambda r: r.cpu_s))} | "
            f"{_fmt(result.median(lambda r: r.peak_rss_mib), 0)} |"
        )
    return "\n".join(lines) + "\n"


def main(runs: int, out: Path, *, app: bool = True) -> int:
    """The `bench --startup` handler: measure, print the table, write startup.json/.md."""

    def progress(line: str) -> None:
        print(f"startup: {line}", file=sys.stderr, flush=True)

    load_before = os.getloadavg()[0]
    try:
        results = run_startup(runs, app=app, on_run=progress)
    except StartupError as exc:
        print(f"stepchat bench: {exc}", file=sys.stderr)
        return 2
    after = os.getloadavg()[0]
    load = f"load average {load_before:.1f} before, {after:.1f} after, {os.cpu_count()} CPUs"
    table = startup_table(results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "startup.json").write_text(
        json.dumps([r.as_json() for r in results], indent=2) + "\n", encoding="utf-8"
    )
    (out / "startup.md").write_text(
        f"# stepchat bench --startup (median of {runs})\n\n{table}\n{load}\n", encoding="utf-8"
    )
    say(table + "\n" + load)
    return 0
