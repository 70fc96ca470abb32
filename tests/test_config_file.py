"""How config.toml is found and read: the bytes an editor may write, and where it lives.

A file stepchat cannot read must stop every command with one line naming the file and the
mistake, and `stepchat config` must still show where the file is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stepchat import cli
from stepchat.config import Config, ConfigError, load_config
from stepchat.paths import UserPaths


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STEPCHAT_HOME", str(tmp_path))
    monkeypatch.delenv("STEPCHAT_CONFIG", raising=False)
    return tmp_path


def write_config(home: Path, data: bytes) -> Path:
    path = home / "config" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


def load(home: Path) -> Config:
    return load_config(UserPaths(home / "config", home / "data"))


def test_a_file_that_is_not_utf8_names_the_byte_and_its_line(home: Path) -> None:
    path = write_config(home, b'threads = 2\nsystem_prompt = "caf\xe9"\n')
    with pytest.raises(ConfigError) as info:
        load(home)
    assert str(info.value) == (
        f"{path}: not UTF-8 text: byte 0xe9 at line 2 (fix: save the file as UTF-8)"
    )


def test_a_byte_order_mark_is_read_as_the_utf8_it_announces(home: Path) -> None:
    write_config(home, b'\xef\xbb\xbfsystem_prompt = "caf\xc3\xa9"\n')
    assert load(home).pipeline.system_prompt == "café"


def test_config_shows_the_path_then_the_encoding_mistake(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(home, b'system_prompt = "caf\xe9"\n')
    assert cli.main(["config"]) == 2
    out, err = capsys.readouterr()
    assert out == f"config file    {path}\n"
    assert err == (
        f"stepchat: {path}: not UTF-8 text: byte 0xe9 at line 1 (fix: save the file as UTF-8)\n"
    )
    assert cli.main(["ask", "Solve for x: 2x = 4"]) == 2
    assert capsys.readouterr().err == err


@pytest.mark.parametrize(
    ("named", "words"),
    [
        ("directory", "a directory (fix: name the file in it, such as {path}/config.toml, "),
        ("missing.toml", "no such file (fix: create it, "),
        ("/dev/null", "not a regular file (fix: name a TOML file, "),
    ],
)
def test_a_config_override_that_is_not_a_file_says_what_it_is(
    home: Path, monkeypatch: pytest.MonkeyPatch, named: str, words: str
) -> None:
    (home / "directory").mkdir()
    path = home / named
    monkeypatch.setenv("STEPCHAT_CONFIG", str(path))
    with pytest.raises(ConfigError) as info:
        load(home)
    assert str(info.value) == (
        f"STEPCHAT_CONFIG={path}: " + words.format(path=path)
        + "or unset STEPCHAT_CONFIG to use config.toml in the config dir)"
    )


def test_relative_paths_are_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`STEPCHAT_HOME=rel` once printed `rel/config/config.toml`, right only from one
    directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STEPCHAT_HOME", "rel/../home")
    monkeypatch.delenv("STEPCHAT_CONFIG", raising=False)
    assert cli.main(["config", "--path"]) == 0
    assert capsys.readouterr().out == f"{tmp_path}/home/config/config.toml\n"
    (tmp_path / "mine.toml").write_text("threads = 3\n")
    monkeypatch.setenv("STEPCHAT_CONFIG", "mine.toml")
    assert cli.main(["config", "--path"]) == 0
    assert capsys.readouterr().out == f"{tmp_path}/mine.toml\n"
