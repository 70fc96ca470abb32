"""`stepchat ask` and `stepchat cache ...` through the real CLI and a real LanceDB cache.

The model and embedder are swapped for fakes in-process (loading the real ones is the job
of tests/test_real_stack.py); argument handling, storage and the listings are the real ones.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from stepchat import cli, runtime
from stepchat.backends.scripted import ScriptedBackend
from stepchat.config import load_config
from stepchat.embed.hashed import HashedEmbedder


@pytest.fixture(params=["local", "bucket"])
def home(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private STEPCHAT_HOME whose cache is on local disk, or in an S3 bucket."""
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    monkeypatch.delenv("STEPCHAT_CONFIG", raising=False)
    if request.param == "bucket":
        uri = request.getfixturevalue("bucket_uri")
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "config.toml").write_text(f'[cache]\nuri = "{uri}"\n')
    monkeypatch.setattr(
        runtime, "load_backend", lambda config, model_id=None: ScriptedBackend(['{"a": 1}'])
    )
    monkeypatch.setattr(runtime, "load_embedder", lambda: HashedEmbedder(dim=runtime.EMBED_DIM))
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_then_list_show_stats_evict_clear(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "ask", "--json", "Solve for x: 2x + 1 = 9. Show each step.")
    assert code == 0
    record = json.loads(out)
    assert record["answer"].splitlines()[-1] == "x = 4" and record["path"] == "solver"
    assert record["hit"] is False
    entry_id = record["stored_entry"]

    code, out, _ = run(capsys, "ask", "Solve for x: 2x + 1 = 9, step by step.")
    assert code == 0 and out.strip().splitlines()[-1] == "x = 4"

    code, out, _ = run(capsys, "cache", "list")
    assert code == 0 and entry_id in out and "linear" in out


    code, out, _ = run(capsys, "cache", "show", entry_id)
    shown = json.loads(out)
    assert shown["id"] == entry_id and shown["hits"] == 1
    assert shown["steps"][-1]["text"] == "x = 4"

    code, out, _ = run(capsys, "cache", "stats")
    assert code == 0 and "rows: 1" in out

    code, _, err = run(capsys, "cache", "evict", "nope")
    assert code == 2 and "no cache entry" in err and len(err.strip().splitlines()) == 1

    code, out, _ = run(capsys, "cache", "evict", entry_id)
    assert code == 0
    code, out, _ = run(capsys, "cache", "list")
    assert entry_id not in out

    run(capsys, "ask", "Solve for x: 3x = 12.")
    code, out, _ = run(capsys, "cache", "clear", "--yes")
    assert code == 0 and "cleared 1" in out



