"""Linear equations in one unknown: one step per line, the last line `x = value`.

A step holds when it follows from the previous step of the new problem by one operation
its words name (or, with no such words, by any one operation of a closed list): see
`stepchat.core.derivation`. Failing steps are rewritten from the last passing step, by the
exact solver (solver-first) or by the model with a bounded number of tries and the solver
as the last resort (model-first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stepchat.core.derivation import Derivation, Walk
from stepchat.core.events import SERVED_WHOLE
from stepchat.core.linear import (
    Solution,
    find_equation,
    linear_form,
    solver_steps,
)
from stepchat.core.linear_request import read_request
from stepchat.core.settings import LinearStrategy, PipelineSettings
from stepchat.core.tasks.base import Generation, ModelRequest, Task
from stepchat.core.tasks.common import (
    mask_slots,
    replace_tokens,
    slot_changes,
    slot_mapping,
)
from stepchat.core.types import AnswerStep, Step, StepStatus, TaskKind

_FINAL_LINE = re.compile(r"^\s*([A-Za-z])\s*=\s*(-?\d+(?:/\d+)?)\s*$")
_SYSTEM = (
    "You solve linear equations. Write one short step per line, each containing an "
    "equation. Finish with a line of the form '{v} = value'."
)


@dataclass(frozen=True)
class LinearConstraints:
    """An equation in one unknown as the checks and the skip-reuse policy need it."""

    equation: str
    variable: str
    solution: str
    solution_kind: str
    both_sides: bool
    format: str
    """"steps" (show the working) or "final" (the final line only)."""
    negated: bool
    slots: tuple[str, ...]
    """The equation's numbers and letters in order: what substitution maps between."""
    operation: str = "solve"
    """Always "solve": a request to check or simplify is not detected as a linear task (it
    is open text, cached apart and reused only through the text gate), so no cached solve
    can meet one. Kept because stored entries carry it."""

    def to_json(self) -> dict[str, Any]:
        return {
            "equation": self.equation,
            "variable": self.variable,
            "solution": self.solution,
            "solution_kind": self.solution_kind,
            "both_sides": self.both_sides,
            "operation": self.operation,
            "format": self.format,
            "negated": self.negated,
            "slots": list(self.slots),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LinearConstraints:
        return cls(
            equation=str(data.get("equation", "")),
            variable=str(data.get("variable", "")),
            solution=str(data.get("solution", "")),
            solution_kind=str(data.get("solution_kind", "one")),
            both_sides=bool(data.get("both_sides")),
            format=str(data.get("format", "steps")),
            negated=bool(data.get("negated")),
            slots=tuple(str(s) for s in data.get("slots") or ()),
            operation=str(data.get("operation", "solve")),
        )


LinearTask = Task[LinearConstraints]


class LinearHandler:
    kind: str = TaskKind.LINEAR
    delivery = SERVED_WHOLE
    """Served whole once every step is checked, and shown literally (`*` is algebra)."""

    def __init__(
        self,
        strategy: LinearStrategy = LinearStrategy.SOLVER_FIRST,
        repair_tries: int = 2,
        *,
        min_similarity: float = 0.55,
    ) -> None:
        self.strategy = strategy
        self.repair_tries = repair_tries
        self.similarity_floor = self.candidate_floor = min_similarity

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> LinearHandler:
        return cls(
            settings.linear_strategy, settings.repair_tries, min_similarity=settings.min_similarity
        )

    # ------------------------------------------------------------------ detection

    def detect(self, prompt: str) -> LinearTask | None:
        """A task only when the whole prompt asks to solve one linear equation
        (`stepchat.core.linear_request`): a leftover word means another request."""
        request = read_request(prompt)
        if request is None:
            return None
        found, variable = request.equation, request.variable
        fmt = "final" if request.final_only else "steps"
        slots = [t for t in re.findall(r"\d+(?:\.\d+)?|[A-Za-z]", found.text)]
        masked_eq = mask_slots(replace_tokens(found.text, {variable: "v"}, letters=True))
        constraints = LinearConstraints(
            equation=found.text,
            variable=variable,
            solution=str(request.form.solution),
            solution_kind=request.form.solution.kind,
            both_sides=request.form.both_sides,
            format=fmt,
            negated=False,
            slots=tuple(slots),
        )
        signature = f"linear|{fmt}|False|{masked_eq}"
        return Task(self.kind, prompt, signature, constraints)

    def read_constraints(self, stored: dict[str, Any]) -> LinearConstraints:
        return LinearConstraints.from_json(stored)

    # ------------------------------------------------------------------ steps

    def segment(self, text: str) -> list[Step]:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        steps = []
        for i, line in enumerate(lines):
            last = i == len(lines) - 1
            kind = "final" if last and _is_final_text(line) else (
                "equation" if find_equation(line) else "prose"
            )
            steps.append(Step(line, kind))
        return steps

    def stitch(self, steps: Sequence[Step]) -> str:
        return "\n".join(s.text for s in steps)

    # ------------------------------------------------------------------ checks

    def skip_reason(self, task: LinearTask, cached: LinearConstraints) -> str | None:
        new = task.constraints
        if cached.negated != new.negated:
            return "negation changed"
        if cached.both_sides != new.both_sides:
            return "equation structure changed (unknown on both sides)"
        if cached.solution_kind != new.solution_kind:
            return f"solution kind changed ({cached.solution_kind} -> {new.solution_kind})"
        if cached.format == "final" and new.format == "steps":
            return "format changed (steps requested, cached answer has none)"
        return None

    def distance(self, task: LinearTask, cached: LinearConstraints) -> int:
        return slot_changes(task.constraints.slots, cached.slots)

    def verify(
        self, task: LinearTask, steps: Sequence[Step], cached: LinearConstraints | None = None
    ) -> list[bool]:
        """Per step: does it follow from the previous step of this problem (the first from
        the problem itself)? Having the problem's solution set is not enough."""
        return self._walk(task, steps).passed

    def _walk(self, task: LinearTask, steps: Sequence[Step]) -> Walk:
        form = linear_form(task.constraints.equation, task.constraints.variable)
        assert form is not None, "a detected linear task always has a linear form"
        derivation = Derivation(form, form.solution, final_only=task.constraints.format == "final")
        return derivation.walk([(s.text, s.kind == "final") for s in steps])

    def integrity(self, task: LinearTask, text: str) -> bool | None:
        steps = self.segment(text)
        if not steps or steps[-1].kind != "final":
            return False
        if task.constraints.format == "final" and len(steps) != 1:
            return False
        return all(self.verify(task, steps))

    def annotate(self, task: LinearTask, steps: Sequence[AnswerStep]) -> list[AnswerStep]:
        """An equation step has no per-step check to report beyond its status."""
        return list(steps)

    def substitute(
        self, task: LinearTask, cached: LinearConstraints, steps: Sequence[Step]
    ) -> list[Step] | None:
        mapping = slot_mapping(cached.slots, task.constraints.slots)
        if not mapping:
            return None
        letters = {k: v for k, v in mapping.items() if k.isalpha()}
        numbers = {k: v for k, v in mapping.items() if not k.isalpha()}
        out = []
        for step in steps:
            text = replace_tokens(step.text, letters, letters=True)
            text = replace_tokens(text, numbers)
            out.append(Step(text, step.kind, step.key))
        return out

    # ------------------------------------------------------------------ producing steps

    def model_request(self, task: LinearTask) -> ModelRequest:
        return ModelRequest(task.prompt, _SYSTEM.format(v=task.constraints.variable))

    def answers_without_model(self, task: LinearTask) -> bool:
        """Solver-first: the exact solver writes every step."""
        return self.strategy == LinearStrategy.SOLVER_FIRST

    def generate(self, task: LinearTask, gen: Generation) -> list[AnswerStep]:
        """Solver-first: the exact solver writes the steps and the model is not called.
        Model-first: the model writes them, then verification and repair run."""
        if self.strategy == LinearStrategy.SOLVER_FIRST:
            if task.constraints.format == "final":
                return self._final_only(task, [], [])
            return self._solver_suffix(task, [], gen)
        reply = gen.send(self.model_request(task), StepStatus.REGENERATED)
        steps = self.segment(reply.text)
        fresh = [AnswerStep(s.text, s.kind, StepStatus.REGENERATED) for s in steps]
        return self.patch(task, fresh, self.verify(task, steps), gen)

    def patch(
        self,
        task: LinearTask,
        steps: Sequence[AnswerStep],
        passed: Sequence[bool],
        gen: Generation,
    ) -> list[AnswerStep]:
        if task.constraints.format == "final":
            return self._final_only(task, steps, passed)
        keep = _passing_prefix(steps, passed)
        if len(keep) == len(steps) and keep and keep[-1].kind == "final":
            return list(keep)
        if self.strategy == LinearStrategy.MODEL_FIRST:
            keep = self._model_repair(task, keep, gen)
            if keep and keep[-1].kind == "final":
                return keep
        return keep + self._solver_suffix(task, keep, gen)

    def _final_only(
        self, task: LinearTask, steps: Sequence[AnswerStep], passed: Sequence[bool]
    ) -> list[AnswerStep]:
        for step, ok in zip(steps, passed, strict=True):
            if step.kind == "final" and ok:
                return [step]
        line = _solution_of_task(task).final_line(task.constraints.variable)
        return [AnswerStep(line, "final", StepStatus.FALLBACK)]

    def _model_repair(
        self, task: LinearTask, keep: list[AnswerStep], gen: Generation
    ) -> list[AnswerStep]:
        variable = task.constraints.variable
        status = StepStatus.PATCHED if any(
            s.status == StepStatus.REUSED for s in keep
        ) else StepStatus.REGENERATED
        for _ in range(self.repair_tries):
            so_far = "\n".join(s.text for s in keep) or "(no steps yet)"
            request = ModelRequest(
                f"{task.prompt}\n\nCorrect steps so far:\n{so_far}\n\n"
                f"Continue with the remaining steps only, one per line, "
                f"ending with '{variable} = value'.",
                _SYSTEM.format(v=variable),
            )
            reply = gen.send(request, status)
            new = self.segment(reply.text)
            ok = self.verify(task, [s.step for s in keep] + new)[len(keep):]
            gained = _passing_prefix(
                [AnswerStep(s.text, s.kind, status) for s in new], ok
            )
            keep = keep + gained
            if keep and keep[-1].kind == "final":
                return keep
        return keep

    def _solver_suffix(
        self, task: LinearTask, keep: Sequence[AnswerStep], gen: Generation
    ) -> list[AnswerStep]:
        """The solver's steps from the equation the kept steps end on (the problem when
        none is kept), so every line it writes follows from the one before."""
        started = gen.clock.monotonic()
        state = self._walk(task, [s.step for s in keep]).state
        suffix = [
            AnswerStep(text, kind, StepStatus.FALLBACK)
            for kind, text in solver_steps(state.form(task.constraints.variable))
        ]
        gen.timed(started)
        return suffix


def _passing_prefix(steps: Sequence[AnswerStep], passed: Sequence[bool]) -> list[AnswerStep]:
    keep: list[AnswerStep] = []
    for step, ok in zip(steps, passed, strict=True):
        if not ok:
            break
        keep.append(step)
    return keep


def _solution_of_task(task: LinearTask) -> Solution:
    form = linear_form(task.constraints.equation, task.constraints.variable)
    assert form is not None
    return form.solution


def _is_final_text(line: str) -> bool:
    low = line.strip().lower().rstrip(".")
    return bool(_FINAL_LINE.match(line)) or low in ("no solution", "all real numbers")
