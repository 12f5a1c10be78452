"""`legacydoc explain`, `check --log` and `report --log`, through the real command line.

The messages are real: each catalogue entry's example is quoted from the public report it
names, and the field corpus's logs are what reporters posted (fixtures/tickets/*/log.txt).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import corpus
import pytest

from conftest import REPO
from legacydoc import logscan
from legacydoc.engine import load_rules
from legacydoc.explain import CONFIRMED, RULED_OUT, UNKNOWN, explain
from legacydoc.messages import catalogue

TICKETS = REPO / "fixtures" / "tickets"


def cli(*args: str, stdin: bytes = b"", env: dict | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "legacydoc", *args], input=stdin, cwd=str(cwd), env=full_env,
                          capture_output=True, timeout=120)


def diagnoses(facts: Path, log: Path) -> dict[str, dict]:
    """check --facts FACTS --log LOG --format json: the diagnoses by rule id."""
    out = cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout
    return {d["id"]: d for d in json.loads(out)["diagnoses"]}


def ids_of(output: bytes) -> list[str]:
    return [m["id"] for m in json.loads(output)["messages"]]


def found_in(text: str) -> dict:
    """message id -> what explain found for it, in-process."""
    return {f.message.id: f for f in explain(logscan.log_table(text.encode("utf-8"), source="test"), load_rules()).found}


# --- explain: what is found, and how it is said -------------------------------------------------


def test_every_catalogue_example_is_explained() -> None:
    """Each message's own (real) example is recognised as that message, in-process."""
    rules = load_rules()
    for message in catalogue():
        table = logscan.log_table(message.example.encode("utf-8"), source="example")
        result = explain(table, rules)
        assert message.id in [f.message.id for f in result.found], message.id
        assert result.exit_code() == 0


@pytest.mark.parametrize("line, found", [
    # setuptools' easy_install (python setup.py install), PCNtoolkit#34's form
    ("error: Theano 1.0.4 is installed but theano>=1.0.5 is required by {'pymc3'}", True),
    ("pkg_resources.ContextualVersionConflict: (Theano 1.0.4 (/u/lib/python3.8/site-packages), "
     "Requirement.parse('theano>=1.0.5'), {'pymc3'})", True),
    # pip 10 .. 20.2 after an install
    ("pymc3 3.9.3 has requirement theano>=1.0.5, but you'll have theano 1.0.4 which is incompatible.", True),
    # a requirement of several clauses, as pip prints numpy's
    ("tensorflow 2.3.0 requires numpy<1.19.0,>=1.16.0, but you have numpy 1.19.5 which is incompatible.", True),
    # a conflict outside the Theano stack is not this environment's problem
    ("awscli 1.18.0 requires botocore==1.15.0, but you have botocore 1.16.0 which is incompatible.", False),
    ("pymc3 3.9.3 requires theano>=1.0.5\n", False),
])
def test_requirement_conflicts_of_the_theano_stack_point_at_ld144(line: str, found: bool) -> None:
    """pip 23's two forms are recorded (tests/data/real_logs); these are the forms of the tags
    the catalogue entry cites, which nobody can record on today's pip."""
    messages = found_in(line)
    assert ("python-requirements-conflict" in messages) == found, sorted(messages)
    if found:
        assert messages["python-requirements-conflict"].message.rules == ("LD144",)


@pytest.mark.parametrize("line", [
    # Theano rel-0.9.0 theano/sandbox/cuda/__init__.py:618, as the warnings module prints it
    "/usr/lib/python2.7/dist-packages/theano/sandbox/cuda/__init__.py:631: UserWarning: Your cuDNN version is "
    "more recent than the one Theano officially supports. If you see any problems, try updating Theano or "
    "downgrading cuDNN to version 5.1.",
    # rel-0.8.2 theano/sandbox/cuda/__init__.py:586
    "UserWarning: Your cuDNN version is more recent than the one Theano officially supports. If you see any "
    "problems, try updating Theano or downgrading cuDNN to version 5.",
    # rel-0.8.2 theano/sandbox/gpuarray/__init__.py:76
    "UserWarning: Your cuDNN version is more recent than Theano. If you see problems, try updating Theano or "
    "downgrading cuDNN to version 5.",
])
def test_the_old_back_ends_cudnn_too_new_warning_as_each_release_spells_it(line: str) -> None:
    """The pattern once wanted a capital 'CuDNN' (0.8.0/0.8.1's spelling) and so never matched
    the 0.8.2 and 0.9 wording, the commonest: cuDNN 6/7 under Theano 0.9's device=gpu."""
    table = logscan.log_table(line.encode("utf-8"), source="test")
    found = {f.message.id for f in explain(table, load_rules()).found}
    assert "theano-cuda-cudnn-more-recent-warning" in found, sorted(found)
    groups = [m["groups"] for m in table["matches"] if m["id"] == "theano-cuda-cudnn-more-recent-warning"]
    assert groups and groups[0].get("target") in ("5", "5.1"), groups


