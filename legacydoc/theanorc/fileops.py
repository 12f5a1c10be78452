"""Writing a user's config file without ever losing a byte.

Order: check everything that can be checked first (refuse with one reason, having
touched nothing), copy the old file byte for byte to a new backup file and read the copy
back, write the new text to a temporary file in the same folder, flush it to disk, and
rename it over the target (atomic on POSIX and Windows). If any step fails, what was
created is removed and the original is untouched. A symbolic link is written through:
the file it points to is replaced, the link stays.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

BACKUP_SUFFIX = ".legacydoc-bak"
MAX_BACKUPS = 1000


class Refused(Exception):
    """Cannot write safely; the message is one line naming the file."""


@dataclass
class WriteResult:
    target: Path  # the file actually replaced (a symlink's destination)
    backup: Optional[Path]  # None when there was no old file
    changed: bool


def resolve_target(path: Path) -> Path:
    """The regular file to replace for ``path`` (following symlinks), or Refused."""
    path = Path(os.path.abspath(str(path)))
    try:
        st = os.stat(str(path))  # follows links; ELOOP for a loop
    except FileNotFoundError:
        if os.path.islink(str(path)):
            raise Refused("%s is a symbolic link to %s, which does not exist"
                          % (path, os.readlink(str(path)))) from None
        return path
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused("%s is a symbolic link loop" % path) from None
        raise Refused("%s cannot be examined: %s" % (path, exc.strerror or exc)) from None
    real = Path(os.path.realpath(str(path)))
    if stat.S_ISDIR(st.st_mode):
        raise Refused("%s is a folder, not a file" % path)
    if not stat.S_ISREG(st.st_mode):
        raise Refused("%s is not a regular file (a device, pipe or socket)" % path)
    return real


def check_writable(path: Path) -> Path:
    """Every refusal that can be known before touching anything. Returns the real target."""
    real = resolve_target(path)
    folder = real.parent
    if not folder.is_dir():
        raise Refused("cannot write %s: the folder %s does not exist" % (path, folder))
    if not os.access(str(folder), os.W_OK | os.X_OK):
        raise Refused("cannot write %s: no permission to create files in %s (needed to replace it safely)"
                      % (path, folder))
    if real.exists() and not os.access(str(real), os.R_OK):
        raise Refused("cannot write %s: it cannot be read, so it cannot be backed up first" % path)
    return real


def read_bytes(path: Path) -> Optional[bytes]:
    try:
        with open(str(path), "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _new_backup_name(real: Path) -> Path:
    candidate = real.with_name(real.name + BACKUP_SUFFIX)
    for n in range(1, MAX_BACKUPS):
        if not os.path.lexists(str(candidate)):
            return candidate
        candidate = real.with_name("%s%s.%d" % (real.name, BACKUP_SUFFIX, n))
    raise Refused("cannot back up %s: %d backups already exist" % (real, MAX_BACKUPS))


def _write_new_file(path: Path, data: bytes, mode: int) -> None:
    """Create ``path`` (never overwrite), write, flush to disk."""
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def backup(real: Path, old: bytes, mode: int) -> Path:
    """A byte-for-byte copy of ``old`` next to ``real``, checked by reading it back."""
    target = _new_backup_name(real)
    _write_new_file(target, old, mode)
    if read_bytes(target) != old:
        os.unlink(str(target))
        raise Refused("cannot back up %s: the copy %s does not read back identical" % (real, target))
    return target


def _fsync_folder(folder: Path) -> None:
    if os.name == "nt":
        return  # folders cannot be opened for fsync on Windows
    try:
        fd = os.open(str(folder), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def safe_write(path: Path, data: bytes) -> WriteResult:
    """Replace ``path`` with ``data`` safely (see module docstring); Refused on failure."""
    real = check_writable(path)
    try:
        old = read_bytes(real)
    except OSError as exc:
        raise Refused("cannot write %s: reading it failed (%s)" % (path, exc.strerror or exc)) from None
    if old == data:
        return WriteResult(real, None, False)
    mode = stat.S_IMODE(os.stat(str(real)).st_mode) if old is not None else _default_mode()
    made: list[Path] = []
    try:
        saved = backup(real, old, mode) if old is not None else None
        if saved is not None:
            made.append(saved)
        fd, tmp_name = tempfile.mkstemp(prefix="." + real.name + ".", suffix=".tmp", dir=str(real.parent))
        tmp = Path(tmp_name)
        made.append(tmp)
        os.close(fd)
        os.unlink(tmp_name)  # recreated with O_EXCL below, with the right mode
        _write_new_file(tmp, data, mode)
        os.replace(str(tmp), str(real))
        made.remove(tmp)
        _fsync_folder(real.parent)
        return WriteResult(real, saved, True)
    except (OSError, Refused) as exc:
        for leftover in made:
            try:
                os.unlink(str(leftover))
            except OSError:
                pass
        if isinstance(exc, Refused):
            raise
        raise Refused("cannot write %s: %s" % (path, exc.strerror or exc)) from None


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
