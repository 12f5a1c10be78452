"""A cache of parsed data files, so every run does not parse the same TOML again.

Parsing the rule packs, the knowledge tables and the catalogues with the pure-Python TOML
reader takes about a tenth of a second, a good part of a replayed check. The cache is keyed
by the file's bytes (:func:`digest`), so an edited file is simply another entry and nothing
is ever stale; its value is the parsed data as JSON, which reads many times faster. The
same folder keeps validation verdicts: an empty marker per (validator, key) it accepted.

Where: ``LEGACYDOC_CACHE_DIR`` (empty: no cache), else the user's cache folder
(``$XDG_CACHE_HOME`` or ``~/.cache`` on POSIX, ``%LOCALAPPDATA%`` on Windows) under
``legacydoc/parsed``. It is a cache: any problem reading or writing it is ignored, and
data JSON cannot hold exactly (TOML dates) is not cached. Writes go through the safe writer.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any, Optional

FORMAT = 2  # bump when the stored shape changes
MAX_ENTRY_BYTES = 16 * 1024 * 1024


def digest(data: bytes) -> str:
    """A key for these bytes: CRC-32, Adler-32 and the length. Checksums, not SHA-256:
    importing hashlib (OpenSSL) took 4 ms of every run, and the key only has to tell an
    edited file from the one cached. It is no defence against someone who can write to
    the user's own cache folder: they could as well edit the installed package."""
    return "%08x%08x%x" % (zlib.crc32(data), zlib.adler32(data), len(data))


def cache_dir() -> Optional[Path]:
    chosen = os.environ.get("LEGACYDOC_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA")
        return Path(base) / "legacydoc" / "parsed" if base else None
    base = os.environ.get("XDG_CACHE_HOME") or (
        os.path.join(os.environ["HOME"], ".cache") if os.environ.get("HOME") else "")
    return Path(base) / "legacydoc" / "parsed" if base else None


def _entry(data: bytes) -> Optional[Path]:
    folder = cache_dir()
    if folder is None:
        return None
    return folder / ("%s-%d.json" % (digest(data), FORMAT))


def load(data: bytes) -> Optional[dict[str, Any]]:
    """The parsed form of these bytes, if cached."""
    found = load_stored(data)
    return found[0] if found is not None else None


def load_stored(data: bytes) -> Optional[tuple[dict[str, Any], bytes]]:
    """The parsed form of these bytes and the JSON it was read from, if cached."""
    from legacydoc.safe_io import read_small

    try:
        entry = _entry(data)
        raw = read_small(str(entry), MAX_ENTRY_BYTES) if entry is not None else None
        value = json.loads(raw) if raw else None
    except (ValueError, OSError):
        return None
    return (value, raw) if isinstance(value, dict) and raw else None


def store(data: bytes, parsed: dict[str, Any]) -> Optional[bytes]:
    """Remember the parsed form; the JSON it is kept as, or None when it cannot be kept
    (a cache is optional: nothing is said about why)."""
    if cache_dir() is None:
        return None
    try:
        text = json.dumps(parsed, ensure_ascii=False, allow_nan=False)
        if json.loads(text) != parsed:  # a type JSON would change (a tuple, a float key)
            return None
        content = text.encode("utf-8")
        _put(_entry(data), content)
        return content
    except (TypeError, ValueError, RecursionError):
        return None


def _put(path: Optional[Path], content: bytes) -> None:
    """Write one cache file through the safe writer; silently nothing when it cannot be."""
    from legacydoc.errors import UsageError
    from legacydoc.safe_io import replace_file

    if path is None:
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        replace_file(path, content)
    except (OSError, UsageError):
        return


# Validation results: a marker file per (validator, key). A validator names itself by
# what decides its verdict (its own source, the libraries and Python it runs on), so an
# edited schema, an upgraded library or another Python simply validates again; the key is
# whatever the verdict was given on (for a knowledge table: its name and parsed data).


def _marker(validator: str, data: bytes) -> Optional[Path]:
    folder = cache_dir()
    if folder is None:
        return None
    return folder / ("%s-%d.valid" % (digest(validator.encode("utf-8") + b"\0" + data), FORMAT))


def known_valid(validator: str, data: bytes) -> bool:
    """Whether ``validator`` already accepted exactly this key."""
    try:
        marker = _marker(validator, data)
        return marker is not None and marker.is_file()
    except OSError:
        return False


def remember_valid(validator: str, data: bytes) -> None:
    """Record that ``validator`` accepted this key; silently nothing when it cannot be."""
    _put(_marker(validator, data), b"")
