"""Knowledge tables: what we know about CUDA, drivers, cuDNN, compilers, GPUs and Theano.

The tables are TOML data under ``rules/knowledge/`` (shipped as ``legacydoc.rules`` in the
wheel), one file per table, each with a ``source`` line naming where its figures come
from. This module finds them, validates them (a malformed table is a ``KnowledgeError``
whose one-line message names the file), caches them, and offers small pure lookups for
the derive layer. Lookups never raise on odd input (``None``, garbage strings, numbers):
they answer ``None`` (or an empty list) instead.

Versions: CUDA / cuDNN / Theano versions are compared with ``packaging``; driver versions
("451.67", "535.104.05") per numeric component.

CUDA versions may be given as "10.2", as a release id ("10.1.243", "11.4.1" = 11.4 Update
1) or as the V-number ``nvcc --version`` prints ("V11.0.221"); cuda_driver.toml maps the
last two to a toolkit update.
"""

from __future__ import annotations

import functools
import importlib.resources
import importlib.util
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, NoReturn, Optional, Union

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from legacydoc.errors import UsageError
from legacydoc.versions import parse_version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

__all__ = [
    "KnowledgeError",
    "Table",
    "Knowledge",
    "knowledge_dir",
    "load_tables",
    "tables",
    "default",
    "clear_cache",
    "driver_key",
    "min_driver",
    "driver_max_cuda",
    "cuda_release",
    "compute_capability",
    "gpu_rule",
    "arch_range",
    "sm_supported",
    "max_gcc",
    "min_gcc",
    "max_clang",
    "msvc_range",
    "msc_ver_name",
    "stl1002_requires",
    "cudnn_cuda_builds",
    "cudnn_version_from_macro",
    "theano_release",
    "theano_failures",
    "gpu_peak_tflops",
]

OS_NAMES = ("linux", "windows")
CONFIDENCE = ("V", "C", "U")


class KnowledgeError(UsageError):
    """A knowledge table is missing, unreadable or malformed. One line, names the file."""


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class _Rows:
    required: _Fields
    optional: _Fields = field(default_factory=dict)


_CC_RE = re.compile(r"^[0-9]+\.[0-9]+$")
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
        return isinstance(value, int) and not isinstance(value, bool)
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
        return bool(_CC_RE.match(value))
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
    return Table(name=name, origin=origin, source=source.strip(), data=data)


# --------------------------------------------------------------------------------------
# Finding and loading


def knowledge_dir() -> Any:
    """``legacydoc.rules/knowledge`` when that package is importable (an installed wheel),
    else ``<repo>/rules/knowledge`` next to the ``legacydoc`` package (a checkout)."""
    try:
        spec = importlib.util.find_spec("legacydoc.rules")
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        try:
            candidate = importlib.resources.files("legacydoc.rules") / "knowledge"
            if candidate.is_dir():
                return candidate
        except (ImportError, TypeError, ValueError, OSError):
            pass
    return Path(__file__).resolve().parent.parent / "rules" / "knowledge"


def load_tables(directory: Union[str, Path, Any, None] = None) -> dict[str, Table]:
    """Load and validate every ``*.toml`` in ``directory`` (default: ``knowledge_dir()``).
    Not cached; use ``tables()`` for the cached built-in set."""
    root = knowledge_dir() if directory is None else directory
    if isinstance(root, str):
        root = Path(root)
    try:
        entries = sorted((e for e in root.iterdir() if e.name.endswith(".toml")), key=lambda e: e.name)
    except OSError as exc:
        raise KnowledgeError("%s: cannot list knowledge tables (%s)" % (root, exc.strerror or exc)) from None
    result: dict[str, Table] = {}
    for entry in entries:
        origin = str(entry)
        try:
            if not entry.is_file():
                continue
            text = entry.read_bytes().decode("utf-8")
            data = tomllib.loads(text)
        except OSError as exc:
            raise KnowledgeError("%s: cannot read (%s)" % (origin, exc.strerror or exc)) from None
        except UnicodeDecodeError as exc:
            raise KnowledgeError("%s: not UTF-8 (byte %d)" % (origin, exc.start)) from None
        except tomllib.TOMLDecodeError as exc:
            raise KnowledgeError("%s: not valid TOML (%s)" % (origin, " ".join(str(exc).split()))) from None
        name = entry.name[: -len(".toml")]
        result[name] = validate(name, origin, data)
    return result


