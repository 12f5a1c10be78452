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


def _late(code: str, keras_on_theano: bool = False) -> list[str]:
    return [item.text for item in late_settings(ast.parse(code), "a.py")
            if keras_on_theano or not item.needs_keras_on_theano]


def test_flags_set_after_theano_is_imported_are_named_with_both_lines() -> None:
    code = "import os\nimport lasagne\nos.environ['THEANO_FLAGS'] = 'device=cuda'\n"
    assert _late(code) == ["os.environ['THEANO_FLAGS'] (a.py:3) after import lasagne (a.py:2)"]


def test_after_keras_the_flags_count_only_where_keras_runs_on_theano() -> None:
    code = "import os\nimport keras\nos.environ['THEANO_FLAGS'] = 'device=cuda'\nimport theano\n"
    assert _late(code) == []  # Keras on TensorFlow (its default since 1.1) has not imported theano
    assert _late(code, keras_on_theano=True) == ["os.environ['THEANO_FLAGS'] (a.py:3) after import keras (a.py:2)"]


def test_keras_backend_after_keras_but_not_after_theano_alone() -> None:
    late = "from keras.models import Model\nimport os\nos.environ['KERAS_BACKEND'] = 'theano'\n"
    assert _late(late) == ["os.environ['KERAS_BACKEND'] (a.py:3) after import keras.models (a.py:1)"]
    # Theano does not read KERAS_BACKEND: importing it first is harmless
    assert _late("import theano\nimport os\nos.environ['KERAS_BACKEND'] = 'theano'\nimport keras\n") == []


def test_a_file_that_reloads_keras_after_setting_its_backend_is_left_alone() -> None:
    code = ("import os\nimport importlib\nfrom keras import backend as K\n\ndef set_backend(b):\n"
            "    os.environ['KERAS_BACKEND'] = b\n    importlib.reload(K)\n")
    assert _late(code) == []


@pytest.mark.parametrize("setting", ["os.environ.setdefault('THEANO_FLAGS', 'device=gpu')",
                                     "os.environ.update({'THEANO_FLAGS': 'device=gpu'})",
                                     "os.environ.update(THEANO_FLAGS='device=gpu')",
                                     "os.environ['THEANO_FLAGS'] += ',floatX=float32'",
                                     "environ['THEANO_FLAGS'] = 'device=gpu'",
                                     "o.environ['THEANO_FLAGS'] = 'device=gpu'"])
def test_every_way_of_setting_the_variable_counts(setting: str) -> None:
    assert _late("import os\nimport os as o\nfrom os import environ\nimport theano\n%s\n" % setting) == [
        "os.environ['THEANO_FLAGS'] (a.py:5) after import theano (a.py:4)"]


def test_putenv_never_reaches_os_environ_wherever_it_stands() -> None:
    assert _late("import os\nos.putenv('THEANO_FLAGS', 'device=gpu')\nimport theano\n") == [
        "os.putenv('THEANO_FLAGS') (a.py:2) bypasses the os.environ that Theano reads"]


def test_an_environ_that_is_not_os_environ_is_not_judged() -> None:
    code = "import theano\n\ndef app(environ, start):\n    environ['THEANO_FLAGS'] = 'x'\n"
    assert _late(code) == []


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


def test_blocks_keep_their_order_and_branches_stay_apart() -> None:
    code = ("import os\ntry:\n    import theano\nexcept ImportError:\n    pass\n"
            "if __name__ == '__main__':\n    os.environ['THEANO_FLAGS'] = 'device=cuda'\n")
    assert _late(code) == ["os.environ['THEANO_FLAGS'] (a.py:7) after import theano (a.py:3)"]
    # the other branch of an if, or the handler of the try that failed to import, ran without it
    assert _late("import os, sys\nif '--cpu' in sys.argv:\n    import theano\nelse:\n"
                 "    os.environ['THEANO_FLAGS'] = 'device=cuda'\n    import theano\n") == []
    assert _late("import os\ntry:\n    import lasagne\nexcept ImportError:\n"
                 "    os.environ['THEANO_FLAGS'] = 'device=cpu'\n") == []


