"""legacydoc.versions: the one tolerant version parser every table and rule goes through."""
from __future__ import annotations

import pytest

from legacydoc.versions import parse_version, version_in

PARSED = {
    "1.0.5": "1.0.5",
    "535.104.05": "535.104.5",
    "8.1.0-posix": "8.1.0",  # MinGW-w64's gcc
    "0.9.0beta1.dev": "0.9.0b1.dev0",
    # Theano's development builds: "<version>.dev-<git revision>" (rel-0.9.0 setup.py)
    "0.9.0rc2.dev-674f8d5148cb8dcea446e7243e629d8f83647da5": "0.9.0rc2.dev0",
    "0.10.0beta1.dev-unknown-git": "0.10.0b1.dev0",
}


@pytest.mark.parametrize("text", sorted(PARSED))
def test_versions_as_tools_print_them(text: str) -> None:
    assert str(parse_version(text)) == PARSED[text]


@pytest.mark.parametrize("value", ["", "theano", "0.9.0.dev-not-a-revision", 1.10, True, None, "1" * 80])
def test_what_is_no_version_stays_unknown(value: object) -> None:
    assert parse_version(value) is None


def test_a_development_build_sits_before_its_release() -> None:
    dev = "0.9.0rc2.dev-674f8d5148cb8dcea446e7243e629d8f83647da5"
    assert version_in(dev, "<1.0.0rc1") and version_in(dev, ">=0.9.0b1") and not version_in(dev, ">=0.9.0")
