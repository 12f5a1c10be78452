"""cuDNN: which headers and libraries are on disk, and what Theano was told about them.

Theano compiles against ``cudnn.h`` from ``dnn.include_path`` (default: the CUDA
toolkit's include dir) and loads the library from ``dnn.library_path`` /
``dnn.bin_path``; a header of one version next to a library of another is the classic
"Mixed dnn version" failure. So this probe lists every cuDNN header (with the version
its macros say) and every cuDNN library file (with the major its name says) in all the
places Theano or the loader might look. It reads files only and starts no process.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import Any, Optional

from legacydoc.probes import cuda
from legacydoc.probes.context import ProbeContext

DNN_KEYS = ("dnn.base_path", "dnn.include_path", "dnn.library_path", "dnn.bin_path")
ENV_NAMES = ("CUDNN_PATH", "CUDNN_HOME", "CUDNN_ROOT")
# cudnn.h, cudnn_version.h, and the distro-package spellings cudnn_v8.h / cudnn_version_v9.h
HEADER_RE = re.compile(r"^cudnn(?:_version)?(?:_v\d+)?\.h$", re.IGNORECASE)
MAX_LIBRARIES = 200  # a bounded fact list, even for a directory full of copies
_SYSTEM_INCLUDE = ("/usr/include", "/usr/include/x86_64-linux-gnu")
_SYSTEM_LIB = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")


# --------------------------------------------------------------------------------------
# Pure parsers
# --------------------------------------------------------------------------------------
def _define_re(name: str) -> "re.Pattern[str]":
    # "#define CUDNN_MAJOR 7", "#  define CUDNN_MAJOR (8)", trailing comments allowed
    return re.compile(r"^[ \t]*#[ \t]*define[ \t]+%s[ \t]+\(?[ \t]*(\d+)[ \t]*\)?" % name, re.MULTILINE)


_MAJOR_RE = _define_re("CUDNN_MAJOR")
_MINOR_RE = _define_re("CUDNN_MINOR")
_PATCH_RE = _define_re("CUDNN_PATCHLEVEL")
_VERSION_LITERAL_RE = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+CUDNN_VERSION[ \t]+\(?[ \t]*(\d+)[ \t]*\)?[ \t]*(?:$|//|/\*)", re.MULTILINE)
_INCLUDES_VERSION_RE = re.compile(r"^[ \t]*#[ \t]*include[ \t]+[\"<]cudnn_version(?:_v\d+)?\.h[\">]", re.MULTILINE)


def encoded_version(major: int, minor: int, patch: int) -> int:
    """What CUDNN_VERSION / cudnnGetVersion() give: x1000 up to 8.x, x10000 from 9.0."""
    if major >= 9:
        return major * 10000 + minor * 100 + patch
    return major * 1000 + minor * 100 + patch


def parse_cudnn_header(text: str) -> dict[str, Any]:
    """cudnn.h / cudnn_version.h text -> {major, minor, patch, version "7.6.5",
    version_number 7605, includes_version_header}. Keys absent when not seen; the three
    defines are parsed separately (never derived from CUDNN_VERSION). Never raises."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        if not isinstance(text, str):
            return {}
        out: dict[str, Any] = {}
        for key, pattern in (("major", _MAJOR_RE), ("minor", _MINOR_RE), ("patch", _PATCH_RE)):
            match = pattern.search(text)
            if match:
                out[key] = int(match.group(1))
        if all(k in out for k in ("major", "minor", "patch")):
            out["version"] = "%d.%d.%d" % (out["major"], out["minor"], out["patch"])
            out["version_number"] = encoded_version(out["major"], out["minor"], out["patch"])
        literal = _VERSION_LITERAL_RE.search(text)
        if literal:
            out["version_number"] = int(literal.group(1))  # what the header really says
        if _INCLUDES_VERSION_RE.search(text):
            out["includes_version_header"] = True  # cuDNN 8+: the version lives next door
        return out
    except Exception:
        return {}


_WIN_DLL_RE = re.compile(r"^cudnn(?:_(?P<part>[a-z_]+?))?64_(?P<num>\d+)\.dll$", re.IGNORECASE)
_WIN_LIB_RE = re.compile(r"^cudnn(?:_(?P<part>[a-z_]+))?\.lib$", re.IGNORECASE)
_SO_RE = re.compile(r"^libcudnn(?:_(?P<part>[a-z_]+?))?\.so(?:\.(?P<ver>\d+(?:\.\d+)*))?$")


