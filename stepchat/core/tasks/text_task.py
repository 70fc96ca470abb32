"""Generic text: paragraphs and list items as steps, served whole from the cache or not at all."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stepchat.core.events import Delivery
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import Generation, ModelRequest, Task
from stepchat.core.textgate.gate import compare
from stepchat.core.textgate.normalize import GateOptions, reduce_text
from stepchat.core.types import AnswerStep, Step, StepStatus, TaskKind

_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def segment_text(text: str) -> list[Step]:
    """Steps of open text: a fenced code block is one step, blank lines and all, so code
    is shown, copied and exported whole; the prose around it splits into paragraphs and
    list items."""
    steps: list[Step] = []
    for kind, chunk in _fenced_blocks(text.strip()):
        if kind == "code":
            steps.append(Step(chunk, "code"))
        else:
            steps.extend(_prose_steps(chunk))
    return steps


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    """("code", block) for each fenced block, fences included, and ("prose", text) between.

    A fence closes on a line of the same character at least as long (CommonMark); one left
    open (a reply cut at its token limit) runs to the end of the text.
    """
    blocks: list[tuple[str, str]] = []
    prose: list[str] = []
    code: list[str] = []
    fence = ""
    for line in text.splitlines():
        if not fence:
            opening = _FENCE.match(line)
            if opening is None:
                prose.append(line)
                continue
            if prose:
                blocks.append(("prose", "\n".join(prose)))
                prose = []
            fence, code = opening.group(1), [line]
            continue
        code.append(line)
        if _closes(line, fence):
            blocks.append(("code", "\n".join(code)))
            fence, code = "", []
    if fence:
        blocks.append(("code", "\n".join(code)))
    if prose:
        blocks.append(("prose", "\n".join(prose)))
    return blocks


def _closes(line: str, fence: str) -> bool:
    """A closing fence: the opening character only, at least as many (CommonMark)."""
    closing = line.strip()
    return closing.startswith(fence) and set(closing) == {fence[0]}


def fence_after(text: str, fence: str = "") -> str:
    """The fence still open after `text` (given the one open before it), or "".

    Lets a writer that joins steps (the Markdown export) know whether it is inside code,
    where a note of its own would become part of the code."""
    for line in text.splitlines():
        if fence:
            fence = "" if _closes(line, fence) else fence
        elif (opening := _FENCE.match(line)) is not None:
            fence = opening.group(1)
    return fence


def _prose_steps(text: str) -> list[Step]:
    steps: list[Step] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [ln.rstrip() for ln in block.splitlines() if ln.strip()]
        if not lines:
            continue
        if sum(1 for ln in lines if _ITEM.match(ln)) >= 2 or (
            len(lines) == 1 and _ITEM.match(lines[0])
        ):
            items: list[str] = []
            for ln in lines:
                if _ITEM.match(ln) or not items:
                    items.append(ln)
                else:
                    items[-1] += "\n" + ln
            steps.extend(Step(item, "item") for item in items)
        else:
            steps.append(Step("\n".join(lines), "paragraph"))
    return steps


def stitch_text(steps: Sequence[Step]) -> str:
    out = ""
    for i, step in enumerate(steps):
        if i:
            both_items = step.kind == "item" and steps[i - 1].kind == "item"
            out += "\n" if both_items else "\n\n"
        out += step.text
    return out


@dataclass(frozen=True)
class TextConstraints:
    """The request itself, compared word by word with a cached one by the text gate; None
    for an entry cached before requests were compared that way."""

    request: str | None

    def to_json(self) -> dict[str, Any]:
        return {"request": self.request}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TextConstraints:
        request = data.get("request")
        return cls(request if isinstance(request, str) else None)


TextTask = Task[TextConstraints]


class TextHandler:
    """Open text: reused whole, and only when the text gate shows the request is the same.

    A paragraph cannot be checked, and one that does not mention a changed name can still
    depend on it ("Its capital is Paris."), so nothing is substituted or patched: a request
    that differs in a name, number, unit, direction or polarity goes to the model, and the
    skip reason says what changed.
    """

    kind: str = TaskKind.TEXT
    delivery = Delivery(streams=True, markdown=True)
    """Text is reused whole or not at all and nothing rewrites what the model writes, so it
    streams; it is prose with lists and code fences, so it renders as Markdown."""
    candidate_floor = 0.3
    """The gate decides; any of the nearest requests is worth comparing."""

    def __init__(self, gate: GateOptions | None = None, *, min_similarity: float = 0.6) -> None:
        self.gate = gate or GateOptions()
        self.similarity_floor = min_similarity

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> TextHandler:
        return cls(min_similarity=settings.text_min_similarity)

    def detect(self, prompt: str) -> TextTask:
        reduced = reduce_text(prompt, self.gate)
        return Task(self.kind, prompt, f"text|{reduced.key()}", TextConstraints(prompt))

    def read_constraints(self, stored: dict[str, Any]) -> TextConstraints:
        return TextConstraints.from_json(stored)

    def segment(self, text: str) -> list[Step]:
        return segment_text(text)

    def stitch(self, steps: Sequence[Step]) -> str:
        return stitch_text(steps)

    def skip_reason(self, task: TextTask, cached: TextConstraints) -> str | None:
        if cached.request is None:
            return "cached before requests were compared word by word"
        return compare(cached.request, task.prompt, self.gate).reason

    def distance(self, task: TextTask, cached: TextConstraints) -> int:
        """A same-shaped text request is the same request to the gate: nothing to count."""
        return 0

    def verify(
        self, task: TextTask, steps: Sequence[Step], cached: TextConstraints | None = None
    ) -> list[bool]:
        """Reached only for a request the gate found to be the same: every step holds."""
        return [True] * len(steps)

    def integrity(self, task: TextTask, text: str) -> bool | None:
        return None

    def annotate(self, task: TextTask, steps: Sequence[AnswerStep]) -> list[AnswerStep]:
        """A paragraph has no check to report."""
        return list(steps)

    def substitute(
        self, task: TextTask, cached: TextConstraints, steps: Sequence[Step]
    ) -> list[Step] | None:
        """Never: a name swapped into a paragraph is an unchecked claim."""
        return None

    def model_request(self, task: TextTask) -> ModelRequest:
        return ModelRequest(task.prompt)

    def generate(self, task: TextTask, gen: Generation) -> list[AnswerStep]:
        reply = gen.send(self.model_request(task), StepStatus.REGENERATED)
        steps = self.segment(reply.text) or [Step(reply.text.strip(), "paragraph")]
        return [AnswerStep(s.text, s.kind, StepStatus.REGENERATED) for s in steps]

    def patch(
        self, task: TextTask, steps: Sequence[AnswerStep], passed: Sequence[bool], gen: Generation
    ) -> list[AnswerStep]:
        """Every step passes `verify`, so there is never anything to patch."""
        return list(steps)
