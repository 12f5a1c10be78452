"""What Theano's advanced indexing really does under each numpy (LD153, LD154): Theano up
to 1.0.4 hands numpy a list of indices; numpy 1.15-1.22 warn and index right, numpy 1.23
reads the list as one array index and returns other values without a word; Theano 1.0.5
passes a tuple. Recordings in tests/data/real_logs/; the legacy tests run it again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import DATA
from legacy_envs import legacy_venv
from legacydoc import logscan

REAL = DATA / "real_logs"
SCRIPT = REAL / "scripts" / "advanced_indexing.py"
RIGHT = "[1. 5.]"  # x[[0, 1], [1, 2]] of arange(9).reshape(3, 3)
THEANO_104_NUMPY_121 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.4"])
THEANO_104_NUMPY_123 = ("3.8", ["numpy==1.23.5", "scipy==1.9.3", "Theano==1.0.4"])
THEANO_105_NUMPY_123 = ("3.8", ["numpy==1.23.5", "scipy==1.9.3", "Theano==1.0.5"])


def _last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_the_recordings_show_the_warning_then_the_wrong_values() -> None:
    warned = (REAL / "theano104-numpy121-indexing.txt").read_text()
    assert _last_line(warned) == RIGHT
    assert "numpy-indexing-futurewarning-in-theano" in [m.id for m in logscan.scan(warned)]
    silent = (REAL / "theano104-numpy123-indexing.txt").read_text()
    assert RIGHT not in silent and "FutureWarning" not in silent
    assert "numpy-indexing-futurewarning-in-theano" not in [m.id for m in logscan.scan(silent)]


def _run(spec: tuple, tmp_path: Path) -> subprocess.CompletedProcess:
    version, packages = spec
    python = legacy_venv(version, packages)
    script = tmp_path / SCRIPT.name
    script.write_bytes(SCRIPT.read_bytes())
    # numpy 1.22+ wheels lack blas_opt_info: Theano needs blas.ldflags set to import at all
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "THEANO_FLAGS": "blas.ldflags="}
    return subprocess.run([str(python), script.name], cwd=str(tmp_path), env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.legacy
@pytest.mark.slow
def test_theano_104_under_numpy_121_warns_and_indexes_right(tmp_path: Path) -> None:
    proc = _run(THEANO_104_NUMPY_121, tmp_path)
    assert proc.returncode == 0 and _last_line(proc.stdout) == RIGHT
    assert "numpy-indexing-futurewarning-in-theano" in [m.id for m in logscan.scan(proc.stderr)]


@pytest.mark.legacy
@pytest.mark.slow
def test_theano_104_under_numpy_123_returns_other_values_silently(tmp_path: Path) -> None:
    proc = _run(THEANO_104_NUMPY_123, tmp_path)
    assert proc.returncode == 0 and RIGHT not in proc.stdout and "FutureWarning" not in proc.stderr
    # the very array that was recorded: rows 0 and 1, then 1 and 2, of the input
    recorded = (REAL / "theano104-numpy123-indexing.txt").read_text()
    wrong = recorded[recorded.index("[[["):].strip()
    assert proc.stdout.strip() == wrong


@pytest.mark.legacy
@pytest.mark.slow
def test_theano_105_under_numpy_123_indexes_right(tmp_path: Path) -> None:
    proc = _run(THEANO_105_NUMPY_123, tmp_path)
    assert proc.returncode == 0 and _last_line(proc.stdout) == RIGHT
