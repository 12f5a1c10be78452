"""Settings copied from an install guide without adapting them to this machine: a guide's
placeholder left in a value ("-I[MinGW directory]\\include"), and a -lpythonXY for another
Python than the one Theano runs in (guides of 2015-2017 wrote -lpython34 or -lpython35 into
gcc.cxxflags, and readers on Python 2.7 copied it)."""

from __future__ import annotations

import re
from typing import Optional

from legacydoc.facts import get
from legacydoc.i18n import tr
from legacydoc.theanorc.checks.base import Context, _fix_for

# A guide's stand-in for a path the reader must fill in: "[Python directory]",
# "<path to cuDNN>", "C:\path\to\...". Brackets and angle brackets never occur in a real
# Windows or POSIX path Theano is given, so the text is certain to be unedited.
_WORD = r"\b(?:directory|dir|folder|path|root|home|install(?:ation)?)\b"
PLACEHOLDER = re.compile(
    r"\[[^\[\]\n]{0,40}%s[^\[\]\n]{0,40}\]|<[^<>\n]{0,40}%s[^<>\n]{0,40}>|(?<![\w.])path[\\/]to[\\/]" % (_WORD, _WORD),
    re.IGNORECASE,
)

# -lpython27, -lpython2.7, -lpython35m, -lpython310: the Python whose library it links.
PYTHON_LIBRARY = re.compile(r"(?<!\S)-lpython(\d)\.?(\d{1,2})(?:d?m?u?)(?!\S)")
# Options holding a list of compiler or linker flags: a flag can go and the rest stay.
FLAG_LISTS = ("gcc.cxxflags", "blas.ldflags", "nvcc.flags")


_MAJOR_MINOR = re.compile(r"(\d{1,3})\.(\d{1,3})(?!\d)")


def _python_minor(record_version: object) -> Optional[tuple[int, int]]:
    # bounded: a hostile record's 5000-digit version is unknown, not a crash
    found = _MAJOR_MINOR.match(record_version) if isinstance(record_version, str) else None
    return (int(found.group(1)), int(found.group(2))) if found else None


def _other_pythons(value: str, python: tuple[int, int]) -> list[re.Match[str]]:
    return [m for m in PYTHON_LIBRARY.finditer(value) if (int(m.group(1)), int(m.group(2))) != python]


def cleaned_flags(value: str, python: Optional[tuple[int, int]]) -> str:
    """A flag list without the flags holding a placeholder (Theano adds Python's include
    and library folders itself) and without another Python's -lpython."""
    kept = PLACEHOLDER_FLAG.sub("", value)
    kept = PYTHON_LIBRARY.sub(
        lambda m: m.group(0) if python is None or (int(m.group(1)), int(m.group(2))) == python else "", kept)
    return " ".join(kept.split())


PLACEHOLDER_FLAG = re.compile(r"(?<!\S)\S*(?:%s)\S*" % PLACEHOLDER.pattern, re.IGNORECASE)


def check_placeholders(ctx: Context) -> None:
    python = _python_minor(get(ctx.record, "python.version"))
    for setting in ctx.config.user_settings():
        value = setting.value
        if not isinstance(value, str):
            continue
        found = PLACEHOLDER.search(value)
        if found is None:
            continue
        if setting.name in FLAG_LISTS:
            fix = _fix_for(setting, cleaned_flags(value, python))
            then = tr(" Theano adds Python's own include and library folders itself: the flags that hold it can go.")
        else:
            # deleting the line gives Theano's default, which looks in the usual places
            fix = ""
            then = tr(" Delete the line (Theano then uses its default) or write this machine's folder in its place.")
        ctx.add(
            "placeholder-value", "warning",
            tr("%s: %s still holds the install guide's placeholder %s instead of a folder of this machine; "
               "no such path exists.") % (ctx._where_setting(setting), setting.name, found.group(0)) + then,
            fix, **ctx._fields(setting),
        )


def check_python_library(ctx: Context) -> None:
    """gcc.cxxflags linking another Python's library: Theano already links its own Python's
    (rel-0.8.2 .. rel-1.0.5 theano/gof/cmodule.py std_lib_dirs_and_libs: -lpythonXY and
    <python>/libs on Windows, the LDLIBRARY name elsewhere), so an extra one for another
    version is either not found ("cannot find -lpython34": every module fails to link) or a
    second Python runtime in one module."""
    setting = ctx.config.get("gcc.cxxflags")
    python = _python_minor(get(ctx.record, "python.version"))
    if setting is None or setting.is_default or python is None or not isinstance(setting.value, str):
        return
    wrong = _other_pythons(setting.value, python)
    if not wrong:
        return
    ctx.add(
        "cxxflags-other-python", "error",
        tr("%s: gcc.cxxflags links %s, the library of Python %s, but Theano runs in Python %d.%d and links "
           "that Python's own library itself: the extra one is not found (\"cannot find %s\") and every module "
           "fails to link, or it puts a second Python runtime into the module.") % (
            ctx._where_setting(setting), wrong[0].group(0), "%s.%s" % (wrong[0].group(1), wrong[0].group(2)),
            python[0], python[1], wrong[0].group(0)),
        _fix_for(setting, cleaned_flags(setting.value, python)), **ctx._fields(setting),
    )
