"""Whether the C++ compiler Theano uses rejects the narrowing in Theano's own loop code.

Every release, Theano 0.7 to 1.0.5 and Theano-PyMC to 1.1.2, writes an elementwise op whose
output is a matrix or larger with ``int init_totals[n] = {<npy_intp sizes>}`` and an ``int``
array of strides (theano/tensor/elemwise_cgen.py, make_reordered_loop). From C++11 on, a
non-constant narrowed in a brace initialiser is ill-formed: clang makes it an error
(-Wc++11-narrowing), g++ a warning. So the compile fails with a clang that compiles C++11
or later: one told so by -std, or an LLVM clang 6.0 or later (its default became gnu++14).
Apple's clang keeps its own default, which is not established here, so nothing is claimed
about it without a -std flag.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.facts import effective_setting, get
from legacydoc.structs import struct
from legacydoc.versions import parse_version

FLAG = "-Wno-c++11-narrowing"
# What each flag does to the diagnostic, as clang 22 and g++ 12 did it (tests/test_cxxdialect.py):
# clang: -Wno- ignores it; -W after a -Wno- brings it back as a warning only; -Werror= makes it
# an error again; -Wno-error= keeps it a warning even under -Werror; -w changes nothing.
_IGNORE = frozenset({FLAG, "-Wno-narrowing"})
_WARN_AGAIN = frozenset({"-Wc++11-narrowing", "-Wnarrowing"})
_ERROR = frozenset({"-Werror=c++11-narrowing", "-Werror=narrowing"})
_NO_ERROR = frozenset({"-Wno-error=c++11-narrowing", "-Wno-error=narrowing"})
# they let the code compile for reasons not modelled here: claim nothing
_UNMODELLED = frozenset({"-Wno-everything", "-Weverything", "-fms-compatibility", "-fpermissive"})
_OLD_STD = re.compile(r"^-?-std=(?:c|gnu)\+\+(?:98|03)$")
_NEW_STD = re.compile(r"^-?-std=(?:c|gnu)\+\+(?:0x|11|1y|14|1z|17|2a|20|2b|23|2c|26)$")
# clang 6.0 release notes: "The default C++ dialect is now gnu++14 instead of gnu++98"
_LLVM_GNUXX14_SINCE = 6


@struct
class Compiler:
    """What the record says of the compiler a cxx value names."""

    path: str
    is_clang: bool
    major: Optional[int] = None  # clang's major version
    is_apple: Optional[bool] = None  # None: the vendor is not recorded
    version: str = ""


@struct
class Narrowing:
    """rejects: True/False, or None when the record cannot tell."""

    rejects: Optional[bool]
    compiler: str = ""
    why: str = ""


def _basename(path: str) -> str:
    return ntpath.basename(path) if "\\" in path else posixpath.basename(path)


def _major(version: Any) -> Optional[int]:
    match = re.match(r"\s*(\d+)", str(version or ""))
    return int(match.group(1)) if match else None


def configured_entry(record: Mapping[str, Any], value: Any) -> Optional[Mapping[str, Any]]:
    """The probe's compilers.cxx_configured entry when it is for this cxx value (the probe
    ran before the config changed, or was given another one: then it is not)."""
    entry = get(record, "compilers.cxx_configured")
    return entry if isinstance(entry, Mapping) and entry.get("setting") == value else None


def compiler_for(record: Mapping[str, Any], cxx: str, setting: Any = None) -> Optional[Compiler]:
    """The probed compiler that the cxx value runs: the one the probe found for this
    ``setting`` (cxx as written), else the same path, or for a bare name the first one on
    PATH of that name. None when the record has not probed it."""
    configured = configured_entry(record, setting)
    candidates: list[tuple[Mapping[str, Any], bool]] = []
    if configured is not None and configured.get("path"):
        # the compiler the setting names, probed as such: whatever else is on PATH
        if configured.get("ok") is not True:
            return None
        cxx = str(configured["path"])
        candidates.append((configured, False))
    clang = get(record, "compilers.clang")
    if isinstance(clang, Mapping) and clang.get("found") and clang.get("path"):
        candidates.append((clang, True))
    for entry in get(record, "compilers.gxx_all", []) or []:
        if isinstance(entry, Mapping) and entry.get("ok") and entry.get("path"):
            candidates.append((entry, False))
    bare = _basename(cxx) == cxx
    for entry, from_clang_probe in candidates:
        path = str(entry["path"])
        if path != cxx and not (bare and _basename(path) == cxx and entry.get("source", "PATH") == "PATH"):
            continue
        if from_clang_probe:
            apple = entry.get("is_apple")
            return Compiler(path, True, _major(entry.get("version")), apple if isinstance(apple, bool) else None,
                            str(entry.get("version") or ""))
        if entry.get("is_clang") is True:
            apple = entry.get("clang_is_apple")
            if not isinstance(apple, bool):
                vendor = entry.get("vendor")
                apple = str(vendor).startswith("Apple") if isinstance(vendor, str) and vendor else None
            version = str(entry.get("clang_version") or "")
            return Compiler(path, True, _major(version), apple, version)
        if entry.get("is_clang") is not True and entry.get("version"):
            # "version" comes only from gcc's own "gcc version" line
            return Compiler(path, False, version=str(entry["version"]))
    return None


def _with_config(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The record with Theano's config model (config.effective), computed for a raw one."""
    if "config" in record:
        return record
    from legacydoc.theanorc import derive_config_facts

    return {**record, **derive_config_facts(record)}


