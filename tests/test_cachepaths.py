"""How long Theano's compile cache paths get on Windows (legacydoc/cachepaths.py), and the
two lengths it takes from Theano itself, checked against real Theano 0.9.0 and 1.0.5."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_explain import diagnoses

from legacy_envs import legacy_venv
from legacydoc.cachepaths import WINDOWS_MAX_PATH, module_path_facts
from legacydoc.derive import enrich
from legacydoc.facts import load

# a user name as long as the reporter's (Theano issue 6601)
DEEP = "C:/Users/%s/Documents/My_Python_Scripts/MLP/Well_8_to_five_wells/Independent_Scripts" % ("u" * 10)
REAL_NAME = "compiledir_Windows-10-10.0.17763-SP0-Intel64_Family_6_Model_142_Stepping_10_GenuineIntel-3.7.3-64"


def _record(base: str = DEEP, python: str = "3.6.1", theano: str = "1.0.1", **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"schema": 1, "system": {"os": "windows"}, "python": {"version": python},
                              "packages": {"theano": {"name": "Theano", "version": theano}},
                              "theano_config": {"flags": {"THEANO_FLAGS": "base_compiledir=" + base}}}
    for table, values in extra.items():
        record.setdefault(table, {}).update(values)
    return record


def _cache(record: dict[str, Any]) -> dict[str, Any]:
    return enrich(record)["derived"].get("cache", {})


def test_the_reported_folder_is_past_the_limit_and_the_shortened_one_is_not() -> None:
    # Theano issue 6601: this base_compiledir failed with 1.0.1, the same path ending in IS worked
    failing = _cache(_record())
    working = _cache(_record(DEEP.replace("Independent_Scripts", "IS")))
    assert failing["module_path_length"] >= WINDOWS_MAX_PATH > working["module_path_length"]
    # DEEP (92) + compiledir name at its floor (86) + tmpXXXXXXXX (11) + m<sha256>.pyd (69), with separators
    assert (failing["module_path_length"], working["module_path_length"]) == (261, 244)
    assert failing["module_path_exact"] is False  # platform and processor names not recorded


def test_theano_09_names_are_32_characters_shorter() -> None:
    assert (_cache(_record(theano="1.0.1"))["module_path_length"]
            - _cache(_record(theano="0.9.0"))["module_path_length"]) == 32


def test_an_unknown_release_counts_the_shorter_name() -> None:
    record = _record()
    del record["packages"]
    assert _cache(record)["module_path_length"] == _cache(_record(theano="0.9.0"))["module_path_length"]


def test_recorded_platform_processor_and_bits_make_it_exact() -> None:
    record = _record(python="3.7.3", system={"python_platform": "Windows-10-10.0.17763-SP0",
                                             "cpu_model": "Intel64 Family 6 Model 142 Stepping 10, GenuineIntel"})
    record["python"]["bits"] = 64
    cache = _cache(record)
    assert cache["module_path_exact"] is True
    # base \ compiledir_... \ tmpXXXXXXXX \ m<sha256>.pyd
    assert cache["module_path_length"] == len(DEEP) + 1 + len(REAL_NAME) + 1 + 11 + 1 + 69


def test_a_listed_cache_folder_for_this_python_is_used_as_it_is() -> None:
    base = "C:\\Users\\u\\AppData\\Local\\Theano"
    facts = {"system": {"os": "windows"}, "python": {"version": "3.7.3"},
             "theano_config": {"compiledir": {"base_compiledir": base,
                                              "subdirs": [{"name": REAL_NAME, "python_version": "3.7.3"},
                                                          {"name": "compiledir_x-2.7.18-64", "python_version": "2.7.18"}]}}}
    out = module_path_facts(facts, "1.0.5", "theano")
    assert out == {"module_path_length": len(base) + 1 + len(REAL_NAME) + 1 + 11 + 1 + 69, "module_path_exact": True}


def test_an_explicit_compiledir_replaces_base_and_name() -> None:
    facts = {"system": {"os": "windows"}, "python": {"version": "2.7.18"},
             "theano_config": {"compiledir": {"base_compiledir": "C:\\b", "compiledir_setting": "D:\\cache"}}}
    # Python 2: tmp + 6 characters, a sha256 name without the 'm'
    assert module_path_facts(facts, "1.0.5", "theano")["module_path_length"] == 8 + 1 + 9 + 1 + 68


def test_a_compiledir_in_the_flags_replaces_base_and_name() -> None:
    # Theano ignores base_compiledir once compiledir is set
    assert _cache(_record(DEEP + ",compiledir=C:/c"))["module_path_length"] == len("C:/c") + 1 + 11 + 1 + 69


def test_a_compiledir_format_of_ones_own_leaves_the_length_unknown() -> None:
    assert "module_path_length" not in _cache(_record(DEEP + ",compiledir_format=c"))


def test_python_2_is_not_given_legacydocs_own_platform_name() -> None:
    system = {"python_platform": "Windows-10-10.0.19045-SP0", "cpu_model": "Intel64 Family 6 Model 142 Stepping 10, "
              "GenuineIntel"}
    py3, py2 = _cache(_record(python="3.6.15", system=system)), _cache(_record(python="2.7.18", system=system))
    # Python 2.7: the shortest platform name, 6 random characters, no 'm' before the hash
    assert py3["module_path_length"] - py2["module_path_length"] == (25 - 18) + 2 + 1
    assert py2["module_path_exact"] is False


def test_32_bit_windows_counts_its_shorter_processor_name() -> None:
    assert (_cache(_record())["module_path_length"]
            - _cache(_record(system={"machine": "x86"}))["module_path_length"]) == 3


def test_a_relative_folder_is_never_exact() -> None:
    record = _record("theano_cache", python="3.7.3", system={"python_platform": "Windows-10-10.0.17763-SP0",
                                                              "cpu_model": "Intel64 Family 6 Model 142 Stepping 10, "
                                                              "GenuineIntel"})
    record["python"]["bits"] = 64
    assert _cache(record)["module_path_exact"] is False
    record["theano_config"]["flags"]["THEANO_FLAGS"] = "base_compiledir=C:/theano_cache"
    assert _cache(record)["module_path_exact"] is True


def test_redacted_names_count_at_their_shortest() -> None:
    def length(base: str) -> dict[str, Any]:
        facts = {"system": {"os": "windows"}, "python": {"version": "3.6.1"},
                 "theano_config": {"compiledir": {"base_compiledir": base}}}
        return module_path_facts(facts, "1.0.5", "theano")

    plain, redacted = length("C:\\Users\\x\\deep"), length("<home>\\deep")
    assert redacted["module_path_length"] == plain["module_path_length"] and not redacted["module_path_exact"]


@pytest.mark.parametrize("facts", [
    {"system": {"os": "linux"}, "theano_config": {"compiledir": {"base_compiledir": "/" + "x" * 300}}},
    {"system": {"os": "windows"}},  # where the cache is: unknown
    {"theano_config": {"compiledir": {"base_compiledir": "C:\\" + "x" * 300}}},  # the OS: unknown
])
def test_nothing_is_said_off_windows_or_without_the_folder(facts: dict[str, Any]) -> None:
    assert module_path_facts(facts, "1.0.5", "theano") == {}


# --- what Theano really writes (Linux: .so where Windows has .pyd) -----------------------------

SCRIPT = """
import os, theano, theano.tensor as T
x = T.dvector("x")
theano.function([x], T.exp(x) * 2 + 1)
for folder, _dirs, files in os.walk(theano.config.compiledir):
    for name in files:
        if name.endswith(".so") and os.path.basename(folder).startswith("tmp"):
            print(os.path.basename(folder), name)
