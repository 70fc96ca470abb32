"""Value types shared by the pipeline, the adapters, the UI and the bench.

They are plain dataclasses so that a cached entry, an answer and its story can be
serialised to JSON (CLI `--json`, bench `requests.jsonl`) without any adapter involved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, TypeVar


class TaskKind(StrEnum):
    """The built-in kinds of request; a kind decides the steps and the checks. The engine
    and the stores take any kind name (see `stepchat.core.tasks.registry`)."""

    LINEAR = "linear"
    JSON = "json"
    TEXT = "text"
    WORD_PROBLEM = "word-problem"


class StepStatus(StrEnum):
    """Where a step of a served answer came from."""

    REUSED = "reused"
    PATCHED = "patched"
    REGENERATED = "regenerated"
    FALLBACK = "fallback"
    RECOMPUTED = "recomputed"
    """A cached step whose numbers were recomputed for the new request: the reasoning is
    the cached answer's, the arithmetic is new (word problems)."""


class CachePath(StrEnum):
    """How a whole request was served."""

    REUSE_ONLY = "reuse-only"
    PATCHED = "patched"
    SKIP_REUSE = "skip-reuse"
    MISS = "miss"
    SOLVER = "solver"
    """No cached step survived or none was needed: the exact solver or the values the prompt
    states wrote the whole answer. Not a cache hit, whatever was looked up."""


class StepOrigin(StrEnum):
    """Who wrote a step: only reused model text counts as tokens the cache saved."""

    MODEL = "model"
    SOLVER = "solver"
    PROMPT = "prompt"
    """A value the request states, filled in without the model."""


class StepCheck(StrEnum):
    """What verified a served step, where its kind reports one."""

    STATED = "stated"
    """A JSON member equal to a value the prompt states."""
    OPEN = "open"
    """A JSON member the prompt leaves to the model."""
    TYPED = "typed"
    """A JSON member of which only the type could be checked."""
    UNCHECKED = "unchecked"
    """A JSON member nothing could check."""
    RECOMPUTED = "recomputed"
    """A word problem's cached step, its arithmetic redone with the new numbers."""
    CORRECTED = "corrected"
    """A word problem's step whose arithmetic slip exact arithmetic corrected."""


UNVOUCHED = frozenset({StepCheck.TYPED, StepCheck.UNCHECKED})
"""Checks after which a JSON member is served but not vouched for: every front end says so."""


class PatchMethod(StrEnum):
    """What rewrote a reused answer's steps. An answer's `patch_method` joins the ones used
    with "+", in this order ("substitution+model"); "reorder" when none was needed."""

    SUBSTITUTION = "substitution"
    MODEL = "model"
    FALLBACK = "fallback"
    REORDER = "reorder"


CACHE_STEP = frozenset({StepStatus.REUSED, StepStatus.PATCHED, StepStatus.RECOMPUTED})
"""Statuses of steps served from the cache, as they were or patched."""

HIT_PATHS = frozenset({CachePath.REUSE_ONLY, CachePath.PATCHED})
"""Paths of an answer served at least partly from the cache."""


def is_hit_path(path: str) -> bool:
    """Whether a path names a cache hit. The pipeline gives these paths only to answers with
    a step from the cache, so the path alone tells a hit where the steps are not at hand
    (a reply header, a bench record); a path no stepchat answer has is not a hit."""
    return path in HIT_PATHS


@dataclass(frozen=True)
class Step:
    """One unit of an answer that can be checked and replaced on its own.

    `kind` is task specific: "equation", "prose" and "final" for linear equations,
    "member" for a JSON key (then `key` names it), "paragraph" for generic text.
    `origin` is a `StepOrigin` (who wrote it): only reused model text counts as tokens the
    cache saved.
    """

    text: str
    kind: str
    key: str | None = None
    origin: str | None = None
    tokens: int | None = None
    """Model tokens in `text`, counted when the step is stored, so a later reuse reports what
    it saved without loading a tokenizer (reading llama.cpp's vocabulary costs about 0.3 s,
    a third of what a whole hit from the shell may take). None: not counted yet."""


@dataclass(frozen=True)
class AnswerStep:
    """A step as served, with the status the UI colours and the bench counts.

    `check` is a `StepCheck`, what verified the step (a JSON member, a recomputed word
    problem step); None where the task has no per-step check to report.
    """

    text: str
    kind: str
    status: StepStatus
    key: str | None = None
    origin: str | None = None
    check: str | None = None
    tokens: int | None = None
    """The stored step's token count, carried while its text is served unchanged."""

    @property
    def step(self) -> Step:
        """The step as it is stored, with who wrote it."""
        return Step(
            self.text, self.kind, self.key, self.origin or _ORIGIN[self.status], self.tokens
        )


