"""The old back-end's end, on the real thing: Theano 0.10.0b1 from PyPI already refuses
device=gpu* the way 1.0 does, while 0.9.0 takes it. legacydoc used to place the end at
1.0 and said nothing for a 0.10 beta.

`import theano` with THEANO_FLAGS=device=gpu0 runs in the legacy interpreter (the config
is checked before any GPU is looked for, so no GPU is needed); the probe then records the
same installation and check must name the refusal from the facts alone.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest

from legacy_envs import legacy_venv, probed_record
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules
from legacydoc.theanorc.schema import select_release

pytestmark = pytest.mark.legacy

BETA = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.10.0b1"])
FINAL_09 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0"])


def _import_with(spec: tuple[str, list[str]], flags: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "THEANO_FLAGS": flags, "HOME": "/nonexistent-home"}
    env.pop("THEANORC", None)
    return subprocess.run([str(legacy_venv(*spec)), "-c", "import theano; print(theano.config.device)"],
                          capture_output=True, text=True, timeout=300, cwd="/", env=env)


def _record(ctx_factory: Any, spec: tuple[str, list[str]], flags: str) -> dict[str, Any]:
    return probed_record(ctx_factory, spec, "2026-12-07T00:00:00+00:00", system={"os": "linux"},
                         theano_config={"files": [], "flags": {"THEANO_FLAGS": flags}})


def _errors(ctx_factory: Any, spec: tuple[str, list[str]], flags: str) -> list[str]:
    return [d.id for d in run_check(_record(ctx_factory, spec, flags), load_rules()).diagnoses
            if d.severity == "error"]


def test_the_0_10_beta_refuses_device_gpu_and_check_says_so(ctx_factory: Any) -> None:
    done = _import_with(BETA, "device=gpu0")
    assert done.returncode != 0 and "You are tring to use the old GPU back-end" in done.stderr
    assert "LD516" in _errors(ctx_factory, BETA, "device=gpu0")


def test_0_9_0_still_takes_device_gpu(ctx_factory: Any) -> None:
    done = _import_with(FINAL_09, "device=gpu0,init_gpu_device=")
    # it imports (and, with no GPU here, carries on on the CPU)
    assert done.returncode == 0, done.stderr[-2000:]
    # the package from PyPI says it is the release: its schema keeps device=gpu, as it does
    record = _record(ctx_factory, FINAL_09, "device=gpu0")
    assert record["packages"]["theano_released"] is True
    assert select_release(record).schema_id == "theano-0.9.0"
    assert select_release(_record(ctx_factory, BETA, "device=gpu0")).schema_id == "theano-1.0.5"
