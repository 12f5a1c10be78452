"""derived.pymc3.parallel_chains: whether pm.sample() runs its chains in worker processes,
unknown wherever PyMC3's own count could go either way (LD218)."""

from __future__ import annotations

from typing import Any, Optional

import pytest

from legacydoc.pymc3chains import parallel_chains


def record(pymc3: Optional[str] = "3.5", cores: Optional[int] = 8, ids: Optional[list[str]] = None,
           listed: bool = False) -> dict[str, Any]:
    packages: dict[str, Any] = {}
    if pymc3 is not None:
        packages["pymc3"] = {"name": "pymc3", "version": pymc3} if pymc3 else {"name": "pymc3"}
    if listed:
        packages["found"] = sorted(packages)
    rec: dict[str, Any] = {"schema": 1, "packages": packages, "system": {}}
    if cores is not None:
        rec["system"]["logical_cores"] = cores
    if ids is not None:
        rec["log"] = {"ids": ids}
    return rec


@pytest.mark.parametrize("rec, expected", [
    (record(), True),
    (record(cores=4), True),
    # psutil may count 2 physical cores, or half of 2-3 logical ones: one job or two
    (record(cores=2), None),
    (record(cores=3), None),
    (record(cores=1), False),
    (record(cores=None), None),
    # 3.0-3.2 default to one job
    (record(pymc3="3.2"), False),
    (record(pymc3="3.3"), True),
    (record(pymc3=""), None),
    # not installed: known only where every package was listed
    (record(pymc3=None), None),
    (record(pymc3=None, listed=True), False),
    # listed, but by a probe that did not look for PyMC3
    ({**record(pymc3=None, listed=True), "packages": {"found": [], "watched": ["theano", "numpy"]}}, None),
    # the run's own log decides, whatever the release and cores
    (record(pymc3="3.2", cores=1, ids=["pymc3-multiprocess-sampling"]), True),
    (record(ids=["pymc3-sequential-sampling"]), False),
    (record(ids=["theano-gpuarray-could-not-init-pygpu"]), True),
])
def test_parallel_chains(rec: dict[str, Any], expected: Optional[bool]) -> None:
    assert parallel_chains(rec) is expected