def pymc3_adds_flag(record: Mapping[str, Any]) -> Optional[bool]:
    """PyMC3 3.11 and later add the flag to gcc.cxxflags when imported, 3.9 and 3.10 only on
    macOS (their pymc3/__init__.py). None: whether PyMC3 is installed, or which, is unknown."""
    pymc3 = get(record, "packages.pymc3")
    if isinstance(pymc3, Mapping):
        version = parse_version(pymc3.get("version"))
        if version is None:
            return None
        darwin = get(record, "system.os") == "darwin"
        return version.release[:2] >= (3, 11) or (darwin and version.release[:2] >= (3, 9))
    return False if isinstance(get(record, "packages.found"), list) else None


def narrowing(record: Mapping[str, Any]) -> Narrowing:
    """Would Theano's C++ compiler, with the flags Theano's config gives it, reject the
    narrowing in Theano's loop code? Decided only from what the record shows, and only when
    PyMC3 is known not to add the flag itself."""
    found = _narrowing(_with_config(record))
    if found.rejects and pymc3_adds_flag(record) is not False:
        return Narrowing(None, found.compiler)
    return found


def _cxx_and_flags(record: Mapping[str, Any]) -> Optional[tuple[str, str]]:
    """cxx as written and gcc.cxxflags, as Theano's config gives them; None if either is
    unknown (the config was not all read)."""
    cxx_setting = effective_setting(record, "cxx")
    flags_setting = effective_setting(record, "gcc.cxxflags")
    if not cxx_setting or "value" not in cxx_setting or not flags_setting or "value" not in flags_setting:
        return None
    return str(cxx_setting["value"]), str(flags_setting["value"])


def _narrowing(record: Mapping[str, Any]) -> Narrowing:
    known = _cxx_and_flags(record)
    if known is None:
        return Narrowing(None)
    cxx = known[0].strip().strip('"')
    if not cxx:
        return Narrowing(False, why="no C++ compiler: Theano compiles nothing")
    compiler = compiler_for(record, cxx, known[0])
    if compiler is None:
        return Narrowing(None, cxx)
    tokens = known[1].split()
    if not compiler.is_clang:
        # g++ warns; only its own -Wno-narrowing silences it, -Werror or -pedantic-errors make it an error
        if "-Wno-narrowing" in tokens:
            return Narrowing(False, compiler.path, "gcc.cxxflags lets it through")
        if {"-Werror", "-Werror=narrowing", "-pedantic-errors"}.intersection(tokens):
            return Narrowing(None, compiler.path)
        return Narrowing(False, compiler.path, "g++ only warns about it")
    if _UNMODELLED.intersection(tokens):
        return Narrowing(None, compiler.path)
    std = ""
    for token in tokens:
        if token.startswith(("-std=", "--std=")):
            std = token
        elif token == "-ansi":
            std = "-std=c++98"
    if std and _OLD_STD.match(std):
        # no narrowing rule before C++11; only the compatibility warning, made an error
        if _WARN_AGAIN.intersection(tokens) and ({"-Werror"} | _ERROR).intersection(tokens):
            return Narrowing(None, compiler.path)
        return Narrowing(False, compiler.path, "%s in gcc.cxxflags" % std)
    if std and not _NEW_STD.match(std):
        return Narrowing(None, compiler.path)
    level, no_error = "error", False
    for token in tokens:
        if token in _IGNORE:
            level = "ignored"
        elif token in _WARN_AGAIN and level == "ignored":
            level = "warning"
        elif token in _ERROR:
            level = "error"
        elif token in _NO_ERROR:
            level, no_error = ("warning" if level == "error" else level), True
    if level == "warning" and "-Werror" in tokens and not no_error:
        return Narrowing(None, compiler.path)
    if level != "error":
        return Narrowing(False, compiler.path, "gcc.cxxflags lets it through")
    # the why is a title's parenthesis, the same in every language
    if std:
        return Narrowing(True, compiler.path, "-" + std.lstrip("-"))
    if compiler.is_apple is False and compiler.major is not None:
        if compiler.major >= _LLVM_GNUXX14_SINCE:
            version = compiler.version or compiler.major
            return Narrowing(True, compiler.path, "LLVM clang %s, default gnu++14" % version)
        return Narrowing(False, compiler.path, "clang %s compiles gnu++98 unless told otherwise"
                         % (compiler.version or compiler.major))
    return Narrowing(None, compiler.path)


