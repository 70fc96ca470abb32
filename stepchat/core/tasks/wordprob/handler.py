"""Arithmetic word problems: the model writes the solution, the cache recomputes it.

A request is a word problem when it states numbers in prose and asks a question
(`request.is_word_problem`); its answer is one step per line, a chain of arithmetic ending
in one number. A fresh answer's arithmetic is checked exactly and every slip is corrected
and carried through (`recompute` with unchanged values) before it is stored; an answer
with a computation this reader cannot check is served but not stored. A request that is a
cached one with only slot values changed is answered from the cached solution with every
computation redone: those steps are `recomputed`, never `reused` (the reasoning is the
cached answer's, the arithmetic is new) and the answer is never called verified.

A solution that one instance cannot recompute (a number that fits two roles) goes to the
model, and the new entry keeps the earlier instance beside its own (`evidence`): the next
variant is recomputed with roles that hold in every instance.

A prompt is claimed before its answer is known, so some claimed prompts are open questions
that happen to state a number ("What happened in 1969 when Apollo 11 landed?"). An answer
that writes no arithmetic at all is open text: it is stored and reused exactly as the text
kind would (its gate decides, its handler is asked), never recomputed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stepchat.core.events import SERVED_WHOLE
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import Generation, ModelRequest, Routed, Task
from stepchat.core.tasks.text_task import TextConstraints, TextHandler
from stepchat.core.tasks.wordprob.atoms import decimal_mark
from stepchat.core.tasks.wordprob.bases import Base, bases
from stepchat.core.tasks.wordprob.evidence import (
    Instance,
    Witness,
    kept_instances,
    varying_positions,
    witnesses,
)
from stepchat.core.tasks.wordprob.recompute import Declined, Outcome, recompute
from stepchat.core.tasks.wordprob.request import (
    Alignment,
    NotSame,
    align,
    is_word_problem,
    signature,
)
from stepchat.core.tasks.wordprob.slips import first_slip
from stepchat.core.tasks.wordprob.solution import answer_holds, relates_numbers, solution_atoms
from stepchat.core.types import (
    AnswerStep,
    Step,
    StepCheck,
    StepOrigin,
    StepStatus,
    TaskKind,
)

_HINT = (
    "If the request is an arithmetic word problem, solve it step by step: one step per "
    "line, every computation written as `expression = result` with the numbers in digits, "
    "and a last line that gives only the final answer as a number."
)
"""Added to the configured system prompt: a claimed prompt may be an open question that
only states a number, which the model then answers as it would any other."""


@dataclass(frozen=True)
class WordProblemConstraints:
    """The request as written: the rule compares it atom by atom with a new one."""

    request: str
    open: bool = False
    """The cached answer writes no arithmetic: it is open text, reused only as such."""
    earlier: tuple[Instance, ...] = ()
    """Earlier solved instances of the same problem whose solutions are this one's with
    other numbers (newest first): the evidence that decides the roles of its numbers."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"request": self.request}
        if self.open:
            data["open"] = True
        if self.earlier:
            data["earlier"] = [instance.to_json() for instance in self.earlier]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WordProblemConstraints:
        stored = data.get("earlier")
        found = [Instance.from_json(item) for item in stored] if isinstance(stored, list) else []
        return cls(str(data.get("request", "")), open=data.get("open") is True,
                   earlier=tuple(i for i in found if i is not None))

    @property
    def varying(self) -> frozenset[int]:
        """Where the earlier instances have other words than this request."""
        return varying_positions(self.request, self.earlier)


WordProblemTask = Task[WordProblemConstraints]


