"""The command line as a first-day user meets it: streaming, a system prompt, the config
command, and the small things (an unknown option, a closed pipe, a missing model file).

The model and embedder are fakes in-process where the point is the CLI's own behaviour;
the cache is the real LanceDB one in a private STEPCHAT_HOME.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from stepchat import cli, runtime
from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.ports import BackendError
from stepchat.core.types import ChatMessage, Completion
from stepchat.embed.hashed import HashedEmbedder

TEXT = "Tell me about the sea."
REPLY = "The sea is wide.\n\nThe sea is deep and cold."
ROOT = Path(__file__).resolve().parents[1]


class TerminalOut(io.StringIO):
    """stdout as a terminal."""

    def isatty(self) -> bool:
        return True


class PeekingBackend(ScriptedBackend):
    """Writes REPLY and notes what the user could read when it reaches the second
    paragraph, i.e. while the model is still generating."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__([REPLY])
        self.out = out
        self.seen_mid_answer: str | None = None

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Completion:
        on_token = kwargs.pop("on_token", None)

        def peek(piece: str) -> None:
            if on_token is not None:
                on_token(piece)
            if "deep" in piece and self.seen_mid_answer is None:
                self.seen_mid_answer = self.out.getvalue()

        return super().complete(messages, on_token=peek, **kwargs)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    monkeypatch.delenv("STEPCHAT_CONFIG", raising=False)
    monkeypatch.setattr(runtime, "load_embedder", lambda: HashedEmbedder(dim=runtime.EMBED_DIM))
    return tmp_path


def ask_with(
    monkeypatch: pytest.MonkeyPatch, out: io.StringIO, *argv: str
) -> tuple[int, PeekingBackend]:
    backend = PeekingBackend(out)
    monkeypatch.setattr(runtime, "load_backend", lambda config, model_id=None: backend)
    monkeypatch.setattr(sys, "stdout", out)
    return cli.main(["ask", *argv]), backend


# ---- streaming ---------------------------------------------------------------------------


