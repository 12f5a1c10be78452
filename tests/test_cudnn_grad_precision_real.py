"""LD173 on the real thing: Theano 0.9.0rc2 from PyPI describes cuDNN's gradient
convolutions as float32 whatever the data, and 0.9.0 does not.

The failure itself needs an NVIDIA GPU and cuDNN (float64 data computed in float32 is a
combination cuDNN refuses with CUDNN_STATUS_NOT_SUPPORTED). What decides it is Theano's
own code, and that runs here: theano.gpuarray.dnn imports without pygpu, so the legacy
interpreter reads the installed functions the optimizer calls for every convolution's
gradient and reports which arguments they give the descriptor. The probe then records the
same installation, and the driver, cuDNN and flags are what a GPU machine would add.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from legacy_envs import legacy_venv, probed_record
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules

pytestmark = pytest.mark.legacy

RC2 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0rc2"])
FINAL = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0"])

# Runs inside the legacy interpreter: for each function the optimizer uses in place of a
# convolution or its gradients, the keywords of its gpu_dnn_conv_desc call (a function
# that only delegates to another one reports that one's name instead).
_READ_DNN = r"""
import ast, inspect, json, textwrap
import theano
import theano.gpuarray.dnn as dnn

def desc_keywords(fn):
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    for call in calls:
        if call.func.id == "gpu_dnn_conv_desc":
            return sorted(k.arg for k in call.keywords)
    return "delegates to " + ",".join(sorted(c.func.id for c in calls if c.func.id.startswith("dnn_")))

out = {"version": theano.__version__,
       "desc_default": inspect.signature(dnn.gpu_dnn_conv_desc).parameters["precision"].default}
for name in ("dnn_conv", "dnn_gradweight", "dnn_gradinput"):
    out[name] = desc_keywords(getattr(dnn, name))
print(json.dumps(out))
"""


def _read_dnn(spec: tuple[str, list[str]]) -> dict[str, Any]:
    done = subprocess.run([str(legacy_venv(*spec)), "-c", _READ_DNN], capture_output=True, text=True,
                          timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_rc2_builds_the_gradient_descriptors_without_the_data_precision() -> None:
    rc2 = _read_dnn(RC2)
    assert rc2["version"] == "0.9.0rc2"
    assert rc2["desc_default"] == "float32"
    # the forward convolution passes the precision it worked out from the data...
    assert "precision" in rc2["dnn_conv"]
    # ...the gradients do not, so their descriptors are float32 even for float64 data
    assert "precision" not in rc2["dnn_gradweight"] and "precision" not in rc2["dnn_gradinput"]

    final = _read_dnn(FINAL)
    assert final["version"] == "0.9.0"
    assert "precision" in final["dnn_gradweight"] and "precision" in final["dnn_gradinput"]


def _record(ctx_factory: Any, spec: tuple[str, list[str]], flags: str) -> dict[str, Any]:
    # what nvidia-smi, the cuDNN header and the user's flags would add on a GPU machine
    header = {"path": "/usr/local/cuda/include/cudnn.h", "version": "5.1.10", "major": 5, "minor": 1, "patch": 10,
              "version_number": 5110}
    return probed_record(ctx_factory, spec, "2026-12-07T00:00:00+00:00", system={"os": "linux"},
                         gpu={"driver_version": "384.130", "driver_cuda_version": "9.0", "count": 1},
                         cudnn={"headers": [header]}, theano_config={"files": [], "flags": {"THEANO_FLAGS": flags}})


def _fired(record: dict[str, Any]) -> list[str]:
    return [d.id for d in run_check(record, load_rules()).diagnoses]


def test_the_released_rc2_with_float64_is_claimed(ctx_factory: Any) -> None:
    record = _record(ctx_factory, RC2, "device=cuda0,floatX=float64")
    assert record["packages"]["theano_released"] is True
    assert "LD173" in _fired(record)


def test_not_with_float32_nor_with_0_9_0(ctx_factory: Any) -> None:
    assert "LD173" not in _fired(_record(ctx_factory, RC2, "device=cuda0,floatX=float32"))
    assert "LD173" not in _fired(_record(ctx_factory, FINAL, "device=cuda0,floatX=float64"))
