"""Whether a record shows the whole Theano config: every file Theano would read, and
THEANO_FLAGS. Only then does an option at its default really stand at its default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from legacydoc.facts import get


def config_files_read(facts: Mapping[str, Any]) -> bool:
    """Every config file Theano would read was listed, and each one that exists was read
    whole (not cut at the probe's size limit, not an excerpt a reporter quoted); and
    THEANO_FLAGS, which overrides them, was recorded (the probe records it even unset)."""
    files = get(facts, "theano_config.files")
    if not isinstance(files, list) or not isinstance(get(facts, "theano_config.flags"), Mapping):
        return False
    return all(
        isinstance(f, Mapping)
        and (f.get("exists") is False
             or ("text" in f and f.get("text_truncated") is not True and f.get("text_partial") is not True))
        for f in files
    )
