"""rules/knowledge/theano_api.toml against real Theano from PyPI: every name and module a row
says a release lacks is missing from that release as installed, and is there in the release
the row names (found_in), where a venv of it is cached. And `check --project` on the real
probe of a legacy venv names what that release lacks, which the code then really fails on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from legacy_envs import legacy_venv
from legacydoc.knowledge import tables
from legacydoc.versions import version_in

pytestmark = pytest.mark.legacy

THEANO_082 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.8.2"])
THEANO_090 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0"])
THEANO_105 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])
THEANO_PYMC_112 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano-PyMC==1.1.2"])
VENVS = {("Theano", "0.8.2"): THEANO_082, ("Theano", "0.9.0"): THEANO_090, ("Theano", "1.0.5"): THEANO_105,
         ("Theano-PyMC", "1.1.2"): THEANO_PYMC_112}

# Run in the legacy venv: for each (module, name, expect), whether `from module import name`
# (or `import module` when name is "") works. A module that cannot be imported for another
# reason (theano.gpuarray.dnn wants pygpu) is reported apart and decides nothing.
_PROBE = r'''
import importlib, json, sys
claims = json.loads(sys.stdin.read())
out = {"wrong": [], "checked": 0, "unimportable": 0}
for module, name, expect in claims:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        if name == "":
            works = False
        else:
            out["unimportable"] += 1
            continue
    else:
        works = True
        if name:
            ns = {}
            try:
                exec("from %s import %s" % (module, name), ns)
            except ImportError:
                works = False
            if expect == "absent" and hasattr(mod, name):
                works = True
    out["checked"] += 1
    if works != (expect == "present"):
        out["wrong"].append([module, name, expect])
print(json.dumps(out))
'''


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    # no compiler: only imports are asked, and nothing is built
    env["THEANO_FLAGS"] = "device=cpu,cxx=,base_compiledir=%s" % (tmp_path / "compiledir")
    env["HOME"] = str(tmp_path)
    return env


def _ask(python: Path, claims: list[tuple[str, str, str]], tmp_path: Path) -> dict[str, Any]:
    done = subprocess.run([str(python), "-c", _PROBE], input=json.dumps(claims), capture_output=True, text=True,
                          timeout=600, env=_env(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _claims(dist: str, version: str, expect: str, found_in: str = "") -> list[tuple[str, str, str]]:
    """What the table says about this release (expect "absent"), or, with found_in, what it
    says that release has (expect "present")."""
    table = tables()["theano_api"].data
    out: list[tuple[str, str, str]] = []
    for row in table["lacks"]:
        if found_in and row["found_in"] != found_in or not found_in and not (
                row["dist"] == dist and version_in(version, row["versions"])):
            continue
        out += [(row["module"], name, expect) for name in row["names"] + row.get("submodules", [])]
    for row in table["lacks_module"]:
        if found_in and row["found_in"] == found_in or not found_in and row["dist"] == dist and version_in(
                version, row["versions"]):
            out += [(module, "", expect) for module in row["modules"]]
    return sorted(set(out))


@pytest.mark.parametrize("dist, version", sorted(VENVS))
def test_what_the_table_says_a_release_lacks_it_really_lacks(dist: str, version: str, tmp_path: Path) -> None:
    claims = _claims(dist, version, "absent")
    if not claims:
        pytest.skip("the table claims nothing about %s %s" % (dist, version))
    found = _ask(legacy_venv(*VENVS[(dist, version)]), claims, tmp_path)
    assert found["wrong"] == []
    assert found["checked"] >= 0.9 * len(claims), found


@pytest.mark.parametrize("found_in, venv", [("rel-1.0.5", THEANO_105), ("rel-0.9.0", THEANO_090),
                                            ("rel-0.8.2", THEANO_082)])
def test_what_the_table_says_a_release_has_it_really_has(found_in: str, venv, tmp_path: Path) -> None:
    claims = _claims("", "", "present", found_in)
    found = _ask(legacy_venv(*venv), claims, tmp_path)
    assert found["wrong"] == []
    assert found["checked"] >= 0.8 * len(claims), found


PROJECT = "import theano.tensor as T\nfrom theano.tensor.nnet import ctc\ny = T.nnet.selu(T.matrix())\n"


def test_check_project_on_a_real_theano_082_names_what_the_code_then_fails_on(tmp_path: Path) -> None:
    python = legacy_venv(*THEANO_082)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "train.py").write_text(PROJECT)
    ran = subprocess.run([str(python), "train.py"], cwd=str(project), capture_output=True, text=True, timeout=600,
                         env=_env(tmp_path))
    assert ran.returncode == 1 and "ImportError: cannot import name 'ctc'" in ran.stderr, ran.stderr[-2000:]
    env = _env(tmp_path)
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--python", str(python), "--project",
                           str(project), "--format", "json"], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 1, proc.stderr[-2000:]
    found = {d["id"]: d for d in json.loads(proc.stdout)["diagnoses"]}
    assert found["LD121"]["evidence"]["project.theano_lacks"] == [
        "theano.tensor.nnet.ctc (train.py:2)", "theano.tensor.nnet.selu (train.py:3)"]
    # the probe read the release from the venv itself
    assert found["LD121"]["evidence"]["derived.theano.version"] == "0.8.2"
