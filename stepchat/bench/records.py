"""Records of the bench workload, shared by the generators, the loader and the runner."""

from __future__ import annotations

from dataclasses import dataclass
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
