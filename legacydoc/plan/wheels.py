"""Questions the planner asks of rules/knowledge/wheels.toml: does this release have a
wheel for this Python on this OS, and which is the newest that does inside a range."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from legacydoc.knowledge.load import tables

OS_KEYS = {"linux": "linux", "windows": "windows", "darwin": "macos", "macos": "macos"}


@dataclass(frozen=True)
class Wheels:
    rows: tuple[Mapping[str, Any], ...]
    pure: tuple[Mapping[str, Any], ...]
    conda: tuple[Mapping[str, Any], ...]
    generated: str

    @classmethod
    def load(cls) -> "Wheels":
        table = tables()["wheels"]
        return cls(tuple(table.rows("wheel")), tuple(table.rows("pure")), tuple(table.rows("conda")),
                   str(table.data.get("generated", "")))

    def versions(self, package: str) -> list[str]:
        return [str(r["version"]) for r in self.rows if r["package"] == package]

    def row(self, package: str, version: str) -> Optional[Mapping[str, Any]]:
        return next((r for r in self.rows if r["package"] == package and r["version"] == version), None)

    def has_wheel(self, package: str, version: str, python: str, os_family: str) -> bool:
        row = self.row(package, version)
        return bool(row) and python in (row or {}).get(OS_KEYS.get(os_family, "linux"), [])

    def newest(self, package: str, python: str, os_family: str, within: str = "",
               numpy: Optional[str] = None) -> Optional[str]:
        """The newest release in ``within`` with a wheel for this Python and OS (and, for
        scipy, one that accepts this numpy), or None."""
        spec = _spec(within)
        best: Optional[Version] = None
        for row in self.rows:
            if row["package"] != package or not self.has_wheel(package, str(row["version"]), python, os_family):
                continue
            version = Version(str(row["version"]))
            if spec is not None and version not in spec:
                continue
            needs = _spec(row.get("numpy_requires", ""))
            if numpy and needs is not None and Version(numpy) not in needs:
                continue
            if best is None or version > best:
                best = version
        return str(best) if best else None

    def pure_ok(self, package: str, version: str, python: str) -> Optional[bool]:
        """Whether the release exists and admits this Python (None: not in the table)."""
        row = next((r for r in self.pure if r["package"] == package and r["version"] == version), None)
        if row is None:
            return None
        spec = _spec(row.get("requires_python", ""))
        return spec is None or Version(python) in spec

    def conda_build(self, package: str, python: str, os_family: str) -> Optional[Mapping[str, Any]]:
        key = OS_KEYS.get(os_family, "linux")
        for row in self.conda:
            if row["package"] == package and python in row["python"] and key in row["os"]:
                return row
        return None


def _spec(text: Any) -> Optional[SpecifierSet]:
    if not text:
        return None
    try:
        return SpecifierSet(str(text))
    except InvalidSpecifier:
        return None


def admits(spec: str, version: str) -> bool:
    parsed = _spec(spec)
    try:
        return parsed is None or Version(version) in parsed
    except InvalidVersion:
        return False
