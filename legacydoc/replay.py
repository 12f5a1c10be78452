"""Load a saved facts record: a ``facts.toml``, or a report zip from ``legacydoc report``.

A zip is read in memory, never extracted. It comes from strangers (support tickets), so
anything odd makes it refused with one line naming the file: not a zip, truncated,
encrypted, absolute or ``..`` member names, symlinks, duplicate names, too many members,
a member or total too large, or a compression ratio only a zip bomb has.
"""

from __future__ import annotations

import io
import json
import re
import stat
import zipfile
import zlib
from pathlib import Path
from typing import Any, Optional

from legacydoc import facts as facts_module
from legacydoc.errors import UsageError
from legacydoc.i18n import N_, tr
from legacydoc.safe_io import read_regular, read_small
from legacydoc.structs import field, struct

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
MAX_MEMBERS = 2000
MAX_MEMBER_BYTES = 4 * 1024 * 1024  # a command's output is kept up to 1 MiB per stream
MAX_TOTAL_BYTES = 32 * 1024 * 1024
MAX_ZIP_BYTES = 16 * 1024 * 1024  # compressed; a real report is well under 1 MiB
# Deflate tops out near 1000:1; real reports stay far below 100:1 at these sizes.
BOMB_MIN_BYTES = 1024 * 1024
BOMB_RATIO = 100
FACTS_NAME = "facts.toml"
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@struct
class Replayed:
    """What a saved file holds: the record, and for a report zip its raw commands."""

    record: dict[str, Any]
    path: Path
    kind: str  # "facts" or "report"
    commands: list[tuple[dict[str, Any], str]] = field(default_factory=list)  # (index entry, file text)
    manifest: dict[str, Any] = field(default_factory=dict)
    log_text: Optional[str] = None  # a report's log.txt (report --log)

    @property
    def source(self) -> str:
        what = tr("report %s (collected %s)") if self.kind == "report" else tr("facts from %s (collected %s)")
        return what % (self.path, self.record.get("collected_at", "?"))


def is_zip(path: Path) -> bool:
    """By content, not by name: a report renamed .toml is still a zip. Only a regular
    file is looked at (a FIFO would block; the loader then refuses it)."""
    head = read_small(str(path), 4)
    return head is not None and head in ZIP_MAGIC