class WordProblemHandler:
    """Word problems: fresh answers corrected, variants recomputed from the cache."""

    kind: str = TaskKind.WORD_PROBLEM
    """A follow-up ("and with 5 apples?") leans on earlier turns: never cached."""
    delivery = SERVED_WHOLE
    """Served whole: the model's arithmetic is corrected before it is shown, so streamed
    tokens could show a number the answer then changes; shown literally, since `*` is a
    product here, not emphasis."""

    def __init__(
        self, *, min_similarity: float = 0.55, text: TextHandler | None = None,
        system_prompt: str = "",
    ) -> None:
        self.text = text or TextHandler()
        """Open text's handler: answers without arithmetic are reused only as it allows."""
        self.similarity_floor = min_similarity
        # Both tests decide on their own (the alignment, the text gate): any neighbour the
        # text kind would compare is worth comparing.
        self.candidate_floor = min(min_similarity, self.text.candidate_floor)
        self.system = "\n\n".join(part for part in (system_prompt, _HINT) if part)
        self._declined: dict[str, str] = {}
        """Why the last substitution for a prompt declined, for the note `patch` writes."""
        self._recomputed: dict[str, list[str]] = {}
        """The steps the last substitution wrote for a prompt: they hold for it as written
        (the pipeline verifies them again, against the same cached request)."""
        self._corrected: set[str] = set()
        """Answers shown with the model's arithmetic corrected: never stored (`integrity`)."""
        self._last: tuple[object, Outcome | Declined | NotSame] | None = None
        """The last recomputation, by request, cached request and steps: `verify` and then
        `substitute` ask for the same one, and it may have tried every instance."""

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> WordProblemHandler:
        return cls(min_similarity=settings.min_similarity,
                   text=TextHandler.from_settings(settings),
                   system_prompt=settings.system_prompt)

    # ------------------------------------------------------------------ request

    def detect(self, prompt: str) -> WordProblemTask | None:
        if not is_word_problem(prompt):
            return None
        return Task(self.kind, prompt, signature(prompt), WordProblemConstraints(prompt))

    def read_constraints(self, stored: dict[str, Any]) -> WordProblemConstraints:
        return WordProblemConstraints.from_json(stored)

    def skip_reason(self, task: WordProblemTask, cached: WordProblemConstraints) -> str | None:
        """Open text and the text gate's near repeats are the text kind's to decide; a
        computation is recomputed when the requests align slot for slot."""
        as_text = self._text_reason(task, cached)
        if cached.open or as_text is None:
            return as_text
        try:
            align(cached.request, task.prompt, varying=cached.varying)
        except NotSame as exc:
            return str(exc)
        return None

    def _text_reason(self, task: WordProblemTask, cached: WordProblemConstraints) -> str | None:
        """Why the text kind would not reuse the cached answer for this prompt, or None."""
        text_task = self.text.detect(task.prompt)
        return self.text.skip_reason(text_task, TextConstraints(cached.request))

    def distance(self, task: WordProblemTask, cached: WordProblemConstraints) -> int:
        if cached.open:
            return 0 if self._text_reason(task, cached) is None else 1_000_000
        try:
            return align(cached.request, task.prompt, varying=cached.varying).changes
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
        """The cached steps recomputed for `task`, or Declined / NotSame with the reason
        (the entry's own, the most telling).

        Every solved instance the entry keeps is a solution of the same problem, so each is
        tried in turn as the one to recompute from, the others its witnesses: a choice in
        words, a tie or a wrap the new values would flip against one instance holds against
        another solved on their side (English numbers variants: 104 to 113 of 476 served,
        none wrong). Each try passes every rule on its own; trying several serves only what
        one of them would serve had it been stored last, whatever the order they are tried
        in (`bases.py`: the one whose stated values are in the new order first)."""
        entry = Instance(cached.request, tuple(s.text for s in steps))
        reason: Declined | NotSame | None = None
        for base in bases(entry, cached.earlier, task.prompt):
            try:
                return _recompute_from(base)
            except (Declined, NotSame) as exc:
                if reason is None or base.instance is entry:
                    reason = exc
        assert reason is not None
        raise reason

    def _recomputed_once(
        self, task: WordProblemTask, cached: WordProblemConstraints, steps: Sequence[Step]
    ) -> Outcome:
        """`recomputed`, done once for the same request, cached request and steps."""
        key = (task.prompt, cached, tuple(s.text for s in steps))
        if self._last is None or self._last[0] != key:
            try:
                found: Outcome | Declined | NotSame = self.recomputed(task, cached, steps)
            except (Declined, NotSame) as exc:
                found = exc
            self._last = (key, found)
        result = self._last[1]
        if isinstance(result, Outcome):
            return result
        raise result

    def verify(
        self, task: WordProblemTask, steps: Sequence[Step],
        cached: WordProblemConstraints | None = None,
    ) -> list[bool]:
        """A step holds as it is when recomputing leaves its text unchanged; every step of
        an answer to the same request (as the text gate reads it) holds as it is."""
        if cached is None:
            return [False] * len(steps)
        if cached.open or self._text_reason(task, cached) is None:
            return [True] * len(steps)
        if self._recomputed.pop(task.prompt, None) == [s.text for s in steps]:
            return [True] * len(steps)
        try:
            outcome = self._recomputed_once(task, cached, steps)
        except (Declined, NotSame) as exc:
            self._declined[task.prompt] = str(exc)
            return [False] * len(steps)
        return [new == old.text for new, old in zip(outcome.texts, steps, strict=True)]

    def substitute(
        self, task: WordProblemTask, cached: WordProblemConstraints, steps: Sequence[Step]
    ) -> list[Step] | None:
        try:
            outcome = self._recomputed_once(task, cached, steps)
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
        answer, and for an answer whose arithmetic was corrected; otherwise None: the
        arithmetic holds, but nobody checked the reasoning. An answer that writes no
        arithmetic is open text, which nothing can check: None.

        A corrected answer is shown (its corrected steps marked) but never stored: a
        correction reads the numbers as written, and a solution that converts units it
        writes nowhere ("2 + 30 = 2.5" for 2 hours and 30 minutes, "$2 + 50 = $2.50")
        reads as a slip; stored, the misreading would be recomputed for every variant."""
        if text in self._corrected:
            self._corrected.discard(text)
            return False
        return None if answer_holds(text) or not writes_arithmetic(text) else False

    def stored_constraints(
        self, task: WordProblemTask, steps: Sequence[Step],
        routed: Routed[WordProblemConstraints] | None,
    ) -> WordProblemConstraints:
        """An answer without arithmetic is kept as open text. A computed one keeps the
        instances of the same problem solved before it (the entry this request was routed
        to and that entry's own) that witness its solution."""
        if not writes_arithmetic(self.stitch(steps)):
            return WordProblemConstraints(task.prompt, open=True)
        if routed is None or routed.constraints.open:
            return task.constraints
        before = Instance(routed.constraints.request, tuple(s.text for s in routed.steps))
        kept = kept_instances(task.prompt, [s.text for s in steps],
                              [before, *routed.constraints.earlier])
        return WordProblemConstraints(task.prompt, earlier=kept)

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
        return ModelRequest(task.prompt, self.system)

    def generate(self, task: WordProblemTask, gen: Generation) -> list[AnswerStep]:
        """The model's solution, with every arithmetic slip corrected and carried through.
        In a conversation the earlier turns go first, as for open text."""
        reply = gen.send(self.model_request(task), StepStatus.REGENERATED)
        steps = self.segment(reply.text) or [Step(reply.text.strip(), "final")]
        fresh = [AnswerStep(s.text, s.kind, StepStatus.REGENERATED) for s in steps]
        texts = [s.text for s in steps]
        try:
            alignment = align(task.prompt, task.prompt, *texts)
            outcome = _recompute(texts, alignment)
        except (Declined, NotSame):
            slip = first_slip(texts)
            if slip is not None:
                gen.notes.append(slip.note())
            return fresh
        if not outcome.corrections:
            return fresh
        gen.notes.append(
            f"{outcome.corrections} computation(s) of the model corrected by exact arithmetic"
            "; the answer is not cached"
        )
        self._corrected.add(self.stitch([Step(text, "line") for text in outcome.texts]))
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
            gen.notes.append(f"{DECLINED_NOTE}: {why}")
        return self.generate(task, gen)


DECLINED_NOTE = "not recomputed from the cache (the numbers named are the cached answer's)"
"""What opens the note of a variant the cache could not recompute: the reason names the
cached solution's numbers, which the user may never have seen beside their own."""


def _recompute_from(base: Base) -> Outcome:
    """The new request recomputed from `base`'s solution, the other instances witnesses."""
    if not isinstance(base.alignment, Alignment):
        raise base.alignment
    instance = base.instance
    return _recompute(list(instance.steps), base.alignment,
                      witnesses(instance.request, instance.steps, base.others))


def _recompute(
    texts: list[str], alignment: Alignment, earlier: Sequence[Witness] = ()
) -> Outcome:
    return recompute(
        texts, alignment.slots, alignment.mark, renames=alignment.renames,
        currency=alignment.currency, names=alignment.names, words=alignment.words,
        renamed_at=alignment.renamed_at, word_at=alignment.word_at,
        witnesses=earlier, factors=alignment.factors,
    )


def writes_arithmetic(text: str) -> bool:
    """The answer relates numbers (`6 * 2 = 12`, `4 < 7`): a chain of arithmetic to check,
    not open text."""
    return relates_numbers(solution_atoms(text.splitlines(), decimal_mark(text) or ".")[0])


__all__ = [
    "WordProblemConstraints", "WordProblemHandler", "answer_holds", "writes_arithmetic",
]
