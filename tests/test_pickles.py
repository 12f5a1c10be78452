"""Telling pickles written by Python 2 from Python 3's, without loading them
(legacydoc/plan/pickles.py), and what check --project and plan make of them (LD146)."""

from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from legacydoc.plan import pickles
from legacydoc.plan.project import scan

PY2 = DATA / "pickles"
# Python 2 pickles Python 3 fails on (checked when they were recorded: see the README there).
PY2_FILES = ["model_py2.pkl", "model_py2_proto0.pkl", "params_py2.npy", "data_py2.pkl.gz"]
REPO = Path(__file__).resolve().parent.parent


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "legacydoc", *args], cwd=str(REPO), env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", PY2_FILES)
def test_real_python2_pickles_are_recognised(name: str) -> None:
    assert pickles.needs_latin1(name, (PY2 / name).read_bytes())


def test_a_python2_pickle_whose_strings_are_all_ascii_loads_in_python3_and_is_not_reported() -> None:
    data = (PY2 / "ascii_py2.pkl.gz").read_bytes()
    assert not pickles.needs_latin1("ascii_py2.pkl.gz", data)
    assert pickle.loads(gzip.decompress(data))[0].shape == (2, 4)  # this Python agrees


@pytest.mark.parametrize("protocol", range(0, pickle.HIGHEST_PROTOCOL + 1))
def test_python3_pickles_of_the_same_data_are_not(protocol: int, tmp_path: Path) -> None:
    params = [np.arange(6, dtype="float32").reshape(2, 3), np.ones(3, dtype="float32"), b"bytes", "text"]
    data = pickle.dumps(params, protocol=protocol)
    assert not pickles.needs_latin1("model.pkl", data)
    assert not pickles.needs_latin1("model.pkl.gz", gzip.compress(data))
    objects = np.empty(2, dtype=object)
    objects[0], objects[1] = params[0], params[1]
    np.save(tmp_path / "params.npy", objects)
    assert not pickles.needs_latin1("params.npy", (tmp_path / "params.npy").read_bytes())


def test_only_the_head_is_needed_and_odd_files_are_not_pickles() -> None:
    big = (PY2 / "model_py2.pkl").read_bytes()
    assert pickles.needs_latin1("model.pkl", big[:150])  # cut off: what was read decides
    assert not pickles.needs_latin1("model.pkl", big[:90])  # before the first array's data
    # A Python 2 pickle of one large float32 matrix: its string is cut off by the read.
    header = big[:big.index(b"U\x18")]
    huge = header + b"T" + (4 * 400_000).to_bytes(4, "little") + b"\x00\x00\x80?" * 400_000 + b"tb."
    assert pickles.needs_latin1("model.pkl", huge[:pickles.HEAD_BYTES])
    numbers = io.BytesIO()
    np.save(numbers, np.arange(10))  # a .npy of numbers holds no pickle at all
    assert not pickles.needs_latin1("numbers.npy", numbers.getvalue())
    rng = random.Random(11)
    for _ in range(300):
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        for name in ("x.pkl", "x.pkl.gz", "x.npy"):
            pickles.needs_latin1(name, junk)  # never raises
    assert not pickles.needs_latin1("notes.pkl", b"just some text\n")
    assert not pickles.needs_latin1("notes.pkl", b"S'text' but then junk\xff\xff")
    assert not pickles.needs_latin1("notes.pkl", b"(T\x10\x00\x00\x00\xff\xfe")  # text that starts like a pickle
    assert not pickles.is_candidate("model.p")  # .p is also Pascal's and gnuplot's
    assert not pickles.needs_latin1("x.pkl.gz", b"not gzip at all")
    assert not pickles.needs_latin1("x.npy", b"\x93NUMPY\x01")


def test_the_project_scan_names_them_and_reads_no_more_than_the_head(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    for name in PY2_FILES:
        shutil.copy(PY2 / name, project / "models" / name)
    (project / "models" / "py3.pkl").write_bytes(pickle.dumps({"w": np.ones(3)}))
    shutil.copy(PY2 / "ascii_py2.pkl.gz", project / "models" / "ascii_py2.pkl.gz")
    (project / "models" / "locked.pkl").symlink_to(project / "models" / "missing-target.pkl")
    (project / "train.py").write_text("import theano\nimport lasagne\n")
    found = scan(project)
    assert sorted(found.py2_pickles) == sorted("models/" + n for n in PY2_FILES)
    assert found.to_dict()["python2_pickles"] == found.py2_pickles
    assert any("locked.pkl" in u for u in found.unreadable), found.unreadable


def test_check_and_plan_with_the_project_warn_before_the_first_load(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(PY2 / "model_py2.pkl", project / "model.pkl")
    (project / "train.py").write_text("import theano\n")
    facts = REPO / "fixtures" / "tickets" / "gh-libgpuarray-474" / "facts.toml"
    done = cli("check", "--facts", str(facts), "--project", str(project), "--format", "json")
    report = json.loads(done.stdout)
    ld146 = [d for d in report["diagnoses"] if d["id"] == "LD146"]
    assert ld146 and "model.pkl" in ld146[0]["title"], report["diagnoses"]
    assert any("model.pkl was pickled by Python 2" in note for note in report["plan"]["notes"])
    # Without the project nothing is claimed about its pickles.
    done = cli("check", "--facts", str(facts), "--format", "json")
    assert "LD146" not in {d["id"] for d in json.loads(done.stdout)["diagnoses"]}
