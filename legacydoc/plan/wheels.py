"""Questions the planner asks of rules/knowledge/wheels.toml: does this release have a
wheel for this Python on this OS, and which is the newest that does inside a range."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from packaging.version import Version

from legacydoc.knowledge.load import tables
from legacydoc.structs import struct
from legacydoc.versions import parse_specifier, parse_version

OS_KEYS = {"linux": "linux", "windows": "windows", "darwin": "macos", "macos": "macos"}


@struct(frozen=True)
class Wheels:
    """The wheel table: which package releases have wheels for which Python, on pip and on conda."""

    rows: tuple[Mapping[str, Any], ...]
    conda: tuple[Mapping[str, Any], ...]
    generated: str

    @classmethod
    def load(cls) -> "Wheels":
        table = tables()["wheels"]
        return cls(tuple(table.rows("wheel")), tuple(table.rows("conda")),
                   str(table.data.get("generated", "")))

    def row(self, package: str, version: str) -> Optional[Mapping[str, Any]]:
        return next((r for r in self.rows if r["package"] == package and r["version"] == version), None)

    def has_wheel(self, package: str, version: str, python: str, os_family: str) -> bool:
        row = self.row(package, version)
        return row is not None and _row_has_wheel(row, python, os_family)

    def newest(self, package: str, python: str, os_family: str, within: str = "",
               numpy: Optional[str] = None) -> Optional[str]:
        """The newest release in ``within`` with a wheel for this Python and OS (and, for
        scipy, one that accepts this numpy), or None."""
        spec = parse_specifier(within)
        best: Optional[Version] = None
        for row in self.rows:  # the row itself, not a second search for it per row
            if row["package"] != package or not _row_has_wheel(row, python, os_family):
                continue
            version = Version(str(row["version"]))
            if spec is not None and version not in spec:
                continue
            needs = parse_specifier(row.get("numpy_requires", ""))
            if numpy and needs is not None and Version(numpy) not in needs:
                continue
            if best is None or version > best:
                best = version
        return str(best) if best else None

    def conda_build(self, package: str, python: str, os_family: str) -> Optional[Mapping[str, Any]]:
        key = OS_KEYS.get(os_family, "linux")
        for row in self.conda:
            if row["package"] == package and python in row["python"] and key in row["os"]:
                return row
        return None


def _row_has_wheel(row: Mapping[str, Any], python: str, os_family: str) -> bool:
    return python in row.get(OS_KEYS.get(os_family, "linux"), [])


def admits(spec: str, version: str) -> bool:
    """Whether ``version`` is inside ``spec``; an empty or unreadable spec constrains nothing."""
    parsed, wanted = parse_specifier(spec), parse_version(version)
    return parsed is None or (wanted is not None and wanted in parsed)
