"""What the facts record says about the machine, in the terms the config model needs.

Every function takes the record and answers from it alone (a replayed facts file from
another machine gives the same answers). "Unknown" is a real answer: ``None`` when the
probe did not run or failed, so a finding is only raised on what was actually seen.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.facts import get
from legacydoc.versions import small_int


def family(record: Mapping[str, Any]) -> str:
    """'windows', 'linux', 'darwin' (from the system probe, else the target Python); Linux
    where nothing in the record names the OS."""
    return recorded_family(record) or "linux"


def recorded_family(record: Mapping[str, Any]) -> Optional[str]:
    """The OS family the record shows, or None where nothing in it names one."""
    os_name = get(record, "system.os")
    if isinstance(os_name, str) and os_name:
        return os_name
    platform = get(record, "python.platform")
    if isinstance(platform, str):
        if platform.startswith("win") or platform == "cygwin":
            return "windows"
        if platform.startswith("linux"):
            return "linux"
        return platform
    # the rc file names the probe recorded give it away
    for fact in get(record, "theano_config.files", []) or []:
        path = fact.get("path", "") if isinstance(fact, Mapping) else ""
        if "\\" in path or (len(path) > 1 and path[1] == ":"):
            return "windows"
    return None


def is_windows(record: Mapping[str, Any]) -> bool:
    return family(record) == "windows"


def is_win32(record: Mapping[str, Any]) -> bool:
    """Theano's own test (sys.platform == 'win32'): Cygwin Python does not count."""
    return is_windows(record) and get(record, "python.platform") != "cygwin"


def pathmod(record: Mapping[str, Any]) -> Any:
    return ntpath if is_windows(record) else posixpath


def pathsep(record: Mapping[str, Any]) -> str:
    return ";" if is_windows(record) else ":"


def env(record: Mapping[str, Any], name: str) -> Optional[str]:
    """An environment variable the env probe kept (an allow-list), or None."""
    variables = get(record, "env.variables", {}) or {}
    if not isinstance(variables, Mapping):
        return None
    if name in variables:
        return str(variables[name])
    if is_windows(record):
        for key, value in variables.items():
            if str(key).upper() == name.upper():
                return str(value)
    return None


def home(record: Mapping[str, Any]) -> Optional[str]:
    """The user's home folder as Theano's expanduser saw it: the folder of the default
    ~/.theanorc entry, else of the default base_compiledir."""
    pm = pathmod(record)
    for fact in get(record, "theano_config.files", []) or []:
        if isinstance(fact, Mapping) and fact.get("from") == "default" and fact.get("path"):
            return pm.dirname(fact["path"])
    for fact in get(record, "theano_config.unread_files", []) or []:
        if isinstance(fact, Mapping) and fact.get("where") == "home" and fact.get("path"):
            return pm.dirname(fact["path"])
    base = get(record, "theano_config.compiledir.base_compiledir")
    if get(record, "theano_config.compiledir.default_from") in ("HOME", "home") and isinstance(base, str):
        return pm.dirname(base)
    return None


def theanorc_env(record: Mapping[str, Any]) -> Optional[str]:
    value = get(record, "theano_config.theanorc_env")
    if isinstance(value, str):
        return value
    return env(record, "THEANORC")


def theano_flags(record: Mapping[str, Any]) -> Optional[str]:
    value = get(record, "theano_config.flags.THEANO_FLAGS")
    if isinstance(value, str):
        return value
    return env(record, "THEANO_FLAGS")


def python_version_info(record: Mapping[str, Any]) -> Optional[tuple[int, ...]]:
    """The target interpreter's (major, minor, ...) or None when not probed."""
    info = get(record, "python.version_info")
    if isinstance(info, list) and len(info) >= 2 and all(isinstance(i, int) for i in info[:2]):
        return tuple(info)
    version = get(record, "python.version")
    if isinstance(version, str):
        parts = version.split(".")
        major, minor = (small_int(parts[0]), small_int(parts[1])) if len(parts) >= 2 else (None, None)
        if major is not None and minor is not None:
            return major, minor
    return None


