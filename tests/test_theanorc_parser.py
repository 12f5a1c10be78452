"""The config-file parser: Python 3 and Python 2 ConfigParser rules, line numbers, and
every problem reported instead of raised."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from legacy_envs import find_python
from legacydoc.theanorc.parser import dialect_for, parse_text, split_lines

CORPUS = Path(__file__).parent / "data" / "theanorc" / "corpus"


def values(text: str, dialect: str = "py3") -> dict:
    return {s: {k: e.value for k, e in opts.items()} for s, opts in parse_text(text, dialect).values().items()}


def test_inline_comments_and_quotes_stay_in_the_value() -> None:
    got = values("[global]\nfloatX = float32  # c\ndevice = 'cuda'\nmode = FAST_RUN ; x\n")
    assert got == {"global": {"floatx": "float32  # c", "device": "'cuda'", "mode": "FAST_RUN ; x"}}


def test_python2_cuts_semicolon_comments_but_not_hash() -> None:
    got = values("[global]\nfloatX = float32  # c\nmode = FAST_RUN ; x\nempty = \"\"\n", "py2")
    assert got == {"global": {"floatx": "float32  # c", "mode": "FAST_RUN", "empty": ""}}


def test_option_names_lowercased_sections_kept() -> None:
    parsed = parse_text("[Global]\nFLOATX = float32\n")
    entry = parsed.entries[0]
    assert (entry.section, entry.option, entry.raw_option, entry.line) == ("Global", "floatx", "FLOATX", 2)


def test_continuation_and_blank_lines() -> None:
    parsed = parse_text("[gcc]\ncxxflags = -O2\n\n  -g\n\n[global]\nfloatX = float32\n")
    entry = parsed.entries[0]
    assert entry.value == "-O2\n\n-g"
    assert (entry.line, entry.end_line, entry.continued) == (2, 4, True)


def test_every_problem_reported_with_its_line() -> None:
    text = "device = cuda\n[global]\nfloatX = float32\nbad line\n[global]\nfloatx = float64\n"
    issues = [(i.kind, i.line) for i in parse_text(text).issues]
    assert issues == [("missing-section-header", 1), ("parse-error", 4), ("duplicate-section", 5), ("duplicate-option", 6)]
    # configparser raises the first immediate error; parse errors only at the end of the file
    assert parse_text(text).fatal.kind == "missing-section-header"
    assert parse_text("[a]\nbad\n[a]\n").fatal.kind == "duplicate-section"
    assert parse_text("[a]\nbad\nworse\n").fatal.kind == "parse-error"


def test_orphan_options_kept_for_the_findings() -> None:
    parsed = parse_text("floatX = float32\n[global]\n")
    assert parsed.entries[0].section is None and parsed.entries[0].option == "floatx"
    assert parsed.values() == {}


def test_default_section_is_not_duplicated() -> None:
    assert parse_text("[DEFAULT]\na = 1\n[DEFAULT]\nb = 2\n").issues == []


def test_split_lines_like_universal_newlines() -> None:
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert split_lines("a\x0cb\u2028c\n") == ["a\x0cb\u2028c"]  # only \r and \n end lines


def test_header_regex_edges() -> None:
    text = "[global] junk\nfloatX = float32\n[]\n[[dnn]]\n"
    parsed = parse_text(text, "py310")
    assert parsed.section_names() == ["global", "[dnn]"]
    assert [i.kind for i in parsed.issues] == ["parse-error"]  # "[]" is not a header
    assert parse_text(text, "py3").section_names() == ["global", "[dnn"]  # Python <= 3.9 stops at the first ']'


def test_dialect_for() -> None:
    assert [dialect_for(v) for v in (None, (2, 7, 18), (3, 6), (3, 9, 18), (3, 10, 0), (3, 13))] == [
        "py3", "py2", "py3", "py3", "py310", "py310"]


@pytest.mark.parametrize("text, fatal", [
    ("\x00\x01\x02", "missing-section-header"),
    ("[", "missing-section-header"),
    ("]", "missing-section-header"),
    ("=", "missing-section-header"),
    (":", "missing-section-header"),
    ("\ufeff", "missing-section-header"),
    ("%(", "missing-section-header"),
    ("[a]\n\t\x0b=\x0c\n", "parse-error"),
    ("[a]\n" + "x" * 100000, "parse-error"),  # an option line without '=' or ':'
])
def test_garbage_is_the_error_configparser_raises(text: str, fatal: str) -> None:
    for dialect in ("py3", "py2"):
        parsed = parse_text(text, dialect)
        assert parsed.fatal is not None and parsed.fatal.kind == fatal, (dialect, parsed.issues)


# --- Python 2's ConfigParser, for real -----------------------------------------------------

PY2_SCRIPT = r"""
import json, sys, ConfigParser
out = {}
for path in sys.argv[1:]:
    p = ConfigParser.RawConfigParser()
    try:
        p.read([path])
        data = {}
        for s in p.sections():
            data[s] = dict((k, v) for k, v in p.items(s) if k != "__name__")
        out[path] = ["", data]
    except ConfigParser.Error as exc:
        out[path] = [type(exc).__name__, {}]
print(json.dumps(out))
"""


@pytest.mark.legacy
def test_python2_dialect_matches_real_python27() -> None:
    python = find_python("2.7")
    if python is None:
        pytest.skip("no Python 2.7 from pyenv")
    files = []
    for path in sorted(CORPUS.glob("*.theanorc")):
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # compared as text: only files that decode
        if b"\x00" in data or b"\r" in data:
            continue  # Python 2 splits lines by \n only in read(); not what Theano users on 2.7 have
        files.append(path)
    proc = subprocess.run([str(python), "-c", PY2_SCRIPT] + [str(p) for p in files], stdout=subprocess.PIPE, timeout=120)
    real = json.loads(proc.stdout.decode())
    names = {"missing-section-header": "MissingSectionHeaderError", "parse-error": "ParsingError"}
    checked = 0
    for path in files:
        error, expected = real[str(path)]
        parsed = parse_text(path.read_bytes().decode("utf-8"), "py2")
        fatal = parsed.fatal
        if error:
            assert fatal is not None and names[fatal.kind] == error, path.name
            continue
        assert fatal is None, path.name
        mine = {s: {k: e.value for k, e in opts.items()} for s, opts in parsed.values().items() if s != "DEFAULT"}
        for section in parsed.section_names():
            if section != "DEFAULT":
                mine.setdefault(section, {})
        # Python 2's items() merges [DEFAULT] into every section
        defaults = {k: e.value for k, e in parsed.values().get("DEFAULT", {}).items()}
        mine = {s: dict(defaults, **opts) for s, opts in mine.items()}
        assert mine == expected, path.name
        checked += 1
    assert checked > 20
