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

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.configread import config_files_read
from legacydoc.structs import replace
from legacydoc.theanorc.checks.base import KINDS, Context, Finding
from legacydoc.theanorc.checks.copied import check_placeholders, check_python_library
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
from legacydoc.theanorc.schema import CANDIDATE_SCHEMAS, OLD_BACKEND_SCHEMAS, select_release

__all__ = ["KINDS", "Finding", "derive_config_facts", "find_problems"]


def find_problems(record: Mapping[str, Any], config: Optional[EffectiveConfig] = None) -> list[Finding]:
    """Every finding for this record, in reading order (files, THEANO_FLAGS, then the
    checks across places and against the machine)."""
    config = config or effective_config(record)
    ctx = Context(record, config)
    for check in (check_files, check_flags, check_conflicts, check_interpolation, check_gpu, check_cuda_root,
                  check_dnn_paths, check_blas, check_discovery, check_placeholders, check_python_library):
        check(ctx)
    return ctx.out


# --- derived facts for the rule engine ------------------------------------------------------

# config.effective.<name> for these (nested by their dots: config.effective.blas.ldflags).
KEY_OPTIONS = (
    "device", "floatX", "mode", "cxx", "blas.ldflags", "dnn.enabled", "cuda.root", "gpuarray.preallocate",
    "base_compiledir", "init_gpu_device", "force_device", "linker", "optimizer", "allow_gc",
    "dnn.base_path", "dnn.include_path", "dnn.library_path", "dnn.bin_path", "lib.cnmem",
    "experimental.unpickle_gpu_on_cpu", "warn_float64", "compiledir", "compiledir_format", "nvcc.flags",
    "nvcc.fastmath",
    "gcc.cxxflags",
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
    release = select_release(record)
    if release.version_unknown:
        configs = [effective_config(record, replace(release, schema_id=schema))
                   for schema in candidate_schemas(record, release.flavour)]
    else:
        configs = [effective_config(record, release)]
    config = configs[-1]  # the newest candidate words the findings
    findings = _agreed_findings(record, configs)
    # A default stands only when every place that could override it was read: a record that
    # never listed the config files or THEANO_FLAGS (a ticket, a partial replay) may set it.
    defaults_known = config_files_read(record)
    effective: dict[str, Any] = {}
    for name in KEY_OPTIONS:
        setting = _agreed_setting(configs, name)
        if setting is not None:
            fact = _effective_fact(setting)
            if fact["source"] == "default" and not defaults_known:
                # neither its value nor where it comes from is known
                fact = {"unknown": True, **({"note": fact["note"]} if "note" in fact else {})}
            _nest(effective, name, fact)
    import_error = config.import_error if all(c.import_error for c in configs) else None
    table: dict[str, Any] = {
        "theano_flavour": config.release.flavour,
        "schema": config.schema.id,
        "schema_reason": config.release.reason,
        "files_read": [s.path for s in config.files if s.read],
        "import_fails": import_error is not None,
        "findings": [f.to_fact() for f in findings],
        "finding_kinds": sorted({f.kind for f in findings}),
        "effective": effective,
    }
    if config.release.version:
        table["theano_version"] = config.release.version
    if import_error:
        table["import_error"] = import_error
    return {"config": table}


def candidate_schemas(record: Mapping[str, Any], flavour: str) -> tuple[str, ...]:
    """The releases an installed Theano of unrecorded version may be; a message in the log
    that only some releases print narrows them."""
    from legacydoc.messages import shown_by_log

    shown = shown_by_log(record)
    schemas = CANDIDATE_SCHEMAS[flavour]
    if "old-backend" in shown:
        schemas = tuple(s for s in schemas if s in OLD_BACKEND_SCHEMAS) or schemas
    elif "old-backend-removed" in shown:
        schemas = tuple(s for s in schemas if s not in OLD_BACKEND_SCHEMAS) or schemas
    return schemas


def _agreed_findings(record: Mapping[str, Any], configs: list[EffectiveConfig]) -> list[Finding]:
    """The findings every candidate release makes (one release: all of its findings).
    "cnmem was removed in 1.0" is not a claim about a Theano whose release is unknown."""
    per_release = [find_problems(record, c) for c in configs]

    def key(f: Finding) -> tuple[Any, ...]:
        return (f.kind, f.file, f.line, f.option)

    agreed = set.intersection(*({key(f) for f in found} for found in per_release))
    return [f for f in per_release[-1] if key(f) in agreed]


def _agreed_setting(configs: list[EffectiveConfig], name: str) -> Optional[Setting]:
    """The option's setting in the newest candidate release that has it, and valid there
    when any does: lib.cnmem exists only before 1.0, device=gpu is valid only before 1.0."""
    settings = [s for s in (c.get(name) for c in reversed(configs)) if s is not None]
    return next((s for s in settings if s.ok), settings[0] if settings else None)