def load(path: Path, with_commands: bool = True) -> Replayed:
    """A facts.toml or a report zip; every problem is a one-line UsageError. A zip's raw
    command outputs are read only ``with_commands`` (report needs them, check does not)."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(tr("%s: is a folder, not a facts file or report zip") % path)
    if is_zip(path):
        return _load_zip(path, with_commands)
    if path.suffix.lower() == ".zip" and path.exists():
        raise UsageError(tr("%s: not a zip archive (expected a report made by 'legacydoc report')") % path)
    return Replayed(record=facts_module.load(path), path=path, kind="facts")


def load_record(path: Path) -> dict[str, Any]:
    return load(path).record


def _shown(name: str) -> str:
    """A member name safe to put in a one-line message."""
    return ascii(name)[1:-1][:120]


def _refuse(path: Path, why: str) -> UsageError:
    return UsageError("%s: refused: %s" % (path, why))


def _check_member(path: Path, info: zipfile.ZipInfo) -> str:
    """The member's normalised name; refuses anything a careful extractor would."""
    name = info.filename
    shown = _shown(name)
    if _CONTROL.search(name):
        raise _refuse(path, "member name with control characters: %s" % shown)
    norm = name.replace("\\", "/")  # some Windows zippers write backslashes
    if norm.startswith("/") or _DRIVE.match(norm):
        raise _refuse(path, "member with an absolute path: %s" % shown)
    if ".." in norm.split("/"):
        raise _refuse(path, "member escaping the archive with '..': %s" % shown)
    mode = info.external_attr >> 16
    if info.create_system == 3 and stat.S_ISLNK(mode):
        raise _refuse(path, "symbolic link member: %s" % shown)
    if info.flag_bits & 0x1:
        raise _refuse(path, "encrypted member: %s" % shown)
    if info.file_size > MAX_MEMBER_BYTES:
        raise _refuse(path, "member %s is %d bytes (limit %d)" % (shown, info.file_size, MAX_MEMBER_BYTES))
    if info.file_size > BOMB_MIN_BYTES and info.file_size > BOMB_RATIO * max(info.compress_size, 1):
        raise _refuse(path, "member %s expands %d times (a zip bomb?)" % (
            shown, info.file_size // max(info.compress_size, 1)))
    return norm


class _SafeZip:
    """An opened, checked zip: members by normalised name, read with bounds."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # A regular file within the cap, read once: the archive is then parsed in memory.
        data = read_regular(path, MAX_ZIP_BYTES, N_("report zip"))
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except zipfile.BadZipFile as exc:
            raise UsageError(tr("%s: not a readable zip archive (truncated or damaged: %s)") % (path, exc)) from None
        except (OSError, ValueError, EOFError, RuntimeError) as exc:
            raise UsageError(tr("%s: cannot read zip archive: %s") % (path, exc)) from None
        if len(infos) > MAX_MEMBERS:
            raise _refuse(path, "%d members (limit %d)" % (len(infos), MAX_MEMBERS))
        total = sum(i.file_size for i in infos)
        if total > MAX_TOTAL_BYTES:
            raise _refuse(path, "%d bytes uncompressed in all (limit %d)" % (total, MAX_TOTAL_BYTES))
        self.members: dict[str, zipfile.ZipInfo] = {}
        seen: set[str] = set()
        for info in infos:
            norm = _check_member(path, info)
            if info.is_dir() or norm.endswith("/"):
                continue
            key = norm.lower()  # names differing in case only would collide on Windows
            if key in seen:
                raise _refuse(path, "duplicate member name: %s" % _shown(norm))
            seen.add(key)
            self.members[norm] = info

    def read_text(self, name: str) -> str:
        info = self.members[name]
        try:
            with self.zip.open(info) as handle:
                data = handle.read(MAX_MEMBER_BYTES + 1)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, OSError, EOFError, ValueError, RuntimeError,
                NotImplementedError) as exc:
            # CRC mismatch, lying sizes, unsupported compression: all mean "do not trust it"
            raise UsageError(tr("%s: not a readable zip archive (member %s: %s)")
                             % (self.path, _shown(name), exc)) from None
        if len(data) > MAX_MEMBER_BYTES:
            raise _refuse(self.path, "member %s is larger than it claims" % _shown(name))
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise UsageError(tr("%s: member %s is not UTF-8 text (byte %d)")
                             % (self.path, _shown(name), exc.start)) from None

    def close(self) -> None:
        self.zip.close()


def _facts_member(members: dict[str, zipfile.ZipInfo], path: Path) -> str:
    """The facts.toml member's name, in whatever case it was zipped ('' or one top folder:
    a re-zipped report has one)."""
    found = [n for n in members if n.split("/")[-1].lower() == FACTS_NAME and n.count("/") <= 1]
    if not found:
        raise UsageError(tr("%s: no %s in this zip (is it a report from 'legacydoc report'?)") % (path, FACTS_NAME))
    if len(found) > 1:
        raise _refuse(path, "several %s members: %s" % (FACTS_NAME, ", ".join(_shown(n) for n in sorted(found))))
    return found[0]


def _commands(safe: _SafeZip, prefix: str) -> list[tuple[dict[str, Any], str]]:
    """The raw command outputs listed in commands/index.json; a broken index loses only them."""
    index_name = prefix + "commands/index.json"
    if index_name not in safe.members:
        return []
    try:
        index = json.loads(safe.read_text(index_name))
    except (ValueError, UsageError, RecursionError):
        return []
    out = []
    read: set[str] = set()
    for entry in index[:MAX_MEMBERS] if isinstance(index, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        name = prefix + "commands/" + entry["file"]
        # each member once: an index that lists one big member many times must not
        # multiply it in memory (or in a zip rebuilt from this one)
        if "/" in entry["file"] or name not in safe.members or name in read:
            continue
        read.add(name)
        out.append((entry, safe.read_text(name)))
    return out


def _load_zip(path: Path, with_commands: bool = True) -> Replayed:
    safe = _SafeZip(path)
    try:
        facts_name = _facts_member(safe.members, path)
        prefix = facts_name[: -len(FACTS_NAME)]
        facts_info = safe.members[facts_name]
        if facts_info.file_size > facts_module.MAX_FILE_BYTES:
            raise _refuse(path, "%s is %d bytes (limit %d)" % (FACTS_NAME, facts_info.file_size,
                                                                facts_module.MAX_FILE_BYTES))
        record = facts_module.loads(safe.read_text(facts_name), source="%s:%s" % (path, facts_name))
        manifest: dict[str, Any] = {}
        if prefix + "manifest.json" in safe.members:
            try:
                loaded = json.loads(safe.read_text(prefix + "manifest.json"))
                manifest = loaded if isinstance(loaded, dict) else {}
            except (ValueError, RecursionError):
                manifest = {}
        commands = _commands(safe, prefix) if with_commands else []
        log_text = None
        if with_commands and prefix + "log.txt" in safe.members:
            log_text = safe.read_text(prefix + "log.txt")
        return Replayed(record=record, path=path, kind="report", commands=commands, manifest=manifest,
                        log_text=log_text)
    finally:
        safe.close()

