"""Settings copied from an install guide without adapting them to this machine: a guide's
placeholder left in a value ("-I[MinGW directory]\\include"), and a -lpythonXY for another
Python than the one Theano runs in (guides of 2015-2017 wrote -lpython34 or -lpython35 into
gcc.cxxflags, and readers on Python 2.7 copied it).

Both checks run after the value checks, and their fixes start from the value those
correct (no inline comment, no quotes), so one corrected line answers every finding on it
(`theanorc --write` keeps one fix per line)."""

from __future__ import annotations

import re
from typing import Optional

from legacydoc.facts import get
from legacydoc.i18n import tr
from legacydoc.theanorc import machine
from legacydoc.theanorc.checks.base import Context, _fix_for, _strip_inline_comment, _unquoted
from legacydoc.theanorc.effective import Setting

# A guide's stand-in for a path the reader must fill in: "[Python directory]",
# "<path to cuDNN>", "C:\path\to\...". Such a bracketed phrase in a value is almost always
# unedited guide text (a real folder may have brackets in its name: hence "looks like").
_WORD = r"\b(?:directory|dir|folder|path|root|home|install(?:ation)?)\b"
PLACEHOLDER = re.compile(
    r"\[[^\[\]\n]{0,40}%s[^\[\]\n]{0,40}\]|<[^<>\n]{0,40}%s[^<>\n]{0,40}>|(?<![\w.])path[\\/]to[\\/]" % (_WORD, _WORD),
    re.IGNORECASE,
)
# A flag holding a placeholder, with the option before it when the flag is its argument
# ("-I <path to include>"): left alone, that option would take the next flag as its own.
PLACEHOLDER_FLAG = re.compile(
    r"(?<!\S)(?:(?:-I|-L|-isystem|-include|-Xlinker|-D|-l|-o)\s+)?\S*(?:%s)\S*" % PLACEHOLDER.pattern, re.IGNORECASE)

# -lpython27, -lpython2.7, -lpython35m, -lpython310: the Python whose library it links.
PYTHON_LIBRARY = re.compile(r"(?<!\S)-lpython(\d)\.?(\d{1,2})(?:d?m?u?)(?!\S)")
# Options holding a list of compiler or linker flags: a flag can go and the rest stay.
FLAG_LISTS = ("gcc.cxxflags", "blas.ldflags", "nvcc.flags")


def _python_minor(ctx: Context) -> Optional[tuple[int, int]]:
    info = machine.python_version_info(ctx.record)
    return (info[0], info[1]) if info else None


def _same_python(match: re.Match[str], python: tuple[int, int]) -> bool:
    return (int(match.group(1)), int(match.group(2))) == python


def _corrected_value(ctx: Context, setting: Setting) -> str:
    """The value as the value checks correct it: without an inline comment (Python 3 keeps
    it in the value) and without quotes."""
    value = str(setting.value or "")
    if setting.origin.source == "file" and ctx.py3:
        value = _strip_inline_comment(setting.origin.value or "") or value
    unquoted = _unquoted(value)
    return unquoted if unquoted is not None else value


def cleaned_flags(value: str, python: Optional[tuple[int, int]]) -> str:
    """A flag list without the flags holding a placeholder (g++ skips an -I or -L folder
    that does not exist: nothing is lost) and without another Python's -lpython."""
    kept = PLACEHOLDER_FLAG.sub("", value)
    if python is not None:
        kept = PYTHON_LIBRARY.sub(lambda m: m.group(0) if _same_python(m, python) else "", kept)
    return " ".join(kept.split())


def _line_fix(setting: Setting, cleaned: str) -> str:
    """The corrected line; an emptied flag list is deleted instead (an empty blas.ldflags
    would switch Theano's BLAS off, not return it to its default)."""
    return _fix_for(setting, cleaned) if cleaned else ""


def check_placeholders(ctx: Context) -> None:
    python = _python_minor(ctx)
    for setting in ctx.config.user_settings():
        if not isinstance(setting.value, str):
            continue
        found = PLACEHOLDER.findall(setting.value)
        if not found:
            continue
        listed = ", ".join(dict.fromkeys(found))
        where = ctx._where_setting(setting)
        flags = setting.origin.source == "THEANO_FLAGS"
        if setting.name in FLAG_LISTS:
            fix = _line_fix(setting, cleaned_flags(_corrected_value(ctx, setting), python))
            then = tr(" g++ skips an -I or -L folder that does not exist, so the flags that hold it can go.")
        else:
            # without it, Theano's default looks in the usual places
            fix = ""
            then = tr(" Remove the item (Theano then uses its default) or write this machine's folder in its place.") \
                if flags else tr(" Delete the line (Theano then uses its default) or write this machine's folder in "
                                 "its place.")
        ctx.add(
            "placeholder-value", "warning",
            tr("%s: %s holds %s: what looks like an install guide's placeholder left unedited, not a folder of "
               "this machine.") % (where, setting.name, listed) + then,
            fix, **ctx._fields(setting),
        )


def _consequence(os_name: object, library: str, dll: str) -> str:
    if os_name == "darwin":
        return tr(" On macOS Theano links no Python library at all (Python's symbols are found when the module "
                  "loads), so where %s is not found every module fails to link, and where it is found the module "
                  "brings a second Python runtime into the process.") % library
    if os_name == "windows":
        return tr(" Theano links this Python's own library itself, so where %s is not found every module fails to "
                  "link (\"cannot find %s\"), and where it is found Python refuses the module (\"Module use of %s "
                  "conflicts with this version of Python\").") % (library, library, dll)
    return tr(" Theano links this Python's own library itself, so where %s is not found every module fails to link "
              "(\"cannot find %s\"), and where it is found the module brings a second Python runtime into the "
              "process.") % (library, library)


def check_python_library(ctx: Context) -> None:
    """gcc.cxxflags linking another Python's library. Theano links its own Python's
    (rel-0.7 .. rel-1.0.5 theano/gof/cmodule.py std_lib_dirs_and_libs: -lpythonXY and
    <python>/libs on Windows, the library's own name elsewhere; none on macOS, where it
    links with -undefined dynamic_lookup). Another version's library either is not found
    or puts a second Python into the module: on Windows CPython refuses such a module
    (Python/dynload_win.c, "Module use of %s conflicts with this version of Python")."""
    setting = ctx.config.get("gcc.cxxflags")
    python = _python_minor(ctx)
    if setting is None or setting.is_default or python is None or not isinstance(setting.value, str):
        return
    # read as the value checks correct it: a quoted value or one with a comment is their
    # finding first, and the same line must answer both
    corrected = _corrected_value(ctx, setting)
    wrong = [m for m in PYTHON_LIBRARY.finditer(corrected) if not _same_python(m, python)]
    if not wrong:
        return
    library = wrong[0].group(0)
    ctx.add(
        "cxxflags-other-python", "error",
        tr("%s: gcc.cxxflags links %s, the library of Python %s, but Theano runs in Python %d.%d.") % (
            ctx._where_setting(setting), library, "%s.%s" % (wrong[0].group(1), wrong[0].group(2)),
            python[0], python[1]) + _consequence(
            get(ctx.record, "system.os"), library, "python%s%s.dll" % (wrong[0].group(1), wrong[0].group(2))),
        _line_fix(setting, cleaned_flags(corrected, python)), **ctx._fields(setting),
    )
