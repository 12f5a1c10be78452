"""The parsed-data cache: keyed by the file's bytes, used by read_toml, never in the way."""

from __future__ import annotations

from pathlib import Path

import pytest

from legacydoc import locate, parsecache


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("LEGACYDOC_CACHE_DIR", str(folder))
    return folder


def test_a_parsed_file_is_read_back_from_the_cache(cache: Path, tmp_path: Path, monkeypatch) -> None:
    source = tmp_path / "r.toml"
    source.write_text('[[rule]]\nid = "LD999"\nfix = ["a", { bash = "b" }]\n')
    first = locate.read_toml(source, "rule pack")
    assert len(list(cache.iterdir())) == 1

    def no_parsing(_text: str) -> dict:
        raise AssertionError("parsed again")

    monkeypatch.setattr(locate.tomllib, "loads", no_parsing)
    assert locate.read_toml(source, "rule pack") == first


def test_an_edited_file_is_another_entry(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = 1\n")
    assert locate.read_toml(source, "x") == {"a": 1}
    source.write_text("a = 2\n")
    assert locate.read_toml(source, "x") == {"a": 2}
    assert len(list(cache.iterdir())) == 2


def test_a_damaged_entry_is_ignored_and_replaced(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = 1\n")
    locate.read_toml(source, "x")
    [entry] = list(cache.iterdir())
    entry.write_text("{not json")
    assert locate.read_toml(source, "x") == {"a": 1}
    assert entry.read_text() == '{"a": 1}'


def test_what_json_cannot_hold_is_not_cached(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("when = 2017-04-13\n")
    assert str(locate.read_toml(source, "x")["when"]) == "2017-04-13"
    assert not cache.exists() or list(cache.iterdir()) == []


def test_no_cache_when_switched_off_or_unwritable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = 1\n")
    monkeypatch.setenv("LEGACYDOC_CACHE_DIR", "")
    assert parsecache.cache_dir() is None and locate.read_toml(source, "x") == {"a": 1}
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("LEGACYDOC_CACHE_DIR", str(blocker / "sub"))
    assert locate.read_toml(source, "x") == {"a": 1}  # cannot create the folder: nothing happens


def test_a_broken_file_is_still_one_line(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "r.toml"
    source.write_text("a = \n")
    with pytest.raises(Exception, match="not valid TOML"):
        locate.read_toml(source, "x")