_ORIGIN = {
    StepStatus.REUSED: StepOrigin.MODEL,
    StepStatus.PATCHED: StepOrigin.MODEL,
    StepStatus.REGENERATED: StepOrigin.MODEL,
    StepStatus.FALLBACK: StepOrigin.SOLVER,
    StepStatus.RECOMPUTED: StepOrigin.MODEL,
}


@dataclass
class Timings:
    """Milliseconds spent per stage of one request."""

    embed_ms: float = 0.0
    retrieve_ms: float = 0.0
    verify_ms: float = 0.0
    generate_ms: float = 0.0
    total_ms: float = 0.0

    def as_record(self) -> dict[str, float]:
        return {
            "embed": round(self.embed_ms, 3),
            "retrieve": round(self.retrieve_ms, 3),
            "verify": round(self.verify_ms, 3),
            "generate": round(self.generate_ms, 3),
            "total": round(self.total_ms, 3),
        }


@dataclass
class TokenCounts:
    """Tokens one request cost, and what it saved against generating the whole answer."""

    prompt: int = 0
    generated: int = 0
    saved: int = 0

    def as_record(self) -> dict[str, int]:
        return {"prompt": self.prompt, "generated": self.generated, "saved": self.saved}


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str


@dataclass(frozen=True)
class Completion:
    """What a backend returned for one call: `finish_reason` is "length" when the token
    limit cut the reply, "stop" when the model ended it, a server's other reason as it gave
    it ("content_filter"), or "" where it gave none."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str = "stop"
    elapsed_ms: float = 0.0
    load_ms: float = 0.0
    """Time this call waited for the model to load first: part of the answer's latency,
    not of the model's writing, so its speed leaves it out."""


@dataclass
class CacheEntry:
    """One cached, verified request: what the store persists per row."""

    id: str
    prompt: str
    vector: list[float]
    scope: str
    task: str
    """The task kind's name (a `TaskKind` for the built-in kinds)."""
    signature: str
    constraints: dict[str, Any]
    steps: list[Step]
    model: str
    created: float
    last_hit: float
    hits: int = 0
    tokens: int = 0

    def size_bytes(self) -> int:
        """What the entry weighs against the cache's byte limit: its prompt (UTF-8), its
        steps as stored (`steps_json`) and its vector (float32). A store can sum this from
        column lengths without decoding a row, so the limit is checked on every open."""
        return len(self.prompt.encode()) + len(steps_json(self.steps)) + 4 * len(self.vector)


@dataclass(frozen=True)
class Delivery:
    """How front ends deliver a kind's answers: a property of the kind, so no front end
    tests a kind by name."""

    streams: bool = False
    """The model's tokens are the answer's text as they arrive (nothing checks or rewrites
    them afterwards), so a front end may show them live; otherwise the answer is served
    whole once it is checked, as a stream would show steps that fail verification."""
    markdown: bool = False
    """Render the text as Markdown; otherwise literally (in an equation `*` and `_` are
    algebra, not emphasis)."""
    document: str | None = None
    """The answer is one document in this language (e.g. "json"): a transcript writes it
    whole as a code block of that language, with no markup or tags inside it."""


SERVED_WHOLE = Delivery()
"""Checked before it is shown, and shown literally: what a kind that does not say gets."""


