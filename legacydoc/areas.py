"""The one definition of what a run looks at: fact tables, the probes that fill them, and
the areas a check report is grouped by.

Everything else derives its lists from here (the facts record's tables, the probe
runner's modules, the rule engine's valid areas, the check's per-area status and the
probe summary's order), so adding an area is one edit in this file.
"""

from __future__ import annotations

from legacydoc.structs import struct


@struct(frozen=True)
class FactTable:
    """A top-level table of the facts record, filled by one probe module."""

    name: str
    probe: str  # module under legacydoc.probes
    title: str  # as the probe summary shows it


@struct(frozen=True)
class Area:
    """A heading of the check report; rules name one."""

    name: str
    title: str
    tables: tuple[str, ...]  # the fact tables its verdict rests on


# In record order (the order `probe --save` writes and the summary shows).
FACT_TABLES: tuple[FactTable, ...] = (
    FactTable("system", "system", "System"),
    FactTable("python", "target", "Python"),
    FactTable("packages", "target", "Packages"),
    FactTable("gpu", "gpu", "GPU and driver"),
    FactTable("cuda", "cuda", "CUDA toolkits"),
    FactTable("cudnn", "cudnn", "cuDNN"),
    FactTable("libraries", "libraries", "Loader (libraries)"),
    FactTable("path", "path", "PATH"),
    FactTable("compilers", "compilers", "Compilers"),
    FactTable("theano_config", "theano_config", "Theano config"),
    FactTable("env", "env", "Environment"),
)

# In report order: root causes are found in this order too (versions before drivers ...).
AREAS: tuple[Area, ...] = (
    Area("python", "Python interpreter", ("python",)),
    Area("packages", "Packages (Theano, numpy, pygpu)", ("packages",)),
    Area("gpu", "GPU and driver", ("gpu",)),
    Area("cuda", "CUDA toolkit", ("cuda",)),
    Area("cudnn", "cuDNN", ("cudnn",)),
    Area("libraries", "CUDA libraries on the loader path", ("libraries",)),
    Area("path", "PATH", ("path",)),
    Area("compilers", "C++ compilers", ("compilers",)),
    Area("config", "Theano configuration", ("theano_config",)),
    Area("performance", "Performance", ("system",)),
)

TABLE_NAMES: tuple[str, ...] = tuple(t.name for t in FACT_TABLES)
AREA_NAMES: tuple[str, ...] = tuple(a.name for a in AREAS)
# Each probe module once, in the order of the first table it fills.
PROBE_MODULES: tuple[str, ...] = tuple(dict.fromkeys(t.probe for t in FACT_TABLES))


def tables_of_probe(probe: str) -> tuple[str, ...]:
    """The fact tables one probe module fills, in record order."""
    return tuple(t.name for t in FACT_TABLES if t.probe == probe)


def area(name: str) -> Area:
    for candidate in AREAS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def table(name: str) -> FactTable:
    for candidate in FACT_TABLES:
        if candidate.name == name:
            return candidate
    raise KeyError(name)
