"""The ``path`` probe: PATH (and LD_LIBRARY_PATH / DYLD_LIBRARY_PATH) as the probed OS reads it.

Splitting follows the *probed* OS's rules and is pure, so Windows PATH strings can be
examined (and tested) on any host: ``;`` separators, double quotes stripped (a quoted
entry may contain ``;``), ``%VAR%`` left unexpanded by the OS detected and expanded from
the probe's environment where possible, entries compared case-insensitively and
without trailing separators (ntpath.normcase/normpath). POSIX: ``:``; an empty entry
means the current directory.

Filesystem access happens only in :func:`scan_directory` / :func:`inspect_entries`,
which take the directory list, so tests use tmp_path trees. Nothing is judged here:
the rules decide whether a shadowed nvcc or a missing entry matters.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from typing import Any, Callable, Optional

from legacydoc.probes import libnames
from legacydoc.probes.context import ProbeContext

SOURCE = (
    "docs/knowledge/nvidia.md §7b (Windows `where` / cmd search PATH in order, first match wins; "
    "Microsoft Learn 'where'), §7c (DLL search order; Microsoft Learn 'Dynamic-link library search "
    "order'), §5a/§5b/§4b (library file names)"
)

# Tools whose position on PATH decides what a Theano build runs.
TOOLS: tuple[str, ...] = ("nvcc", "g++", "gcc", "cl", "nvidia-smi", "python")
# POSIX systems often have only python3; cl (MSVC) exists only on Windows.
POSIX_EXTRA_TOOLS: tuple[str, ...] = ("python3",)

Lookup = Callable[[str], str]
TimeLeft = Callable[[], float]


def tool_file_names(windows: bool) -> tuple[str, ...]:
    """The file names looked for in each PATH entry (``nvcc.exe`` ... on Windows)."""
    if windows:
        return tuple(t + ".exe" for t in TOOLS)
    return tuple(t for t in TOOLS if t != "cl") + POSIX_EXTRA_TOOLS


# ---------------------------------------------------------------------------------------
# Pure string handling.


def split_path_string(value: str, windows: bool) -> list[str]:
    """Split a PATH-like value into entries exactly as written (quotes kept).

    Windows: ``;`` outside double quotes separates ("C:\\a;b" is one entry, as cmd.exe
    reads it). POSIX: every ``:`` separates. An unset/empty value has no entries; empty
    entries between separators are kept (they mean something on POSIX).
    """
    if not value:
        return []
    if not windows:
        return value.split(":")
    entries: list[str] = []
    current: list[str] = []
    in_quotes = False
    for ch in value:
        if ch == '"':
            in_quotes = not in_quotes
        elif ch == ";" and not in_quotes:
            entries.append("".join(current))
            current = []
            continue
        current.append(ch)
    entries.append("".join(current))
    return entries


_WIN_VAR = re.compile(r"%([^%;]+)%")


def expand_windows_vars(text: str, lookup: Optional[Lookup]) -> tuple[str, list[str], list[str]]:
    """Expand ``%NAME%`` from ``lookup``. Returns (expanded, names seen, names unresolved);
    an unresolved reference stays literal, as cmd.exe leaves it."""
    names: list[str] = []
    unresolved: list[str] = []

    def substitute(match: "re.Match[str]") -> str:
        name = match.group(1)
        names.append(name)
        value = ""
        if lookup is not None:
            try:
                value = lookup(name) or ""
            except Exception:
                value = ""
        if value:
            return value
        unresolved.append(name)
        return match.group(0)

    return _WIN_VAR.sub(substitute, text), names, unresolved


def path_key(path: str, windows: bool) -> str:
    """What makes two entries the same directory for the probed OS: case-insensitive
    and separator-normalised on Windows, trailing separators ignored everywhere."""
    if not path:
        return ""
    if windows:
        return ntpath.normcase(ntpath.normpath(path))
    return posixpath.normpath(path)


def parse_path(value: str, windows: bool, lookup: Optional[Lookup] = None) -> list[dict[str, Any]]:
    """Entries of a PATH-like value, in order, without touching the filesystem.

    Each entry: ``index``, ``entry`` (as written), ``expanded`` (quotes stripped,
    ``%VAR%`` expanded), and when they apply ``duplicate_of`` (index of the first equal
    entry), ``empty``, ``means_cwd`` (POSIX empty entry), ``quoted``,
    ``unexpanded_vars``/``unresolved_vars`` (Windows ``%VAR%`` left in the value, and
    those the environment cannot resolve either), ``surrounding_space``.
    """
    entries: list[dict[str, Any]] = []
    first_seen: dict[str, int] = {}
    for index, raw in enumerate(split_path_string(value or "", windows)):
        entry: dict[str, Any] = {"index": index, "entry": raw}
        text = raw
        if windows:
            if '"' in text:
                entry["quoted"] = True
                text = text.replace('"', "")
            expanded, names, unresolved = expand_windows_vars(text, lookup)
            expanded = expanded.replace('"', "")  # a variable's value may be quoted too
            if names:
                entry["unexpanded_vars"] = names
            if unresolved:
                entry["unresolved_vars"] = unresolved
        else:
            expanded = text
        entry["expanded"] = expanded
        if text == "":
            entry["empty"] = True
            if not windows:
                entry["means_cwd"] = True  # execvp and ld.so read an empty entry as "."
            entries.append(entry)
            continue
        if expanded != expanded.strip():
            entry["surrounding_space"] = True
        key = path_key(expanded, windows)
        if key in first_seen:
            entry["duplicate_of"] = first_seen[key]
        else:
            first_seen[key] = index
        entries.append(entry)
    return entries


# ---------------------------------------------------------------------------------------
# Filesystem (only through the directory given).


def _is_tool(full: str, windows: bool) -> bool:
    try:
        if not os.path.isfile(full):
            return False
        # On Windows the .exe name is what makes it runnable; on POSIX the x bit.
        return windows or os.name == "nt" or os.access(full, os.X_OK)
    except (OSError, ValueError):
        return False


def scan_directory(
    directory: str, windows: bool, tool_names: Sequence[str] = (), mac: bool = False
) -> dict[str, Any]:
    """What one directory holds: ``exists``, ``tools`` (file names as found, in
    ``tool_names`` order), ``libraries`` (list of (file name, libnames info)),
    ``error`` when it exists but cannot be listed. Never raises."""
    result: dict[str, Any] = {"exists": False, "tools": [], "libraries": []}
    if not directory:
        return result
    try:
        if not os.path.isdir(directory):
            return result
    except (OSError, ValueError):
        return result
    result["exists"] = True
    try:
        names = sorted(os.listdir(directory))
    except (OSError, ValueError) as exc:
        result["error"] = "%s: %s" % (type(exc).__name__, getattr(exc, "strerror", None) or exc)
        return result
    wanted = {(t.lower() if windows else t): t for t in tool_names}
    tools_found: dict[str, str] = {}
    for name in names:
        key = name.lower() if windows else name
        if key in wanted and wanted[key] not in tools_found:
            if _is_tool(os.path.join(directory, name), windows):
                tools_found[wanted[key]] = name
            continue
        info = libnames.library_kind_and_version(name, windows, mac=mac)
        if info is not None:
            result["libraries"].append((name, info))
    result["tools"] = [tools_found[t] for t in tool_names if t in tools_found]
    return result


def inspect_entries(
    entries: list[dict[str, Any]],
    windows: bool,
    tool_names: Sequence[str] = (),
    mac: bool = False,
    time_left: Optional[TimeLeft] = None,
) -> list[dict[str, Any]]:
    """Add ``exists``, ``provides`` and ``cuda_versions`` to parsed entries (in place).

    A duplicate reuses the first entry's scan; an empty entry is not scanned. When
    ``time_left`` reaches 0 (a hung network share, say) the rest are marked
    ``not_scanned`` instead of blocking the probe.
    """
    by_index: dict[int, dict[str, Any]] = {}
    for entry in entries:
        by_index[entry["index"]] = entry
        if entry.get("empty"):
            continue
        if "duplicate_of" in entry and entry["duplicate_of"] in by_index:
            first = by_index[entry["duplicate_of"]]
            for key in ("exists", "provides", "cuda_versions", "not_scanned"):
                if key in first:
                    entry[key] = list(first[key]) if isinstance(first[key], list) else first[key]
            continue
        if time_left is not None and time_left() <= 0:
            entry["not_scanned"] = True
            continue
        scan = scan_directory(entry["expanded"], windows, tool_names, mac)
        entry["exists"] = scan["exists"]
        entry["provides"] = list(scan["tools"]) + [name for name, _info in scan["libraries"]]
        versions = libnames.implied_cuda_versions(info for _name, info in scan["libraries"])
        if versions:
            entry["cuda_versions"] = versions
        if "error" in scan:
            entry["error"] = scan["error"]
    return entries


# ---------------------------------------------------------------------------------------
# Pure summaries of inspected entries.


def _searched(entry: dict[str, Any], windows: bool) -> bool:
    """Whether the OS really looks in this entry: not empty, not a repeat, existing,
    and (Windows) without a literal %VAR% the OS never expands."""
    if entry.get("empty") or "duplicate_of" in entry or not entry.get("exists"):
        return False
    return not (windows and entry.get("unexpanded_vars"))


def find_shadowed(
    entries: Iterable[dict[str, Any]], windows: bool, tool_names: Sequence[str] = ()
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Names provided by more than one searched entry: (tools, libraries).

    Tools: ``{tool, winner, winner_index, others, other_indices}``; libraries the same
    with ``library`` and ``kind``. ``winner`` is the first entry in PATH order (what
    ``where``/``which`` and the DLL search reach first)."""
    tool_keys = {(t.lower() if windows else t) for t in tool_names}
    holders: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    order: list[str] = []
    for entry in entries:
        if not _searched(entry, windows):
            continue
        for name in entry.get("provides", []):
            key = name.lower() if windows else name
            if key not in holders:
                holders[key] = []
                order.append(key)
            holders[key].append((name, entry))
    tools: list[dict[str, Any]] = []
    libraries: list[dict[str, Any]] = []
    for key in order:
        found = holders[key]
        if len(found) < 2:
            continue
        name, first = found[0]
        item: dict[str, Any] = {}
        if key in tool_keys:
            item["tool"] = name
        else:
            item["library"] = name
            info = libnames.library_kind_and_version(name, windows)
            if info:
                item["kind"] = info["kind"]
        item["winner"] = first["expanded"]
        item["winner_index"] = first["index"]
        item["others"] = [e["expanded"] for _n, e in found[1:]]
        item["other_indices"] = [e["index"] for _n, e in found[1:]]
        (tools if key in tool_keys else libraries).append(item)
    return tools, libraries


