"""`stepchat bench --model-speed`: what the model costs where it runs, and how it is loaded.

Four arms over the same GGUF: the model in the calling process (`LlamaCppBackend`) or in a
process of its own (`IsolatedBackend`, what stepchat runs), each with llama.cpp's extra
buffer types on and off. In each of `runs` rounds every arm in turn is built from nothing,
loaded, timed to its first answer (first token, whole reply) and on one long reply, then
closed; the arms alternate within a round so a busy machine slows them alike, and the
table gives medians over the rounds. Tokens per second is the model's sampled tokens over
the wall time the caller waited for the whole reply, streaming included.

Every arm of every round runs in a fresh interpreter (`python -m stepchat.bench.model_speed
--arm ...`) whose clock starts before any model code is imported. A stepchat command
imports llama.cpp once whichever design it runs, so a fair first answer has each arm pay it
inside the clock: the in-process arm imports it in the process that answers, the
own-process arm in its child (and its parent, for the vocabulary, alongside). Importing it
once in the measuring process instead, as an earlier version did, gave the in-process arms
the import for free (0.52 s at load 5) while the child paid it. Timing the child's import
and reporting it apart would have needed the child to report a clock of its own and the
reader to subtract it; a fresh process per arm measures what a user waits for directly, and
the interpreter's own start, common to both designs, stays outside the clock. Whole commands
from the shell are `bench --startup`'s to time.
The load average is recorded beside the figures, which are only comparable within one run
on a shared machine.
"""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from stepchat.config import ModelSpec
from stepchat.core.ports import Backend
from stepchat.core.types import ChatMessage
from stepchat.output import say

PROMPT = "Write a short story about a lighthouse keeper who finds a message in a bottle."
FIRST_PROMPT = "What is the capital of France?"
MAX_TOKENS = 128


@dataclass
class ArmResult:
    name: str
    load_s: list[float] = field(default_factory=list)
    """`load()`: for the own-process arms, starting the child and loading there."""
    first_token_s: list[float] = field(default_factory=list)
    """From building the backend (nothing loaded) to the first streamed token."""
    first_answer_s: list[float] = field(default_factory=list)
    """From building the backend to the whole first reply."""
    rates: list[float] = field(default_factory=list)
    """Tokens per second of each timed generation."""
    skipped: str = ""
    """Why the arm did not run on this machine (empty when it ran)."""

    def as_json(self) -> dict[str, Any]:
        found = {"name": self.name, "load_s": self.load_s, "first_token_s": self.first_token_s,
                 "first_answer_s": self.first_answer_s, "tokens_per_s": self.rates}
        return {**found, "skipped": self.skipped} if self.skipped else found


def _generate(backend: Backend, prompt: str) -> tuple[float, float, int]:
    """(seconds to the first token, seconds to the end, tokens sampled)."""
    started = time.perf_counter()
    first: list[float] = []

    def on_token(_: str) -> None:
        if not first:
            first.append(time.perf_counter() - started)

    done = backend.complete([ChatMessage("user", prompt)], max_tokens=MAX_TOKENS,
                            on_token=on_token)
    total = time.perf_counter() - started
    return (first[0] if first else total), total, done.completion_tokens


ARM_NAMES = tuple(
    f"{place}, extra buffers {label}"
    for label in ("on", "off") for place in ("in process", "own process")
)
"""The arms in the order of `arms` and `PAIRS`."""


def arms(spec: ModelSpec, threads: int) -> list[tuple[str, Callable[[], Backend]]]:
    """(name, build) for each place × extra-buffer setting, in the order of `ARM_NAMES`."""
    from stepchat.backends.isolated import IsolatedBackend
    from stepchat.backends.llama_cpp import LlamaCppBackend

    built: list[tuple[str, Callable[[], Backend]]] = []
    for extra in (True, False):
        variant = replace(spec, extra_buffers=extra)
        label = "on" if extra else "off"
        built.append((f"in process, extra buffers {label}",
                      functools.partial(LlamaCppBackend, variant, threads)))
        built.append((f"own process, extra buffers {label}",
                      functools.partial(IsolatedBackend.for_gguf, variant, threads)))
    return built


def run_arm(name: str, spec: ModelSpec, threads: int) -> dict[str, Any]:
    """One arm, once, in this (fresh) process: the clock starts before the backends and
    llama.cpp are imported. `preloaded` says whether llama.cpp was already imported when it
    started, which would leave the import out of the first answer."""
    preloaded = "llama_cpp" in sys.modules
    started = time.perf_counter()
    build = dict(arms(spec, threads))[name]
    backend = build()
    load_s = backend.load()
    first_token, whole, _ = _generate(backend, FIRST_PROMPT)
    setup = time.perf_counter() - started - whole
    _, total, tokens = _generate(backend, PROMPT)
    close = getattr(backend, "close", None)
    if callable(close):
        close()
    return {"name": name, "preloaded": preloaded, "load_s": load_s,
            "first_token_s": setup + first_token, "first_answer_s": setup + whole,
            "tokens_per_s": tokens / total if total > 0 else 0.0}


def _arm_in_fresh_process(name: str, spec: ModelSpec, threads: int) -> dict[str, Any]:
    """`run_arm` in a new interpreter; its last line of output is the JSON result."""
    order = json.dumps({"arm": name, "spec": asdict(spec), "threads": threads})
    done = subprocess.run(
        [sys.executable, "-m", "stepchat.bench.model_speed", "--arm", order],
        capture_output=True, text=True, check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"model-speed arm {name!r} exited {done.returncode}: {tail}")
    result: dict[str, Any] = json.loads(lines[-1])
    if result["preloaded"]:
        raise RuntimeError(f"model-speed arm {name!r}: llama.cpp was imported before the "
                           "clock started, so its first answer would leave the import out")
    return result