def test_clear_asks_first(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --yes: refused when nobody can answer, asked on a terminal, and only a yes
    removes anything."""
    run(capsys, "ask", "Solve for x: 3x = 12.")
    code, _, err = run(capsys, "cache", "clear")
    assert code == 2 and err == "stepchat: cache clear removes every entry: pass --yes to confirm\n"
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    asked: list[str] = []
    for reply, removed in [("", False), ("n", False), ("yes", True)]:

        def answer(text: str, given: str = reply) -> str:
            asked.append(text)
            return given

        monkeypatch.setattr("builtins.input", answer)
        code, out, _ = run(capsys, "cache", "clear")
        assert (code, "cleared 1" in out) == ((0, True) if removed else (1, False))
    assert asked[0].startswith("remove all 1 entries from ") and asked[0].endswith("[y/N] ")


def test_no_store_writes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """And the empty listing says so on stderr: stdout keeps one line per entry."""
    code, _, _ = run(capsys, "ask", "--no-store", "Solve for x: 5x = 10.")
    assert code == 0
    code, out, err = run(capsys, "cache", "list")
    uri = load_config().cache_location.uri
    assert (code, out, err) == (0, "", f"stepchat: no entries in the cache ({uri})\n")


@pytest.mark.parametrize("limit", ["-1", "0", "ten"])
def test_a_limit_must_be_a_positive_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    limit: str,
) -> None:
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as info:
        cli.main(["cache", "list", "--limit", limit])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"stepchat cache list: error: argument --limit: expected a whole number above 0, "
        f"got {limit!r}"
    )


@pytest.mark.parametrize(
    "age", [["--older-than", "soon"], ["--older-than", "-1d"], ["--older-than=-1d"]]
)
def test_bad_duration_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    age: list[str],
) -> None:
    """A negative age too: argparse alone takes `-1d` for an option and says --older-than
    "expected one argument"."""
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as info:
        cli.main(["cache", "evict", *age])
    assert info.value.code == 2
    bad = age[-1].split("=")[-1]
    assert capsys.readouterr().err.splitlines()[-1] == (
        "stepchat cache evict: error: argument --older-than: expected an age such as 7d, "
        f"12h or 30m, got {bad!r}"
    )


def test_the_list_keeps_its_columns_whatever_the_kinds_widths(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    solution = "12 * 24 = 288 cookies are baked.\n288 - 150 = 138 are left.\n#### 138"
    monkeypatch.setattr(runtime, "load_backend",
                        lambda config, model_id=None: ScriptedBackend([solution]))
    run(capsys, "ask", "Solve for x: 3x = 12.")
    run(capsys, "ask", "A baker makes 12 trays of 24 cookies each and sells 150 cookies. "
                       "How many cookies are left?")
    code, out, _ = run(capsys, "cache", "list")
    assert code == 0
    lines = out.splitlines()
    assert {"linear", "word-problem"} <= set(out.split())
    assert len(lines) == 2 and len({line.index(" steps ") for line in lines}) == 1


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["ID", "--older-than", "7d"],
         "cache evict takes an entry id or --older-than DURATION, not both"),
        *((["--older-than", zero], f"cache evict --older-than {zero} would remove every "
           "entry: use stepchat cache clear, which asks first") for zero in ("0d", "0", "0.0")),
        *((["--older-than", age], f"cache evict --older-than {age} would remove nearly every "
           "entry: ages start at 1m; stepchat cache clear removes them all, asking first")
          for age in ("0.4s", "0.0001s", "59s")),
        ([], "cache evict needs an entry id or --older-than DURATION"),
    ],
)
def test_evict_refuses_what_it_would_misread_and_removes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    """An id beside an age was silently ignored, and an age of 0 emptied the cache without
    the question `cache clear` asks."""
    code, out, _ = run(capsys, "ask", "--json", "Solve for x: 3x = 12.")
    entry_id = json.loads(out)["stored_entry"]
    code, out, err = run(capsys, "cache", "evict", *(entry_id if a == "ID" else a for a in argv))
    assert (code, out, err) == (2, "", f"stepchat: {words}\n")
    code, out, _ = run(capsys, "cache", "list")
    assert entry_id in out


@pytest.mark.parametrize(
    "action",
    [["list"], ["show", "nope"], ["stats"], ["evict", "--older-than", "1d"],
     ["evict", "nope"], ["clear", "--yes"], ["compact"]],
)
def test_every_cache_action_closes_the_cache_it_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    action: list[str],
) -> None:
    """Closing writes queued hit counts and waits for the upkeep an open started; a command
    that left that to the interpreter's exit could lose both."""
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    monkeypatch.delenv("STEPCHAT_CONFIG", raising=False)
    closed: list[str] = []
    opener = runtime.open_cache_store

    def opened_here(config: object) -> object:
        store = opener(config)  # type: ignore[arg-type]
        close = store.close

        def closing() -> None:
            close()
            closed.append(action[0])

        monkeypatch.setattr(store, "close", closing)
        return store

    monkeypatch.setattr(runtime, "open_cache_store", opened_here)
    code, _, _ = run(capsys, "cache", *action)
    assert code in (0, 2)
    assert closed == [action[0]]


def test_list_tells_scopes_apart(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One prompt asked under two system prompts is two entries; the listing shows each
    one's scope, and `stepchat config` the scope a plain `ask` uses."""
    prompt = "Solve for x: 2x + 1 = 9."
    plain = json.loads(run(capsys, "ask", "--json", prompt)[1])["stored_entry"]
    pirate = json.loads(run(capsys, "ask", "--json", "-s", "Talk like a pirate.", prompt)[1])
    assert pirate["hit"] is False

    code, out, _ = run(capsys, "cache", "list")
    lines = {line.split()[0]: line.split() for line in out.splitlines()}
    assert code == 0 and set(lines) == {plain, pirate["stored_entry"]}
    tags = {entry_id: fields[2] for entry_id, fields in lines.items()}
    assert tags[plain] != tags[pirate["stored_entry"]]

    config_out = run(capsys, "config")[1]
    scope_line = next(line for line in config_out.splitlines() if line.startswith("cache scope"))
    assert scope_line.split()[2] == tags[plain]
    assert json.loads(run(capsys, "cache", "show", plain)[1])["scope"].startswith(tags[plain])


def test_evict_by_age_says_the_age_as_typed(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run(capsys, "ask", "Solve for x: 3x = 12.")
    code, out, _ = run(capsys, "cache", "evict", "--older-than", "90m")
    assert (code, out) == (0, "evicted 0 entries not hit for 90m\n")
    later = time.time() + 3 * 3600
    monkeypatch.setattr(cli.time, "time", lambda: later)
    code, out, _ = run(capsys, "cache", "evict", "--older-than", "90m")
    assert (code, out) == (0, "evicted 1 entry not hit for 90m\n")


def test_a_listing_line_counts_in_words_and_keeps_its_columns() -> None:
    """`1 steps` read wrong; the singular must not shift the columns after it."""
    from stepchat.cli import _summary
    from stepchat.core.listing import EntrySummary

    lines = [
        _summary(EntrySummary(id="e1", prompt="p", task="linear", model="m", scope="92c53f11",
                              steps=steps, hits=hits, last_hit=0.0, size=1), 6)
        for steps, hits in ((1, 1), (3, 12), (12, 0))
    ]
    assert " 1 step " in lines[0] and " 1 hit " in lines[0]
    assert " 3 steps " in lines[1] and " 12 hits " in lines[1]
    assert len({line.rindex("  p") for line in lines}) == 1
