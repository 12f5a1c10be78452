"""LD419 and LD424 on the real thing: Theano 1.0.5 from PyPI compiling with the real g++
and ld, against a Python whose build lacks what Theano's compile needs.

* No shared libpython: Theano reads LDLIBRARY and LIBDIR through distutils, which loads the
  build's configuration from the module _PYTHON_SYSCONFIGDATA_NAME names (CPython's own
  hook, made for cross builds). Here that module is the interpreter's real configuration
  with what a Python configured without --enable-shared has instead (reconstructed):
  LDLIBRARY = libpython3.8.a, in a LIBDIR that holds only that archive. The archive is
  built here by gcc without -fPIC and defines the Python objects Theano's first module
  uses, so ld meets it exactly as it meets a real static libpython.
* No headers: a copy of the interpreter's executable beside a link to its standard
  library makes a Python installation without an include folder, as a distribution's
  Python is without its -dev package.

In both, the probe runs in that same interpreter, so the facts it records are the ones the
real compile then fails on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from legacy_envs import legacy_venv
from legacydoc import logscan
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules
from legacydoc.probes import env as env_probe
from legacydoc.probes import target
from legacydoc.probes import theano_config as theano_config_probe

pytestmark = pytest.mark.legacy

THEANO = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])
# import theano compiles its first module (lazylinker_ext, then cutils_ext); a function
# compiles an op of its own
RUN = """
import theano, theano.tensor as T
x = T.dvector()
print("RESULT", theano.function([x], x * 2)([1.0]))
"""
# Python objects every compiled module refers to (Py_None, the exception types), in code
# that reads them the way CPython's own objects do: without -fPIC, position-dependent
FAKE_LIBPYTHON = """
int _Py_NoneStruct, _Py_TrueStruct, _Py_FalseStruct, PyExc_RuntimeError, PyExc_TypeError;
int PyExc_ValueError, PyExc_IndexError, PyExc_NotImplementedError, PyExc_MemoryError;
int python_objects(void) {
    return _Py_NoneStruct + _Py_TrueStruct + _Py_FalseStruct + PyExc_RuntimeError + PyExc_TypeError
        + PyExc_ValueError + PyExc_IndexError + PyExc_NotImplementedError + PyExc_MemoryError;
}
"""
STATIC_CONFIG = """
import importlib
build_time_vars = dict(importlib.import_module(%(real)r).build_time_vars)
build_time_vars.update(LDLIBRARY="libpython3.8.a", LIBDIR=%(libdir)r, Py_ENABLE_SHARED=0)
"""


def _run(python: Path, env: dict[str, str]) -> str:
    done = subprocess.run([str(python), "-c", RUN], env=env, capture_output=True, text=True, timeout=600)
    return done.stdout + done.stderr


def _record(ctx_factory: Any, python: Path, env: dict[str, str], output: str) -> dict[str, Any]:
    ctx = ctx_factory(python=str(python), env=env, timeout=120.0)
    record: dict[str, Any] = {"schema": 1, "collected_at": "2026-12-06T00:00:00+00:00", "redacted": False}
    record.update(target.collect(ctx.for_probe()))
    record["env"] = env_probe.collect(ctx)  # as check's own probe records it, from the same environment
    record["theano_config"] = theano_config_probe.collect(ctx)  # the config files and THEANO_FLAGS, as check reads them
    record["system"] = {"os": "linux"}
    record["log"] = logscan.log_table(output.encode(), source="log.txt")
    return record


def _base_env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8",
        "THEANO_FLAGS": "device=cpu,base_compiledir=%s" % (tmp_path / "cache"),
    }


def test_theano_links_the_static_libpython_it_is_given(tmp_path: Path, ctx_factory: Any) -> None:
    if not shutil.which("gcc") or not shutil.which("ar"):
        pytest.skip("needs gcc and ar")
    python = legacy_venv(*THEANO)
    libdir, config = tmp_path / "lib", tmp_path / "config"
    libdir.mkdir()
    config.mkdir()
    (tmp_path / "objects.c").write_text(FAKE_LIBPYTHON)
    subprocess.run(["gcc", "-fno-pic", "-c", str(tmp_path / "objects.c"), "-o", str(tmp_path / "objects.o")],
                   check=True, timeout=60)
    subprocess.run(["ar", "rcs", str(libdir / "libpython3.8.a"), str(tmp_path / "objects.o")], check=True, timeout=60)
    real = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig._get_sysconfigdata_name())"],
                          capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    (config / "_sysconfigdata_static.py").write_text(STATIC_CONFIG % {"real": real, "libdir": str(libdir)})
    env = {**_base_env(tmp_path), "_PYTHON_SYSCONFIGDATA_NAME": "_sysconfigdata_static", "PYTHONPATH": str(config)}

    output = _run(python, env)
    assert "RESULT" not in output, output
    assert "libpython3.8.a" in output and "can not be used when making a shared object" in output, output[-3000:]

    record = _record(ctx_factory, python, env, output)
    libpython = record["python"]["libpython"]
    assert libpython["ldlibrary"] == "libpython3.8.a" and libpython["dirs_listed"][0] == str(libdir)
    # the shared library in the standard library's folder comes after LIBDIR's archive
    assert libpython["files"][0] == str(libdir / "libpython3.8.a"), libpython["files"]
    assert "static-libpython-not-pic" in record["log"]["ids"]
    check = run_check(record, load_rules())
    assert "LD419" in [d.id for d in check.diagnoses]
    # the facts alone decide it, before anything was compiled
    del record["log"]
    assert "LD419" in [d.id for d in run_check(record, load_rules()).diagnoses]


def test_the_same_python_with_its_shared_libpython_links(tmp_path: Path, ctx_factory: Any) -> None:
    python = legacy_venv(*THEANO)
    env = _base_env(tmp_path)
    output = _run(python, env)
    assert "RESULT [2.]" in output, output[-3000:]
    record = _record(ctx_factory, python, env, output)
    assert record["python"]["headers"]["python_h"] is True
    assert run_check(record, load_rules()).facts["derived"]["python"]["libpython_link"] == "shared"
    fired = [d.id for d in run_check(record, load_rules()).diagnoses]
    assert "LD419" not in fired and "LD424" not in fired, fired


def test_theano_cannot_compile_without_the_python_headers(tmp_path: Path, ctx_factory: Any) -> None:
    venv_python = legacy_venv(*THEANO)
    base = Path(subprocess.run([str(venv_python), "-c", "import sys; print(sys.base_prefix)"],
                               capture_output=True, text=True, timeout=60, check=True).stdout.strip())
    site = subprocess.run([str(venv_python), "-c", "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))"],
                          capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    # an installation without include/: the executable copied (a link would lead Python
    # back to its real home), the standard library linked
    home = tmp_path / "python-no-headers"
    (home / "bin").mkdir(parents=True)
    (home / "lib").mkdir()
    python = home / "bin" / "python3.8"
    shutil.copy2(base / "bin" / "python3.8", python)
    os.symlink(base / "lib" / "python3.8", home / "lib" / "python3.8")
    env = {**_base_env(tmp_path), "PYTHONPATH": site}

    # import theano itself fails: it compiles lazylinker_ext first
    done = subprocess.run([str(python), "-c", "import theano"], env=env, capture_output=True, text=True,
                          timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-3000:]
    assert "lazylinker_ext" in output and "Python.h: No such file or directory" in output, output[-3000:]

    record = _record(ctx_factory, python, env, output)
    headers = record["python"]["headers"]
    assert headers["include_dir"] == str(home / "include" / "python3.8") and headers["python_h"] is False
    check = run_check(record, load_rules())
    assert "LD424" in [d.id for d in check.diagnoses]
    del record["log"]
    check = run_check(record, load_rules())
    assert "LD424" in [d.id for d in check.diagnoses]
