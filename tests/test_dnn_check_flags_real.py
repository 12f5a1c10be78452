"""LD423 on the real thing: Theano 0.8.2's cuDNN check compiles without nvcc.flags.

The old back-end decides whether cuDNN can be used by compiling a test program with nvcc
(theano/sandbox/cuda/__init__.py, dnn_available). Here nvcc is a fake on PATH that behaves
as CUDA 7.5 does on glibc 2.23: it compiles only when -D_FORCE_INLINES reaches it, and
otherwise prints the string.h error quoted in Theano issue 4425 (reconstructed text; its
--version output is tests/data/nvcc/nvcc-8.0-linux.txt). The real Theano from PyPI then
runs its own check: 0.8.2 leaves the flag out and reports cuDNN unusable with that very
error, 0.9.0 passes it. No GPU is needed: the check is reached by telling the module the
device is a Maxwell GPU, as its own start-up would have.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from legacy_envs import legacy_venv

pytestmark = pytest.mark.legacy

DATA = Path(__file__).parent / "data"
MEMCPY_ERROR = (
    "/usr/include/string.h: In function 'void* __mempcpy_inline(void*, const void*, size_t)':\n"
    "/usr/include/string.h:652:42: error: 'memcpy' was not declared in this scope\n"
)
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


def _check(version: str, tmp_path: Path, fake_tools) -> str:
    python = legacy_venv("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==%s" % version])
    fake_tools.add(
        "nvcc",
        rc=1,
        stderr=MEMCPY_ERROR,
        by_args={
            "--version": ((DATA / "nvcc" / "nvcc-8.0-linux.txt").read_bytes(), 0),
            "_FORCE_INLINES": (b"", 0),
        },
    )
    env = {
        "PATH": os.pathsep.join([str(fake_tools.bindir), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "THEANO_FLAGS": "device=cpu,nvcc.flags=-D_FORCE_INLINES,base_compiledir=%s" % (tmp_path / "cache"),
    }
    done = subprocess.run([str(python), "-c", CHECK], env=env, capture_output=True, text=True, timeout=300)
    return done.stdout


def test_theano_082_checks_cudnn_without_the_nvcc_flags(tmp_path: Path, fake_tools) -> None:
    out = _check("0.8.2", tmp_path, fake_tools)
    assert "AVAILABLE False" in out, out
    assert "Can not compile with cuDNN" in out and "'memcpy' was not declared" in out, out


def test_theano_090_passes_them(tmp_path: Path, fake_tools) -> None:
    out = _check("0.9.0", tmp_path, fake_tools)
    # the test program compiled (the flag reached nvcc); what fails next needs a real GPU
    assert "memcpy" not in out and "Can not compile with cuDNN" not in out, out
