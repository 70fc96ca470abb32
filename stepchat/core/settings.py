"""Knobs of the pipeline, with the defaults stepchat ships.

`PAPER` reproduces the StepCache paper's behaviour for the bench: model-first repair,
syntax and required-key JSON checks only, no substitution patches, no structural lookup.

The fields double as the `[cache]` section of the user's config file: `stepchat.config`
validates that section against them (types, ranges, allowed values) and reports a bad
value in one line; each field's docstring says what it does. Constraints are written with
`annotated_types`, which the validator reads, so the core stays free of the validator.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, Any, ClassVar

from annotated_types import Ge, Interval


class LinearStrategy(StrEnum):
    """Who writes and rewrites equation steps (`PipelineSettings.linear_strategy`)."""

    SOLVER_FIRST = "solver-first"
    MODEL_FIRST = "model-first"


Similarity = Annotated[float, Interval(ge=-1.0, le=1.0)]


@dataclass(frozen=True)
class PipelineSettings:
    __pydantic_config__: ClassVar[dict[str, Any]] = {
        "extra": "forbid",
        "use_attribute_docstrings": True,
    }

    linear_strategy: LinearStrategy = LinearStrategy.SOLVER_FIRST
    """solver-first: the exact solver writes new equation steps (a miss) and rewrites failing
    ones from the last passing step (a patch), so the model is never asked to do algebra it
    gets wrong; model-first (the paper's): the model writes and rewrites them with bounded
    tries, and the solver is the last resort."""
    repair_tries: Annotated[int, Ge(0)] = 2
    """How many times the model may rewrite a failing block before the fallback."""
    substitution: bool = True
    """Patch renamed variables / changed names and values by substitution before any model call."""
    signature_lookup: bool = True
    """Find a structurally identical cached request before embedding the prompt."""
    strict_json: bool = True
    """Check JSON types and entity values too, not only syntax and required keys."""
    min_similarity: Similarity = 0.55
    """Cosine similarity below which the nearest cached request is not a candidate."""
    text_min_similarity: Similarity = 0.6
    """Open text is reused only when the text gate shows the request is the same; a rejected
    neighbour at least this similar is named in the skip reason ("a name changed: France ->
    Germany", cosine 0.66), a farther one leaves the request a plain miss."""
    json_min_key_overlap: Annotated[float, Interval(ge=0.0, le=1.0)] = 0.5
    """Jaccard overlap of key sets below which a JSON request is treated as new."""
    max_tokens: Annotated[int, Ge(1)] = 256
    """The most tokens one model reply may have. Set from the model's `max_tokens` in its
    models.toml entry (`Config.pipeline_for`), not in the `[cache]` section."""
    system_prompt: str = ""
    """A system message for free-text requests; part of the cache scope, so answers written
    under another system prompt are never reused."""
    model_source: str = ""
    """What the model entry runs (its GGUF file and size, or its server and model name), set
    from models.toml (`Config.pipeline_for`), not in the `[cache]` section: part of the cache
    scope, so an entry pointed at another model does not reuse the first one's answers."""

    def paper(self) -> PipelineSettings:
        return replace(
            self,
            linear_strategy=LinearStrategy.MODEL_FIRST,
            substitution=False,
            signature_lookup=False,
            strict_json=False,
        )


DEFAULT_SETTINGS = PipelineSettings()
