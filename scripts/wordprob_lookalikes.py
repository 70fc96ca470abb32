"""Look-alikes and distractors for the multiplier and fraction words, from GSM-Symbolic.

Built from the bench's own requests (first request, then numbers-only variants) of one
language, answered by the reference stand-in through the engine (hashed embedder, memory
store: the rule is what is measured, not the retrieval):
- `plain`: the workload as the bench runs it;
- `swapped`: every variant whose question has a multiplier or fraction word gets another
  word of the table with another value in its place ("twice" -> "thrice", "half" -> "a
  third"); the cached first request keeps the original. A meaning changed: any answer
  served from the cache counts as wrong;
- `distractor`: a sentence with a multiplier or fraction word that changes nothing ("A
  friend visits her twice a week.", "Half of the shelf is empty.") is added before the
  question of the first request and of every variant: the template's answer still holds,
  and a solution's own 2 or 4 may now look stated.

Prints, per set: requests, served from the cache, served and right, precision (right of
served) and recall (served and right of all). Usage:

    python scripts/wordprob_lookalikes.py WHEEL [--language eng] [--seed 42]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from stepchat.bench.wordprob.checker import is_right
from stepchat.bench.wordprob.reference import ReferenceBackend
from stepchat.bench.wordprob.run import find_templates, workload
from stepchat.bench.wordprob.variants import WordRequest
from stepchat.core.pipeline import StepCache
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

SWAPS = {"twice": "thrice", "thrice": "twice", "double": "triple", "triple": "double",
         "half": "third", "third": "quarter", "quarter": "third", "thirds": "quarters",
         "quarters": "thirds", "fifth": "sixth"}
DISTRACTORS = ("A friend visits twice a week.", "Half of the shelf is empty.",
               "A quarter of the day is sunny.", "Her brother is triple her age.")


def swapped(prompt: str) -> str | None:
    words = re.findall(r"[^\W\d_]+", prompt)
    for word in words:
        if word.lower() in SWAPS:
            new = SWAPS[word.lower()]
            new = new.capitalize() if word[0].isupper() else new
            return re.sub(rf"\b{word}\b", new, prompt, count=1)
    return None


def with_distractor(prompt: str, index: int) -> str:
    sentences = re.split(r"(?<=[.!?])\s+", prompt.strip())
    sentences.insert(max(0, len(sentences) - 1), DISTRACTORS[index % len(DISTRACTORS)])
    return " ".join(sentences)


def run(requests: list[WordRequest], meaning_changed: set[str]) -> tuple[int, int, int]:
    # A question whose meaning changed has no reference solution (as a trap): the
    # stand-in's reply to it has no number, and nothing is stored for it.
    solutions = {r.prompt: r.solution for r in requests if r.prompt not in meaning_changed}
    engine = StepCache(ReferenceBackend(solutions), HashedEmbedder(), MemoryStore())
    served = right = 0
    for r in requests:
        answer = engine.answer(r.prompt)
        if r.kind == "first" or not answer.hit:
            continue
        served += 1
        if r.prompt not in meaning_changed and r.answer is not None and is_right(
            answer.text, r.answer, r.language
        ):
            right += 1
    return sum(r.kind != "first" for r in requests), served, right


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("templates", type=Path)
    parser.add_argument("--language", default="eng")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    base = [r for r in workload(find_templates(args.templates), args.language, seed=args.seed,
                                per_kind=5, limit=None) if r.kind in ("first", "numbers")]
    swaps: list[WordRequest] = []
    changed: set[str] = set()
    for r in base:
        other = swapped(r.prompt) if r.kind == "numbers" else None
        if r.kind == "first" or other is not None:
            swaps.append(r if other is None else WordRequest(
                r.id, r.language, r.template, r.kind, other, r.solution, None))
            if other is not None:
                changed.add(other)
    index = {t: i for i, t in enumerate(sorted({r.template for r in base}))}
    distracted = [WordRequest(r.id, r.language, r.template, r.kind,
                              with_distractor(r.prompt, index[r.template]), r.solution, r.answer)
                  for r in base]
    for name, requests, meaning in (("plain", base, set()), ("swapped", swaps, changed),
                                    ("distractor", distracted, set())):
        total, served, right = run(requests, meaning)
        precision = right / served if served else 1.0
        print(f"{name}: {total} variants, {served} served, {right} served and right, "
              f"precision {precision:.3f}, recall {right / total if total else 0:.3f}")


if __name__ == "__main__":
    main()
