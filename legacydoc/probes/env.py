"""Environment variables that matter to a Theano setup, and only those.

An allow-list, never the whole environment: tokens and passwords live in environments
and a facts file is meant to be shared.
"""

from __future__ import annotations

import re
from typing import Any

from legacydoc.probes.context import ProbeContext

EXACT_NAMES = (
    "PATH",
    "LD_LIBRARY_PATH",
    "DYLD_LIBRARY_PATH",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PYTHONHOME",
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "LOCALAPPDATA",
    "NVIDIA_VISIBLE_DEVICES",
    # Theano's .theanorc interpolates these (%(TMPDIR)s ...): theano/configparser.py, rel-0.7..rel-1.0.5
    "TMPDIR",
    "TEMP",
    "TMP",
    "LSCRATCH",
    # a batch job's marker, one per scheduler: Slurm (sbatch(1)), PBS (qsub(1B)), LSF, Grid Engine
    "SLURM_JOB_ID",
    "PBS_JOBID",
    "LSB_JOBID",
    "JOB_ID",
    "SGE_ROOT",
    # where gcc also looks for headers: a way round a Python whose include folder lacks them (LD424)
    "CPATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
)
PREFIXES = ("CUDA_", "CUDNN_", "THEANO", "AESARA", "PYTENSOR", "MKL_", "OPENBLAS_", "GPUARRAY_", "KERAS_")
# Even inside the allow-list, a name that looks secret is never recorded.
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL|AUTH", re.IGNORECASE)


def is_allowed(name: str) -> bool:
    upper = name.upper()
    if SECRET_NAME.search(upper):
        return False
    return upper in EXACT_NAMES or upper.startswith(PREFIXES)


def collect(ctx: ProbeContext) -> dict[str, Any]:
    variables = {name: value for name, value in ctx.environ.items() if is_allowed(name)}
    return {"variables": dict(sorted(variables.items()))}
