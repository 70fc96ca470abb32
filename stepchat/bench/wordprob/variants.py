"""The word-problem workload: per template a first request, variants of four kinds, traps.

- `first`: the template with its own default values (the GSM8K problem);
- `numbers`: every slot that is not a number held at the first request's value;
- `names`: numbers and person names vary, everything else held;
- `everything`: every slot the template varies;
- `trap`: the first request with one meaning word changed ("more" -> "fewer"); its right
  answer is unknown, so a trap only counts whether a cache served it.
Each request carries the template's own solution for that exact question (what the
reference stand-in replies) and the template's `#answer` for it (what the checker reads).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from stepchat.bench.wordprob.templates import (
    Sampler,
    Template,
    TemplateError,
    as_number,
    assign,
    format_value,
    localise_numbers,
    number_value,
)

KINDS = ("first", "numbers", "names", "everything", "trap")
NAME_LISTS = frozenset({"names", "names_female", "names_male"})
MAX_TRIES = 4000
_CALCULATOR = re.compile(r"<<[^<>]*>>")
TRAPS: dict[str, list[tuple[str, str]]] = {
    "eng": [("more", "fewer"), ("fewer", "more"), ("less", "more"), ("twice", "three times"),
            ("three times", "twice"), ("each", "in total"), ("in total", "each"),
            ("left", "used"), ("used", "left"), ("double", "triple")],
    "spa": [("más", "menos"), ("menos", "más"), ("cada", "en total"), ("doble", "triple")],
    "deu": [("mehr", "weniger"), ("weniger", "mehr"), ("doppelt", "dreimal"),
            ("insgesamt", "jeweils")],
    "fra": [("plus", "moins"), ("moins", "plus"), ("chaque", "au total"),
            ("double", "triple")],
    "dan": [("flere", "færre"), ("færre", "flere"), ("mere", "mindre"), ("hver", "i alt"),
            ("dobbelt", "tredobbelt")],
    "ita": [("più", "meno"), ("meno", "più"), ("ogni", "in totale"), ("doppio", "triplo")],
    "nld": [("meer", "minder"), ("minder", "meer"), ("elke", "in totaal"),
            ("dubbel", "driedubbel")],
    "por": [("mais", "menos"), ("menos", "mais"), ("cada", "no total"), ("dobro", "triplo")],
    "swe": [("mer", "mindre"), ("fler", "färre"), ("färre", "fler"), ("varje", "totalt")],
    "nob": [("mer", "mindre"), ("flere", "færre"), ("færre", "flere"), ("hver", "totalt")],
    "tur": [("daha fazla", "daha az"), ("daha az", "daha fazla"), ("her", "toplam")],
    "ind": [("lebih banyak", "lebih sedikit"), ("setiap", "total")],
    "rus": [("больше", "меньше"), ("меньше", "больше"), ("каждый", "всего"),
            ("вдвое", "втрое"), ("осталось", "использовано")],
    "ukr": [("більше", "менше"), ("менше", "більше"), ("кожен", "всього"),
            ("кожна", "всього")],
    "hin": [("अधिक", "कम"), ("कम", "अधिक"), ("ज़्यादा", "कम"), ("प्रत्येक", "कुल")],
    "ara": [("أكثر", "أقل"), ("أقل", "أكثر"), ("كل", "إجمالي")],
}
"""Meaning words for traps, per language: the bench's own list; the rule has none."""


@dataclass(frozen=True)
class WordRequest:
    id: str
    language: str
    template: str
    kind: str
    prompt: str
    solution: str
    """The template's own solution for this exact question (the reference's reply)."""
    answer: float | None
    """The template's #answer for this question; None for a trap."""
    position: int = 0
    """The variant's place among its template's variants of its kind, from 0."""


def _capitalise(text: str) -> str:
    text = text[:1].upper() + text[1:]
    return re.sub(r"([.!?]\s+)([a-zà-ÿ])", lambda m: m.group(1) + m.group(2).upper(), text)


