"""What of the Theano API a project's code uses that the installed Theano release lacks
(``project.theano_lacks``, ``project.theano_removed``, ``project.theano_pymc_lacks``).

The table is rules/knowledge/theano_api.toml (tools/theano_api_table.py, read at the release
tags). A release none of its rows speaks for (a development snapshot, 1.0.x for names added
later, an unrecorded version) gets no claim at all: what it has is not known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

from packaging.version import InvalidVersion, Version

from legacydoc.facts import get
from legacydoc.structs import struct
from legacydoc.versions import parse_specifier

LISTED = 5  # entries per fact: a finding's title names them
FACT_OF = {"newer": "theano_lacks", "older": "theano_removed", "theano-1.0": "theano_pymc_lacks"}
DIST_OF = {"theano": "Theano", "theano-pymc": "Theano-PyMC"}


def _release_version(raw: Any) -> Optional[Version]:
    """The version of a release as PyPI has it, else None: a development snapshot
    ("0.9.0.dev-<commit>", "1.0.4+12.gabc"), a local build ("0.8.2-custom"), a post
    release is not the release its number names."""
    if not isinstance(raw, str):
        return None
    try:
        version = Version(raw.strip())
    except InvalidVersion:
        return None
    if version.local or version.is_devrelease or version.is_postrelease:
        return None
    return version


def _rows(key: str, dist: str, version: Version, table: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    out = []
    for row in table.get(key, []):
        spec = parse_specifier(row.get("versions"))
        if row.get("dist") == dist and spec is not None and spec.contains(version, prereleases=True):
            out.append(row)
    return out


def _release(found_in: str) -> str:
    return found_in.replace("rel-", "")


def _gap(module: str, name: str, kind: str, by_module: Mapping[str, list[Mapping[str, Any]]],
         module_rows: list[Mapping[str, Any]]) -> Optional[tuple[str, str, str]]:
    """(written_for, found_in, the dotted name) when this release lacks the use, else None."""
    if kind == "module":
        for row in module_rows:
            for missing in row.get("modules", []):
                if module == missing or module.startswith(missing + "."):
                    return row["written_for"], row["found_in"], module
        return None
    for row in by_module.get(module, []):
        lacking = set(row.get("names", []))
        if kind == "import":
            lacking |= set(row.get("submodules", []))
        if name in lacking:
            return row["written_for"], row["found_in"], module + "." + name
    return None


@struct(frozen=True)
class Gap:
    """A use of Theano's API the release lacks."""

    written_for: str  # newer | older | theano-1.0 (the table's rows)
    found_in: str  # the release that has it: for "older", the last one
    name: str  # dotted: theano.tensor.nnet.relu
    where: str  # file:line


def gaps(uses: Iterable[tuple[str, str, str, str]], dist: str, raw_version: Any,
         table: Mapping[str, Any]) -> list[Gap]:
    """The uses (module, name, kind, where) this release of ``dist`` lacks, each name once."""
    version = _release_version(raw_version)
    if version is None:
        return []
    by_module: dict[str, list[Mapping[str, Any]]] = {}
    for row in _rows("lacks", dist, version, table):
        by_module.setdefault(str(row.get("module")), []).append(row)
    module_rows = _rows("lacks_module", dist, version, table)
    out: list[Gap] = []
    seen: set[str] = set()
    for module, name, kind, where in uses:
        gap = _gap(module, name, kind, by_module, module_rows)
        if gap is not None and gap[2] not in seen:
            seen.add(gap[2])
            out.append(Gap(gap[0], _release(gap[1]), gap[2], where))
    return out


def api_gaps(uses: Iterable[tuple[str, str, str, str]], facts: Mapping[str, Any],
             table: Mapping[str, Any]) -> dict[str, list[str]]:
    """{fact name: ["theano.tensor.nnet.relu (net.py:12)", ...]} for the uses the installed
    release lacks; a fact with nothing in it is left out."""
    dist = DIST_OF.get(str(get(facts, "derived.theano.flavour")))
    if dist is None:
        return {}
    out: dict[str, list[str]] = {}
    for gap in gaps(uses, dist, get(facts, "derived.theano.version"), table):
        entries = out.setdefault(FACT_OF[gap.written_for], [])
        if len(entries) < LISTED:
            last = "; last in %s" % gap.found_in if gap.written_for == "older" else ""
            entries.append("%s (%s%s)" % (gap.name, gap.where, last))
    return out
