"""Theano's configuration inputs as Theano 1.0.5 would find them: the config files it
reads (and look-alikes it silently ignores), the *_FLAGS variables, and the compile
cache under ``base_compiledir``.

Raw facts only: file bytes are decoded and recorded, never interpreted beyond the one
``base_compiledir`` look-up needed to find the cache. Validating options is the job of
the config model and the rules.

Behaviour mirrored from Theano 1.0.5 (theano/configparser.py, configdefaults.py,
gof/compilelock.py):

* files = ``THEANORC`` split on ``os.pathsep``, each through ``expanduser``; default
  ``~/.theanorc``, plus ``~/.theanorc.txt`` only when THEANORC is unset and
  ``sys.platform == "win32"``. A set-but-empty THEANORC counts as set.
* ``base_compiledir`` default: ``%LOCALAPPDATA%\\Theano`` on win32 when LOCALAPPDATA is
  set, else ``$HOME/.theano`` (HOME first, even on Windows); a configured value goes
  through ``expanduser``.
* cache folders are ``compiledir_<short_platform>-<processor>-<python_version>-
  <bitwidth>`` (runs of spaces, commas and parentheses become ``_``); a compile lock is
  the folder ``<compiledir>/lock_dir`` holding a file ``lock`` with ``pid_random_host``.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
import time
from typing import Any, Optional

from legacydoc.probes import mounts
from legacydoc.probes.context import ProbeContext
from legacydoc.safe_io import read_small
from legacydoc.theanorc.discovery import config_file_paths
from legacydoc.theanorc.explicit import explicit_settings, inputs_record

# A .theanorc is a few lines; anything past this is not worth carrying in the facts.
TEXT_MAX_BYTES = 64 * 1024
# A cache can hold tens of thousands of module folders: count, but only so far.
MAX_SUBDIRS = 50
MAX_ENTRIES = 100_000
MAX_LOCK_OWNER_CHARS = 200
FLAG_VARIABLES = ("THEANO_FLAGS", "AESARA_FLAGS", "PYTENSOR_FLAGS")
RC_NAMES = (".theanorc", ".theanorc.txt")
# Env values can never contain NUL, so this marks "unset" apart from "set to ''".
_UNSET = "\0unset"

# compiledir_<platform>-<processor>-<python_version>-<bitwidth>; the platform part has
# dashes of its own, the processor never does (x86_64, '', Intel64_Family_6_...).
_COMPILEDIR_RE = re.compile(
    r"^compiledir_(?P<platform>.+)-(?P<processor>[^-]*)-(?P<python_version>\d+\.\d+[^-]*)-(?P<bitwidth>\d+)$"
)


# --- small helpers ----------------------------------------------------------------


def _env_or_none(ctx: ProbeContext, name: str) -> Optional[str]:
    value = ctx.env(name, _UNSET)
    return None if value == _UNSET else value


def _is_win32(ctx: ProbeContext) -> bool:
    # Theano tests sys.platform == "win32": Cygwin Python gets neither .theanorc.txt
    # nor the LOCALAPPDATA cache.
    return ctx.is_windows and ctx.platform != "cygwin"


def _on_disk(ctx: ProbeContext, path: str) -> str:
    """Where a path Theano opens relative to its working directory lies for us (the
    disk is this machine's, so this machine's path rules)."""
    return os.path.join(str(ctx.cwd), path) if path else path


def _norm_key(ctx: ProbeContext, path: str) -> str:
    pm = ctx.pathmod
    return pm.normcase(pm.normpath(_on_disk(ctx, path))) if path else ""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return "%s: %s" % (type(exc).__name__, exc.strerror)
    return "%s: %s" % (type(exc).__name__, exc)


# --- decoding ---------------------------------------------------------------------


def decode_config_bytes(data: bytes, truncated: bool = False) -> dict[str, Any]:
    """Encoding facts and text for the (possibly truncated) bytes of a config file.

    ``encoding`` is ``utf-8``, ``utf-8-sig`` (UTF-8 BOM), ``utf-16`` (UTF-16 BOM) or
    ``undecodable`` (with ``undecodable_offset``, the byte offset of the first bad
    byte, and the text decoded with replacement characters). ``gbk_decodable`` is
    given whenever the file is not UTF-8. Never raises.
    """
    out: dict[str, Any] = {}
    final = not truncated  # a cut in the middle of a character is not an error
    text: Optional[str] = None
    if data.startswith(codecs.BOM_UTF8):
        out["bom"] = "utf-8"
        body = data[len(codecs.BOM_UTF8):]
        try:
            text = codecs.getincrementaldecoder("utf-8")().decode(body, final)
            out["encoding"] = "utf-8-sig"
        except UnicodeDecodeError as exc:
            out["encoding"] = "undecodable"
            out["undecodable_offset"] = exc.start + len(codecs.BOM_UTF8)
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        out["bom"] = "utf-16-le" if data.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
        try:
            # The utf-16 codec reads the BOM and drops it.
            text = codecs.getincrementaldecoder("utf-16")().decode(data, final)
            out["encoding"] = "utf-16"
        except UnicodeDecodeError as exc:
            out["encoding"] = "undecodable"
            out["undecodable_offset"] = exc.start
    else:
        try:
            text = codecs.getincrementaldecoder("utf-8")().decode(data, final)
            out["encoding"] = "utf-8"
        except UnicodeDecodeError as exc:
            out["encoding"] = "undecodable"
            out["undecodable_offset"] = exc.start
    if out["encoding"] not in ("utf-8", "utf-8-sig"):
        # Python 3's ConfigParser opens files in the locale encoding: GBK bytes load
        # fine on a Chinese Windows and fail elsewhere, so the rules need to know.
        try:
            codecs.getincrementaldecoder("gbk")().decode(data, final)
            out["gbk_decodable"] = True
        except UnicodeDecodeError:
            out["gbk_decodable"] = False
    if text is None:
        text = data.decode("utf-8", errors="replace")
    out["crlf"] = "\r\n" in text
    out["text"] = text
    if truncated:
        out["text_truncated"] = True
    return out


def _read_head(path: str, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file (the seam tests use to fake read errors).
    A FIFO put where a config file or a compile lock belongs would block the probe and lose
    the whole area: it is an error to record, not a file to wait on."""
    data = read_small(path, limit)
    if data is None:
        raise OSError(errno.EINVAL, "not a regular file that can be read")
    return data


