"""The plans work: for each starting point, a real environment is built from PyPI with the
real legacy interpreters, ``legacydoc plan`` probes it, ``legacydoc fix --yes`` applies
the plan (a new environment, or the pins in the same one), and a Theano smoke test runs
with the .theanorc fix wrote: a compiled function, a GEMM through Theano's BLAS op and a
small conv2d (tests/data/plan_smoke.py). Frameworks the plan installs are imported.

This machine has no GPU: every plan here must say device = cpu in advance, and does.
Where PyPI cannot be reached the whole module is skipped; once it can, a plan that does
not build or whose smoke test fails is a failure, not a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pytest

from legacy_envs import find_python
from legacydoc.plan.apply import TAIL_LINES, broken_download

pytestmark = [pytest.mark.slow, pytest.mark.legacy]

REPO = Path(__file__).resolve().parent.parent
SMOKE = REPO / "tests" / "data" / "plan_smoke.py"
STEP_TIMEOUT_S = 1200


def _reachable(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=15):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def pypi() -> None:
    if not _reachable("https://pypi.org/simple/pip/"):
        pytest.skip("PyPI is not reachable from this machine: the planned environments cannot be built")


@dataclass
class Start:
    id: str
    python: str  # the pyenv interpreter the starting environment is made from
    packages: list[str] = field(default_factory=list)  # what is installed before legacydoc looks
    project: dict[str, str] = field(default_factory=dict)  # the legacy project's files
    expect_python: str = ""  # the plan's Python ("" = the starting one: the environment is kept)
    expect_theano: str = "1.0.5"
    imports: list[str] = field(default_factory=list)  # frameworks the planned environment must import
    needs_github: bool = False


STARTS = [
    Start("wrong-numpy-py38", "3.8", ["Theano==1.0.5", "numpy==1.24.4"]),
    Start("numpy2-py311", "3.11", ["Theano==1.0.5", "numpy==2.0.2"]),
    Start("numpy126-py311-no-theano", "3.11", ["numpy==1.26.4"]),
    Start("numpy126-py310", "3.10", ["numpy==1.26.4"]),
    Start("old-numpy-py36", "3.6", ["numpy==1.19.5", "scipy==1.5.4"]),
    Start("theano103-numpy116-py37", "3.7", ["Theano==1.0.3", "numpy==1.16.6", "scipy==1.2.3"]),
    Start("numpy122-py39", "3.9", ["Theano==1.0.5", "numpy==1.22.4"]),
    Start("theano-and-theano-pymc", "3.8", ["Theano==1.0.5", "Theano-PyMC==1.1.2", "numpy==1.21.6"]),
    Start("pymc3-project", "3.8", project={"model.py": "import pymc3 as pm\n"},
          expect_theano="1.1.2", imports=["pymc3"]),
    Start("lasagne-01", "3.8", ["Lasagne==0.1"], project={"net.py": "import lasagne\n"},
          imports=["lasagne"], needs_github=True),
    Start("keras1-project", "3.8", project={"requirements.txt": "keras<2\n", "a.py": "import keras\n"},
          imports=["keras"]),
    Start("keras2-project", "3.8", project={"a.py": "from keras.layers import Dense\n"}, imports=["keras"]),
    Start("python312", "3.12", expect_python="3.8"),
    Start("python313", "3.13", expect_python="3.8"),
    Start("old-backend-project", "3.8", project={"gpu.py": "import theano.sandbox.cuda\n"},
          expect_python="3.6", expect_theano="0.9.0"),
    Start("python2-project", "3.8", project={"train.py": "import theano\nprint 'epoch'\n"}, expect_python="2.7"),
    Start("downsample-project", "3.8",
          project={"pool.py": "from theano.tensor.signal import downsample\n"}, expect_python="2.7",
          expect_theano="0.8.2"),
]


def _run(argv: list, env: dict, cwd: Path, timeout: float = STEP_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _make_env(python: Path, where: Path, packages: list[str], env: dict) -> Path:
    if python.parent.parent.name.startswith("2."):
        create = [sys.executable, "-m", "virtualenv", "-q", "-p", python, where]
    else:
        create = [python, "-m", "venv", where]
    proc = _run(create, env, where.parent, 300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    target = where / "bin" / "python"
    if packages:
        for _try in range(3):  # a download PyPI cut short is tried again, as legacydoc fix does
            proc = _run([target, "-m", "pip", "install", "--disable-pip-version-check", *packages], env, where.parent)
            if proc.returncode == 0 or not broken_download(proc.stderr.splitlines()[-TAIL_LINES:]):
                break
        assert proc.returncode == 0, "the starting point itself did not install:\n" + proc.stdout[-3000:] + proc.stderr[-3000:]
    return target


@pytest.mark.parametrize("start", STARTS, ids=[s.id for s in STARTS])
def test_the_plan_builds_and_theano_runs(start: Start, tmp_path: Path, pypi: None) -> None:
    base = find_python(start.python)
    if base is None:
        pytest.skip("no Python %s interpreter on this machine" % start.python)
    if start.needs_github and not _reachable("https://github.com"):
        pytest.skip("the plan installs Lasagne from github.com, which this machine cannot reach")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX",
                                                             "THEANORC", "THEANO_FLAGS", "KERAS_BACKEND")}
    env.update(HOME=str(home), LEGACYDOC_LANG="en", PIP_NO_INPUT="1",
               THEANO_FLAGS="base_compiledir=%s" % (tmp_path / "compiledir"))
    project = tmp_path / "project"
    project.mkdir()
    for name, text in start.project.items():
        (project / name).write_text(text)
    python = _make_env(base, tmp_path / "start", start.packages, env)
    legacydoc = [sys.executable, "-m", "legacydoc"]

    # The plan, as plan -o writes it, for the real starting environment.
    proc = _run([*legacydoc, "plan", "--python", python, "--project", project, "-o", tmp_path / "bundle",
                 "--format", "json", "--shell", "bash"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["device"] == "cpu", "no GPU here: the plan must say cpu in advance"
    assert plan["python"] == (start.expect_python or start.python)
    assert plan["keep_env"] == (not start.expect_python)
    assert plan["theano"].endswith("==" + start.expect_theano)

    # legacydoc fix applies it; its check at the end must find no error.
    proc = _run([*legacydoc, "fix", "--python", python, "--project", project, "--env", tmp_path / "planned", "--yes"],
                env, tmp_path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    final: Path = python if plan["keep_env"] else tmp_path / "planned" / "bin" / "python"
    assert (home / ".theanorc").is_file(), proc.stdout[-2000:]

    # The smoke test, with the .theanorc fix wrote (Theano reads ~/.theanorc).
    proc = _run([final, SMOKE], env, tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ran = json.loads(proc.stdout.strip().splitlines()[-1])
    assert ran["python"].startswith(plan["python"] + ".")
    assert ran["theano"].startswith(start.expect_theano)
    assert ran["numpy"] == plan["packages"]["numpy"].lstrip("=")
    assert ran["device"] == "cpu" and ran["floatX"] == "float32"
    for module in start.imports:
        check = "import %s; print(%s.__name__)" % (module, module)
        if module == "keras":
            check = "import keras; assert keras.backend.backend() == 'theano', keras.backend.backend()"
        proc = _run([final, "-c", check], env, tmp_path)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    if start.imports == ["keras"]:
        assert json.loads((home / ".keras" / "keras.json").read_text())["backend"] == "theano"


def test_fix_dry_run_runs_nothing(tmp_path: Path) -> None:
    base: Optional[Path] = find_python("3.13")
    if base is None:
        pytest.skip("no Python 3.13 interpreter on this machine")
    env = dict(os.environ, HOME=str(tmp_path), LEGACYDOC_LANG="en")
    proc = _run([sys.executable, "-m", "legacydoc", "fix", "--python", base, "--env", tmp_path / "new", "--dry-run"],
                env, tmp_path, 120)
    assert proc.returncode == 0, proc.stderr
    assert "-m venv %s" % (tmp_path / "new") in proc.stdout and "pip install" in proc.stdout
    assert "Dry run: nothing was run." in proc.stdout
    assert not (tmp_path / "new").exists() and not (tmp_path / ".theanorc").exists()


def test_fix_without_a_terminal_asks_for_yes(tmp_path: Path) -> None:
    base = find_python("3.13")
    if base is None:
        pytest.skip("no Python 3.13 interpreter on this machine")
    env = dict(os.environ, HOME=str(tmp_path), LEGACYDOC_LANG="en")
    proc = _run([sys.executable, "-m", "legacydoc", "fix", "--python", base, "--env", tmp_path / "new"],
                env, tmp_path, 120)
    assert proc.returncode == 2 and "run again with --yes" in proc.stderr
    assert not (tmp_path / "new").exists()
    shutil.rmtree(tmp_path / "new", ignore_errors=True)
