"""Writes a bench run's outputs: results.json, report.md and latency.png.

`requests.jsonl` is written by the command while the run goes, so a long run that is
stopped still leaves every served answer on disk.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stepchat.bench.runner import Record

TARGETS = (
    # (label, metric, kind, bound): kind "ratio" reads vs_nocache, "abs" the arm's own value
    ("mean latency vs nocache", "latency_mean_s", "ratio", 0.25),
    ("median latency", "latency_median_s", "abs", 0.015),
    ("p95 latency vs nocache", "latency_p95_s", "ratio", 0.9),
    ("total tokens vs nocache", "total_tokens", "ratio", 0.6),
    ("wrong answers", "wrong_answers", "abs", 0.0),
)
PAPER = {
    "latency_mean_s": 0.67 / 2.13,
    "latency_median_s": 0.01 / 2.42,
    "latency_p95_s": 3.30 / 3.38,
    "total_tokens": 27.3 / 36.1,
}
"""The StepCache paper's ratios (its Table: no cache → StepCache), for comparison."""


def _pm(stat: dict[str, float], fmt: str, scale: float = 1.0) -> str:
    mean = stat["mean"] * scale
    if math.isnan(mean):
        return "n/a"
    text = format(mean, fmt)
    if stat["sd"]:
        text += " ± " + format(stat["sd"] * scale, fmt)
    return text


def main_table(summary: dict[str, Any]) -> str:
    """Latency, tokens and correctness per arm, with ratios against nocache."""
    head = (
        "| arm | mean s | median s | p95 s | tokens | correct | wrong | "
        "mean × | median × | p95 × | tokens × |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    rows = []
    for arm, m in summary.items():
        ratios = m.get("vs_nocache", {})

        def ratio(metric: str, ratios: dict[str, Any] = ratios) -> str:
            return _pm(ratios[metric], ".2f") if metric in ratios else "–"

        rows.append(
            f"| {arm} | {_pm(m['latency_mean_s'], '.3f')} | {_pm(m['latency_median_s'], '.3f')} "
            f"| {_pm(m['latency_p95_s'], '.3f')} | {_pm(m['total_tokens'], ',.0f')} "
            f"| {_pm(m['correctness'], '.1f', 100)}% | {_pm(m['wrong_answers'], '.0f')} "
            f"| {ratio('latency_mean_s')} | {ratio('latency_median_s')} "
            f"| {ratio('latency_p95_s')} | {ratio('total_tokens')} |"
        )
    return head + "\n".join(rows) + "\n"


def paths_table(summary: dict[str, Any]) -> str:
    paths = sorted({p for m in summary.values() for p in m["paths"]})
    """Path shares; "from cache" is the share with at least one step served from a cache."""
    head = "| arm | from cache | " + " | ".join(paths) + " | errors |\n"
    head += "|---|" + "---:|" * (len(paths) + 2) + "\n"
    rows = []
    for arm, m in summary.items():
        cells = [_pm(m["paths"][p], ".1f", 100) + "%" if p in m["paths"] else "–" for p in paths]
        share = m["hits_total"] / m["requests"] if m["requests"] else 0.0
        rows.append(
            f"| {arm} | {share * 100:.1f}% | " + " | ".join(cells)
            + f" | {_pm(m['errors'], '.0f')} |"
        )
    return head + "\n".join(rows) + "\n"


def split_table(summary: dict[str, Any]) -> str:
    head = (
        "| arm | hits | embed ms | retrieve ms | verify ms | generate ms |\n"
        "|---|---:|---:|---:|---:|---:|\n"
    )
    rows = []
    for arm, m in summary.items():
        s = m["hit_split_ms"]
        if not m["hits_total"]:
            rows.append(f"| {arm} | 0 | – | – | – | – |")
            continue
        rows.append(
            f"| {arm} | {m['hits_total']} | {_pm(s['embed'], '.2f')} | {_pm(s['retrieve'], '.2f')} "
            f"| {_pm(s['verify'], '.2f')} | {_pm(s['generate'], '.1f')} |"
        )
    return head + "\n".join(rows) + "\n"


def targets_table(summary: dict[str, Any], arm: str = "stepcache") -> str:
    if arm not in summary:
        return ""
    m = summary[arm]
    rows = ["| target | bound | measured | met | paper |", "|---|---:|---:|:-:|---:|"]
    for label, metric, kind, bound in TARGETS:
        stat = m.get("vs_nocache", {}).get(metric) if kind == "ratio" else m.get(metric)
        if stat is None:
            continue
        value = stat["mean"]
        met = "yes" if value <= bound else "no"
        paper = f"{PAPER[metric]:.2f}×" if kind == "ratio" and metric in PAPER else ""
        shown = f"{value:.3f}×" if kind == "ratio" else f"{value:.3f}"
        rows.append(f"| {label} | ≤ {bound:g} | {shown} | {met} | {paper} |")
    correct = m["correctness"]["mean"]
    rows.append(
        f"| correctness | 100% | {correct * 100:.1f}% | {'yes' if correct == 1 else 'no'} | 100% |"
    )
    return "\n".join(rows) + "\n"


def render_markdown(results: dict[str, Any]) -> str:
    cfg = results["config"]
    summary = results["summary"]
    parts = [
        "# stepchat bench\n",
        f"Model `{cfg.get('model', '?')}`, {cfg.get('threads', '?')} threads, "
        f"seeds {cfg['seeds']}, "
        f"{cfg['requests_per_seed']} requests per seed ({cfg.get('workload', 'generated')}). "
        "Values are the mean over seeds, ± the sample standard deviation; × columns are "
        "ratios against the nocache arm of the same seed.\n",
        "## Latency, tokens, correctness\n",
        main_table(summary),
        "## Paths (share of requests)\n",
        paths_table(summary),
        "## Where a hit's time goes (mean per hit)\n",
        split_table(summary),
    ]
    targets = targets_table(summary)
    if targets:
        parts += ["## Targets (stepcache)\n", targets]
    parts.append("![latency CDF](latency.png)\n")
    return "\n".join(parts)


def plot_latency_cdf(records: Sequence[Record], path: Path) -> None:
    """Empirical latency CDF per arm, all seeds pooled, log-scaled time axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    arms: dict[str, list[float]] = {}
    for r in records:
        arms.setdefault(r.arm, []).append(max(r.latency_s, 1e-5))
    for arm, values in arms.items():
        ordered = sorted(values)
        ys = [0.0] + [(i + 1) / len(ordered) for i in range(len(ordered))]
        ax.step([ordered[0], *ordered], ys, where="post", label=arm)
    ax.set_xscale("log")
    ax.set_xlabel("latency per request (s, log scale)")
    ax.set_ylabel("share of requests")
    ax.set_ylim(0, 1.01)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title("stepchat bench: latency CDF per arm")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_outputs(out: Path, results: dict[str, Any], records: Sequence[Record]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(_clean(results), indent=2) + "\n")
    (out / "report.md").write_text(render_markdown(results))
    plot_latency_cdf(records, out / "latency.png")


def _clean(value: Any) -> Any:
    """NaN (no data, e.g. no hits) becomes null so results.json stays strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value
