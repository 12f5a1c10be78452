"""LD172 on the real thing: Lasagne's GPU-only layers under device=cpu.

The real Lasagne 0.1 and Theano 0.8.2 from PyPI run a project that imports lasagne.layers.dnn
(and one that imports corrmm) with THEANO_FLAGS=device=cpu; the old back-end's own GPU ops,
which Lasagne's layers built before 0.1, are asked for too. Then `legacydoc check` probes
that venv live, reads the project and the run's output, and must name LD172, with the
import's file and line; with device=gpu the same output is another problem, not LD172.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from legacy_envs import legacy_venv

pytestmark = pytest.mark.legacy

LASAGNE_01 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.8.2", "Lasagne==0.1"])
DNN_NET = "import lasagne\nfrom lasagne.layers import dnn\n\nnet = dnn.Conv2DDNNLayer((None, 1, 28, 28), 8, 3)\n"
CORRMM_NET = "import lasagne\nimport lasagne.layers.corrmm as corrmm\n"
# what Lasagne's cuda_convnet layers did before 0.1 checked the device: build the old
# back-end's GPU ops, then hand their output to a tensor op
OLD_BACKEND_OPS = ("import theano.tensor as T\nfrom theano.sandbox.cuda.basic_ops import gpu_contiguous\n"
                   "T.sum(gpu_contiguous(T.fmatrix()))\n")


def _env(tmp_path: Path, device: str) -> dict[str, str]:
    env = dict(os.environ)
    env["THEANO_FLAGS"] = "device=%s,floatX=float32,cxx=,base_compiledir=%s" % (device, tmp_path / "compiledir")
    env["HOME"] = str(tmp_path)
    return env


def _run(tmp_path: Path, script: str, code: str, device: str) -> tuple[Path, Path, dict[str, str], str]:
    """Run the project's script in the venv; its python, the project, the env and the output
    (also written to run.log)."""
    python = legacy_venv(*LASAGNE_01)
    project = tmp_path / "proj"
    project.mkdir()
    (project / script).write_text(code)
    env = _env(tmp_path, device)
    ran = subprocess.run([str(python), script], cwd=str(project), capture_output=True, text=True, timeout=600,
                         env=env)
    assert ran.returncode == 1, ran.stdout[-2000:] + ran.stderr[-2000:]
    (tmp_path / "run.log").write_text(ran.stderr)
    return python, project, env, ran.stderr


def _check(python: Path, project: Path, env: dict[str, str]) -> dict[str, dict]:
    env = dict(env, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--python", str(python), "--project",
                           str(project), "--log", str(project.parent / "run.log"), "--format", "json"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return {d["id"]: d for d in json.loads(proc.stdout)["diagnoses"]}


@pytest.mark.parametrize("module, code, message", [
    ("lasagne.layers.dnn (net.py:2)", DNN_NET, "ImportError: dnn not available"),
    ("lasagne.layers.corrmm (net.py:2)", CORRMM_NET, "ImportError: requires a GPU to work"),
])
def test_lasagne_01_gpu_layers_under_device_cpu(module: str, code: str, message: str, tmp_path: Path) -> None:
    python, project, env, output = _run(tmp_path, "net.py", code, "cpu")
    assert output.rstrip().endswith(message), output[-2000:]
    found = _check(python, project, env)
    assert found["LD172"]["evidence"]["project.gpu_only"] == module
    assert found["LD172"]["evidence"]["derived.theano.device"] == "cpu"
    # the root cause comes first
    assert next(iter(found)) == "LD172", list(found)


def test_same_output_with_device_gpu_is_not_ld172(tmp_path: Path) -> None:
    # no CUDA here: the old back-end does not start, and Lasagne 0.1 refuses the same way
    python, project, env, output = _run(tmp_path, "net.py", DNN_NET, "gpu")
    assert output.rstrip().endswith("ImportError: dnn not available"), output[-2000:]
    assert "LD172" not in _check(python, project, env)


def test_old_backend_ops_without_cuda_name_hostfromgpu(tmp_path: Path) -> None:
    python, project, env, output = _run(tmp_path, "layers.py", OLD_BACKEND_OPS, "cpu")
    # Python 3's wording; Python 2 says "global name"
    assert output.rstrip().endswith("NameError: name 'HostFromGpu' is not defined"), output[-2000:]
    found = _check(python, project, env)
    # no Lasagne layer imported: the log alone decides, and the project fact stays absent
    assert "project.gpu_only" not in found["LD172"]["evidence"]
    assert found["LD172"]["evidence"]["derived.theano.device"] == "cpu"
