"""`stepchat bench --json-phrasings FILE`: JSON requests as people write them, end to end.

Each line of FILE is a request whose stated values were written down by hand (see
data/json_phrasings.jsonl): `{"id", "shape", "prompt", "keys", "types", "stated",
"variant": {"prompt", "stated"}}`, or `{"id", "shape", "prompt", "json": false}` for a
prompt that only mentions JSON. Two things are measured:

- the reader: is it a JSON request, are the keys and types read, and how many stated values
  are found (recall) and how many found values are right (precision);
- the reader again, on every request with a distractor put in it (a relative's age, a
  denied place, a number in another format, ...; see `json_distractors`): precision, which
  must be 1.000, and recall per class of distractor;
- the served answers, on the real model and a real cache: every request on a fresh cache,
  then its variant on the same cache. A member is judged against the hand-written value;
  what the engine *claims* about it (stated / open / typed / unchecked) is judged too.
  The number that must stay 0 is wrong members the engine claims are checked.

Judging uses `json` and the bench checker's value comparison, never the engine's own code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO

from stepchat.bench.checker import same_value
from stepchat.bench.progress import ProgressBar
from stepchat.bench.records import json_lines
from stepchat.core.types import UNVOUCHED, StepCheck

CLAIMED = (StepCheck.STATED, StepCheck.OPEN)
"""Marks under which the engine vouches for a member."""


class PhrasingError(ValueError):
    """A phrasing file is not in the format above; the message names the line."""


@dataclass(frozen=True)
class Phrasing:
    id: str
    shape: str
    prompt: str
    is_json: bool = True
    keys: tuple[str, ...] = ()
    types: dict[str, str] = field(default_factory=dict)
    stated: dict[str, Any] = field(default_factory=dict)
    variant: tuple[str, dict[str, Any]] | None = None

    def requests(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(which, prompt, stated values) for the request and its variant."""
        out = [("base", self.prompt, self.stated)]
        if self.variant is not None:
            out.append(("variant", *self.variant))
        return out


def _case(data: Any, where: str) -> Phrasing:
    if not isinstance(data, dict) or not isinstance(data.get("prompt"), str):
        raise PhrasingError(f"{where}: expected an object with a string 'prompt'")
    if data.get("json") is False:
        return Phrasing(str(data.get("id", where)), str(data.get("shape", "")), data["prompt"],
                        is_json=False)
    keys, stated = data.get("keys"), data.get("stated", {})
    if not isinstance(keys, list) or not isinstance(stated, dict):
        raise PhrasingError(f"{where}: 'keys' must be a list and 'stated' an object")
    variant = data.get("variant")
    pair = None
    if variant is not None:
        if not isinstance(variant, dict) or not isinstance(variant.get("prompt"), str):
            raise PhrasingError(f"{where}: 'variant' needs a string 'prompt'")
        pair = (variant["prompt"], dict(variant.get("stated", {})))
    return Phrasing(str(data.get("id", where)), str(data.get("shape", "")), data["prompt"],
                    True, tuple(keys), dict(data.get("types", {})), dict(stated), pair)


def load(path: Path) -> list[Phrasing]:
    try:
        cases = [_case(data, f"{path}:{n}") for n, data in json_lines(path, "phrasings")]
    except ValueError as exc:
        raise PhrasingError(str(exc)) from None
    if not cases:
        raise PhrasingError(f"{path}: no phrasings")
    return cases


# ---------------------------------------------------------------------- the reader


@dataclass
class ReaderTally:
    """What `read_spec` makes of every prompt of a set (request and variant)."""

    prompts: int = 0
    recognised: int = 0  # JSON request or not, as the file says
    keyed: int = 0
    keys_right: int = 0  # exactly the keys, in order
    types_stated: int = 0
    types_right: int = 0
    stated: int = 0  # values the file says the prompts state
    found: int = 0  # values the reader placed on a key
    found_right: int = 0

    @property
    def recall(self) -> float:
        return self.found_right / self.stated if self.stated else 1.0

    @property
    def precision(self) -> float:
        return self.found_right / self.found if self.found else 1.0


