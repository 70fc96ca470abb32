"""Generic text: paragraphs and list items as steps.

Text cannot be checked, so a reused step holds only when it mentions none of the
constants or names that differ between the cached request and the new one; those steps
are substituted when the change is a clean one-to-one swap, else regenerated in place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from stepchat.core.tasks.base import Generation, Task
from stepchat.core.tasks.common import (
    has_negation,
    mask_slots,
    mentions_any,
    replace_tokens,
    slot_mapping,
    slots_in,
)
from stepchat.core.types import AnswerStep, ChatMessage, Step, StepStatus, TaskKind

_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_OPERATION = re.compile(r"^\s*(\w+)")


def segment_text(text: str) -> list[Step]:
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


class TextHandler:
    kind = TaskKind.TEXT

    def detect(self, prompt: str) -> Task:
        op = _OPERATION.match(prompt)
        constraints: dict[str, Any] = {
            "slots": slots_in(prompt),
            "operation": op.group(1).lower() if op else "",
            "negated": has_negation(prompt),
        }
        return Task(TaskKind.TEXT, prompt, f"text|{mask_slots(prompt)}", constraints)

    def segment(self, text: str) -> list[Step]:
        return segment_text(text)

    def stitch(self, steps: Sequence[Step]) -> str:
        return stitch_text(steps)

    def skip_reason(self, task: Task, cached: dict[str, Any]) -> str | None:
        if cached.get("operation") != task.constraints["operation"]:
            before, after = cached.get("operation"), task.constraints["operation"]
            return f"operation changed ({before} -> {after})"
        if bool(cached.get("negated")) != task.constraints["negated"]:
            return "negation changed"
        return None

    def verify(
        self, task: Task, steps: Sequence[Step], cached: dict[str, Any] | None = None
    ) -> list[bool]:
        if cached is None:
            return [True] * len(steps)
        gone = set(cached.get("slots", [])) - set(task.constraints["slots"])
        return [not mentions_any(s.text, gone) for s in steps]

    def integrity(self, task: Task, text: str) -> bool | None:
        return None

    def substitute(
        self, task: Task, cached: dict[str, Any], steps: Sequence[Step]
    ) -> list[Step] | None:
        mapping = slot_mapping(cached.get("slots", []), task.constraints["slots"])
        if not mapping:
            return None
        return [Step(replace_tokens(s.text, mapping), s.kind, s.key) for s in steps]

    def generate(self, task: Task, gen: Generation, *, verify: bool = True) -> list[AnswerStep]:
        messages = [ChatMessage("user", task.prompt)]
        if gen.settings.system_prompt:
            messages.insert(0, ChatMessage("system", gen.settings.system_prompt))
        reply = gen.complete(messages, StepStatus.REGENERATED)
        steps = self.segment(reply.text) or [Step(reply.text.strip(), "paragraph")]
        return [AnswerStep(s.text, s.kind, StepStatus.REGENERATED) for s in steps]

    def patch(
        self, task: Task, steps: Sequence[AnswerStep], passed: Sequence[bool], gen: Generation
    ) -> list[AnswerStep]:
        out: list[AnswerStep] = []
        i = 0
        while i < len(steps):
            if passed[i]:
                out.append(steps[i])
                i += 1
                continue
            j = i
            while j < len(steps) and not passed[j]:
                j += 1
            out.extend(self._rewrite_block(task, out, steps[i:j], gen))
            i = j
        return out

    def _rewrite_block(
        self,
        task: Task,
        before: Sequence[AnswerStep],
        block: Sequence[AnswerStep],
        gen: Generation,
    ) -> list[AnswerStep]:
        context = stitch_text([s.step for s in before]) or "(nothing yet)"
        old = stitch_text([s.step for s in block])
        reply = gen.complete(
            [
                ChatMessage(
                    "user",
                    f"Request: {task.prompt}\n\nAnswer so far:\n{context}\n\n"
                    f"Rewrite the next part so it fits the request:\n{old}\n\n"
                    "Reply with the rewritten part only.",
                )
            ],
            StepStatus.PATCHED,
        )
        fresh = self.segment(reply.text) or [Step(reply.text.strip(), block[0].kind)]
        return [AnswerStep(s.text, s.kind, StepStatus.PATCHED) for s in fresh]