def parse_library_name(name: str) -> Optional[dict[str, Any]]:
    """A cuDNN library file name -> {kind, major?, version?, part?}; None if it is not one.

    kind: "dll" (cudnn64_7.dll, cudnn_ops_infer64_8.dll), "import_lib" (cudnn.lib, what
    MSVC links against), "so" (libcudnn.so.7.6.5, libcudnn_ops.so.9). ``major`` is what the
    name implies; the pre-v4 libraries named after the CUDA version (cudnn64_65.dll,
    cudnn64_70.dll, libcudnn.so.6.5.48, libcudnn.so.7.0.64) get ``name_number`` instead, as
    that number is not a cuDNN major.
    """
    try:
        match = _WIN_DLL_RE.match(name)
        if match:
            out: dict[str, Any] = {"kind": "dll"}
            number = int(match.group("num"))
            if number < 50:
                out["major"] = number
            else:
                out["name_number"] = number
            if match.group("part"):
                out["part"] = match.group("part").lower()
            return out
        match = _WIN_LIB_RE.match(name)
        if match:
            out = {"kind": "import_lib"}
            if match.group("part"):
                out["part"] = match.group("part").lower()
            return out
        match = _SO_RE.match(name)
        if match:
            out = {"kind": "so"}
            if match.group("part"):
                out["part"] = match.group("part")
            version = match.group("ver")
            parts = version.split(".") if version else []
            if parts[:2] == ["6", "5"] or (parts[:2] == ["7", "0"] and (len(parts) == 2 or int(parts[2]) >= 58)):
                # cuDNN v1-v3 were named after their CUDA release (libcudnn.so.6.5.48 is
                # v2, libcudnn.so.7.0.64 v3), like cudnn64_65.dll: not a cuDNN version
                out["name_number"] = int(parts[0] + parts[1])
            elif parts:
                out["major"] = int(parts[0])
                if len(parts) >= 3:
                    out["version"] = version
            return out
    except Exception:
        pass
    return None


# --------------------------------------------------------------------------------------
# Where to look
# --------------------------------------------------------------------------------------
def cudnn_env(ctx: ProbeContext) -> dict[str, str]:
    out = {}
    for name in ENV_NAMES:
        value = ctx.env(name)
        if value:
            out[name] = value
    return out


