"""The defaults Theano computes at import (cxx, linker, cuda.root, the dnn paths,
base_compiledir, compile.timeout, the warn.* flags), worked out from the facts the way
Theano 1.0.5's configdefaults.py computes them on the machine. ``None`` means the facts
cannot tell (blas.ldflags, which Theano finds by test-compiling)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc import readiness
from legacydoc.facts import get
from legacydoc.theanorc import machine
from legacydoc.theanorc.setting import Setting


def expanduser(record: Mapping[str, Any], path: str) -> str:
    home = machine.home(record)
    if home and (path == "~" or path.startswith("~/") or (machine.is_windows(record) and path.startswith("~\\"))):
        return home + path[1:]
    return path


def _cuda_root_default(record: Mapping[str, Any]) -> tuple[Optional[str], str]:
    for name in ("CUDA_ROOT", "CUDA_PATH"):
        value = machine.env(record, name)
        if value:
            return value, "from $%s" % name
    if get(record, "cuda.path_nvcc_all") is None:
        return None, "computed at import: $CUDA_ROOT, $CUDA_PATH, else nvcc's folder on PATH (not probed)"
    if not machine.is_windows(record):  # Theano looks for a file named exactly "nvcc"
        for nvcc in get(record, "cuda.path_nvcc_all") or []:
            pm = machine.pathmod(record)
            return pm.dirname(pm.dirname(str(nvcc))), "the parent of the first PATH folder holding nvcc"
    return "", "no $CUDA_ROOT, no $CUDA_PATH, no nvcc on PATH"


def _has_cudnn_header(record: Mapping[str, Any], root: str) -> Optional[bool]:
    pm = machine.pathmod(record)
    include = pm.join(root, "include")
    for header in get(record, "cudnn.headers", []) or []:
        if isinstance(header, Mapping) and header.get("header") == "cudnn.h" and header.get("exists", True):
            if machine.same_path(record, pm.dirname(str(header.get("path", ""))), include):
                return True
    searched = machine.dirs_searched(record, "include")
    if searched is not None and any(machine.same_path(record, d, include) for d in searched):
        return False
    toolkit = machine.toolkit_at(record, root)
    if toolkit is not None and not toolkit.get("exists"):
        return False
    return None


def computed_default(
    name: str, option: Mapping[str, Any], record: Mapping[str, Any], settings: Mapping[str, Setting]
) -> tuple[Optional[str], str]:
    """(value, how it is computed) for a default Theano computes at import."""
    pm = machine.pathmod(record)
    win32 = machine.is_win32(record)

    def value_of(other: str) -> Optional[str]:
        setting = settings.get(other)
        return setting.value if setting is not None else None

    if name == "cxx":
        cxx = readiness.theano_cxx(record)
        if cxx is None:
            return None, option.get("computed", "")
        if cxx and win32:
            cxx = '"%s"' % cxx  # Theano quotes the found path on Windows
        return cxx, "g++ found on PATH at import" if cxx else "no C++ compiler found at import"
    if name == "linker":
        cxx = value_of("cxx")
        if cxx == "" or readiness.theano_cxx(record) == "":
            return "vm", "vm: no C++ compiler (then only vm, py and vm_nogc are valid)"
        return ("cvm", "cvm: a C++ compiler is available") if cxx is not None else (None, option.get("computed", ""))
    if name == "DebugMode.check_c":
        cxx = value_of("cxx")
        return (None, "bool(cxx)") if cxx is None else (str(bool(cxx)), "bool(cxx)")
    if name == "cuda.root":
        return _cuda_root_default(record)
    if name == "cuda.include_path":
        root = value_of("cuda.root")
        if root is None:
            return None, "<cuda.root>/include"
        return (pm.join(root, "include") if root else ""), "<cuda.root>/include"
    if name == "dnn.base_path":
        root = value_of("cuda.root")
        if root is None:
            return None, option.get("computed", "")
        if not root:
            return "", "cuda.root is empty"
        has = _has_cudnn_header(record, root)
        if has is None:
            return None, "cuda.root if <cuda.root>/include/cudnn.h exists (not probed)"
        return (root, "cudnn.h is in <cuda.root>/include") if has else ("", "no cudnn.h in <cuda.root>/include")
    if name in ("dnn.include_path", "dnn.library_path", "dnn.bin_path"):
        base = value_of("dnn.base_path")
        if base is None:
            return None, option.get("computed", "")
        if base == "":
            return "", "dnn.base_path is empty"
        if name == "dnn.include_path":
            return pm.join(base, "include"), "<dnn.base_path>/include"
        library = (pm.join(base, "lib", "x64") if win32
                   else pm.join(base, "lib" if machine.family(record) == "darwin" else "lib64"))
        if name == "dnn.library_path":
            return library, "from dnn.base_path"
        if win32:
            return pm.join(base, "bin"), "<dnn.base_path>\\bin"
        return value_of("dnn.library_path"), "= dnn.library_path"
    if name == "base_compiledir":
        base = get(record, "theano_config.compiledir.base_compiledir")
        if get(record, "theano_config.compiledir.source") == "default" and isinstance(base, str):
            return base, "from $%s" % get(record, "theano_config.compiledir.default_from", "HOME")
        home = machine.home(record)
        return (pm.join(home, ".theano"), "$HOME/.theano") if home else (None, option.get("computed", ""))
    if name == "compile.timeout":
        wait = settings.get("compile.wait")
        if wait is not None and isinstance(wait.typed, int):
            return str(wait.typed * 24), "compile.wait * 24"
        return None, "compile.wait * 24"
    if name == "blas.ldflags":
        return None, "computed at import from numpy's BLAS build info (each candidate test-compiled)"
    return None, option.get("computed", "computed at import")


def warn_default(option: Mapping[str, Any], settings: Mapping[str, Setting]) -> Optional[str]:
    """warn.* defaults follow warn.ignore_bug_before (Theano's warn_default)."""
    since = option.get("warn_since")
    setting = settings.get("warn.ignore_bug_before")
    if since is None or setting is None or not isinstance(setting.typed, str):
        return None
    ignore = setting.typed
    if ignore == "None":
        return "True"
    if ignore == "all":
        return "False"
    try:
        ignored = tuple(int(p) for p in ignore.split("."))
        return "False" if ignored >= tuple(int(p) for p in str(since).split(".")) else "True"
    except ValueError:
        return None
