"""Records of the bench workload, shared by the generators, the loader and the runner."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ARM_NAMES = ("nocache", "exact", "gptcache", "solver", "stepcache-paper", "stepcache")
"""The bench arms (see `stepchat.bench.arms`), named here so the command line can list them
without importing the engine."""


@dataclass(frozen=True)
class Request:
    """One line of a workload: what to ask, and how the checker judges the answer."""

    id: str
    prompt: str
    check: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "prompt": self.prompt, "check": self.check}


@dataclass(frozen=True)
class Family:
    """A base request and its variants; the base must arrive before any variant."""

    base: Request
    variants: list[Request]


def json_lines(path: Path, what: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for each non-blank line of a JSONL file; ValueError names
    the file, and the line, of the first thing that cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read {what} ({exc})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
