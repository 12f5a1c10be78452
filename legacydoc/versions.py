"""Tolerant version parsing: facts come from real machines and may be anything."""

from __future__ import annotations

import re
from typing import Any, Optional

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

_LEADING_VERSION = re.compile(r"\d+(?:\.\d+)*")


def parse_version(value: Any) -> Optional[Version]:
    """A PEP 440 Version, or None. Accepts '451.67', '535.104.05', '10.2', 3 (int), and
    takes the leading dotted number of strings such as '1.0.5+dev' or '8.1.0-posix'."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        return Version(text)
    except InvalidVersion:
        match = _LEADING_VERSION.match(text)
        if not match:
            return None
        try:
            return Version(match.group(0))
        except InvalidVersion:
            return None


def parse_specifier(value: Any) -> Optional[SpecifierSet]:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return SpecifierSet(value)
    except InvalidSpecifier:
        return None


def version_in(value: Any, specifier: str) -> bool:
    """Is ``value`` inside ``specifier``? False when either does not parse."""
    version, spec = parse_version(value), parse_specifier(specifier)
    return version is not None and spec is not None and spec.contains(version, prereleases=True)