def test_a_file_that_starts_processes_sets_the_variable_for_its_children() -> None:
    code = "import os\nimport subprocess\nimport theano\nos.environ['THEANO_FLAGS'] = 'device=cuda1'\n"
    assert _late(code) == []
    assert _late("import os\nimport theano\nos.environ['THEANO_FLAGS'] = 'x'\nos.system('python w.py')\n") == []
    # a Keras layer's call or a session's run is not a process
    assert _late("import os\nimport theano\nos.environ['THEANO_FLAGS'] = 'x'\nsess.run(y)\nlayer.call(x)\n") == [
        "os.environ['THEANO_FLAGS'] (a.py:3) after import theano (a.py:2)"]


def test_a_python_variable_named_theano_flags_above_the_import_is_never_read() -> None:
    assert _late("THEANO_FLAGS = 'device=gpu,floatX=float32'\nimport theano\n") == [
        "THEANO_FLAGS = ... (a.py:1) only a Python variable that Theano never reads"]
    # used, read from the environment, a config module with no theano, or a global rebound elsewhere
    assert _late("import os\nTHEANO_FLAGS = 'device=gpu'\nos.environ['THEANO_FLAGS'] = THEANO_FLAGS\n"
                 "import theano\n") == []
    assert _late("import os\nTHEANO_FLAGS = os.environ.get('THEANO_FLAGS', '')\nimport theano\n") == []
    assert _late("THEANO_FLAGS = 'device=cuda'\n") == []
    assert _late("THEANO_FLAGS = 'x'\nimport theano\ndef f():\n    global THEANO_FLAGS\n    THEANO_FLAGS = 'y'\n") == []


def test_odd_files_do_not_crash_the_scan() -> None:
    # a chain of elifs Python parses but a recursive walk could not follow
    elifs = "import theano\nx = 0\nif x == 0:\n    pass\n" + "".join(
        "elif x == %d:\n    pass\n" % i for i in range(1, 2500))
    try:
        tree = ast.parse(elifs)
    except RecursionError:  # a Python whose parser stops earlier: nothing to walk
        pytest.skip("this Python does not parse 2,500 elifs")
    assert late_settings(tree, "a.py") == []
    # thousands of settings before the import: each is compared with the scope's few imports
    many = "import os\n" + "os.environ['THEANO_FLAGS'] = 'x'\n" * 5000 + "import theano\n"
    assert _late(many) == []


def test_vendored_code_and_python2_files_are_not_judged(tmp_path: Path) -> None:
    (tmp_path / "third_party").mkdir()
    late = "import os\nimport theano\nos.environ['THEANO_FLAGS'] = 'device=gpu'\n"
    (tmp_path / "third_party" / "x.py").write_text(late)
    (tmp_path / "old.py").write_text("import theano\nprint 'hi'\nos.environ['THEANO_FLAGS'] = 'device=gpu'\n")
    assert scan(tmp_path).late_settings == []
    (tmp_path / "train.py").write_text(late)
    assert [item.text for item in scan(tmp_path).late_settings] == [
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


def test_theano_flags_after_keras_is_reported_where_keras_runs_on_theano(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "train.py").write_text("import os\nimport keras\nos.environ['THEANO_FLAGS'] = 'device=cuda'\n")
    facts = tmp_path / "facts.toml"
    record = {"schema": 1, "system": {"os": "linux"}, "env": {"variables": {"PATH": "/usr/bin"}},
              "packages": {"keras": {"name": "Keras", "version": "2.1.6"},
                           "keras_config": {"path": "/home/u/.keras/keras.json", "from": "home", "exists": True,
                                            "backend": "tensorflow"}}}
    facts.write_text(tomli_w.dumps(record))
    proc = run_cli("check", "--facts", str(facts), "--project", str(project), "--format", "json")
    assert "LD530" not in {d["id"] for d in json.loads(proc.stdout)["diagnoses"]}
    record["packages"]["keras_config"]["backend"] = "theano"
    facts.write_text(tomli_w.dumps(record))
    proc = run_cli("check", "--facts", str(facts), "--project", str(project), "--format", "json")
    found = {d["id"]: d for d in json.loads(proc.stdout)["diagnoses"]}
    assert found["LD530"]["evidence"]["project.late_settings"] == [
        "os.environ['THEANO_FLAGS'] (train.py:3) after import keras (train.py:2)"]
