"""`stepchat bench --pairs FILE`: how often the cache serves B's answer from A's, by label.

For each labelled pair the engine starts with an empty cache, answers A (stored), then B.
B counts as served from the cache when its answer is a hit. A false hit is a pair whose
requests need different answers and B was served; a true hit, a pair with one answer and B
was served. The engine runs with the app's settings and the real embedder; the model is a
scripted one that restates the request, because the decision, not the model, is measured.

Beside the engine, the same pairs are scored by each setting of the text gate (what each
forgiveness buys) and by a plain whole-response semantic cache at several cosine thresholds
on the same vectors (what the paper's baseline would serve).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stepchat.backends.scripted import ScriptedBackend
from stepchat.bench.pairs_data import Pair
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import Embedder
from stepchat.core.settings import PipelineSettings
from stepchat.core.textgate.gate import compare
from stepchat.core.textgate.normalize import GateOptions
from stepchat.core.types import ChatMessage
from stepchat.store.memory import MemoryStore

COSINE_THRESHOLDS = (0.8, 0.85, 0.9, 0.95)
SHIPPED = "gate: + contractions (shipped)"
GATE_SETTINGS: dict[str, GateOptions] = {
    "gate: text as written": GateOptions(
        case=False, punctuation=False, courtesy=False, contractions=False
    ),
    "gate: + case": GateOptions(punctuation=False, courtesy=False, contractions=False),
    "gate: + sentence punctuation": GateOptions(courtesy=False, contractions=False),
    "gate: + courtesy at either end": GateOptions(contractions=False),
    SHIPPED: GateOptions(),
}
"""Each setting forgives one more entry of the closed list (`textgate.forgiven`) than the
one above it; canonical Unicode equivalence and the amount of whitespace always."""
ENGINE = "stepcache"


def restate(messages: Sequence[ChatMessage]) -> str:
    """The scripted model's answer: the request restated, so every answer is distinct."""
    return f"An answer to: {messages[-1].content}"


@dataclass
class Tally:
    """Pairs seen and pairs served, per decision maker."""

    pairs: int = 0
    served: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def run_pairs(
    pairs: Sequence[Pair],
    embedder: Embedder,
    settings: PipelineSettings,
    *,
    on_pair: Callable[[], None] | None = None,
) -> dict[tuple[str, bool], Tally]:
    """(category, same) -> how many pairs each decision maker served from the cache."""
    tallies: dict[tuple[str, bool], Tally] = defaultdict(Tally)
    vectors: dict[str, list[float]] = {}

    def vector(text: str) -> list[float]:
        if text not in vectors:
            vectors[text] = embedder.embed(text)
        return vectors[text]

    for pair in pairs:
        tally = tallies[(pair.category, pair.same)]
        tally.pairs += 1
        engine = StepCache(
            ScriptedBackend([restate], model_id="restate"), embedder, MemoryStore(),
            settings=settings,
        )
        engine.answer(pair.a)
        if engine.answer(pair.b).hit:
            tally.served[ENGINE] += 1
        for name, options in GATE_SETTINGS.items():
            if compare(pair.a, pair.b, options).same:
                tally.served[name] += 1
        similarity = _cosine(vector(pair.a), vector(pair.b))
        for threshold in COSINE_THRESHOLDS:
            if similarity >= threshold:
                tally.served[f"cosine ≥ {threshold:g}"] += 1
        if on_pair is not None:
            on_pair()
    return dict(tallies)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = (sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5)
    return dot / norm if norm else 0.0


def deciders() -> list[str]:
    return [ENGINE, *GATE_SETTINGS, *(f"cosine ≥ {t:g}" for t in COSINE_THRESHOLDS)]


def category_table(tallies: dict[tuple[str, bool], Tally], columns: Sequence[str]) -> str:
    """Per category and label: the share of pairs each decision maker served from the cache."""
    head = "| category | label | pairs | " + " | ".join(columns) + " |\n"
    head += "|---|---|---:|" + "---:|" * len(columns) + "\n"
    rows = []
    for (category, same), tally in sorted(tallies.items(), key=lambda kv: (not kv[0][1], kv[0])):
        label = "same: true hits" if same else "different: false hits"
        cells = [_share(tally.served.get(c, 0), tally.pairs) for c in columns]
        rows.append(f"| {category} | {label} | {tally.pairs} | " + " | ".join(cells) + " |")
    return head + "\n".join(rows) + "\n"


def tradeoff_table(tallies: dict[tuple[str, bool], Tally]) -> str:
    """Per decision maker: false hits overall and in the worst category, true hits."""
    head = (
        "| decision | false hits | worst category | near-repeat true hits "
        "| paraphrase true hits | all true hits |\n|---|---:|---:|---:|---:|---:|\n"
    )
    rows = []
    for name in deciders():
        rows.append(
            f"| {name} | {_rate(tallies, name, same=False)} | {_worst(tallies, name)} "
            f"| {_rate(tallies, name, same=True, category='near_repeat')} "
            f"| {_rate(tallies, name, same=True, category='paraphrase')} "
            f"| {_rate(tallies, name, same=True)} |"
        )
    return head + "\n".join(rows) + "\n"


def summary(tallies: dict[tuple[str, bool], Tally]) -> dict[str, Any]:
    """The figures a test or a script checks: per category false/true hit rates per decider."""
    out: dict[str, Any] = {}
    for (category, same), tally in tallies.items():
        for name in deciders():
            key = "true_hits" if same else "false_hits"
            served = tally.served.get(name, 0)
            out.setdefault(name, {}).setdefault(key, {})[category] = {
                "pairs": tally.pairs, "served": served, "rate": served / tally.pairs,
            }
    return out


def _share(served: int, pairs: int) -> str:
    return f"{served / pairs * 100:.1f}%" if pairs else "–"


def _rate(
    tallies: dict[tuple[str, bool], Tally], name: str, *, same: bool, category: str | None = None
) -> str:
    chosen = [t for (c, s), t in tallies.items() if s == same and category in (None, c)]
    pairs = sum(t.pairs for t in chosen)
    served = sum(t.served.get(name, 0) for t in chosen)
    return f"{served}/{pairs} ({served / pairs * 100:.1f}%)" if pairs else "–"


def _worst(tallies: dict[tuple[str, bool], Tally], name: str) -> str:
    rates = [
        (t.served.get(name, 0) / t.pairs, c) for (c, s), t in tallies.items() if not s and t.pairs
    ]
    if not rates:
        return "–"
    rate, category = max(rates)
    return f"{rate * 100:.1f}% ({category})"


def report(tallies: dict[tuple[str, bool], Tally], files: Sequence[str]) -> str:
    """The Markdown report: what was run, the trade-off, the per-category table."""
    shipped = [ENGINE, SHIPPED, "cosine ≥ 0.9"]
    return (
        "# stepchat bench --pairs\n\n"
        f"Pairs from: {', '.join(files)}. Each pair: a fresh cache, A answered and stored, "
        "then B. The engine runs with the app's settings and the real embedder; the model is "
        "a scripted one that restates the request (the decision is measured, not the model). "
        "The gate rows score the same pairs with each setting of the text gate; the cosine "
        "rows, a whole-response semantic cache on the same MiniLM vectors.\n\n"
        "## Trade-off\n\n" + tradeoff_table(tallies)
        + "\n## Per category (share of pairs whose B was served from the cache)\n\n"
        + category_table(tallies, shipped)
        + "\n## Every setting, per category\n\n" + category_table(tallies, deciders())
    )

