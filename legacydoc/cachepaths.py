"""How long the paths of Theano's compiled modules get on Windows.

Theano writes each compiled op to
``<base_compiledir>\\compiledir_<platform>-<processor>-<python>-<bits>\\tmpXXXXXXXX\\<hash>.pyd``
(Theano rel-1.0.5 theano/configdefaults.py default_compiledirname(), theano/gof/cmodule.py
dlimport_workdir() and compile_str()): the longest path a compile needs (libgpuarray's
kernel cache goes deeper, but a failure there only skips the cache). On Windows a path of
MAX_PATH (260) characters or more, the terminating NUL included, fails in the compiler and
the loader, and commit 1f7d47f06 (first in rel-0.10.0beta1) made the module name 32
characters longer: an md5 hash became a sha256 one (theano/gof/utils.py hash_from_code). A
base_compiledir that worked with 0.9 can fail with 1.0 (Theano issue 6601).

What the record does not give is counted at its shortest, so the length is a lower bound
unless every part was recorded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.facts import explicit_compiledir, get, text, user_setting
from legacydoc.redact import HOME, HOST, USER
from legacydoc.versions import parse_version

# Microsoft, "Maximum Path Length Limitation": MAX_PATH is 260 characters, the NUL included.
WINDOWS_MAX_PATH = 260
# The shortest parts a Windows compiledir name can have. platform.platform() on Windows 7 and
# later is never shorter than "Windows-7-6.1.7601" (Python 2.7 on Windows 10 without a
# manifest says "Windows-8-6.2.9200", as long). The processor is PROCESSOR_IDENTIFIER, which
# Windows sets for every process: "<arch> Family <f> Model <m> Stepping <s>, <vendor>", the
# vendor always 12 characters, AMD64's family at least 15; "x86" only on 32-bit Windows.
SHORTEST_PLATFORM = "Windows-7-6.1.7601"
SHORTEST_PROCESSOR = {"64": "AMD64 Family 15 Model 1 Stepping 1, AuthenticAMD",
                      "32": "x86 Family 6 Model 1 Stepping 1, GenuineIntel"}
SHORTEST_PYTHON = "2.7.0"
# tempfile.mkdtemp's names: "tmp" and 6 random characters in Python 2.7, 8 in 3.6 and later
# (read in each release's tempfile.py); 3.0-3.5 are counted at the shorter.
TMP_LEN_6, TMP_LEN_8 = 9, 11
EIGHT_RANDOM_SINCE = (3, 6)
# A redacted record's placeholders stand for at least this much.
_PLACEHOLDER_FLOOR = {HOME: len("C:\\Users\\x"), USER: 1, HOST: 1}
# Theano's default_compiledirname() sanitiser.
_UNSAFE = re.compile(r"[\(\)\s,]+")
SHA256_SINCE = (0, 10)


def _text_len(path: str) -> tuple[int, bool]:
    """A path's length, with redaction placeholders at their floor; True when exact."""
    exact = True
    length = len(path)
    for placeholder, floor in _PLACEHOLDER_FLOOR.items():
        count = path.count(placeholder)
        if count:
            exact = False
            length -= count * (len(placeholder) - floor)
    return length, exact


def _module_name_len(theano_version: Optional[str], flavour: Optional[str],
                     python_major: Optional[int]) -> tuple[int, bool]:
    """The compiled module's file name: hash, 'm' before it on Python 3, '.pyd' after it."""
    release = parse_version(theano_version)
    if flavour == "theano-pymc" or (release is not None and release.release[:2] >= SHA256_SINCE):
        digest, known = 64, True
    elif release is not None:
        digest, known = 32, True
    else:
        digest, known = 32, False  # an unknown release: the shorter md5 name
    prefix = 1 if python_major == 3 else 0
    return digest + prefix + len(".pyd"), known and python_major is not None