def describe_file(path: str, on_disk: str) -> dict[str, Any]:
    """Existence, type, size and decoded content of one config file. Never raises.

    Only regular files are opened: a FIFO or device named in THEANORC would block or
    stream forever.
    """
    fact: dict[str, Any] = {"path": path}
    if on_disk != path:
        fact["abspath"] = on_disk
    try:
        fact["is_symlink"] = os.path.islink(on_disk) if on_disk else False
        if fact["is_symlink"]:
            try:
                fact["symlink_target"] = os.readlink(on_disk)
            except (OSError, ValueError):
                pass
        try:
            st = os.stat(on_disk) if on_disk else None
        except (OSError, ValueError) as exc:
            st = None
            if not isinstance(exc, FileNotFoundError):
                fact["stat_error"] = _error_text(exc)
        fact["exists"] = st is not None
        fact["readable"] = False
        if st is None:
            return fact
        if stat.S_ISREG(st.st_mode):
            fact["kind"] = "file"
        elif stat.S_ISDIR(st.st_mode):
            fact["kind"] = "directory"
        else:
            fact["kind"] = "other"
        fact["size"] = st.st_size
        if fact["kind"] != "file":
            return fact
        try:
            data = _read_head(on_disk, TEXT_MAX_BYTES + 1)
        except (OSError, ValueError) as exc:
            fact["read_error"] = _error_text(exc)
            return fact
        fact["readable"] = True
        truncated = len(data) > TEXT_MAX_BYTES
        fact.update(decode_config_bytes(data[:TEXT_MAX_BYTES], truncated))
    except Exception as exc:  # a probe records, it does not crash
        fact["error"] = _error_text(exc)
        fact.setdefault("exists", False)
        fact.setdefault("readable", False)
    return fact


# --- discovery --------------------------------------------------------------------


def config_file_list(ctx: ProbeContext) -> list[tuple[str, str]]:
    """(path, origin) of every file Theano would hand to ConfigParser.read (the config
    model's rule, with this machine's expanduser)."""
    return config_file_paths(
        _env_or_none(ctx, "THEANORC"), ctx.home() or "", ctx.is_windows, _is_win32(ctx), ctx.expanduser
    )


def read_config_files(ctx: ProbeContext) -> list[dict[str, Any]]:
    files: list[dict[str, Any]] = []
    for path, origin in config_file_list(ctx):
        fact: dict[str, Any] = {"path": path, "from": origin}
        fact.update(describe_file(path, _on_disk(ctx, path)))
        files.append(fact)
    return files


