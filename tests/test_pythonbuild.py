"""derived.python: which libpython ld takes for Theano's link, and whether the headers are
there (legacydoc/pythonbuild.py), from the probe's facts; and the probe on real pyenv
interpreters (whose builds here are shared, with headers)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Optional

import pytest

from legacy_envs import find_python
from legacydoc.derive import derive
from legacydoc.probes.target import script_source

PYENV_LIB = "/home/u/.pyenv/versions/3.7.16/lib"


def _record(libpython: Optional[dict[str, Any]] = None, headers: Optional[dict[str, Any]] = None,
            theano: Optional[str] = "1.0.5", python: str = "3.7.16") -> dict[str, Any]:
    record: dict[str, Any] = {"python": {"version": python, "platform": "linux"}}
    if libpython is not None:
        record["python"]["libpython"] = libpython
    if headers is not None:
        record["python"]["headers"] = headers
    record["packages"] = {"theano": {"name": "Theano", **({"version": theano} if theano else {})}}
    return record


def _libpython(files: list[str], ldlibrary: str = "libpython3.7m.a", libdir: str = PYENV_LIB,
               stdlib_parent: str = PYENV_LIB, include_name: str = "python3.7m",
               listed: Optional[list[str]] = None) -> dict[str, Any]:
    return {"ldlibrary": ldlibrary, "libdir": libdir, "include_name": include_name, "stdlib_parent": stdlib_parent,
            "dirs_listed": listed if listed is not None else list(dict.fromkeys([libdir, stdlib_parent])),
            "files": files}


def _derived(record: dict[str, Any]) -> dict[str, Any]:
    return derive(record).get("python", {})


def test_only_the_archive_is_static() -> None:
    got = _derived(_record(_libpython([PYENV_LIB + "/libpython3.7m.a"])))
    assert got["libpython_link"] == "static" and got["libpython_file"] == PYENV_LIB + "/libpython3.7m.a"


def test_the_shared_library_wins_in_the_same_folder() -> None:
    files = [PYENV_LIB + "/libpython3.7m.a", PYENV_LIB + "/libpython3.7m.so"]
    assert _derived(_record(_libpython(files)))["libpython_link"] == "shared"


def test_the_first_folder_wins_over_a_shared_library_in_the_second() -> None:
    # LIBDIR holds only the archive; the shared library in the second folder is never reached
    record = _record(_libpython(["/opt/py/lib/libpython3.7m.a", "/opt/py/lib64/libpython3.7m.so"],
                                libdir="/opt/py/lib", stdlib_parent="/opt/py/lib64"))
    assert _derived(record)["libpython_file"] == "/opt/py/lib/libpython3.7m.a"


def test_conda_names_the_archive_but_ships_the_shared_library() -> None:
    record = _record(_libpython(["/opt/conda/lib/libpython3.7m.so"], libdir="/opt/conda/lib",
                                stdlib_parent="/opt/conda/lib"))
    assert _derived(record)["libpython_link"] == "shared"


def test_nothing_in_theanos_folders_is_outside_and_no_file_is_claimed() -> None:
    # Debian's python3.8: ld goes on to its own folders, which are not recorded
    record = _record(_libpython([], ldlibrary="libpython3.8.so", libdir="/usr/lib", stdlib_parent="/usr/lib"))
    assert _derived(record) == {"libpython_link": "outside"}


def test_theano_07_searches_only_the_standard_librarys_folder() -> None:
    # LIBDIR holds only the archive, the standard library's parent the shared library
    record = _record(_libpython(["/opt/py/lib/libpython2.7.a", "/opt/py/lib64/libpython2.7.so"],
                                ldlibrary="libpython2.7.a", include_name="python2.7", libdir="/opt/py/lib",
                                stdlib_parent="/opt/py/lib64"), theano="0.7")
    assert _derived(record)["libpython_file"] == "/opt/py/lib64/libpython2.7.so"
    record["packages"]["theano"]["version"] = "1.0.5"
    assert _derived(record)["libpython_file"] == "/opt/py/lib/libpython2.7.a"


@pytest.mark.parametrize("version, naming", [
    ("0.7", "include"), ("0.7.1a1", "include"), ("0.8.0rc1", "LDLIBRARY"), ("0.8.2", "LDLIBRARY"),
    ("1.1.2", "LDLIBRARY"),
])
def test_the_naming_changes_with_0_8_0rc1(version: str, naming: str) -> None:
    # the include folder's name and LDLIBRARY's lead to different files
    record = _record(_libpython(["/p/lib/libpython3.5m.so", "/p/lib/libpython3.5.a"], ldlibrary="libpython3.5.a",
                                include_name="python3.5m", libdir="/p/lib", stdlib_parent="/p/lib"), theano=version)
    expected = "/p/lib/libpython3.5m.so" if naming == "include" else "/p/lib/libpython3.5.a"
    assert _derived(record)["libpython_file"] == expected


def test_a_folder_that_could_not_be_listed_is_unknown() -> None:
    record = _record(_libpython([PYENV_LIB + "/libpython3.7m.a"], libdir="/unreadable", listed=[PYENV_LIB]))
    assert "libpython_link" not in _derived(record)


def test_theano_07_names_the_library_after_the_include_folder() -> None:
    # a Python run from its build tree: include folder "Include" (Theano #3556); 0.7 links
    # -lInclude and finds nothing, 1.0.5 links -lpython3.5m from LDLIBRARY
    libpython = _libpython(["/src/Python-3.5.0/libpython3.5m.a"], ldlibrary="libpython3.5m.a",
                           libdir="/src/Python-3.5.0", stdlib_parent="/src/Python-3.5.0", include_name="Include")
    assert _derived(_record(libpython, theano="1.0.5"))["libpython_link"] == "static"
    # -lInclude: the probe lists only libpython* files, so what ld finds for it is unknown
    assert "libpython_link" not in _derived(_record(libpython, theano="0.7"))
    # the release unknown and the two generations disagree: nothing is claimed
    assert "libpython_link" not in _derived(_record(libpython, theano=None))


def test_the_release_unknown_but_both_generations_agree() -> None:
    assert _derived(_record(_libpython([PYENV_LIB + "/libpython3.7m.a"]), theano=None))["libpython_link"] == "static"


@pytest.mark.parametrize("python_h, pyconfig_h, missing", [
    (False, False, "Python.h, pyconfig.h"), (False, True, "Python.h"), (True, False, "pyconfig.h"),
])
def test_missing_headers_are_named(python_h: bool, pyconfig_h: bool, missing: str) -> None:
    headers = {"include_dir": "/usr/include/python3.6m", "plat_include_dir": "/usr/include/python3.6m",
               "python_h": python_h, "pyconfig_h": pyconfig_h}
    got = _derived(_record(headers=headers, python="3.6.9"))
    assert got["headers_ok"] is False and got["headers_missing"] == missing and got["short_version"] == "3.6"


def test_headers_present_or_unrecorded() -> None:
    headers = {"include_dir": "/usr/include/python3.6m", "python_h": True, "pyconfig_h": True}
    assert _derived(_record(headers=headers))["headers_ok"] is True
    assert "headers_ok" not in _derived(_record(headers={"include_dir": "/x", "python_h": False}))
    assert "headers_ok" not in _derived(_record())


@pytest.mark.parametrize("version", ["2.7", "3.6", "3.11"])
def test_the_probe_on_real_interpreters(version: str) -> None:
    python = find_python(version)
    if python is None:
        pytest.skip("no pyenv Python %s" % version)
    done = subprocess.run([str(python), "-c", script_source()], capture_output=True, text=True, timeout=120)
    facts = json.loads(done.stdout.strip().splitlines()[-1])["python"]
    include = Path(facts["headers"]["include_dir"])
    assert facts["headers"]["python_h"] is (include / "Python.h").is_file() is True
    libpython = facts["libpython"]
    config = json.loads(subprocess.run(
        [str(python), "-c", "import json, sysconfig as s; print(json.dumps([s.get_config_var(k) for k in "
                            "('LDLIBRARY', 'LIBDIR', 'Py_ENABLE_SHARED')]))"],
        capture_output=True, text=True, timeout=60, check=True).stdout)
    assert [libpython["ldlibrary"], libpython["libdir"]] == config[:2]
    # what ld would take, read from the disk here rather than from the probe's listing
    name = config[0][3:].rsplit(".", 1)[0]
    expected = "outside"
    for folder in dict.fromkeys([config[1], libpython["stdlib_parent"]]):
        hits = [Path(folder, "lib%s%s" % (name, suffix)) for suffix in (".so", ".a")]
        hit = next((h for h in hits if h.exists()), None)
        if hit is not None:
            expected = "static" if hit.suffix == ".a" else "shared"
            break
    record = {"python": facts, "packages": {"theano": {"name": "Theano", "version": "1.0.5"}}}
    assert _derived(record)["libpython_link"] == expected


def test_probe_summary_shows_what_was_read_without_judging() -> None:
    from legacydoc.render.summary import render_summary

    record = _record(_libpython([PYENV_LIB + "/libpython3.7m.a"]),
                     {"include_dir": "/usr/include/python3.7m", "python_h": False, "pyconfig_h": True})
    record["python"].update({"probe_ok": True, "bits": 64, "env_kind": "venv", "executable": "/x/bin/python"})
    text = render_summary(record)
    assert "C headers in /usr/include/python3.7m: pyconfig.h" in text
    assert "libpython files in %s: %s/libpython3.7m.a" % (PYENV_LIB, PYENV_LIB) in text


def test_a_gcc_include_variable_is_another_way_to_the_headers() -> None:
    headers = {"include_dir": "/opt/py/include/python2.7", "python_h": False, "pyconfig_h": False}
    record = _record(headers=headers, python="2.7.3")
    assert "headers_elsewhere" not in _derived(record)  # the environment not recorded: unknown
    record["env"] = {"variables": {"PATH": "/usr/bin"}}
    assert _derived(record)["headers_elsewhere"] is False
    record["env"]["variables"]["CPLUS_INCLUDE_PATH"] = "/usr/include/python2.7"
    assert _derived(record)["headers_elsewhere"] is True
    record["env"] = {"variables": {"PATH": "/usr/bin"}, "partial": True}  # a report quoting a few
    assert "headers_elsewhere" not in _derived(record)
