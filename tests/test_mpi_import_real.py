"""LD170 on the real thing: `import theano` starts MPI whenever mpi4py is installed.

A Python 3.8 venv from PyPI with Theano 1.0.5, mpi4py 4.1.2 and MPICH 5.0.2 (the mpich
wheel, so no system MPI is needed). Run as a Slurm job step's container would run it, with
PMI_FD, PMI_RANK and PMI_SIZE inherited but no process manager behind PMI_FD, the import is
aborted by MPICH as recorded in tests/data/real_logs/theano105-mpi4py-leaked-pmi.txt. Each
fix LD170 gives is run, and `legacydoc check` on that environment names LD170 from its own
import check, without a log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA
from legacy_envs import legacy_venv
from legacydoc import logscan

pytestmark = [pytest.mark.legacy, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent
THEANO_105_MPI = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5", "mpi4py==4.1.2", "mpich==5.0.2"])
RECORDED = DATA / "real_logs" / "theano105-mpi4py-leaked-pmi.txt"
# What a Slurm job step leaves in the environment of a process it started (PMI-1), here
# pointing at a descriptor this process does not have.
LEAKED_PMI = {"PMI_FD": "10", "PMI_RANK": "0", "PMI_SIZE": "1", "PMI_JOBID": "23434976.0"}
IMPORT = "import theano\nprint(theano.__version__)\n"


@pytest.fixture(scope="module")
def python() -> Path:
    return legacy_venv(*THEANO_105_MPI)


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), **extra}


def _run(python: Path, script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-c", script], cwd=str(cwd), env=env, capture_output=True, timeout=600)


def _ids(output: bytes) -> set[str]:
    return set(logscan.log_table(output, source="live")["ids"])


def test_import_theano_alone_starts_mpi(python: Path, tmp_path: Path) -> None:
    # mpi4py.MPI is in sys.modules before the script imports it: Theano did
    proc = _run(python, "import sys, theano\nimported = 'mpi4py.MPI' in sys.modules\nfrom mpi4py import MPI\n"
                        "print(imported, MPI.Is_initialized())\n", _env(tmp_path), tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-2:] == [b"True", b"True"]


def test_leaked_pmi_variables_abort_the_import_as_recorded(python: Path, tmp_path: Path) -> None:
    proc = _run(python, IMPORT, _env(tmp_path, **LEAKED_PMI), tmp_path)
    assert proc.returncode != 0 and b"1.0.5" not in proc.stdout
    live = _ids(proc.stdout + proc.stderr)
    assert "mpi-init-failed" in live, sorted(live)
    assert live == _ids(RECORDED.read_bytes())


@pytest.mark.parametrize("fix", ["unset", "rc-initialize", "environment-variable"])
def test_each_fix_lets_theano_import(python: Path, tmp_path: Path, fix: str) -> None:
    env, script = _env(tmp_path, **LEAKED_PMI), IMPORT
    if fix == "unset":
        env = _env(tmp_path)
    elif fix == "rc-initialize":
        script = "import mpi4py.rc\nmpi4py.rc.initialize = False\n" + IMPORT
    else:
        env["MPI4PY_RC_INITIALIZE"] = "false"
    proc = _run(python, script, env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-1] == b"1.0.5"


def test_check_names_ld170_from_its_import_check(python: Path, tmp_path: Path) -> None:
    """No log given: the import check's own `import theano` is aborted the same way, and
    check says why. Without the leaked variables LD170 is quiet."""
    def check(**extra: str) -> dict:
        env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(REPO), "LEGACYDOC_LANG": "en", **extra}
        env.pop("THEANO_FLAGS", None)
        proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--python", str(python), "--import-check",
                               "--format", "json"],
                              cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        return json.loads(proc.stdout)

    leaked = check(**LEAKED_PMI)
    fired = [d["id"] for d in leaked["diagnoses"]]
    assert "LD170" in fired, fired
    clean = check()
    assert "LD170" not in [d["id"] for d in clean["diagnoses"]]
