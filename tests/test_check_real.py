"""`check --import-check` against the real Theano 1.0.5 in real legacy venvs: the rule's
prediction and what `import theano` really does must agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from legacy_envs import legacy_venv
from test_cli import run_cli

pytestmark = [pytest.mark.legacy, pytest.mark.slow]


def _check(python: Path, tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    proc = run_cli(
        "check", "--python", str(python), "--import-check", "--format", "json", "--timeout", "120",
        env={"HOME": str(home), "THEANO_FLAGS": "", "THEANORC": str(home / ".theanorc")},
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def _ids(data: dict) -> dict[str, list[str]]:
    return {d["id"]: d["explains"] for d in data["diagnoses"]}


def test_numpy_124_breaks_theano_and_the_import_proves_it(tmp_path: Path) -> None:
    python = legacy_venv("3.8", ["numpy==1.24.4", "scipy==1.10.1", "Theano==1.0.5"])
    top = _ids(_check(python, tmp_path))
    assert "LD106" in top  # numpy-bool-alias-removed
    assert "LD105" in top  # numpy 1.24 also lacks blas_opt_info
    # The real import failure is folded under a root cause, not shown as one more error.
    assert "LD118" not in top
    assert "LD118" in top["LD105"] + top["LD106"]


def test_known_good_combination_imports_and_no_version_rule_fires(tmp_path: Path) -> None:
    python = legacy_venv("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])
    data = _check(python, tmp_path)
    ids = set(_ids(data))
    assert not ids & {"LD103", "LD105", "LD106", "LD107", "LD118"}
    assert data["runs_on"] == "cpu"


def test_keras_with_h5py_3_is_found_before_the_first_load_and_the_plan_pins_h5py_2(tmp_path: Path) -> None:
    keras = ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5", "Keras==2.3.1"]
    python = legacy_venv("3.8", keras + ["h5py==3.11.0"])
    data = _check(python, tmp_path)
    assert "LD149" in _ids(data)  # keras-needs-h5py-below-3, from the recorded versions
    assert data["plan"]["packages"]["h5py"] == "==2.10.0"
    fixed = legacy_venv("3.8", keras + ["h5py==2.10.0"])
    (tmp_path / "again").mkdir()
    assert "LD149" not in _ids(_check(fixed, tmp_path / "again"))
