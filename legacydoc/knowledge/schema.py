"""The shape every knowledge table must have: required and optional fields per array,
with their kinds. A malformed table is a one-line KnowledgeError naming the file and row."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Callable, NoReturn

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from legacydoc.errors import UsageError
from legacydoc.factschema.kinds import is_int
from legacydoc.structs import field, struct

OS_NAMES = ("linux", "windows")
CONFIDENCE = ("V", "C", "U")


class KnowledgeError(UsageError):
    """A knowledge table is missing, unreadable or malformed. One line, names the file."""


@struct(frozen=True)
class Table:
    """One knowledge file: ``name`` is the file stem, ``origin`` where it was read from."""

    name: str
    origin: str
    source: str
    data: Mapping[str, Any] = field(repr=False)

    def rows(self, key: str) -> list[dict[str, Any]]:
        value = self.data.get(key, [])
        return list(value) if isinstance(value, list) else []


# --------------------------------------------------------------------------------------
# Schemas. Field kinds: str, int, float, bool, version (PEP 440), driver (dotted digits),
# cc ("8.6"), regex, spec (PEP 440 specifier), conf (V/C/U), list[str], list[int],
# list[version], list[cc], table. Unknown fields are allowed (tables may grow).

_Fields = Mapping[str, str]


@struct(frozen=True)
class _Rows:
    """The fields a knowledge table's rows must and may have."""

    required: _Fields
    optional: _Fields = field(default_factory=dict)


CC_RE = re.compile(r"^[0-9]+\.[0-9]+$")
_DRIVER_RE = re.compile(r"^[0-9]+(?:\.[0-9]+)*$")

