"""`legacydoc theanorc` and `theanorc --write` as a user runs them."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO
from test_cli import run_cli

SEED_002 = REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"


def test_show_names_the_seeds_three_wrong_entries() -> None:
    proc = run_cli("theanorc", "--facts", str(SEED_002))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Findings (3: 0 errors)" in out
    for fix in ("cxx = g++", "enabled = True", "preallocate = 0.8"):
        assert fix in out
    assert "from C:\\Users\\<user>\\.theanorc line 2" in out  # provenance of device


def test_write_backs_up_byte_for_byte_and_dry_run_touches_nothing(tmp_path: Path) -> None:
    target = tmp_path / "rc"
    original = b"[global]\r\nfloatX = float64\r\n# \xe4\xb8\xad\xe6\x96\x87\r\n"
    target.write_bytes(original)
    dry = run_cli("theanorc", "--write", str(target), "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert target.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rc"]
    proc = run_cli("theanorc", "--write", str(target), "--yes", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "--- " in proc.stdout and "+++ " in proc.stdout  # the diff came first
    backups = [p for p in tmp_path.iterdir() if p.name != "rc"]
    assert len(backups) == 1 and backups[0].read_bytes() == original
    assert "floatX = float32" in target.read_text()


def test_path_without_write_is_a_usage_error() -> None:
    proc = run_cli("theanorc", "some/path")
    assert proc.returncode == 2
    assert "PATH is only used with --write" in proc.stderr


def test_write_into_a_directory_is_refused(tmp_path: Path) -> None:
    proc = run_cli("theanorc", "--write", str(tmp_path), "--yes", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    assert list(tmp_path.iterdir()) == []
