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
from stepchat.core.ports import (
    Backend,
    CancelToken,
    Clock,
    Embedder,
    GenerationCancelled,
    Store,
    StoreError,
    SystemClock,
)
from stepchat.core.prompt import PromptError, clean_prompt
from stepchat.core.settings import DEFAULT_SETTINGS, PipelineSettings
from stepchat.core.tasks.base import Generation, Task, TaskHandler
from stepchat.core.tasks.json_task import JsonHandler
from stepchat.core.tasks.linear_task import LinearHandler
from stepchat.core.tasks.text_task import TextHandler
from stepchat.core.types import (
    CACHE_STEP,
    Answer,
    AnswerStep,
    CacheEntry,
    CachePath,
    ChatMessage,
    Step,
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
        history: Sequence[ChatMessage] = (),
        on_event: EventSink = ignore_events,
        cancel: CancelToken | None = None,
        reuse: bool = True,
        store: bool = True,
        verify: bool = True,
    ) -> Answer:
        """Serve `prompt`, the newest turn after `history` (earlier user and assistant turns).

        In a conversation, open text can lean on earlier turns ("and in winter?"), so it is
        neither served from nor written to the cache; equations and JSON objects are checked
        against the request itself and are reused as usual. `verify=False` serves the model's
        text unchanged (a baseline).
        """
        total = _Stopwatch(self.clock)
        text, notes = clean_prompt(prompt)
        handler, task = self.detect(text)
        gen = Generation(
            self.backend, self.settings, on_event, cancel, clock=self.clock,
            history=tuple(history),
        )
        timings = Timings()
        if not verify:
            handler.generate(task, gen, verify=False)
            steps = [AnswerStep(gen.last_text, "raw", StepStatus.REGENERATED)]
            plain = self._finish(task, gen.last_text, CachePath.MISS, steps, gen, timings, notes)
            plain.timings.total_ms = total.ms()
            on_event(DoneEvent(plain))
            return plain
        if history and task.kind == TaskKind.TEXT and (reuse or store):
            notes.append("a follow-up in a conversation: open text is not cached")
            reuse = store = False

        candidate, vector = (None, None)
        _stop_if_cancelled(cancel)
        if reuse:
            candidate, vector = self._retrieve(handler, task, timings, on_event)
            _stop_if_cancelled(cancel)
        reason = handler.skip_reason(task, candidate.constraints) if candidate else None
        reusing = candidate is not None and reason is None
        method: str | None = None
        if reusing:
            assert candidate is not None
            on_event(RouteEvent(CachePath.PATCHED, task=task.kind))
            steps, method = self._reuse(handler, task, candidate, gen, timings, on_event)
        else:
            route = CachePath.SKIP_REUSE if reason else CachePath.MISS
            on_event(RouteEvent(route, reason, task.kind))
            on_event(StageEvent("generate"))
            steps = handler.generate(task, gen)
        _stop_if_cancelled(cancel)

        if isinstance(handler, JsonHandler):
            steps = handler.annotate(task, steps)  # each member says what checked it
        answer_text = handler.stitch([s.step for s in steps])
        check = _Stopwatch(self.clock)
        verified = handler.integrity(task, answer_text)
        timings.verify_ms += check.ms()
        path = _path_of(steps, reusing=reusing, skipped=reason is not None)
        answer = self._finish(task, answer_text, path, steps, gen, timings, notes)
        answer.skip_reason, answer.verified, answer.patch_method = reason, verified, method
        answer.matched_entry = candidate.id if reusing and candidate else None
        for index, step in enumerate(steps):
            on_event(StepEvent(index, step))
        _stop_if_cancelled(cancel)
        try:
            if store and reusing and candidate is not None:
                self.store.touch(candidate.id, self.clock.now())
            if store and verified is not False and _adds_information(reusing, gen):
                answer.stored_entry = self._store(task, answer, vector, timings, on_event)
        except StoreError as exc:
            # The answer is computed and correct; a cache that cannot take it (a full disk,
            # a read-only folder) must not throw it away. The caller shows the note.
            answer.notes.append(f"the answer was not cached: {exc}")
        answer.timings.total_ms = total.ms()
        on_event(DoneEvent(answer))
        return answer

    # ------------------------------------------------------------------ stages

    def _retrieve(
        self, handler: TaskHandler, task: Task, timings: Timings, on_event: EventSink
    ) -> tuple[CacheEntry | None, list[float] | None]:
        """The cached request to reuse, or the closest one to explain a skip, or None."""
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
        # A handler whose own test decides (the text gate) compares every neighbour found;
        # the floor then only chooses which rejected neighbour is worth naming in a skip.
        reuse_floor = floor if handler.candidate_floor is None else handler.candidate_floor
        usable = [
            h.entry
            for h in hits
            if h.similarity >= reuse_floor
            and handler.skip_reason(task, h.entry.constraints) is None
        ]
        close = [h.entry for h in hits if h.similarity >= floor]
        if usable or close:
            return (usable or close)[0], vector
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
        steps = [AnswerStep(s.text, s.kind, StepStatus.REUSED, s.key, s.origin) for s in cached]
        whole = all(passed) and handler.integrity(task, handler.stitch(cached)) is not False
        method: str | None = None
        if not whole and self.settings.substitution:
            swapped = handler.substitute(task, candidate.constraints, cached)
            if swapped is not None:
                method = "substitution"
                passed = handler.verify(task, swapped, candidate.constraints)
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
        notes: list[str],
    ) -> Answer:
        """The answer with its token story: only reused model text counts as saved."""
        timings.generate_ms = gen.generate_ms
        saved = sum(
            self.backend.count_tokens(s.text)
            for s in steps
            if s.status == StepStatus.REUSED and s.origin == "model"
        )
        return Answer(
            prompt=task.prompt,
            task=task.kind,
            text=text,
            path=path,
            steps=steps,
            model=self.backend.model_id,
            timings=timings,
            tokens=TokenCounts(gen.prompt_tokens, gen.generated_tokens, saved),
            notes=notes + gen.notes,
        )


def _substituted(new: Step, old: Step) -> AnswerStep:
    """A cached step after substitution: a value the prompt states is a fill, not a reuse."""
    if new.text == old.text:
        return AnswerStep(old.text, old.kind, StepStatus.REUSED, old.key, old.origin)
    if new.origin == "prompt":
        return AnswerStep(new.text, new.kind, StepStatus.FALLBACK, new.key, "prompt")
    return AnswerStep(new.text, new.kind, StepStatus.PATCHED, new.key, old.origin)


def _path_of(steps: Sequence[AnswerStep], *, reusing: bool, skipped: bool) -> CachePath:
    """How the answer was served, counted honestly: a hit needs a step from the cache."""
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


def _constant_changes(entry: CacheEntry, task: Task) -> int:
    """How many constants differ between a same-shaped cached request and this one."""
    mine, theirs = task.constraints, entry.constraints
    slots_new, slots_old = mine.get("slots") or [], theirs.get("slots") or []
    changed = sum(a != b for a, b in zip(slots_new, slots_old, strict=False))
    changed += abs(len(slots_new) - len(slots_old))
    ents_new, ents_old = mine.get("entities") or {}, theirs.get("entities") or {}
    changed += sum(ents_old.get(k) != v for k, v in ents_new.items())
    return changed
