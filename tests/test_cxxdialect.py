"""legacydoc.cxxdialect: does Theano's compiler reject the narrowing in Theano's loop code?

The flag table is what clang 22.1.8 (the ziglang wheel's) and g++ 12.2 did with a two-line
file holding the same narrowing (`long n; int a[1] = {n};`), checked 2026-12-06; the real
Theano run is tests/test_clang_narrowing_real.py."""

from __future__ import annotations

from typing import Any, Optional

import pytest

from legacydoc.cxxdialect import (
    configured_facts,
    flags_with_fix,
    march_facts,
    march_skipped,
    narrowing,
    narrowing_facts,
    pymc3_adds_flag,
)

LLVM = {"path": "/opt/m/bin/clang++", "version": "10.0.0", "version_major": 10, "is_apple": False}
LLVM5 = {"path": "/opt/m/bin/clang++", "version": "5.0.1", "version_major": 5, "is_apple": False}
APPLE = {"path": "/usr/bin/clang++", "version": "12.0.0", "version_major": 12, "is_apple": True}
NO_VENDOR = {"path": "/usr/bin/clang++", "version": "12.0.0", "version_major": 12}


def mac(clang: dict[str, Any], flags: Optional[str] = None, cxx: Optional[str] = None,
        config: bool = True) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "system": {"os": "darwin"},
        "packages": {"theano": {"name": "Theano", "version": "1.0.5"}, "found": ["theano"]},
        "compilers": {"theano_cxx": clang["path"], "clang": {"found": True, "ok": True, **clang}},
    }
    if config:
        items = ([f"gcc.cxxflags={flags}"] if flags is not None else []) + ([f"cxx={cxx}"] if cxx is not None else [])
        rec["theano_config"] = {"files": [{"path": "/Users/u/.theanorc", "exists": False}],
                                "flags": {"THEANO_FLAGS": ",".join(items)} if items else {}}
    return rec


@pytest.mark.parametrize("flags, rejects", [
    (None, True),
    ("-Wno-c++11-narrowing", False),
    ("-Wno-narrowing", False),
    ("-Wno-error=c++11-narrowing", False),
    ("-Wno-error=narrowing", False),
    ("-w", True),  # -w silences warnings; this diagnostic is an error
    ("-Wc++11-narrowing", True),
    ("-std=c++98", False),
    ("--std=c++98", False),
    ("-ansi", False),
    ("-std=gnu++03", False),
    ("-std=c++11", True),
    ("-std=c++98 -std=c++14", True),  # the last -std counts
    ("-Wno-c++11-narrowing -Wc++11-narrowing", False),  # back on, as a warning only
    ("-Wno-c++11-narrowing -Werror=c++11-narrowing", True),
    ("-Wno-c++11-narrowing -Werror", False),
    ("-Wno-error=c++11-narrowing -Werror", False),
    ("-Wno-c++11-narrowing -Wc++11-narrowing -Werror", None),  # not checked: no claim
    ("-std=c++98 -Wc++11-narrowing -Werror", None),  # C++98's compatibility warning, made an error
    ("-Wno-everything", None),
    ("-fms-compatibility", None),
    ("-std=c++11 -Wno-narrowing", False),
    ("-O3 -march=native", True),
])
def test_llvm_clang_6_and_later_with_these_flags(flags: Optional[str], rejects: Optional[bool]) -> None:
    assert narrowing(mac(LLVM, flags)).rejects is rejects


def test_older_llvm_clang_compiles_gnu98_unless_told() -> None:
    assert narrowing(mac(LLVM5)).rejects is False
    assert narrowing(mac(LLVM5, "-std=c++11")).rejects is True


@pytest.mark.parametrize("clang", [APPLE, NO_VENDOR])
def test_apple_or_unknown_vendor_decided_only_by_an_explicit_std(clang: dict[str, Any]) -> None:
    assert narrowing(mac(clang)).rejects is None
    assert narrowing(mac(clang, "-std=gnu++14")).rejects is True
    assert narrowing(mac(clang, "-std=c++98")).rejects is False


def test_unknown_config_or_compiler_decides_nothing() -> None:
    # a .theanorc the record did not show may hold the flag
    assert narrowing(mac(LLVM, config=False)).rejects is None
    # cxx names a compiler the record never ran
    assert narrowing(mac(LLVM, cxx="/opt/other/clang++")).rejects is None
    # cxx empty: Theano compiles nothing
    assert narrowing(mac(LLVM, cxx="")).rejects is False


def test_a_bare_cxx_name_is_the_first_on_path() -> None:
    found = narrowing(mac(LLVM, cxx="clang++"))
    assert (found.rejects, found.compiler) == (True, LLVM["path"])


