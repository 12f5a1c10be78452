"""How long the paths of Theano's compiled modules get on Windows.

Theano writes each compiled op to
``<base_compiledir>\\compiledir_<platform>-<processor>-<python>-<bits>\\tmpXXXXXXXX\\<hash>.pyd``
(Theano rel-1.0.5 theano/configdefaults.py default_compiledirname(), theano/gof/cmodule.py
dlimport_workdir() and compile_str()). On Windows a path of MAX_PATH (260) characters or more,
the terminating NUL included, fails in the compiler and the loader, and commit 1f7d47f06
(first in rel-0.10.0beta1) made the module name 32 characters longer: an md5 hash became a
sha256 one (theano/gof/utils.py hash_from_code). A base_compiledir that worked with 0.9 can
fail with 1.0 (Theano issue 6601).

What the record does not give is counted at its shortest, so the length is a lower bound
unless every part was recorded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.facts import get
from legacydoc.versions import parse_version

# Microsoft, "Maximum Path Length Limitation": MAX_PATH is 260 characters, the NUL included.
WINDOWS_MAX_PATH = 260
# The shortest parts a Windows compiledir name can have. platform.platform() on Windows 7 and
# later is never shorter than "Windows-7-6.1.7601" (Python 2.7 on Windows 10 without a
# manifest says "Windows-8-6.2.9200", as long). The processor is PROCESSOR_IDENTIFIER, which
# Windows always sets: "<arch> Family <f> Model <m> Stepping <s>, <vendor>".
SHORTEST_PLATFORM = "Windows-7-6.1.7601"
SHORTEST_PROCESSOR = "AMD64 Family 23 Model 1 Stepping 1, AuthenticAMD"
SHORTEST_PYTHON = "2.7.0"
# tempfile.mkdtemp's names: "tmp" and 6 random characters on Python 2, 8 on Python 3.
_TMP_LEN = {2: 9, 3: 11}
# A redacted record's placeholders stand for at least this much.
_PLACEHOLDER_FLOOR = {"<home>": len("C:\\Users\\x"), "<user>": 1, "<host>": 1}
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
    platform = get(facts, "system.python_platform")
    processor = get(facts, "system.cpu_model")
    bits = get(facts, "python.bits")
    exact = all(isinstance(v, str) and v for v in (platform, processor, python)) and isinstance(bits, int)
    name = "compiledir_%s-%s-%s-%s" % (
        platform if isinstance(platform, str) and platform else SHORTEST_PLATFORM,
        processor if isinstance(processor, str) and processor else SHORTEST_PROCESSOR,
        python or SHORTEST_PYTHON,
        bits if isinstance(bits, int) else 32,
    )
    return len(_UNSAFE.sub("_", name)), exact


def _base_compiledir(facts: Mapping[str, Any]) -> Optional[str]:
    """base_compiledir as the probe found it, else as the config model computed it; None
    when only Theano's default is known (LOCALAPPDATA's length was not recorded)."""
    probed = get(facts, "theano_config.compiledir.base_compiledir")
    if isinstance(probed, str) and probed:
        return probed
    setting = get(facts, "config.effective.base_compiledir")
    if isinstance(setting, Mapping) and setting.get("source", "default") != "default":
        value = setting.get("value")
        if isinstance(value, str) and value and "%(" not in value:
            return value
    return None


def module_path_facts(facts: Mapping[str, Any], theano_version: Optional[str],
                      flavour: Optional[str]) -> dict[str, Any]:
    """``module_path_length`` (the longest path Theano writes in the cache, at least) and
    ``module_path_exact``; {} off Windows or when the cache's location is unknown."""
    if get(facts, "system.os") != "windows":
        return {}
    python = get(facts, "python.version")
    python = python if isinstance(python, str) and python else None
    major = parse_version(python)
    python_major = major.release[0] if major is not None else None
    explicit = get(facts, "theano_config.compiledir.compiledir_setting")
    if isinstance(explicit, str) and explicit:
        # compiledir given outright: base_compiledir and the compiledir_* name play no part
        folder, folder_exact = _text_len(explicit)
    else:
        base = _base_compiledir(facts)
        if base is None:
            return {}
        base_len, base_exact = _text_len(base.rstrip("\\/"))
        name_len, name_exact = _compiledir_name_len(facts, python)
        folder, folder_exact = base_len + 1 + name_len, base_exact and name_exact
    tmp = _TMP_LEN.get(python_major or 2, 9)
    module, module_exact = _module_name_len(theano_version, flavour, python_major)
    return {
        "module_path_length": folder + 1 + tmp + 1 + module,
        "module_path_exact": folder_exact and module_exact,
    }
