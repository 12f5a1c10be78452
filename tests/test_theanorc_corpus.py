"""The corpus of malformed and unusual config files (tests/data/theanorc/corpus, plus
links, folders, FIFOs and unreadable files made here): every public entry point runs on
each one without a traceback, the derived facts survive a TOML round trip, and the
parser agrees with the running Python's own configparser on every file."""

from __future__ import annotations

import configparser
import io
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from legacydoc import facts
from legacydoc.probes import theano_config
from legacydoc.probes.context import ProbeContext
from legacydoc.theanorc.command import show, write
from legacydoc.theanorc.effective import effective_config
from legacydoc.theanorc.findings import KINDS, derive_config_facts, find_problems
from legacydoc.theanorc.parser import DEFAULT_SECTION, dialect_for, parse_text, split_lines

# this Python's own configparser is the reference, so parse with its rules
DIALECT = dialect_for(tuple(sys.version_info))

CORPUS = Path(__file__).parent / "data" / "theanorc" / "corpus"
FILES = sorted(CORPUS.glob("*.theanorc"))


def test_corpus_is_big_enough() -> None:
    assert len(FILES) >= 40


def _world(tmp_path: Path, setup: Callable[[Path], None], env: dict[str, str] | None = None) -> dict[str, Any]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    setup(home)
    environ = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    environ.update(env or {})
    ctx = ProbeContext(environ=environ, platform=sys.platform, cwd=tmp_path, timeout=5.0)
    return facts.new_record({"theano_config": theano_config.collect(ctx)})


def _exercise(record: dict[str, Any], tmp_path: Path) -> None:
    """Everything a user can run on this record, with Python 3 and Python 2 rules."""
    for python in ({}, {"version": "2.7.18", "version_info": [2, 7, 18], "probe_ok": True}):
        rec = dict(record, python=python)
        config = effective_config(rec)
        assert config.settings
        for finding in find_problems(rec, config):
            assert finding.kind in KINDS
            assert finding.severity in ("error", "warning", "info")
            assert finding.message
        derived = derive_config_facts(rec)
        # derived facts are saved with the record: they must be valid TOML
        text = facts.dumps(dict(rec, **derived))
        assert facts.loads(text)["config"]["findings"] == derived["config"]["findings"]
        assert show(rec)
        out = io.StringIO()
        assert write(rec, tmp_path / "out" / "theanorc", dry_run=True, assume_yes=True, out=out) in (0, 2)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_file_never_crashes(path: Path, tmp_path: Path) -> None:
    record = _world(tmp_path, lambda home: shutil.copyfile(path, home / ".theanorc"))
    assert record["theano_config"]["files"][0]["readable"]
    _exercise(record, tmp_path)


def _symlink(target: str) -> Callable[[Path], None]:
    def setup(home: Path) -> None:
        os.symlink(target, str(home / ".theanorc"))
    return setup


UNUSUAL: dict[str, Callable[[Path], None]] = {
    "symlink-to-corpus-file": _symlink(str(CORPUS / "seed-blog.theanorc")),
    "dangling-symlink": _symlink("/nonexistent/theanorc"),
    "symlink-loop": _symlink(".theanorc"),
    "directory": lambda home: (home / ".theanorc").mkdir(),
    "fifo": lambda home: os.mkfifo(str(home / ".theanorc")),
    "unreadable": lambda home: ((home / ".theanorc").write_text("[global]\nfloatX = float32\n"),
                                (home / ".theanorc").chmod(0)),
}


@pytest.mark.skipif(os.name == "nt", reason="POSIX links, FIFOs and modes")
@pytest.mark.parametrize("name", sorted(UNUSUAL))
def test_unusual_file_never_crashes(name: str, tmp_path: Path) -> None:
    record = _world(tmp_path, UNUSUAL[name])
    _exercise(record, tmp_path)
    config = effective_config(record)
    if name in ("directory", "fifo"):
        assert config.files[0].status == "not-a-file"
        assert any(f.kind == "unreadable-theanorc" for f in find_problems(record))


def test_theanorc_lists_every_unusual_entry(tmp_path: Path) -> None:
    """THEANORC naming a folder, a missing file, an empty entry and a corpus file."""
    (tmp_path / "adir").mkdir()
    value = ":".join([str(tmp_path / "adir"), str(tmp_path / "missing"), "", str(CORPUS / "crlf.theanorc")])
    record = _world(tmp_path, lambda home: None, {"THEANORC": value})
    _exercise(record, tmp_path)
    config = effective_config(record)
    assert [s.status for s in config.files] == ["not-a-file", "missing", "missing", "read"]
    assert config["floatX"].value == "float32"


# --- the parser against the standard library ------------------------------------------------


def _stdlib(text: str, strict: bool) -> tuple[str, dict[str, dict[str, str]]]:
    parser = configparser.RawConfigParser(strict=strict)
    try:
        parser.read_string(text, source="x")
    except configparser.Error as exc:
        return type(exc).__name__, {}
    values = {name: dict(parser._sections[name]) for name in parser.sections()}  # raw, no DEFAULT merged
    if parser.defaults():
        values[DEFAULT_SECTION] = dict(parser.defaults())
    return "", values


def _mine(text: str) -> tuple[str, dict[str, dict[str, str]]]:
    parsed = parse_text(text, DIALECT)
    fatal = parsed.fatal
    if fatal is not None:
        names = {"missing-section-header": "MissingSectionHeaderError", "duplicate-section": "DuplicateSectionError",
                 "duplicate-option": "DuplicateOptionError", "parse-error": "ParsingError"}
        return names[fatal.kind], {}
    values = {}
    for name in parsed.section_names():
        values.setdefault(name, {})
    for section, options in parsed.values().items():
        values[section] = {k: e.value for k, e in options.items()}
    return "", values


def _texts() -> list[tuple[str, str]]:
    out = []
    for path in FILES:
        data = path.read_bytes()
        text = data.decode("utf-8-sig", errors="replace")
        out.append((path.stem, "\n".join(split_lines(text)) + "\n"))
    return out


@pytest.mark.parametrize("name,text", _texts(), ids=[n for n, _ in _texts()])
def test_parser_agrees_with_configparser(name: str, text: str) -> None:
    assert _mine(text) == _stdlib(text, strict=True)


@pytest.mark.parametrize("name,text", _texts(), ids=[n for n, _ in _texts()])
def test_tolerant_values_agree_with_non_strict_configparser(name: str, text: str) -> None:
    error, values = _stdlib(text, strict=False)
    parsed = parse_text(text, DIALECT)
    if error or any(i.kind != "duplicate-option" and i.kind != "duplicate-section" for i in parsed.issues):
        return  # the standard library stops; nothing to compare
    mine = {}
    for section in parsed.section_names():
        mine.setdefault(section, {})
    for section, options in parsed.values().items():
        mine[section] = {k: e.value for k, e in options.items()}
    assert mine == values
