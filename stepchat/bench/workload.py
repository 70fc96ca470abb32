"""The bench workload: requests in arrival order, in the shared JSONL format.

A request is `{"id", "prompt", "check"}`; the cache under test only ever sees the prompt,
the checker only the check. The generator here builds the StepCache paper's shape of
workload (base prompts, each followed later by variants of five perturbation kinds) and
interleaves the bases the way several users' traffic would arrive, so a variant is often
served long after its base and after other bases' requests.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from stepchat.bench.checker import problem_text
from stepchat.bench.json_gen import json_families
from stepchat.bench.linear_gen import linear_families
from stepchat.bench.records import Family, Request

BASES_PER_TASK = 10
"""Base prompts per task kind, as in the paper."""
VARIANTS_PER_PERTURBATION = 3
"""k: variants of each perturbation kind per base, as in the paper."""
PERTURBATIONS = 5
"""Five perturbation kinds per task (see linear_gen and json_gen)."""


class WorkloadError(ValueError):
    """A workload file is not in the shared format; the message names the line."""


def requests_per_seed(bases: int = BASES_PER_TASK, k: int = VARIANTS_PER_PERTURBATION) -> int:
    """How many requests one seed's workload has: two tasks, each base plus its variants."""
    return 2 * bases * (1 + PERTURBATIONS * k)


def interleave(families: Sequence[Family], rng: random.Random) -> list[Request]:
    """Merge the families into one stream: bases first within their family, order mixed.

    Each family is a queue (its base, then its variants shuffled); the next request comes
    from a queue picked at random with weight equal to what it has left, so long queues
    spread over the whole stream the way concurrent conversations do.
    """
    queues: list[list[Request]] = []
    for family in families:
        rest = list(family.variants)
        rng.shuffle(rest)
        queues.append([family.base, *rest])
    stream: list[Request] = []
    while queues:
        weights = [len(q) for q in queues]
        (pick,) = rng.choices(range(len(queues)), weights=weights)
        stream.append(queues[pick].pop(0))
        if not queues[pick]:
            queues.pop(pick)
    return stream


def generate(
    seed: int, *, bases: int = BASES_PER_TASK, k: int = VARIANTS_PER_PERTURBATION
) -> list[Request]:
    """The seeded workload: `bases` linear and `bases` JSON families, k variants each kind."""
    rng = random.Random(seed)
    families = linear_families(rng, bases, k) + json_families(rng, bases, k)
    return interleave(families, rng)


def quick_subset(requests: Sequence[Request], bases: int = 2, k: int = 1) -> list[Request]:
    """A small slice of a generated workload, keeping arrival order.

    Keeps the first `bases` families of each task and the first `k` variants of each
    perturbation kind (ids are `<family>-<kind>-<n>`). Falls back to the first 24 requests
    for files whose ids do not follow that pattern.
    """
    by_task: dict[str, list[str]] = {}
    for req in requests:
        family, _, rest = req.id.partition("-")
        if rest == "base":
            by_task.setdefault(str(req.check.get("kind")), []).append(family)
    keep = {f for fams in by_task.values() for f in fams[:bases]}
    out: list[Request] = []
    for req in requests:
        parts = req.id.split("-")
        if parts[0] not in keep:
            continue
        if parts[1:] == ["base"] or (len(parts) == 3 and parts[2].isdigit() and int(parts[2]) <= k):
            out.append(req)
    return out or list(requests[:24])


def dump(requests: Iterable[Request], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for req in requests:
            fh.write(json.dumps(req.to_json(), ensure_ascii=False) + "\n")


def dumps(requests: Iterable[Request]) -> str:
    return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in requests)


def _parse_line(number: int, line: str) -> Request:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise WorkloadError(f"line {number}: not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise WorkloadError(f"line {number}: expected an object")
    missing = [k for k in ("id", "prompt", "check") if k not in data]
    if missing:
        raise WorkloadError(f"line {number}: missing {', '.join(missing)}")
    check = data["check"]
    if not isinstance(check, dict) or check.get("kind") not in ("linear", "json"):
        raise WorkloadError(f"line {number}: check.kind must be 'linear' or 'json'")
    if check["kind"] == "linear" and not {"variable", "solution"} <= set(check):
        raise WorkloadError(f"line {number}: a linear check needs variable and solution")
    if check["kind"] == "linear" and "equation" not in check and isinstance(data["prompt"], str):
        # the checker judges a derivation from the problem; a line may leave it to the prompt
        equation = problem_text(data["prompt"], str(check["variable"]))
        if equation is not None:
            check = {**check, "equation": equation}
    if check["kind"] == "json" and not isinstance(check.get("schema"), dict):
        raise WorkloadError(f"line {number}: a json check needs a schema object")
    if not isinstance(data["prompt"], str) or not data["prompt"].strip():
        raise WorkloadError(f"line {number}: prompt must be a non-empty string")
    return Request(str(data["id"]), data["prompt"], check)


def load(path: Path) -> list[Request]:
    """Read a workload file; raises WorkloadError naming the first bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read: {exc.strerror}") from None
    requests: list[Request] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        req = _parse_line(number, line)
        if req.id in seen:
            raise WorkloadError(f"line {number}: duplicate id {req.id!r}")
        seen.add(req.id)
        requests.append(req)
    if not requests:
        raise WorkloadError(f"{path}: no requests")
    return requests
