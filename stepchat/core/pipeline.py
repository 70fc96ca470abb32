"""StepCache: serve one request through the step-level cache.

detect -> (structural lookup | embed + nearest) -> skip-reuse policy -> verify each cached
step -> substitution -> selective patch -> stitch -> integrity check -> store if verified.
Each stage is timed into the answer's story and reported as events.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from stepchat.core.conversation import FOLLOW_UP_NOTE
from stepchat.core.cutoff import (
    cut_off_note,
    cut_off_reason,
    handler_constraints,
    marked_complete,
)
from stepchat.core.events import (
    DoneEvent,
    EventSink,
    RouteEvent,
    StageEvent,
    StepEvent,
    ignore_events,
)
from stepchat.core.ports import (
    ANSWERS_ALONE,
    Backend,
    BackendError,
    CancelToken,
    Clock,
    Embedder,
    GenerationCancelled,
    Store,
    StoreError,
    SystemClock,
)
from stepchat.core.prompt import PromptError, accept_prompt
from stepchat.core.settings import DEFAULT_SETTINGS, PipelineSettings
from stepchat.core.tasks.base import Generation, Task, TaskHandler, answers_alone
from stepchat.core.tasks.registry import BUILT_IN, TaskKinds
from stepchat.core.types import (
    CACHE_STEP,
    Answer,
    AnswerStep,
    CacheEntry,
    CachePath,
    ChatMessage,
    Step,
    StepStatus,
    Timings,
    TokenCounts,
)

__all__ = ["PromptError", "StepCache", "scope_of"]


_ENTRY_SERIAL = itertools.count()
"""Shared by every engine in the process, so ids differ even under one fixed clock."""


def scope_of(model_id: str, system_prompt: str) -> str:
    """Entries are only ever reused under the same model and system prompt."""
    return hashlib.blake2b(f"{model_id}\x1f{system_prompt}".encode(), digest_size=8).hexdigest()


def _stop_if_cancelled(cancel: CancelToken | None) -> None:
    """A cancelled request ends at the next stage boundary, model or not: the backend only
    looks at the token between tokens, and a request served without the model (the solver,
    a reuse) would otherwise run on and store after the user pressed Esc."""
    if cancel is not None and cancel.is_set():
        raise GenerationCancelled()


class _Stopwatch:
    """Milliseconds on the injected clock, so tests with a fixed clock see fixed times."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._t = clock.monotonic()

    def ms(self) -> float:
        return (self._clock.monotonic() - self._t) * 1000


@dataclass(frozen=True)
class _Route:
    """How one request is routed, decided once: the cached entry it reuses (with that
    entry's constraints, typed by its handler), or why the nearest one is skipped."""

    entry: CacheEntry | None = None
    cached: Any = None
    skip_reason: str | None = None
    vector: list[float] | None = None
    """The prompt's embedding when the lookup made one, so storing need not embed again."""

    @property
    def reusing(self) -> bool:
        return self.entry is not None and self.skip_reason is None

    @property
    def announced(self) -> CachePath:
        """The path as first announced; a patched reuse may still end reuse-only or a miss."""
        if self.reusing:
            return CachePath.PATCHED
        return CachePath.SKIP_REUSE if self.skip_reason else CachePath.MISS


