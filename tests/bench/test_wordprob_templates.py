"""Reading GSM-Symbolic templates as the package means them: what it marks ignore is left
out, and translations whose defaults, helper functions or `#answer` the English reader did
not know are read (on the package's own files)."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path

import pytest

from stepchat.bench.wordprob.checker import is_right
from stepchat.bench.wordprob.run import workload
from stepchat.bench.wordprob.templates import TemplateError, TemplateSource, marathi_form
from stepchat.bench.wordprob.variants import Instantiator, requests_for


def _read(templates: TemplateSource, language: str, ident: str) -> Instantiator:
    template = dict(templates.templates(language))[ident]()
    return Instantiator(template, 42, partial(templates.original, template))


def test_templates_the_package_marks_ignore_are_left_out_and_counted(
    templates: TemplateSource,
) -> None:
    """Spanish has 8 translated templates; the other 92 are marked ignore (their question
    is still English) and are not Spanish requests."""
    counts: Counter[str] = Counter()
    requests = workload(templates, "spa", seed=42, per_kind=1, limit=None, counts=counts)
    assert counts["read"] + counts["skipped"] == 8
    assert counts["ignored"] == 92
    assert {r.template for r in requests} <= {"0010", "0018", "0022", "0056", "0063",
                                               "0065", "0081", "0099"}


def test_a_language_the_package_marks_ignore_is_not_offered(
    templates: TemplateSource,
) -> None:
    assert "fao" not in templates.languages()
    assert {"eng", "deu", "ukr", "kor"} <= set(templates.languages())
    with pytest.raises(TemplateError, match="marks language 'fao' ignore"):
        list(templates.templates("fao"))


def test_a_translated_default_missing_from_its_list_takes_the_original_value(
    templates: TemplateSource,
) -> None:
    """Korean 0017 says "두 배" (twice) where its list has "두 번": the hidden multiplier
    comes from the English template, and the question keeps its words."""
    korean = _read(templates, "kor", "0017")
    english = _read(templates, "eng", "0017")
    assert korean.defaults["mult_txt"] == "두 배"
    assert korean.defaults["mult_val"] == english.defaults["mult_val"] == 2
    assert "두 배" in korean.question(korean.defaults)
    assert korean.answer(korean.defaults) == english.answer(english.defaults) == 50


def test_no_original_value_is_still_one_clear_skip(tmp_path: Path) -> None:
    folder = tmp_path / "xyz" / "symbolic"
    folder.mkdir(parents=True)
    (tmp_path / "eng" / "symbolic").mkdir(parents=True)
    (tmp_path / "eng" / "replacements.json").write_text("{}")
    (tmp_path / "xyz" / "replacements.json").write_text('{"times": [["deux", 2]]}')
    (folder / "0001.toml").write_text(
        'question_annotated = """Ana a {n,3} pommes et en mange {m_txt,trois} fois.\n\n'
        '#init:\n- $n = range(2, 9)\n- m_txt, m_val = sample(times)\n\n#answer: n * m_val\n"""\n'
        'answer_annotated = "{n} * {m_val} = {n*m_val}\\n#### {n*m_val}"\n'
        'source-language = "eng"\n')
    counts: Counter[str] = Counter()
    assert workload(TemplateSource(tmp_path), "xyz", seed=1, per_kind=1, limit=None,
                    counts=counts) == []
    assert counts == Counter({"skipped": 1})


@pytest.mark.parametrize(("language", "ident"), [
    ("ukr", "0000"), ("ukr", "0006"), ("ukr", "0021"), ("mar", "0043"), ("mar", "0075"),
])
def test_ukrainian_and_marathi_agreement_helpers_are_read(
    templates: TemplateSource, language: str, ident: str,
) -> None:
    requests = list(requests_for(dict(templates.templates(language))[ident](), 42, 2))
    assert requests
    for request in requests:
        if request.answer is not None:
            assert is_right(request.solution, request.answer, language), request.id


def test_marathi_adjectives_in_a_and_e_inflect_and_others_do_not() -> None:
    assert [marathi_form("अर्धा", f) for f in ("neut", "fem", "oblique")] == [
        "अर्धे", "अर्धी", "अर्ध्या"]
    assert marathi_form("पांढरा", "obl") == "पांढऱ्या"
    assert marathi_form("लाल", "obl") == "लाल"


def test_an_answer_written_as_a_hole_or_broken_by_a_translation_is_read(
    templates: TemplateSource,
) -> None:
    """German 0017 writes `#answer: {t+...}` (a set, read literally); English 0095 indexes
    a number (`mult_var[1]`): the first is unwrapped, the second falls back to the final
    `#### {expression}` of the template's own solution."""
    for language, ident in (("deu", "0017"), ("eng", "0095")):
        inst = _read(templates, language, ident)
        values = inst.sample("numbers")
        assert values is not None
        assert is_right(inst.solution(values), inst.answer(values), language)
