"""legacydoc itself on the oldest Python pyproject.toml admits (3.9): installed into a
fresh venv of the real interpreter, its commands run without a traceback. (typing.TypeGuard,
a 3.10 name, once broke every command there.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from legacy_envs import require_python

TICKET = REPO / "fixtures" / "tickets" / "gh-libgpuarray-474" / "facts.toml"
LOG = REPO / "tests" / "data" / "real_logs" / "theano090-name-added-later.txt"


@pytest.mark.legacy
@pytest.mark.slow
def test_every_command_runs_on_python_3_9(tmp_path: Path) -> None:
    python = require_python("3.9")
    venv = tmp_path / "venv"
    subprocess.run([str(python), "-m", "venv", str(venv)], check=True, timeout=300)
    bindir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    installed = subprocess.run([str(bindir / "python"), "-m", "pip", "install", "--quiet", str(REPO)],
                               capture_output=True, text=True, timeout=900)
    if installed.returncode != 0:
        pytest.skip("cannot install legacydoc's dependencies here: %s" % installed.stderr[-300:])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    for args, codes in ((["--help"], (0,)), (["check", "--facts", str(TICKET)], (0, 1)),
                        (["explain", str(LOG)], (0,)), (["theanorc", "--facts", str(TICKET)], (0, 1)),
                        (["check", "--timeout", "30"], (0, 1))):
        done = subprocess.run([str(bindir / "legacydoc"), *args], capture_output=True, text=True, timeout=300,
                              cwd=str(tmp_path), env=env)
        assert done.returncode in codes and "Traceback" not in done.stderr, (args, done.returncode, done.stderr[-800:])