def search_dirs(
    ctx: ProbeContext,
    toolkits: Sequence[dict[str, Any]],
    settings: dict[str, dict[str, str]],
    sysroot: Optional[str] = None,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(include dirs, library dirs) as (source, dir) pairs, Theano's settings first
    since those are what Theano compiles and loads with."""
    pm = ctx.pathmod
    inc: list[tuple[str, str]] = []
    lib: list[tuple[str, str]] = []

    def lib_layout(source: str, base: str) -> None:
        for parts in (("lib64",), ("lib",), ("lib", "x64"), ("bin",)):
            lib.append((source, pm.join(base, *parts)))

    def value(key: str) -> str:
        return settings.get(key, {}).get("value", "").strip()

    if value("dnn.include_path"):
        inc.append(("theano:dnn.include_path", value("dnn.include_path")))
    if value("dnn.library_path"):
        lib.append(("theano:dnn.library_path", value("dnn.library_path")))
    if value("dnn.bin_path"):
        lib.append(("theano:dnn.bin_path", value("dnn.bin_path")))
    if value("dnn.base_path"):
        inc.append(("theano:dnn.base_path", pm.join(value("dnn.base_path"), "include")))
        lib_layout("theano:dnn.base_path", value("dnn.base_path"))
    for toolkit in toolkits:
        if not toolkit.get("exists"):
            continue
        source = "toolkit:" + toolkit["root"]
        inc.append((source, pm.join(toolkit["root"], "include")))
        lib.append((source, pm.join(toolkit["root"], "bin")))
        lib.append((source, pm.join(toolkit["root"], "bin", "x64")))  # CUDA 13 on Windows
        lib.extend((source, d) for d in toolkit.get("lib_dirs", []))
    for name, base in cudnn_env(ctx).items():
        inc.append((name, pm.join(base, "include")))
        lib_layout(name, base)
    conda = ctx.env("CONDA_PREFIX")
    if conda:
        # conda's cudnn package: <env>/include + <env>/lib, or <env>\Library\... on Windows
        base = pm.join(conda, "Library") if ctx.is_windows else conda
        inc.append(("CONDA_PREFIX", pm.join(base, "include")))
        lib.append(("CONDA_PREFIX", pm.join(base, "bin" if ctx.is_windows else "lib")))
    if ctx.family == "linux":
        inc.extend(("system", cuda._sys_path(ctx, sysroot, d)) for d in _SYSTEM_INCLUDE)
        lib.extend(("system", cuda._sys_path(ctx, sysroot, d)) for d in _SYSTEM_LIB)
    return inc, lib


# --------------------------------------------------------------------------------------
# Scanning
# --------------------------------------------------------------------------------------
def _merge_dirs(ctx: ProbeContext, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """Distinct existing directories with every source that named them."""
    out: dict[str, tuple[str, list[str]]] = {}
    realpath = cuda._realpath_for(ctx)
    for source, raw in pairs:
        path = cuda.normalise_path(raw, ctx.pathmod)
        if not path or not cuda._isdir(path):
            continue
        key = cuda.root_key(realpath(path) if realpath else path, ctx.pathmod, ctx.is_windows)
        if key not in out:
            out[key] = (path, [])
        if source not in out[key][1]:
            out[key][1].append(source)
    return list(out.values())


def _file_entry(ctx: ProbeContext, path: str, found_by: list[str]) -> dict[str, Any]:
    """{path, link_target?, found_by}. Each file name in each distinct directory is its own
    entry (libcudnn.so, .so.7 and .so.7.6.5 all matter to a loader); the directories were
    already merged by real path, so nothing is listed twice."""
    entry: dict[str, Any] = {"path": path}
    realpath = cuda._realpath_for(ctx)
    if realpath is not None and os.path.islink(path):
        try:
            entry["link_target"] = realpath(path)
        except (OSError, ValueError):
            pass
    entry["found_by"] = list(found_by)
    return entry


def find_headers(ctx: ProbeContext, dirs: Sequence[tuple[str, list[str]]]) -> list[dict[str, Any]]:
    headers: list[dict[str, Any]] = []
    for directory, sources in dirs:
        for name in sorted(cuda._listdir(directory)):
            if not HEADER_RE.match(name):
                continue
            path = ctx.pathmod.join(directory, name)
            entry = _file_entry(ctx, path, sources)
            entry["header"] = name
            if not cuda._isfile(path):
                if "link_target" in entry:  # dangling alternatives symlink: worth reporting
                    entry["exists"] = False
                    headers.append(entry)
                continue
            text = cuda._read_text(path)
            if text is None:
                entry["readable"] = False
            else:
                entry.update(parse_cudnn_header(text))
            headers.append(entry)
    return headers


def find_libraries(ctx: ProbeContext, dirs: Sequence[tuple[str, list[str]]]) -> list[dict[str, Any]]:
    libraries: list[dict[str, Any]] = []
    for directory, sources in dirs:
        for name in sorted(cuda._listdir(directory)):
            if len(libraries) >= MAX_LIBRARIES:
                return libraries
            parsed = parse_library_name(name)
            if parsed is None:
                continue
            path = ctx.pathmod.join(directory, name)
            entry = _file_entry(ctx, path, sources)
            entry["name"] = name
            entry.update(parsed)
            if "link_target" in entry:
                # libcudnn.so -> libcudnn.so.7.6.5: the target's name tells the major
                target = parse_library_name(ctx.pathmod.basename(entry["link_target"])) or {}
                for key in ("major", "version"):
                    if key not in entry and key in target:
                        entry[key] = target[key]
            if not os.path.exists(entry.get("link_target", path)):
                entry["exists"] = False  # dangling symlink
            libraries.append(entry)
    return libraries


def dnn_settings_fact(settings: dict[str, dict[str, str]]) -> dict[str, Any]:
    """{include_path: ..., source: {include_path: <file or THEANO_FLAGS>}, typed?: {...}}
    for what is set; values are what Theano itself would use."""
    fact: dict[str, Any] = {}
    sources: dict[str, str] = {}
    typed: dict[str, str] = {}
    for key in DNN_KEYS:
        if key in settings:
            short = key.split(".", 1)[1]
            fact[short] = settings[key]["value"]
            sources[short] = settings[key]["source"]
            if "typed" in settings[key]:
                typed[short] = settings[key]["typed"]
    if sources:
        fact["source"] = sources
    if typed:
        fact["typed"] = typed  # THEANO_FLAGS text that Theano's shlex parsing altered
    return fact


def collect(ctx: ProbeContext, sysroot: Optional[str] = None) -> dict[str, Any]:
    settings = cuda.read_theano_settings(ctx, ("cuda.root",) + DNN_KEYS)
    # discover_toolkits only looks at the disk: no nvcc is started from this probe
    toolkits = cuda.discover_toolkits(ctx, sysroot, theano=settings)
    inc_pairs, lib_pairs = search_dirs(ctx, toolkits, settings, sysroot)
    inc_dirs = _merge_dirs(ctx, inc_pairs)
    lib_dirs = _merge_dirs(ctx, lib_pairs)
    facts: dict[str, Any] = {
        "headers": find_headers(ctx, inc_dirs),
        "libraries": find_libraries(ctx, lib_dirs),
        "dnn_settings": dnn_settings_fact(settings),
        "include_dirs_searched": [d for d, _ in inc_dirs],
        "library_dirs_searched": [d for d, _ in lib_dirs],
    }
    env = cudnn_env(ctx)
    if env:
        facts["env"] = env
    return facts
