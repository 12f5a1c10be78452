"""LD423 on the real thing: Theano 0.8.2's cuDNN check compiles without nvcc.flags.

The old back-end decides whether cuDNN can be used by compiling a test program with nvcc
(theano/sandbox/cuda/__init__.py, dnn_available). Here nvcc is a fake on PATH that writes
down the arguments of every call, answers --version with tests/data/nvcc/nvcc-8.0-linux.txt
and, like nvcc on a Windows machine whose Visual Studio it finds only through them, fails
without --use-local-env and --cl-version (with the message nvcc prints when it cannot find
cl.exe; reconstructed). The real Theano from PyPI then runs its own check: 0.8.2's test
compile lacks the flags and cuDNN is reported unusable, 0.9.0's has them. No GPU is needed:
the check is reached by telling the module the device is a Maxwell GPU, as its start-up
would have.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from legacy_envs import legacy_venv

pytestmark = pytest.mark.legacy

DATA = Path(__file__).parent / "data"
FLAGS = "--use-local-env --cl-version=2013"
FAKE_NVCC = """#!/bin/sh
if [ "$1" = "--version" ]; then cat '%(version)s'; exit 0; fi
printf '%%s\\n' "$*" >> '%(log)s'
case "$*" in
  *--use-local-env*--cl-version=2013*) exit 0 ;;
esac
echo "nvcc fatal   : Cannot find compiler 'cl.exe' in PATH" >&2
exit 1
"""
# dnn_available() as Theano's start-up reaches it on a GPU of compute capability 5
CHECK = """
import theano.sandbox.cuda as cuda
cuda.cuda_available = True
cuda.active_device_number = lambda: 0
cuda.device_properties = lambda dev: {"major": 5}
try:
    print("AVAILABLE", cuda.dnn_available())
except Exception as error:  # 0.9.0 goes on to build its DnnVersion op, which needs the GPU
    print("RAISED", type(error).__name__)
print("MSG", cuda.dnn_available.msg)
"""


def _check(version: str, tmp_path: Path) -> tuple[str, list[str]]:
    python = legacy_venv("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==%s" % version])
    bindir, log = tmp_path / "cuda" / "bin", tmp_path / "nvcc-calls.txt"
    bindir.mkdir(parents=True)
    nvcc = bindir / "nvcc"
    nvcc.write_text(FAKE_NVCC % {"version": DATA / "nvcc" / "nvcc-8.0-linux.txt", "log": log})
    nvcc.chmod(0o755)
    env = {
        "PATH": os.pathsep.join([str(bindir), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "THEANO_FLAGS": "device=cpu,nvcc.flags=%s,base_compiledir=%s" % (FLAGS, tmp_path / "cache"),
    }
    done = subprocess.run([str(python), "-c", CHECK], env=env, capture_output=True, text=True, timeout=300)
    assert "MSG" in done.stdout, done.stdout + done.stderr  # Theano imported and ran its check
    calls = log.read_text().splitlines() if log.exists() else []
    return done.stdout, [c for c in calls if "try_flags" in c]


def test_theano_082_checks_cudnn_without_the_nvcc_flags(tmp_path: Path) -> None:
    out, checks = _check("0.8.2", tmp_path)
    assert checks and all("-l cudnn" in c and "--cl-version" not in c for c in checks), checks
    assert "AVAILABLE False" in out and "Can not compile with cuDNN" in out and "cl.exe" in out, out


def test_theano_090_passes_them(tmp_path: Path) -> None:
    out, checks = _check("0.9.0", tmp_path)
    assert checks and all("-l cudnn" in c and FLAGS in c for c in checks), checks
    # the test program compiled; what 0.9.0 builds next needs the real GPU module
    assert "RAISED" in out and "Can not compile with cuDNN" not in out, out