def _cannot_run(name: str, extra_buffers_crash: bool) -> str:
    """Why this machine cannot run the arm: on an AMX CPU, extra buffer types crash
    llama.cpp on any multi-token prompt (which is why stepchat turns them off there)."""
    if name.endswith("extra buffers on") and extra_buffers_crash:
        return "not run: this CPU has AMX, where extra buffer types crash llama.cpp"
    return ""


def measure(
    spec: ModelSpec, threads: int, runs: int, say: Callable[[str], None] = lambda _: None
) -> list[ArmResult]:
    """`runs` rounds; in each, every arm in turn runs in a fresh process: built, loaded,
    asked a first question and timed on one long reply, then closed."""
    from stepchat.backends.extra_buffers import cpu_flags, use_extra_buffers

    crash = not use_extra_buffers(None, cpu_flags())  # /proc/cpuinfo read once
    results = [ArmResult(name, skipped=_cannot_run(name, crash)) for name in ARM_NAMES]
    for round_no in range(runs):
        for result in results:
            if result.skipped:
                continue
            one = _arm_in_fresh_process(result.name, spec, threads)
            result.load_s.append(one["load_s"])
            result.first_token_s.append(one["first_token_s"])
            result.first_answer_s.append(one["first_answer_s"])
            result.rates.append(one["tokens_per_s"])
        say(f"round {round_no + 1}/{runs} done")
    return results


def table(results: Sequence[ArmResult]) -> str:
    """Medians over the rounds; tokens/s with its spread."""
    lines = [
        "| arm | load s | first token s | first answer s | tokens/s median | min–max |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        mid = statistics.median
        if r.skipped:
            lines.append(f"| {r.name} | – | – | – | – | {r.skipped} |")
            continue
        lines.append(
            f"| {r.name} | {mid(r.load_s):.2f} | {mid(r.first_token_s):.2f} | "
            f"{mid(r.first_answer_s):.2f} | {mid(r.rates):.1f} | "
            f"{min(r.rates):.1f}–{max(r.rates):.1f} |"
        )
    return "\n".join(lines) + "\n"


PAIRS = (
    ("own process ÷ in process, extra buffers on", 1, 0),
    ("own process ÷ in process, extra buffers off", 3, 2),
    ("extra buffers off ÷ on, in process", 2, 0),
    ("extra buffers off ÷ on, own process", 3, 1),
)
"""(label, arm, baseline) by position in `arms`: compared within each round."""


def paired_table(results: Sequence[ArmResult]) -> str:
    """Each comparison made within a round, where both arms met the same machine, then the
    median over rounds: steadier than comparing medians when the load moves."""
    lines = [
        "| comparison (within each round, median) | tokens/s ratio | first answer Δ s |",
        "|---|---:|---:|",
    ]
    for label, arm, base in PAIRS:
        a, b = results[arm], results[base]
        if a.skipped or b.skipped:
            lines.append(f"| {label} | – | – |")
            continue
        ratios = [x / y for x, y in zip(a.rates, b.rates, strict=True) if y > 0]
        deltas = [x - y for x, y in zip(a.first_answer_s, b.first_answer_s, strict=True)]
        lines.append(f"| {label} | {statistics.median(ratios):.3f} | "
                     f"{statistics.median(deltas):+.2f} |")
    return "\n".join(lines) + "\n"


def main(model_id: str | None, threads: int | None, runs: int, out: Path) -> int:
    """The `bench --model-speed` handler: measure, print the table, write model-speed.*."""
    from stepchat.config import load_config

    config = load_config()
    spec = config.model(model_id)
    if not isinstance(spec, ModelSpec):
        print(f"stepchat bench: --model-speed needs a local GGUF model, not {spec.id}",
              file=sys.stderr)
        return 2
    threads = threads or config.threads
    before = os.getloadavg()[0]
    results = measure(spec, threads, max(1, runs),
                      lambda line: print(f"model-speed: {line}", file=sys.stderr, flush=True))
    after = os.getloadavg()[0]
    load = (f"{spec.id}, {threads} threads, {runs} rounds of {MAX_TOKENS} tokens; load average "
            f"{before:.1f} before, {after:.1f} after, {os.cpu_count()} CPUs")
    text = table(results) + "\n" + paired_table(results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "model-speed.json").write_text(
        json.dumps({"load": load, "arms": [r.as_json() for r in results]}, indent=2) + "\n",
        encoding="utf-8",
    )
    (out / "model-speed.md").write_text(f"# stepchat bench --model-speed\n\n{text}\n{load}\n",
                                        encoding="utf-8")
    say(text + "\n" + load)
    return 0


def _arm_main(argv: Sequence[str]) -> int:
    """`python -m stepchat.bench.model_speed --arm JSON`: one arm, its result on stdout."""
    if len(argv) != 2 or argv[0] != "--arm":
        print("usage: python -m stepchat.bench.model_speed --arm JSON", file=sys.stderr)
        return 2
    order = json.loads(argv[1])
    result = run_arm(order["arm"], ModelSpec(**order["spec"]), int(order["threads"]))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_arm_main(sys.argv[1:]))
