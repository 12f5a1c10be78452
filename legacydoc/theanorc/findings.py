"""What is wrong in the Theano config, one finding per problem, each with the exact fix,
and the derived facts the rule engine matches.

A finding is plain data the rule engine can match (``config.findings`` items, by
``kind``). ``message`` is a complete sentence naming the place (file and line, or
THEANO_FLAGS) and what Theano really does with it; ``fix_line`` is the exact text that
should replace the offending line(s): config lines such as ``"[dnn]\\nenabled = True"``,
a THEANO_FLAGS item, or a shell line (``export THEANORC=...``). An empty ``fix_line``
means: delete the line(s). The kinds are listed in :data:`KINDS`.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from legacydoc.theanorc.checks.base import KINDS, Context, Finding
from legacydoc.theanorc.checks.files import check_files
from legacydoc.theanorc.checks.machine import (
    check_blas,
    check_cuda_root,
    check_discovery,
    check_dnn_paths,
    check_gpu,
)
from legacydoc.theanorc.checks.values import (
    check_conflicts,
    check_flags,
    check_interpolation,
)
from legacydoc.theanorc.effective import EffectiveConfig, Setting, effective_config

__all__ = ["KINDS", "Finding", "derive_config_facts", "find_problems"]


def find_problems(record: Mapping[str, Any], config: Optional[EffectiveConfig] = None) -> list[Finding]:
    """Every finding for this record, in reading order (files, THEANO_FLAGS, then the
    checks across places and against the machine)."""
    config = config or effective_config(record)
    ctx = Context(record, config)
    for check in (check_files, check_flags, check_conflicts, check_interpolation, check_gpu, check_cuda_root,
                  check_dnn_paths, check_blas, check_discovery):
        check(ctx)
    return ctx.out


# --- derived facts for the rule engine ------------------------------------------------------

# config.effective.<name> for these (nested by their dots: config.effective.blas.ldflags).
KEY_OPTIONS = (
    "device", "floatX", "mode", "cxx", "blas.ldflags", "dnn.enabled", "cuda.root", "gpuarray.preallocate",
    "base_compiledir", "init_gpu_device", "force_device", "linker", "optimizer", "allow_gc",
    "dnn.base_path", "dnn.include_path", "dnn.library_path", "dnn.bin_path", "lib.cnmem",
)


def _effective_fact(setting: Setting) -> dict[str, Any]:
    fact: dict[str, Any] = {"source": setting.origin.label}
    if setting.value is not None:
        fact["value"] = setting.value
    if setting.origin.source == "file":
        fact["file"] = setting.origin.file
        fact["line"] = setting.origin.line
    if not setting.ok:
        fact["invalid"] = True
    if setting.note:
        fact["note"] = setting.note
    return fact


def _nest(table: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = table
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def derive_config_facts(record: Mapping[str, Any]) -> dict[str, Any]:
    """``{"config": {...}}``: the derived facts the rules match. Keys under config:

    findings (list of Finding.to_fact()), finding_kinds (sorted unique kinds), effective
    (key options, nested by their dots: effective.blas.ldflags.value), theano_flavour,
    theano_version, schema, schema_reason, files_read, import_fails, import_error.
    """
    config = effective_config(record)
    findings = find_problems(record, config)
    effective: dict[str, Any] = {}
    for name in KEY_OPTIONS:
        setting = config.get(name)
        if setting is not None:
            _nest(effective, name, _effective_fact(setting))
    table: dict[str, Any] = {
        "theano_flavour": config.release.flavour,
        "schema": config.schema.id,
        "schema_reason": config.release.reason,
        "files_read": [s.path for s in config.files if s.read],
        "import_fails": config.import_error is not None,
        "findings": [f.to_fact() for f in findings],
        "finding_kinds": sorted({f.kind for f in findings}),
        "effective": effective,
    }
    if config.release.version:
        table["theano_version"] = config.release.version
    if config.import_error:
        table["import_error"] = config.import_error
    return {"config": table}
