"""check --project: the Theano API a project's code uses (legacydoc/plan/theano_uses.py),
compared with what the installed release has (legacydoc/theanoapi.py and the table
rules/knowledge/theano_api.toml, read at Theano's tags by tools/theano_api_table.py)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import tomli_w

from legacydoc.knowledge import tables
from legacydoc.plan import theano_uses
from legacydoc.plan.project import scan
from legacydoc.theanoapi import api_gaps
from test_cli import run_cli

TABLE = tables()["theano_api"].data

NET = '''\
import theano
import theano.tensor as T
from theano.tensor.nnet import relu, sigmoid
from theano.tensor.signal import pool
try:
    from theano.tensor.nnet import ctc
except ImportError:
    ctc = None


def layer(x):
    if hasattr(T.nnet, "selu"):
        x = T.nnet.selu(x)
    return T.nnet.abstract_conv.conv2d(x) + theano.tensor.nnet.bn.batch_normalization(x)
'''

# Python 2: Python 3 cannot parse it, so it is read line by line
OLD = '''\
import theano.tensor as T
from theano import ProfileMode
print "compiling"
try:
    from theano.tensor.nnet import ctc
except ImportError:
    ctc = None
def conv(x):
    return T.nnet.conv3D(x)  # T.nnet.relu in a comment
'''


def _uses(text: str) -> set[tuple[str, str, str]]:
    return {(m, n, k) for m, n, k, _ in theano_uses.uses_ast(ast.parse(text))}


def _gaps(uses, flavour: str, version: str) -> dict:
    return api_gaps(uses, {"derived": {"theano": {"flavour": flavour, "version": version}}}, TABLE)


def test_imports_and_attribute_chains_are_read_through_aliases() -> None:
    found = _uses(NET)
    assert ("theano.tensor.nnet", "relu", "import") in found
    assert ("theano.tensor.signal", "pool", "import") in found
    assert ("theano.tensor.nnet", "abstract_conv", "attribute") in found
    assert ("theano.tensor.nnet.abstract_conv", "conv2d", "attribute") in found
    assert ("theano.tensor.nnet.bn", "batch_normalization", "attribute") in found
    # guarded: a try that catches ImportError, an if that asks hasattr()
    assert not any(name in ("ctc", "selu") for _, name, _ in found)


def test_code_under_an_if_may_never_run_but_a_scripts_main_block_does() -> None:
    main = "import theano\nif __name__ == '__main__':\n    theano.ProfileMode()\n"
    assert ("theano", "ProfileMode", "attribute") in _uses(main)
    assert ("theano", "ProfileMode", "attribute") in {(m, n, k) for m, n, k, _ in theano_uses.uses_text(main)}
    optional = "import theano\nif PROFILE:\n    theano.ProfileMode()\n"
    assert ("theano", "ProfileMode", "attribute") not in _uses(optional)
    assert not [u for u in theano_uses.uses_text(optional) if u[1] == "ProfileMode"]


def test_a_name_the_file_also_binds_itself_is_not_followed_as_a_module() -> None:
    found = _uses("import theano.tensor as T\ndef f(T):\n    return T.nnet.relu\n")
    assert not any(kind == "attribute" for _, _, kind in found)


def test_python2_code_is_read_by_its_lines() -> None:
    found = {(m, n, k) for m, n, k, _ in theano_uses.uses_text(OLD)}
    assert ("theano", "ProfileMode", "import") in found
    assert ("theano.tensor.nnet", "conv3D", "attribute") in found
    assert ("theano.tensor.nnet", "relu", "attribute") not in found  # a comment
    assert not any(name == "ctc" for _, name, _ in found)  # in a try


@pytest.mark.parametrize("text", [
    "import theano\nif PROFILE:\n    for i in range(2):\n        theano.ProfileMode()\n",  # nested
    "import theano\nif PROFILE: theano.ProfileMode()\n",  # a one-line if
    "import theano\nmode = theano.ProfileMode() if PROFILE else None\n",
    "import theano\ntry:\n    import foo\nexcept ImportError:\n    theano.ProfileMode()\n",
    'import theano\ndef f():\n    """Time it:\n    theano.ProfileMode()\n    """\n',  # a docstring
    "import theano\ntheano = object()\ntheano.ProfileMode()\n",  # rebound
    "import theano\nfrom mylib import theano\ntheano.ProfileMode()\n",
    "import theano.compile as M\nimport theano as M\nM.ProfileMode()\n",  # two modules, one name
    # found by a second reader: a string in the opener, a condition over two lines, tabs,
    # a continuation line less indented, a conditional after a string, a guarded rebinding,
    # three quotes inside a string
    "import theano\nif mode == 'profile':\n    theano.ProfileMode()\n",
    "import theano\nif (PROFILE and\n        FAST):\n    theano.ProfileMode()\n",
    "import theano\nif PROFILE \\\n        and FAST:\n    theano.ProfileMode()\n",
    "import theano\n    if PROFILE:\n\t\ttheano.ProfileMode()\n",
    "import theano\nif PROFILE:\n    x = f(1,\n2)\n    theano.ProfileMode()\n",
    "import theano\nx = theano.ProfileMode() if m == 'p' else None\n",
    "import theano\ntry:\n    import numpy as theano\nexcept ImportError:\n    pass\ntheano.ProfileMode()\n",
    "import theano\ns = \"'''\"\ndef f():\n    '''Run theano.ProfileMode()'''\n",
])
def test_python2_code_that_may_never_run_or_is_no_code_is_not_a_use(text: str) -> None:
    assert not [u for u in theano_uses.uses_text(text) if u[1] == "ProfileMode"]
    try:
        tree = ast.parse(text)
    except SyntaxError:  # mixed tabs and spaces: Python 2 only
        return
    assert not [u for u in theano_uses.uses_ast(tree) if u[1] == "ProfileMode"]


def test_a_use_after_a_multiline_statement_or_in_a_main_block_still_counts() -> None:
    text = ("import theano\nx = f(1,\n      2)\ny = \"\"\"a\nb\"\"\"\n"
            "if __name__ == '__main__':\n\ttheano.ProfileMode()\n")
    assert [(m, n, line) for m, n, _, line in theano_uses.uses_text(text) if n == "ProfileMode"] == [
        ("theano", "ProfileMode", 7)]


def test_a_line_too_long_to_read_keeps_the_imports_and_claims_no_attribute() -> None:
    text = "import theano\nx = [" + "1, " * 3000 + "]\ntheano.ProfileMode()\n"
    assert [u[:3] for u in theano_uses.uses_text(text)] == [("theano", "", "module")]


def test_an_import_over_several_lines_is_read_as_one() -> None:
    text = "from theano.tensor.nnet import (relu,\n    sigmoid)\nimport theano.tensor \\\n  as T\nprint 'x'\nT.nnet.selu\n"
    found = {(m, n, k) for m, n, k, _ in theano_uses.uses_text(text)}
    assert {("theano.tensor.nnet", "sigmoid", "import"), ("theano.tensor.nnet", "selu", "attribute")} <= found


def test_windows_line_ends_are_read_too() -> None:
    text = OLD.replace("\n", "\r\n")
    found = {(m, n, k) for m, n, k, _ in theano_uses.uses_text(text)}
    assert ("theano", "ProfileMode", "import") in found and ("theano.tensor.nnet", "conv3D", "attribute") in found


def test_a_vendored_copy_of_a_library_is_not_the_projects_code(tmp_path: Path) -> None:
    (tmp_path / "third_party").mkdir()
    (tmp_path / "third_party" / "pool.py").write_text("from theano.tensor.nnet import ctc\n")
    (tmp_path / "net.py").write_text("from theano.tensor.nnet import relu\n")
    assert [u[:3] for u in scan(tmp_path).theano_api_uses()] == [
        ("theano.tensor.nnet", "", "module"), ("theano.tensor.nnet", "relu", "import")]


def test_each_release_lacks_what_its_tags_lack(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "old.py").write_text(OLD)
    uses = scan(tmp_path).theano_api_uses()
    assert _gaps(uses, "theano", "0.7.0") == {"theano_lacks": [
        "theano.tensor.nnet.relu (net.py:3)", "theano.tensor.signal.pool (net.py:4)",
        "theano.tensor.nnet.bn (net.py:14)", "theano.tensor.nnet.abstract_conv (net.py:14)"]}
    assert _gaps(uses, "theano", "0.8.2") == {}
    assert _gaps(uses, "theano", "0.9.0") == {"theano_removed": ["theano.ProfileMode (old.py:2; last in 0.8.2)"]}
    assert _gaps(uses, "theano", "1.0.4") == {"theano_removed": [
        "theano.ProfileMode (old.py:2; last in 0.8.2)", "theano.tensor.nnet.conv3D (old.py:9; last in 0.9.0)"]}


def test_no_claim_about_a_release_no_tag_was_read_for() -> None:
    uses = [("theano.tensor.nnet", "ctc", "import", "a.py:1"), ("theano.gpuarray", "", "module", "a.py:2")]
    assert _gaps(uses, "theano", "0.8.2")["theano_lacks"] == ["theano.tensor.nnet.ctc (a.py:1)",
                                                              "theano.gpuarray (a.py:2)"]
    for version in ("0.9.0.dev-1a2b3c4", "0.8.0rc1", "0.10.0b1", "0.8.2+12.gabc1234", "0.8.2-custom",
                    "0.8.2.post1", "", "garbage"):
        assert _gaps(uses, "theano", version) == {}
    assert api_gaps(uses, {"derived": {"theano": {"version": "0.8.2"}}}, TABLE) == {}  # whose Theano is unknown


def test_a_submodule_named_like_a_library_is_still_theanos() -> None:
    # pylearn2's form: theano/compat/six.py was there until 0.9.0
    uses = [("theano.compat", "six", "import", "a.py:1")]
    assert _gaps(uses, "theano", "1.0.5") == {"theano_removed": ["theano.compat.six (a.py:1; last in 0.9.0)"]}
    assert _gaps(uses, "theano", "0.9.0") == {}


def test_theano_pymc_11_lacks_what_it_moved() -> None:
    uses = [("theano.gof", "", "module", "ops.py:1"), ("theano", "Op", "attribute", "ops.py:5"),
            ("theano.tensor", "dot", "attribute", "ops.py:9")]
    assert _gaps(uses, "theano-pymc", "1.1.2") == {
        "theano_pymc_lacks": ["theano.gof (ops.py:1)", "theano.Op (ops.py:5)"]}
    assert _gaps(uses, "theano-pymc", "1.0.11") == {}


def test_every_row_of_the_table_names_a_release_range_and_a_tag() -> None:
    rows = TABLE["lacks"] + TABLE["lacks_module"]
    assert {r["written_for"] for r in rows} == {"newer", "older", "theano-1.0"}
    assert all(r["found_in"].startswith("rel-") for r in rows)
    # what 1.0.5 has cannot be missing from it
    assert not [r for r in rows if r["dist"] == "Theano" and r["versions"].endswith("<=1.0.5")
                and r["written_for"] != "older"]


def test_check_project_names_what_the_release_lacks(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "train.py").write_text("import theano.tensor as T\nfrom theano.tensor.nnet import ctc\n"
                                      "y = T.nnet.selu(T.matrix())\n")
    record = {"schema": 1, "system": {"os": "linux"},
              "packages": {"found": ["theano"], "theano": {"name": "Theano", "version": "0.8.2"}}}
    facts = tmp_path / "facts.toml"
    facts.write_text(tomli_w.dumps(record))
    proc = run_cli("check", "--facts", str(facts), "--project", str(project), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    found = {d["id"]: d for d in json.loads(proc.stdout)["diagnoses"]}
    assert found["LD121"]["evidence"]["project.theano_lacks"] == [
        "theano.tensor.nnet.ctc (train.py:2)", "theano.tensor.nnet.selu (train.py:3)"]
    assert "theano.tensor.nnet.ctc (train.py:2)" in found["LD121"]["title"]
    record["packages"]["theano"]["version"] = "1.0.5"
    facts.write_text(tomli_w.dumps(record))
    proc = run_cli("check", "--facts", str(facts), "--project", str(project), "--format", "json")
    assert "LD121" not in {d["id"] for d in json.loads(proc.stdout)["diagnoses"]}


@pytest.mark.parametrize("text", ["from theano import (\n", "import theano.tensor as T\nT.nnet.relu(\n",
                                  "import theano\n" + "x = (" * 400 + "\n"])
def test_broken_code_never_stops_the_scan(tmp_path: Path, text: str) -> None:
    (tmp_path / "bad.py").write_text(text)
    scanned = scan(tmp_path)
    assert scanned.files_scanned == 1 and not scanned.unreadable


def test_check_v_says_the_project_rules_read_the_code_and_are_not_undecided(tmp_path: Path) -> None:
    record = {"schema": 1, "system": {"os": "linux"},
              "packages": {"found": ["theano"], "theano": {"name": "Theano", "version": "0.8.2"}}}
    facts = tmp_path / "facts.toml"
    facts.write_text(tomli_w.dumps(record))
    project = tmp_path / "proj"
    project.mkdir()
    (project / "net.py").write_text("from theano.tensor.nnet import relu\n")  # 0.8.2 has it
    for extra in ([], ["--project", str(project)]):
        text = run_cli("check", "--facts", str(facts), "-v", *extra).stdout
        assert "LD121 reads the project's code (--project) and the log (--log)" in text
        if not extra:  # no log message leads to LD146; a scan decides it
            assert "LD146 reads the project's code (--project)\n" in text
        areas = {a["name"]: a for a in json.loads(
            run_cli("check", "--facts", str(facts), "--format", "json", *extra).stdout)["areas"]}
        assert "LD121" not in areas["packages"].get("undecided", {}) and "LD121" in areas["packages"]["reads_project"]


def test_the_plan_keeps_the_release_that_has_everything_the_code_uses(tmp_path: Path) -> None:
    from legacydoc.plan.planner import make_plan

    record = {"schema": 1, "system": {"os": "linux"}, "python": {"version": "3.6.8"}}
    (tmp_path / "net.py").write_text("import theano\nm = theano.ProfileMode()\n")
    assert make_plan(record, scan(tmp_path)).theano == "Theano==0.8.2"
    # 0.8.2 has ProfileMode but no theano.gpuarray; 0.9.0 the other way round
    (tmp_path / "gpu.py").write_text("from theano.gpuarray.dnn import dnn_conv\n")
    plan = make_plan(record, scan(tmp_path))
    assert plan.theano == "Theano==1.0.5"
    assert plan.reasons["Theano"] == (
        "the project uses Theano API removed in 0.9 (theano.ProfileMode at net.py:2); 0.8.2 is the last release "
        "that has it, but Theano 0.8.2 lacks other API the project uses (theano.gpuarray.dnn at gpu.py:1): no "
        "release has all of it, so the old calls must be ported")
    # the old back-end and a name only 1.0 has: no release either
    (tmp_path / "net.py").write_text("import theano.sandbox.cuda\nfrom theano.tensor.nnet import ctc\n")
    (tmp_path / "gpu.py").unlink()
    plan = make_plan(record, scan(tmp_path))
    assert plan.theano == "Theano==1.0.5" and "Theano 0.9.0 lacks other API" in plan.reasons["Theano"]