"""


@pytest.mark.legacy
@pytest.mark.slow
@pytest.mark.parametrize("version, spec", [
    ("0.9.0", ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0"])),
    ("1.0.5", ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])),
])
def test_real_theano_writes_modules_as_counted(version: str, spec: tuple, tmp_path: Path) -> None:
    python = legacy_venv(*spec)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "THEANO_FLAGS": "blas.ldflags=,base_compiledir=" + str(tmp_path / "cache")}
    proc = subprocess.run([str(python), "-c", SCRIPT], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = [line.split() for line in proc.stdout.splitlines() if line.strip()]
    assert modules
    base = "C:\\b"
    counted = module_path_facts({"system": {"os": "windows"}, "python": {"version": "3.8.0"},
                                 "theano_config": {"compiledir": {"compiledir_setting": base}}}, version, "theano")
    for folder, name in modules:
        assert len(base) + 1 + len(folder) + 1 + len(name) - len(".so") + len(".pyd") == counted["module_path_length"]
    assert os.path.isdir(tmp_path / "cache")


# --- the same from a log: a path into the cache of 260 characters or more ------------------------

def _module_path(base: str) -> str:
    return base + "\\" + REAL_NAME + "\\tmpk2j3h4g5\\m" + "0" * 64 + ".pyd"


def _path_of(length: int) -> str:
    """A module path of exactly this length (its base padded)."""
    short = _module_path("C:\\Users\\u\\")
    return _module_path("C:\\Users\\u\\" + "d" * (length - len(short)))


@pytest.mark.parametrize("line, found", [
    ("ld.exe: cannot open output file %s: No such file or directory" % _module_path(DEEP.replace("/", "\\")), True),
    # the limit itself: 260 characters with the NUL is one too many
    ("ld.exe: cannot open output file %s: No such file or directory" % _path_of(260), True),
    ("ld.exe: cannot open output file %s: No such file or directory" % _path_of(259), False),
    # Python's repr doubles each backslash: counted as one, the path is what is measured
    ("FileNotFoundError: [Errno 2] No such file or directory: '%s'" % _path_of(260).replace("\\", "\\\\"), True),
    ("FileNotFoundError: [Errno 2] No such file or directory: '%s'" % _path_of(250).replace("\\", "\\\\"), False),
    # a command line alone proves nothing: newer binutils write such paths
    ('-o "%s" "%s"' % (_path_of(270), _path_of(270)[:-69] + "mod.cpp"), False),
    # long, but not Theano's cache
    ("cannot open %s" % ("C:\\" + "\\".join(["folder_%03d" % i for i in range(30)])), False),
])
def test_a_log_quoting_a_cache_path_past_the_limit(line: str, found: bool) -> None:
    from legacydoc import logscan

    assert ("theano-compile-path-past-windows-limit" in [m.id for m in logscan.scan(line)]) is found


def test_a_floor_under_the_limit_does_not_rule_out_the_log(tmp_path: Path) -> None:
    """The record's length counted at its shortest is under 260: the log's 268 is not contradicted."""
    facts = tmp_path / "facts.toml"
    facts.write_text('schema = 1\n[system]\nos = "windows"\n[theano_config.flags]\n'
                     'THEANO_FLAGS = "base_compiledir=C:/Users/%s/Documents/My_Python_Scripts/MLP/Well_8_to_five_'
                     'wells/Independent_Scripts"\n' % ("u" * 6), encoding="utf-8")
    cache = enrich(load(facts))["derived"]["cache"]
    assert cache["module_path_length"] < 260 and cache["module_path_exact"] is False
    log = tmp_path / "log.txt"
    log.write_text("ld.exe: cannot open output file %s: No such file or directory\n" % _path_of(268), encoding="utf-8")
    assert "LD544" in diagnoses(facts, log)


def test_check_fires_on_the_log_alone(tmp_path: Path) -> None:
    facts = tmp_path / "facts.toml"
    facts.write_text('schema = 1\n[system]\nos = "windows"\n', encoding="utf-8")
    log = tmp_path / "log.txt"
    log.write_text("cannot open output file %s: No such file or directory\n" % _module_path(DEEP.replace("/", "\\")),
                   encoding="utf-8")
    assert "at least 260 characters" in diagnoses(facts, log)["LD544"]["title"]