@functools.lru_cache(maxsize=1)
def tables() -> dict[str, Table]:
    """The built-in tables, loaded once."""
    return load_tables()


@functools.lru_cache(maxsize=1)
def default() -> "Knowledge":
    return Knowledge(tables())


def clear_cache() -> None:
    tables.cache_clear()
    default.cache_clear()


# --------------------------------------------------------------------------------------
# Small parsers (never raise)

_NUMERIC = re.compile(r"^[0-9]+(?:\.[0-9]+)*$")
_CUDA_TEXT = re.compile(r"^(?:v|release\s+)?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?$", re.IGNORECASE)


def _text(value: Any) -> Optional[str]:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value.strip()
    return None


def driver_key(value: Any) -> Optional[tuple[int, ...]]:
    """A driver version as a tuple of ints: '535.104.05' -> (535, 104, 5). Also accepts the
    Windows driver-store form '27.21.14.5167' (-> 451.67). None for anything else."""
    text = _text(value)
    if not text or not _NUMERIC.match(text):
        return None
    parts = text.split(".")
    if len(parts) == 4 and 6 <= int(parts[0]) < 100 and len(parts[3]) <= 4:
        digits = (parts[2] + parts[3].zfill(4))[-5:]
        return (int(digits[:3]), int(digits[3:]))
    return tuple(int(p) for p in parts)


def _version(value: Any) -> Optional[Version]:
    """A PEP 440 version (legacydoc.versions has the one tolerant parser)."""
    return parse_version(_text(value) if not isinstance(value, float) else value)


def _spec(value: Any) -> Optional[SpecifierSet]:
    if not isinstance(value, str):
        return None
    try:
        return SpecifierSet(value)
    except InvalidSpecifier:
        return None


def _in_spec(version: Optional[Version], spec: Any) -> bool:
    parsed = _spec(spec)
    return version is not None and parsed is not None and parsed.contains(version, prereleases=True)


def _normalize_dist(name: Any) -> Optional[str]:
    text = _text(name)
    return re.sub(r"[-_.]+", "-", text).lower() if text else None


def _os(value: Any) -> Optional[str]:
    text = _text(value)
    if not text:
        return None
    text = text.lower()
    if text in ("linux", "linux2", "posix"):
        return "linux"
    if text in ("windows", "win32", "win", "nt", "cygwin"):
        return "windows"
    return None


_INF = 10**9


def _bound(text: Any, upper: bool) -> Optional[tuple[int, int, int]]:
    """'11.4' -> (11, 4, 0) as a lower bound, (11, 4, inf) as an upper one; '11.4.1' ->
    (11, 4, 1) (update index)."""
    if not isinstance(text, str):
        return None
    match = _CUDA_TEXT.match(text.strip())
    if not match:
        return None
    major, minor, third = match.groups()
    update = int(third) if third is not None else (_INF if upper else 0)
    return (int(major), int(minor), update)


def _in_bounds(key: tuple[int, int, int], row: Mapping[str, Any]) -> bool:
    low = _bound(row.get("from"), upper=False)
    high = _bound(row.get("to"), upper=True) if row.get("to") is not None else (_INF, _INF, _INF)
    return low is not None and high is not None and low <= key <= high


# --------------------------------------------------------------------------------------
# Lookups


