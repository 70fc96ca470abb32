"""Options and settings every command shares are defined once and mean the same everywhere."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from stepchat.bench.command import register
from stepchat.bench.startup import child_env
from stepchat.cli import build_parser
from stepchat.quiet import QUIET_ENV, quiet_environment


@pytest.mark.parametrize(
    "argv",
    [
        ["--model", "tiny", "ask", "hi"],
        ["ask", "--model", "tiny", "hi"],
        ["--model", "tiny", "bench", "--quick"],
        ["bench", "--quick", "--model", "tiny"],
    ],
)
def test_model_is_read_as_one_option_before_or_after_the_command(argv: list[str]) -> None:
    assert build_parser().parse_args(argv).model == "tiny"


@pytest.mark.parametrize("argv", [["ask", "hi"], ["bench", "--quick"], []])
def test_no_model_given_means_the_configured_one(argv: list[str]) -> None:
    assert build_parser().parse_args(argv).model is None


def test_the_bench_alone_reads_the_same_option() -> None:
    parser = argparse.ArgumentParser(prog="stepchat")
    register(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["bench", "--model", "tiny"]).model == "tiny"


def test_the_bench_and_its_children_are_as_quiet_as_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One set of quiet settings: a child process of the startup bench gets all of it, and
    this process gets all of it too, keeping what the user set."""
    assert all(child_env(tmp_path)[key] == value for key, value in QUIET_ENV.items())
    for key in QUIET_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "true")
    quiet_environment()
    assert {k: os.environ[k] for k in QUIET_ENV} == {**QUIET_ENV, "TOKENIZERS_PARALLELISM": "true"}
