"""The note naming a computation that does not hold, on GSM-Symbolic's own solutions in
several languages and scripts (material the note was not written on): a solution that
holds gets no such note, and one whose result on a line was changed gets the line and the
value its numbers give."""

from __future__ import annotations

import re

import pytest

from stepchat.bench.wordprob.run import workload
from stepchat.bench.wordprob.templates import TemplateSource
from stepchat.core.tasks.wordprob.slips import first_slip
from stepchat.core.tasks.wordprob.solution import answer_holds

RESULT = re.compile(r"(=\s*\$?)(\d+)(?![\d.,/:])")
"""The first whole result written after an `=` on a line."""


@pytest.mark.parametrize("language", ["eng", "deu", "fra", "hin", "zho", "ara"])
def test_a_changed_result_is_named_with_what_its_numbers_give(
    templates: TemplateSource, language: str,
) -> None:
    holding = perturbed = named = 0
    for request in workload(templates, language, seed=7, per_kind=1, limit=50):
        if request.kind != "first" or not answer_holds(request.solution):
            continue
        holding += 1
        lines = request.solution.splitlines()
        assert first_slip(lines) is None, request.id  # precision: no slip where all holds
        for k, line in enumerate(lines):
            found = RESULT.search(line)
            if found is None:
                continue
            right = int(found.group(2))
            changed = line[:found.start(2)] + str(right + 1) + line[found.end(2):]
            slip = first_slip([*lines[:k], changed, *lines[k + 1:]])
            perturbed += 1
            if slip is not None:
                value = re.sub(r"^\D+|\D+$", "", slip.value)  # a percent or currency sign
                assert (slip.step, value) == (k, str(right)), request.id
                assert str(right + 1) in slip.read
                named += 1
            break
    assert holding >= 40
    # Recall: a slip the reader leaves unnamed is a lone number beside a lone number or a
    # comparison; every other one is named (of all 100 templates at seed 7: eng 90 of
    # 92, hin 79 of 81, zho 88 of 90).
    assert named >= 0.95 * perturbed
