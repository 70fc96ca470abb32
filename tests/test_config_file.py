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