def _type_right(expected: str, got: str | None) -> bool:
    """A number type where the prompt only showed a whole number is right too."""
    return got == expected or (expected == "integer" and got == "number")


def score_reader(cases: list[Phrasing]) -> ReaderTally:
    from stepchat.core.tasks.json_spec import read_spec

    tally = ReaderTally()
    for case in cases:
        for which, prompt, stated in (case.requests() if case.is_json else
                                      [("base", case.prompt, {})]):
            spec = read_spec(prompt)
            tally.prompts += 1
            tally.recognised += (spec is not None) == case.is_json
            if not case.is_json or spec is None:
                tally.stated += len(stated)
                continue
            tally.keyed += 1
            tally.keys_right += list(spec.keys) == list(case.keys)
            if which == "base":
                for key, expected in case.types.items():
                    tally.types_stated += 1
                    tally.types_right += _type_right(expected, spec.types.get(key))
            tally.stated += len(stated)
            tally.found += len(spec.entities)
            tally.found_right += sum(
                1 for k, v in spec.entities.items() if k in stated and same_value(stated[k], v)
            )
    return tally


def distractor_table(cases: list[Phrasing]) -> str:
    """Precision and recall per class of distractor put in these requests (Markdown)."""
    from stepchat.bench.json_distractors import distract, score, table

    return table(score(list(distract(cases))))


# ---------------------------------------------------------------------- served answers


@dataclass
class ServedTally:
    """Served answers judged member by member against the file's stated values."""

    requests: int = 0
    errors: int = 0
    one_object: int = 0  # exactly one JSON object with exactly the asked keys
    members: int = 0  # members whose value the prompt states
    right: int = 0
    wrong: int = 0
    wrong_claimed: int = 0  # wrong, yet marked stated or open
    false_stated: int = 0  # marked stated where the prompt states no value
    marked_unchecked: int = 0
    verified: int = 0
    verified_wrong: int = 0  # called verified with a wrong member

    def add(self, other: ServedTally) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


def judge(record: dict[str, Any], keys: tuple[str, ...], stated: dict[str, Any]) -> ServedTally:
    """One served answer (an `ask --json` record) against the hand-written values."""
    out = ServedTally(requests=1)
    try:
        obj = json.loads(str(record.get("answer", "")).strip())
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict) and (not keys or set(obj) == set(keys)):
        out.one_object = 1
    obj = obj if isinstance(obj, dict) else {}
    marks = {s.get("key"): s.get("check") for s in record.get("steps", [])}
    bad = False
    for key, expected in stated.items():
        out.members += 1
        if key in obj and same_value(expected, obj[key]):
            out.right += 1
            continue
        out.wrong += 1
        bad = True
        out.wrong_claimed += marks.get(key) in CLAIMED
    for key, mark in marks.items():
        if mark == StepCheck.STATED and key not in stated:
            out.false_stated += 1
            bad = True
        out.marked_unchecked += mark in UNVOUCHED
    if record.get("verified") is True:
        out.verified = 1
        out.verified_wrong = int(bad)
    return out