def flags_with_fix(current: str) -> str:
    """gcc.cxxflags with the flag that lets the narrowing through, the rest kept."""
    tokens = current.split()
    if tokens[-1:] == [FLAG]:
        return " ".join(tokens)
    # last, so that no flag before it turns the diagnostic back on
    return " ".join([t for t in tokens if t != FLAG] + [FLAG])


GXX_NOT_DETECTED = "theano-gxx-not-detected"


def configured_facts(record: Mapping[str, Any]) -> dict[str, Any]:
    """derived.cxx.set_in_config (cxx set by a config file or THEANO_FLAGS, empty included;
    absent when the config was not all read) and, for a compiler so named, configured_found
    and configured_path: whether it exists, from the probe that looked for it."""
    setting = effective_setting(_with_config(record), "cxx")
    if not setting or "value" not in setting:
        ids = get(record, "log.ids")
        # Theano prints "g++ not detected" only for its default cxx (configdefaults.py)
        return {"set_in_config": False} if isinstance(ids, list) and GXX_NOT_DETECTED in ids else {}
    # set empty counts too: Theano then neither warns nor looks for g++ (cxx.is_default)
    explicit = setting.get("source", "default") != "default"
    out: dict[str, Any] = {"set_in_config": explicit}
    configured = configured_entry(record, setting["value"]) if explicit else None
    if configured is not None:
        found = configured.get("found")
        if isinstance(found, bool):
            out["configured_found"] = found
        if configured.get("path"):
            out["configured_path"] = str(configured["path"])
    return out


# The names Theano looks for in cxx before it adds the CPU's -march flags (cmodule.py
# GCC_compiler.compile_args): rel-0.7 to 0.8.1 g++ and clang++; rel-0.8.2 adds clang-omp++;
# rel-0.9.0beta1 to 1.0.5, and Theano-PyMC, add icpc.
MARCH_NAMES = (
    (parse_version("0.8.2"), ("g++", "clang++")),
    (parse_version("0.9.0b1"), ("g++", "clang++", "clang-omp++")),
    (None, ("g++", "clang++", "clang-omp++", "icpc")),
)


def _names_for(release: Any, dev: bool) -> list[tuple[str, ...]]:
    """The name lists this release may check: a development build may already have the
    next release's (clang-omp++ and icpc reached master before the tags that list them)."""
    for index, (before, names) in enumerate(MARCH_NAMES):
        if before is None or release < before:
            return [names] + ([MARCH_NAMES[index + 1][1]] if dev and index + 1 < len(MARCH_NAMES) else [])
    return []


def march_skipped(record: Mapping[str, Any]) -> Optional[bool]:
    """Does Theano leave out the -march flags it works out for this CPU, because cxx is
    named like none of the compilers it knows ("OPTIMIZATION WARNING: your Theano flag
    `cxx` seems not to be the g++ compiler")? None when the config, or the release where
    it matters, is unknown. A -march in gcc.cxxflags is the user's own tuning: False."""
    record = _with_config(record)
    known = _cxx_and_flags(record)
    if known is None:
        return None
    cxx, flags = known
    if not cxx.strip():
        return False  # no compiler: nothing is compiled
    if any(t.startswith(("-march=", "--march=")) for t in flags.split()):
        return False
    # Theano-PyMC's versions (1.0.x, 1.1.x) fall in the last generation like Theano 1.0's
    text = str(get(record, "packages.theano.version") or get(record, "packages.theano-pymc.version") or "")
    release = parse_version(text)
    generations: list[tuple[str, ...]]
    if release is None:
        generations = [names for _before, names in MARCH_NAMES]
    else:
        dev = release.is_devrelease or release.local is not None or ".dev" in text
        generations = _names_for(release, dev)
    answers = {not any(name in cxx for name in names) for names in generations}
    return answers.pop() if len(answers) == 1 else None


def march_facts(record: Mapping[str, Any]) -> dict[str, Any]:
    """derived.cxx.march_skipped, absent when unknown."""
    skipped = march_skipped(record)
    return {} if skipped is None else {"march_skipped": skipped}


def narrowing_facts(record: Mapping[str, Any]) -> dict[str, Any]:
    """derived.cxx.*: rejects_narrowing (absent when unknown), narrowing_compiler,
    narrowing_why, cxxflags_fix."""
    record = _with_config(record)
    found = narrowing(record)
    out: dict[str, Any] = {}
    if found.rejects is not None:
        out["rejects_narrowing"] = found.rejects
    if found.rejects:
        # the title's words: only for the compiler that rejects it
        out["narrowing_compiler"] = found.compiler
        out["narrowing_why"] = found.why
        flags = effective_setting(record, "gcc.cxxflags") or {}
        out["cxxflags_fix"] = flags_with_fix(str(flags.get("value", "")))
    return out
