"""JSON objects: one step per requested key, stitched into exactly one object.

A member holds when its key is still required, its value has the asked type and equals
any value the prompt states for it. Each served member says what checked it: `stated` (the
prompt states this value), `open` (the prompt leaves the key to the model, e.g. "a short
description"), `typed` (only its type could be checked) or `unchecked` (the prompt may state
a value for it that could not be placed, or the model gave none). An answer is verified only
when every member is stated or open. A member reused from another request holds only when
the new prompt states its value, or leaves the key open in the same words: a value that came
from an earlier prompt is never served for a prompt that does not state it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import jsonschema

from stepchat.core.events import Delivery
from stepchat.core.jsonextract import extract_object, is_single_object, sole_object
from stepchat.core.jsonextract import loads as strict_loads
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.base import Generation, ModelRequest, Task
from stepchat.core.tasks.common import has_negation, slot_changes, slots_in
from stepchat.core.tasks.json_spec import JsonSpec, read_spec
from stepchat.core.tasks.json_types import (
    as_typed,
    is_placeholder,
    same_value,
    type_schema,
)
from stepchat.core.textgate.normalize import reduce_text
from stepchat.core.types import (
    CACHE_STEP,
    AnswerStep,
    Step,
    StepCheck,
    StepOrigin,
    StepStatus,
    TaskKind,
)

_SYSTEM = "You reply with exactly one JSON object and nothing else."

STATED, OPEN, TYPED, UNCHECKED = (
    StepCheck.STATED, StepCheck.OPEN, StepCheck.TYPED, StepCheck.UNCHECKED
)
"""What checked a served member; only STATED and OPEN members make an answer verified."""


NOT_ALONE = "the model's reply is not one JSON object alone: read as shown, not cached"


def member_text(key: str, value: Any) -> str:
    return f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"


def member_value(step: Step) -> tuple[bool, Any]:
    try:
        parsed = strict_loads("{" + step.text + "}")
    except ValueError:
        return False, None
    if not isinstance(parsed, dict) or list(parsed) != [step.key]:
        return False, None
    return True, parsed[step.key]


@lru_cache(maxsize=512)
def _validator(schema_text: str) -> jsonschema.protocols.Validator:
    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def _type_ok(value: Any, type_name: str) -> bool:
    schema = json.dumps(type_schema(type_name))
    return bool(_validator(schema).is_valid(value))


def _budget(keys: int) -> int:
    """Tokens a JSON object of `keys` short members needs, with room to spare."""
    return 16 + 40 * keys if keys else 200


def wording(prompt: str) -> str:
    """The prompt in the text gate's canonical form, case kept: an open member (a
    description of Bruno) is reused only for the same request, since any changed token may
    change it, and a token is more than its letters (`C#` and `C++`, `-5` and `5`, `☀️` and
    `🌧️`, `>` and `<`, `Apple` and `apple`)."""
    return WORDING_SEPARATOR.join(
        ("+" if t.joined else "") + t.text for t in reduce_text(prompt).tokens)


WORDING_SEPARATOR = "\x1f"


def _stored_wording(stored: Any) -> str | None:
    """A wording as an entry keeps it: a list of tokens, or (entries written before) one
    string of them joined; anything else is none, so an open member is not reused."""
    if isinstance(stored, list) and all(isinstance(t, str) for t in stored):
        return WORDING_SEPARATOR.join(stored)
    return stored if isinstance(stored, str) else None


@dataclass(frozen=True)
class JsonConstraints:
    """A JSON request as the checks need it: its spec, its polarity, its constants, and its
    words when it leaves a key open (an open member is reused only for the same words)."""

    spec: JsonSpec
    negated: bool
    slots: tuple[str, ...]
    wording: str | None = None

    def to_json(self) -> dict[str, Any]:
        spec = self.spec
        data: dict[str, Any] = {
            "keys": list(spec.keys),
            "types": dict(spec.types),
            "entities": dict(spec.entities),
            "negated": self.negated,
            "operation": "json",
            "slots": list(self.slots),
        }
        if spec.open:
            data["open"] = list(spec.open)
            # A list of tokens: `cache show` and the inspector print what is stored.
            data["wording"] = self.wording.split(WORDING_SEPARATOR) if self.wording else None
        if spec.pending:
            data["pending"] = list(spec.pending)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JsonConstraints:
        spec = JsonSpec(
            tuple(str(k) for k in data.get("keys") or ()),
            dict(data.get("types") or {}),
            dict(data.get("entities") or {}),
            tuple(data.get("open") or ()),
            tuple(data.get("pending") or ()),
        )
        return cls(
            spec,
            bool(data.get("negated")),
            tuple(str(s) for s in data.get("slots") or ()),
            _stored_wording(data.get("wording")),
        )


JsonTask = Task[JsonConstraints]


def _say_declined(spec: JsonSpec, gen: Generation) -> None:
    """Why a value the prompt seems to state is not served as stated, once per answer."""
    for key, word in spec.declined:
        why = (f"the prompt's `{word}` is a word this reader cannot place, so the value "
               "is the model's") if word not in (
            "", "unknown", "two types") else {"": "the key list reads two ways",
                                              "unknown": "the prompt says it is unknown",
                                              "two types": "the prompt gives it two types"}[word]
        note = f"{key!r} not read as stated: {why}"
        if note not in gen.notes:
            gen.notes.append(note)


def _said_if_loose(steps: list[AnswerStep], gen: Generation) -> list[AnswerStep]:
    """`steps`, with NOT_ALONE in the notes when one of them is a member read from a reply
    that was not one object alone (the only model member left unchecked with a value: a
    stated fallback and a value left null are the others). Said only then: a loose reply
    whose members were all dropped leaves nothing of it in the answer."""
    loose = any(
        s.check == UNCHECKED and s.status != StepStatus.FALLBACK
        and member_value(s.step)[1] is not None for s in steps
    )
    if loose and NOT_ALONE not in gen.notes:
        gen.notes.append(NOT_ALONE)
    return steps


class JsonHandler:
    kind: str = TaskKind.JSON
    delivery = Delivery(document="json")
    """Served whole (members are checked, and one may be rewritten, after the model wrote
    them) and shown literally; a transcript writes the object as one `json` block."""

    def __init__(
        self,
        strict: bool = True,
        fill_stated: bool = True,
        min_key_overlap: float = 0.5,
        *,
        min_similarity: float = 0.55,
    ) -> None:
        self.strict = strict
        self.fill_stated = fill_stated
        self.min_key_overlap = min_key_overlap
        self.similarity_floor = self.candidate_floor = min_similarity

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> JsonHandler:
        return cls(
            strict=settings.strict_json,
            fill_stated=settings.substitution,
            min_key_overlap=settings.json_min_key_overlap,
            min_similarity=settings.min_similarity,
        )

    def detect(self, prompt: str) -> JsonTask | None:
        spec = read_spec(prompt)
        if spec is None:
            return None
        constraints = JsonConstraints(
            spec,
            negated=has_negation(prompt),
            slots=tuple(slots_in(prompt)),
            wording=wording(prompt) if spec.open else None,
        )
        typed = ",".join(f"{k}:{spec.types[k]}" for k in sorted(spec.keys))
        # Same keys and types is the same structure however the request is phrased; the
        # checks, not the wording, decide whether the cached values still hold.
        signature = f"json|{typed}|{constraints.negated}"
        return Task(self.kind, prompt, signature, constraints)

    def read_constraints(self, stored: dict[str, Any]) -> JsonConstraints:
        return JsonConstraints.from_json(stored)

    def segment(self, text: str) -> list[Step]:
        obj = extract_object(text)
        if obj is None:
            return []
        return [Step(member_text(k, v), "member", k) for k, v in obj.items()]

    def stitch(self, steps: Sequence[Step]) -> str:
        body = ",\n".join(f"  {s.text}" for s in steps)
        return "{\n" + body + "\n}" if steps else "{}"

    def skip_reason(self, task: JsonTask, cached: JsonConstraints) -> str | None:
        new_keys = set(task.constraints.spec.keys)
        old_keys = set(cached.spec.keys)
        overlap = len(new_keys & old_keys) / max(1, len(new_keys | old_keys))
        if overlap < self.min_key_overlap:
            return f"key set mostly new ({overlap:.0%} overlap)"
        if cached.negated != task.constraints.negated:
            return "negation changed"
        return None

    def distance(self, task: JsonTask, cached: JsonConstraints) -> int:
        """Changed constants in the prompt, plus stated values that differ."""
        mine, theirs = task.constraints.spec.entities, cached.spec.entities
        changed = slot_changes(task.constraints.slots, cached.slots)
        return changed + sum(theirs.get(k) != v for k, v in mine.items())

    def verify(
        self, task: JsonTask, steps: Sequence[Step], cached: JsonConstraints | None = None
    ) -> list[bool]:
        """Per member: right key, once, right type, the stated value if any. A member reused
        from `cached` needs more: its value stated by this prompt, or its key left open by
        the very same words."""
        spec = task.constraints.spec
        same_words = cached is not None and cached.wording is not None and (
            cached.wording == task.constraints.wording
        )
        seen: set[str] = set()
        results = []
        for step in steps:
            ok, value = member_value(step)
            key = step.key or ""
            ok = ok and key not in seen and (key in spec.keys or not spec.keys)
            if ok and self.strict and spec.keys:
                type_name = spec.types[key]
                ok = _type_ok(value, type_name)
                if ok and key in spec.entities:
                    ok = same_value(value, spec.entities[key])
                elif ok and cached is not None:
                    ok = key in spec.open and same_words
                    ok = ok and not is_placeholder(value, type_name)
            elif ok and not spec.keys:
                ok = cached is None
            seen.add(key)
            results.append(ok)
        return results

    def annotate(self, task: JsonTask, steps: Sequence[AnswerStep]) -> list[AnswerStep]:
        """Each member marked with what checked it (see the module docstring)."""
        if not self.strict:
            return list(steps)
        spec = task.constraints.spec
        return [replace(s, check=self._check(spec, s)) for s in steps]

    @staticmethod
    def _check(spec: JsonSpec, step: AnswerStep) -> str:
        ok, value = member_value(step.step)
        key = step.key or ""
        if step.check == UNCHECKED or not ok or key not in spec.types:
            return UNCHECKED
        if not _type_ok(value, spec.types[key]):
            return UNCHECKED
        if key in spec.entities:
            return STATED if same_value(value, spec.entities[key]) else UNCHECKED
        if key in spec.open:
            return UNCHECKED if is_placeholder(value, spec.types[key]) else OPEN
        return UNCHECKED if key in spec.pending else TYPED

    def integrity(self, task: JsonTask, text: str) -> bool | None:
        if not is_single_object(text):
            return False
        obj = strict_loads(text)
        spec = task.constraints.spec
        if not spec.keys:
            # Any object answers a request that names no keys; nothing in it can be checked.
            # An empty one answers nothing ("I don't know." made into `{}`).
            return not self.strict and bool(obj)
        if set(obj) != set(spec.keys):
            return False
        if not self.strict:
            return True
        schema = json.dumps(spec.schema(typed=True), sort_keys=True)
        if not _validator(schema).is_valid(obj):
            return False
        if not all(same_value(obj[k], v) for k, v in spec.entities.items()):
            return False
        return all(
            k in spec.entities
            or (k in spec.open and not is_placeholder(obj[k], spec.types[k]))
            for k in spec.keys
        )

    def substitute(
        self, task: JsonTask, cached: JsonConstraints, steps: Sequence[Step]
    ) -> list[Step] | None:
        """Members whose value the new prompt states, rewritten to that value."""
        spec = task.constraints.spec
        out: list[Step] = []
        changed = False
        for step in steps:
            key = step.key or ""
            if key in spec.entities:
                text = member_text(key, spec.entities[key])
                changed = changed or text != step.text
                out.append(Step(text, "member", key, StepOrigin.PROMPT))
            else:
                out.append(step)
        return out if changed else None

    # ------------------------------------------------------------------ producing members

    def model_request(self, task: JsonTask) -> ModelRequest:
        spec = task.constraints.spec
        return ModelRequest(task.prompt, _SYSTEM, spec.schema(), _budget(len(spec.keys)))

    def answers_without_model(self, task: JsonTask) -> bool:
        """Every value is stated: the prompt alone writes the object."""
        spec = task.constraints.spec
        return self.fill_stated and bool(spec.keys) and set(spec.keys) <= set(spec.entities)

    def generate(self, task: JsonTask, gen: Generation) -> list[AnswerStep]:
        spec = task.constraints.spec
        _say_declined(spec, gen)
        if self.answers_without_model(task):
            return self.patch(task, [], [], gen)
        reply = gen.send(self.model_request(task), StepStatus.REGENERATED)
        obj, check = self._object_of(reply.text, spec, gen)
        steps = [
            AnswerStep(member_text(k, as_typed(v, spec.types.get(k, ""))), "member",
                       StepStatus.REGENERATED, k, check=check)
            for k, v in (obj or {}).items()
        ]
        return self.patch(task, steps, self.verify(task, [s.step for s in steps]), gen)

    def _object_of(self, text: str, spec: JsonSpec, gen: Generation
                   ) -> tuple[dict[str, Any] | None, StepCheck | None]:
        """The object a reply holds, asking once for a repair when it holds none, and what
        its members may be checked as: a reply that is not one JSON object alone (prose
        around it, a Python literal, a trailing comma, an example beside it) is read as
        well as it can be and shown, its members unchecked, so the answer is not cached:
        which object the model meant, or what a near-miss means, is a reading."""
        obj = extract_object(text)
        if obj is None:
            gen.notes.append("invalid JSON from the model: asked once for a repair")
            request = ModelRequest(
                f"Rewrite this as one valid JSON object:\n{text[:2000]}", _SYSTEM,
                spec.schema())
            text = gen.send(request, StepStatus.REGENERATED).text
            obj = extract_object(text)
        if obj is None or sole_object(text):
            return obj, None
        return obj, UNCHECKED  # `patch` says so if any of its members is kept

    def patch(
        self, task: JsonTask, steps: Sequence[AnswerStep], passed: Sequence[bool], gen: Generation
    ) -> list[AnswerStep]:
        cached = [ok for s, ok in zip(steps, passed, strict=True) if s.status in CACHE_STEP]
        if cached and not any(cached):
            # No cached member holds: the answer is the model's alone, asked as a fresh
            # request would be. Asked for the missing keys beside an empty "already known"
            # the bundled model left a stated name blank.
            return self.generate(task, gen)
        spec = task.constraints.spec
        _say_declined(spec, gen)
        if not spec.keys:
            return _said_if_loose([s for s, ok in zip(steps, passed, strict=True) if ok], gen)
        good: dict[str, AnswerStep] = {
            s.key: s for s, ok in zip(steps, passed, strict=True) if ok and s.key
        }
        status = StepStatus.PATCHED if any(cached) else StepStatus.REGENERATED
        if self.fill_stated:
            for key, value in spec.entities.items():
                if key not in good:
                    good[key] = AnswerStep(
                        member_text(key, value), "member", StepStatus.FALLBACK, key,
                        StepOrigin.PROMPT,
                    )
        missing = tuple(k for k in spec.keys if k not in good)
        if missing:
            good.update(self._ask_for(task, spec, missing, good, status, gen))
        still = tuple(k for k in spec.keys if k not in good)
        for key in still:
            # null, not a typed placeholder: "" or 0 reads as data to whoever parses the
            # object (a year of 0), and null says no value was found. The model was asked
            # for it, so the member is the model's step (the answer is no solver's), and
            # never stored: an unchecked step leaves the answer unverified (`StepCache`).
            if key in spec.entities:
                gen.notes.append(f"no valid value for {key!r} from the model: the stated "
                                 "one used")
                good[key] = AnswerStep(member_text(key, spec.entities[key]), "member",
                                       StepStatus.FALLBACK, key, check=UNCHECKED)
                continue
            gen.notes.append(f"no valid value for {key!r} from the model: left null")
            good[key] = AnswerStep(member_text(key, None), "member", status, key,
                                   check=UNCHECKED)
        return _said_if_loose([good[k] for k in spec.keys], gen)

    def _ask_for(
        self,
        task: JsonTask,
        spec: JsonSpec,
        missing: tuple[str, ...],
        good: dict[str, AnswerStep],
        status: StepStatus,
        gen: Generation,
    ) -> dict[str, AnswerStep]:
        known = "{" + ", ".join(s.text for s in good.values()) + "}"
        request = (
            f"{task.prompt}\n\nAlready known: {known}\n"
            f"Return a JSON object with only these keys: {', '.join(missing)}."
        )
        reply = gen.send(
            ModelRequest(request, _SYSTEM, spec.schema(missing), _budget(len(missing))), status
        )
        obj, check = self._object_of(reply.text, JsonSpec(missing, spec.types, {}), gen)
        found: dict[str, AnswerStep] = {}
        for key in missing:
            if obj is None or key not in obj:
                continue
            step = AnswerStep(member_text(key, as_typed(obj[key], spec.types[key])), "member",
                              status, key, check=check)
            if self.verify(task, [step.step]) == [True]:
                found[key] = step
        return found
