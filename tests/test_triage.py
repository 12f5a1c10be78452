"""legacydoc triage and legacydoc diff, through the CLI, on report zips built here from
the field corpus's records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import corpus
import pytest

from conftest import REPO
from legacydoc import facts, logscan
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules
from legacydoc.redact import Redactor
from legacydoc.report import write_report
from legacydoc.triage import values_of

RULES = load_rules()
TICKETS = REPO / "fixtures" / "tickets"
ZIPS = 32


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "legacydoc", *args], cwd=str(REPO), env=full_env,
                          capture_output=True, text=True, timeout=300)


def _record(case: Path) -> dict:
    record = facts.load(case / "facts.toml")
    if (case / "log.txt").exists():
        record["log"] = logscan.log_table((case / "log.txt").read_bytes(), source="log.txt")
    return record


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ZIPS report zips as `legacydoc report` writes them, one per corpus case, plus a
    hostile zip, a broken TOML and an unrelated TOML in a sub-folder."""
    folder = tmp_path_factory.mktemp("desk")
    for case in corpus.cases()[:ZIPS]:
        record = _record(case.folder)
        redactor = Redactor.for_record(record, environ={}, identity=True)
        write_report(folder / (case.id + ".zip"), record, RULES, [], redactor, case.id)
    with zipfile.ZipFile(folder / "evil.zip", "w") as archive:
        archive.writestr("../../etc/facts.toml", "schema = 1\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "broken.toml").write_text("schema = 1\n[python\n")
    (folder / "sub" / "notes.toml").write_text("title = 'not a record'\n")
    return folder


def test_triage_counts_what_check_says_of_each_report(desk: Path) -> None:
    proc = cli("triage", str(desk), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["records"] == ZIPS and data["other_files"] == 1
    refused = {Path(r["file"]).name: r["why"] for r in data["refused"]}
    assert set(refused) == {"evil.zip", "broken.toml"}
    assert "'..'" in refused["evil.zip"] and "\n" not in refused["broken.toml"]
    # Each count is what check --facts concludes for that record, computed here apart.
    expected: dict[str, Counter] = {}
    for case in corpus.cases()[:ZIPS]:
        result = run_check(_record(case.folder), RULES, source=case.id)
        for name, value in values_of(result).items():
            expected.setdefault(name, Counter())[value] += 1
    for name, rows in data["counts"].items():
        assert {r["value"]: r["count"] for r in rows} == dict(expected[name]), name
    assert sum(r["count"] for r in data["counts"]["root_cause"]) == ZIPS


def test_triage_text_markdown_and_csv(desk: Path) -> None:
    text = cli("triage", str(desk)).stdout
    assert text.startswith("legacydoc triage: %d records diagnosed, 2 refused" % ZIPS)
    assert "Root cause (first error or warning)" in text and "evil.zip" in text
    markdown = cli("triage", str(desk), "--format", "markdown").stdout
    assert "| count | share | value |" in markdown
    rows = cli("triage", str(desk), "--format", "csv").stdout.splitlines()
    assert rows[0].startswith("file,status,errors,warnings,root_cause")
    assert len(rows) == 1 + ZIPS + 2


def test_triage_of_nothing_readable_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "x.toml").write_text("not = 'a record'\n")
    proc = cli("triage", str(tmp_path / "x.toml"), str(tmp_path / "missing"))
    assert proc.returncode == 2 and "no record could be read" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_diff_shows_the_fixed_finding_and_the_changed_fact(tmp_path: Path) -> None:
    before = (TICKETS / "gh-libgpuarray-474" / "facts.toml").read_text()
    assert 'THEANO_FLAGS = "device=cuda*"' in before
    after = tmp_path / "after.toml"
    after.write_text(before.replace('THEANO_FLAGS = "device=cuda*"', 'THEANO_FLAGS = "device=cuda0"'))
    proc = cli("diff", str(TICKETS / "gh-libgpuarray-474" / "facts.toml"), str(after), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [f["id"] for f in data["fixed"]] == ["LD532"] and data["new_findings"] == []
    assert data["fact_changes"] == [
        {"fact": "theano_config.flags.THEANO_FLAGS", "old": "device=cuda*", "new": "device=cuda0"}]
    text = cli("diff", str(TICKETS / "gh-libgpuarray-474" / "facts.toml"), str(after)).stdout
    assert "Fixed (1)" in text and "theano_config.flags.THEANO_FLAGS: device=cuda* -> device=cuda0" in text


def test_diff_says_not_recorded_rather_than_removed(tmp_path: Path) -> None:
    partial = tmp_path / "partial.toml"
    partial.write_text("schema = 1\n")
    proc = cli("diff", str(TICKETS / "gh-libgpuarray-474" / "facts.toml"), str(partial))
    assert proc.returncode == 0, proc.stderr
    assert "system.os: linux -> (not recorded)" in proc.stdout


def test_diff_of_a_missing_file_is_one_line(tmp_path: Path) -> None:
    proc = cli("diff", str(tmp_path / "a.zip"), str(tmp_path / "b.zip"))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_a_refusal_loses_its_path_prefix_in_either_language() -> None:
    from pathlib import Path

    from legacydoc.triage import _reason

    path = Path("/desk/a.zip")
    assert _reason("/desk/a.zip: not a zip archive", path) == "not a zip archive"
    assert _reason("/desk/a.zip：不是 zip 压缩包", path) == "不是 zip 压缩包"
    assert _reason("something else", path) == "something else"


def test_diff_ignores_the_probes_watch_list() -> None:
    """packages.watched says how a record was made: an older record lacks it, and the diff
    of an old and a new report must not show it as a change of the machine."""
    from legacydoc.reportdiff import flatten

    flat = flatten({"packages": {"found": ["numpy"], "watched": ["mpi4py", "numpy"]}})
    assert flat == {"packages.found": ["numpy"]}
