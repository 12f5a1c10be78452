"""LD425 on the real thing: Theano 1.0.5 compiling with a clang that compiles C++14.

The clang is the one the ziglang wheel bundles (clang 22, an LLVM clang like a conda or
Homebrew clang++ on macOS), run through a two-line `clang++` wrapper given to Theano as cxx.
An elementwise op on a matrix fails to compile as recorded in
tests/data/real_logs/theano105-clang-narrowing.txt; with the gcc.cxxflags LD425 and
`theanorc --write` give, the same script runs.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import DATA
from legacy_envs import legacy_venv, venvs_root
from legacydoc import logscan
from legacydoc.cxxdialect import narrowing_facts

pytestmark = [pytest.mark.legacy, pytest.mark.slow]

THEANO_105_ZIG = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5", "ziglang==0.17.1"])
RECORDED = DATA / "real_logs" / "theano105-clang-narrowing.txt"
SCRIPT = DATA / "real_logs" / "scripts" / "elemwise_matrix.py"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    python = legacy_venv(*THEANO_105_ZIG)
    folder = tmp_path_factory.mktemp("clang")
    wrapper = folder / "clang++"
    wrapper.write_text('#!/bin/sh\nexec "%s" -m ziglang c++ "$@"\n' % python)
    wrapper.chmod(0o755)
    compiledir = folder / "theano-cache"  # shared: Theano's own modules compile once
    return python, wrapper, compiledir


def _run(setup: tuple[Path, Path, Path], tmp_path: Path, cxxflags: str = "") -> subprocess.CompletedProcess:
    python, wrapper, compiledir = setup
    flags = "cxx=%s,base_compiledir=%s" % (wrapper, compiledir)
    if cxxflags:
        flags += ",gcc.cxxflags=" + cxxflags
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "THEANO_FLAGS": flags,
           # zig builds its C++ runtime once per cache: keep it beside the cached venvs
           "ZIG_GLOBAL_CACHE_DIR": str(venvs_root() / "zig-cache")}
    return subprocess.run([str(python), str(SCRIPT)], cwd=str(tmp_path), env=env, capture_output=True, timeout=1200)


def _ids(output: bytes) -> set[str]:
    return set(logscan.log_table(output, source="live")["ids"])


def test_clang_rejects_theanos_loop_code_as_recorded(setup: tuple[Path, Path, Path], tmp_path: Path) -> None:
    proc = _run(setup, tmp_path)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert b"int init_totals[2] = {" in output
    live = _ids(output)
    assert "compiler-narrowing-error" in live, sorted(live)
    assert live == _ids(RECORDED.read_bytes())


def test_the_flags_ld425_gives_let_it_compile(setup: tuple[Path, Path, Path], tmp_path: Path) -> None:
    # what check derives for a clang like this one, with -O2 already in the user's cxxflags
    record = {
        "system": {"os": "darwin"},
        "packages": {"theano": {"name": "Theano", "version": "1.0.5"}, "found": ["numpy", "scipy", "theano"]},
        "compilers": {"theano_cxx": str(setup[1]), "clang": {"found": True, "ok": True, "path": str(setup[1]),
                                                             "version": "22.1.8", "version_major": 22,
                                                             "is_apple": False}},
        "theano_config": {"files": [{"path": str(tmp_path / ".theanorc"), "exists": False}],
                          "flags": {"THEANO_FLAGS": "gcc.cxxflags=-O2"}},
    }
    fix = narrowing_facts(record)["cxxflags_fix"]
    assert fix == "-O2 -Wno-c++11-narrowing"
    proc = _run(setup, tmp_path, fix)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert proc.stdout.split()[-1] == b"3.718281828459045"


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell wrapper")
def test_minus_w_is_not_a_fix(setup: tuple[Path, Path, Path], tmp_path: Path) -> None:
    proc = _run(setup, tmp_path, "-w")
    assert proc.returncode != 0 and b"cannot be narrowed" in proc.stdout + proc.stderr
