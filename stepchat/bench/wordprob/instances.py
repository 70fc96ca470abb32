"""Solved instances read from a file, grouped by problem: a workload nobody tuned the rules on.

The GSM-Symbolic release (github.com/apple/ml-gsm-symbolic, `generated_data/GSM_p1.jsonl`,
`GSM_p2.jsonl`, `GSM_symbolic.jsonl`; CC BY-NC-ND, read where it lies, never copied) holds,
per template, fifty instances with their question and a GSM8K-style answer ending in
`#### number`. The P1 and P2 sets add one or two clauses to each problem, so their wording
and solutions are not the package templates' the rules were built against. Per template,
instance 0 is the first request (the reference stand-in replies with the set's own answer)
and the next ones are its variants. They vary everything the template varies (names,
objects, numbers), so they are the `everything` kind; there is no trap.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from stepchat.bench.wordprob.checker import final_number
from stepchat.bench.wordprob.variants import WordRequest


class InstancesError(ValueError):
    """A file this reader cannot take as solved instances; the text says where."""


def read_instances(
    path: Path, language: str, per_template: int, limit: int | None = None
) -> list[WordRequest]:
    """Per template (`id`, in file order of first appearance; the first `limit` of them),
    the instance with the lowest `instance` number as the first request and the next
    `per_template` as variants."""
    groups: dict[str, list[tuple[int, str, str, float]]] = defaultdict(list)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InstancesError(f"{path}: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        template, order, question, solution = _fields(path, number, line)
        answer = final_number(solution.rsplit("####", 1)[1], language) if (
            "####" in solution) else None
        if answer is None:
            raise InstancesError(f"{path}:{number}: the answer ends in no `#### number`")
        groups[template].append((order, question, solution, answer))
    if not groups:
        raise InstancesError(f"{path}: no instances")
    requests: list[WordRequest] = []
    for template, items in list(groups.items())[:limit]:
        items.sort(key=lambda item: item[0])
        for position, (_, question, solution, answer) in enumerate(items[: per_template + 1]):
            kind = "first" if position == 0 else "everything"
            ident = f"{language}-{template}-{kind}" + ("" if position == 0 else f"-{position - 1}")
            requests.append(WordRequest(ident, language, template, kind, question, solution,
                                        answer, max(position - 1, 0)))
    return requests


def _fields(path: Path, number: int, line: str) -> tuple[str, int, str, str]:
    try:
        row: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InstancesError(f"{path}:{number}: not JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise InstancesError(f"{path}:{number}: not a JSON object")
    template, order = row.get("id"), row.get("instance", 0)
    question, solution = row.get("question"), row.get("answer")
    if not isinstance(template, int | str) or not isinstance(order, int) or not isinstance(
        question, str
    ) or not isinstance(solution, str):
        raise InstancesError(f"{path}:{number}: needs `id`, `instance`, `question` and "
                             "`answer`")
    return (f"{template:04d}" if isinstance(template, int) else template), order, question, (
        solution)