def test_nvccs_own_visual_studio_check_names_its_causes_and_reads_without_facts(tmp_path: Path) -> None:
    """nvcc refuses the Visual Studio itself (Theano#1473 as the console wrapped it); LD408's
    title must read as a sentence when nothing about MSVC is known."""
    log = tmp_path / "log.txt"
    log.write_text("nvcc : fatal error : nvcc cannot find a supported version of Microsoft Visual St\n"
                   "udio. Only the versions 2008, 2010, and 2012 are supported\n", encoding="utf-8")
    proc = cli("explain", str(log), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "nvcc-cannot-find-supported-msvc" in ids_of(proc.stdout)
    assert {"LD407", "LD408"} <= set(proc.stdout.decode().replace('"', " ").split())
    facts = tmp_path / "facts.toml"
    facts.write_text('schema = 1\nlegacydoc_version = "0.1.0"\ncollected_at = "2016-01-01T00:00:00+00:00"\n'
                     'redacted = true\n[system]\nos = "windows"\n', encoding="utf-8")
    # nvcc's own check cannot say whether it found an unsupported Visual Studio or none: no
    # rule is claimed from it alone. The headers' check can, and LD408 must read without facts.
    log.write_text("host_config.h(133): fatal error C1189: #error: -- unsupported Microsoft Visual Studio "
                   "version! Only the versions 2012, 2013, 2015 and 2017 are supported!\n", encoding="utf-8")
    proc = cli("check", "--facts", str(facts), "--log", str(log), env={"LEGACYDOC_LANG": "en"})
    out = proc.stdout.decode()
    assert "[LD408 msvc-unsupported-by-nvcc]" in out, out
    title = next(line for line in out.splitlines() if "[LD408" in line)
    assert "unknown" not in title and "nvcc of this CUDA release does not accept this Visual Studio" in title, title


@pytest.mark.parametrize("text, found", [
    # Python 2 and < 3.7: the import line, then the bare name (blocks#978)
    ("    from theano.tensor.nnet import bn\nImportError: cannot import name bn\n", True),
    ("    from theano.tensor.nnet import (conv2d,\n        relu)\nImportError: cannot import name relu\n", True),
    ("ImportError: cannot import name 'pool_3d' from 'theano.tensor.signal.pool' (/x/pool.py)\n", True),
    ("AttributeError: module 'theano.tensor.nnet' has no attribute 'relu'\n", True),
    # removed later, not added: Theano is too new for this code, not too old
    ("    from theano.tensor.signal import downsample\nImportError: cannot import name downsample\n", False),
    # softmax was in 0.7 already: something else is wrong (a shadowing copy, a circular import)
    ("    from theano.tensor.nnet import softmax\nImportError: cannot import name softmax\n", False),
    # the name must be the one the import line asked for
    ("    from theano.tensor.nnet import relu\nImportError: cannot import name foo\n", False),
    # a submodule the package's __init__ imports only under a condition is no attribute of it:
    # Theano 1.0.x under device=cpu has no theano.gpuarray until it is imported
    ("AttributeError: module 'theano' has no attribute 'gpuarray'\n", False),
    ("AttributeError: module 'theano' has no attribute 'd3viz'\n", False),
    # ... but importing it works on every release that has it
    ("    from theano import gpuarray\nImportError: cannot import name gpuarray\n", True),
])
def test_a_theano_name_added_after_a_release_is_told_from_other_import_errors(text: str, found: bool) -> None:
    ids = set(found_in(text))
    assert ("theano-name-added-after-release" in ids) == found, ids


@pytest.mark.parametrize("text, found", [
    # Python 2's attribute error names no module: the source line above reaches the name
    # through it (improved-gan#2); abstract_conv is a submodule nnet/__init__ always imports
    ("    op = T.nnet.abstract_conv.AbstractConv2d_gradInputs(imshp=s)\n"
     "AttributeError: 'module' object has no attribute 'abstract_conv'\n", True),
    ("    y = tt.nnet.relu(x)\n\nAttributeError: 'module' object has no attribute 'relu'\n", True),
    # ... not through another module, not a name Theano 0.7 already had, not alone
    ("    op = mylib.abstract_conv.thing()\nAttributeError: 'module' object has no attribute 'abstract_conv'\n", False),
    ("    y = T.nnet.softmax(x)\nAttributeError: 'module' object has no attribute 'softmax'\n", False),
    ("AttributeError: 'module' object has no attribute 'abstract_conv'\n", False),
    # theano.gpuarray is imported by theano/__init__ only for a GPU device: Theano 1.0.4
    # under device=cpu has no such attribute, and is not too old for the code
    ("    theano.gpuarray.use('cuda')\nAttributeError: 'module' object has no attribute 'gpuarray'\n", False),
])
def test_python_2_attribute_errors_on_theano_names_added_later(text: str, found: bool) -> None:
    ids = set(found_in(text))
    assert ("theano-attribute-added-after-release" in ids) == found, ids


@pytest.mark.parametrize("text, message", [
    # recorded with Theano 1.0.5 (tests/data/real_logs/theano105-removed-*.txt)
    ("AttributeError: module 'theano' has no attribute 'ProfileMode'\n", "theano-name-gone-by-09"),
    ("ModuleNotFoundError: No module named 'theano.compat.six'\n", "theano-module-removed-after-release"),
    ("ImportError: cannot import name 'six' from 'theano.compat' (/x/theano/compat/__init__.py)\n",
     "theano-name-removed-after-release"),
    ("    from theano.compile import ProfileMode\nImportError: cannot import name ProfileMode\n",
     "theano-name-gone-by-09"),
    ("ModuleNotFoundError: No module named 'theano.compile.profilemode'\n", "theano-module-gone-by-09"),
    ("    mode = theano.ProfileMode(optimizer='fast_run')\nAttributeError: 'module' object has no attribute "
     "'ProfileMode'\n", "theano-attribute-gone-by-09"),
    ("AttributeError: module 'theano.tensor.nnet' has no attribute 'conv3D'\n", "theano-name-removed-after-release"),
    # Python 2: the line above reaches the name through its module; the module's missing part
    # counts after the import line naming it in full (BinaryNet#29, under Pylearn2)
    ("    out = T.nnet.conv3D(V=x, W=w, b=b, d=(1, 1, 1))\nAttributeError: 'module' object has no attribute 'conv3D'\n",
     "theano-attribute-removed-after-release"),
    ("    from theano.compat.six.moves import input, zip as izip\nImportError: No module named six.moves\n",
     "theano-module-removed-after-release"),
    ("    from theano.sandbox.gpuarray import dnn\nImportError: No module named gpuarray\n",
     "theano-module-removed-after-release"),
])
def test_theano_api_removed_later_is_named(text: str, message: str) -> None:
    ids = set(found_in(text))
    assert message in ids, ids
    # the other direction's messages stay out: upgrading Theano would not help
    assert not ids & {"theano-name-added-after-release", "theano-module-added-after-release",
                      "theano-attribute-added-after-release"}, ids


@pytest.mark.parametrize("text", [
    # any six's, not Theano's; a name 1.0.5 still has; the new back-end missing from an old Theano
    "    from six.moves import input\nImportError: No module named six.moves\n",
    "ImportError: No module named six.moves\n",
    "AttributeError: module 'theano.tensor.nnet' has no attribute 'conv3d'\n",
    "    y = T.nnet.conv3d(x, w)\nAttributeError: 'module' object has no attribute 'conv3d'\n",
    "    from theano.gpuarray.type import GpuArrayType\nImportError: No module named gpuarray.type\n",
    # downsample and the old back-end have messages of their own
    "ModuleNotFoundError: No module named 'theano.tensor.signal.downsample'\n",
])
def test_what_theano_did_not_remove_is_not_called_removed(text: str) -> None:
    ids = set(found_in(text))
    assert not ids & {"theano-name-removed-after-release", "theano-module-removed-after-release",
                      "theano-attribute-removed-after-release", "theano-name-gone-by-09",
                      "theano-attribute-gone-by-09", "theano-module-gone-by-09"}, ids


@pytest.mark.parametrize("text, message", [
    # recorded with Theano-PyMC 1.1.2 (tests/data/real_logs/theanopymc112-*.txt)
    ("AttributeError: module 'theano' has no attribute 'Op'\n", "theano-name-not-in-theano-pymc-11"),
    ("ModuleNotFoundError: No module named 'theano.gof'\n", "theano-module-not-in-theano-pymc-11"),
    ("ImportError: cannot import name 'MRG_RandomStreams' from 'theano.sandbox.rng_mrg' (/x/rng_mrg.py)\n",
     "theano-name-not-in-theano-pymc-11"),
    ("ModuleNotFoundError: No module named 'theano.scan_module'\n", "theano-module-not-in-theano-pymc-11"),
])
def test_theano_10_api_that_theano_pymc_11_moved_is_named(text: str, message: str) -> None:
    ids = set(found_in(text))
    assert message in ids, ids
    assert "theano-name-added-after-release" not in ids, ids


@pytest.mark.parametrize("text", [
    # what Theano-PyMC 1.1 still has, and a name an older Theano lacked as well (then the
    # error cannot say which of the two the code met: it stays theano-name-added-after-release's)
    "AttributeError: module 'theano' has no attribute 'function'\n",
    "ModuleNotFoundError: No module named 'theano.graph'\n",
    "AttributeError: module 'theano' has no attribute 'scan_checkpoints'\n",
    # Python 2 never ran Theano-PyMC
    "    from theano.gof import Op\nImportError: No module named gof\n",
])
def test_what_theano_pymc_11_has_or_cannot_be_told_apart_is_not_claimed(text: str) -> None:
    ids = set(found_in(text))
    assert not ids & {"theano-name-not-in-theano-pymc-11", "theano-module-not-in-theano-pymc-11"}, ids


@pytest.mark.parametrize("text, message", [
    ("ImportError: No module named theano\n", "python-no-module-theano"),
    ("ModuleNotFoundError: No module named 'theano'\n", "python-no-module-theano"),
    # what CPython 3.8 prints when a theano.py of the user's is imported instead (run here)
    ("ModuleNotFoundError: No module named 'theano.tensor'; 'theano' is not a package\n",
     "user-theano-py-shadows-package"),
    # retyped by a reporter (attention-lvcsr#14): lower case, no tuple punctuation
    ("wrong major API version for gpuarray: 1, make sure Theano and libgpuarray/pygpu are in sync\n",
     "theano-gpuarray-wrong-major-api-version"),
])
def test_import_failures_name_their_own_message(text: str, message: str) -> None:
    ids = set(found_in(text))
    assert message in ids, ids
    assert not ({"python-no-module-theano", "user-theano-py-shadows-package"} - {message}) & ids, ids


def test_a_recorded_theano_1_0_5_rules_out_too_old_for_a_missing_name(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("ImportError: cannot import name 'relu' from 'theano.tensor.nnet' (/x/nnet/__init__.py)\n",
                   encoding="utf-8")
    facts = tmp_path / "facts.toml"
    facts.write_text('schema = 1\nlegacydoc_version = "0.1.0"\ncollected_at = "2020-01-01T00:00:00+00:00"\n'
                     'redacted = true\n[packages.theano]\nname = "Theano"\nversion = "{}"\n', encoding="utf-8")
    for version, fires in (("1.0.5", False), ("0.8.2", True)):
        facts.write_text(facts.read_text().rsplit("version = ", 1)[0] + 'version = "%s"\n' % version)
        ids = diagnoses(facts, log)
        assert ("LD121" in ids) == fires, (version, list(ids))


def test_a_real_log_from_a_file_names_causes_and_what_settles_them() -> None:
    log = TICKETS / "gh-libgpuarray-213" / "log.txt"
    proc = cli("explain", str(log))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "theano-gpuarray-wrong-major-api-version" in out
    assert "likely causes, most likely first" in out and "fix:" in out
    # No facts: nothing is claimed about the machine; the check that settles it is named.
    assert "cannot tell these causes apart" in out and "legacydoc check --log" in out
    assert "LD116 pygpu-version-mismatch: unknown" in out


def test_stdin_dash_and_pasted_text_and_formats() -> None:
    text = b"ERROR (theano.gpuarray): Could not initialize pygpu, support disabled\n"
    for args, stdin in ((("explain",), text), (("explain", "-"), text),
                        (("explain", "--text", text.decode()), b"")):
        proc = cli(*args, "--format", "json", stdin=stdin)
        assert proc.returncode == 0, (args, proc.stderr)
        assert ids_of(proc.stdout) == ["theano-gpuarray-could-not-init-pygpu"]
    markdown = cli("explain", "--format", "markdown", stdin=text)
    assert markdown.stdout.decode().startswith("# legacydoc explain")


def test_exit_codes_nothing_known_and_unreadable(tmp_path: Path) -> None:
    plain = tmp_path / "ok.log"
    plain.write_text("epoch 1 loss 0.3\nepoch 2 loss 0.2\n")
    nothing = cli("explain", str(plain))
    assert nothing.returncode == 1 and b"None of the" in nothing.stdout
    for bad in (tmp_path / "missing.log", tmp_path):
        proc = cli("explain", str(bad))
        assert proc.returncode == 2
        assert proc.stderr.decode().count("\n") == 1 and str(bad) in proc.stderr.decode()
    both = cli("explain", str(plain), "--text", "x")
    assert both.returncode == 2
    bad_format = cli("explain", "--format", "yaml", stdin=b"x")
    assert bad_format.returncode == 2 and b"--format" in bad_format.stderr


@pytest.mark.parametrize("case", ["gh-libgpuarray-213", "gh-theano-5776", "gh-dl-docker-8", "gh-theano-3551"])
def test_console_mangling_still_matches(case: str) -> None:
    """CRLF, ANSI colour, lines wrapped at 80 columns, GBK bytes and a cut-off tail: the
    messages found in the clean log are still found."""
    raw = (TICKETS / case / "log.txt").read_bytes()
    text = raw.decode("utf-8", "replace")
    expected = set(logscan.log_table(raw, source="x")["ids"])
    assert expected
    wrapped = "\n".join(line[i:i + 80] for line in text.split("\n") for i in range(0, max(len(line), 1), 80))
    variants = {
        "crlf": text.replace("\n", "\r\n").encode("utf-8"),
        "ansi": "".join("\x1b[31m%s\x1b[0m\n" % line for line in text.split("\n")).encode("utf-8"),
        "wrapped": wrapped.encode("utf-8"),
        "gbk": ("错误信息如下：\n" + text).encode("gbk", "replace"),
        "bom": b"\xef\xbb\xbf" + raw,
    }
    for name, data in variants.items():
        found = set(logscan.log_table(data, source=name)["ids"])
        assert expected <= found, (name, expected - found)
    # A paste that stops mid-log keeps what came before the cut.
    first = logscan.log_table(raw, source="x")["matches"][0]
    cut = "\n".join(text.split("\n")[: first["line"]]).encode("utf-8")
    assert first["id"] in logscan.log_table(cut, source="cut")["ids"]


def test_a_gbk_console_log_is_decoded_and_explained(tmp_path: Path) -> None:
    log = tmp_path / "cmd.log"
    log.write_bytes("C:\\Users\\张三>python train.py\n".encode("gbk")
                    + b"ERROR (theano.sandbox.cuda): Failed to compile cuda_ndarray.cu: 'utf-8' codec can't decode"
                      b" byte 0xbb in position 0: invalid start byte\n")
    proc = cli("explain", str(log), "--format", "json")
    data = json.loads(proc.stdout)
    assert data["encoding"] == "gbk"
    assert "compile-output-utf8-decode" in ids_of(proc.stdout)
    decode = next(m for m in data["messages"] if m["id"] == "compile-output-utf8-decode")
    assert decode["causes"][0]["rules"][0]["id"] == "LD413"


def test_a_long_log_keeps_its_start_and_its_end(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    with log.open("wb") as handle:
        handle.write(b"WARNING (theano.tensor.blas): Using NumPy C-API based implementation for BLAS functions.\n")
        for n in range(200_000):
            handle.write(b"epoch %d: loss 0.123456789 accuracy 0.98765\n" % n)
        handle.write(b"RuntimeError: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n")
    assert log.stat().st_size > logscan.MAX_LOG_BYTES
    data = json.loads(cli("explain", str(log), "--format", "json").stdout)
    assert data["truncated"] is True
    found = [m["id"] for m in data["messages"]]
    assert "theano-blas-numpy-c-api-fallback" in found and "pygpu-cumemalloc-out-of-memory" in found


def test_output_is_redacted(tmp_path: Path) -> None:
    home = tmp_path / "home" / "alice"
    home.mkdir(parents=True)
    text = "File \"%s/project/train.py\", line 3\nERROR (theano.gpuarray): Could not initialize pygpu, support disabled\n"
    log = home / "run.log"
    log.write_text(text % home)
    proc = cli("explain", str(log), env={"HOME": str(home), "USER": "alice"})
    assert proc.returncode == 0
    assert str(home) not in proc.stdout.decode() and "<home>" in proc.stdout.decode()


def test_with_facts_each_cause_is_confirmed_ruled_out_or_unknown() -> None:
    rules = load_rules()
    case = TICKETS / "gh-3d-r2n2-45"
    table = logscan.log_table((case / "log.txt").read_bytes(), source="log.txt")
    from legacydoc import facts

    statuses = {r.id: r.status for f in explain(table, rules, facts.load(case / "facts.toml")).found
                for c in f.causes for r in c.rules}
    assert statuses["LD116"] == CONFIRMED  # Theano 0.8.0 with pygpu 0.7.6
    theano_105 = {"packages": {"found": ["theano", "pygpu"], "theano": {"name": "Theano", "version": "1.0.5"},
                               "pygpu": {"name": "pygpu", "version": "0.7.6"}}}
    statuses = {r.id: r.status for f in explain(table, rules, theano_105).found for c in f.causes for r in c.rules}
    assert statuses["LD116"] == RULED_OUT
    assert statuses["LD200"] == UNKNOWN  # nvidia-smi never ran
    proc = cli("explain", str(case / "log.txt"), "--facts", str(case / "facts.toml"))
    assert proc.returncode == 0 and b"Confirmed by the facts: LD116" in proc.stdout


def test_where_theano_runs_unknown_leaves_ld602_unknown_not_ruled_out() -> None:
    """derived.theano.runs_on is "unknown" without the config: LD602 (Theano would run on
    the CPU) must then be undecided, not ruled out as if the record said the GPU."""
    from legacydoc import facts
    from legacydoc.derive import enrich
    from legacydoc.explain import rule_status

    ld602 = next(r for r in load_rules() if r.id == "LD602")
    theano = {"found": ["theano"], "theano": {"name": "Theano", "version": "1.0.5"}}
    unknown = enrich({"schema": 1, "system": {"os": "linux"}, "packages": theano})
    assert unknown["derived"]["theano"]["runs_on"] == "unknown"
    assert rule_status(ld602, unknown) == UNKNOWN
    on_cpu = enrich({"schema": 1, "system": {"os": "linux"}, "packages": theano,
                     "theano_config": {"files": [], "flags": {"THEANO_FLAGS": "device=cpu"}}})
    assert rule_status(ld602, on_cpu) == CONFIRMED
    healthy = enrich(facts.load(REPO / "fixtures" / "healthy-linux-gtx1080ti-cuda102" / "facts.toml"))
    assert healthy["derived"]["theano"]["runs_on"] == "gpu"
    assert rule_status(ld602, healthy) == RULED_OUT


# --- check --log and report --log --------------------------------------------------------------


def _top(*args: str) -> list[str]:
    proc = cli("check", *args, "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return [d["id"] for d in json.loads(proc.stdout)["diagnoses"] if d["severity"] in ("error", "warning")][:3]


def test_check_log_changes_the_diagnosis_on_ten_real_cases() -> None:
    """Through the CLI: cases where the log, not the facts, decides the root cause."""
    rules = load_rules()
    decided = [b.case for a, b in zip(corpus.run(False, rules), corpus.run(True, rules)) if b.found and not a.found]
    assert len(decided) >= 10
    for case in decided[:10]:
        facts_file = str(case.folder / "facts.toml")
        without, with_log = _top("--facts", facts_file), _top("--facts", facts_file, "--log", str(case.log))
        assert without != with_log, case.id
        assert set(case.root_cause) & set(with_log), (case.id, with_log)
        assert not set(case.root_cause) & set(without), (case.id, without)


def test_check_refuses_an_unreadable_log_in_one_line(tmp_path: Path) -> None:
    proc = cli("check", "--facts", str(TICKETS / "gh-sdae-4" / "facts.toml"), "--log", str(tmp_path / "nope.log"))
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1 and "nope.log" in proc.stderr.decode()


def test_report_keeps_the_log_redacted_and_a_replay_keeps_it(tmp_path: Path) -> None:
    case = TICKETS / "gh-sdae-4"
    home = tmp_path / "home" / "bob"
    home.mkdir(parents=True)
    log = tmp_path / "run.log"
    log.write_text("cd %s/work\n" % home + (case / "log.txt").read_text(encoding="utf-8"))
    out = tmp_path / "r.zip"
    env = {"HOME": str(home), "USER": "bob"}
    proc = cli("report", "--facts", str(case / "facts.toml"), "--log", str(log), "-o", str(out), env=env)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(out) as z:
        kept = z.read("log.txt").decode()
        facts_text = z.read("facts.toml").decode()
    assert str(home) not in kept and "<home>" in kept
    assert "theano-old-gpu-backend-removed" in facts_text
    # The zip replays to the same diagnosis, and a report rebuilt from it keeps the log.
    assert _top("--facts", str(out)) == _top("--facts", str(case / "facts.toml"), "--log", str(log))
    again = tmp_path / "again.zip"
    assert cli("report", "--facts", str(out), "-o", str(again), env=env).returncode == 0
    with zipfile.ZipFile(again) as z:
        assert z.read("log.txt").decode() == kept


def test_a_config_rule_fired_by_the_log_uses_the_record_or_says_what_it_lacks(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("ValueError: You are tring to use the old GPU back-end. It was removed from Theano.\n")
    # The record holds THEANO_FLAGS device=gpu1, Theano's version unknown: the log fires
    # LD516 with the setting that causes it.
    ld516 = diagnoses(TICKETS / "gh-sdae-4" / "facts.toml", log)["LD516"]
    assert "device = gpu1" in ld516["title"] and ld516["fix"] == ["device=cuda1"]
    # No config in the record at all: it still fires, and says what it could not see.
    empty = tmp_path / "empty.toml"
    empty.write_text("schema = 1\n")
    ld516 = diagnoses(empty, log)["LD516"]
    assert "unknown" not in ld516["why"] + " ".join(ld516["fix"])
    assert "were not in the record" in ld516["why"]


def test_a_config_file_named_without_its_state_is_not_called_unreadable() -> None:
    """A ticket names ~/.theanorc (exists) without saying it could not be read."""
    data = json.loads(cli("check", "--facts", str(TICKETS / "gh-dl-docker-8" / "facts.toml"), "--format", "json").stdout)
    assert "LD524" not in [d["id"] for d in data["diagnoses"]]


# --- found in review: each of these failed before its fix ---------------------------------------


def test_captured_groups_of_a_log_are_redacted_too(tmp_path: Path) -> None:
    home = tmp_path / "home" / "carol"
    home.mkdir(parents=True)
    log = tmp_path / "dyld.log"
    log.write_text("dyld: Library not loaded: %s/anaconda/lib/libmkl_rt.dylib\n" % home)
    out = tmp_path / "r.zip"
    env = {"HOME": str(home), "USER": "carol"}
    assert cli("report", "--facts", str(TICKETS / "gh-sdae-4" / "facts.toml"), "--log", str(log), "-o", str(out),
               env=env).returncode == 0
    with zipfile.ZipFile(out) as z:
        for name in z.namelist():
            assert str(home) not in z.read(name).decode("utf-8", "replace"), name


def test_odd_names_closed_stdin_and_narrow_consoles_give_no_traceback(tmp_path: Path) -> None:
    odd = tmp_path / "bad\udcffname.log"
    odd.write_bytes(b"ValueError: You are tring to use the old GPU back-end. It was removed from Theano.\n")
    proc = cli("report", "--facts", str(TICKETS / "gh-sdae-4" / "facts.toml"), "--log", os.fsdecode(bytes(odd)),
               "-o", str(tmp_path / "o.zip"))
    assert proc.returncode == 0, proc.stderr
    cjk = tmp_path / "cjk.log"
    cjk.write_text("错误：ERROR (theano.gpuarray): Could not initialize pygpu, support disabled\n", encoding="utf-8")
    for fmt in ("text", "markdown", "json"):
        proc = cli("explain", str(cjk), "--format", fmt, env={"PYTHONIOENCODING": "latin-1"})
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, (fmt, proc.stderr)
    closed = subprocess.run([sys.executable, "-m", "legacydoc", "explain"], stdin=subprocess.DEVNULL,
                            capture_output=True, cwd=str(REPO), env={**os.environ, "PYTHONPATH": str(REPO)})
    assert closed.returncode == 1  # empty input: nothing known
    shut = subprocess.run([sys.executable, "-c", "import os, runpy, sys; os.close(0); sys.stdin = None; "
                           "sys.argv = ['legacydoc', 'explain']; runpy.run_module('legacydoc', run_name='__main__')"],
                          capture_output=True, cwd=str(REPO), env={**os.environ, "PYTHONPATH": str(REPO)})
    assert shut.returncode == 2 and b"standard input is closed" in shut.stderr, shut.stderr


def test_line_numbers_stay_right_in_a_big_log(tmp_path: Path) -> None:
    log = tmp_path / "mid.log"
    with log.open("w") as handle:
        for n in range(1, 60001):
            handle.write("ERROR (theano.gpuarray): Could not initialize pygpu, support disabled\n" if n == 40000
                         else "epoch %d: loss 0.123456789 accuracy 0.987654321\n" % n)
    data = json.loads(cli("explain", str(log), "--format", "json").stdout)
    assert [(m["id"], m["line"]) for m in data["messages"]] == [("theano-gpuarray-could-not-init-pygpu", 40000)]


def test_a_big_log_near_the_limit_and_in_utf8_or_utf16_keeps_its_end(tmp_path: Path) -> None:
    tail = "RuntimeError: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
    exact = tmp_path / "exact.log"
    exact.write_bytes(b"x" * (logscan.MAX_LOG_BYTES - len(tail) - 1) + b"\n" + tail.encode())
    accents = tmp_path / "accents.log"
    accents.write_bytes(("é\n" * 3_000_000 + tail).encode("utf-8"))
    wide = tmp_path / "powershell.log"
    wide.write_bytes(("line\n" * 800_000 + tail).encode("utf-16"))
    for log, encoding in ((exact, "utf-8"), (accents, "utf-8"), (wide, "utf-16")):
        data = json.loads(cli("explain", str(log), "--format", "json").stdout)
        assert data["encoding"] == encoding, (log.name, data["encoding"])
        assert "pygpu-cumemalloc-out-of-memory" in [m["id"] for m in data["messages"]], log.name


def test_a_report_with_a_huge_log_still_replays(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    log.write_bytes(("错误 epoch loss\n" * 600_000).encode("gbk")
                    + b"ValueError: You are tring to use the old GPU back-end. It was removed from Theano.\n")
    out = tmp_path / "big.zip"
    assert cli("report", "--facts", str(TICKETS / "gh-sdae-4" / "facts.toml"), "--log", str(log),
               "-o", str(out)).returncode == 0
    assert cli("check", "--facts", str(out)).returncode == 1  # replays: LD516 is an error


def test_explain_with_facts_decides_per_item_rules_and_suggests_a_runnable_command(tmp_path: Path) -> None:
    # Theano 1.0.3 with device=gpu: the per-item config rule is confirmed by the facts ...
    case = TICKETS / "gh-fastai-courses-229"
    proc = cli("explain", str(case / "log.txt"), "--facts", str(case / "facts.toml"))
    assert b"Confirmed by the facts: LD516" in proc.stdout, proc.stdout
    # ... and with the release unknown (gh-sdae-4), it stays unknown rather than confirmed.
    case = TICKETS / "gh-sdae-4"
    proc = cli("explain", str(case / "log.txt"), "--facts", str(case / "facts.toml"))
    assert b"LD516 config-old-gpu-backend: unknown" in proc.stdout
    spaced = tmp_path / "my log.txt"
    spaced.write_bytes((case / "log.txt").read_bytes())
    assert b'legacydoc check --log "%s"' % str(spaced).encode() in cli("explain", str(spaced)).stdout
    pasted = cli("explain", "--text", "ERROR (theano.gpuarray): Could not initialize pygpu, support disabled")
    assert b"check --log FILE (save the error output to FILE first)" in pasted.stdout


def test_explain_with_facts_hides_this_machines_home_in_the_facts_path(tmp_path: Path) -> None:
    home = tmp_path / "home" / "dave"
    home.mkdir(parents=True)
    facts_copy = home / "ticket.toml"
    facts_copy.write_bytes((TICKETS / "gh-sdae-4" / "facts.toml").read_bytes())
    log = home / "run.log"
    log.write_bytes((TICKETS / "gh-sdae-4" / "log.txt").read_bytes())
    for fmt in ("text", "json", "markdown"):
        proc = cli("explain", str(log), "--facts", str(facts_copy), "--format", fmt,
                   env={"HOME": str(home), "USER": "dave"})
        assert proc.returncode == 0 and str(home).encode() not in proc.stdout, fmt


@pytest.mark.parametrize("text, message", [
    # Mask_RCNN#1888 and #290 (Keras on Theano given tf.int32); the KeyError Theano raises
    # first, under its dtype_specs frame, as a paste cut before the TypeError shows it
    ("TypeError: Unsupported dtype for TensorType: <dtype: 'int32'>\n", "keras-tensorflow-dtype-given-to-theano"),
    ('  File "/x/lib/python3.6/site-packages/theano/tensor/type.py", line 269, in dtype_specs\n'
     "    }[self.dtype]\nKeyError: \"<dtype: 'int32'>\"\n", "keras-tensorflow-dtype-given-to-theano"),
    # Mask_RCNN#305 (TensorFlow 1.x given a Theano variable), both of its lines
    ("TypeError: Failed to convert object of type <class 'theano.tensor.var.TensorVariable'> to Tensor. "
     "Contents: Elemwise{add,no_inplace}.0. Consider casting elements to a supported type.\n",
     "tensorflow-given-a-theano-variable"),
    ("TypeError: Expected binary or unicode string, got Elemwise{add,no_inplace}.0\n",
     "tensorflow-given-a-theano-variable"),
    ("TypeError: Expected binary or unicode string, got dot.0\n", "tensorflow-given-a-theano-variable"),
    # the other way: Theano given a TensorFlow tensor (image-analogies#35), TensorFlow 2's eager one too
    ("theano.tensor.var.AsTensorError: ('Cannot convert tf.Tensor([1. 2.], shape=(2,), dtype=float32) to "
     "TensorType', <class 'tensorflow.python.framework.ops.EagerTensor'>)\n", "theano-method-on-tensorflow-tensor"),
    # the other way: Theano given a TensorFlow tensor (image-analogies#35)
    ("theano.tensor.var.AsTensorError: ('Cannot convert Tensor(\"ExpandDims:0\", shape=(1, 256, 32, 22), "
     "dtype=float32) to TensorType', <class 'tensorflow.python.framework.ops.Tensor'>)\n",
     "theano-method-on-tensorflow-tensor"),
    # TensorFlow 1.x's own tensor, printed by str (twitter-emotion-recognition#5) and by repr
    ("ValueError: Tensor conversion requested dtype int32 for Tensor with dtype float32: "
     "'Tensor(\"embedding_1/random_uniform:0\", shape=(412, 25), dtype=float32)'\n", "tensorflow-tensor-in-error"),
    ("ValueError: Tensor conversion requested dtype int64 for Tensor with dtype float32: "
     "<tf.Tensor 'dense_1/Relu:0' shape=(?, 32) dtype=float32>\n", "tensorflow-tensor-in-error"),
    # TensorFlow refusing a value's type (Sentiment-Analysis#4 quotes only its start)
    ("TypeError: Expected int32, got...\n", "tensorflow-value-of-wrong-dtype"),
    ("TypeError: Expected int32, got 0.5 of type 'float' instead.\n", "tensorflow-value-of-wrong-dtype"),
    # Keras 1's predict names no prefix (surround_vehicles_awareness#14)
    ("Exception: Error when checking : expected input_2 to have shape (None, 224, 224, 3) but got array with "
     "shape (1L, 3L, 224L, 224L)\n", "keras-input-shape-mismatch-dim-ordering"),
])
def test_keras_and_tensorflow_objects_crossing_back_ends_are_named(text: str, message: str) -> None:
    assert message in found_in(text)


@pytest.mark.parametrize("text", [
    "TypeError: Unsupported dtype for TensorType: object\n",  # numpy's object arrays: not TensorFlow's
    "KeyError: \"<dtype: 'int32'>\"\n",  # no Theano frame above it
    "TypeError: Expected binary or unicode string, got input_2\n",  # a name, which anything can have
    "TypeError: Failed to convert object of type <class 'list'> to Tensor. Contents: [None, 3].\n",
    # Theano's own refusal of a TensorFlow tensor may be the other way round (LD167)
    "theano.tensor.var.AsTensorError: ('Cannot convert Tensor(\"ExpandDims:0\", shape=(1, 3), dtype=float32) to "
    "TensorType', <class 'tensorflow.python.framework.ops.Tensor'>)\n",
    "ValueError: KerasTensor(\"input_1:0\") is not a Theano variable\n",  # not TensorFlow 1.x's graph tensor
    "TypeError: Wrong types for Composite. Expected (float32,), got (int32,).\n",  # Theano's own
    "ValueError: Error when checking target: expected dense_1 to have shape (None, 10) but got array with "
    "shape (32, 1)\n",  # the labels, not the image layout
])
def test_lookalikes_of_crossed_back_ends_are_not_named(text: str) -> None:
    assert not set(found_in(text)) & {"keras-tensorflow-dtype-given-to-theano", "tensorflow-given-a-theano-variable",
                                      "keras-input-shape-mismatch-dim-ordering", "tensorflow-tensor-in-error",
                                      "tensorflow-value-of-wrong-dtype"}


def test_tensorflow_given_a_theano_variable_blames_the_back_end_the_banner_names(tmp_path: Path) -> None:
    """Keras on Theano under TensorFlow code is LD167; Keras on TensorFlow under Theano code is
    not; with neither banner, both causes are shown as undecided."""
    error = ("TypeError: Failed to convert object of type <class 'theano.tensor.var.TensorVariable'> to Tensor. "
             "Contents: Elemwise{add,no_inplace}.0. Consider casting elements to a supported type.\n")
    facts = tmp_path / "facts.toml"
    facts.write_text('schema = 1\nlegacydoc_version = "0.1.0"\ncollected_at = "2018-01-01T00:00:00+00:00"\n'
                     'redacted = true\n[system]\nos = "linux"\n', encoding="utf-8")
    log = tmp_path / "run.log"
    for banner, fires in (("Using Theano backend.\n", True), ("Using TensorFlow backend.\n", False)):
        log.write_text(banner + "Traceback (most recent call last):\n  File \"model.py\", line 9, in build\n"
                       + error, encoding="utf-8")
        out = cli("check", "--facts", str(facts), "--log", str(log), env={"LEGACYDOC_LANG": "en"}).stdout.decode()
        assert ("[LD167 tensorflow-code-on-keras-theano]" in out) == fires, (banner, out)
    log.write_text(error, encoding="utf-8")
    out = cli("check", "--facts", str(facts), "--log", str(log), env={"LEGACYDOC_LANG": "en"}).stdout.decode()
    assert "[LD167 tensorflow-code-on-keras-theano]" in out and "[LD122 keras-backend-not-theano]" in out, out
    assert "the record does not say which" in out, out


@pytest.mark.parametrize("error", [
    "ValueError: Tensor conversion requested dtype int32 for Tensor with dtype float32: "
    "'Tensor(\"embedding_1/random_uniform:0\", shape=(412, 25), dtype=float32)'\n",
    "TypeError: Expected int32, got list containing Tensors of type '_Message' instead.\n",
])
def test_tensorflows_own_error_blames_the_back_end_the_banner_names(tmp_path: Path, error: str) -> None:
    """TensorFlow's own error under 'Using TensorFlow backend.' is Keras on TensorFlow
    (LD122); under 'Using Theano backend.' it is the project's TensorFlow code on
    Keras-Theano (LD167), and LD122 would contradict the log's first line."""
    facts = tmp_path / "facts.toml"
    facts.write_text('schema = 1\nlegacydoc_version = "0.1.0"\ncollected_at = "2018-01-01T00:00:00+00:00"\n'
                     'redacted = true\n[system]\nos = "linux"\n[packages.keras]\nname = "Keras"\n', encoding="utf-8")
    log = tmp_path / "run.log"
    # with neither banner, both are shown as the log's two possible causes
    for banner, ld122, ld167 in (("Using Theano backend.\n", False, True), ("Using TensorFlow backend.\n", True, False),
                                 ("", True, True)):
        log.write_text(banner + "Traceback (most recent call last):\n  File \"model.py\", line 9, in build\n"
                       + error, encoding="utf-8")
        out = cli("check", "--facts", str(facts), "--log", str(log), env={"LEGACYDOC_LANG": "en"}).stdout.decode()
        assert ("[LD122 keras-backend-not-theano]" in out) == ld122, (banner, out)
        assert ("[LD167 tensorflow-code-on-keras-theano]" in out) == ld167, (banner, out)


def test_a_tensorflow_tensor_printed_outside_an_error_is_not_one() -> None:
    """print(model.output) in a healthy run prints the same form as the error does."""
    assert "tensorflow-tensor-in-error" not in found_in('Tensor("dense_1/Softmax:0", shape=(?, 10), dtype=float32)\n')
    assert "tensorflow-tensor-in-error" in found_in(
        'ValueError: Tensor("x:0", shape=(3,), dtype=float32) must be from the same graph as Tensor("y:0")\n')


@pytest.mark.parametrize("text, found", [
    # Theano 0.9.0's GPU kernel bytes above 127 in a char array, as g++ 6+ reports them
    # (TNet#11; libgpuarray#403 with typographic quotes)
    ("mod.cpp:19:0: error: narrowing conversion of '138' from 'int' to 'char' inside { } [-Wnarrowing]\n", True),
    ("mod.cpp:17:0: error: narrowing conversion of \u2018168\u2019 from \u2018int\u2019 to \u2018char\u2019 "
     "inside { } [-Wnarrowing]\n", True),
    # g++ 9 and later drop " inside { }"
    ("mod.cpp:19:38: error: narrowing conversion of '138' from 'int' to 'char' [-Wnarrowing]\n", True),
    # a byte that fits a char is some other code's narrowing, not a kernel binary's
    ("mod.cpp:19:0: error: narrowing conversion of '100' from 'int' to 'char' inside { } [-Wnarrowing]\n", False),
    ("x.cpp:3:1: error: narrowing conversion of '300' from 'int' to 'char' inside { } [-Wnarrowing]\n", False),
])
def test_theano_09_kernel_binaries_rejected_by_new_gxx_are_named(text: str, found: bool) -> None:
    assert ("theano-gpuarray-kernel-binary-narrowing" in found_in(text)) == found


@pytest.mark.parametrize("text, found", [
    # names theano.sandbox.cuda binds only when CUDA initialised (voxnet#5; a macOS notebook)
    ("NameError: global name 'HostFromGpu' is not defined\n", True),
    ("ImportError: cannot import name as_cuda_ndarray_variable\n", True),
    ("ImportError: cannot import name 'HostFromGpu' from 'theano.sandbox.cuda' (/x/theano/sandbox/cuda/__init__.py)\n",
     True),
    ("AttributeError: module 'theano.sandbox.cuda' has no attribute 'CURAND_RandomStreams'\n", True),
    # the new back-end's modules have their own ops of these names: not the old back-end's
    ("ImportError: cannot import name 'GpuElemwise' from 'theano.gpuarray.elemwise' (/x/elemwise.py)\n", False),
    # Python 2's bare form of a name theano.gpuarray has too counts only after the import line
    ("ImportError: cannot import name HostFromGpu\n", False),
    ("    from theano.sandbox.cuda import HostFromGpu, GpuFromHost\nImportError: cannot import name HostFromGpu\n",
     True),
    ("NameError: name 'HostFromGpu2' is not defined\n", False),
])
def test_old_backend_names_missing_without_cuda_are_named(text: str, found: bool) -> None:
    assert ("theano-old-backend-name-missing-without-cuda" in found_in(text)) == found


@pytest.mark.parametrize("text, message", [
    # CorrMM's im2col buffer: Theano 0.8's two numbers, 1.0's three, the GPU ops (neural-enhance#14,
    # acapellabot#6)
    ("RuntimeError: CorrMM failed to allocate working memory of 1600 x 1048576\n", "theano-corrmm-working-memory"),
    ("RuntimeError: CorrMM failed to allocate working memory of 1 x 1024 x 2603755\n", "theano-corrmm-working-memory"),
    ("RuntimeError: GpuCorrMM failed to allocate working memory of 576 x 802816\n", "theano-corrmm-working-memory"),
    # a segmentation fault quoted inside a report's sentence, and without the space (Lasagne#400, #604, #895)
    ("I get 'Segmentation fault (core dumped)' while performing net2.fit(X,y)\n", "process-segmentation-fault"),
    ("Running it results in a `Segmentation fault (core dumped)` for the first batch.\n", "process-segmentation-fault"),
    ("Segmentation fault(core dumped)\n", "process-segmentation-fault"),
])
def test_memory_and_crash_forms_from_lasagne_threads_are_named(text: str, message: str) -> None:
    assert message in found_in(text)


@pytest.mark.parametrize("text", [
    "the Segmentation fault handler is installed\n",
    'If you see a "Segmentation fault" here, rebuild the module.\n',
    '    raise RuntimeError("Segmentation fault")\n',
    "A Segmentation fault's cause is in the backtrace.\n",
    # the compiler crashed, not the program (celerite2#20's clang inside Theano's message)
    "Compilation failed (return status=254): clang-10: error: unable to execute command: Segmentation fault: 11'\n",
])
def test_a_segmentation_fault_named_in_passing_is_not_a_crash(text: str) -> None:
    assert "process-segmentation-fault" not in found_in(text)



def test_a_gpu_context_registered_twice_is_named() -> None:
    """theano_alexnet#31: device=cuda in the config and theano.gpuarray.use() in the code."""
    text = ("ValueError: ('The following error happened while compiling the node', DnnVersion(), '\\n', "
            "'context name None is already defined')\n")
    assert "theano-gpuarray-context-already-defined" in found_in(text)
    assert "theano-gpuarray-context-already-defined" not in found_in("the name is already defined elsewhere\n")


def test_a_bare_mkl_install_name_on_macos_is_told_apart_from_sip() -> None:
    """Theano#1871: Anaconda's MKL dylibs carry bare install names (OS X 10.9, no SIP)."""
    log = ("ImportError: dlopen(/Users/u/.theano/compiledir/tmp/x.so, 2): Library not loaded: "
           "libmkl_intel_lp64.dylib\n  Referenced from: /Users/u/.theano/compiledir/tmp/x.so\n"
           "  Reason: image not found\n")
    out = cli("explain", "-", stdin=log.encode(), env={"LEGACYDOC_LANG": "en"}).stdout.decode()
    assert "bare install names" in out and "DYLD_FALLBACK_LIBRARY_PATH" in out, out


@pytest.mark.parametrize("text, message, found", [
    # keras.json that is not JSON, read unguarded by Keras 1.0-2.0.2 (keras#4153); Python 3's wording
    ("    _config = json.load(open(_config_path))\n  File \"/usr/lib/python3.5/json/__init__.py\", line 268, in load\n"
     "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 2 column 5 (char 6)\n",
     "keras-config-json-invalid", True),
    # another file's JSON error, and Keras's line with no error after it, are not keras.json's
    ("    data = json.load(open(path))\nValueError: Expecting object: line 5 column 25 (char 108)\n",
     "keras-config-json-invalid", False),
    ("    _config = json.load(open(_config_path))\nKeyboardInterrupt\n", "keras-config-json-invalid", False),
    # Python 3 on Windows: a byte-order mark, and curly quotes the locale's codec cannot decode
    ("    _config = json.load(open(_config_path))\njson.decoder.JSONDecodeError: Unexpected UTF-8 BOM "
     "(decode using utf-8-sig): line 1 column 1 (char 0)\n", "keras-config-json-invalid", True),
    ("    _config = json.load(open(_config_path))\n  File \"C:\\Anaconda3\\lib\\encodings\\cp1252.py\", line 23, "
     "in decode\nUnicodeDecodeError: 'charmap' codec can't decode byte 0x9d in position 18: character maps to "
     "<undefined>\n", "keras-config-json-invalid", True),
    # the backend asserts of Keras 1.x and of 2.0.5-2.1.6 (cntk added)
    ("    assert _backend in {'theano', 'tensorflow', 'cntk'}\nAssertionError\n", "keras-backend-name-not-accepted", True),
    ("    assert _image_dim_ordering in {'tf', 'th'}\nAssertionError\n", "keras-backend-name-not-accepted", False),
    # Theano 0.9-1.0's wording of a learning phase the function was not given (keras#431 is 0.8's)
    ("theano.gof.fg.MissingInputError: Input 0 of the graph (indices start from 0), used to compute "
     "Elemwise{switch,no_inplace}(keras_learning_phase, Elemwise{mul}.0, x), was not provided and not given a value.",
     "keras-learning-phase-not-fed", True),
    ("MissingInputError: An input of the graph, used to compute Elemwise{add,no_inplace}(x, y), was not provided "
     "and not given a value.", "keras-learning-phase-not-fed", False),
    # TensorFlow-only code reading _shape on Keras-on-Theano's output (keras-resnet#1)
    ("AttributeError: 'TensorVariable' object has no attribute '_shape'\n", "theano-variable-in-tensorflow-backend", True),
    ("AttributeError: 'TensorVariable' object has no attribute '_keras_shape'\n", "theano-variable-in-tensorflow-backend", False),
    # a module built for a Python configured --with-fpectl (keras#7841)
    ("ImportError: /usr/lib/python2.7/dist-packages/numpy/core/multiarray.so: undefined symbol: PyFPE_jbuf\n",
     "python-module-built-with-fpectl", True),
    ("ImportError: dlopen(/Users/u/.local/lib/python2.7/site-packages/scipy/_lib/_ccallback_c.so, 2): "
     "Symbol not found: _PyFPE_jbuf\n", "python-module-built-with-fpectl", True),
    # keras.applications given the other layout's image shape (FCN_via_keras#4), a list too; the end that holds
    # the 3 says which layout the code meant; a one-channel image is neither
    ("ValueError: The input must have 3 channels; got `input_shape=[3, 224, 224]`\n",
     "keras-applications-channels-first-shape", True),
    ("ValueError: The input must have 3 channels; got `input_shape=(224, 224, 3)`\n",
     "keras-applications-channels-last-shape", True),
    ("ValueError: The input must have 3 channels; got `input_shape=(224, 224, 3)`\n",
     "keras-applications-channels-first-shape", False),
    ("ValueError: The input must have 3 channels; got `input_shape=(1, 224, 224)`\n",
     "keras-applications-channels-first-shape", False),
    # the half-imported package's error alone at a line's start, as a notebook shows it (AzureNotebooks#620);
    # quoted inside a line it is not that, nor a bare gof, which Theano-PyMC 1.1 moved (LD166's message)
    ("module 'theano' has no attribute 'compile'\n", "theano-gof-attribute-error-after-failed-compile", True),
    ("print(x)  # module 'theano' has no attribute 'compile'\n", "theano-gof-attribute-error-after-failed-compile", False),
    ("module 'theano' has no attribute 'gof'\n", "theano-gof-attribute-error-after-failed-compile", False),
    # libgpuarray's test programs and the check library (libgpuarray#37, #147, #260); another -lcheck* is not it
    ("ld: library not found for -lcheck\n", "libgpuarray-tests-check-link-failed", True),
    ("check_array.c:(.text+0x21a): undefined reference to `_ck_assert_failed'\n", "libgpuarray-tests-check-link-failed", True),
    ("/usr/bin/ld: cannot find -lcheckpoint\n", "libgpuarray-tests-check-link-failed", False),
])
def test_keras_and_build_forms_from_the_fourth_round_of_field_passes(text: str, message: str, found: bool) -> None:
    assert (message in found_in(text)) == found


def test_a_library_calling_tensorflow_methods_under_keras_on_theano_is_ld167(tmp_path: Path) -> None:
    # foolbox#45: Keras 2.0.6 on Theano 0.9; foolbox's KerasModel called get_shape() on the output
    log = tmp_path / "log.txt"
    log.write_text("Using Theano backend.\n    shape = predictions.get_shape().as_list()\n"
                   "AttributeError: 'TensorVariable' object has no attribute 'get_shape'\n")
    facts = tmp_path / "facts.toml"
    facts.write_text("schema = 1\n", encoding="utf-8")
    found = diagnoses(facts, log)
    assert "LD167" in found and "LD122" not in found and not found["LD167"]["alternatives"], found
    # without the banner either backend could be the one: each is shown as the other's alternative
    log.write_text("AttributeError: 'TensorVariable' object has no attribute 'get_shape'\n")
    found = diagnoses(facts, log)
    assert found["LD122"]["alternatives"] == ["LD167"] and found["LD167"]["alternatives"] == ["LD122"], found


def test_a_channels_last_shape_refused_under_channels_first_claims_no_channels_last_layout(tmp_path: Path) -> None:
    # a trailing 3 that fails the check proves Keras runs channels_first: LD143 (channels_last) must not fire
    log = tmp_path / "log.txt"
    facts = tmp_path / "facts.toml"
    facts.write_text("schema = 1\n", encoding="utf-8")
    for shape, fires in (("(224, 224, 3)", False), ("(3, 224, 224)", True)):
        log.write_text("Using Theano backend.\nValueError: The input must have 3 channels; got `input_shape=%s`\n" % shape)
        ids = diagnoses(facts, log)
        assert ("LD143" in ids) == fires and "LD122" not in ids, (shape, list(ids))


def _case(tmp_path: Path, log_text: str, facts_text: str) -> tuple[Path, Path]:
    """A facts file and a log file with these texts: (facts, log)."""
    log, facts = tmp_path / "log.txt", tmp_path / "facts.toml"
    log.write_text(log_text)
    facts.write_text(facts_text, encoding="utf-8")
    return facts, log


def test_a_failed_first_compile_on_macos_is_not_code_for_theano_pymc(tmp_path: Path) -> None:
    # Theano 6654 (macOS 10.14): the compile at import failed, and the half-imported package
    # raised the gof AttributeError from inside theano/gof/vm.py, which Theano-PyMC 1.1 lacks
    tail = "AttributeError: module 'theano' has no attribute 'gof'\n"
    gof_frame = '  File "/Users/c/anaconda3/lib/python3.6/site-packages/theano/gof/vm.py", line 683, in <module>\n'
    facts, log = _case(tmp_path, "You can find the C code in this temporary file: /var/folders/T/theano_comp"
                       "ilation_error_60\n" + gof_frame + tail, 'schema = 1\n[system]\nos = "darwin"\n')
    found = diagnoses(facts, log)
    assert "LD415" in found and "LD166" not in found, sorted(found)
    # the same error from the user's own code, with no compile failure: Theano-PyMC 1.1's moved gof
    log.write_text('  File "model.py", line 3, in <module>\n' + tail)
    found = diagnoses(facts, log)
    assert "LD166" in found and "LD415" not in found, sorted(found)
    # on Linux the compile failure is not the Command Line Tools'
    log.write_text("You can find the C code in this temporary file: /tmp/theano_compilation_error_60\n"
                   + gof_frame + tail)
    facts.write_text('schema = 1\n[system]\nos = "linux"\n', encoding="utf-8")
    assert "LD415" not in diagnoses(facts, log)


def test_cython_failing_on_pygpus_own_files_is_the_cythons_version(tmp_path: Path) -> None:
    # libgpuarray 194: Ubuntu 14.04's Cython 0.20.1 on the git master of June 2016
    facts, log = _case(tmp_path, "Cythonizing pygpu/_elemwise.pyx\n\nError compiling Cython file:\n"
                       "pygpu/_elemwise.pyx:90:35: Syntax error in C variable declaration\n",
                       'schema = 1\n[packages.cython]\nname = "Cython"\nversion = "0.20.1"\n')
    found = diagnoses(facts, log)
    assert "LD176" in found and found["LD176"]["title"].startswith("Cython 0.20.1 cannot build pygpu"), found
    # Cython 3's true division (libgpuarray 583) names the same rule; another project's .pyx does not
    log.write_text("pygpu/collectives.pyx:394:55: Cannot assign type 'double' to 'size_t'\n")
    assert "LD176" in diagnoses(facts, log)
    log.write_text("mypkg/fast.pyx:12:4: Syntax error in C variable declaration\n")
    assert "LD176" not in diagnoses(facts, log)


def test_lasagne_01_refusing_its_gpu_layers_proves_the_device_flag(tmp_path: Path) -> None:
    # neural-storyteller 1: Lasagne 0.1's corrmm.py checks theano.config.device only
    facts, log = _case(tmp_path, "---> 16 from lasagne.layers.corrmm import Conv2DMMLayer as ConvLayer\n"
                       "ImportError: requires a GPU to work\n", 'schema = 1\n[system]\nos = "linux"\n')
    found = diagnoses(facts, log)
    assert "LD177" in found and "(device=cpu, unset or cuda)" in found["LD177"]["title"], sorted(found)
    # with device=cpu recorded, LD172 says it with the reason, and LD177 folds under it
    facts.write_text('schema = 1\n[system]\nos = "linux"\n[theano_config]\nfiles = []\n'
                     '[theano_config.flags]\nTHEANO_FLAGS = "device=cpu"\n', encoding="utf-8")
    found = diagnoses(facts, log)
    assert "LD172" in found and "LD177" not in found, sorted(found)
    # Lasagne master's words are LD175's, not this rule's
    log.write_text("ImportError: requires GPU support -- see http://lasagne.readthedocs.org/en/latest/user/"
                   "installation.html#gpu-support\n")
    facts.write_text('schema = 1\n[system]\nos = "linux"\n', encoding="utf-8")
    found = diagnoses(facts, log)
    assert "LD175" in found and "LD177" not in found, sorted(found)


@pytest.mark.parametrize("text, found", [
    # Keras 1.2.2's keras/layers/core.py imports Merge; 2.0.0 keeps it only in keras.legacy, 2.2.0 not at all
    ("    from keras.layers.core import Merge\nImportError: cannot import name Merge\n", True),
    ("ImportError: cannot import name 'Merge' from 'keras.layers' (/x/keras/layers/__init__.py)\n", True),
    # the import line over another failure, and the merge module Keras 2 still has, are not it
    ('    from keras.layers.core import Merge\n  File "/x/keras/__init__.py", line 3\n'
     "ImportError: No module named theano\n", False),
    ("from keras.layers import merge\nImportError: cannot import name merge\n", False),
])
def test_keras_1s_merge_layer_missing_under_keras_2(text: str, found: bool) -> None:
    assert ("keras-1-name-removed-in-2" in found_in(text)) == found


def test_float64_on_the_old_gpu_backend_is_floatx_left_at_float64(tmp_path: Path) -> None:
    # voxnet 5: device=gpu with Theano 0.8.2 and floatX at its default
    facts, log = _case(tmp_path, "TypeError: CudaNdarrayType only supports dtype float32 for now. Tried using "
                       "dtype float64 for variable None\n", "schema = 1\n")
    assert "LD537" in diagnoses(facts, log)
    # floatX = float32 recorded: the float64 came from the data, not the config
    facts.write_text('schema = 1\n[theano_config]\nfiles = []\n[theano_config.flags]\nTHEANO_FLAGS = '
                     '"device=gpu,floatX=float32"\n', encoding="utf-8")
    assert "LD537" not in diagnoses(facts, log)