def locale_encoding(record: Mapping[str, Any]) -> Optional[str]:
    """The encoding the target's open() uses for text (how ConfigParser reads
    .theanorc): a recorded one if the probe has it; UTF-8 on Linux/macOS; None (not
    known: the ANSI code page) on Windows."""
    for name in ("python.locale_encoding", "python.preferred_encoding"):
        value = get(record, name)
        if isinstance(value, str) and value:
            return value
    if is_windows(record):
        return None
    return "utf-8"


# --- GPU stack --------------------------------------------------------------------------


def gpu_names(record: Mapping[str, Any]) -> list[str]:
    devices = get(record, "gpu.devices") or []
    return [str(d.get("name")) for d in devices if isinstance(d, Mapping) and d.get("name")]


def same_path(record: Mapping[str, Any], a: str, b: str) -> bool:
    pm = pathmod(record)
    norm = (lambda p: pm.normcase(pm.normpath(p))) if a and b else (lambda p: p)
    return norm(a.rstrip("/\\") or a) == norm(b.rstrip("/\\") or b)


def toolkit_at(record: Mapping[str, Any], root: str) -> Optional[Mapping[str, Any]]:
    """The cuda probe's entry for a toolkit root (None: the probe did not look there)."""
    for toolkit in get(record, "cuda.toolkits", []) or []:
        if not isinstance(toolkit, Mapping):
            continue
        names = [toolkit.get("root", "")] + list(toolkit.get("aliases", []) or [])
        if any(isinstance(n, str) and n and same_path(record, n, root) for n in names):
            return toolkit
    return None


def toolkit_for_writing(record: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    """The toolkit a generated config should name: the one whose nvcc is on PATH, else
    the first existing one found."""
    root = get(record, "cuda.nvcc.toolkit_root")
    if isinstance(root, str):
        found = toolkit_at(record, root)
        if found and found.get("exists"):
            return found
    for toolkit in get(record, "cuda.toolkits", []) or []:
        if isinstance(toolkit, Mapping) and toolkit.get("exists"):
            return toolkit
    return None


def dirs_searched(record: Mapping[str, Any], which: str) -> Optional[list[str]]:
    """cudnn.include_dirs_searched / library_dirs_searched: the existing folders the
    cudnn probe looked in (None: not probed)."""
    value = get(record, "cudnn.%s_dirs_searched" % which)
    return [str(v) for v in value] if isinstance(value, list) else None


def numpy_blas(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "family": get(record, "packages.numpy_blas"),
        "libraries": get(record, "packages.numpy_blas_libraries") or [],
        "blas_opt_info": get(record, "packages.numpy_blas_opt_info"),
        "distutils_config": get(record, "packages.numpy_distutils_config"),
        "numpy_version": get(record, "packages.numpy.version"),
    }


def blas_choice(record: Mapping[str, Any]) -> tuple[str, str]:
    """(ldflags, why): a BLAS the compiler can link for numpy's library, or '' and why not."""
    blas = numpy_blas(record)
    conda = get(record, "python.env_kind") == "conda"
    prefix = get(record, "python.prefix")
    pm = pathmod(record)
    conda_pkgs = get(record, "packages.conda") or {}
    family = blas.get("family")
    if conda and isinstance(prefix, str) and family == "mkl" and ("mkl" in conda_pkgs or not conda_pkgs):
        if is_windows(record):
            # the form Theano's own default uses for conda's MKL on Windows
            libdir = pm.join(prefix, "Library", "bin")
            return '-L"%s" -lmkl_rt' % libdir, "numpy uses MKL from this conda env: link its mkl_rt"
        libdir = pm.join(prefix, "lib")
        if " " not in libdir:
            return ("-L%s -Wl,-rpath,%s -lmkl_rt" % (libdir, libdir),
                    "numpy uses MKL from this conda env: link its mkl_rt")
    if (conda and isinstance(prefix, str) and family == "openblas"
            and any(k in conda_pkgs for k in ("libopenblas", "openblas"))
            and not is_windows(record) and " " not in prefix):
        libdir = pm.join(prefix, "lib")
        return "-L%s -Wl,-rpath,%s -lopenblas" % (libdir, libdir), "numpy uses OpenBLAS from this conda env"
    why = "empty: Theano uses NumPy's C-API BLAS, which always works"
    if family:
        why += " (numpy's %s was not found as a library g++ can link; set -l<name> here if one is installed)" % family
    return "", why
