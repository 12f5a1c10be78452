"""Which files Theano reads, in which order, and how to change that.

Theano (0.8 to Theano-PyMC 1.1.2, the same code): ``THEANORC`` split on ``os.pathsep``,
each entry through ``expanduser``; when THEANORC is unset, ``~/.theanorc`` and, on
win32 only, ``~/.theanorc.txt`` after it. A later file overrides an earlier one. The
theano_config probe applies exactly this; these helpers work from its facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from legacydoc.facts import get
from legacydoc.structs import struct
from legacydoc.theanorc import machine


def config_file_paths(
    theanorc: Optional[str],
    home: str,
    windows: bool,
    win32: bool = True,
    expanduser: Optional[Callable[[str], str]] = None,
) -> list[tuple[str, str]]:
    """(path, origin) of every file Theano hands to ConfigParser.read, in order: THEANORC
    split on os.pathsep (a set-but-empty THEANORC counts as set), each entry through
    expanduser; else ~/.theanorc and, on win32 only, ~/.theanorc.txt. ``expanduser`` is
    the live machine's (a probe) or, by default, home-prefix replacement (a record)."""
    sep = ";" if windows else ":"

    def expand(path: str) -> str:
        if expanduser is not None:
            return expanduser(path)
        if path == "~" or path.startswith("~/") or (windows and path.startswith("~\\")):
            return home + path[1:] if home else path
        return path

    if theanorc is not None:
        return [(expand(part), "THEANORC") for part in theanorc.split(sep)]
    # Theano's own literals: on Windows expanduser keeps the '/' ("C:\\Users\\me/.theanorc").
    files = [(expand("~/.theanorc"), "default")]
    if windows and win32:
        files.append((expand("~/.theanorc.txt"), "default"))
    return files


def _spelled(home: Optional[str], path: str) -> str:
    """A path as a user would type it in THEANORC: ~ for the home folder."""
    if home and path.startswith(home) and len(path) > len(home) and path[len(home)] in "/\\":
        return "~" + path[len(home):]
    return path


def theanorc_value(
    record: Mapping[str, Any], add: Sequence[str] = (), drop: Sequence[str] = (), first: bool = False
) -> str:
    """A THEANORC value: the current list (or the default files) with ``add`` appended
    (or put first) and ``drop`` removed."""
    windows = machine.is_windows(record)
    sep = machine.pathsep(record)
    current = machine.theanorc_env(record)
    if current is not None:
        entries = [e for e in current.split(sep)]
    else:
        slash = "\\" if windows else "/"
        entries = ["~%s.theanorc" % slash] + (["~%s.theanorc.txt" % slash] if machine.is_win32(record) else [])
    home = machine.home(record)  # once: it scans the record (a list can hold thousands)
    dropped = {_spelled(home, d) for d in drop} | set(drop)
    entries = [e for e in entries if e and e not in dropped and _spelled(home, e) not in dropped]
    present = set(entries)
    extra = [_spelled(home, a) for a in add if _spelled(home, a) not in present]
    entries = extra + entries if first else entries + extra
    return sep.join(entries)


def theanorc_line(
    record: Mapping[str, Any], add: Sequence[str] = (), drop: Sequence[str] = (), first: bool = False
) -> str:
    """The shell line that sets THEANORC so, in the reader's shell (legacydoc.shells: cmd
    on a Windows record unless --shell says otherwise). A list left empty means unsetting
    it: THEANORC set to nothing makes Theano read no file at all."""
    from legacydoc.shells import family, for_facts

    value = theanorc_value(record, add, drop, first)
    shell = family(for_facts(record))
    if shell == "cmd":
        return 'set "THEANORC=%s"' % value  # cmd.exe: 'set "NAME="' removes the variable
    if shell == "powershell":
        return '$env:THEANORC = "%s"' % value if value else "Remove-Item Env:THEANORC"
    return "export THEANORC=%s" % value if value else "unset THEANORC"


@struct(frozen=True)
class Target:
    """The config file `theanorc --write` should write, and why that one."""

    path: str
    why: str
    others: tuple[str, ...] = ()  # other files Theano also reads (their settings still apply)


def write_target(record: Mapping[str, Any]) -> Optional[Target]:
    """The file a generated config should go to so that Theano reads it and nothing
    overrides it: the last existing file of Theano's list (a later file wins); if none
    exists, the last THEANORC entry, or ~/.theanorc. None: the list is not known."""
    files = [f for f in get(record, "theano_config.files", []) or [] if isinstance(f, Mapping) and f.get("path")]
    if not files:
        home = machine.home(record)
        if not home:
            return None
        pm = machine.pathmod(record)
        return Target(pm.join(home, ".theanorc"), "Theano's default config file")
    disk = [str(f.get("abspath") or f["path"]) for f in files]
    existing = [i for i, f in enumerate(files) if f.get("exists")]
    if existing:
        index = existing[-1]
        why = "the last file Theano reads that exists (%s)" % (
            "from THEANORC" if files[index].get("from") == "THEANORC" else "Theano's default")
    elif files[0].get("from") == "THEANORC":
        index = len(files) - 1
        why = "the last file listed in THEANORC"
    else:
        index = 0
        why = "Theano's default config file"
    others = tuple(disk[i] for i in existing if i != index)
    return Target(disk[index], why, others)
