"""StepCache: serve one request through the step-level cache.

detect -> (structural lookup | embed + nearest) -> skip-reuse policy -> verify each cached
step -> substitution -> selective patch -> stitch -> integrity check -> store if verified.
Each stage is timed into the answer's story and reported as events.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from stepchat.core.conversation import (
    FOLLOW_UP_NOTE,
    WAITING_NOTE,
    FittedHistory,
    fit_history,
    waiting_in,
)
from stepchat.core.cutoff import (
    cut_off_note,
    cut_off_reason,
    handler_constraints,
    marked_complete,
    unfinished_note,
)
from stepchat.core.events import (
    DoneEvent,
    EventSink,
    PipelineEvent,
    RouteEvent,
    Stage,
    StageEvent,
    StepEvent,
    ignore_events,
)
from stepchat.core.notes import EMPTY_NOTE, NOT_CHECKED_NOTE
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
from stepchat.core.prompt import Accepted, PromptError, accept_prompt
from stepchat.core.scope import scope_of
from stepchat.core.settings import DEFAULT_SETTINGS, PipelineSettings
from stepchat.core.standalone import NOT_ALONE_NOTE, neutral_system_prompt
from stepchat.core.tasks.base import (
    Generation,
    LearnsFromEarlierAnswers,
    Routed,
    Task,
    TaskHandler,
    answers_alone,
    delivery_of,
)
from stepchat.core.tasks.registry import BUILT_IN, TaskKinds
from stepchat.core.types import (
    CACHE_STEP,
    Answer,
    AnswerStep,
    CacheEntry,
    CachePath,
    ChatMessage,
    PatchMethod,
    Step,
    StepCheck,
    StepOrigin,
    StepStatus,
    Timings,
    TokenCounts,
)

__all__ = ["PromptError", "StepCache", "scope_of"]


_ENTRY_SERIAL = itertools.count()
"""The default numbering of new entries, shared by every engine in the process, so ids
differ even under one fixed clock (an engine built again for the same model and system
prompt must not reuse an id)."""


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
    """How one request is routed, decided once by retrieval: the cached entry it reuses
    (with that entry's constraints, typed by its handler), or why the nearest one is
    skipped."""

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


@dataclass
class _Request:
    """One request after detection: what every stage of serving it reads and adds to.

    `gen` calls the model for it and carries its event sink, cancel token, settings and
    earlier turns; `timings` and `notes` fill in as the stages run.
    """

    handler: TaskHandler[Any]
    task: Task[Any]
    gen: Generation
    total: _Stopwatch
    notes: list[str]
    timings: Timings = field(default_factory=Timings)

    def emit(self, event: PipelineEvent) -> None:
        self.gen.on_event(event)

    def stop_if_cancelled(self) -> None:
        _stop_if_cancelled(self.gen.cancel)


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
        entry_serials: Iterator[int] | None = None,
        after_model_call: Callable[[], None] | None = None,
    ) -> None:
        """`entry_serials` numbers the entries this engine stores (a part of their ids;
        the process's numbering when None); engines built from this one share it. Tests
        give each app its own, from 0, so ids are the same on every run (snapshots).
        `after_model_call` runs after each answer the model wrote, where a pause of tens
        of milliseconds is lost in the seconds the model took: the process's put-off
        garbage collection (`stepchat.heap.collect_if_due`), never in a served answer."""
        self.backend = backend
        self.embedder = embedder
        self.store = store
        self.settings = settings
        self.clock = clock or SystemClock()
        self.kinds = kinds
        self.handlers = kinds.build(settings)
        self.entry_serials = _ENTRY_SERIAL if entry_serials is None else entry_serials
        self.after_model_call = after_model_call

    def _entry_id(self, prompt: str, now: float) -> str:
        """Unique per engine and stable under a fixed clock (deterministic snapshots)."""
        seed = f"{self.scope}\x1f{prompt}\x1f{now!r}\x1f{next(self.entry_serials)}"
        return hashlib.blake2b(seed.encode(), digest_size=8).hexdigest()

    @property
    def scope(self) -> str:
        return scope_of(self.backend.model_id, self.settings.system_prompt,
                        self.settings.model_source)

    def detect(self, prompt: str) -> tuple[TaskHandler[Any], Task[Any]]:
        """The handler whose kind the prompt is, and the task it read."""
        return self.handlers.detect(prompt)

    def detect_within(
        self, accepted: Accepted, system_prompt: str | None = None
    ) -> tuple[TaskHandler[Any], Task[Any]]:
        """The kind the engine answers `accepted` as, under `system_prompt` (None: this
        engine's): a prompt longer than the readers take, or a checked kind's under a
        system prompt that may change what it asks, is open text."""
        handler, task, _ = self._kind_of(accepted, system_prompt)
        return handler, task

    def _kind_of(
        self, accepted: Accepted, system_prompt: str | None
    ) -> tuple[TaskHandler[Any], Task[Any], bool]:
        """`detect_within`, and whether a checked kind was set aside for the system prompt
        (`stepchat.core.standalone`): the answer says so."""
        fallback = self.handlers.fallback
        if accepted.long:
            return fallback, fallback.detect(accepted.text), False
        handler, task = self.detect(accepted.text)
        system = self.settings.system_prompt if system_prompt is None else system_prompt
        if handler is fallback or neutral_system_prompt(system):
            return handler, task, False
        return fallback, fallback.detect(accepted.text), True

    # ------------------------------------------------------------------ the request

    def answer(
        self,
        prompt: str | bytes,
        *,
        history: Sequence[ChatMessage] = (),
        in_conversation: bool = False,
        on_event: EventSink = ignore_events,
        cancel: CancelToken | None = None,
        read_cache: bool = True,
        write_cache: bool = True,
    ) -> Answer:
        """Serve `prompt`, the newest turn after `history` (earlier user and assistant turns).

        `read_cache` False answers without looking in the cache (Regenerate, a bench arm);
        `write_cache` False keeps the answer out of it.
        In a conversation any request can lean on earlier turns ("and in winter?", "every
        number I write is in base 8", "Bruno is a chef"), and no check reads them, so it is
        neither served from nor written to the cache, whatever its kind. `in_conversation`
        says there were earlier turns when none are sent: all of them were trimmed to fit
        the model's context, and they may still have said something the request leans on.
        Under a system prompt that may change what it asks, a checked kind's request is
        open text (`stepchat.core.standalone`).
        """
        total = _Stopwatch(self.clock)
        accepted = accept_prompt(prompt)
        notes = list(accepted.notes)
        handler, task, set_aside = self._kind_of(accepted, None)
        if set_aside:
            notes.append(NOT_ALONE_NOTE)
        if read_cache or write_cache:
            if history or in_conversation:
                notes.append(WAITING_NOTE if waiting_in(history) else FOLLOW_UP_NOTE)
                read_cache = write_cache = False
            elif accepted.long:
                read_cache = write_cache = False
        gen = Generation(
            self.backend, self.settings, on_event, cancel, clock=self.clock,
            history=tuple(history),
        )
        request = _Request(handler, task, gen, total, notes)
        request.stop_if_cancelled()
        alone = ANSWERS_ALONE.set(answers_alone(handler, task))
        try:
            return self._serve(request, read_cache, write_cache)
        finally:
            ANSWERS_ALONE.reset(alone)

    def fit_history(
        self, history: Sequence[ChatMessage], prompt: str, *, context: int
    ) -> FittedHistory:
        """The newest earlier turns that fit a model `context` tokens long beside this
        engine's system prompt, `prompt` and a reply of its token limit: what every front
        end sends the model with a request in a conversation."""
        if not history:
            return FittedHistory((), 0, 0)
        return fit_history(
            history,
            prompt,
            count_tokens=self.backend.count_tokens,
            context=context,
            reply_tokens=self.settings.max_tokens,
            system_prompt=self.settings.system_prompt,
        )

    def _serve(self, request: _Request, read_cache: bool, write_cache: bool) -> Answer:
        """Route, answer, keep: the request after detection."""
        handler, task = request.handler, request.task
        route = self._retrieve(request) if read_cache else _Route()
        request.stop_if_cancelled()
        request.emit(
            RouteEvent(route.announced, route.skip_reason, task.kind, delivery_of(handler))
        )
        if route.reusing:
            steps, method = self._reuse(request, route)
        else:
            request.emit(StageEvent(Stage.GENERATE))
            steps, method = handler.generate(task, request.gen), None
        request.stop_if_cancelled()
        answer = self._answer(request, route, steps, method)
        for index, step in enumerate(answer.steps):
            request.emit(StepEvent(index, step))
        request.stop_if_cancelled()
        if write_cache:
            self._keep(request, answer, route, replacing=not read_cache)
        answer.notes.extend(self.store.drain_notes())
        if request.gen.calls and self.after_model_call is not None:
            self.after_model_call()
        answer.timings.total_ms = request.total.ms()
        request.emit(DoneEvent(answer))
        return answer

    # ------------------------------------------------------------------ stages

    def _cut_off(self, entry: CacheEntry) -> str | None:
        """Why an entry written before cut-off answers were refused may be one, or None."""
        return cut_off_reason(entry, self.settings.max_tokens)

    def _read(self, request: _Request, entry: CacheEntry) -> Any:
        """A cached entry's constraints, typed by the request's handler."""
        return request.handler.read_constraints(handler_constraints(entry))

    def _through(
        self, request: _Request, entry: CacheEntry, cached: Any, vector: list[float] | None
    ) -> _Route:
        """The route through `entry` (its constraints `cached`): reused, or why not."""
        skip = self._cut_off(entry) or request.handler.skip_reason(request.task, cached)
        return _Route(entry, cached, skip, vector)

    def _retrieve(self, request: _Request) -> _Route:
        """The one routing decision: the cached request to reuse, or the closest one to
        explain a skip, or none. Each entry's constraints are read at most once and the
        skip rule (for open text, a whole gate comparison) runs at most once per entry."""
        handler, task, timings = request.handler, request.task, request.timings
        request.emit(StageEvent(Stage.RETRIEVE))
        newest: _Route | None = None
        if self.settings.signature_lookup:
            watch = _Stopwatch(self.clock)
            entry = self.store.find_signature(scope=self.scope, signature=task.signature)
            timings.retrieve_ms += watch.ms()
            if entry is not None and entry.task == task.kind and not self._cut_off(entry):
                # Same structure: its steps are verified, substituted and patched as needed,
                # which costs less than embedding the prompt to look for a closer entry.
                newest = self._through(request, entry, self._read(request, entry), None)
                if newest.reusing:
                    return newest
                # The newest of its structure is skipped (`014` for `14`): an older one,
                # the very request among them, may still be reused.
        request.emit(StageEvent(Stage.EMBED))
        watch = _Stopwatch(self.clock)
        vector = self.embedder.embed(task.prompt)
        timings.embed_ms += watch.ms()
        watch = _Stopwatch(self.clock)
        hits = self.store.search(vector, scope=self.scope, task=task.kind, k=4)
        timings.retrieve_ms += watch.ms()
        same_shape = [
            (h.entry, self._read(request, h.entry)) for h in hits
            if h.entry.signature == task.signature
        ]
        if same_shape:
            entry, cached = min(same_shape, key=lambda pair: handler.distance(task, pair[1]))
            return self._through(request, entry, cached, vector)
        # A handler whose own test decides (the text gate) compares every neighbour found;
        # its similarity floor then only chooses which rejected neighbour to name in a skip.
        judged: dict[int, _Route] = {}
        for index, hit in enumerate(hits):
            if hit.similarity >= handler.candidate_floor and not self._cut_off(hit.entry):
                route = self._through(request, hit.entry, self._read(request, hit.entry), vector)
                if route.reusing:
                    return route
                judged[index] = route
        close = next(
            (i for i, h in enumerate(hits) if h.similarity >= handler.similarity_floor), None
        )
        if close is None:
            return replace(newest, vector=vector) if newest else _Route(vector=vector)
        entry = hits[close].entry
        return judged.get(close) or self._through(
            request, entry, self._read(request, entry), vector
        )

    def _reuse(self, request: _Request, route: _Route) -> tuple[list[AnswerStep], str | None]:
        """The cached steps, verified; substituted and patched where they no longer hold."""
        assert route.entry is not None, "only a route with an entry reuses"
        handler, task, gen = request.handler, request.task, request.gen
        cached_constraints = route.cached
        request.emit(StageEvent(Stage.VERIFY))
        cached = route.entry.steps
        watch = _Stopwatch(self.clock)
        passed = handler.verify(task, cached, cached_constraints)
        steps = [_reused(s) for s in cached]
        whole = all(passed) and handler.integrity(task, handler.stitch(cached)) is not False
        method: str | None = None
        if not whole and self.settings.substitution:
            swapped = handler.substitute(task, cached_constraints, cached)
            if swapped is not None:
                method = PatchMethod.SUBSTITUTION
                passed = handler.verify(task, swapped, cached_constraints)
                steps = [_substituted(new, old) for new, old in zip(swapped, cached, strict=True)]
                stitched = handler.stitch(swapped)
                whole = all(passed) and handler.integrity(task, stitched) is not False
        request.timings.verify_ms += watch.ms()
        if whole:
            return steps, method
        request.stop_if_cancelled()
        request.emit(StageEvent(Stage.GENERATE))
        calls_before = gen.calls
        patched = handler.patch(task, steps, passed, gen)
        used_model = gen.calls > calls_before
        used_solver = any(s.status == StepStatus.FALLBACK for s in patched)
        parts = [p for p in (method, PatchMethod.MODEL if used_model else None,
                             PatchMethod.FALLBACK if used_solver else None) if p]
        return patched, "+".join(parts) or PatchMethod.REORDER

    def _store(
        self, request: _Request, answer: Answer, route: _Route, *, replacing: bool
    ) -> str:
        request.emit(StageEvent(Stage.STORE))
        handler, task = request.handler, request.task
        vector = route.vector
        if vector is None:
            watch = _Stopwatch(self.clock)
            vector = self.embedder.embed(task.prompt)
            request.timings.embed_ms += watch.ms()
        now = self.clock.now()
        constraints = _stored_constraints(handler, task, answer, route)
        entry = CacheEntry(
            id=self._entry_id(task.prompt, now),
            prompt=task.prompt,
            vector=vector,
            scope=self.scope,
            task=task.kind,
            signature=task.signature,
            constraints=marked_complete(constraints.to_json()),  # the store keeps JSON
            steps=[self._counted(s.step) for s in answer.steps],
            model=self.backend.model_id,
            created=now,
            last_hit=now,
            hits=0,
            tokens=self.backend.count_tokens(answer.text),
        )
        self.store.add(entry)
        if replacing:
            self._drop_copies(entry)
        return entry.id

    def _drop_copies(self, entry: CacheEntry) -> None:
        """Remove the other entries of `entry`'s prompt, kind and scope (the same prompt
        embeds to the same vector, so they are its nearest)."""
        near = self.store.search(entry.vector, scope=entry.scope, task=entry.task, k=8)
        for hit in near:
            if hit.entry.id != entry.id and hit.entry.prompt == entry.prompt:
                self.store.delete(hit.entry.id)

    def _tokens_of(self, step: AnswerStep) -> int:
        return step.tokens if step.tokens is not None else self.backend.count_tokens(step.text)

    def _counted(self, step: Step) -> Step:
        """The step with its model-token count, so reusing it later needs no tokenizer."""
        if step.origin != StepOrigin.MODEL or step.tokens is not None:
            return step
        return replace(step, tokens=self.backend.count_tokens(step.text))

    def _answer(
        self,
        request: _Request,
        route: _Route,
        steps: list[AnswerStep],
        method: str | None,
    ) -> Answer:
        """The answer, built once: its steps marked with what checked them, the whole text
        checked, and its token story (only reused model text counts as saved)."""
        handler, task, gen, timings = request.handler, request.task, request.gen, request.timings
        steps = handler.annotate(task, steps)
        text = handler.stitch([s.step for s in steps])
        check = _Stopwatch(self.clock)
        verified = handler.integrity(task, text)
        if verified and any(s.check == StepCheck.UNCHECKED for s in steps):
            verified = False  # a step nothing checked leaves the answer unchecked
        timings.verify_ms += check.ms()
        timings.generate_ms = gen.generate_ms
        saved = sum(
            self._tokens_of(s)
            for s in steps
            if s.status in _SAVING and s.origin == StepOrigin.MODEL
        )
        if gen.cut_off_at is not None:
            finish, ending = "length", [cut_off_note(gen.cut_off_at, gen.context_filled)]
        elif gen.unfinished is not None:
            finish, ending = gen.unfinished, [unfinished_note(gen.unfinished)]
        else:
            finish, ending = "stop", []
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
            notes=request.notes + gen.notes + ending,
            finish_reason=finish,
            delivery=delivery_of(handler),
        )

    def _keep(
        self, request: _Request, answer: Answer, route: _Route, *, replacing: bool
    ) -> None:
        """Count the hit and store what adds information; never an unverified answer, nor
        one the model did not finish (the token limit cut it, or its server stopped it),
        nor an empty one (a reply of nothing served to everyone after).

        An answer asked for with reuse off (`replacing`) takes the place of the entries of
        the same prompt in this scope: kept, each such request would add a copy, and
        evicting or marking one wrong would leave the others serving."""
        try:
            if answer.hit and route.entry is not None:
                # Only an answer that served a cached step is a hit: one the solver wrote
                # whole after routing through the entry neither counts nor keeps it young.
                self.store.touch(route.entry.id, self.clock.now())
            finished = answer.finish_reason == "stop"
            if (
                finished
                and answer.text.strip()
                and answer.verified is not False
                and _adds_information(route.reusing, request.gen)
            ):
                answer.stored_entry = self._store(request, answer, route, replacing=replacing)
            elif finished and not any("not cached" in note for note in answer.notes):
                if not answer.text.strip():
                    answer.notes.append(EMPTY_NOTE)
                elif answer.verified is False:
                    answer.notes.append(NOT_CHECKED_NOTE)
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
    if new.origin == StepOrigin.PROMPT:
        return AnswerStep(new.text, new.kind, StepStatus.FALLBACK, new.key, StepOrigin.PROMPT)
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


def _stored_constraints(
    handler: TaskHandler[Any], task: Task[Any], answer: Answer, route: _Route
) -> Any:
    """What the entry keeps (as JSON in the store): the task's constraints, or what a kind
    that learns from earlier answers makes of them, the answer and the routed entry."""
    if not isinstance(handler, LearnsFromEarlierAnswers):
        return task.constraints
    routed = None
    if route.entry is not None and route.entry.task == task.kind:
        routed = Routed(route.cached, tuple(route.entry.steps))
    return handler.stored_constraints(task, [s.step for s in answer.steps], routed)


def _adds_information(reusing: bool, gen: Generation) -> bool:
    """Store what was written fresh, and patches the model contributed to. An answer rebuilt
    from a cached entry without the model (reused, substituted, solved, filled) is rebuilt
    from the same entry in milliseconds next time, so storing it would cost an embedding and
    a write for nothing."""
    return not reusing or gen.generated_tokens > 0
