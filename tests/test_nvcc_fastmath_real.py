"""LD546 on the real thing: what nvcc.fastmath does to the old back-end's nvcc compiles.

The real Theano 0.8.2 and 0.9.0 from PyPI are asked for the arguments every GPU op's nvcc
compile gets (NVCC_compiler.compile_args, which cc.py also puts into each module's cache
key). nvcc is a fake on PATH that answers --version with a recorded nvcc 8.0 output; an
-arch flag in nvcc.flags keeps Theano from asking the (absent) GPU for its architecture.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from legacy_envs import legacy_venv

pytestmark = pytest.mark.legacy

DATA = Path(__file__).parent / "data"
FAKE_NVCC = "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then cat '%s'; exit 0; fi\nexit 1\n"
ARGS = """
from theano.sandbox.cuda.nvcc_compiler import NVCC_compiler
print("ARGS", " ".join(NVCC_compiler.compile_args()))
"""


def _compile_args(version: str, flags: str, tmp_path: Path) -> list[str]:
    python = legacy_venv("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==%s" % version])
    bindir = tmp_path / "cuda" / "bin"
    bindir.mkdir(parents=True)
    nvcc = bindir / "nvcc"
    nvcc.write_text(FAKE_NVCC % (DATA / "nvcc" / "nvcc-8.0-linux.txt"))
    nvcc.chmod(0o755)
    env = {
        "PATH": os.pathsep.join([str(bindir), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "THEANO_FLAGS": "device=cpu,nvcc.flags=-arch=sm_50,base_compiledir=%s%s" % (tmp_path / "cache", flags),
    }
    done = subprocess.run([str(python), "-c", ARGS], env=env, capture_output=True, text=True, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("ARGS ")]
    assert lines, done.stdout + done.stderr
    return lines[0].split()[1:]


@pytest.mark.parametrize("version", ["0.8.2", "0.9.0"])
def test_fastmath_puts_use_fast_math_into_every_gpu_compile(version: str, tmp_path: Path) -> None:
    assert "-use_fast_math" in _compile_args(version, ",nvcc.fastmath=True", tmp_path / "on")
    default = _compile_args(version, "", tmp_path / "default")
    assert "-arch=sm_50" in default and "-use_fast_math" not in default