def describe_path(
    value: str,
    windows: bool,
    lookup: Optional[Lookup] = None,
    tool_names: Optional[Sequence[str]] = None,
    mac: bool = False,
    time_left: Optional[TimeLeft] = None,
) -> dict[str, Any]:
    """The facts for one PATH value: entries plus counts, duplicates and shadowing."""
    names = tool_file_names(windows) if tool_names is None else tuple(tool_names)
    entries = inspect_entries(parse_path(value, windows, lookup), windows, names, mac, time_left)
    shadowed, shadowed_libraries = find_shadowed(entries, windows, names)
    facts: dict[str, Any] = {
        "count": len(entries),
        "entries": entries,
        "duplicates": sum(1 for e in entries if "duplicate_of" in e),
        "empty_entries": [e["index"] for e in entries if e.get("empty")],
        "missing": [
            e["index"]
            for e in entries
            if not e.get("empty") and "exists" in e and not e["exists"] and "duplicate_of" not in e
        ],
        "unexpanded": [e["index"] for e in entries if e.get("unexpanded_vars")],
        "shadowed": shadowed,
        "shadowed_libraries": shadowed_libraries,
    }
    if any(e.get("not_scanned") for e in entries):
        facts["scan_incomplete"] = True
    return facts


def describe_library_path(
    value: str, windows: bool, mac: bool = False, time_left: Optional[TimeLeft] = None
) -> list[dict[str, Any]]:
    """Entries of LD_LIBRARY_PATH / DYLD_LIBRARY_PATH, same shape, libraries only."""
    return inspect_entries(parse_path(value, windows), windows, (), mac, time_left)


def collect(ctx: ProbeContext) -> dict[str, Any]:
    windows = ctx.is_windows
    mac = ctx.family == "darwin"
    time_left = ctx.remaining
    table: dict[str, Any] = {
        "variable": "PATH",
        "os_rules": "windows" if windows else "posix",
        "separator": ctx.pathsep,
    }
    table.update(describe_path(ctx.path_string, windows, ctx.env, None, mac, time_left))
    if ctx.family == "linux":
        value = ctx.env("LD_LIBRARY_PATH")
        table["ld_library_path_set"] = bool(value)
        table["ld_library_path"] = describe_library_path(value, False, False, time_left)
    elif mac:
        value = ctx.env("DYLD_LIBRARY_PATH")
        table["dyld_library_path_set"] = bool(value)
        table["dyld_library_path"] = describe_library_path(value, False, True, time_left)
    return table
