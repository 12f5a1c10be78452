"""Hostile inputs from issue #10's adversarial pass (fixtures/hostile/), through the real
CLI: each is refused with one line and exit code 2, or handled, never a traceback."""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, posix_only
from test_cli import run_cli

HOSTILE = REPO / "fixtures" / "hostile"


def _one_line_refusal(proc, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr[-500:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("name, needles", [
    ("deep-nesting.toml", ("nested too deeply",)),
    ("path-entries-int.toml", ("path.entries: expected a list of tables, found int",)),
    ("gpu-devices-int.toml", ("gpu.devices: expected a list of tables, found int",)),
    ("gxx-count-str.toml", ("compilers.gxx_count: expected int, found str",)),
    ("theanorc-file-path-int.toml", ("theano_config.files[0].path: expected str, found int",)),
    ("schema-true.toml", ("facts schema True",)),
    # Python's limit on int() of text (3.11, 3.10.7, 3.9.14): without it the record parses
    pytest.param("int-5000-digits.toml", ("not a TOML facts file", "4300 digits"), marks=pytest.mark.skipif(
        getattr(sys, "get_int_max_str_digits", lambda: 0)() == 0, reason="this Python has no int() digit limit")),
])
def test_malformed_records_are_refused_with_the_path_and_the_problem(name: str, needles: tuple) -> None:
    """Defect 6: RecursionError, and 24 crash sites on known keys with wrong kinds."""
    for command in (("check",), ("theanorc",), ("report", "-o", os.devnull + ".zip")):
        proc = run_cli(*command, "--facts", str(HOSTILE / name))
        _one_line_refusal(proc, name, *needles)


def test_a_project_with_deeply_nested_files_is_scanned_not_a_crash(tmp_path: Path) -> None:
    """keras.json nested 60,000 deep (in the project and in ~/.keras) and a script nested
    past CPython's parser limit were internal errors; the script is still read by pattern."""
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".keras").mkdir(parents=True)
    project.mkdir()
    nested = "[" * 60000 + "]" * 60000
    (home / ".keras" / "keras.json").write_text(nested)
    (project / "keras.json").write_text(nested)
    (project / "train.py").write_text("import lasagne\nx = " + "-" * 200000 + "1\n")
    proc = run_cli("check", "--facts", str(REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"),
                   "--project", str(project), "--format", "json", env={"HOME": str(home), "USERPROFILE": str(home)})
    assert proc.returncode in (0, 1), proc.stderr[-800:]
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    import json

    plan = json.loads(proc.stdout)["plan"]
    assert "Lasagne" in json.dumps(plan), plan  # the import, found by pattern
    assert not plan["keras_json"], plan["keras_json"]


def test_versions_of_5000_digits_are_unknown_not_a_crash() -> None:
    proc = run_cli("check", "--facts", str(HOSTILE / "version-5000-digits.toml"), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    assert "internal error" not in proc.stderr and proc.stdout.startswith("{")


@pytest.mark.parametrize("value", ["inf", "1e308", "nan", "-1"])
def test_absurd_timeouts_are_usage_errors(value: str) -> None:
    _one_line_refusal(run_cli("probe", "--timeout", value), "--timeout")


def test_a_zip_listing_one_member_a_thousand_times_stays_small(tmp_path: Path) -> None:
    """Defect 7: each listing was read again (450 MB at 100), and report wrote a 419 MB zip."""
    source = HOSTILE / "repeated-index-member.zip"
    check = run_cli("check", "--facts", str(source))
    assert check.returncode in (0, 1), check.stderr
    out = tmp_path / "rebuilt.zip"
    report = run_cli("report", "--facts", str(source), "-o", str(out), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert out.stat().st_size < 2 * 1024 * 1024
    with zipfile.ZipFile(out) as archive:
        commands = [n for n in archive.namelist() if n.startswith("commands/") and n.endswith(".txt")]
    assert len(commands) == 1


@posix_only
def test_a_target_python_that_prints_wrong_kinds_gives_a_clean_record(tmp_path: Path) -> None:
    """Defect 6, live: a --python whose report holds wrong kinds crashed the same sites."""
    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\n"
        "echo '{\"legacydoc_target_report\": 1, \"python\": {\"version\": 5, \"sys_path\": 7, \"bits\": \"x\"},"
        " \"packages\": {\"found\": 3, \"numpy\": {\"name\": \"numpy\", \"version\": [1, 2]}}}'\n"
    )
    fake.chmod(0o755)
    probe = run_cli("probe", "--python", str(fake), "--format", "toml", "--timeout", "5")
    assert probe.returncode == 0, probe.stderr
    assert "probe_dropped" in probe.stdout and "python.version: expected str, found int" in probe.stdout
    check = run_cli("check", "--python", str(fake), "--timeout", "5")
    assert check.returncode in (0, 1) and "internal error" not in check.stderr, check.stderr


def test_the_fixtures_are_what_the_readme_says() -> None:
    listed = (HOSTILE / "README.md").read_text()
    for path in HOSTILE.iterdir():
        if path.name != "README.md":
            assert path.name in listed, path.name
    assert sys.getrecursionlimit() < 20000  # the deep file really is deeper than Python recurses
