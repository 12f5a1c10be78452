"""Every file legacydoc writes or reads from a user goes through here.

Writing (``probe --save``, ``report -o``, ``theanorc --write`` and its backup):

* the target is resolved through symbolic links; what is replaced must be a regular file
  (or not exist yet): a folder, device, FIFO, socket, dangling link or link loop is
  refused with one line, having touched nothing;
* a read-only target, and a target with several hard links (replacing it would split
  them), are refused too: the user made it so, and legacydoc will not undo that quietly;
* the data goes to a temporary file created exclusively (``O_EXCL``, a name nobody can
  predict) in the target's folder, is flushed to disk, and is renamed over the target;
  the old file's permission bits are kept, and its owner when running as root;
* on any failure every file this write created is removed (a full disk leaves no empty
  backup and no temporary file behind).

Reading (``--facts``, rule packs, a report zip, a log): only a regular file within a
size cap is read; a FIFO (which would block) or ``/dev/zero`` (which never ends) is
refused before it is opened for reading.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Optional

from legacydoc.errors import UsageError
from legacydoc.i18n import tr
from legacydoc.structs import struct

BACKUP_SUFFIX = ".legacydoc-bak"
MAX_BACKUPS = 1000


class Refused(UsageError):
    """Cannot read or write safely; the message is one line naming the file."""


@struct
class WriteResult:
    """What a safe write did: the file replaced, its backup, and whether it changed."""

    target: Path  # the file actually replaced (a symlink's destination)
    backup: Optional[Path]  # None when there was no old file (or no backup was asked for)
    changed: bool


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return tr("a folder")
    if stat.S_ISFIFO(mode):
        return tr("a FIFO (named pipe)")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return tr("a device")
    if stat.S_ISSOCK(mode):
        return tr("a socket")
    return tr("not a regular file")


def resolve_target(path: Path) -> Path:
    """The regular file to replace for ``path`` (following symlinks), or Refused."""
    path = Path(os.path.abspath(str(path)))
    try:
        st = os.stat(str(path))  # follows links; ELOOP for a loop
    except FileNotFoundError:
        if os.path.islink(str(path)):
            raise Refused(tr("%s is a symbolic link to %s, which does not exist")
                          % (path, os.readlink(str(path)))) from None
        return path
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(tr("%s is a symbolic link loop") % path) from None
        raise Refused(tr("%s cannot be examined: %s") % (path, exc.strerror or exc)) from None
    if not stat.S_ISREG(st.st_mode):
        raise Refused(tr("%s is %s: legacydoc writes only regular files") % (path, _kind(st.st_mode)))
    return Path(os.path.realpath(str(path)))


def check_writable(path: Path, need_read: bool = True) -> Path:
    """Every refusal that can be known before touching anything. Returns the real target."""
    real = resolve_target(path)
    folder = real.parent
    if not folder.is_dir():
        raise Refused(tr("cannot write %s: the folder %s does not exist") % (path, folder))
    if not os.access(str(folder), os.W_OK | os.X_OK):
        raise Refused(tr("cannot write %s: no permission to create files in %s (needed to replace it safely)")
                      % (path, folder))
    if real.exists():
        st = os.stat(str(real))
        if need_read and not os.access(str(real), os.R_OK):
            raise Refused(tr("cannot write %s: it cannot be read, so it cannot be backed up first") % path)
        # root passes os.access whatever the mode: no write bit at all also means read-only
        if not os.access(str(real), os.W_OK) or not st.st_mode & 0o222:
            raise Refused(tr("cannot write %s: it is read-only; make it writable first if it should change") % path)
        if st.st_nlink > 1:
            raise Refused(tr("cannot write %s: it has %d hard links, and replacing it would split them")
                          % (path, st.st_nlink))
    return real


def read_bytes(path: Path) -> Optional[bytes]:
    """A regular file's bytes for a backup or comparison (None: it does not exist)."""
    try:
        with open(str(path), "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def _write_new_file(path: Path, data: bytes, mode: int) -> None:
    """Create ``path`` (never overwrite), write, flush to disk; on failure it is removed."""
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
    try:
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        _unlink(path)
        raise
    os.close(fd)


def _unlink(path: Path) -> None:
    try:
        os.unlink(str(path))
    except OSError:
        pass


def _new_backup_name(real: Path) -> Path:
    candidate = real.with_name(real.name + BACKUP_SUFFIX)
    for n in range(1, MAX_BACKUPS):
        if not os.path.lexists(str(candidate)):
            return candidate
        candidate = real.with_name("%s%s.%d" % (real.name, BACKUP_SUFFIX, n))
    raise Refused(tr("cannot back up %s: %d backups already exist") % (real, MAX_BACKUPS))


def backup(real: Path, old: bytes, mode: int) -> Path:
    """A byte-for-byte copy of ``old`` next to ``real``, checked by reading it back."""
    target = _new_backup_name(real)
    _write_new_file(target, old, mode)
    if read_bytes(target) != old:
        _unlink(target)
        raise Refused(tr("cannot back up %s: the copy %s does not read back identical") % (real, target))
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


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _temporary(real: Path) -> tuple[int, Path]:
    """An exclusively created temporary file beside ``real`` (mkstemp: O_EXCL, random name)."""
    fd, name = tempfile.mkstemp(prefix="." + real.name + ".", suffix=".tmp", dir=str(real.parent))
    return fd, Path(name)


def replace_file(path: Path, data: bytes, keep_backup: bool = False) -> WriteResult:
    """Replace (or create) ``path`` with ``data`` safely; Refused, one line, on failure."""
    real = check_writable(path, need_read=keep_backup)
    old: Optional[bytes] = None
    existing: Optional[os.stat_result] = None
    try:
        if real.exists():
            existing = os.stat(str(real))
            if keep_backup:
                old = read_bytes(real)
    except OSError as exc:
        raise Refused(tr("cannot write %s: reading it failed (%s)") % (path, exc.strerror or exc)) from None
    if keep_backup and old == data:
        return WriteResult(real, None, False)
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else _default_mode()
    made: list[Path] = []
    try:
        saved = backup(real, old, mode) if old is not None else None
        if saved is not None:
            made.append(saved)
        fd, tmp = _temporary(real)
        made.append(tmp)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.chmod(str(tmp), mode)
        if existing is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
            # root replacing a user's file must not hand it to root
            os.chown(str(tmp), existing.st_uid, existing.st_gid)
        os.replace(str(tmp), str(real))
        made.remove(tmp)
        _fsync_folder(real.parent)
        return WriteResult(real, saved, True)
    except (OSError, Refused) as exc:
        for leftover in made:
            _unlink(leftover)
        if isinstance(exc, Refused):
            raise
        raise Refused(tr("cannot write %s: %s") % (path, exc.strerror or exc)) from None


def read_regular(path: Path, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; Refused otherwise."""
    path = Path(path)
    try:
        st = os.stat(str(path))
    except OSError as exc:
        raise Refused(tr("%s: cannot read %s: %s") % (path, tr(what), exc.strerror or exc)) from None
    if not stat.S_ISREG(st.st_mode):
        raise Refused(tr("%s: not a %s: it is %s") % (path, tr(what), _kind(st.st_mode)))
    if st.st_size > limit:
        raise Refused(tr("%s: %s is %d bytes, more than the %d this reads") % (path, tr(what), st.st_size, limit))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(str(path), flags)
    except OSError as exc:
        raise Refused(tr("%s: cannot read %s: %s") % (path, tr(what), exc.strerror or exc)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between stat and open
            raise Refused(tr("%s: not a %s") % (path, tr(what)))
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise Refused(tr("%s: cannot read %s: %s") % (path, tr(what), exc.strerror or exc)) from None
    finally:
        os.close(fd)
    if total > limit:
        raise Refused(tr("%s: %s is more than the %d bytes this reads") % (path, tr(what), limit))
    return b"".join(chunks)


def read_small(path: str, limit: int) -> Optional[bytes]:
    """For probes: the first ``limit`` bytes of a regular file, or None (missing, not a
    regular file, unreadable). Never blocks on a FIFO, never raises."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        # One read is not enough: /proc files hand back about a page per read (seq_file), so
        # /proc/modules past its first 4 KiB would read as missing its later lines.
        chunks: list[bytes] = []
        total = 0
        while total < limit:
            chunk = os.read(fd, limit - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