def test_gxx_entries_tell_gcc_from_clang() -> None:
    rec = mac(LLVM)
    gxx = {"path": "/usr/bin/g++", "ok": True, "source": "PATH"}
    rec["compilers"] = {"theano_cxx": "/usr/bin/g++", "gxx_all": [{**gxx, "version": "12.2.0", "is_clang": False}]}
    assert narrowing(rec).rejects is False  # g++ only warns
    rec["theano_config"]["flags"] = {"THEANO_FLAGS": "gcc.cxxflags=-Werror"}
    assert narrowing(rec).rejects is None
    # g++ has no -Wc++11-narrowing: clang's flag does not silence it (g++ 12 with -Werror: exit 1)
    rec["theano_config"]["flags"] = {"THEANO_FLAGS": "gcc.cxxflags=-Werror -Wno-c++11-narrowing"}
    assert narrowing(rec).rejects is None
    rec["theano_config"]["flags"] = {"THEANO_FLAGS": "gcc.cxxflags=-Werror -Wno-narrowing"}
    assert narrowing(rec).rejects is False
    # macOS's g++ is Apple's clang
    rec["compilers"]["gxx_all"] = [{**gxx, "is_clang": True, "clang_version": "12.0.0", "vendor": "Apple"}]
    rec["theano_config"]["flags"] = {"THEANO_FLAGS": "gcc.cxxflags=-std=c++11"}
    assert narrowing(rec).rejects is True


def test_facts_and_the_fixed_flags() -> None:
    facts = narrowing_facts(mac(LLVM, "-O2"))
    assert facts["rejects_narrowing"] is True and facts["cxxflags_fix"] == "-O2 -Wno-c++11-narrowing"
    assert facts["narrowing_why"] == "LLVM clang 10.0.0, default gnu++14"
    assert narrowing_facts(mac(APPLE, "-std=c++11"))["narrowing_why"] == "-std=c++11"
    assert "rejects_narrowing" not in narrowing_facts(mac(APPLE))
    # the title's words only for a compiler that rejects it
    assert narrowing_facts(mac(LLVM, "-Wno-c++11-narrowing")) == {"rejects_narrowing": False}
    assert flags_with_fix("-O2 -Wno-c++11-narrowing") == "-O2 -Wno-c++11-narrowing"
    assert flags_with_fix("-Wno-c++11-narrowing -Werror=narrowing") == "-Werror=narrowing -Wno-c++11-narrowing"
    assert narrowing(mac(LLVM, flags_with_fix("-Wno-c++11-narrowing -Werror=narrowing"))).rejects is False


@pytest.mark.parametrize("os_name, version, adds", [
    ("darwin", "3.8", False), ("darwin", "3.9.0", True), ("linux", "3.10.0", False), ("linux", "3.11.0", True),
    ("darwin", None, None),
])
def test_pymc3_that_adds_the_flag_itself_leaves_no_claim(os_name: str, version: Optional[str],
                                                          adds: Optional[bool]) -> None:
    """pymc3 3.9.0's __init__.py sets the flag on Darwin, 3.11.0's appends it everywhere
    (their wheels on PyPI); 3.8 does neither."""
    rec = mac(LLVM)
    rec["system"]["os"] = os_name
    rec["packages"]["pymc3"] = {"name": "pymc3", **({"version": version} if version else {})}
    rec["packages"]["found"] = ["pymc3", "theano"]
    assert pymc3_adds_flag(rec) is adds
    assert narrowing(rec).rejects is (True if adds is False else None)
    del rec["packages"]["found"], rec["packages"]["pymc3"]
    assert pymc3_adds_flag(rec) is None and narrowing(rec).rejects is None  # not known whether it is there


# ---------------------------------------------- the compiler a cxx setting names
def linux(configured: Optional[dict[str, Any]], flags: str = "cxx=clang++", config: bool = True) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "system": {"os": "linux"},
        "packages": {"theano": {"name": "Theano", "version": "1.0.5"}, "found": ["theano"]},
        "compilers": {"theano_cxx": "/usr/bin/g++", "gxx": {"found": True, "ok": True, "path": "/usr/bin/g++"},
                      "gxx_all": [{"path": "/usr/bin/g++", "ok": True, "source": "PATH", "version": "12.2.0"}]},
    }
    if configured is not None:
        rec["compilers"]["cxx_configured"] = configured
    if config:
        rec["theano_config"] = {"files": [{"path": "/home/u/.theanorc", "exists": False}],
                                "flags": {"THEANO_FLAGS": flags}}
    return rec