SCHEMAS: dict[str, dict[str, _Rows]] = {
    "cuda_driver": {
        "release": _Rows(
            {"cuda": "version", "update": "int", "label": "str", "release": "version", "linux": "driver",
             "confidence": "conf"},
            {"nvcc": "version", "windows": "driver", "prerelease": "bool", "nvcc_confidence": "conf",
             "linux_older_table": "driver", "windows_older_table": "driver"},
        ),
        "minor_compat": _Rows({"major": "int", "linux": "driver", "windows": "driver", "confidence": "conf"}),
        "error": _Rows({"id": "str", "regex": "regex"}),
    },
    "cuda_arch": {
        "sm": _Rows({"sm": "int", "arch": "str", "first": "version", "confidence": "conf"},
                    {"last": "version", "variant": "str"}),
        "toolkit": _Rows({"from": "version", "lowest_sm": "int", "highest_sm": "int", "confidence": "conf"},
                         {"to": "version", "default_sm": "int"}),
        "driver_branch": _Rows({"arch": "str", "sms": "list[int]", "last_branch": "int"}),
        "error": _Rows({"id": "str", "regex": "regex"}),
    },
    "gpu_compute_capability": {
        "rule": _Rows({"pattern": "regex", "cc": "cc", "confidence": "conf"},
                      {"also": "list[cc]", "example": "str"}),
    },
    "cudnn": {
        "build": _Rows({"from": "version", "to": "version", "cuda": "list[version]", "confidence": "conf"},
                       {"min_cc": "cc", "not_supported": "list[version]", "redist_also": "list[version]"}),
        "library": _Rows({"major": "int", "windows": "str", "linux": "list[str]"}, {"windows_extra": "list[str]"}),
        "macro": _Rows({"major_from": "int", "major_to": "int", "header": "str", "major_factor": "int",
                        "minor_factor": "int"}),
    },
    "host_compilers": {
        "gcc_max": _Rows({"from": "version", "max": "int", "confidence": "conf"}, {"to": "version"}),
        "gcc_min": _Rows({"from": "version", "min": "int"}, {"to": "version"}),
        "clang_max": _Rows({"from": "version", "max": "int"}, {"to": "version"}),
        "msvc": _Rows({"from": "version", "msc_ver_min": "int", "msc_ver_max": "int", "visual_studio": "list[str]",
                       "confidence": "conf"}, {"to": "version", "message": "str"}),
        "msc_ver": _Rows({"from": "int", "to": "int", "visual_studio": "str", "toolset": "str"}),
        "stl1002": _Rows({"msc_ver_from": "int", "requires_cuda": "version", "message": "str"}),
        "error": _Rows({"id": "str", "regex": "regex"}),
    },
    "cuda_libnames": {
        "windows": _Rows({"from": "version", "cudart": "str", "cublas": "list[str]", "nvrtc": "list[str]",
                          "confidence": "conf"}, {"to": "version", "others": "list[str]"}),
        "linux": _Rows({"from": "version", "cudart": "str", "cublas": "list[str]", "nvrtc": "list[str]",
                        "confidence": "conf"}, {"to": "version"}),
        "libgpuarray.version": _Rows({"from": "version", "to": "version", "api_version": "int",
                                      "fallback": "list[version]", "confidence": "conf"}),
    },
    "nvidia_smi": {
        "exit_code": _Rows({"rc": "int", "meaning": "str", "confidence": "conf"}),
        "failure": _Rows({"id": "str", "regex": "regex", "meaning": "str", "causes": "list[str]",
                          "fixes": "list[str]", "confidence": "conf"}, {"rc": "int"}),
        "format": _Rows({"id": "str", "regex": "regex"}),
    },
    "theano_releases": {
        "release": _Rows({"dist": "str", "from": "version", "to": "version", "python_classifiers": "list[str]",
                          "confidence": "conf"},
                         {"python_ok": "spec", "numpy_ok": "spec", "numpy_requires": "spec", "pygpu": "spec",
                          "libgpuarray": "spec", "libgpuarray_api": "int", "cudnn_min_macro": "int",
                          "cudnn_warn_from_macro": "int", "config_style": "str"}),
        "failure": _Rows({"id": "str", "dists": "list[str]", "applies": "spec", "message": "str",
                          "regex": "regex", "confidence": "conf"},
                         {"python": "spec", "numpy": "spec", "cudnn_macro": "spec", "theano": "spec"}),
        "framework": _Rows({"dist": "str", "from": "version", "to": "version", "requires": "list[str]",
                            "confidence": "conf"}),
        "successor": _Rows({"dist": "str", "import_name": "str", "confidence": "conf"}),
    },
    "gpu_peak": {
        "gpu": _Rows({"pattern": "regex", "name": "str", "tflops": "float", "confidence": "conf"},
                     {"cuda_cores": "int", "boost_mhz": "int", "datasheet_tflops": "float"}),
    },
    "theano_eras": {
        "release": _Rows({"version": "version", "package": "str", "old_backend": "str", "device_gpu": "str",
                          "cudnn_min": "int", "cudnn_warn_from": "int", "cudnn_exact_match": "bool",
                          "volta_min_cudnn": "int", "python": "list[str]", "numpy_min": "version",
                          "lib_cnmem": "bool", "hypot_fix": "bool", "confidence": "conf", "source": "str"},
                         {"cudnn_win_dlls": "list[str]", "pygpu": "str", "tag": "str", "commit": "str"}),
    },
    "libgpuarray_releases": {
        "release": _Rows({"version": "version", "api": "int", "rejects_cuda_major_gt_9": "bool",
                          "env_cuda_version": "bool", "nvrtc_fallback": "list[version]", "driver_blacklist": "str",
                          "gpu_too_old_gate": "bool", "confidence": "conf", "source": "str"},
                         {"tag": "str", "commit": "str", "theano": "str"}),
    },
    "theano_api": {
        "lacks": _Rows({"dist": "str", "versions": "spec", "written_for": "str", "found_in": "str", "module": "str",
                        "names": "list[str]", "confidence": "conf"}, {"submodules": "list[str]"}),
        "lacks_module": _Rows({"dist": "str", "versions": "spec", "written_for": "str", "found_in": "str",
                               "modules": "list[str]", "confidence": "conf"}),
    },
    "numpy_c_api": {
        "series": _Rows({"c_api": "int", "numpy": "list[str]", "confidence": "conf"}),
    },
    "wheels": {
        "wheel": _Rows({"package": "str", "version": "version", "sdist": "bool", "linux": "list[str]",
                        "windows": "list[str]", "macos": "list[str]"},
                       {"requires_python": "spec", "numpy_requires": "spec", "date": "str"}),
        "pure": _Rows({"package": "str", "version": "version", "files": "list[str]"},
                      {"requires_python": "spec", "date": "str"}),
        "conda": _Rows({"package": "str", "version": "version", "channel": "str", "python": "list[str]",
                        "os": "list[str]", "source": "str", "confidence": "conf"}, {"numpy_build": "table"}),
    },
}

# Top-level plain tables a known file must have.
REQUIRED_TABLES: dict[str, tuple[str, ...]] = {
    "cuda_libnames": ("driver", "libgpuarray"),
    "theano_releases": ("cudnn",),
}