class StepCache:
    """The engine: one instance per loaded model; thread-compatible, not thread-safe."""

    def __init__(
        self,
        backend: Backend,
        embedder: Embedder,
        store: Store,
        *,
        settings: PipelineSettings = DEFAULT_SETTINGS,
        clock: Clock | None = None,
        kinds: TaskKinds = BUILT_IN,
    ) -> None:
        self.backend = backend
        self.embedder = embedder
        self.store = store
        self.settings = settings
        self.clock = clock or SystemClock()
        self.handlers = kinds.build(settings)

    def _entry_id(self, prompt: str, now: float) -> str:
        """Unique per engine and stable under a fixed clock (deterministic snapshots)."""
        seed = f"{self.scope}\x1f{prompt}\x1f{now!r}\x1f{next(_ENTRY_SERIAL)}"
        return hashlib.blake2b(seed.encode(), digest_size=8).hexdigest()

    @property
    def scope(self) -> str:
        return scope_of(self.backend.model_id, self.settings.system_prompt)

    def detect(self, prompt: str) -> tuple[TaskHandler[Any], Task[Any]]:
        """The handler whose kind the prompt is, and the task it read."""
        return self.handlers.detect(prompt)

    # ------------------------------------------------------------------ the request

    def answer(
        self,
        prompt: str | bytes,
        *,
        history: Sequence[ChatMessage] = (),
        on_event: EventSink = ignore_events,
        cancel: CancelToken | None = None,
        reuse: bool = True,
        store: bool = True,
    ) -> Answer:
        """Serve `prompt`, the newest turn after `history` (earlier user and assistant turns).

        In a conversation, open text can lean on earlier turns ("and in winter?"), so it is
        neither served from nor written to the cache; equations and JSON objects are checked
        against the request itself and are reused as usual.
        """
        total = _Stopwatch(self.clock)
        accepted = accept_prompt(prompt)
        text, notes = accepted.text, list(accepted.notes)
        handler, task = self.detect(text)
        if not handler.self_contained and (reuse or store):
            if history:
                notes.append(FOLLOW_UP_NOTE)
                reuse = store = False
            elif accepted.truncated:
                # Its answer answers the first part of the prompt, not the prompt sent.
                notes = [f"prompt truncated to its first {len(text)} characters: "
                         "open text is not cached"]
                reuse = store = False
        gen = Generation(
            self.backend, self.settings, on_event, cancel, clock=self.clock,
            history=tuple(history),
        )
        timings = Timings()
        _stop_if_cancelled(cancel)
        alone = ANSWERS_ALONE.set(answers_alone(handler, task))
        try:
            return self._serve(handler, task, gen, timings, notes, total, reuse, store)
        finally:
            ANSWERS_ALONE.reset(alone)

    def _serve(
        self,
        handler: TaskHandler[Any],
        task: Task[Any],
        gen: Generation,
        timings: Timings,
        notes: list[str],
        total: _Stopwatch,
        reuse: bool,
        store: bool,
    ) -> Answer:
        """Route, answer, keep: the request after detection."""
        on_event, cancel = gen.on_event, gen.cancel
        route = self._route(handler, task, timings, on_event) if reuse else _Route()
        _stop_if_cancelled(cancel)
        on_event(RouteEvent(route.announced, route.skip_reason, task.kind))
        if route.reusing:
            steps, method = self._reuse(handler, task, route, gen, timings, on_event)
        else:
            on_event(StageEvent("generate"))
            steps, method = handler.generate(task, gen), None
        _stop_if_cancelled(cancel)
        answer = self._answer(handler, task, route, steps, method, gen, timings, notes)
        for index, step in enumerate(answer.steps):
            on_event(StepEvent(index, step))
        _stop_if_cancelled(cancel)
        if store:
            self._keep(task, answer, route, gen, timings, on_event)
        answer.notes.extend(self.store.drain_notes())
        answer.timings.total_ms = total.ms()
        on_event(DoneEvent(answer))
        return answer

    # ------------------------------------------------------------------ stages

    def _route(
        self, handler: TaskHandler[Any], task: Task[Any], timings: Timings, on_event: EventSink
    ) -> _Route:
        """The one routing decision: the nearest usable entry, and whether it may be reused."""
        entry, vector = self._retrieve(handler, task, timings, on_event)
        if entry is None:
            return _Route(vector=vector)
        cached = handler.read_constraints(handler_constraints(entry))
        skip = self._cut_off(entry) or handler.skip_reason(task, cached)
        return _Route(entry, cached, skip, vector)

    def _cut_off(self, entry: CacheEntry) -> str | None:
        """Why an entry written before cut-off answers were refused may be one, or None."""
        return cut_off_reason(entry, self.settings.max_tokens)

    def _retrieve(
        self, handler: TaskHandler[Any], task: Task[Any], timings: Timings, on_event: EventSink
    ) -> tuple[CacheEntry | None, list[float] | None]:
        """The cached request to reuse, or the closest one to explain a skip, or None."""
        on_event(StageEvent("retrieve"))
        if self.settings.signature_lookup:
            watch = _Stopwatch(self.clock)
            entry = self.store.find_signature(scope=self.scope, signature=task.signature)
            timings.retrieve_ms += watch.ms()
            if entry is not None and entry.task == task.kind and not self._cut_off(entry):
                # Same structure: its steps are verified, substituted and patched as needed,
                # which costs less than embedding the prompt to look for a closer entry.
                return entry, None
        on_event(StageEvent("embed"))
        watch = _Stopwatch(self.clock)
        vector = self.embedder.embed(task.prompt)
        timings.embed_ms += watch.ms()
        watch = _Stopwatch(self.clock)
        hits = self.store.search(vector, scope=self.scope, task=task.kind, k=4)
        timings.retrieve_ms += watch.ms()
        same_shape = [h.entry for h in hits if h.entry.signature == task.signature]
        if same_shape:
            def distance(entry: CacheEntry) -> int:
                return handler.distance(task, handler.read_constraints(handler_constraints(entry)))

            return min(same_shape, key=distance), vector
        # A handler whose own test decides (the text gate) compares every neighbour found;
        # its similarity floor then only chooses which rejected neighbour to name in a skip.
        usable = [
            h.entry
            for h in hits
            if h.similarity >= handler.candidate_floor
            and not self._cut_off(h.entry)
            and handler.skip_reason(task, handler.read_constraints(handler_constraints(h.entry)))
            is None
        ]
        close = [h.entry for h in hits if h.similarity >= handler.similarity_floor]
        if usable or close:
            return (usable or close)[0], vector
        return None, vector

    def _reuse(
        self,
        handler: TaskHandler[Any],
        task: Task[Any],
        route: _Route,
        gen: Generation,
        timings: Timings,
        on_event: EventSink,
    ) -> tuple[list[AnswerStep], str | None]:
        """The cached steps, verified; substituted and patched where they no longer hold."""
        assert route.entry is not None, "only a route with an entry reuses"
        cached_constraints = route.cached
        on_event(StageEvent("verify"))
        cached = route.entry.steps
        watch = _Stopwatch(self.clock)
        passed = handler.verify(task, cached, cached_constraints)
        steps = [_reused(s) for s in cached]
        whole = all(passed) and handler.integrity(task, handler.stitch(cached)) is not False
        method: str | None = None
        if not whole and self.settings.substitution:
            swapped = handler.substitute(task, cached_constraints, cached)
            if swapped is not None:
                method = "substitution"
                passed = handler.verify(task, swapped, cached_constraints)
                steps = [_substituted(new, old) for new, old in zip(swapped, cached, strict=True)]
                stitched = handler.stitch(swapped)
                whole = all(passed) and handler.integrity(task, stitched) is not False
        timings.verify_ms += watch.ms()
        if whole:
            return steps, method
        _stop_if_cancelled(gen.cancel)
        on_event(StageEvent("generate"))
        calls_before = gen.calls
        patched = handler.patch(task, steps, passed, gen)
        used_model = gen.calls > calls_before
        used_solver = any(s.status == StepStatus.FALLBACK for s in patched)
        parts = [p for p in (method, "model" if used_model else None,
                             "fallback" if used_solver else None) if p]
        return patched, "+".join(parts) or "reorder"

    def _store(
        self,
        task: Task[Any],
        answer: Answer,
        vector: list[float] | None,
        timings: Timings,
        on_event: EventSink,
    ) -> str | None:
        on_event(StageEvent("store"))
        if vector is None:
            watch = _Stopwatch(self.clock)
            vector = self.embedder.embed(task.prompt)
            timings.embed_ms += watch.ms()
        now = self.clock.now()
        entry = CacheEntry(
            id=self._entry_id(task.prompt, now),
            prompt=task.prompt,
            vector=vector,
            scope=self.scope,
            task=task.kind,
            signature=task.signature,
            constraints=marked_complete(task.constraints.to_json()),  # the store keeps JSON
            steps=[self._counted(s.step) for s in answer.steps],
            model=self.backend.model_id,
            created=now,
            last_hit=now,
            hits=0,
            tokens=self.backend.count_tokens(answer.text),
        )
        self.store.add(entry)
        return entry.id

    def _tokens_of(self, step: AnswerStep) -> int:
        return step.tokens if step.tokens is not None else self.backend.count_tokens(step.text)

    def _counted(self, step: Step) -> Step:
        """The step with its model-token count, so reusing it later needs no tokenizer."""
        if step.origin != "model" or step.tokens is not None:
            return step
        return replace(step, tokens=self.backend.count_tokens(step.text))

    def _answer(
        self,
        handler: TaskHandler[Any],
        task: Task[Any],
        route: _Route,
        steps: list[AnswerStep],
        method: str | None,
        gen: Generation,
        timings: Timings,
        notes: list[str],
    ) -> Answer:
        """The answer, built once: its steps marked with what checked them, the whole text
        checked, and its token story (only reused model text counts as saved)."""
        steps = handler.annotate(task, steps)
        text = handler.stitch([s.step for s in steps])
        check = _Stopwatch(self.clock)
        verified = handler.integrity(task, text)
        timings.verify_ms += check.ms()
        timings.generate_ms = gen.generate_ms
        saved = sum(
            self._tokens_of(s)
            for s in steps
            if s.status in _SAVING and s.origin == "model"
        )
        cut = gen.cut_off_at
        return Answer(
            prompt=task.prompt,
            task=task.kind,
            text=text,
            path=_path_of(steps, route),
            steps=steps,
            model=self.backend.model_id,
            skip_reason=route.skip_reason,
            timings=timings,
            tokens=TokenCounts(gen.prompt_tokens, gen.generated_tokens, saved),
            matched_entry=route.entry.id if route.reusing and route.entry else None,
            verified=verified,
            patch_method=method,
            notes=notes + gen.notes + ([cut_off_note(cut)] if cut is not None else []),
            finish_reason="stop" if cut is None else "length",
        )

    def _keep(
        self,
        task: Task[Any],
        answer: Answer,
        route: _Route,
        gen: Generation,
        timings: Timings,
        on_event: EventSink,
    ) -> None:
        """Count the hit and store what adds information; never an unverified answer, nor
        one the token limit cut."""
        try:
            if route.reusing and route.entry is not None:
                self.store.touch(route.entry.id, self.clock.now())
            finished = answer.finish_reason != "length"
            if finished and answer.verified is not False and _adds_information(route.reusing, gen):
                answer.stored_entry = self._store(task, answer, route.vector, timings, on_event)
        except (StoreError, BackendError) as exc:
            # The answer is computed and correct; a cache that cannot take it (a full disk,
            # a read-only folder, a model whose tokenizer to count it with is missing) must
            # not throw it away. The caller shows the note.
            answer.notes.append(f"the answer was not cached: {exc}")