class Instantiator:
    """Defaults, samples and renders for one template."""

    def __init__(self, template: Template, seed: int,
                 original: Callable[[], Template | None] | None = None) -> None:
        self.t = template
        self.seed = seed
        self.rng = random.Random(f"{seed}/{template.language}/{template.ident}")
        self.sampler = Sampler(self.rng, template.replacements)
        self._original = original
        self.defaults = self._defaults()

    def _defaults(self) -> dict[str, Any]:
        values: dict[str, Any] = {k: number_value(v) for k, v in self.t.slot_defaults.items()}
        for line in self.t.init:
            if all(n in values for n in line.names):
                continue
            known = {n: values[n] for n in line.names if n in values}
            try:
                options = self.sampler.evaluate(line.expression, values, listing=True)
            except Exception:
                options = None
            if isinstance(options, list) and known:
                for option in options:
                    try:
                        candidate = assign(line.names, option)
                    except TemplateError:
                        continue
                    if all(str(candidate[n]) == str(v) for n, v in known.items()):
                        values.update({k: v for k, v in candidate.items() if k not in values})
                        break
                else:
                    values.update(self._untranslated(line.names, known))
                continue
            values.update(assign(line.names, self.sampler.evaluate(line.expression, values)))
        return values

    def _untranslated(self, names: tuple[str, ...], known: dict[str, Any]) -> dict[str, Any]:
        """The hidden values of an init line whose visible default is in none of its
        choices: a translation often words the default ("두 배", twice) otherwise than its
        list does ("두 번"). The problem's original template has the same line with a
        default its list holds, so the hidden values (2) come from there; the question
        keeps its own words."""
        unused = {"_": ""} if "_" in names else {}  # a value the line discards
        hidden = [n for n in names if n not in known and n not in unused]
        if not hidden:
            return unused
        defaults = self._original_defaults
        if all(n in defaults for n in hidden):
            return {**unused, **{n: defaults[n] for n in hidden}}
        raise TemplateError(f"{self.t.ident}: no choice matches {known}")

    @cached_property
    def _original_defaults(self) -> dict[str, Any]:
        """The defaults of the template this one was translated from, read once; empty
        where there is none or it cannot be instantiated."""
        original = self._original() if self._original is not None else None
        if original is None:
            return {}
        try:
            return Instantiator(original, self.seed).defaults
        except (TemplateError, ValueError, TypeError, KeyError, IndexError):
            return {}

    def _line_kind(self, names: tuple[str, ...], expression: str) -> str:
        if "multi_times" in expression:
            return "other"  # "twice", "three times": meaning words, as the traps say
        value = [self.defaults.get(n) for n in names]
        if any(isinstance(as_number(v), (int, float)) and not isinstance(v, bool)
               for v in value):
            return "number"
        if any(f"({lst})" in expression.replace(" ", "") for lst in NAME_LISTS):
            return "name"
        return "other"

    def sample(self, kind: str) -> dict[str, Any] | None:
        """Values for a variant of `kind`, meeting the conditions, different from the
        defaults in something the question shows; None when none was found."""
        vary = {"numbers": {"number"}, "names": {"number", "name"},
                "everything": {"number", "name", "other"}}[kind]
        question = self.question(self.defaults)
        for _ in range(MAX_TRIES):
            values: dict[str, Any] = {}
            for line in self.t.init:
                derived = any(re.search(rf"\b{re.escape(n)}\b", line.expression)
                              for n in values)
                fixed = self._line_kind(line.names, line.expression) not in vary
                if fixed and not derived:
                    values.update({n: self.defaults[n] for n in line.names})
                    continue
                values.update(assign(line.names, self.sampler.evaluate(line.expression, values)))
            if not self._meets(values):
                continue
            if self.question(values) != question:
                return values
        return None

    def _meets(self, values: dict[str, Any]) -> bool:
        try:
            return all(self.sampler.evaluate(c, values) for c in self.t.conditions)
        except Exception:
            return False

    def question(self, values: dict[str, Any], template: str | None = None) -> str:
        text = re.sub(r"\{(\w+),\s*[^}]+\}", lambda m: format_value(values[m.group(1)]),
                      template or self.t.question)
        return _capitalise(localise_numbers(text, self.t.language))

    def solution(self, values: dict[str, Any]) -> str:
        def hole(m: re.Match[str]) -> str:
            return format_value(self.sampler.evaluate(m.group(1), values))

        text = re.sub(r"\{([^{}]+)\}", hole, self.t.answer_template)
        text = _CALCULATOR.sub("", text)
        return "\n".join(_capitalise(localise_numbers(line, self.t.language)).rstrip()
                         for line in text.splitlines() if line.strip())

    def answer(self, values: dict[str, Any]) -> float:
        """The template's `#answer`; where a translation broke it (`mult_var[1]` on a
        number), the final `#### {expression}` of its own annotated solution."""
        try:
            return float(self.sampler.evaluate(self.t.answer_expr, values))
        except Exception:
            final = re.findall(r"####\s*\{([^{}]+)\}", self.t.answer_template)
            if not final:
                raise
            return float(self.sampler.evaluate(final[-1], values))

    def trap(self) -> str | None:
        """The first question with one meaning word changed outside every slot."""
        for old, new in TRAPS.get(self.t.language, []):
            pattern = re.compile(rf"(?<![\w{{]){re.escape(old)}(?![\w,}}])")
            outside = re.split(r"(\{[^}]*\})", self.t.question)
            for index, piece in enumerate(outside):
                if index % 2 == 0 and pattern.search(piece):
                    outside[index] = pattern.sub(new, piece, count=1)
                    return self.question(self.defaults, "".join(outside))
        return None


def requests_for(
    template: Template, seed: int, per_kind: int,
    original: Callable[[], Template | None] | None = None,
) -> Iterator[WordRequest]:
    """The first request, `per_kind` variants of each kind, and a trap where one exists;
    `original` reads the template it was translated from (for defaults its lists lack)."""
    inst = Instantiator(template, seed, original)
    base = f"{template.language}-{template.ident}"
    first = inst.defaults
    yield WordRequest(f"{base}-first", template.language, template.ident, "first",
                      inst.question(first), inst.solution(first), inst.answer(first))
    seen = {inst.question(first)}
    for kind in ("numbers", "names", "everything"):
        for n in range(per_kind):
            values = inst.sample(kind)
            if values is None:
                break
            question = inst.question(values)
            if question in seen:
                continue
            seen.add(question)
            yield WordRequest(f"{base}-{kind}-{n}", template.language, template.ident, kind,
                              question, inst.solution(values), inst.answer(values), n)
    trap = inst.trap()
    if trap is not None:
        yield WordRequest(f"{base}-trap", template.language, template.ident, "trap", trap,
                          "", None)
