"""CUDA toolkits: every install we can find, what version each is, which nvcc PATH runs.

Theano compiles GPU code with whatever ``nvcc`` comes first on PATH (or under its
``cuda.root``), while libraries are loaded from elsewhere, so a machine with two
toolkits is the normal legacy case. This probe lists them all and records where each
was found; it never judges which one is "right".

Discovery sources, in order: every nvcc on PATH, ``CUDA_PATH``, ``CUDA_PATH_V<maj>_<min>``,
``CUDA_HOME``, ``CUDA_ROOT``, Theano's ``cuda.root``, then the default install places
(``/usr/local/cuda*`` on Linux, ``%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA\\v*``
on Windows). The hard-coded system places sit under ``sysroot`` so tests can point the
probe at a fake tree.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable, Optional

from legacydoc.probes.context import ProbeContext
from legacydoc.probes.cuda_versions import as_text, parse_nvcc_version, parse_version_json, parse_version_txt
from legacydoc.safe_io import read_small

# Bounded reads: version files and rc files are small; a huge one is not what we want.
_MAX_FILE_BYTES = 1 << 20
_WINDOWS_TOOLKIT_DIR = ("NVIDIA GPU Computing Toolkit", "CUDA")
_ENV_ORDER = ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT")
_ENV_VERSIONED_RE = re.compile(r"^CUDA_PATH_V(\d+)_(\d+)$")
_UNSET = "\0unset"  # ctx.env default that no real variable can hold



def _read_text(path: str, limit: int = _MAX_FILE_BYTES) -> Optional[str]:
    """A small text file (version.txt, a wrapper script), or None when unreadable."""
    data = read_small(path, limit)  # regular files only: a FIFO would block the probe
    if data is None:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # never fails; paths are ASCII in practice


def read_theano_settings(ctx: ProbeContext, keys: Sequence[str]) -> dict[str, dict[str, str]]:
    """What the config files and THEANO_FLAGS set for these options (``cuda.root``, the
    ``dnn.*`` paths), as the config model reads them: {key: {value, source, typed?}}."""
    from legacydoc.probes.theano_config import theano_settings

    return theano_settings(ctx, tuple(keys))


# --------------------------------------------------------------------------------------
# Discovery helpers (pure: they take path rules and file tests as arguments)
# --------------------------------------------------------------------------------------
def split_path_list(value: str, pathsep: str) -> list[str]:
    """PATH-style list -> entries; Windows PATH entries may be quoted, empty ones dropped."""
    entries = []
    for entry in value.split(pathsep):
        entry = entry.strip()
        if len(entry) >= 2 and entry[0] == entry[-1] == '"':
            entry = entry[1:-1]
        if entry:
            entries.append(entry)
    return entries


def nvcc_names(is_windows: bool) -> tuple[str, ...]:
    return ("nvcc.exe",) if is_windows else ("nvcc",)


def _is_executable(path: str) -> bool:
    try:
        return os.path.isfile(path) and (os.name == "nt" or os.access(path, os.X_OK))
    except (OSError, ValueError):
        return False


def nvcc_on_path(
    entries: Iterable[str],
    pathmod: Any,
    is_windows: bool,
    is_file: Callable[[str], bool] = _is_executable,
) -> list[str]:
    """Every nvcc the PATH entries hold, in PATH order, each path once (case-insensitive
    on Windows) — the first is what a shell runs, the rest are shadowed installs."""
    seen: set[str] = set()
    hits = []
    for entry in entries:
        for name in nvcc_names(is_windows):
            candidate = pathmod.join(entry, name)
            key = root_key(candidate, pathmod, is_windows)
            if key in seen:
                continue
            if is_file(candidate):
                seen.add(key)
                hits.append(candidate)
    return hits


_WRAPPER_EXEC_RE = re.compile(r"""^[ \t]*exec[ \t]+["']?(/[^\s"']*/bin/nvcc)["']?(?:[ \t]|$)""", re.MULTILINE)


def wrapper_target(text: str) -> Optional[str]:
    """The real nvcc a tiny shell wrapper execs (``exec /usr/local/cuda-13.0/bin/nvcc "$@"``,
    as distro and pip-style installs put in /usr/bin or /usr/local/bin), else None."""
    try:
        text = as_text(text)
        if not text.startswith("#!"):
            return None
        match = _WRAPPER_EXEC_RE.search(text)
        return match.group(1) if match else None
    except Exception:
        return None


def root_of_nvcc(nvcc_path: str, pathmod: Any) -> str:
    """<root>/bin/nvcc -> <root>."""
    return pathmod.dirname(pathmod.dirname(pathmod.normpath(nvcc_path)))


def normalise_path(path: str, pathmod: Any) -> str:
    """Strip quotes and trailing separators, collapse ``..``: one spelling per place."""
    path = path.strip()
    if len(path) >= 2 and path[0] == path[-1] == '"':
        path = path[1:-1]
    return pathmod.normpath(path) if path else path


def root_key(path: str, pathmod: Any, is_windows: bool) -> str:
    """Comparison key: normalised, and case-folded on Windows (its paths are)."""
    path = normalise_path(path, pathmod)
    return pathmod.normcase(path) if is_windows else path


def cuda_env(environ: Mapping[str, str], is_windows: bool) -> dict[str, str]:
    """The CUDA_* location variables as given, ordered: CUDA_PATH, CUDA_PATH_V* (by
    version), CUDA_HOME, CUDA_ROOT. Names match case-insensitively on Windows."""
    def name_of(key: str) -> str:
        return key.upper() if is_windows else key

    by_name: dict[str, tuple[str, str]] = {}
    for key, value in environ.items():
        by_name.setdefault(name_of(key), (key, value))
    out: dict[str, str] = {}
    if "CUDA_PATH" in by_name:
        out[by_name["CUDA_PATH"][0]] = by_name["CUDA_PATH"][1]
    versioned = []
    for name, (key, value) in by_name.items():
        match = _ENV_VERSIONED_RE.match(name)
        if match:
            versioned.append(((int(match.group(1)), int(match.group(2))), key, value))
    for _version, key, value in sorted(versioned):
        out[key] = value
    for name in _ENV_ORDER[1:]:
        if name in by_name:
            out[by_name[name][0]] = by_name[name][1]
    return out


def _version_sort_key(name: str) -> tuple:
    numbers = tuple(int(n) for n in re.findall(r"\d+", name))
    return (numbers, name)


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except (OSError, ValueError):
        return []


def linux_default_roots(
    usr_local: str,
    pathmod: Any,
    listdir: Callable[[str], list[str]] = _listdir,
) -> list[str]:
    """``<usr_local>/cuda`` then ``<usr_local>/cuda-*`` (by version) that are listed."""
    names = listdir(usr_local)
    out = []
    if "cuda" in names:
        out.append(pathmod.join(usr_local, "cuda"))
    versioned = [n for n in names if n.startswith("cuda-")]
    out.extend(pathmod.join(usr_local, n) for n in sorted(versioned, key=_version_sort_key))
    return out


def windows_default_roots(
    program_files_dirs: Iterable[str],
    pathmod: Any,
    listdir: Callable[[str], list[str]] = _listdir,
) -> list[str]:
    """``<ProgramFiles>\\NVIDIA GPU Computing Toolkit\\CUDA\\v*`` for each ProgramFiles."""
    out: list[str] = []
    for base in program_files_dirs:
        if not base:
            continue
        parent = pathmod.join(base, *_WINDOWS_TOOLKIT_DIR)
        names = [n for n in listdir(parent) if n[:1] in ("v", "V")]
        out.extend(pathmod.join(parent, n) for n in sorted(names, key=_version_sort_key))
    return out


def merge_candidates(
    candidates: Iterable[tuple[str, str]],
    pathmod: Any,
    is_windows: bool,
    realpath: Optional[Callable[[str], str]] = None,
) -> list[dict[str, Any]]:
    """(source, path) pairs -> one entry per distinct place, in first-seen order:
    {root, found_by[], key, link_target?, aliases?}. With ``realpath`` given, spellings
    that resolve to the same directory (``/usr/local/cuda`` -> ``cuda-10.2``) merge."""
    merged: dict[str, dict[str, Any]] = {}
    for source, raw in candidates:
        path = normalise_path(raw, pathmod)
        if not path:
            continue
        resolved = path
        if realpath is not None:
            try:
                resolved = realpath(path)
            except (OSError, ValueError):
                resolved = path
        key = root_key(resolved, pathmod, is_windows)
        entry = merged.get(key)
        if entry is None:
            entry = {"root": path, "found_by": [], "key": key}
            if root_key(path, pathmod, is_windows) != key:
                entry["link_target"] = resolved
            merged[key] = entry
        elif root_key(path, pathmod, is_windows) != root_key(entry["root"], pathmod, is_windows):
            aliases = entry.setdefault("aliases", [])
            if path not in aliases:
                aliases.append(path)
        if source not in entry["found_by"]:
            entry["found_by"].append(source)
    return list(merged.values())


# --------------------------------------------------------------------------------------
# Filesystem inspection
# --------------------------------------------------------------------------------------
def _isdir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def _isfile(path: str) -> bool:
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):
        return False


def toolkit_lib_dirs(root: str, pathmod: Any) -> list[str]:
    """Library directories of a toolkit that exist: lib64, lib, lib/x64, targets/*/lib."""
    candidates = [
        pathmod.join(root, "lib64"),
        pathmod.join(root, "lib"),
        pathmod.join(root, "lib", "x64"),
    ]
    targets = pathmod.join(root, "targets")
    for name in sorted(_listdir(targets)):
        candidates.append(pathmod.join(targets, name, "lib"))
    out, seen = [], set()
    for candidate in candidates:
        if not _isdir(candidate):
            continue
        # lib64 is often a symlink to lib: list the directory once, first spelling kept
        key = os.path.realpath(candidate) if pathmod is os.path else candidate
        if key not in seen:
            seen.add(key)
            out.append(candidate)
    return out


def toolkit_nvcc(root: str, pathmod: Any, is_windows: bool) -> Optional[str]:
    for name in nvcc_names(is_windows):
        path = pathmod.join(root, "bin", name)
        if _is_executable(path):
            return path
    return None


def inspect_toolkit(root: str, pathmod: Any, is_windows: bool) -> dict[str, Any]:
    """What the toolkit directory holds, without running anything."""
    info: dict[str, Any] = {"exists": _isdir(root)}
    nvcc = toolkit_nvcc(root, pathmod, is_windows) if info["exists"] else None
    if nvcc:
        info["nvcc"] = nvcc
    info["has_include_cuda_h"] = _isfile(pathmod.join(root, "include", "cuda.h"))
    info["lib_dirs"] = toolkit_lib_dirs(root, pathmod) if info["exists"] else []
    files: dict[str, str] = {}
    for name, parser in (("version.json", parse_version_json), ("version.txt", parse_version_txt)):
        text = _read_text(pathmod.join(root, name)) if info["exists"] else None
        if text is None:
            continue
        parsed = parser(text)
        files[name] = parsed.get("full") or parsed.get("version") or ""
        if "version" in parsed and "version" not in info:
            info["version"] = parsed["version"]
            if "full" in parsed:
                info["version_full"] = parsed["full"]
            info["version_source"] = name
    if files:
        info["version_files"] = files
    return info


# --------------------------------------------------------------------------------------
# The probe
# --------------------------------------------------------------------------------------
def _realpath_for(ctx: ProbeContext) -> Optional[Callable[[str], str]]:
    # Symlinks can only be resolved when the probed OS is the one we run on.
    return os.path.realpath if ctx.pathmod is os.path else None


def _read_wrapper(path: str) -> Optional[str]:
    """The target of a small shell-script nvcc wrapper (real nvcc binaries are MBs)."""
    try:
        if os.path.getsize(path) > 4096:
            return None
    except (OSError, ValueError):
        return None
    text = _read_text(path, 4096)
    return wrapper_target(text) if text else None


def resolve_nvcc(ctx: ProbeContext, path: str) -> str:
    """The nvcc that really runs: symlinks followed, then one level of shell wrapper."""
    realpath = _realpath_for(ctx)
    if realpath is None:
        return path
    try:
        path = realpath(path)
        target = _read_wrapper(path)
        return realpath(target) if target else path
    except (OSError, ValueError):
        return path


def _sys_path(ctx: ProbeContext, sysroot: Optional[str], path: str) -> str:
    """A hard-coded system location (``/usr/local``), moved under ``sysroot`` for tests."""
    if not sysroot:
        return path
    return ctx.pathmod.join(sysroot, path.lstrip("/\\"))


def program_files_dirs(ctx: ProbeContext) -> list[str]:
    """Where 64-bit programs live; ProgramW6432 first since a 32-bit Python sees
    ``Program Files (x86)`` in ProgramFiles while CUDA installs in the 64-bit one."""
    dirs = [ctx.env("ProgramW6432"), ctx.env("ProgramFiles")]
    if not any(dirs):
        dirs.append("C:\\Program Files")
    out: list[str] = []
    for d in dirs:
        if d and d.lower() not in (o.lower() for o in out):
            out.append(d)
    return out


def toolkit_candidates(
    ctx: ProbeContext,
    path_nvcc: Sequence[str],
    sysroot: Optional[str] = None,
    theano: Optional[Mapping[str, Mapping[str, str]]] = None,
) -> list[tuple[str, str]]:
    """(source, root) pairs in discovery order."""
    pm = ctx.pathmod
    pairs: list[tuple[str, str]] = []
    for nvcc in path_nvcc:
        # A symlinked or wrapper /usr/local/bin/nvcc belongs to the toolkit it points
        # into; a plain file keeps the user's spelling (/usr/local/cuda, not cuda-10.2).
        target = nvcc
        if _realpath_for(ctx) is not None and (os.path.islink(nvcc) or _read_wrapper(nvcc)):
            target = resolve_nvcc(ctx, nvcc)
        pairs.append(("PATH", root_of_nvcc(target, pm)))
    for name, value in cuda_env(ctx.environ, ctx.is_windows).items():
        if value.strip():
            pairs.append((name.upper() if ctx.is_windows else name, value))
    if theano is None:
        theano = read_theano_settings(ctx, ("cuda.root",))
    if "cuda.root" in theano and theano["cuda.root"]["value"].strip():
        pairs.append(("theano:cuda.root", theano["cuda.root"]["value"]))
    if ctx.is_windows:
        roots = windows_default_roots(program_files_dirs(ctx), pm)
    elif ctx.family == "linux":
        roots = linux_default_roots(_sys_path(ctx, sysroot, "/usr/local"), pm)
    else:
        roots = []
    pairs.extend(("default", r) for r in roots)
    return pairs


def path_nvcc_all(ctx: ProbeContext) -> list[str]:
    return nvcc_on_path(split_path_list(ctx.path_string, ctx.pathsep), ctx.pathmod, ctx.is_windows)


def discover_toolkits(
    ctx: ProbeContext,
    sysroot: Optional[str] = None,
    path_nvcc: Optional[Sequence[str]] = None,
    theano: Optional[Mapping[str, Mapping[str, str]]] = None,
) -> list[dict[str, Any]]:
    """Every toolkit, inspected on disk but with no process started (cudnn uses this)."""
    if path_nvcc is None:
        path_nvcc = path_nvcc_all(ctx)
    merged = merge_candidates(
        toolkit_candidates(ctx, path_nvcc, sysroot, theano), ctx.pathmod, ctx.is_windows, _realpath_for(ctx)
    )
    toolkits = []
    for entry in merged:
        toolkit: dict[str, Any] = {"root": entry["root"], "found_by": entry["found_by"]}
        for extra in ("link_target", "aliases"):
            if extra in entry:
                toolkit[extra] = entry[extra]
        toolkit.update(inspect_toolkit(entry["root"], ctx.pathmod, ctx.is_windows))
        toolkit["_key"] = entry["key"]  # internal, removed before the facts are returned
        toolkits.append(toolkit)
    return toolkits


def _nvcc_key(ctx: ProbeContext, path: str) -> str:
    return root_key(resolve_nvcc(ctx, path), ctx.pathmod, ctx.is_windows)


def collect(ctx: ProbeContext, sysroot: Optional[str] = None) -> dict[str, Any]:
    pm = ctx.pathmod
    facts: dict[str, Any] = {}
    facts["env"] = cuda_env(ctx.environ, ctx.is_windows)
    all_nvcc = path_nvcc_all(ctx)
    facts["path_nvcc_all"] = all_nvcc
    which = ctx.which("nvcc")
    if which and _nvcc_key(ctx, which) not in {_nvcc_key(ctx, p) for p in all_nvcc}:
        all_nvcc = [which] + list(all_nvcc)  # e.g. found through PATHEXT as nvcc.bat
    theano = read_theano_settings(ctx, ("cuda.root",))
    if "cuda.root" in theano:
        facts["theano_cuda_root"] = dict(theano["cuda.root"])
    if ctx.is_windows:
        # cmd.exe and CreateProcess look in the current directory before PATH
        local = pm.join(str(ctx.cwd), "nvcc.exe")
        if _isfile(local):
            facts["cwd_nvcc"] = local
    toolkits = discover_toolkits(ctx, sysroot, all_nvcc, theano)

    # Run each distinct nvcc once, PATH's first; after a timeout run no more of them.
    runs: dict[str, tuple[Any, dict[str, Any]]] = {}
    timed_out = False
    order = ([which] if which else []) + [t["nvcc"] for t in toolkits if "nvcc" in t]
    for nvcc in order:
        key = _nvcc_key(ctx, nvcc)
        if key in runs or timed_out:
            continue
        result = ctx.run([nvcc, "--version"])
        runs[key] = (result, parse_nvcc_version(result.output))
        timed_out = result.timed_out

    for toolkit in toolkits:
        nvcc = toolkit.get("nvcc")
        if not nvcc:
            continue
        run = runs.get(_nvcc_key(ctx, nvcc))
        if run is None:
            toolkit["nvcc_skipped"] = "an earlier nvcc timed out"
            continue
        result, parsed = run
        if result.timed_out:
            toolkit["nvcc_timed_out"] = True
        if "release" in parsed:
            toolkit["version"] = parsed["release"]
            if "full" in parsed:
                toolkit["version_full"] = parsed["full"]
            else:
                toolkit.pop("version_full", None)
            toolkit["version_source"] = "nvcc"
        if not result.ok or "release" not in parsed:
            toolkit["nvcc_command"] = result.to_fact()

    nvcc_fact: dict[str, Any] = {"found": bool(which)}
    if which:
        nvcc_fact["path"] = which
        resolved = resolve_nvcc(ctx, which)
        if root_key(resolved, pm, ctx.is_windows) != root_key(which, pm, ctx.is_windows):
            nvcc_fact["resolves_to"] = resolved  # symlink or shell wrapper
        key = _nvcc_key(ctx, which)
        if key in runs:
            result, parsed = runs[key]
            for src, dst in (("release", "version"), ("full", "version_full"), ("built_on", "built_on"),
                             ("build", "build")):
                if src in parsed:
                    nvcc_fact[dst] = parsed[src]
            nvcc_fact["command"] = result.to_fact()
            if result.timed_out:
                nvcc_fact["timed_out"] = True
        for toolkit in toolkits:
            if "nvcc" in toolkit and _nvcc_key(ctx, toolkit["nvcc"]) == key:
                nvcc_fact["toolkit_root"] = toolkit["root"]
                break
    facts["nvcc"] = nvcc_fact
    for toolkit in toolkits:
        toolkit.pop("_key", None)
    facts["toolkits"] = toolkits
    return facts