def test_open_text_streams_to_a_terminal(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = TerminalOut()
    code, backend = ask_with(monkeypatch, out, TEXT)
    assert code == 0
    seen = backend.seen_mid_answer  # what was on screen while the model still wrote
    assert seen is not None and seen.startswith("The sea is wide.\n\nThe sea")
    assert "cold" not in seen
    assert out.getvalue() == REPLY + "\n"


class DyingBackend(ScriptedBackend):
    """Streams the first paragraph of REPLY, then fails as a dead model process does."""

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Completion:
        on_token = kwargs["on_token"]
        for piece in ("The sea ", "is wide.\n\n", "The sea ", "is"):
            on_token(piece)
        raise BackendError("model tiny: the model process died (signal 11, a segmentation "
                           "fault); it restarts on the next request")


def test_a_model_dying_mid_stream_leaves_the_shown_text_and_one_error_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = TerminalOut()
    backend = DyingBackend([])
    monkeypatch.setattr(runtime, "load_backend", lambda config, model_id=None: backend)
    monkeypatch.setattr(sys, "stdout", out)
    assert cli.main(["ask", TEXT]) == 2
    shown = out.getvalue()
    assert shown.startswith("The sea is wide.") and shown.endswith("\n")  # the line ended
    assert capsys.readouterr().err == ("stepchat: model tiny: the model process died "
                                       "(signal 11, a segmentation fault); it restarts on "
                                       "the next request\n")


@pytest.mark.parametrize("terminal", [False, True])
def test_pipes_and_json_get_the_whole_output_at_the_end(
    home: Path, monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    out = TerminalOut() if terminal else io.StringIO()
    argv = ("--json", TEXT) if terminal else (TEXT,)
    code, backend = ask_with(monkeypatch, out, *argv)
    assert code == 0 and backend.seen_mid_answer == ""
    printed = out.getvalue()
    assert (json.loads(printed)["answer"] if terminal else printed) == (
        REPLY if terminal else REPLY + "\n"
    )


def test_a_hit_on_a_terminal_is_printed_whole(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ask_with(monkeypatch, io.StringIO(), TEXT)
    out = TerminalOut()
    code, backend = ask_with(monkeypatch, out, TEXT)
    assert code == 0 and backend.calls == [] and out.getvalue() == REPLY + "\n"


# ---- the system prompt -------------------------------------------------------------------


def _record(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[dict[str, Any], PeekingBackend]:
    out = io.StringIO()
    code, backend = ask_with(monkeypatch, out, "--json", *argv)
    assert code == 0
    return json.loads(out.getvalue()), backend


def test_ask_system_reaches_the_model_and_scopes_the_cache(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pirate, backend = _record(monkeypatch, "-s", "Answer like a pirate.", TEXT)
    assert backend.calls[0][0] == ChatMessage("system", "Answer like a pirate.")
    assert pirate["path"] == "miss"
    plain, backend = _record(monkeypatch, TEXT)
    assert plain["path"] == "miss" and backend.calls[0][0].role == "user"
    again, _ = _record(monkeypatch, "--system", "Answer like a pirate.", TEXT)
    assert again["path"] == "reuse-only" and again["matched_entry"] == pirate["stored_entry"]


def test_the_config_default_system_prompt_and_where_it_goes(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "config").mkdir()
    config = home / "config" / "config.toml"
    config.write_text('system_prompt = "Be brief."\n')
    _, backend = _record(monkeypatch, TEXT)
    assert backend.calls[0][0] == ChatMessage("system", "Be brief.")
    _, backend = _record(monkeypatch, "-s", "", TEXT)  # an empty one: none this time
    assert backend.calls[0][0].role == "user"
    config.write_text('[cache]\nsystem_prompt = "Be brief."\n')
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    assert cli.main(["ask", TEXT]) == 2
    assert "[cache] system_prompt: not a cache setting" in capsys.readouterr().err


# ---- stepchat config ---------------------------------------------------------------------


def run_cli(home: Path, *argv: str, env: dict[str, str] | None = None,
            ) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "STEPCHAT_CONFIG"}
    return subprocess.run(
        [sys.executable, "-m", "stepchat.cli", *argv], capture_output=True, text=True,
        env={**environ, "STEPCHAT_HOME": str(home), "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=120,
    )


MODEL = """
default = "mine"
[[models]]
id = "mine"
name = "My model"
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "served"
"""


def test_config_shows_the_file_the_models_their_origin_and_the_gguf(tmp_path: Path) -> None:
    fresh = run_cli(tmp_path, "config")
    assert fresh.returncode == 0, fresh.stderr
    path = tmp_path / "config" / "config.toml"
    assert f"config file    {path}  (not created yet: stepchat config --edit)" in fresh.stdout
    gguf = next(line for line in fresh.stdout.splitlines() if "GGUF" in line).split()[-1]
    assert gguf.endswith(".gguf") and Path(gguf).is_file()
    assert "from     the models.toml shipped with stepchat" in fresh.stdout
    path.parent.mkdir(parents=True)
    path.write_text(MODEL)
    mine = run_cli(tmp_path, "config")
    assert f"default model  mine  (from {path})" in mine.stdout
    lines = mine.stdout.splitlines()
    at = lines.index("* mine  My model")
    assert lines[at + 1:at + 3] == [
        f"      from     {path}", "      server   http://127.0.0.1:9/v1  (model served)"]
    assert run_cli(tmp_path, "config", "--path").stdout == f"{path}\n"


def test_config_works_when_the_file_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text("threads = 'two'\n")
    done = run_cli(tmp_path, "config")
    assert done.returncode == 2 and done.stdout == f"config file    {path}\n"
    assert done.stderr.count("\n") == 1 and "threads" in done.stderr


def test_config_edit_creates_opens_and_checks_the_file(tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf \'%s\\n\' "$EXTRA" >> "$1"\n')
    editor.chmod(0o755)
    env = {"EDITOR": str(editor), "VISUAL": ""}
    done = run_cli(tmp_path, "config", "--edit", env={**env, "EXTRA": "threads = 3"})
    path = tmp_path / "config" / "config.toml"
    assert done.returncode == 0 and done.stdout == f"{path}: checked, no mistakes\n"
    assert "# [[models]]" in path.read_text() and oct(path.stat().st_mode)[-3:] == "600"
    bad = run_cli(tmp_path, "config", "--edit", env={**env, "EXTRA": "default = 5"})
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "default" in bad.stderr


def test_config_edit_without_an_editor_or_a_terminal_refuses_and_creates_nothing(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """vi from a script paints into a pipe and waits for keys that never come."""
    monkeypatch.setenv("VISUAL", "")
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO())
    started: list[object] = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: started.append(a))
    assert cli.main(["config", "--edit"]) == 2
    path = home / "config" / "config.toml"
    assert capsys.readouterr().err == (
        "stepchat: no editor to open: $VISUAL and $EDITOR are unset and vi needs a terminal "
        f"(fix: set EDITOR, or open {path} yourself)\n"
    )
    assert started == [] and not path.exists()


@pytest.mark.parametrize("case", ["missing STEPCHAT_CONFIG", "models.toml in the config dir"])
def test_a_config_stepchat_would_not_read_is_an_error(tmp_path: Path, case: str) -> None:
    env = {}
    if case == "missing STEPCHAT_CONFIG":
        env["STEPCHAT_CONFIG"] = str(tmp_path / "nope.toml")
        words = "STEPCHAT_CONFIG="
    else:
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "models.toml").write_text(MODEL)
        words = "models.toml is not read: stepchat reads"
    for argv in (["ask", "Solve for x: 2x = 4"], ["config"]):
        done = run_cli(tmp_path, *argv, env=env)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr


# ---- the small ones ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["ask", "--temperature", "0.5", "hi"],
         "unknown option --temperature: sampling is set on the model's entry in config.toml"),
        (["ask", "--max-tokens=9", "hi"], "unknown option --max-tokens: sampling"),
        (["ask", "--bogus", "hi"], "unknown option --bogus (see: stepchat ask --help)"),
    ],
)
def test_an_unknown_option_is_named_alone(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and words in err and "usage: stepchat ask" in err


@pytest.mark.parametrize(
    ("argv", "command", "error"),
    [
        (["ask", "Solve", "3x = 6"], "ask", "unrecognized arguments: 3x = 6 "
         "(a prompt of several words goes in quotes)"),
        (["cache", "stats", "--json"], "cache stats",
         "unknown option --json (see: stepchat cache stats --help)"),
        (["cache", "list", "extra"], "cache list", "unrecognized arguments: extra"),
    ],
)
def test_a_usage_error_shows_the_usage_of_the_command_it_is_about(
    argv: list[str], command: str, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith(f"usage: stepchat {command} [-h]")
    assert err.splitlines()[-1] == f"stepchat {command}: error: {error}"


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`stepchat cache stats | head -0`: the reader is gone before the first line."""
    read, write = os.pipe()
    os.close(read)
    environ = {k: v for k, v in os.environ.items() if k != "STEPCHAT_CONFIG"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "stepchat.cli", "cache", "stats"], stdout=write,
            stderr=subprocess.PIPE, text=True, timeout=120,
            env={**environ, "STEPCHAT_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
        )
    finally:
        os.close(write)
    assert done.returncode == 0 and done.stderr == ""


def test_a_missing_gguf_still_answers_what_the_solver_writes(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "config").mkdir()
    (home / "config" / "config.toml").write_text(
        'default = "gone"\n[[models]]\nid = "gone"\nname = "Gone"\n'
        'source = "/nonexistent/model.gguf"\n'
    )
    assert cli.main(["ask", "Solve for x: 4x + 2 = 10"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "x = 2"
    assert err.count("\n") == 1 and "GGUF file not found: /nonexistent/model.gguf" in err
    assert cli.main(["ask", "Write a haiku about rain."]) == 2  # this one needs the model
    assert "GGUF file not found" in capsys.readouterr().err


class FullDisk(io.StringIO):
    """stdout on a full disk: every write fails."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class FullTerminal(FullDisk):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("out", [FullDisk, FullTerminal])
def test_output_that_cannot_be_written_is_one_line_and_the_cache_is_closed(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    out: type[FullDisk],
) -> None:
    """Closing writes queued hit counts and finishes the upkeep an open started: a failed
    print must not skip it."""
    _record(monkeypatch, TEXT)
    closed: list[object] = []
    close = runtime.close_store

    def closing(store: Any) -> None:
        closed.append(store)
        close(store)

    monkeypatch.setattr(runtime, "close_store", closing)
    code, backend = ask_with(monkeypatch, out(), TEXT)
    assert code == 2 and backend.calls == [] and len(closed) == 1
    assert capsys.readouterr().err == (
        "stepchat: cannot write the output: No space left on device\n"
    )


class InterruptedBackend(ScriptedBackend):
    """Ctrl+C while the model writes."""

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Completion:
        raise KeyboardInterrupt


def test_ctrl_c_exits_130_as_the_shell_expects(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    backend = InterruptedBackend([])
    monkeypatch.setattr(runtime, "load_backend", lambda config, model_id=None: backend)
    assert cli.main(["ask", TEXT]) == 130
    assert capsys.readouterr().err == "stepchat: interrupted\n"


class TerminalIn(io.StringIO):
    """stdin as a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stdin", "stdout"),
    [(io.StringIO, TerminalOut), (TerminalIn, io.StringIO), (TerminalIn, TerminalOut)],
)
def test_the_app_starts_only_on_a_terminal(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    stdin: type[io.StringIO], stdout: type[io.StringIO],
) -> None:
    """Off a terminal it would paint escapes into a pipe and wait for keys."""
    import stepchat.tui

    started: list[str | None] = []

    def run(config: object, model_id: str | None = None) -> int:
        started.append(model_id)
        return 0

    monkeypatch.setattr(stepchat.tui, "run", run)
    monkeypatch.setattr(sys, "stdin", stdin())
    monkeypatch.setattr(sys, "stdout", stdout())
    code = cli.main([])
    on_terminal = stdin is TerminalIn and stdout is TerminalOut
    assert (code, started) == ((0, [None]) if on_terminal else (2, []))
    assert capsys.readouterr().err == ("" if on_terminal else (
        'stepchat: the app needs a terminal; from a script or a pipe use: stepchat ask "..."\n'
    ))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["ask", "--no-cache", "Solve for x: 3x + 5 = 20"], ["config"]])
def test_a_full_disk_under_the_output_is_one_line(tmp_path: Path, argv: list[str]) -> None:
    """Buffered output fails at the last flush, after the command returned."""
    environ = {k: v for k, v in os.environ.items() if k != "STEPCHAT_CONFIG"}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "stepchat.cli", *argv], stdout=full,
            stderr=subprocess.PIPE, text=True, timeout=120,
            env={**environ, "STEPCHAT_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
        )
    assert done.returncode == 2
    assert done.stderr == "stepchat: cannot write the output: No space left on device\n"


@pytest.mark.slow
def test_a_terminal_sees_the_real_models_answer_stream_and_it_is_the_answer(
    tmp_path: Path,
) -> None:
    """The bundled model behind a pseudo-terminal: what the terminal shows is exactly the
    answer the cache then serves (`ask --json` of the same prompt is a hit with that text)."""
    import pty

    prompt = "Write one sentence about the sea."
    environ = {k: v for k, v in os.environ.items() if k != "STEPCHAT_CONFIG"}
    env = {**environ, "STEPCHAT_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "stepchat.cli", "ask", prompt], stdout=follower,
        stderr=subprocess.PIPE, env=env,
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert process.wait(timeout=600) == 0, process.stderr.read() if process.stderr else ""
    os.close(leader)
    shown = b"".join(chunks).decode().replace("\r\n", "\n")
    again = run_cli(tmp_path, "ask", "--json", prompt)
    record = json.loads(again.stdout)
    assert record["path"] == "reuse-only" and shown == record["answer"] + "\n"


@pytest.mark.parametrize("argv", [["--model", "nope", "cache", "list"],
                                  ["--model", "smollm2-135m", "config"],
                                  ["cache", "--model", "nope", "list"],
                                  ["config", "--model", "smollm2-135m"]])
def test_model_given_to_a_command_without_one_is_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It was accepted and ignored, even an id no model has; after the command's name it was
    read as the action ("invalid choice: 'nope'")."""
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    command = next(word for word in argv if word in ("cache", "config"))
    assert out == "" and err.startswith(f"stepchat: --model does not apply to {command}: ")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("action", ["list", "show", "evict", "clear", "stats", "compact"])
def test_every_cache_action_says_what_it_does_in_its_own_help(
    action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["cache", action, "--help"])
    lines = capsys.readouterr().out.splitlines()
    usage_end = lines.index("")
    assert lines[usage_end + 1][:1].isupper() and lines[usage_end + 1] != "options:"
