"""The app's pure parts: sanitising model text, session totals, saved conversations,
Markdown export, error lines, and the import hygiene of `stepchat.tui.app`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from stepchat.config import ConfigError
from stepchat.core.ports import BackendError
from stepchat.core.types import Answer, AnswerStep, CachePath, StepStatus, Timings, TokenCounts
from stepchat.tui.errors import describe
from stepchat.tui.export import export_markdown, to_markdown
from stepchat.tui.history import Conversation, History, HistoryError, Turn
from stepchat.tui.sanitize import clean, one_line, plain
from stepchat.tui.stats import SessionStats, format_age, format_bytes, format_ms

# ---- sanitize ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("x = 5\x1b[2J", "x = 5"),  # clear screen
        ("\x1b[31mred\x1b[0m", "red"),  # colours
        ("\x1b]0;pwned\x07title", "title"),  # window title (OSC, BEL-terminated)
        ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"),  # hyperlink (OSC 8)
        ("a\x1bPqdata\x1b\\b", "ab"),  # DCS string
        ("a\x9b2Jb", "ab"),  # 8-bit CSI
        ("bell\x07 back\x08space", "bell backspace"),
        ("cr\r\nlf", "cr\nlf"),
        ("tab\there", "tab    here"),
        ("rtl\u202eevil", "rtlevil"),  # bidi override
    ],
)
def test_clean_strips_escapes_and_controls(raw: str, shown: str) -> None:
    assert clean(raw) == shown


def test_markup_is_shown_literally() -> None:
    text = plain("[bold red]not bold[/] [link=http://x]y[/link]")
    assert text.plain == "[bold red]not bold[/] [link=http://x]y[/link]"
    assert not text.spans


def test_one_line() -> None:
    assert one_line("a\n  b\tc", 10) == "a b c"
    assert one_line("abcdefghijkl", 6) == "abcde…"


# ---- stats ------------------------------------------------------------------------------


STEP_OF_PATH = {
    CachePath.REUSE_ONLY: StepStatus.REUSED,
    CachePath.PATCHED: StepStatus.PATCHED,
}
"""The status of the one step of a test answer: hits have a step from the cache."""


def _record(
    path: CachePath,
    generated: int,
    saved: int,
    generate_ms: float,
    total_ms: float,
    *,
    stored: str | None = None,
    matched: str | None = None,
) -> Answer:
    status = STEP_OF_PATH.get(path, StepStatus.REGENERATED)
    return Answer(
        prompt="p",
        task="text",
        text="a",
        path=path,
        steps=[AnswerStep("a", "paragraph", status)],
        model="m",
        timings=Timings(generate_ms=generate_ms, total_ms=total_ms),
        tokens=TokenCounts(generated=generated, saved=saved),
        stored_entry=stored,
        matched_entry=matched,
    )


def test_session_stats() -> None:
    stats = SessionStats()
    assert stats.hit_rate is None and stats.seconds_saved is None
    stats.record(_record(CachePath.MISS, 40, 0, 500.0, 520.0, stored="e1"))  # 80 tok/s
    stats.record(_record(CachePath.REUSE_ONLY, 0, 40, 0.0, 3.0, matched="e1"))
    stats.record(_record(CachePath.PATCHED, 8, 32, 100.0, 110.0, matched="old"))
    stats.record(_record(CachePath.SKIP_REUSE, 40, 0, 500.0, 505.0))
    assert stats.requests == 4
    assert stats.hit_rate == 0.5
    assert stats.tokens_saved == 72
    assert stats.tokens_per_second == pytest.approx(80)
    # The reuse replaced the measured 520 ms answer; the patch replaced an entry from an
    # earlier session, priced as its 40 tokens at 80 tok/s (500 ms), less its own 110 ms.
    assert stats.seconds_saved == pytest.approx((520 - 3 + 500 - 110) / 1000)
    assert stats.last is not None and stats.last.path == "skip-reuse"
    assert stats.last.full == 40


def test_a_slow_first_answer_does_not_skew_speed_or_reprice_savings() -> None:
    """The issue's session: the first answer ran at 2 tok/s (the model warming up), the
    rest at 40; the pooled average said 8 tok/s and every new answer re-priced all savings.
    The median reads 40, and a saving once counted stays counted."""
    stats = SessionStats()
    stats.record(_record(CachePath.MISS, 10, 0, 5000.0, 5100.0, stored="slow"))
    for n in range(4):
        stats.record(_record(CachePath.MISS, 40, 0, 1000.0, 1050.0, stored=f"e{n}"))
    assert stats.tokens_per_second == pytest.approx(40)
    stats.record(_record(CachePath.REUSE_ONLY, 0, 10, 0.0, 5.0, matched="slow"))
    first = stats.seconds_saved
    assert first == pytest.approx(5.095)
    stats.record(_record(CachePath.MISS, 40, 0, 200.0, 210.0))  # a fast answer moves the median...
    assert stats.seconds_saved == first  # ...but not what was already saved


def test_formats() -> None:
    assert format_ms(12.4) == "12 ms"
    assert format_ms(2130) == "2.13 s"
    assert format_bytes(900) == "900 B"
    assert format_bytes(2048) == "2.0 KB"
    assert format_age(30) == "30s ago"
    assert format_age(7200) == "2h ago"


# ---- history ----------------------------------------------------------------------------


PROMPT = "Solve 3x + 5 = 20 for x."


def test_history_round_trip_private_files(tmp_path: Path) -> None:
    history = History(tmp_path / "history")
    conv = Conversation(history.new_id(0.0), 0.0, 5.0, "tiny")
    conv.turns += [
        Turn(PROMPT, answer=Answer.from_record({"path": "miss", "steps": []}, PROMPT)),
        Turn("second", cancelled=True),
        Turn("third", error="model not loaded"),
    ]
    path = history.save(conv)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(history.directory.stat().st_mode) == 0o700
    loaded = history.load(conv.id)
    assert loaded == conv
    assert history.new_id(0.0) == conv.id + "-2"
    [summary] = history.list()
    assert summary.title == "Solve 3x + 5 = 20 for x." and summary.turns == 3


def test_history_skips_broken_files_and_reports_unreadable(tmp_path: Path) -> None:
    history = History(tmp_path)
    (tmp_path / "broken.json").write_text("{not json")
    assert history.list() == []
    with pytest.raises(HistoryError):
        history.load("broken")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_history_raises_history_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(HistoryError):
        History(locked / "history").save(Conversation("a", 0, 0, "m"))


def test_history_dir_that_is_a_file_raises_history_error(tmp_path: Path) -> None:
    blocker = tmp_path / "history"
    blocker.write_text("")
    with pytest.raises(HistoryError):
        History(blocker).save(Conversation("a", 0, 0, "m", [Turn("p")]))


def test_markdown_export(tmp_path: Path) -> None:
    record = {
        "path": "patched",
        "skip_reason": None,
        "steps": [
            {"text": "3x + 5 = 26", "status": "reused"},
            {"text": "x = 7", "status": "fallback"},
        ],
        "tokens": {"generated": 0, "saved": 28},
    }
    answer = Answer.from_record(record, "Solve 3x + 5 = 26")
    conv = Conversation("c1", 0, 0, "tiny", [Turn("Solve\n3x + 5 = 26", answer=answer)])
    text = to_markdown(conv)
    assert "> Solve\n> 3x + 5 = 26" in text
    assert "## stepchat · from the cache, patched" in text
    assert "<!-- ✓ reused -->\n3x + 5 = 26" in text and "<!-- ∑ solver -->\nx = 7" in text
    path = export_markdown(conv, tmp_path / "exports")
    assert path.read_text() == text
    assert json.loads(json.dumps(conv.to_json()))["turns"][0]["record"]["path"] == "patched"


# ---- errors -----------------------------------------------------------------------------


def test_describe_is_one_line() -> None:
    assert describe(ConfigError("model x: file\nnot found")) == "model x: file not found"
    assert describe(BackendError("decode failed")) == "decode failed"
    assert describe(KeyError("k")) == "KeyError: 'k'"
    assert describe(PermissionError(13, "Permission denied", "/x")) == "Permission denied: /x"
    assert len(describe(RuntimeError("x" * 1000))) == 300


# ---- import hygiene ---------------------------------------------------------------------

HEAVY = ("torch", "sentence_transformers", "llama_cpp", "lancedb", "sympy", "jsonschema")
"""sympy and jsonschema come with the engine, which is built once the parts have loaded."""


def test_importing_the_app_loads_no_heavy_module() -> None:
    """The window must paint before torch, llama.cpp, LanceDB and the engine's checks load."""
    code = (
        "import sys, stepchat.tui, stepchat.tui.app\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == ""


# ---- JSON members nothing confirmed -----------------------------------------------------


def test_unchecked_json_members_carry_a_mark_and_checked_ones_do_not() -> None:
    from textual.widgets import Static

    from stepchat.core.types import step_from_record
    from stepchat.tui.widgets.steps import step_body

    def shown(check: str | None) -> str:
        step = step_from_record(
            {"text": '"role": "admin"', "status": "patched", "kind": "member", "key": "role",
             "check": check}
        )
        body = step_body(step)
        assert isinstance(body, Static)
        return str(body.content)

    assert "? unchecked" in shown("typed") and "? unchecked" in shown("unchecked")
    assert "?" not in shown("stated") and "?" not in shown("open") and "?" not in shown(None)
