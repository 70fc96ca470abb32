"""Arithmetic word problems: the model writes the solution, the cache recomputes it.

A request is a word problem when it states numbers in prose and asks a question
(`request.is_word_problem`); its answer is one step per line, a chain of arithmetic ending
in one number. A fresh answer's arithmetic is checked exactly and every slip is corrected
and carried through (`recompute` with unchanged values) before it is stored; an answer
with a computation this reader cannot check is served but not stored. A request that is a
cached one with only slot values changed is answered from the cached solution with every
computation redone: those steps are `recomputed`, never `reused` (the reasoning is the
cached answer's, the arithmetic is new) and the answer is never called verified.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import Generation, ModelRequest, Task
from stepchat.core.tasks.wordprob.atoms import atoms, decimal_mark
from stepchat.core.tasks.wordprob.recompute import Declined, Outcome, Slot, recompute
from stepchat.core.tasks.wordprob.request import (
    Alignment,
    NotSame,
    align,
    is_word_problem,
    signature,
)
from stepchat.core.tasks.wordprob.solution import Unreadable, evaluate, holds, statements
from stepchat.core.types import AnswerStep, Step, StepCheck, StepOrigin, StepStatus, TaskKind

_SYSTEM = (
    "Solve the word problem step by step. Write one step per line and every computation "
    "as `expression = result` with the numbers written in digits. End with a line that "
    "gives only the final answer as a number."
)


@dataclass(frozen=True)
class WordProblemConstraints:
    """The request as written: the rule compares it atom by atom with a new one."""

    request: str

    def to_json(self) -> dict[str, Any]:
        return {"request": self.request}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WordProblemConstraints:
        return cls(str(data.get("request", "")))


WordProblemTask = Task[WordProblemConstraints]


class WordProblemHandler:
    """Word problems: fresh answers corrected, variants recomputed from the cache."""

    kind: str = TaskKind.WORD_PROBLEM
    self_contained = False
    """A follow-up ("and with 5 apples?") leans on earlier turns: never cached."""

    def __init__(self, *, min_similarity: float = 0.55) -> None:
        self.similarity_floor = self.candidate_floor = min_similarity
        self._declined: dict[str, str] = {}
        """Why the last substitution for a prompt declined, for the note `patch` writes."""
        self._recomputed: dict[str, list[str]] = {}
        """The steps the last substitution wrote for a prompt: they hold for it as written
        (the pipeline verifies them again, against the same cached request)."""

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> WordProblemHandler:
        return cls(min_similarity=settings.min_similarity)

    # ------------------------------------------------------------------ request

    def detect(self, prompt: str) -> WordProblemTask | None:
        if not is_word_problem(prompt):
            return None
        return Task(self.kind, prompt, signature(prompt), WordProblemConstraints(prompt))

    def read_constraints(self, stored: dict[str, Any]) -> WordProblemConstraints:
        return WordProblemConstraints.from_json(stored)

    def skip_reason(self, task: WordProblemTask, cached: WordProblemConstraints) -> str | None:
        try:
            align(cached.request, task.prompt)
        except NotSame as exc:
            return str(exc)
        return None

    def distance(self, task: WordProblemTask, cached: WordProblemConstraints) -> int:
        try:
            return align(cached.request, task.prompt).changes
        except NotSame:
            return 1_000_000

    # ------------------------------------------------------------------ steps

    def segment(self, text: str) -> list[Step]:
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        return [Step(line, "final" if i == len(lines) - 1 else "line")
                for i, line in enumerate(lines)]

    def stitch(self, steps: Sequence[Step]) -> str:
        return "\n".join(s.text for s in steps)

    # ------------------------------------------------------------------ checks

    def recomputed(
        self, task: WordProblemTask, cached: WordProblemConstraints, steps: Sequence[Step]
    ) -> Outcome:
        """The cached steps recomputed for `task`, or Declined / NotSame with the reason."""
        texts = [s.text for s in steps]
        alignment = align(cached.request, task.prompt, *texts)
        return _recompute(texts, alignment)

    def verify(
        self, task: WordProblemTask, steps: Sequence[Step],
        cached: WordProblemConstraints | None = None,
    ) -> list[bool]:
        """A step holds as it is when recomputing leaves its text unchanged."""
        if cached is None:
            return [False] * len(steps)
        if self._recomputed.pop(task.prompt, None) == [s.text for s in steps]:
            return [True] * len(steps)
        try:
            outcome = self.recomputed(task, cached, steps)
        except (Declined, NotSame) as exc:
            self._declined[task.prompt] = str(exc)
            return [False] * len(steps)
        return [new == old.text for new, old in zip(outcome.texts, steps, strict=True)]

    def substitute(
        self, task: WordProblemTask, cached: WordProblemConstraints, steps: Sequence[Step]
    ) -> list[Step] | None:
        try:
            outcome = self.recomputed(task, cached, steps)
        except (Declined, NotSame) as exc:
            self._declined[task.prompt] = str(exc)
            return None
        self._declined.pop(task.prompt, None)
        self._recomputed = {task.prompt: outcome.texts}
        return [
            Step(text, old.kind, old.key, old.origin, old.tokens)
            for text, old in zip(outcome.texts, steps, strict=True)
        ]

    def integrity(self, task: WordProblemTask, text: str) -> bool | None:
        """False when a computation does not hold, cannot be read, or no number ends the
        answer; otherwise None: the arithmetic holds, but nobody checked the reasoning."""
        return None if answer_holds(text) else False

    def annotate(self, task: WordProblemTask, steps: Sequence[AnswerStep]) -> list[AnswerStep]:
        """Steps rewritten from a cached solution are recomputed, whatever wrote them."""
        return [
            AnswerStep(s.text, s.kind, StepStatus.RECOMPUTED, s.key, s.origin, StepCheck.RECOMPUTED,
                       s.tokens)
            if s.status == StepStatus.PATCHED else s
            for s in steps
        ]

    # ------------------------------------------------------------------ the model

    def model_request(self, task: WordProblemTask) -> ModelRequest:
        return ModelRequest(task.prompt, _SYSTEM)

    def generate(self, task: WordProblemTask, gen: Generation) -> list[AnswerStep]:
        """The model's solution, with every arithmetic slip corrected and carried through."""
        reply = gen.send(self.model_request(task), StepStatus.REGENERATED)
        steps = self.segment(reply.text) or [Step(reply.text.strip(), "final")]
        fresh = [AnswerStep(s.text, s.kind, StepStatus.REGENERATED) for s in steps]
        texts = [s.text for s in steps]
        try:
            alignment = align(task.prompt, task.prompt, *texts)
            outcome = _recompute(texts, alignment)
        except (Declined, NotSame):
            return fresh
        if not outcome.corrections:
            return fresh
        gen.notes.append(
            f"{outcome.corrections} computation(s) of the model corrected by exact arithmetic"
        )
        return [
            step if text == step.text else AnswerStep(text, step.kind, StepStatus.FALLBACK,
                                                      origin=StepOrigin.SOLVER,
                                                      check=StepCheck.CORRECTED)
            for step, text in zip(fresh, outcome.texts, strict=True)
        ]

    def patch(
        self, task: WordProblemTask, steps: Sequence[AnswerStep], passed: Sequence[bool],
        gen: Generation,
    ) -> list[AnswerStep]:
        """A cached solution that cannot be recomputed is not served: the model answers."""
        why = self._declined.pop(task.prompt, None)
        if why:
            gen.notes.append(f"not recomputed from the cache: {why}")
        return self.generate(task, gen)


def _recompute(texts: list[str], alignment: Alignment) -> Outcome:
    return recompute(
        texts, alignment.slots, alignment.mark, renames=alignment.renames,
        currency=alignment.currency, names=alignment.names,
    )


def identity_slots(prompt: str, mark: str) -> list[Slot]:
    return [Slot(a, a) for a in atoms(prompt, mark) if a.kind == "num"]


def answer_holds(text: str) -> bool:
    """Every computation written holds exactly and a number ends the answer."""
    mark = decimal_mark(text) or "."
    found = atoms(text, mark)
    if not any(a.kind == "num" for a in found):
        return False
    reading = statements(found)
    if not reading.checkable:
        return False
    return all(_statement_holds(statement, found) for statement in reading.statements)


def _statement_holds(statement: Any, found: Sequence[Any]) -> bool:
    for scaled in (False, True):
        values = {
            a: (found[a].value / 100 if scaled and found[a].percent else found[a].value)
            for part in statement.parts for a in part.numbers
        }
        try:
            sides = [evaluate(part.expr, values) for part in statement.parts]
        except (ZeroDivisionError, Unreadable):
            return False
        if all(holds(x, link, y) for x, link, y in zip(
            sides, statement.links, sides[1:], strict=False
        )):
            return True
    return False
