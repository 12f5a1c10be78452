"""What CUDA / cuDNN / driver library file names say, and which names libgpuarray asks for.

Pure data and pure functions, no filesystem access: the ``path`` and ``libraries``
probes (and the rules) use them to turn a directory listing into facts such as
"``cublas64_10.dll`` belongs to CUDA 10.1 or 10.2".

Every data table below has a ``*_SOURCE`` string naming where its facts come from
(a section of docs/knowledge/nvidia.md, which gives the primary sources' addresses).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Optional, Union

# --------------------------------------------------------------------------------------
# CUDA releases we know of. Used to spell out what a family name such as "11.x" covers,
# so a directory holding several libraries can be narrowed to one release.
KNOWN_CUDA_SOURCE = (
    "docs/knowledge/nvidia.md §1a (NVIDIA CUDA Toolkit Release Notes, Table 3) and §4a "
    "(NVIDIA cuDNN 9.x support matrices: CUDA 12.0-12.9, 13.0-13.1)"
)
KNOWN_CUDA: tuple[str, ...] = (
    "6.5", "7.0", "7.5", "8.0", "9.0", "9.1", "9.2", "10.0", "10.1", "10.2",
    "11.0", "11.1", "11.2", "11.3", "11.4", "11.5", "11.6", "11.7", "11.8",
    "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9",
    "13.0", "13.1",
)  # fmt: skip

# Library kinds reported in the facts. cublasLt is kind "cublas" (component "Lt"),
# nvrtc-builtins kind "nvrtc" (component "builtins"), cuDNN 8/9 sub-libraries kind
# "cudnn" with their component ("ops_infer", "graph", ...). ptxjit: the Linux driver's PTX
# JIT compiler (libnvidia-ptxjitcompiler.so.1), which libcuda loads to turn PTX into GPU
# code; distributions package it apart from libcuda.
KINDS: tuple[str, ...] = ("cudart", "cublas", "nvrtc", "cudnn", "libcuda", "nvml", "ptxjit")
# What each platform's names can show (Windows drivers install their JIT beside nvcuda.dll).
KINDS_BY_OS: dict[str, tuple[str, ...]] = {
    "linux": KINDS,
    "darwin": tuple(k for k in KINDS if k != "ptxjit"),
    "windows": tuple(k for k in KINDS if k != "ptxjit"),
}
# The name libcuda asks the loader for (the soname link to libnvidia-ptxjitcompiler.so.<driver>).
PTXJIT_SONAME = "libnvidia-ptxjitcompiler.so.1"

# --------------------------------------------------------------------------------------
# Windows names NVIDIA's installers actually ship (so a name outside this set, e.g.
# nvrtc64_100.dll, is a renamed copy or only what some loader asks for).
WINDOWS_SHIPPED_SOURCE = (
    "docs/knowledge/nvidia.md §5a: 11.0-13.0 names from NVIDIA/cuda-python cuda_pathfinder "
    "supported_nvidia_libs.py (commit 076d7b42c39e); 8.0-10.2 cuBLAS/NVRTC names from public DLL "
    "listings (addresses not kept) [C]; 6.5-7.5 names by the same convention [U]"
)
WINDOWS_SHIPPED: frozenset[str] = frozenset(
    ["cudart64_%s.dll" % t for t in ("65", "70", "75", "80", "90", "91", "92", "100", "101", "102", "110", "12", "13")]
    + ["cudart32_%s.dll" % t for t in ("65", "70", "75", "80", "90", "91", "92")]
    + ["cublas64_%s.dll" % t for t in ("65", "70", "75", "80", "90", "91", "92", "100", "10", "11", "12", "13")]
    + ["cublaslt64_%s.dll" % t for t in ("10", "11", "12", "13")]
    + ["nvrtc64_%s.dll" % t for t in ("70", "75", "80", "90", "91", "92")]
    + ["nvrtc64_%s_0.dll" % t for t in ("100", "101", "102", "110", "111", "112", "120", "130")]
)

# --------------------------------------------------------------------------------------
# cuDNN: the major version is in the file name, the CUDA it was built for is not.
CUDNN_SOURCE = (
    "docs/knowledge/nvidia.md §4b: cuDNN 8 sub-libraries (NVIDIA cuDNN 8.0.0 Preview release notes), "
    "cuDNN 9 sub-libraries (NVIDIA cuDNN 9 API overview, Arch Linux cudnn 9.11.0 file list), "
    "cudnn64_5/6/7 convention (public TensorFlow logs) [C]; pre-v5 names [U]"
)
# Pre-v5 Windows names did not carry the cuDNN major: cudnn64_65.dll was v2 (built for
# CUDA 6.5) and cudnn64_70.dll v3 (CUDA 7.0) [U, see docs/knowledge/nvidia.md §4b].
CUDNN_OLD_WINDOWS_TAGS: dict[str, str] = {"65": "2", "70": "3"}

# --------------------------------------------------------------------------------------
# libgpuarray (the GPU back end of Theano's "gpuarray"/pygpu) loader behaviour.
LIBGPUARRAY_SOURCE = (
    "docs/knowledge/nvidia.md §8: Theano/libgpuarray master 9cec614 src/loaders/libnvrtc.c "
    "(nvrtc64_%d%d.dll / libnvrtc.so), src/loaders/libcublas.c (cublas64_%d%d.dll / libcublas.so), "
    "src/loaders/libcuda.c (nvcuda.dll / libcuda.so), src/gpuarray_buffer_cuda.c setup_lib() "
    "(driver version from cuDriverGetVersion, then the fallback list, skipping versions >= the driver's)"
)
# The list in the last *released* libgpuarray (v0.7.6, tag f036aef, 2018-04-23). The
# longer list with 10.0 and 9.2 (commit 450e6c0) is only on untagged master, which no
# pygpu package ships; rules/knowledge/cuda_libnames.toml keeps the list per release.
LIBGPUARRAY_FALLBACK: tuple[tuple[int, int], ...] = ((9, 1), (9, 0), (8, 0), (7, 5), (7, 0))
LIBGPUARRAY_LINUX_NAMES: dict[str, str] = {"libcuda": "libcuda.so", "nvrtc": "libnvrtc.so", "cublas": "libcublas.so"}
LIBGPUARRAY_WINDOWS_PATTERNS: dict[str, str] = {
    "libcuda": "nvcuda.dll",
    "nvrtc": "nvrtc64_<major><minor>.dll",
    "cublas": "cublas64_<major><minor>.dll",
}

LINUX_SONAME_SOURCE = (
    "docs/knowledge/nvidia.md §5b: 11.x-13.x sonames from NVIDIA/cuda-python cuda_pathfinder "
    "supported_nvidia_libs.py (commit 076d7b42c39e); pre-11 pattern [U]; driver libraries "
    "libcuda.so.1 / libnvidia-ml.so.1 and Windows nvcuda.dll / nvml.dll (NVIDIA NVML API Reference)"
)

# --------------------------------------------------------------------------------------
# Version sets and how to show them.

Version = tuple[int, int]


def _v(text: str) -> Version:
    major, minor = text.split(".")
    return int(major), int(minor)


def _s(version: Version) -> str:
    return "%d.%d" % version


_KNOWN: tuple[Version, ...] = tuple(_v(t) for t in KNOWN_CUDA)


def family(major: int) -> frozenset[Version]:
    """Every known release of one CUDA major (what a name like libcudart.so.11.0 covers)."""
    found = frozenset(v for v in _KNOWN if v[0] == major)
    # A major newer than our table still deserves a non-empty set.
    return found or frozenset([(major, 0)])


def version_range(low: Version, high: Version) -> frozenset[Version]:
    return frozenset(v for v in _KNOWN if low <= v <= high) or frozenset([low])


def describe_versions(versions: Iterable[Version]) -> str:
    """'10.2', '11.x' (a whole major), '10.1/10.2', '11.2-11.8' (a contiguous run)."""
    ordered = sorted(set(versions))
    if not ordered:
        return ""
    if len(ordered) == 1:
        return _s(ordered[0])
    majors = {v[0] for v in ordered}
    if len(majors) == 1:
        major = ordered[0][0]
        if set(ordered) == set(family(major)) and len(family(major)) > 1:
            return "%d.x" % major
    if len(ordered) == 2:
        return "/".join(_s(v) for v in ordered)
    known = [v for v in _KNOWN if ordered[0] <= v <= ordered[-1]]
    if known == ordered:
        return "%s-%s" % (_s(ordered[0]), _s(ordered[-1]))
    return "/".join(_s(v) for v in ordered)


# --------------------------------------------------------------------------------------
# File name -> kind and version.

_WIN_CUDART = re.compile(r"^cudart(32|64)_(\d+)\.dll$")
_WIN_CUBLAS = re.compile(r"^cublas(lt)?(32|64)_(\d+)\.dll$")
_WIN_NVRTC = re.compile(r"^nvrtc(-builtins)?64_(\d+)(_0)?\.dll$")
_WIN_CUDNN = re.compile(r"^cudnn(?:_([a-z_]+?))?64_(\d+)\.dll$")
_WIN_DRIVER = {"nvcuda.dll": "libcuda", "nvml.dll": "nvml"}

# lib<name>.so[.<version>] (Linux) and lib<name>[.<version>].dylib (macOS).
_POSIX_STEM = r"(cudart|cublasLt|cublas|nvrtc-builtins|nvrtc|cudnn(?:_[a-z_]+)?|cuda|nvidia-ml|nvidia-ptxjitcompiler)"
_LINUX_LIB = re.compile(r"^lib" + _POSIX_STEM + r"\.so((?:\.\d+)*)$")
_MAC_LIB = re.compile(r"^lib" + _POSIX_STEM + r"((?:\.\d+)*)\.dylib$")


def _windows_tag(tag: str) -> tuple[int, Optional[int]]:
    """The digits in a Windows CUDA DLL name: '102' -> (10, 2), '92' -> (9, 2),
    '10' -> (10, None) (major only, as in cublas64_10.dll / cudart64_12.dll)."""
    if len(tag) >= 3:
        return int(tag[:-1]), int(tag[-1])
    value = int(tag)
    if len(tag) == 2 and value >= 60:  # 65, 70, 75, 80, 90..92: major and minor digits
        return int(tag[0]), int(tag[1])
    return value, None


def _cudart_versions(major: int, minor: Optional[int], exact_file: bool) -> frozenset[Version]:
    if minor is None:
        return family(major)
    # From 11 on the soname / DLL tag stays at <major>.0 for the whole major; a real file
    # name with a patch number (libcudart.so.11.8.89) is exact.
    if major >= 11 and minor == 0 and not exact_file:
        return family(major)
    return frozenset([(major, minor)])


def _cublas_versions(major: int, minor: Optional[int], exact_file: bool, windows: bool) -> frozenset[Version]:
    if major <= 9 or (major == 10 and minor == 0):
        return frozenset([(major, minor or 0)])
    if major == 10:
        # 10.1 and 10.2 ship cublas64_10.dll / libcublas.so.10; the library's own version
        # (10.1.0.105, 10.2.1.243, 10.2.2.89) does not follow the toolkit's minor.
        if windows and minor is not None:
            return frozenset([(10, minor)])  # cublas64_101.dll: not a shipped name
        return frozenset([(10, 1), (10, 2)])
    return family(major)


def _nvrtc_versions(major: int, minor: Optional[int], exact_file: bool) -> frozenset[Version]:
    if minor is None:
        return family(major)
    if exact_file or major <= 10 or (major == 11 and minor <= 1):
        return frozenset([(major, minor)])
    if major == 11 and minor == 2:
        return version_range((11, 2), (11, 8))  # 11.2-11.8 all ship nvrtc 11.2 names
    if major >= 12 and minor == 0:
        return family(major)
    return frozenset([(major, minor)])


def _with_versions(info: dict[str, Any], versions: frozenset[Version]) -> dict[str, Any]:
    info["cuda"] = describe_versions(versions)
    info["cuda_versions"] = [_s(v) for v in sorted(versions)]
    return info


def _windows_info(filename: str) -> Optional[dict[str, Any]]:
    name = filename.lower()  # Windows file names are case-insensitive
    if name in _WIN_DRIVER:
        return {"kind": _WIN_DRIVER[name], "versioned": False}
    m = _WIN_CUDART.match(name)
    if m:
        major, minor = _windows_tag(m.group(2))
        info = {"kind": "cudart", "versioned": True, "shipped_name": name in WINDOWS_SHIPPED}
        if m.group(1) == "32":
            info["bits"] = 32
        return _with_versions(info, _cudart_versions(major, minor, False))
    m = _WIN_CUBLAS.match(name)
    if m:
        major, minor = _windows_tag(m.group(3))
        info = {"kind": "cublas", "versioned": True, "shipped_name": name in WINDOWS_SHIPPED}
        if m.group(1):
            info["component"] = "Lt"
        if m.group(2) == "32":
            info["bits"] = 32
        return _with_versions(info, _cublas_versions(major, minor, False, True))
    m = _WIN_NVRTC.match(name)
    if m:
        builtins, tag, suffix = m.group(1), m.group(2), m.group(3)
        major, minor = _windows_tag(tag)
        info = {"kind": "nvrtc", "versioned": True}
        if builtins:
            # nvrtc-builtins carries the exact minor (nvrtc-builtins64_118.dll in 11.8).
            info["component"] = "builtins"
            versions = frozenset([(major, minor)]) if minor is not None else family(major)
            return _with_versions(info, versions)
        info["shipped_name"] = name in WINDOWS_SHIPPED
        # The "_0" names (10.0 on) are the shipped ones; the bare nvrtc64_100.dll /
        # nvrtc64_112.dll form is what libgpuarray asks for, i.e. a renamed copy if present.
        return _with_versions(info, _nvrtc_versions(major, minor, False) if suffix else frozenset(
            [(major, minor if minor is not None else 0)]
        ))
    m = _WIN_CUDNN.match(name)
    if m:
        component, tag = m.group(1), m.group(2)
        info = {"kind": "cudnn", "versioned": True}
        if component:
            info["component"] = component
        if len(tag) == 1:
            info["cudnn"] = tag
        elif tag in CUDNN_OLD_WINDOWS_TAGS:
            info["cudnn"] = CUDNN_OLD_WINDOWS_TAGS[tag]
            info["cuda"] = "%s.%s" % (tag[0], tag[1])  # v2/v3 names carried the CUDA version
        else:
            info["cudnn"] = tag
        return info
    return None


def _posix_info(filename: str, mac: bool) -> Optional[dict[str, Any]]:
    m = (_MAC_LIB if mac else _LINUX_LIB).match(filename)
    if not m:
        return None
    stem, suffix = m.group(1), m.group(2)
    parts = [int(p) for p in suffix.split(".") if p]
    info: dict[str, Any] = {"versioned": bool(parts)}
    if parts:
        info["so_version"] = suffix.lstrip(".")  # as written: "535.104.05" keeps its zero
    if stem in ("cuda", "nvidia-ml", "nvidia-ptxjitcompiler"):
        info["kind"] = {"cuda": "libcuda", "nvidia-ml": "nvml"}.get(stem, "ptxjit")
        if len(parts) >= 2:  # libcuda.so.535.104.05: the real file carries the driver version
            info["driver_version"] = suffix.lstrip(".")
        return info
    if stem.startswith("cudnn"):
        info["kind"] = "cudnn"
        if stem != "cudnn":
            info["component"] = stem[len("cudnn_"):]
        if parts:
            info["cudnn"] = str(parts[0])
        return info
    kind = {"cudart": "cudart", "cublas": "cublas", "cublasLt": "cublas"}.get(stem, "nvrtc")
    info["kind"] = kind
    if stem == "cublasLt":
        info["component"] = "Lt"
    if stem == "nvrtc-builtins":
        info["component"] = "builtins"
    if not parts:
        return info  # the unversioned dev symlink: no version in the name
    major = parts[0]
    minor = parts[1] if len(parts) >= 2 else None
    exact_file = len(parts) >= 3  # a real file (libcudart.so.10.2.89), not a soname
    if kind == "cudart":
        versions = _cudart_versions(major, minor, exact_file)
    elif kind == "cublas":
        versions = _cublas_versions(major, minor, exact_file, False)
    elif stem == "nvrtc-builtins":
        versions = frozenset([(major, minor)]) if minor is not None else family(major)
    else:
        versions = _nvrtc_versions(major, minor, exact_file)
    return _with_versions(info, versions)


MAX_NAME_CHARS = 255


def library_kind_and_version(filename: str, windows: bool, mac: bool = False) -> Optional[dict[str, Any]]:
    """What a library file name says, or None when it is not a CUDA/cuDNN/driver library.

    Keys (only those that apply): ``kind`` (one of :data:`KINDS`), ``component``
    (``Lt``, ``builtins``, ``ops_infer``, ``graph``...), ``cuda`` (a display string:
    ``10.2``, ``11.x``, ``10.1/10.2``, ``11.2-11.8``), ``cuda_versions`` (the releases
    that string covers), ``cudnn`` (cuDNN major), ``versioned`` (False for unversioned
    names such as the ``libnvrtc.so`` dev symlink libgpuarray loads), ``shipped_name``
    (Windows: whether NVIDIA ships a file of this name), ``so_version`` (the dotted
    suffix of a Linux/macOS name), ``driver_version`` (libcuda.so.<driver>), ``bits``.
    Never raises.
    """
    try:
        # No file system allows longer names; a longer "name" is garbage, not a library.
        if not isinstance(filename, str) or not filename or len(filename) > MAX_NAME_CHARS:
            return None
        return _windows_info(filename) if windows else _posix_info(filename, mac)
    except (ValueError, IndexError):
        return None


def implied_cuda_versions(infos: Iterable[dict[str, Any]]) -> list[str]:
    """The CUDA release(s) a set of libraries (one directory) points to.

    Each library gives a set of releases; sets that are strict supersets of another
    one are dropped (cublas64_10.dll's {10.1, 10.2} next to cudart64_102.dll's {10.2}
    says 10.2), so a consistent directory gives one string and a mixed one several.
    """
    sets: list[frozenset[Version]] = []
    for info in infos:
        versions = info.get("cuda_versions") if isinstance(info, dict) else None
        if not versions:
            continue
        try:
            sets.append(frozenset(_v(v) for v in versions))
        except ValueError:
            continue
    minimal = []
    for candidate in set(sets):
        if not any(other < candidate for other in sets):
            minimal.append(candidate)
    minimal.sort(key=lambda s: (min(s), max(s)))
    return [describe_versions(s) for s in minimal]


# --------------------------------------------------------------------------------------
# libgpuarray.


def parse_cuda_version(value: Union[str, int, None]) -> Optional[Version]:
    """'10.2', '10.2.89', '10', 10020 or '10020' (cuDriverGetVersion's encoding) -> (10, 2)."""
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    m = re.match(r"^(\d{1,9})(?:\.(\d{1,9}))?(?:\.\d{1,9})*$", text)
    if not m:
        return None
    if m.group(2) is None and len(m.group(1)) >= 4:
        number = int(m.group(1))  # the driver API encoding: 1000*major + 10*minor
        return number // 1000, (number // 10) % 10
    return int(m.group(1)), int(m.group(2) or 0)


def libgpuarray_attempts(driver_cuda: Union[str, int, None], windows: bool) -> list[dict[str, str]]:
    """The (CUDA level, NVRTC name, cuBLAS name) pairs libgpuarray tries, in order.

    It first tries the driver's own CUDA level, then the fixed fallback list with every
    version >= the driver's skipped. cuBLAS is then loaded with the level whose NVRTC
    loaded. An unknown driver version gives the whole fallback list.
    """
    levels: list[Version] = []
    driver = parse_cuda_version(driver_cuda)
    if driver is not None:
        levels.append(driver)
        levels.extend(v for v in LIBGPUARRAY_FALLBACK if v < driver)
    else:
        levels.extend(LIBGPUARRAY_FALLBACK)
    attempts = []
    for major, minor in levels:
        if windows:
            nvrtc, cublas = "nvrtc64_%d%d.dll" % (major, minor), "cublas64_%d%d.dll" % (major, minor)
        else:
            nvrtc, cublas = LIBGPUARRAY_LINUX_NAMES["nvrtc"], LIBGPUARRAY_LINUX_NAMES["cublas"]
        attempts.append({"cuda": "%d.%d" % (major, minor), "nvrtc": nvrtc, "cublas": cublas})
    return attempts


def libgpuarray_wanted_names(driver_cuda: Union[str, int, None], windows: bool, kind: str = "nvrtc") -> list[str]:
    """The file names libgpuarray asks the loader for, in order, for one kind
    (``nvrtc`` by default, ``cublas`` or ``libcuda``). On Linux every attempt uses the
    same unversioned name, so the list has one element."""
    if kind == "libcuda":
        return ["nvcuda.dll" if windows else LIBGPUARRAY_LINUX_NAMES["libcuda"]]
    if kind not in ("nvrtc", "cublas"):
        return []
    names: list[str] = []
    for attempt in libgpuarray_attempts(driver_cuda, windows):
        if attempt[kind] not in names:
            names.append(attempt[kind])
    return names


_LIBGPUARRAY_WIN_FORM = {
    "nvrtc": re.compile(r"^nvrtc64_(\d\d+)\.dll$"),
    "cublas": re.compile(r"^cublas64_(\d\d+)\.dll$"),
}


def matches_libgpuarray_name(filename: str, kind: str, windows: bool) -> bool:
    """Whether libgpuarray asks for exactly this file name under some driver (7.0 or
    newer): nvrtc64_92.dll, cublas64_100.dll, nvrtc64_122.dll yes; nvrtc64_102_0.dll
    and cublas64_10.dll (that would be "CUDA 1.0") no."""
    if not isinstance(filename, str):
        return False
    if windows:
        name = filename.lower()
        if kind == "libcuda":
            return name == "nvcuda.dll"
        form = _LIBGPUARRAY_WIN_FORM.get(kind)
        match = form.match(name) if form else None
        # The name is "%d%d" % (major, minor): the last digit is the minor.
        return match is not None and int(match.group(1)[:-1]) >= 7
    return filename == LIBGPUARRAY_LINUX_NAMES.get(kind)


def names_for_fallback(kind: str, windows: bool) -> list[str]:
    """The names of libgpuarray's fixed fallback list for one kind (driver-independent)."""
    return libgpuarray_wanted_names(None, windows, kind)


__all__ = [
    "KINDS",
    "KINDS_BY_OS",
    "PTXJIT_SONAME",
    "KNOWN_CUDA",
    "WINDOWS_SHIPPED",
    "LIBGPUARRAY_FALLBACK",
    "library_kind_and_version",
    "implied_cuda_versions",
    "describe_versions",
    "parse_cuda_version",
    "libgpuarray_attempts",
    "libgpuarray_wanted_names",
    "matches_libgpuarray_name",
    "names_for_fallback",
]
