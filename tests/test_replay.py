"""Replay: a saved report diagnoses the same anywhere; a bad or hostile zip is refused."""

from __future__ import annotations

import io
import json
import stat
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Callable

import pytest

from conftest import REPO
from legacydoc import facts, replay
from legacydoc.checkup import run_check
from legacydoc.engine import Diagnosis, load_rules
from legacydoc.errors import UsageError
from test_cli import run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = REPO / "fixtures"
SEED_000 = FIXTURES / "seed-000-win10-python313-nvml-error"
SEED_002 = FIXTURES / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"
HEALTHY = FIXTURES / "healthy-linux-gtx1080ti-cuda102" / "facts.toml"
# Built on Windows facts and re-zipped the Windows way (tools/make_windows_report_fixture.py).
WINDOWS_REPORT = FIXTURES / "reports" / "seed-000-windows-report.zip"
RULES = load_rules()


def _shape(diags: list[Diagnosis]) -> list[tuple]:
    return [(d.id, d.severity, d.title, tuple(d.fix), _shape(d.folded)) for d in diags]


def _json_without_source(*args: str) -> dict:
    proc = run_cli("check", *args, "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    data.pop("source")
    return data


# --- replay across machines -------------------------------------------------------------


def test_a_report_made_on_windows_replays_here_to_the_same_diagnoses() -> None:
    replayed = replay.load(WINDOWS_REPORT)
    assert replayed.kind == "report" and replayed.record["system"]["os"] == "windows"
    assert replayed.commands and "nvidia-smi.exe" in replayed.commands[0][0]["argv"][0]
    assert replayed.manifest["facts_schema"] == 1
    from_zip = run_check(replayed.record, RULES)
    from_facts = run_check(facts.load(SEED_000 / "facts.toml"), RULES)
    assert _shape(from_zip.diagnoses) == _shape(from_facts.diagnoses)
    expect = tomllib.loads((SEED_000 / "expect.toml").read_text(encoding="utf-8"))
    top = {d.id for d in from_zip.diagnoses}
    assert set(expect["must"]) <= top
    # and through the command line, as a support engineer runs it
    assert _json_without_source("--facts", str(WINDOWS_REPORT)) == _json_without_source(
        "--facts", str(SEED_000 / "facts.toml")
    )


def test_a_report_made_here_replays_as_it_would_on_windows(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "linux.zip"
    assert run_cli("report", "--facts", str(HEALTHY), "-o", str(target)).returncode == 0
    with zipfile.ZipFile(target) as archive:
        shipped = json.loads(archive.read("report.json"))
    # Nothing in replay or the rules may consult the desk's own OS: pretend to be Windows.
    monkeypatch.setattr(sys, "platform", "win32")
    result = run_check(replay.load(target).record, RULES, source="this machine")
    from legacydoc.render.check_json import render_check_json

    again = json.loads(render_check_json(result))
    again.pop("source"), shipped.pop("source")
    assert again == shipped


@pytest.mark.parametrize("fixture", [SEED_002, HEALTHY], ids=["windows", "linux"])
def test_report_then_replay_round_trip(tmp_path: Path, fixture: Path) -> None:
    target = tmp_path / "r.zip"
    assert run_cli("report", "--facts", str(fixture), "-o", str(target)).returncode == 0
    assert _json_without_source("--facts", str(target)) == _json_without_source("--facts", str(fixture))


def test_a_zip_zipped_by_windows_tools_is_read(tmp_path: Path) -> None:
    """Backslash separators, a top folder, CRLF and a BOM, as some Windows zippers leave them."""
    text = SEED_002.read_text(encoding="utf-8").replace("\n", "\r\n")
    target = _zip(tmp_path, [("legacydoc-report\\facts.toml", ("\ufeff" + text).encode("utf-8"))])
    assert _shape(run_check(replay.load(target).record, RULES).diagnoses) == _shape(
        run_check(facts.load(SEED_002), RULES).diagnoses
    )


def test_a_plain_facts_file_still_replays() -> None:
    loaded = replay.load(SEED_002)
    assert loaded.kind == "facts" and loaded.commands == []
    assert loaded.record == facts.load(SEED_002)


# --- refusing bad and hostile zips --------------------------------------------------------


def _zip(tmp_path: Path, members: list, name: str = "bad.zip", edit: Callable = lambda info: None) -> Path:
    target = tmp_path / name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names warn
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for member, data in members:
                info = zipfile.ZipInfo(member)
                info.compress_type = zipfile.ZIP_DEFLATED
                edit(info)
                archive.writestr(info, data)
    return target


def _good_facts() -> bytes:
    return SEED_002.read_bytes()


def _symlink(info: zipfile.ZipInfo) -> None:
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16


HOSTILE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "absolute path": (lambda d: _zip(d, [("facts.toml", _good_facts()), ("/etc/cron.d/x", b"x")]), "absolute path"),
    "drive letter": (lambda d: _zip(d, [("facts.toml", _good_facts()), ("C:/Windows/x.dll", b"x")]), "absolute path"),
    "dot-dot": (lambda d: _zip(d, [("facts.toml", _good_facts()), ("commands/../../evil.txt", b"x")]), "'..'"),
    "dot-dot backslash": (lambda d: _zip(d, [("..\\..\\evil.txt", b"x"), ("facts.toml", _good_facts())]), "'..'"),
    "symlink": (lambda d: _zip(d, [("facts.toml", b"/etc/passwd")], edit=_symlink), "symbolic link"),
    "huge member": (lambda d: _zip(d, [("facts.toml", b"#" * (replay.MAX_MEMBER_BYTES + 1))]), "limit"),
    "bomb ratio": (lambda d: _zip(d, [("facts.toml", _good_facts()), ("x.bin", b"\0" * (3 << 20))]), "zip bomb"),
    "too many members": (lambda d: _zip(d, [("m%d" % i, b"") for i in range(replay.MAX_MEMBERS + 1)]), "members"),
    "duplicate facts": (lambda d: _zip(d, [("facts.toml", _good_facts()), ("facts.toml", b"schema = 1")]), "duplicate"),
    "control characters": (lambda d: _zip(d, [("facts.toml\n", _good_facts())]), "control characters"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_zips_are_refused_naming_the_file(tmp_path: Path, case: str) -> None:
    make, fragment = HOSTILE[case]
    bad = make(tmp_path)
    with pytest.raises(UsageError) as err:
        replay.load(bad)
    message = str(err.value)
    assert str(bad) in message and fragment in message and "\n" not in message


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _encrypted_zip(d: Path) -> Path:
    """zipfile cannot write encrypted members: set the flag in both headers by hand."""
    data = bytearray(_zip(d, [("facts.toml", _good_facts())]).read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        data[at + offset] |= 0x1
    return _write(d / "bad.zip", bytes(data))


def _truncated(d: Path) -> Path:
    good = _zip(d, [("facts.toml", _good_facts())], name="good.zip")
    data = good.read_bytes()
    bad = d / "bad.zip"
    bad.write_bytes(data[: len(data) // 2])
    return bad


def _corrupted(d: Path) -> Path:
    good = _zip(d, [("facts.toml", _good_facts())], name="good.zip")
    data = bytearray(good.read_bytes())
    data[60:70] = b"\xff" * 10  # inside the compressed data: CRC or inflate error
    bad = d / "bad.zip"
    bad.write_bytes(bytes(data))
    return bad


BROKEN: dict[str, tuple[Callable[[Path], Path], str]] = {
    "truncated": (_truncated, "truncated or damaged"),
    "corrupted": (_corrupted, "not a readable zip"),
    "not a zip": (lambda d: _write(d / "bad.zip", b"this is not a zip at all"), "not a zip archive"),
    "empty file": (lambda d: _write(d / "bad.zip", b""), "not a zip archive"),
    "no facts": (lambda d: _zip(d, [("report.md", b"# hi")]), "no facts.toml"),
    "facts not toml": (lambda d: _zip(d, [("facts.toml", b"= = =")]), "not a TOML facts file"),
    "facts not utf-8": (lambda d: _zip(d, [("facts.toml", b"\xff\xfe\x00s")]), "not UTF-8"),
    "newer schema": (lambda d: _zip(d, [("facts.toml", b'schema = 9\nlegacydoc_version = "7.0"\n')]), "upgrade"),
    "encrypted flag": (_encrypted_zip, "encrypted"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_zips_are_refused_with_one_line(tmp_path: Path, case: str) -> None:
    make, fragment = BROKEN[case]
    bad = make(tmp_path)
    with pytest.raises(UsageError) as err:
        replay.load(bad)
    message = str(err.value)
    assert str(bad) in message and fragment in message and "\n" not in message


@pytest.mark.parametrize("case", ["dot-dot", "absolute path", "symlink", "bomb ratio"])
@pytest.mark.parametrize("command", ["check", "report"])
def test_the_cli_refuses_them_and_writes_nothing(tmp_path: Path, case: str, command: str) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    bad = HOSTILE[case][0](inbox)
    work = tmp_path / "work"
    work.mkdir()
    before = sorted(tmp_path.rglob("*"))
    proc = run_cli(command, "--facts", str(bad), cwd=work)
    assert proc.returncode == 2
    assert proc.stderr.startswith("legacydoc: error: %s: refused: " % bad)
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert sorted(tmp_path.rglob("*")) == before  # nothing extracted, no report written
    assert not (tmp_path.parent / "evil.txt").exists()


def test_cli_one_line_for_truncated_and_non_zip(tmp_path: Path) -> None:
    for bad in (_truncated(tmp_path), _write(tmp_path / "notes.zip", b"hello")):
        proc = run_cli("check", "--facts", str(bad))
        assert proc.returncode == 2 and str(bad) in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_older_and_newer_schemas_say_which_version_wrote_them(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.toml", b'schema = 0\nlegacydoc_version = "0.0.9"\n')
    new = _write(tmp_path / "new.toml", b'schema = 2\nlegacydoc_version = "0.4.0"\n')
    with pytest.raises(UsageError, match=r"facts schema 0 \(written by legacydoc 0\.0\.9\) is older"):
        replay.load(old)
    with pytest.raises(UsageError, match=r"facts schema 2 \(written by legacydoc 0\.4\.0\) is newer.*upgrade"):
        replay.load(new)


def test_a_report_is_recognised_by_content_not_by_name(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("facts.toml", _good_facts())
    renamed = _write(tmp_path / "report.toml", buf.getvalue())
    assert replay.load(renamed).kind == "report"