def _kind_ok(kind: str, value: Any) -> bool:
    if kind.startswith("list["):
        inner = kind[5:-1]
        return isinstance(value, list) and all(_kind_ok(inner, item) for item in value)
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return is_int(value)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "table":
        return isinstance(value, dict)
    if not isinstance(value, str):
        return False
    if kind == "version":
        try:
            Version(value)
        except InvalidVersion:
            return False
        return True
    if kind == "driver":
        return bool(_DRIVER_RE.match(value))
    if kind == "cc":
        return bool(CC_RE.match(value))
    if kind == "conf":
        return value in CONFIDENCE
    if kind == "spec":
        try:
            SpecifierSet(value)
        except InvalidSpecifier:
            return False
        return True
    if kind == "regex":
        try:
            re.compile(value)
        except re.error:
            return False
        return True
    raise ValueError("unknown field kind %r" % kind)  # a bug in SCHEMAS, not in the data


_KIND_WORDS = {
    "version": "a version string", "driver": "a driver version string such as '451.67'",
    "cc": "a compute capability such as '8.6'", "regex": "a valid regular expression",
    "spec": "a version specifier such as '>=1.22'", "conf": "one of 'V', 'C', 'U'",
    "str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
    "table": "a table",
}


def _describe(kind: str) -> str:
    if kind.startswith("list["):
        return "a list, each item %s" % _KIND_WORDS.get(kind[5:-1], kind[5:-1])
    return _KIND_WORDS.get(kind, kind)


def _field_problem(fname: str, kind: str, value: Any) -> str:
    if kind == "regex" and isinstance(value, str):
        try:
            re.compile(value)
        except re.error as exc:
            return "field '%s' is not a valid regular expression (%s): %r" % (fname, exc, value)
    return "field '%s' must be %s, not %r" % (fname, _describe(kind), value)


def _row_label(key: str, index: int, row: Mapping[str, Any]) -> str:
    for hint in ("id", "cuda", "sm", "dist", "name", "from", "rc", "major", "pattern"):
        if hint in row and isinstance(row[hint], (str, int)) and not isinstance(row[hint], bool):
            return "%s[%d] (%s %s)" % (key, index, hint, row[hint])
    return "%s[%d]" % (key, index)


def _generic_field_checks(where: str, row: Mapping[str, Any], fail: Callable[[str], NoReturn]) -> None:
    for name, value in row.items():
        if name == "confidence" or name.endswith("_confidence"):
            if value not in CONFIDENCE:
                fail("%s: field '%s' must be one of 'V', 'C', 'U', not %r" % (where, name, value))
        elif name in ("pattern", "regex") or name.endswith("_regex"):
            if not _kind_ok("regex", value):
                fail("%s: %s" % (where, _field_problem(name, "regex", value)))


def validate(name: str, origin: str, data: Mapping[str, Any]) -> Table:
    """Check one parsed table; raise KnowledgeError naming ``origin`` on the first problem."""

    def fail(problem: str) -> NoReturn:
        raise KnowledgeError("%s: %s" % (origin, " ".join(problem.split())))

    source = data.get("source")
    if not isinstance(source, str) or not source.strip():
        fail("missing 'source' (a line saying where the figures come from)")
    for required in REQUIRED_TABLES.get(name, ()):
        if not isinstance(data.get(required), dict):
            fail("missing table [%s]" % required)

    schema = SCHEMAS.get(name, {})
    arrays: dict[str, list[Any]] = {}
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            arrays[key] = value
        elif isinstance(value, dict):
            _generic_field_checks("[%s]" % key, value, fail)
            for sub, subvalue in value.items():
                if isinstance(subvalue, list) and subvalue and all(isinstance(v, dict) for v in subvalue):
                    arrays["%s.%s" % (key, sub)] = subvalue
    for key in schema:
        value = data
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            fail("missing [[%s]] rows" % key)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            fail("'%s' must be an array of tables ([[%s]])" % (key, key))
        if not value:
            fail("[[%s]] has no rows" % key)
        arrays[key] = value

    for key, rows in arrays.items():
        spec = schema.get(key)
        for index, row in enumerate(rows):
            where = _row_label(key, index, row)
            if spec is not None:
                for fname, kind in spec.required.items():
                    if fname not in row:
                        fail("%s: missing required field '%s'" % (where, fname))
                    if not _kind_ok(kind, row[fname]):
                        fail("%s: %s" % (where, _field_problem(fname, kind, row[fname])))
                for fname, kind in spec.optional.items():
                    if fname in row and not _kind_ok(kind, row[fname]):
                        fail("%s: %s" % (where, _field_problem(fname, kind, row[fname])))
            _generic_field_checks(where, row, fail)
    return accepted(name, origin, data)


def accepted(name: str, origin: str, data: Mapping[str, Any]) -> Table:
    """The table for data :func:`validate` has accepted (now or, same bytes, before)."""
    return Table(name=name, origin=origin, source=str(data["source"]).strip(), data=data)