def serve_all(
    cases: list[Phrasing],
    new_cache: Callable[[], Any],
    *,
    on_record: Callable[[dict[str, Any]], None] = lambda r: None,
    progress: ProgressBar | None = None,
) -> ServedTally:
    """Every JSON request on a fresh cache, then its variant on that same cache."""
    total = ServedTally()
    for case in (c for c in cases if c.is_json):
        cache = new_cache()
        for which, prompt, stated in case.requests():
            try:
                record = cache.answer(prompt).to_record()
            except Exception as exc:  # a failing request is a result, not the end of the run
                record = {"error": f"{type(exc).__name__}: {exc}"}
                total.add(ServedTally(requests=1, errors=1))
            else:
                tally = judge(record, case.keys, stated)
                total.add(tally)
                record = {
                    "answer": record["answer"], "path": record["path"],
                    "verified": record["verified"],
                    "checks": {s["key"]: s["check"] for s in record["steps"]},
                    "wrong": tally.wrong,
                    "wrong_claimed": tally.wrong_claimed + tally.false_stated,
                }
            on_record({"id": case.id, "shape": case.shape, "which": which, "prompt": prompt,
                       "expected": stated, **record})
            if progress is not None:
                progress.advance(case.id)
    return total


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def tables(name: str, reader: ReaderTally, served: ServedTally | None,
           distracted: str | None = None) -> str:
    """The reader's table, the distractors' table and, when run, the served answers' table
    (Markdown)."""
    lines = [
        "| set | prompts | JSON request recognised | keys read | types read "
        "| stated values | recall | precision |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        f"| {name} | {reader.prompts} | {_pct(reader.recognised, reader.prompts)} "
        f"| {_pct(reader.keys_right, reader.keyed)} "
        f"| {_pct(reader.types_right, reader.types_stated)} | {reader.stated} "
        f"| {reader.recall:.3f} ({reader.found_right}/{reader.stated}) "
        f"| {reader.precision:.3f} ({reader.found_right}/{reader.found}) |",
    ]
    if distracted is not None:
        lines += ["", f"The same requests of {name}, each with a distractor put in it:", "",
                  distracted.rstrip("\n")]
    if served is not None:
        claimed = served.wrong_claimed + served.false_stated
        lines += [
            "",
            "| set | requests | one JSON object | stated members | served right "
            "| wrong, marked unchecked | **wrong stated members served** | verified "
            "| verified with a wrong member | errors |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {name} | {served.requests} | {_pct(served.one_object, served.requests)} "
            f"| {served.members} | {_pct(served.right, served.members)} "
            f"| {served.wrong - served.wrong_claimed} | **{claimed}** "
            f"| {_pct(served.verified, served.requests)} | {served.verified_wrong} "
            f"| {served.errors} |",
        ]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    """The `--json-phrasings` handler: load the real parts once, a fresh store per request."""
    from stepchat.bench.stores import temp_stores
    from stepchat.config import load_config
    from stepchat.core.pipeline import StepCache
    from stepchat.quiet import quiet_environment
    from stepchat.runtime import load_model_and_embedder

    try:
        cases = load(args.json_phrasings)
    except PhrasingError as exc:
        print(f"stepchat bench: {exc}", file=sys.stderr)
        return 2
    if args.quick:
        cases = cases[:24]
    reader = score_reader(cases)
    distracted = distractor_table(cases)
    quiet_environment()
    config = load_config()
    print("stepchat bench: loading the model and the embedder", file=sys.stderr)
    backend, embedder = load_model_and_embedder(config, args.model)
    args.out.mkdir(parents=True, exist_ok=True)
    log_path = args.out / "phrasings.jsonl"
    with temp_stores("stepchat-phrasings-", embedder.dim) as stores, \
            log_path.open("w", encoding="utf-8") as log:

        def new_cache() -> StepCache:
            return StepCache(backend, embedder, stores.new(), settings=config.pipeline)

        def keep(record: dict[str, Any]) -> None:
            log.write(json.dumps(record, ensure_ascii=False) + "\n")
            log.flush()

        total = sum(len(c.requests()) for c in cases if c.is_json)
        served = serve_all(cases, new_cache, on_record=keep, progress=ProgressBar(total))
    table = tables(args.json_phrasings.name, reader, served, distracted)
    (args.out / "phrasings.md").write_text("# stepchat bench --json-phrasings\n\n" + table)
    (stdout or sys.stdout).write(table)
    print(f"stepchat bench: wrote {args.out}/phrasings.md and phrasings.jsonl", file=sys.stderr)
    return 0
