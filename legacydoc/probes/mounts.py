"""Which file system holds a folder, read from the kernel's mount table (Linux only).

Theano's compile cache and its lock live in one folder. On a cluster that folder is often
on a file system every node mounts (NFS, Lustre, GPFS...), and that changes what the lock
does: legacydoc/sharedcache.py judges it (rule LD545); this module only records the type.
Elsewhere (macOS, Windows) the type is not read, so it stays unknown.
"""

from __future__ import annotations

import os
import re
from typing import Optional

MOUNTS_FILE = "/proc/self/mounts"
MAX_MOUNTS_BYTES = 8 << 20  # a node with thousands of automounted homes; past it, unknown

# getmntent(3): blanks, tabs, newlines and backslashes in a mount point are octal-escaped.
_ESCAPE = re.compile(r"\\([0-7]{3})")


def _unescape(field: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), field)


def parse_mounts(text: str) -> list[tuple[str, str]]:
    """[(mount point, file system type)] in the table's order; malformed lines are skipped."""
    mounts: list[tuple[str, str]] = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1].startswith("/"):
            mounts.append((_unescape(fields[1]), fields[2]))
    return mounts


def _within(path: str, mount_point: str) -> bool:
    return mount_point == "/" or path == mount_point or path.startswith(mount_point.rstrip("/") + "/")


def filesystem_of(path: str, mounts: list[tuple[str, str]]) -> Optional[tuple[str, str]]:
    """(mount point, type) of the mount that holds ``path`` (absolute, symlinks resolved):
    the longest mount point above it, the later one when a point is mounted twice (the later
    mount hides the earlier)."""
    best: Optional[tuple[str, str]] = None
    for mount_point, fstype in mounts:
        if _within(path, mount_point) and (best is None or len(mount_point) >= len(best[0])):
            best = (mount_point, fstype)
    return best


def _existing_ancestor(path: str) -> str:
    """The folder itself or its nearest existing parent, symlinks resolved: Theano creates
    the cache folder on first use, on the file system its parent lives on."""
    current = os.path.abspath(path)
    while not os.path.exists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return os.path.realpath(current)


def read_mounts(mounts_file: str = MOUNTS_FILE) -> Optional[list[tuple[str, str]]]:
    """The mount table, or None when it cannot be read whole."""
    try:
        with open(mounts_file, "rb") as handle:
            data = handle.read(MAX_MOUNTS_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_MOUNTS_BYTES:
        return None  # cut short: the mount that holds the folder may be in the lost part
    return parse_mounts(data.decode("utf-8", errors="surrogateescape"))


def folder_filesystem(path: str, mounts_file: str = MOUNTS_FILE) -> dict[str, str]:
    """{filesystem, mount_point} for the folder at ``path``; {} when the table is unreadable
    or no mount holds it (then the type stays unknown). The path is resolved first: that
    touches an automounted folder, so the table read next lists what is mounted there."""
    folder = _existing_ancestor(path)
    mounts = read_mounts(mounts_file)
    if not mounts:
        return {}
    found = filesystem_of(folder, mounts)
    if found is None:
        return {}
    return {"filesystem": found[1], "mount_point": found[0]}
