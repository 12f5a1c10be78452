"""legacydoc.versions: the one tolerant version parser every table and rule goes through."""
from __future__ import annotations

import pytest

from legacydoc.versions import parse_version, version_in

PARSED = {
    "1.0.5": "1.0.5",
    "535.104.05": "535.104.5",
    "8.1.0-posix": "8.1.0",  # MinGW-w64's gcc
    "0.9.0beta1.dev": "0.9.0b1.dev0",
    # Theano's builds from git: "<version>.dev-<git revision>" (rel-0.9.0 setup.py), at or
    # after <version> (every tag says so of itself); master's own "0.9.0dev4" comes before
    "0.9.0rc2.dev-674f8d5148cb8dcea446e7243e629d8f83647da5": "0.9.0rc2",
    "0.9.0.dev-c697eeab84e5b8a74908da654b66ec9eca4f1291": "0.9.0",
    "0.10.0beta1.dev-unknown-git": "0.10.0b1",
    "0.9.0dev4.dev-RELEASE": "0.9.0.dev4",
}


@pytest.mark.parametrize("text", sorted(PARSED))
def test_versions_as_tools_print_them(text: str) -> None:
    assert str(parse_version(text)) == PARSED[text]


@pytest.mark.parametrize("value", ["", "theano", "0.9.0.dev-not-a-revision", 1.10, True, None, "1" * 80])
def test_what_is_no_version_stays_unknown(value: object) -> None:
    assert parse_version(value) is None


def test_a_build_from_git_is_at_or_after_its_version() -> None:
    tag = "0.9.0.dev-c697eeab84e5b8a74908da654b66ec9eca4f1291"  # the rel-0.9.0 tag, built from git
    assert version_in(tag, ">=0.9.0") and version_in(tag, "<1.0.0rc1")
    candidate = "0.9.0rc2.dev-674f8d5148cb8dcea446e7243e629d8f83647da5"
    assert version_in(candidate, ">=0.9.0rc2") and not version_in(candidate, ">=0.9.0")
    master = parse_version("0.9.0dev4.dev-RELEASE")  # master's own version, from an sdist
    assert master is not None and master.is_prerelease and master < parse_version("0.9.0")
