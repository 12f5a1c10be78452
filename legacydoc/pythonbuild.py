"""What Theano's compile of each module finds of this Python (``derived.python``).

From Theano's theano/gof/cmodule.py (std_include_dirs, std_lib_dirs_and_libs and
GCC_compiler.compile_str) at rel-0.6, rel-0.7, rel-0.8.0 and rel-1.0.5, and
theano/sandbox/cuda/nvcc_compiler.py at rel-0.7 and rel-0.8.0:

* every module is compiled with -I<distutils get_python_inc()> (and its platform-specific
  twin when that differs), so Python.h and pyconfig.h must be there;
* on Linux every module is linked with -l<name> and the folders -L<LIBDIR> and
  -L<parent of get_python_lib(plat_specific=1, standard_lib=1)>, in that order. From
  0.8.0rc1 (PR 3917, commit 673a2a7c9) <name> is LDLIBRARY without "lib" and ".so"/".a";
  0.6 and 0.7 took the include folder's name and searched only the second folder.

GNU ld takes, in the first -L folder that has either, libNAME.so before libNAME.a. Folders
an op brings (BLAS's, nvcc's CUDA folders, -L in gcc.cxxflags) come first, but Theano's
own first modules, lazylinker_ext and cutils_ext, built at import, bring none (unless
gcc.cxxflags has -L): their link searches exactly these. So when the first hit is a .a,
Theano links the static libpython (LD419). A name found in none of Theano's folders is
looked for in the linker's own folders, which the record does not list: "outside", and
nothing more is claimed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from packaging.version import Version

from legacydoc.facts import env_variable, get
from legacydoc.versions import parse_version

LDLIBRARY_NAMING = Version("0.8.0rc1")  # PR 3917: the name comes from LDLIBRARY
# where gcc also looks for headers: a way round an include folder without them (Theano #3454)
GCC_INCLUDE_VARIABLES = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH")


def _strip(name: str) -> str:
    if name.startswith("lib"):
        name = name[3:]
    for suffix in (".so", ".a"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _search(libpython: Mapping[str, Any], new_naming: bool) -> Optional[tuple[str, list[str]]]:
    """The -l name and the -L folders, in order, this Theano generation uses."""
    if new_naming:
        name, dirs = libpython.get("ldlibrary"), [libpython.get("libdir"), libpython.get("stdlib_parent")]
    else:
        name, dirs = libpython.get("include_name"), [libpython.get("stdlib_parent")]
    folders = [d for d in dirs if isinstance(d, str) and d]
    if not isinstance(name, str) or not name or len(folders) != len(dirs):
        return None
    return (_strip(name) if new_naming else name), list(dict.fromkeys(folders))


OUTSIDE = "outside"  # in none of Theano's folders: the linker's own folders decide


def _first_hit(libpython: Mapping[str, Any], name: str, dirs: list[str]) -> Optional[str]:
    """The file ld takes from Theano's folders, OUTSIDE, or None when unknown."""
    listed, files = libpython.get("dirs_listed"), libpython.get("files")
    if not isinstance(listed, list) or not isinstance(files, list) or not name.startswith("python"):
        return None  # the probe lists only libpython* files
    for folder in dirs:
        if folder not in listed:
            return None  # a folder that could not be read: what ld finds there is unknown
        for suffix in (".so", ".a"):
            path = folder.rstrip("/") + "/lib" + name + suffix
            if path in files:
                return path
    return OUTSIDE


def linked_libpython(facts: Mapping[str, Any], theano_version: Any) -> dict[str, Any]:
    """libpython_link (shared | static | outside) and libpython_file: what ld takes for
    Theano's -lpython."""
    libpython = get(facts, "python.libpython")
    if not isinstance(libpython, Mapping):
        return {}
    release = parse_version(theano_version)
    generations = [release >= LDLIBRARY_NAMING] if release is not None else [False, True]
    hits = set()
    for new_naming in generations:
        search = _search(libpython, new_naming)
        hits.add(_first_hit(libpython, *search) if search else None)
    if len(hits) != 1:
        return {}  # the two generations disagree and the release is unknown
    hit = hits.pop()
    if hit is None:
        return {}
    if hit == OUTSIDE:
        return {"libpython_link": OUTSIDE}
    return {"libpython_link": "static" if hit.endswith(".a") else "shared", "libpython_file": hit}


def missing_headers(facts: Mapping[str, Any]) -> dict[str, Any]:
    """headers_ok, and which of Python.h / pyconfig.h are missing where Theano looks."""
    headers = get(facts, "python.headers")
    if not isinstance(headers, Mapping):
        return {}
    found = {"Python.h": headers.get("python_h"), "pyconfig.h": headers.get("pyconfig_h")}
    if not all(isinstance(v, bool) for v in found.values()):
        return {}
    missing = [name for name, present in found.items() if not present]
    out: dict[str, Any] = {"headers_ok": not missing}
    if missing:
        out["headers_missing"] = ", ".join(missing)
        elsewhere = headers_elsewhere(facts)
        if elsewhere is not None:
            out["headers_elsewhere"] = elsewhere
        # the X.Y distributions name their header packages by (python3.6-dev)
        match = re.match(r"(\d+\.\d+)", str(get(facts, "python.version") or ""))
        if match:
            out["short_version"] = match.group(1)
    return out


def headers_elsewhere(facts: Mapping[str, Any]) -> Optional[bool]:
    """A gcc include variable is set (whether it holds the headers is not known), none is,
    or None: the environment was not recorded in full."""
    known = [env_variable(facts, name) for name in GCC_INCLUDE_VARIABLES]
    if any(value for _, value in known):
        return True
    return False if all(k for k, _ in known) else None


def python_build_facts(facts: Mapping[str, Any], theano_version: Any) -> dict[str, Any]:
    return {**linked_libpython(facts, theano_version), **missing_headers(facts)}