@dataclass
class Answer:
    """A served answer with its story: the contract the CLI, the UI and the bench read."""

    prompt: str
    task: str
    text: str
    path: CachePath
    steps: list[AnswerStep]
    model: str
    skip_reason: str | None = None
    timings: Timings = field(default_factory=Timings)
    tokens: TokenCounts = field(default_factory=TokenCounts)
    matched_entry: str | None = None
    stored_entry: str | None = None
    verified: bool | None = None
    patch_method: str | None = None
    notes: list[str] = field(default_factory=list)
    finish_reason: str = "stop"
    """"length" when a model call made for this answer stopped at the token limit, a server's
    other reason ("content_filter", or "unfinished" where it gave none) when one stopped
    before its end: the answer may be cut off, and it is never cached; "stop" otherwise
    (OpenAI's names)."""
    delivery: Delivery = SERVED_WHOLE
    """How front ends show it: its kind's `delivery`. Not part of `to_record` (the record of
    `ask --json` names the kind already); a saved conversation keeps it beside the record."""

    @property
    def hit(self) -> bool:
        """Served at least one step from the cache (as it was, or patched)."""
        return is_hit_path(self.path) and any(s.status in CACHE_STEP for s in self.steps)

    def to_record(self) -> dict[str, Any]:
        """The JSON record of `stepchat ask --json`; scripts depend on these names."""
        return {
            "answer": self.text,
            "path": str(self.path),
            "hit": self.hit,
            "task": str(self.task),
            "steps": [step_record(s) for s in self.steps],
            "skip_reason": self.skip_reason,
            "timings_ms": self.timings.as_record(),
            "tokens": self.tokens.as_record(),
            "model": self.model,
            "verified": self.verified,
            "patch_method": self.patch_method,
            "matched_entry": self.matched_entry,
            "stored_entry": self.stored_entry,
            "notes": list(self.notes),
            "finish_reason": self.finish_reason,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any], prompt: str = "") -> Answer:
        """The answer a `to_record()` record tells, such as one saved in a conversation.

        The inverse of `to_record` but for what a record leaves out: the prompt (given
        here), who wrote each step (`origin` stays None; `AnswerStep.step` reads it from the
        status) and timings finer than a microsecond. `hit` is not read: it follows from the
        path and the steps. Records saved by older versions miss keys (`hit`, a step's
        `check`); a missing value takes its default, an unknown path reads as a miss and an
        unknown step status as regenerated, so an old conversation still opens. A record
        that is not an object raises TypeError.
        """
        record = _mapping(record, "an answer record")
        timings = _mapping(record.get("timings_ms") or {}, "timings_ms")
        tokens = _mapping(record.get("tokens") or {}, "tokens")
        return cls(
            prompt=prompt,
            task=_text_or_none(record.get("task")) or TaskKind.TEXT,
            text=_text_or_none(record.get("answer")) or "",
            path=_member(CachePath, record.get("path"), CachePath.MISS),
            steps=[step_from_record(s) for s in record.get("steps") or []],
            model=_text_or_none(record.get("model")) or "",
            skip_reason=_text_or_none(record.get("skip_reason")),
            timings=Timings(
                embed_ms=float(timings.get("embed", 0.0)),
                retrieve_ms=float(timings.get("retrieve", 0.0)),
                verify_ms=float(timings.get("verify", 0.0)),
                generate_ms=float(timings.get("generate", 0.0)),
                total_ms=float(timings.get("total", 0.0)),
            ),
            tokens=TokenCounts(
                prompt=int(tokens.get("prompt", 0)),
                generated=int(tokens.get("generated", 0)),
                saved=int(tokens.get("saved", 0)),
            ),
            matched_entry=_text_or_none(record.get("matched_entry")),
            stored_entry=_text_or_none(record.get("stored_entry")),
            verified=None if record.get("verified") is None else bool(record["verified"]),
            patch_method=_text_or_none(record.get("patch_method")),
            notes=[str(note) for note in record.get("notes") or []],
            finish_reason=_text_or_none(record.get("finish_reason")) or "stop",
        )


def step_record(step: AnswerStep) -> dict[str, Any]:
    """A served step as `stepchat ask --json` and the bench's records write it."""
    return {
        "text": step.text, "status": str(step.status), "kind": step.kind, "key": step.key,
        "check": step.check,
    }


def step_from_record(data: Mapping[str, Any]) -> AnswerStep:
    """A served step from its `step_record`; as `Answer.from_record`, tolerant of records
    older versions wrote (no `check`; an unknown status shows as regenerated)."""
    data = _mapping(data, "a step record")
    return AnswerStep(
        text=_text_or_none(data.get("text")) or "",
        kind=_text_or_none(data.get("kind")) or "paragraph",
        status=_member(StepStatus, data.get("status"), StepStatus.REGENERATED),
        key=_text_or_none(data.get("key")),
        check=_text_or_none(data.get("check")),
    )


_Enum = TypeVar("_Enum", bound=StrEnum)


def _member(enum: type[_Enum], value: Any, default: _Enum) -> _Enum:
    """`value` as a member of `enum`, or `default` when it names none."""
    try:
        return enum(str(value))
    except ValueError:
        return default


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} is a {type(value).__name__}, not an object")
    return value


def step_to_dict(step: Step) -> dict[str, Any]:
    return {k: v for k, v in asdict(step).items() if v is not None}


def steps_json(steps: list[Step]) -> str:
    """Steps as a store keeps them: a JSON array, ASCII only (its length is its byte size)."""
    return json.dumps([step_to_dict(s) for s in steps])


def step_from_dict(data: dict[str, Any]) -> Step:
    tokens = data.get("tokens")
    return Step(
        text=str(data["text"]), kind=str(data["kind"]), key=data.get("key"),
        origin=data.get("origin"),
        tokens=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0
        else None,
    )