# as the probe records `clang++ -v` of an LLVM clang 14 on PATH, set by THEANO_FLAGS
CLANG14 = {"setting": "clang++", "source": "THEANO_FLAGS", "found": True, "ok": True, "path": "/usr/bin/clang++",
           "is_clang": True, "clang_version": "14.0.0", "clang_is_apple": False}


def test_a_clang_set_as_cxx_on_linux_is_the_compiler_judged() -> None:
    found = narrowing(linux(CLANG14))
    assert (found.rejects, found.compiler) == (True, "/usr/bin/clang++")
    assert configured_facts(linux(CLANG14)) == {"set_in_config": True, "configured_found": True,
                                                "configured_path": "/usr/bin/clang++"}
    # the g++ default, recorded as gcc by its own "gcc version" line: it only warns
    assert narrowing(linux(None, flags="")).rejects is False
    # Apple's clang says so on its -v line; its default dialect is not claimed
    assert narrowing(linux({**CLANG14, "clang_is_apple": True})).rejects is None


def test_a_configured_compiler_that_is_missing_or_never_ran_decides_nothing() -> None:
    missing = {"setting": "/opt/llvm/bin/clang++", "source": "THEANO_FLAGS", "found": False}
    rec = linux(missing, flags="cxx=/opt/llvm/bin/clang++")
    assert narrowing(rec).rejects is None
    assert configured_facts(rec) == {"set_in_config": True, "configured_found": False}
    hung = {**CLANG14, "ok": False, "timed_out": True}
    assert narrowing(linux({k: v for k, v in hung.items() if k not in ("is_clang", "clang_version")})).rejects is None
    # the setting changed since the probe ran: that entry is not this compiler
    other = linux(CLANG14, flags="cxx=/opt/llvm/bin/clang++")
    assert narrowing(other).rejects is None and "configured_found" not in configured_facts(other)


def test_whether_cxx_is_set_is_known_only_from_the_whole_config_or_theanos_own_warning() -> None:
    assert configured_facts(linux(None, flags="")) == {"set_in_config": False}
    # set empty: no compiler on purpose, and Theano neither warns nor falls back to g++
    assert configured_facts(linux(None, flags="cxx=")) == {"set_in_config": True}
    assert configured_facts(linux(None, config=False)) == {}
    # "g++ not detected" is printed only for Theano's default cxx (configdefaults.py)
    assert configured_facts({**linux(None, config=False), "log": {"ids": ["theano-gxx-not-detected"]}}) == {
        "set_in_config": False}


@pytest.mark.parametrize("cxx, theano, skipped", [
    ("/usr/bin/c++", "1.0.5", True),
    ("/usr/bin/c++", None, True),  # no release knows c++
    ("/opt/conda/bin/x86_64-conda-linux-gnu-c++", "1.1.2", True),
    ("/opt/conda/bin/x86_64-conda_cos6-linux-gnu-g++", "1.0.5", False),
    ("/usr/bin/g++-9", "0.7", False),
    ("clang++", "0.8.0", False),
    ("/usr/local/bin/clang-omp++", "0.8.1", True),  # rel-0.8.1 checks g++ and clang++ only
    ("/usr/local/bin/clang-omp++", "0.8.2", False),
    ("/usr/local/bin/clang-omp++", None, None),  # the releases disagree
    ("/opt/intel/bin/icpc", "0.8.2", True),
    ("/opt/intel/bin/icpc", "0.9.0", False),
    ("", "1.0.5", False),  # no compiler: nothing compiled
    # development builds may already check the next release's names (icpc reached master at 0.9.0dev1)
    ("/opt/intel/bin/icpc", "0.9.0.dev2", None),
    ("/usr/local/bin/clang-omp++", "0.8.0.dev-0123abcd", None),
    ("/usr/bin/c++", "0.9.0.dev2", True),
])
def test_which_cxx_names_keep_theanos_march_flags(cxx: str, theano: Optional[str], skipped: Optional[bool]) -> None:
    """The names at each release tag (rel-0.7/0.8.1, 0.8.2, 0.9.0beta1-1.0.5, Theano-PyMC 1.1.2)."""
    rec = linux(None, flags="cxx=%s" % cxx)
    rec["packages"]["theano"] = {"name": "Theano", **({"version": theano} if theano else {})}
    assert march_skipped(rec) is skipped


def test_march_skipped_needs_the_config_and_yields_to_the_users_own_march() -> None:
    assert march_skipped(linux(None, flags="cxx=/usr/bin/c++,gcc.cxxflags=-O3 -march=haswell")) is False
    assert march_skipped(linux(None, flags="cxx=/usr/bin/c++", config=False)) is None
    assert march_facts(linux(None, flags="cxx=/usr/bin/c++")) == {"march_skipped": True}
    assert march_facts(linux(None, flags="cxx=/usr/bin/c++", config=False)) == {}
