"""StepCache: serve one request through the step-level cache.

detect -> (structural lookup | embed + nearest) -> skip-reuse policy -> verify each cached
step -> substitution -> selective patch -> stitch -> integrity check -> store if verified.
Each stage is timed into the answer's story and reported as events.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence

from stepchat.core.events import (
    DoneEvent,
    EventSink,
    RouteEvent,
    StageEvent,
    StepEvent,
    ignore_events,
)
from stepchat.core.ports import Backend, CancelToken, Clock, Embedder, Store, SystemClock
from stepchat.core.prompt import PromptError, clean_prompt
from stepchat.core.settings import DEFAULT_SETTINGS, PipelineSettings
from stepchat.core.tasks.base import Generation, Task, TaskHandler
from stepchat.core.tasks.json_task import JsonHandler
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.tasks.text_task import TextHandler
from stepchat.core.types import (
    Answer,
    AnswerStep,
    CacheEntry,
    CachePath,
    StepStatus,
    TaskKind,
    Timings,
    TokenCounts,
)

__all__ = ["PromptError", "StepCache", "scope_of"]


_ENTRY_SERIAL = itertools.count()
"""Shared by every engine in the process, so ids differ even under one fixed clock."""


def scope_of(model_id: str, system_prompt: str) -> str:
    """Entries are only ever reused under the same model and system prompt."""
    return hashlib.blake2b(f"{model_id}\x1f{system_prompt}".encode(), digest_size=8).hexdigest()


class _Stopwatch:
    """Milliseconds on the injected clock, so tests with a fixed clock see fixed times."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._t = clock.monotonic()

    def ms(self) -> float:
        return (self._clock.monotonic() - self._t) * 1000


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
    ) -> None:
        self.backend = backend
        self.embedder = embedder
        self.store = store
        self.settings = settings
        self.clock = clock or SystemClock()
        self.handlers: Sequence[TaskHandler] = (
            LinearHandler(settings.linear_strategy, settings.repair_tries),
            JsonHandler(
                strict=settings.strict_json,
                fill_stated=settings.substitution,
                min_key_overlap=settings.json_min_key_overlap,
            ),
            TextHandler(),
        )

    def _entry_id(self, prompt: str, now: float) -> str:
        """Unique per engine and stable under a fixed clock (deterministic snapshots)."""
        seed = f"{self.scope}\x1f{prompt}\x1f{now!r}\x1f{next(_ENTRY_SERIAL)}"
        return hashlib.blake2b(seed.encode(), digest_size=8).hexdigest()

    @property
    def scope(self) -> str:
        return scope_of(self.backend.model_id, self.settings.system_prompt)

    def detect(self, prompt: str) -> tuple[TaskHandler, Task]:
        for handler in self.handlers:
            task = handler.detect(prompt)
            if task is not None:
                return handler, task
        raise AssertionError("the text handler accepts every prompt")

    # ------------------------------------------------------------------ the request

    def answer(
        self,
        prompt: str | bytes,
        *,
        on_event: EventSink = ignore_events,
        cancel: CancelToken | None = None,
        reuse: bool = True,
        store: bool = True,
        verify: bool = True,
    ) -> Answer:
        """Serve `prompt`. `verify=False` serves the model's text unchanged (a baseline)."""
        total = _Stopwatch(self.clock)
        text, notes = clean_prompt(prompt)
        handler, task = self.detect(text)
        gen = Generation(self.backend, self.settings, on_event, cancel, clock=self.clock)
        timings = Timings()
        if not verify:
            handler.generate(task, gen, verify=False)
            steps = [AnswerStep(gen.last_text, "raw", StepStatus.REGENERATED)]
            plain = self._finish(
                task, gen.last_text, CachePath.MISS, steps, gen, timings, total, notes,
                on_event=on_event,
            )
            on_event(DoneEvent(plain))
            return plain

        candidate, vector = (None, None)
        if reuse:
            candidate, vector = self._retrieve(task, timings, on_event)
        reason = handler.skip_reason(task, candidate.constraints) if candidate else None
        method: str | None = None
        if candidate is not None and reason is None:
            on_event(RouteEvent(CachePath.PATCHED))
            steps, method = self._reuse(handler, task, candidate, gen, timings, on_event)
        else:
            path = CachePath.SKIP_REUSE if reason else CachePath.MISS
            on_event(RouteEvent(path, reason))
            on_event(StageEvent("generate"))
            steps = handler.generate(task, gen)

        answer_text = handler.stitch([s.step for s in steps])
        check = _Stopwatch(self.clock)
        verified = handler.integrity(task, answer_text)
        timings.verify_ms += check.ms()
        if candidate is not None and reason is None:
            reused_all = all(s.status == StepStatus.REUSED for s in steps)
            path = CachePath.REUSE_ONLY if reused_all else CachePath.PATCHED
        answer = self._finish(
            task, answer_text, path, steps, gen, timings, total, notes,
            on_event=on_event, skip_reason=reason, verified=verified, method=method,
            matched=candidate.id if candidate else None,
        )
        if candidate is not None and reason is None:
            self.store.touch(candidate.id, self.clock.now())
        if store and verified is not False and _adds_information(path, gen):
            answer.stored_entry = self._store(task, answer, vector, timings, on_event)
        answer.notes.extend(_store_notes(self.store))
        answer.timings.total_ms = total.ms()
        on_event(DoneEvent(answer))
        return answer

    # ------------------------------------------------------------------ stages

    def _retrieve(
        self, task: Task, timings: Timings, on_event: EventSink
    ) -> tuple[CacheEntry | None, list[float] | None]:
        on_event(StageEvent("retrieve"))
        if self.settings.signature_lookup:
            watch = _Stopwatch(self.clock)
            entry = self.store.find_signature(scope=self.scope, signature=task.signature)
            timings.retrieve_ms += watch.ms()
            if entry is not None and entry.task == task.kind:
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
            return min(same_shape, key=lambda e: _constant_changes(e, task)), vector
        floor = (
            self.settings.text_min_similarity
            if task.kind == TaskKind.TEXT
            else self.settings.min_similarity
        )
        if hits and hits[0].similarity >= floor:
            return hits[0].entry, vector
        return None, vector

    def _reuse(
        self,
        handler: TaskHandler,
        task: Task,
        candidate: CacheEntry,
        gen: Generation,
        timings: Timings,
        on_event: EventSink,
    ) -> tuple[list[AnswerStep], str | None]:
        on_event(StageEvent("verify"))
        cached = candidate.steps
        watch = _Stopwatch(self.clock)
        passed = handler.verify(task, cached, candidate.constraints)
        steps = [AnswerStep(s.text, s.kind, StepStatus.REUSED, s.key) for s in cached]
        whole = all(passed) and handler.integrity(task, handler.stitch(cached)) is not False
        method: str | None = None
        if not whole and self.settings.substitution:
            swapped = handler.substitute(task, candidate.constraints, cached)
            if swapped is not None:
                method = "substitution"
                passed = handler.verify(task, swapped, candidate.constraints)
                steps = [
                    AnswerStep(
                        new.text,
                        new.kind,
                        StepStatus.REUSED if new.text == old.text else StepStatus.PATCHED,
                        new.key,
                    )
                    for new, old in zip(swapped, cached, strict=True)
                ]
                stitched = handler.stitch(swapped)
                whole = all(passed) and handler.integrity(task, stitched) is not False
        timings.verify_ms += watch.ms()
        for index, (step, ok) in enumerate(zip(steps, passed, strict=True)):
            if not ok:
                break
            on_event(StepEvent(index, step))
        if whole:
            return steps, method
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
        task: Task,
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
            constraints=task.constraints,
            steps=[s.step for s in answer.steps],
            model=self.backend.model_id,
            created=now,
            last_hit=now,
            hits=0,
            tokens=self.backend.count_tokens(answer.text),
        )
        self.store.add(entry)
        return entry.id

    def _finish(
        self,
        task: Task,
        text: str,
        path: CachePath,
        steps: list[AnswerStep],
        gen: Generation,
        timings: Timings,
        total: _Stopwatch,
        notes: list[str],
        *,
        on_event: EventSink | None,
        skip_reason: str | None = None,
        verified: bool | None = None,
        method: str | None = None,
        matched: str | None = None,
    ) -> Answer:
        timings.generate_ms = gen.generate_ms
        saved = 0
        if path in (CachePath.REUSE_ONLY, CachePath.PATCHED):
            saved = max(0, self.backend.count_tokens(text) - gen.generated_tokens)
        answer = Answer(
            prompt=task.prompt,
            task=task.kind,
            text=text,
            path=path,
            steps=steps,
            model=self.backend.model_id,
            skip_reason=skip_reason,
            timings=timings,
            tokens=TokenCounts(gen.prompt_tokens, gen.generated_tokens, saved),
            matched_entry=matched,
            verified=verified,
            patch_method=method,
            notes=notes + gen.notes,
        )
        for index, step in enumerate(steps):
            if on_event is not None:
                on_event(StepEvent(index, step))
        timings.total_ms = total.ms()
        return answer


def _adds_information(path: CachePath, gen: Generation) -> bool:
    """Store misses and skips, and patches the model contributed to. A reuse-only answer is
    already cached, and a patch made only by substitution or the solver is rebuilt from the
    same entry in milliseconds, so storing it would cost an embedding and a write for nothing."""
    if path == CachePath.REUSE_ONLY:
        return False
    return path != CachePath.PATCHED or gen.generated_tokens > 0


def _constant_changes(entry: CacheEntry, task: Task) -> int:
    """How many constants differ between a same-shaped cached request and this one."""
    mine, theirs = task.constraints, entry.constraints
    slots_new, slots_old = mine.get("slots") or [], theirs.get("slots") or []
    changed = sum(a != b for a, b in zip(slots_new, slots_old, strict=False))
    changed += abs(len(slots_new) - len(slots_old))
    ents_new, ents_old = mine.get("entities") or {}, theirs.get("entities") or {}
    changed += sum(ents_old.get(k) != v for k, v in ents_new.items())
    return changed


def _store_notes(store: Store) -> list[str]:
    """One-line notes a store has for the user (a shared cache that went away or came back)."""
    drain = getattr(store, "drain_notes", None)
    return list(drain()) if callable(drain) else []