class Knowledge:
    """Lookups over a set of loaded tables. ``default()`` wraps the built-in ones."""

    def __init__(self, loaded: Mapping[str, Table]) -> None:
        self._tables = dict(loaded)
        self._regex_cache: dict[str, list[tuple[re.Pattern[str], dict[str, Any]]]] = {}

    def table(self, name: str) -> Table:
        try:
            return self._tables[name]
        except KeyError:
            raise KnowledgeError("%s: no knowledge table '%s.toml'" % (knowledge_dir(), name)) from None

    def _rows(self, table: str, key: str) -> list[dict[str, Any]]:
        return self.table(table).rows(key)

    def _matchers(self, table: str, key: str) -> list[tuple[re.Pattern[str], dict[str, Any]]]:
        cache_key = table + "." + key
        if cache_key not in self._regex_cache:
            self._regex_cache[cache_key] = [
                (re.compile(row["pattern"], re.IGNORECASE), row) for row in self._rows(table, key)
            ]
        return self._regex_cache[cache_key]

    # ---- CUDA releases and drivers ----------------------------------------------------

    def _releases(self) -> list[dict[str, Any]]:
        return self._rows("cuda_driver", "release")

    def _resolve_cuda(self, value: Any) -> Optional[tuple[int, int, Optional[dict[str, Any]]]]:
        """(major, minor, release row or None when only major.minor is known)."""
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1000:
            return (value // 1000, (value // 10) % 10, None)  # cuDriverGetVersion encoding
        text = _text(value)
        if not text:
            return None
        match = _CUDA_TEXT.match(text)
        if not match:
            return None
        major, minor = int(match.group(1)), int(match.group(2))
        if match.group(3) is None:
            return (major, minor, None)
        third = int(match.group(3))
        same = [r for r in self._releases() if r.get("cuda") == "%d.%d" % (major, minor)]
        wanted = (major, minor, third)
        for row in same:
            for fname in ("nvcc", "release"):
                key = driver_key(row.get(fname))
                if key == wanted:
                    return (major, minor, row)
        # An nvcc build number we do not list: the latest release whose nvcc is not newer.
        below = [r for r in same if driver_key(r.get("nvcc")) and driver_key(r.get("nvcc")) <= wanted]
        if below:
            return (major, minor, max(below, key=lambda r: driver_key(r.get("nvcc"))))
        return (major, minor, None)

    def _cuda_key(self, value: Any) -> Optional[tuple[int, int, int]]:
        resolved = self._resolve_cuda(value)
        if resolved is None:
            return None
        major, minor, row = resolved
        update = row.get("update", 0) if row is not None else 0
        return (major, minor, update if isinstance(update, int) else 0)

    def cuda_release(self, cuda: Any) -> Optional[dict[str, Any]]:
        """The cuda_driver.toml row for a CUDA version: the exact release for a release id
        or nvcc V-number, the GA row for plain major.minor."""
        resolved = self._resolve_cuda(cuda)
        if resolved is None:
            return None
        major, minor, row = resolved
        if row is not None:
            return dict(row)
        same = [
            r for r in self._releases()
            if r.get("cuda") == "%d.%d" % (major, minor) and not r.get("prerelease")
        ]
        return dict(min(same, key=lambda r: r.get("update", 0))) if same else None

    def min_driver(self, cuda: Any, os: Any) -> Optional[str]:
        """Minimum driver NVIDIA lists for this CUDA release on ``os`` ('linux'/'windows').
        For plain major.minor the GA release's minimum. None if unknown or 'N/A'."""
        os_name = _os(os)
        row = self.cuda_release(cuda)
        if os_name is None or row is None:
            return None
        value = row.get(os_name)
        return value if isinstance(value, str) else None

    def driver_max_cuda(self, driver: Any, os: Any, minor_compat: bool = True) -> Optional[str]:
        """Newest CUDA (major.minor) whose minimum this driver meets. With ``minor_compat``
        (CUDA 11+), every release of a major whose compatibility floor the driver meets
        counts too. ``minor_compat=False`` gives the driver's native level (what
        nvidia-smi's 'CUDA Version' shows)."""
        os_name = _os(os)
        have = driver_key(driver)
        if os_name is None or have is None:
            return None
        best: Optional[tuple[int, int]] = None

        def consider(cuda: Any) -> None:
            nonlocal best
            bound = _bound(cuda, upper=False)
            if bound is not None and (best is None or bound[:2] > best):
                best = bound[:2]

        releases = [r for r in self._releases() if not r.get("prerelease")]
        for row in releases:
            need = driver_key(row.get(os_name))
            if need is not None and have >= need:
                consider(row.get("cuda"))
        if minor_compat:
            for compat in self._rows("cuda_driver", "minor_compat"):
                floor = driver_key(compat.get(os_name))
                if floor is not None and have >= floor:
                    for row in releases:
                        if str(row.get("cuda", "")).split(".")[0] == str(compat.get("major")):
                            consider(row.get("cuda"))
        return "%d.%d" % best if best else None

    # ---- GPUs ---------------------------------------------------------------------------

    def gpu_rule(self, gpu_name: Any) -> Optional[dict[str, Any]]:
        """The first gpu_compute_capability rule matching the name (has 'cc', maybe 'also')."""
        if not isinstance(gpu_name, str) or not gpu_name.strip():
            return None
        for pattern, row in self._matchers("gpu_compute_capability", "rule"):
            if pattern.search(gpu_name):
                return dict(row)
        return None

    def compute_capability(self, gpu_name: Any) -> Optional[str]:
        row = self.gpu_rule(gpu_name)
        return row["cc"] if row else None

    def gpu_peak_tflops(self, gpu_name: Any) -> Optional[float]:
        """Peak FP32 TFLOPS at reference boost clock, per device."""
        if not isinstance(gpu_name, str) or not gpu_name.strip():
            return None
        for pattern, row in self._matchers("gpu_peak", "gpu"):
            if pattern.search(gpu_name):
                return float(row["tflops"])
        return None

    def nvidia_smi_failure(self, output: Any, rc: Any = None) -> Optional[str]:
        """The failure-catalogue id whose message regex matches nvidia-smi's output; when
        no message matches, the catalogue entry whose exit code is rc (if only one has it)."""
        text = output if isinstance(output, str) else ""
        for row in self._rows("nvidia_smi", "failure"):
            if re.search(row["regex"], text):
                return str(row["id"])
        if isinstance(rc, int) and not isinstance(rc, bool):
            # Only exit codes seen with that message (not inferred ones) identify a failure.
            by_rc = [
                row
                for row in self._rows("nvidia_smi", "failure")
                if row.get("rc") == rc and row.get("rc_confidence", "U") != "U"
            ]
            if len(by_rc) == 1:
                return str(by_rc[0]["id"])
        return None

    def nvidia_smi_catalogue(self, failure_id: Any) -> Optional[dict[str, Any]]:
        for row in self._rows("nvidia_smi", "failure"):
            if row["id"] == failure_id:
                return dict(row)
        return None

    # ---- Architectures --------------------------------------------------------------------

    def arch_range(self, cuda: Any) -> Optional[tuple[int, int]]:
        """(lowest SM, highest SM) this toolkit can compile for, e.g. 10.2 -> (30, 75)."""
        key = self._cuda_key(cuda)
        if key is None:
            return None
        for row in self._rows("cuda_arch", "toolkit"):
            if _in_bounds(key, row):
                return (int(row["lowest_sm"]), int(row["highest_sm"]))
        return None

    def sm_supported(self, cuda: Any, sm: Any) -> Optional[bool]:
        """Can this toolkit compile for this SM (int 61, or '6.1' / 'sm_61')? None if unknown."""
        key = self._cuda_key(cuda)
        sm_number = _sm_number(sm)
        if key is None or sm_number is None:
            return None
        rows = [r for r in self._rows("cuda_arch", "sm") if r.get("sm") == sm_number and not r.get("variant")]
        if not rows:
            return None
        row = rows[0]
        return _in_bounds(key, {"from": row.get("first"), "to": row.get("last")})

    # ---- Host compilers ---------------------------------------------------------------------

    def _compiler_value(self, key: str, fname: str, cuda: Any) -> Optional[int]:
        ckey = self._cuda_key(cuda)
        if ckey is None:
            return None
        for row in self._rows("host_compilers", key):
            if _in_bounds(ckey, row):
                return int(row[fname])
        return None

    def max_gcc(self, cuda: Any) -> Optional[int]:
        """Newest GCC major nvcc of this CUDA accepts (10.2 -> 8)."""
        return self._compiler_value("gcc_max", "max", cuda)

    def min_gcc(self, cuda: Any) -> Optional[int]:
        return self._compiler_value("gcc_min", "min", cuda)

    def max_clang(self, cuda: Any) -> Optional[int]:
        return self._compiler_value("clang_max", "max", cuda)

    def msvc_row(self, cuda: Any) -> Optional[dict[str, Any]]:
        ckey = self._cuda_key(cuda)
        if ckey is None:
            return None
        for row in self._rows("host_compilers", "msvc"):
            if _in_bounds(ckey, row):
                return dict(row)
        return None

    def msvc_range(self, cuda: Any) -> Optional[tuple[int, int]]:
        """Accepted _MSC_VER range (inclusive), e.g. 11.2 -> (1910, 1929)."""
        row = self.msvc_row(cuda)
        return (int(row["msc_ver_min"]), int(row["msc_ver_max"])) if row else None

    def msc_ver_name(self, msc_ver: Any) -> Optional[str]:
        number = _int(msc_ver)
        if number is None:
            return None
        for row in self._rows("host_compilers", "msc_ver"):
            if row["from"] <= number <= row["to"]:
                return str(row["visual_studio"])
        return None

    def stl1002_requires(self, msc_ver: Any) -> Optional[str]:
        """The oldest CUDA the STL of this MSVC accepts (STL1002), or None if no such check
        is known for it. '10.1.2' means 10.1 Update 2."""
        number = _int(msc_ver)
        if number is None:
            return None
        best = None
        for row in self._rows("host_compilers", "stl1002"):
            if row["msc_ver_from"] <= number and (best is None or row["msc_ver_from"] > best["msc_ver_from"]):
                best = row
        return str(best["requires_cuda"]) if best else None

    # ---- cuDNN ---------------------------------------------------------------------------

    def cudnn_version_from_macro(self, value: Any) -> Optional[str]:
        """CUDNN_VERSION / cudnnGetVersion() -> 'major.minor.patch' (7605 -> '7.6.5',
        90300 -> '9.3.0')."""
        number = _int(value)
        if number is None or number <= 0:
            return None
        macros = sorted(self._rows("cudnn", "macro"), key=lambda r: -r["major_factor"])
        for row in macros:
            major_factor, minor_factor = row["major_factor"], row["minor_factor"]
            major = number // major_factor
            if row["major_from"] <= major <= row["major_to"]:
                rest = number % major_factor
                return "%d.%d.%d" % (major, rest // minor_factor, rest % minor_factor)
        return None

    def cudnn_cuda_builds(self, cudnn_version: Any) -> list[str]:
        """CUDA versions NVIDIA built (or lists support for) this cuDNN release. Accepts
        '7.6.5' or the macro form 7605 / '90300'. Empty list when unknown."""
        text = _text(cudnn_version)
        if text and _digits(text) and int(text) >= 1000:
            text = self.cudnn_version_from_macro(int(text))
        version = _version(text) if text else None
        if version is None:
            return []
        for row in self._rows("cudnn", "build"):
            low, high = _version(row["from"]), _version(row["to"])
            if low is not None and high is not None and low <= version <= high:
                return list(row["cuda"])
        return []

    # ---- Theano -------------------------------------------------------------------------------

    def theano_release(self, dist: Any, version: Any) -> Optional[dict[str, Any]]:
        """The theano_releases row for this distribution ('Theano', 'Theano-PyMC', any
        spelling) and version, plus 'failures': the ids of known failures for it (whatever
        Python/numpy). None if unknown."""
        wanted, parsed = _normalize_dist(dist), _version(version)
        if wanted is None or parsed is None:
            return None
        for row in self._rows("theano_releases", "release"):
            if _normalize_dist(row["dist"]) != wanted:
                continue
            if _version(row["from"]) <= parsed <= _version(row["to"]):
                result = dict(row)
                result["failures"] = [f["id"] for f in self._failures_for(wanted, parsed)]
                return result
        return None

    def _failures_for(self, dist: str, version: Version) -> list[dict[str, Any]]:
        found = []
        for row in self._rows("theano_releases", "failure"):
            dists = {_normalize_dist(d) for d in row["dists"]}
            if dist in dists and _in_spec(version, row["applies"]):
                found.append(dict(row))
        return found

    def theano_failures(
        self,
        dist: Any,
        version: Any,
        python: Any = None,
        numpy: Any = None,
        cudnn_macro: Any = None,
    ) -> list[dict[str, Any]]:
        """Known failures that fire for this dist/version given the other versions. A
        failure conditioned on python/numpy/cudnn_macro only fires when that value is given
        and inside its specifier."""
        wanted, parsed = _normalize_dist(dist), _version(version)
        if wanted is None or parsed is None:
            return []
        given = {"python": _version(python), "numpy": _version(numpy), "cudnn_macro": _version(cudnn_macro)}
        result = []
        for row in self._failures_for(wanted, parsed):
            if all(cond not in row or _in_spec(value, row[cond]) for cond, value in given.items()):
                result.append(row)
        return result


def _digits(text: Optional[str]) -> bool:
    return bool(text) and text.isascii() and text.isdigit()


def _int(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = _text(value)
    return int(text) if text and _digits(text) else None


def _sm_number(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = _text(value)
    if not text:
        return None
    text = text.lower()
    if text.startswith(("sm_", "compute_")):
        text = text.split("_", 1)[1]
    if _CC_RE.match(text):
        major, minor = text.split(".")
        return int(major) * 10 + int(minor)
    return int(text) if _digits(text) else None


# --------------------------------------------------------------------------------------
# Module-level conveniences over the built-in tables


def min_driver(cuda: Any, os: Any) -> Optional[str]:
    return default().min_driver(cuda, os)


def driver_max_cuda(driver: Any, os: Any, minor_compat: bool = True) -> Optional[str]:
    return default().driver_max_cuda(driver, os, minor_compat=minor_compat)


def cuda_release(cuda: Any) -> Optional[dict[str, Any]]:
    return default().cuda_release(cuda)


def compute_capability(gpu_name: Any) -> Optional[str]:
    return default().compute_capability(gpu_name)


def gpu_rule(gpu_name: Any) -> Optional[dict[str, Any]]:
    return default().gpu_rule(gpu_name)


def arch_range(cuda: Any) -> Optional[tuple[int, int]]:
    return default().arch_range(cuda)


def sm_supported(cuda: Any, sm: Any) -> Optional[bool]:
    return default().sm_supported(cuda, sm)


def max_gcc(cuda: Any) -> Optional[int]:
    return default().max_gcc(cuda)


def min_gcc(cuda: Any) -> Optional[int]:
    return default().min_gcc(cuda)


def max_clang(cuda: Any) -> Optional[int]:
    return default().max_clang(cuda)


def msvc_range(cuda: Any) -> Optional[tuple[int, int]]:
    return default().msvc_range(cuda)


def msc_ver_name(msc_ver: Any) -> Optional[str]:
    return default().msc_ver_name(msc_ver)


def stl1002_requires(msc_ver: Any) -> Optional[str]:
    return default().stl1002_requires(msc_ver)


def cudnn_cuda_builds(cudnn_version: Any) -> list[str]:
    return default().cudnn_cuda_builds(cudnn_version)


def cudnn_version_from_macro(value: Any) -> Optional[str]:
    return default().cudnn_version_from_macro(value)


def theano_release(dist: Any, version: Any) -> Optional[dict[str, Any]]:
    return default().theano_release(dist, version)


def theano_failures(
    dist: Any, version: Any, python: Any = None, numpy: Any = None, cudnn_macro: Any = None
) -> list[dict[str, Any]]:
    return default().theano_failures(dist, version, python=python, numpy=numpy, cudnn_macro=cudnn_macro)


def gpu_peak_tflops(gpu_name: Any) -> Optional[float]:
    return default().gpu_peak_tflops(gpu_name)


def nvidia_smi_failure(output: Any, rc: Any = None) -> Optional[str]:
    return default().nvidia_smi_failure(output, rc)


def nvidia_smi_catalogue(failure_id: Any) -> Optional[dict[str, Any]]:
    return default().nvidia_smi_catalogue(failure_id)
