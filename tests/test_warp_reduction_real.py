"""LD171 on the real thing: the Theano 0.9.0rc2 that pip installs from PyPI is the release
without the warp-synchronous fix, and its files say so.

The fix (Theano commit 84ec2919c, PR 5632) was merged on 2017-02-28, a day after rc2 was
tagged, while master still called itself 0.9.0rc2. So the version alone cannot tell the
released rc2 (reductions wrong under drivers of the 375 branch and later) from a git build
of the following week (right). The probe reads generated_version.py, where only the package
built for PyPI says release = True. No GPU is needed: the probe reads the real installed
files, and the driver and device are the facts a GPU machine would add.
"""

from __future__ import annotations

from typing import Any

import pytest

from legacy_envs import probed_record
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules

pytestmark = pytest.mark.legacy

RC2 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0rc2"])


def _record(ctx_factory: Any) -> dict[str, Any]:
    # what nvidia-smi and the user's flags would add on a GPU machine of today
    return probed_record(ctx_factory, RC2, "2026-12-06T00:00:00+00:00", system={"os": "linux"},
                         gpu={"driver_version": "535.183.01", "driver_cuda_version": "12.2", "count": 1},
                         theano_config={"flags": {"THEANO_FLAGS": "device=cuda0,floatX=float32"}})


def test_the_released_rc2_from_pypi_is_claimed(ctx_factory: Any) -> None:
    record = _record(ctx_factory)
    packages = record["packages"]
    assert packages["theano"]["version"] == "0.9.0rc2"
    assert packages["theano_released"] is True
    # installing from the source package, setup.py rewrites the file: no .git, so 'RELEASE'
    assert packages["theano_revision"] == "RELEASE"
    fired = [d.id for d in run_check(record, load_rules()).diagnoses]
    assert "LD171" in fired, fired


def test_a_git_build_that_calls_itself_rc2_is_not(ctx_factory: Any) -> None:
    record = _record(ctx_factory)
    # what setup.py writes for a checkout of master after the fix: release = False
    record["packages"]["theano_released"] = False
    record["packages"]["theano_revision"] = "19540d4e3064fe0dc0e1281f517bad0f355e46a2"
    assert "LD171" not in [d.id for d in run_check(record, load_rules()).diagnoses]
