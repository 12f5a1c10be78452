"""Whether PyMC3's pm.sample() runs its chains in worker processes here (LD218).

From PyMC3 3.3 the default is min(4, CPU cores) parallel jobs, where PyMC3 counts physical
cores (psutil) or half the logical ones (pymc3 3.3-3.11 wheels, sampling.py _cpu_count);
3.0-3.2 default to one job. A log of the run says which it did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from packaging.version import Version

from legacydoc.engine.evaluation import truth
from legacydoc.facts import get
from legacydoc.factschema.kinds import is_int
from legacydoc.versions import parse_version

PARALLEL_BY_DEFAULT = Version("3.3")
# 4 logical cores make at least 2 jobs whichever way PyMC3 counts; 2 or 3 may make one
CERTAINLY_PARALLEL_CORES = 4


def parallel_chains(facts: Mapping[str, Any]) -> Optional[bool]:
    """True: pm.sample() runs chains in worker processes; False: in this process; None:
    unknown (PyMC3's release or the core count not recorded, or a count it may read as one)."""
    ids = get(facts, "log.ids")
    if isinstance(ids, list):
        if "pymc3-multiprocess-sampling" in ids:
            return True
        if "pymc3-sequential-sampling" in ids:
            return False
    entry = get(facts, "packages.pymc3")
    if not isinstance(entry, Mapping):
        # absent only as the rules read absence: the probe listed its packages and watched for PyMC3
        installed = truth({"fact": "packages.pymc3", "exists": True}, facts)
        return None if installed is None else bool(installed)
    version = parse_version(entry.get("version"))
    if version is None:
        return None
    if version < PARALLEL_BY_DEFAULT:
        return False
    cores = get(facts, "system.logical_cores")
    if not is_int(cores) or cores < 1:
        return None
    if cores >= CERTAINLY_PARALLEL_CORES:
        return True
    return False if cores == 1 else None


def pymc3_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    parallel = parallel_chains(facts)
    return {} if parallel is None else {"parallel_chains": parallel}
