"""A cxx the config sets, on the real thing: Theano 1.0.5 in a real legacy venv on Linux.

- cxx = a clang++ (the clang 22 of the ziglang wheel, through a two-line wrapper): the probe
  runs the compiler the setting names, so `check` sees a clang on Linux, where the probe
  otherwise looks only for g++, and names LD425 (tests/test_clang_narrowing_real.py shows
  this Theano failing with it);
- cxx = a path with nothing there: `import theano` fails as recorded in
  tests/data/real_logs/theano105-cxx-missing-import.txt, and `check` names LD426, not
  "no g++" (this machine has one).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import DATA
from legacy_envs import legacy_venv, venvs_root
from legacydoc import logscan
from legacydoc.locate import loads_toml
from test_cli import run_cli

pytestmark = [pytest.mark.legacy, pytest.mark.slow]

THEANO_105 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])
THEANO_105_ZIG = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5", "ziglang==0.17.1"])
RECORDED_IMPORT = DATA / "real_logs" / "theano105-cxx-missing-import.txt"
SCRIPT = DATA / "real_logs" / "scripts" / "import_theano.py"


def _env(home: Path, flags: str) -> dict[str, str]:
    return {"HOME": str(home), "THEANO_FLAGS": flags, "THEANORC": str(home / ".theanorc"),
            "ZIG_GLOBAL_CACHE_DIR": str(venvs_root() / "zig-cache")}


def _check_and_probe(python: Path, tmp_path: Path, flags: str) -> tuple[list[str], dict]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = _env(home, flags)
    proc = run_cli("check", "--python", str(python), "--format", "json", "--timeout", "120", env=env, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    ids = [d["id"] for d in json.loads(proc.stdout)["diagnoses"]]
    saved = tmp_path / "facts.toml"
    proc = run_cli("probe", "--python", str(python), "--save", str(saved), "--timeout", "120", env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return ids, loads_toml(saved.read_text(encoding="utf-8"))


def test_a_clang_set_as_cxx_is_probed_and_its_narrowing_error_named(tmp_path: Path) -> None:
    python = legacy_venv(*THEANO_105_ZIG)
    wrapper = tmp_path / "clang++"
    wrapper.write_text('#!/bin/sh\nexec "%s" -m ziglang c++ "$@"\n' % python)
    wrapper.chmod(0o755)
    ids, facts = _check_and_probe(python, tmp_path, "cxx=%s" % wrapper)
    configured = facts["compilers"]["cxx_configured"]
    assert configured["setting"] == str(wrapper) and configured["ok"] is True
    assert configured["is_clang"] is True and configured["clang_is_apple"] is False
    assert configured["clang_version"].split(".")[0] == "22"
    assert "LD425" in ids, ids
    assert "LD426" not in ids and "LD401" not in ids


def test_a_cxx_that_names_nothing_fails_the_import_as_recorded_and_is_named(tmp_path: Path) -> None:
    python = legacy_venv(*THEANO_105)
    flags = "cxx=/nonexistent/clang++"
    home = tmp_path / "run"
    home.mkdir()
    (home / "import_theano.py").write_bytes(SCRIPT.read_bytes())
    # an empty compile cache: the import itself compiles Theano's lazylinker
    proc = subprocess.run([str(python), "import_theano.py"], cwd=str(home),
                          env={"PATH": "/usr/bin:/bin", "HOME": str(home), "THEANO_FLAGS": flags},
                          capture_output=True, timeout=600)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1 and b"No such file or directory: '/nonexistent/clang++'" in output
    live = set(logscan.log_table(output, source="live")["ids"])
    assert "theano-cxx-missing-at-import" in live
    assert live == set(logscan.log_table(RECORDED_IMPORT.read_bytes(), source="live")["ids"])

    ids, facts = _check_and_probe(python, tmp_path, flags)
    assert facts["compilers"]["cxx_configured"] == {**facts["compilers"]["cxx_configured"], "found": False}
    assert "LD426" in ids and "LD401" not in ids, ids
    # its fix: without the cxx line the same import works
    proc = subprocess.run([str(python), "import_theano.py"], cwd=str(home),
                          env={"PATH": "/usr/bin:/bin", "HOME": str(home), "THEANO_FLAGS": ""},
                          capture_output=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.split()[-1] == b"1.0.5", proc.stderr[-2000:]
