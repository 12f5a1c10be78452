"""Tolerant version parsing: facts come from real machines and may be anything."""

from __future__ import annotations

import re
from typing import Any, Optional

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

# A dotted version at the start, ended by the string's end or a suffix separator:
# '8.1.0-posix', '1.0.5+dev', '10.2 (Update 2)'.
# No real version is longer; a longer "version" is garbage (and 5,000 digits would hit
# Python's limit on converting text to int).
MAX_VERSION_CHARS = 64
_LEADING_VERSION = re.compile(r"^([0-9]+(?:\.[0-9]+)+)(?=$|[-+_~ ])")
# Theano's builds from git call themselves "<version>.dev-<git revision>" (rel-0.9.0
# setup.py:127 and :143; "unknown-git" when git could not be asked, "RELEASE" from an sdist,
# :139). Every tag keeps ISRELEASED = False, so the tag rel-0.9.0 itself says
# "0.9.0.dev-c697eea...": the build is at or after <version>, read as <version>. Master's
# own versions ("0.9.0dev4") are PEP 440 pre-releases of the next release already.
_THEANO_DEV = re.compile(r"^(.{1,40}?)\.dev-(?:[0-9a-f]{7,40}|unknown-git|RELEASE)$")


def parse_version(value: Any) -> Optional[Version]:
    """A PEP 440 Version, or None. Accepts '451.67', '535.104.05', '10.2', 3 (int) and the
    leading dotted number of strings such as '8.1.0-posix'. Floats are refused: 1.10
    would read as 1.1."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return None
    if isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > MAX_VERSION_CHARS:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        dev = _THEANO_DEV.match(text)
        if dev:
            try:
                return Version(dev.group(1))
            except InvalidVersion:
                pass
        match = _LEADING_VERSION.match(text)
        if not match:
            return None
        try:
            return Version(match.group(1))
        except InvalidVersion:
            return None


def parse_specifier(value: Any) -> Optional[SpecifierSet]:
    if not isinstance(value, str) or not value.strip() or len(value) > 10 * MAX_VERSION_CHARS:
        return None
    try:
        return SpecifierSet(value)
    except InvalidSpecifier:
        return None


def version_in(value: Any, specifier: str) -> bool:
    """Is ``value`` inside ``specifier``? False when either does not parse."""
    version, spec = parse_version(value), parse_specifier(specifier)
    return version is not None and spec is not None and spec.contains(version, prereleases=True)


def small_int(text: Any) -> Optional[int]:
    """A whole number written in at most 18 ASCII digits, else None (a fact of thousands of
    digits is garbage, and int() of it raises past Python's digit limit)."""
    if isinstance(text, str) and 0 < len(text) <= 18 and text.isascii() and text.isdigit():
        return int(text)
    return None