def theano_settings(
    ctx: ProbeContext, names: tuple[str, ...], files: Optional[list[dict[str, Any]]] = None
) -> dict[str, dict[str, str]]:
    """The settings the config files and THEANO_FLAGS give these options, read by the config
    model (legacydoc.theanorc): what the cuda and cudnn probes need before the record exists."""
    if files is None:
        files = read_config_files(ctx)
    record = inputs_record(
        ctx.family, files, _env_or_none(ctx, "THEANO_FLAGS"), _env_or_none(ctx, "THEANORC"), ctx.environ, ctx.home()
    )
    return explicit_settings(record, names)


def _unread_files(ctx: ProbeContext, read: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Config-looking files near the user that Theano will not read."""
    read_keys = {_norm_key(ctx, f["path"]) for f in read}
    read_disk = [_on_disk(ctx, f["path"]) for f in read if f.get("exists")]
    places: list[tuple[str, str]] = [("cwd", str(ctx.cwd))]
    if ctx.project is not None:
        places.append(("project", str(ctx.project)))
    home = ctx.home()
    if home:
        # ~/.theanorc when THEANORC replaces it; ~/.theanorc.txt off win32.
        places.append(("home", home))
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for where, folder in places:
        for name in RC_NAMES:
            path = os.path.join(folder, name)
            key = _norm_key(ctx, path)
            if key in seen or key in read_keys:
                continue
            seen.add(key)
            try:
                if not os.path.lexists(path):
                    continue
            except (OSError, ValueError):
                continue
            if any(_same_file(path, other) for other in read_disk):
                continue  # same file reached through a symlink or another spelling
            fact: dict[str, Any] = {"path": path, "where": where}
            fact.update(describe_file(path, path))
            out.append(fact)
    return out


# --- base_compiledir ----------------------------------------------------------------


def _as_compiledir_setting(setting: Optional[dict[str, str]]) -> Optional[dict[str, str]]:
    """The model's answer in the shape the compiledir facts have always had."""
    if setting is None:
        return None
    if setting["source"] == "THEANO_FLAGS":
        return {"value": setting["value"], "source": "THEANO_FLAGS"}
    return {"value": setting["value"], "source": "config_file", "source_file": setting["source"]}


def _default_base_compiledir(ctx: ProbeContext) -> tuple[str, str]:
    localappdata = _env_or_none(ctx, "LOCALAPPDATA")
    if _is_win32(ctx) and localappdata is not None:
        return ctx.pathmod.join(localappdata, "Theano"), "LOCALAPPDATA"
    home = _env_or_none(ctx, "HOME")
    if home is not None:
        return ctx.pathmod.join(home, ".theano"), "HOME"
    # Without HOME Theano falls back to expanduser (USERPROFILE on Windows).
    home = ctx.home()
    return ctx.pathmod.join(home or "~", ".theano"), "home"


def parse_compiledir_name(name: str) -> dict[str, Any]:
    """The pieces of a default-format compiledir name; {} when it does not fit."""
    match = _COMPILEDIR_RE.match(name)
    if not match:
        return {}
    parts: dict[str, Any] = {
        "platform": match.group("platform"),
        "processor": match.group("processor"),
        "python_version": match.group("python_version"),
        "bitwidth": int(match.group("bitwidth")),
    }
    parts["system"] = parts["platform"].split("-", 1)[0]
    return parts


def _lock_fact(lock_dir: str, now: float) -> dict[str, Any]:
    fact: dict[str, Any] = {}
    lock_file = os.path.join(lock_dir, "lock")
    try:
        # A live owner rewrites 'lock' every compile.timeout/2 s, so its mtime is the age.
        st = os.stat(lock_file)
        fact["lock_file"] = True
    except OSError:
        fact["lock_file"] = False
        try:
            st = os.stat(lock_dir)
        except OSError:
            return fact
    fact["age_s"] = round(max(0.0, now - st.st_mtime), 1)
    if fact["lock_file"]:
        try:
            first = _read_head(lock_file, 4096).decode("utf-8", errors="replace").splitlines()
        except (OSError, ValueError):
            first = []
        if first:
            owner = first[0].strip()[:MAX_LOCK_OWNER_CHARS]
            fact["owner"] = owner
            pieces = owner.split("_", 2)  # pid_random_hostname
            if len(pieces) == 3 and pieces[0].isdigit():
                fact["owner_pid"] = int(pieces[0])
                fact["owner_host"] = pieces[2]
    return fact


def _subdir_fact(base: str, name: str, now: float) -> dict[str, Any]:
    path = os.path.join(base, name)
    fact: dict[str, Any] = {"name": name}
    fact.update(parse_compiledir_name(name))
    entries = modules = 0
    try:
        with os.scandir(path) as it:
            for entry in it:
                if entries >= MAX_ENTRIES:
                    fact["entries_truncated"] = True
                    break
                entries += 1
                # Compiled modules live in tempfile.mkdtemp() folders: tmpXXXXXX.
                if entry.name.startswith("tmp"):
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            modules += 1
                    except OSError:
                        pass
    except OSError as exc:
        fact["scan_error"] = _error_text(exc)
    fact["entries"] = entries
    fact["module_dirs"] = modules
    lock_dir = os.path.join(path, "lock_dir")
    if os.path.isdir(lock_dir):
        fact["lock_dir"] = _lock_fact(lock_dir, now)
    return fact


def _creatable(path: str) -> bool:
    """Whether makedirs(path) could succeed: the nearest existing ancestor is writable."""
    current = os.path.abspath(path)
    while True:
        parent = os.path.dirname(current)
        if os.path.exists(current):
            return os.path.isdir(current) and os.access(current, os.W_OK | os.X_OK)
        if parent == current:
            return False
        current = parent


def compiledir_facts(ctx: ProbeContext, files: list[dict[str, Any]], now: Optional[float] = None) -> dict[str, Any]:
    now = time.time() if now is None else now
    fact: dict[str, Any] = {}
    settings = theano_settings(ctx, ("base_compiledir", "compiledir"), files)
    setting = _as_compiledir_setting(settings.get("base_compiledir"))
    if setting is None:
        base, default_from = _default_base_compiledir(ctx)
        fact.update({"base_compiledir": base, "source": "default", "default_from": default_from})
    else:
        base = ctx.expanduser(setting["value"])  # Theano's filter_base_compiledir
        fact["base_compiledir"] = base
        if base != setting["value"]:
            fact["base_compiledir_raw"] = setting["value"]
        fact["source"] = setting["source"]
        if "source_file" in setting:
            fact["source_file"] = setting["source_file"]
    # An explicit compiledir bypasses base_compiledir/compiledir_<platform> entirely.
    explicit = _as_compiledir_setting(settings.get("compiledir"))
    if explicit is not None:
        fact["compiledir_setting"] = explicit["value"]
        fact["compiledir_setting_source"] = explicit["source"]
    disk = _on_disk(ctx, base)
    if disk != base:
        fact["abspath"] = disk
    if ctx.family == "linux":
        # The folder the modules and lock_dir really go to: compiledir when set, else base.
        cache = _on_disk(ctx, ctx.expanduser(explicit["value"])) if explicit is not None else disk
        fact.update(mounts.folder_filesystem(cache, ctx.mounts_file))
    try:
        fact["exists"] = os.path.isdir(disk)
        if not fact["exists"]:
            if os.path.lexists(disk):
                fact["not_a_directory"] = True
            fact["creatable"] = _creatable(disk)
            fact["writable"] = False
            return fact
        fact["writable"] = os.access(disk, os.W_OK | os.X_OK)
        names: list[str] = []
        with os.scandir(disk) as it:
            for entry in it:
                try:
                    if entry.name.startswith("compiledir_") and entry.is_dir():
                        names.append(entry.name)
                except OSError:
                    pass
        names.sort()
        fact["subdirs_total"] = len(names)
        if len(names) > MAX_SUBDIRS:
            fact["subdirs_truncated"] = True
        fact["subdirs"] = [_subdir_fact(disk, name, now) for name in names[:MAX_SUBDIRS]]
    except (OSError, ValueError) as exc:
        fact["scan_error"] = _error_text(exc)
    return fact


# --- entry point ------------------------------------------------------------------


def collect(ctx: ProbeContext) -> dict[str, Any]:
    files = read_config_files(ctx)
    result: dict[str, Any] = {"files": files, "unread_files": _unread_files(ctx, files)}
    flags = {}
    for name in FLAG_VARIABLES:
        value = _env_or_none(ctx, name)
        if value is not None:
            flags[name] = value
    result["flags"] = flags
    theanorc = _env_or_none(ctx, "THEANORC")
    if theanorc is not None:
        result["theanorc_env"] = theanorc
    result["compiledir"] = compiledir_facts(ctx, files)
    return result
