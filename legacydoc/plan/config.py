"""The plan's ``.theanorc``: the one ``legacydoc theanorc --write`` writes, from the same
generator, so ``check``, ``theanorc --write`` and ``plan`` never disagree on the device or
the flags. For a new environment the facts are first stripped of what the new
environment will not have (the old one's BLAS, and pygpu unless the plan installs it)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from legacydoc.structs import struct
from legacydoc.theanorc.discovery import write_target
from legacydoc.theanorc.effective import effective_config
from legacydoc.theanorc.writer import generate

# What a fresh environment does not inherit from the old one.
_OLD_ENV_KEYS = ("numpy_blas", "numpy_blas_libraries", "numpy_blas_opt_info", "numpy_distutils_config", "conda")


def for_new_env(record: Mapping[str, Any], env_kind: str, with_pygpu: bool) -> dict[str, Any]:
    facts = copy.deepcopy(dict(record))
    packages = facts.get("packages")
    if isinstance(packages, dict):
        for key in _OLD_ENV_KEYS:
            packages.pop(key, None)
        if not with_pygpu:
            packages.pop("pygpu", None)
            if isinstance(packages.get("found"), list):
                packages["found"] = [p for p in packages["found"] if p != "pygpu"]
    python = facts.get("python")
    if isinstance(python, dict):
        python["env_kind"] = env_kind
    return facts


def with_pygpu_installed(record: Mapping[str, Any]) -> dict[str, Any]:
    """The facts once the plan's conda install of pygpu 0.7.6 has run."""
    facts = copy.deepcopy(dict(record))
    packages = facts.setdefault("packages", {})
    packages["pygpu"] = {"name": "pygpu", "version": "0.7.6"}
    if isinstance(packages.get("found"), list) and "pygpu" not in packages["found"]:
        packages["found"].append("pygpu")
    return facts


@struct
class PlannedConfig:
    """The Theano config a plan writes: the device, the BLAS flags and the file's text."""

    device: str
    device_why: str
    ldflags: str
    text: str
    notes: list[str]


def planned_config(record: Mapping[str, Any]) -> PlannedConfig:
    """The config theanorc --write would write for these facts."""
    target = write_target(record)
    generated = generate(record, effective_config(record), target.path if target is not None else None)
    lines = {line.name: line for line in generated.lines}
    device = lines["device"].value if "device" in lines else "cpu"
    ldflags = lines["blas.ldflags"].value if "blas.ldflags" in lines else ""
    return PlannedConfig(device, lines["device"].why if "device" in lines else "", ldflags, generated.text,
                         generated.notes)