_SAVING = frozenset({StepStatus.REUSED, StepStatus.RECOMPUTED})
"""Statuses of cached model text served without the model: its tokens were saved."""


def _reused(step: Step) -> AnswerStep:
    """A cached step served as it was, with the token count it was stored with."""
    return AnswerStep(
        step.text, step.kind, StepStatus.REUSED, step.key, step.origin, tokens=step.tokens
    )


def _substituted(new: Step, old: Step) -> AnswerStep:
    """A cached step after substitution: a value the prompt states is a fill, not a reuse."""
    if new.text == old.text:
        return _reused(old)
    if new.origin == "prompt":
        return AnswerStep(new.text, new.kind, StepStatus.FALLBACK, new.key, "prompt")
    return AnswerStep(
        new.text, new.kind, StepStatus.PATCHED, new.key, old.origin, tokens=new.tokens
    )


def _path_of(steps: Sequence[AnswerStep], route: _Route) -> CachePath:
    """How the answer was served, counted honestly: a hit needs a step from the cache."""
    reusing, skipped = route.reusing, route.skip_reason is not None
    from_cache = sum(1 for s in steps if s.status in CACHE_STEP)
    by_solver = all(s.status == StepStatus.FALLBACK for s in steps) and bool(steps)
    if reusing and from_cache:
        all_reused = all(s.status == StepStatus.REUSED for s in steps)
        return CachePath.REUSE_ONLY if all_reused else CachePath.PATCHED
    if skipped:
        return CachePath.SKIP_REUSE
    return CachePath.SOLVER if by_solver else CachePath.MISS


def _adds_information(reusing: bool, gen: Generation) -> bool:
    """Store what was written fresh, and patches the model contributed to. An answer rebuilt
    from a cached entry without the model (reused, substituted, solved, filled) is rebuilt
    from the same entry in milliseconds next time, so storing it would cost an embedding and
    a write for nothing."""
    return not reusing or gen.generated_tokens > 0
