"""check --project names THEANO_FLAGS / KERAS_BACKEND settings nothing reads (LD530)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import tomli_w

from legacydoc.plan.late_settings import late_settings
from legacydoc.plan.project import scan
from test_cli import run_cli


def _late(code: str) -> list[str]:
    return late_settings(ast.parse(code), "a.py")


def test_flags_set_after_keras_is_imported_are_named_with_both_lines() -> None:
    code = "import os\nimport keras\nos.environ['THEANO_FLAGS'] = 'device=cuda'\n"
    assert _late(code) == ["os.environ['THEANO_FLAGS'] (a.py:3) after import keras (a.py:2)"]


def test_keras_backend_after_keras_but_not_after_theano_alone() -> None:
    late = "from keras.models import Model\nimport os\nos.environ['KERAS_BACKEND'] = 'theano'\n"
    assert _late(late) == ["os.environ['KERAS_BACKEND'] (a.py:3) after import keras.models (a.py:1)"]
    # Theano does not read KERAS_BACKEND: importing it first is harmless
    assert _late("import theano\nimport os\nos.environ['KERAS_BACKEND'] = 'theano'\nimport keras\n") == []


@pytest.mark.parametrize("setting", ["os.environ.setdefault('THEANO_FLAGS', 'device=gpu')",
                                     "os.environ.update({'THEANO_FLAGS': 'device=gpu'})",
                                     "os.environ.update(THEANO_FLAGS='device=gpu')",
                                     "os.putenv('THEANO_FLAGS', 'device=gpu')",
                                     "environ['THEANO_FLAGS'] = 'device=gpu'"])
def test_every_way_of_setting_the_variable_counts(setting: str) -> None:
    assert _late("import os\nfrom os import environ\nimport lasagne\n%s\n" % setting) == [
        "os.environ['THEANO_FLAGS'] (a.py:4) after import lasagne (a.py:3)"]


def test_a_setting_before_the_import_is_the_right_way() -> None:
    assert _late("import os\nos.environ['THEANO_FLAGS'] = 'device=cuda'\nimport theano\n") == []
    assert _late("import os\nos.environ['OMP_NUM_THREADS'] = '4'\nimport theano\nos.environ['X'] = '1'\n") == []


def test_a_function_runs_after_the_module_level_import_above_it() -> None:
    code = ("import os\nimport theano\n\ndef main():\n    os.environ['THEANO_FLAGS'] = 'device=cuda'\n"
            "\ndef setup():\n    import keras\n    os.environ['KERAS_BACKEND'] = 'theano'\n")
    assert _late(code) == ["os.environ['THEANO_FLAGS'] (a.py:5) after import theano (a.py:2)",
                           "os.environ['KERAS_BACKEND'] (a.py:9) after import keras (a.py:8)"]
    # a function defined before any import may run first: not judged
    assert _late("import os\ndef f():\n    os.environ['THEANO_FLAGS'] = 'x'\nf()\nimport theano\n") == []


def test_blocks_of_the_module_body_keep_their_order() -> None:
    code = ("import os\ntry:\n    import theano\nexcept ImportError:\n    pass\n"
            "if __name__ == '__main__':\n    os.environ['THEANO_FLAGS'] = 'device=cuda'\n")
    assert _late(code) == ["os.environ['THEANO_FLAGS'] (a.py:7) after import theano (a.py:3)"]


def test_a_file_that_starts_processes_sets_the_variable_for_its_children() -> None:
    code = "import os\nimport subprocess\nimport theano\nos.environ['THEANO_FLAGS'] = 'device=cuda1'\n"
    assert _late(code) == []
    assert _late("import os\nimport theano\nos.environ['THEANO_FLAGS'] = 'x'\nos.system('python w.py')\n") == []


def test_a_python_variable_named_theano_flags_is_never_read_unless_used() -> None:
    assert _late("THEANO_FLAGS = 'device=gpu,floatX=float32'\nimport theano\n") == [
        "THEANO_FLAGS = ... (a.py:1), a Python variable Theano never reads"]
    assert _late("import os\nTHEANO_FLAGS = 'device=gpu'\nos.environ['THEANO_FLAGS'] = THEANO_FLAGS\n"
                 "import theano\n") == []


def test_vendored_code_and_python2_files_are_not_judged(tmp_path: Path) -> None:
    (tmp_path / "third_party").mkdir()
    late = "import os\nimport theano\nos.environ['THEANO_FLAGS'] = 'device=gpu'\n"
    (tmp_path / "third_party" / "x.py").write_text(late)
    (tmp_path / "old.py").write_text("import theano\nprint 'hi'\nos.environ['THEANO_FLAGS'] = 'device=gpu'\n")
    assert scan(tmp_path).late_settings == []
    (tmp_path / "train.py").write_text(late)
    assert scan(tmp_path).late_settings == [
        "os.environ['THEANO_FLAGS'] (train.py:3) after import theano (train.py:2)"]


def test_check_project_reports_ld530_from_the_code(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "demo.py").write_text("import os\nfrom keras.models import load_model\n"
                                     "os.environ['KERAS_BACKEND'] = 'theano'\n")
    facts = tmp_path / "facts.toml"
    facts.write_text(tomli_w.dumps({"schema": 1, "system": {"os": "linux"}}))
    proc = run_cli("check", "--facts", str(facts), "--project", str(project), "--format", "json")
    found = {d["id"]: d for d in json.loads(proc.stdout)["diagnoses"]}
    assert found["LD530"]["evidence"]["project.late_settings"] == [
        "os.environ['KERAS_BACKEND'] (demo.py:3) after import keras.models (demo.py:2)"]
    assert proc.returncode == 1, proc.stderr
    (project / "demo.py").write_text("import os\nos.environ['KERAS_BACKEND'] = 'theano'\n"
                                     "from keras.models import load_model\n")
    proc = run_cli("check", "--facts", str(facts), "--project", str(project), "--format", "json")
    assert "LD530" not in {d["id"] for d in json.loads(proc.stdout)["diagnoses"]}