def _compiledir_name_len(facts: Mapping[str, Any], python: Optional[str]) -> tuple[int, bool]:
    """The compiledir_* folder's name: the one the cache listing shows for this Python, or
    Theano's default name from the recorded platform and processor, else their floors."""
    listed = get(facts, "theano_config.compiledir.subdirs")
    if isinstance(listed, list) and python:
        names = [str(d.get("name")) for d in listed
                 if isinstance(d, Mapping) and d.get("name") and d.get("python_version") == python]
        if names:
            return max(len(n) for n in names), True
    # legacydoc's own platform.platform(): the same text in every Python 3 (all append the
    # service pack), not in Python 2.7, which may name Windows 10 as 8
    platform = text(get(facts, "system.python_platform"))
    if platform is None or not (python or "").startswith("3."):
        platform = None
    processor = text(get(facts, "system.cpu_model"))  # PROCESSOR_IDENTIFIER, whichever Python
    bits = get(facts, "python.bits")
    machine = str(get(facts, "system.machine") or "").lower()
    name = "compiledir_%s-%s-%s-%s" % (
        platform or SHORTEST_PLATFORM,
        processor or SHORTEST_PROCESSOR["32" if machine in ("x86", "i386", "i686") else "64"],
        python or SHORTEST_PYTHON,
        bits if isinstance(bits, int) else 32,
    )
    exact = all((platform, processor, python)) and isinstance(bits, int)
    return len(_UNSAFE.sub("_", name)), exact


def _is_absolute(path: str) -> bool:
    # what Theano's realpath leaves as it is: a drive and a root, or a network path
    return bool(re.match(r"^(?:[A-Za-z]:[\\/]|[\\/]{2})", path))


def _cache_folder(facts: Mapping[str, Any], python: Optional[str]) -> Optional[tuple[int, bool]]:
    """The length of the folder modules' tmp folders go in, and whether it is exact; None when
    it cannot be told (base_compiledir unknown, a compiledir_format of the user's own)."""
    explicit = explicit_compiledir(facts)
    if explicit is not None:
        # compiledir given outright: base_compiledir and the compiledir_* name play no part
        explicit = explicit.rstrip("\\/")
        length, exact = _text_len(explicit)
        return length, exact and _is_absolute(explicit)
    if user_setting(facts, "compiledir_format") is not None:
        return None
    # as the probe found it, else as the config model computed it; Theano's default alone
    # is not enough (LOCALAPPDATA's length was not recorded)
    base = text(get(facts, "theano_config.compiledir.base_compiledir")) or user_setting(facts, "base_compiledir")
    if base is None or "%(" in base:
        return None
    base = base.rstrip("\\/")
    base_len, base_exact = _text_len(base)
    name_len, name_exact = _compiledir_name_len(facts, python)
    # a relative or ~ path grows when Theano makes it absolute: still a lower bound, not exact
    return base_len + 1 + name_len, base_exact and name_exact and _is_absolute(base)


def module_path_facts(facts: Mapping[str, Any], theano_version: Optional[str],
                      flavour: Optional[str]) -> dict[str, Any]:
    """``module_path_length`` (the longest path Theano writes in the cache, at least) and
    ``module_path_exact``; {} off Windows or when the cache's location is unknown."""
    if get(facts, "system.os") != "windows":
        return {}
    python = text(get(facts, "python.version"))
    parsed = parse_version(python)
    release = tuple(parsed.release[:2]) if parsed is not None else None
    folder = _cache_folder(facts, python)
    if folder is None:
        return {}
    tmp = TMP_LEN_8 if release is not None and release >= EIGHT_RANDOM_SINCE else TMP_LEN_6
    tmp_exact = release is not None and (release >= EIGHT_RANDOM_SINCE or release[0] == 2)
    module, module_exact = _module_name_len(theano_version, flavour, release[0] if release else None)
    return {
        "module_path_length": folder[0] + 1 + tmp + 1 + module,
        "module_path_exact": folder[1] and tmp_exact and module_exact,
    }
