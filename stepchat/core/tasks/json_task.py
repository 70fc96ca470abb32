"""JSON objects: one step per requested key, stitched into exactly one object.

A member holds when its key is still required, its value has the asked type and agrees
with any value the prompt states. Values the prompt states are filled in directly; only
the keys nobody stated go to the model, with decoding constrained to their schema.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import jsonschema

from stepchat.core.jsonextract import extract_object, is_single_object
from stepchat.core.tasks.base import Generation, Task
from stepchat.core.tasks.common import has_negation, mentions_any, slots_in
from stepchat.core.tasks.json_spec import JsonSpec, read_spec
from stepchat.core.types import AnswerStep, ChatMessage, Step, StepStatus, TaskKind

_SYSTEM = "You reply with exactly one JSON object and nothing else."
_DEFAULTS: dict[str, Any] = {"string": "", "integer": 0, "number": 0, "boolean": False}


def member_text(key: str, value: Any) -> str:
    return f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"


def member_value(step: Step) -> tuple[bool, Any]:
    try:
        parsed = json.loads("{" + step.text + "}")
    except (json.JSONDecodeError, RecursionError):
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
    schema = json.dumps({"type": type_name})
    return bool(_validator(schema).is_valid(value))


def _budget(keys: int) -> int:
    """Tokens a JSON object of `keys` short members needs, with room to spare."""
    return 16 + 40 * keys


def spec_of(task: Task) -> JsonSpec:
    c = task.constraints
    return JsonSpec(tuple(c["keys"]), dict(c["types"]), dict(c["entities"]), (0, 0))


class JsonHandler:
    kind = TaskKind.JSON
    candidate_floor: float | None = None

    def __init__(
        self, strict: bool = True, fill_stated: bool = True, min_key_overlap: float = 0.5
    ) -> None:
        self.strict = strict
        self.fill_stated = fill_stated
        self.min_key_overlap = min_key_overlap

    def detect(self, prompt: str) -> Task | None:
        spec = read_spec(prompt)
        if spec is None:
            return None
        constraints: dict[str, Any] = {
            "keys": list(spec.keys),
            "types": spec.types,
            "entities": spec.entities,
            "negated": has_negation(prompt),
            "operation": "json",
            "slots": slots_in(prompt),
        }
        typed = ",".join(f"{k}:{spec.types[k]}" for k in sorted(spec.keys))
        # Same keys and types is the same structure however the request is phrased; the
        # checks, not the wording, decide whether the cached values still hold.
        signature = f"json|{typed}|{constraints['negated']}"
        return Task(TaskKind.JSON, prompt, signature, constraints)

    def segment(self, text: str) -> list[Step]:
        obj = extract_object(text)
        if obj is None:
            return []
        return [Step(member_text(k, v), "member", k) for k, v in obj.items()]

    def stitch(self, steps: Sequence[Step]) -> str:
        body = ",\n".join(f"  {s.text}" for s in steps)
        return "{\n" + body + "\n}" if steps else "{}"

    def skip_reason(self, task: Task, cached: dict[str, Any]) -> str | None:
        new_keys = set(task.constraints["keys"])
        old_keys = set(cached.get("keys", []))
        overlap = len(new_keys & old_keys) / max(1, len(new_keys | old_keys))
        if overlap < self.min_key_overlap:
            return f"key set mostly new ({overlap:.0%} overlap)"
        if bool(cached.get("negated")) != task.constraints["negated"]:
            return "negation changed"
        return None

    def verify(
        self, task: Task, steps: Sequence[Step], cached: dict[str, Any] | None = None
    ) -> list[bool]:
        spec = spec_of(task)
        # Constants and names of the cached prompt that the new one no longer has: a member
        # still carrying one belongs to the old request, even where no key states it.
        gone = set(cached.get("slots", [])) - set(task.constraints["slots"]) if cached else set()
        seen: set[str] = set()
        results = []
        for step in steps:
            ok, value = member_value(step)
            key = step.key or ""
            ok = ok and key in spec.keys and key not in seen
            if ok and self.strict:
                ok = _type_ok(value, spec.types[key])
                if ok and key in spec.entities:
                    ok = value == spec.entities[key]
                elif ok and gone:
                    ok = not mentions_any(json.dumps(value, ensure_ascii=False), gone)
            seen.add(key)
            results.append(ok)
        return results

    def integrity(self, task: Task, text: str) -> bool | None:
        if not is_single_object(text):
            return False
        obj = json.loads(text)
        spec = spec_of(task)
        if set(obj) != set(spec.keys):
            return False
        if not self.strict:
            return True
        schema = json.dumps(spec.schema(), sort_keys=True)
        if not _validator(schema).is_valid(obj):
            return False
        return all(obj[k] == v for k, v in spec.entities.items())

    def substitute(
        self, task: Task, cached: dict[str, Any], steps: Sequence[Step]
    ) -> list[Step] | None:
        """Members whose value the new prompt states, rewritten to that value."""
        spec = spec_of(task)
        out: list[Step] = []
        changed = False
        for step in steps:
            key = step.key or ""
            if key in spec.entities:
                text = member_text(key, spec.entities[key])
                changed = changed or text != step.text
                out.append(Step(text, "member", key, "prompt"))
            else:
                out.append(step)
        return out if changed else None

    # ------------------------------------------------------------------ producing members

    def generate(self, task: Task, gen: Generation, *, verify: bool = True) -> list[AnswerStep]:
        spec = spec_of(task)
        reply = gen.complete(
            [ChatMessage("system", _SYSTEM), ChatMessage("user", task.prompt)],
            StepStatus.REGENERATED,
            json_schema=spec.schema(),
            max_tokens=_budget(len(spec.keys)),
        )
        if not verify:
            return [AnswerStep(reply.text, "raw", StepStatus.REGENERATED)]
        obj = extract_object(reply.text)
        if obj is None:
            obj = self._repair(reply.text, spec, gen)
        steps = [
            AnswerStep(member_text(k, v), "member", StepStatus.REGENERATED, k)
            for k, v in (obj or {}).items()
        ]
        return self.patch(task, steps, self.verify(task, [s.step for s in steps]), gen)

    def _repair(self, bad: str, spec: JsonSpec, gen: Generation) -> dict[str, Any] | None:
        """One-shot repair: hand the model its own invalid text back under the schema."""
        gen.notes.append("invalid JSON from the model: asked once for a repair")
        reply = gen.complete(
            [
                ChatMessage("system", _SYSTEM),
                ChatMessage("user", f"Rewrite this as one valid JSON object:\n{bad[:2000]}"),
            ],
            StepStatus.REGENERATED,
            json_schema=spec.schema(),
        )
        return extract_object(reply.text)

    def patch(
        self, task: Task, steps: Sequence[AnswerStep], passed: Sequence[bool], gen: Generation
    ) -> list[AnswerStep]:
        spec = spec_of(task)
        good: dict[str, AnswerStep] = {
            s.key: s for s, ok in zip(steps, passed, strict=True) if ok and s.key
        }
        hit = any(s.status in (StepStatus.REUSED, StepStatus.PATCHED) for s in steps)
        status = StepStatus.PATCHED if hit else StepStatus.REGENERATED
        if self.fill_stated:
            for key, value in spec.entities.items():
                if key not in good:
                    good[key] = AnswerStep(
                        member_text(key, value), "member", StepStatus.FALLBACK, key, "prompt"
                    )
        missing = tuple(k for k in spec.keys if k not in good)
        if missing:
            good.update(self._ask_for(task, spec, missing, good, status, gen))
        still = tuple(k for k in spec.keys if k not in good)
        for key in still:
            gen.notes.append(f"no valid value for {key!r} from the model: typed default used")
            value = spec.entities.get(key, _DEFAULTS[spec.types[key]])
            good[key] = AnswerStep(member_text(key, value), "member", StepStatus.FALLBACK, key)
        return [good[k] for k in spec.keys]

    def _ask_for(
        self,
        task: Task,
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
        reply = gen.complete(
            [ChatMessage("system", _SYSTEM), ChatMessage("user", request)],
            status,
            json_schema=spec.schema(missing),
            max_tokens=_budget(len(missing)),
        )
        obj = extract_object(reply.text)
        if obj is None:
            obj = self._repair(reply.text, JsonSpec(missing, spec.types, {}, (0, 0)), gen)
        found: dict[str, AnswerStep] = {}
        for key in missing:
            if obj is None or key not in obj:
                continue
            step = AnswerStep(member_text(key, obj[key]), "member", status, key)
            if self.verify(task, [step.step]) == [True]:
                found[key] = step
        return found
