"""legacydoc's effective config against the REAL Theano, case by case.

For each case a throw-away world is built (HOME, a project folder, config files,
THEANORC, THEANO_FLAGS); the real probes record it into a facts record and
``effective_config`` predicts every option; the real package (Theano 1.0.5, and
Theano-PyMC 1.1.2 for the cases marked so) is imported in that same world by one driver
process that forks a child per case, and reports ``theano.config`` values, the import
error if any, and its warnings. Every option legacydoc can predict must match.

Skipped cleanly when the pyenv interpreter is absent or the venv cannot be built.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import pytest

from legacy_envs import legacy_venv
from legacydoc.facts import new_record
from legacydoc.probes import compilers, cuda, cudnn, system, target, theano_config
from legacydoc.probes import env as env_probe
from legacydoc.probes.context import ProbeContext
from legacydoc.theanorc.command import write
from legacydoc.theanorc.effective import PID_PLACEHOLDER, effective_config
from legacydoc.theanorc.findings import find_problems
from legacydoc.theanorc.validate import check_value
from legacydoc.theanorc.writer import generate

pytestmark = [pytest.mark.legacy, pytest.mark.slow, pytest.mark.skipif(os.name == "nt", reason="POSIX worlds")]

DRIVER = Path(__file__).parent / "data" / "theanorc" / "real_theano_driver.py"
VENVS = {
    "theano": ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"]),
    "theano-pymc": ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano-PyMC==1.1.2"]),
}
HOST_FORMAT = "compiledir_%(short_platform)s-%(processor)s-%(python_version)s-%(python_bitwidth)s-%(hostname)s"
# Never compared: the realpath'd, created-on-import compile folders.
NOT_COMPARED = {"compiledir", "gpuarray.cache_path", "gpuarray__cache_path"}

Content = Union[str, bytes]


@dataclass
class Case:
    id: str
    files: dict[str, Content] = field(default_factory=dict)  # relative to the case root
    theanorc: Optional[str] = None  # "{root}" is replaced by the case folder
    flags: Optional[str] = None
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = "home"  # "home" is the user's home folder (root/alice)
    flavours: tuple[str, ...] = ("theano",)
    fails: Optional[str] = None  # the exception both must agree on (a sanity check of the case)
    dirs: tuple[str, ...] = ()  # folders to create (e.g. a directory named .theanorc)


GLOBAL = "[global]\ndevice = cpu\nfloatX = float32\nmode = FAST_RUN\n"
CASES = [
    Case("defaults", flavours=("theano", "theano-pymc")),
    Case("basic", {"home/.theanorc": GLOBAL}, flavours=("theano", "theano-pymc")),
    Case("option-name-case", {"home/.theanorc": "[global]\nFLOATX = float32\nDevice = cpu\n"}),
    Case("section-name-case", {"home/.theanorc": "[Global]\nfloatX = float32\n"}),
    Case("inline-hash-comment", {"home/.theanorc": "[global]\nfloatX = float32  # single precision\n"}, fails="ValueError"),
    Case("inline-semicolon-comment", {"home/.theanorc": "[global]\nfloatX = float32 ; single\n"}, fails="ValueError"),
    Case("comment-lines", {"home/.theanorc": "# top\n; also\n[global]\n  # indented comment\nfloatX = float32\n"}),
    Case("quoted-value", {"home/.theanorc": "[global]\nfloatX = 'float32'\n"}, fails="ValueError"),
    Case("mode-lowercase", {"home/.theanorc": "[global]\nmode = fast_run\n"}, fails="ValueError"),
    Case("dnn-enabled-lowercase", {"home/.theanorc": "[dnn]\nenabled = true\n"}, fails="ValueError"),
    Case("dnn-enabled-ok", {"home/.theanorc": "[dnn]\nenabled = False\nbase_path = /nonexistent/cudnn\n"}),
    Case("device-gpu", {"home/.theanorc": "[global]\ndevice = gpu\n"}, fails="ValueError", flavours=("theano", "theano-pymc")),
    Case("device-cuda-no-pygpu", {"home/.theanorc": "[global]\ndevice = cuda\nfloatX = float32\n"}),
    Case("floatx-alias", {"home/.theanorc": "[global]\nfloatX = 32\n"}),
    Case("bool-no", {"home/.theanorc": "[global]\nallow_gc = no\n"}, fails="ValueError"),
    Case("bool-ok", {"home/.theanorc": "[global]\nallow_gc = false\nprint_active_device = 0\n"}),
    Case("int-bounds", {"home/.theanorc": "[tensor]\ncmp_sloppy = 3\n"}, fails="ValueError"),
    Case("compile-wait", {"home/.theanorc": "[compile]\nwait = 10\n"}),
    Case("warn-ignore-none", {"home/.theanorc": "[warn]\nignore_bug_before = None\n"}),
    Case("warn-ignore-all", {"home/.theanorc": "[warn]\nignore_bug_before = all\nround = True\n"}),
    Case("gpuarray-sync-false", {"home/.theanorc": "[gpuarray]\nsync = False\n"}, fails="RuntimeError"),
    Case("cxx-empty", {"home/.theanorc": "[global]\ncxx =\n"}),
    Case("cxx-empty-linker-cvm", {"home/.theanorc": "[global]\ncxx =\nlinker = cvm\n"}, fails="ValueError"),
    Case("colon-delimiter", {"home/.theanorc": "[global]\nfloatX: float32\n[gcc]\ncxxflags: -O2 -g\n"}),
    Case("interpolation", {"home/.theanorc": "[global]\nbase_compiledir = {root}/cache_%(USER)s_%(PID)s\n"}),
    # LD545's fixes: a per-job TMPDIR and a per-host compiledir_format (read raw: ConfigParser
    # cannot fill %(short_platform)s, and Theano then reads the raw text)
    Case("interpolation-tmpdir", {"home/.theanorc": "[global]\nbase_compiledir = %(TMPDIR)s/theano\n"},
         env={"TMPDIR": "{root}/job42"}),
    Case("compiledir-format-hostname", {"home/.theanorc": "[global]\ncompiledir_format = " + HOST_FORMAT + "\n"}),
    Case("flags-compiledir-format-hostname", {}, flags=",compiledir_format=" + HOST_FORMAT),
    Case("interpolation-missing", {"home/.theanorc": "[gcc]\ncxxflags = -I%(NOPE)s/include\n"}),
    Case("interpolation-lone-percent", {"home/.theanorc": "[gcc]\ncxxflags = -DRATE=5%\n"}),
    Case("interpolation-cross-ref", {"home/.theanorc": "[gcc]\nbase = -O2\ncxxflags = %(base)s -g\n"}),
    Case("interpolation-double-percent", {"home/.theanorc": "[gcc]\ncxxflags = -DP=100%%\n"}),
    Case("user-from-home", {"home/.theanorc": "[gcc]\ncxxflags = -DU=%(USER)s\n"}, env={"USER": "-"}),
    Case("duplicate-option", {"home/.theanorc": "[global]\nfloatX = float32\nfloatx = float64\n"}, fails="DuplicateOptionError"),
    Case("duplicate-section", {"home/.theanorc": "[global]\nfloatX = float32\n[global]\ndevice = cpu\n"}, fails="DuplicateSectionError"),
    Case("missing-header", {"home/.theanorc": "floatX = float32\n[global]\ndevice = cpu\n"}, fails="MissingSectionHeaderError"),
    Case("parse-error", {"home/.theanorc": "[global]\ndevice cuda\n"}, fails="ParsingError"),
    Case("bom", {"home/.theanorc": b"\xef\xbb\xbf[global]\nfloatX = float32\n"}, fails="MissingSectionHeaderError"),
    Case("gbk-comment", {"home/.theanorc": "# 配置 GPU\n[global]\nfloatX = float32\n".encode("gbk")}, fails="UnicodeDecodeError"),
    Case("utf8-comment", {"home/.theanorc": "# 配置 GPU\n[global]\nfloatX = float32\n"}),
    Case("utf16", {"home/.theanorc": "[global]\nfloatX = float32\n".encode("utf-16")}, fails="UnicodeDecodeError"),
    Case("crlf", {"home/.theanorc": b"[global]\r\nfloatX = float32\r\ndevice = cpu\r\n"}),
    Case("cr-only", {"home/.theanorc": b"[global]\rfloatX = float32\r"}),
    Case("continuation", {"home/.theanorc": "[global]\nfloatX = float32\n  device = cpu\n"}, fails="ValueError"),
    Case("blank-line-in-value", {"home/.theanorc": "[profiling]\ndestination = a\n\n  b\n\n[global]\nfloatX = float32\n"}),
    Case("default-section", {"home/.theanorc": "[DEFAULT]\nfloatX = float32\n[global]\ndevice = cpu\n"}),
    Case("default-section-only", {"home/.theanorc": "[DEFAULT]\nfloatX = float32\n"}),
    Case("dotted-key-in-global", {"home/.theanorc": "[global]\ngpuarray.preallocate = 0.5\nfloatX = float32\n"}),
    Case("three-level-section", {"home/.theanorc": "[dnn.conv]\nalgo_fwd = time_once\n[dnn]\nconv.algo_bwd_data = fft\n"}),
    Case("dunder-key-in-global", {"home/.theanorc": "[global]\ngpuarray__preallocate = 0.5\nfloatX = float32\n"},
         flavours=("theano", "theano-pymc")),
    Case("dunder-section", {"home/.theanorc": "[dnn__conv]\nalgo_fwd = time_once\n[dnn.conv]\nalgo_bwd_filter = fft\n"},
         flavours=("theano", "theano-pymc")),
    Case("blog-advice", {"home/.theanorc": "[global]\ndevice = cpu\nfloatX = float32\ncompiler = g++\n[cudnn]\nenable = True\n"
                                          "[lib]\ncnmem = 0.8\n[nvcc]\nflags = -D_FORCE_INLINES\n"}, flavours=("theano", "theano-pymc")),
    Case("theanorc-two-files", {"a.rc": "[global]\nfloatX = float16\ndevice = cpu\n", "b.rc": "[global]\nfloatX = float32\n"},
         theanorc="{root}/a.rc:{root}/b.rc", flavours=("theano", "theano-pymc")),
    Case("theanorc-hides-home", {"home/.theanorc": "[global]\nfloatX = float32\n", "x.rc": "[global]\nmode = FAST_RUN\n"},
         theanorc="{root}/x.rc"),
    Case("theanorc-missing-file", {"home/.theanorc": "[global]\nfloatX = float32\n"}, theanorc="{root}/nope.rc:~/.theanorc"),
    Case("theanorc-empty", {"home/.theanorc": "[global]\nfloatX = float32\n"}, theanorc=""),
    Case("theanorc-tilde-relative", {"home/.theanorc": "[global]\nfloatX = float32\n", "proj/.theanorc": "[global]\nmode = FAST_RUN\n"},
         theanorc="~/.theanorc:.theanorc", cwd="proj"),
    Case("cwd-theanorc-unread", {"proj/.theanorc": "[global]\nfloatX = float32\n"}, cwd="proj"),
    Case("theanorc-is-directory", {}, dirs=("home/.theanorc",)),
    Case("flags-over-file", {"home/.theanorc": "[global]\nfloatX = float16\n"}, flags="floatX=float32,device=cpu",
         flavours=("theano", "theano-pymc")),
    Case("flags-spaces", {}, flags="floatX = float32"),
    Case("flags-space-after-equals", {}, flags="floatX= float32", fails="ValueError"),
    Case("flags-global-prefix", {}, flags="global.floatX=float32"),
    Case("flags-no-equals", {}, flags="floatX,device=cpu"),
    Case("flags-duplicates", {}, flags="floatX=float16,floatX=float32"),
    Case("flags-quoted-comma", {}, flags='gcc.cxxflags="-DA=1,-DB=2",floatX=float32'),
    Case("flags-unclosed-quote", {}, flags='floatX="float32', fails="ValueError"),
    Case("flags-hash", {}, flags="floatX=float32#fast,device=cpu"),
    Case("flags-backslashes", {}, flags="cuda.root=C:\\CUDA\\v10.2"),
    Case("flags-doubled-backslashes", {}, flags="cuda.root=C:\\\\CUDA\\\\v10.2,base_compiledir=C:\\\\tc\\run1"),
    Case("flags-unknown", {}, flags="lib.cnmem=0.8,foo.bar=1,floatx=float32"),
    Case("flags-dotted-on-pymc", {}, flags="blas.ldflags=,gpuarray.preallocate=0.5,floatX=float32",
         flavours=("theano", "theano-pymc")),
    Case("flags-dunder", {}, flags="blas__ldflags=,gpuarray__preallocate=0.5", flavours=("theano", "theano-pymc")),
    Case("flags-empty-blas", {}, flags="blas.ldflags="),
    Case("env-cuda-root", {}, env={"CUDA_ROOT": "/opt/cuda-9.0"}),
    Case("env-cuda-path", {}, env={"CUDA_PATH": "/opt/cuda-10.2"}),
    Case("cuda-root-bin", {"home/.theanorc": "[cuda]\nroot = /usr/local/cuda/bin\n"}),
    Case("contexts", {"home/.theanorc": "[global]\ncontexts = dev0->cuda0;dev1->cuda1\n"}),
    Case("contexts-bad", {"home/.theanorc": "[global]\ncontexts = cuda0->dev0\n"}, fails="ValueError"),
    Case("preallocate", {"home/.theanorc": "[gpuarray]\npreallocate = 0.8\n[global]\nforce_device = True\n"}),
    Case("empty-file", {"home/.theanorc": ""}),
    Case("brackets-in-header", {"home/.theanorc": "[[global]]\nfloatX = float32\n[global] trailing\ndevice = cpu\n"}),
    Case("unicode-spaces", {"home/.theanorc": "[global]\nfloatX\u3000=\u3000float32\n"}),
    Case("only-comments", {"home/.theanorc": "# nothing\n; here\n"}),
    Case("garbage-binary", {"home/.theanorc": bytes(range(256))}, fails="UnicodeDecodeError"),
]


# Also run on Theano-PyMC 1.1.2: the parser and flags traps are the same code there.
BOTH = {"inline-hash-comment", "mode-lowercase", "dnn-enabled-lowercase", "duplicate-option", "bom", "gbk-comment",
        "missing-header", "continuation", "interpolation", "interpolation-lone-percent", "default-section", "section-name-case",
        "flags-spaces", "flags-global-prefix", "flags-no-equals", "flags-hash", "flags-unclosed-quote", "cxx-empty",
        "warn-ignore-none", "floatx-alias", "bool-no", "contexts-bad", "theanorc-hides-home", "cwd-theanorc-unread",
        "interpolation-tmpdir", "compiledir-format-hostname", "flags-compiledir-format-hostname"}
for _case in CASES:
    if _case.id in BOTH:
        _case.flavours = ("theano", "theano-pymc")


def _write_world(case: Case, root: Path) -> dict[str, str]:
    (root / "alice").mkdir(parents=True)
    (root / "proj").mkdir()
    for relpath, content in case.files.items():
        path = root / relpath.replace("home/", "alice/", 1)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.replace("{root}", str(root)).encode("utf-8")
        path.write_bytes(content)
    for relpath in case.dirs:
        (root / relpath.replace("home/", "alice/", 1)).mkdir(parents=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root / "alice"), "USER": "alice", "LANG": "C.UTF-8"}
    env.update({name: value.replace("{root}", str(root)) for name, value in case.env.items()})
    if env.get("USER") == "-":
        del env["USER"]
    if case.theanorc is not None:
        env["THEANORC"] = case.theanorc.replace("{root}", str(root))
    if case.flags is not None:
        env["THEANO_FLAGS"] = case.flags
    return env


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("theano-worlds")


def _shared_tables(python: Path, worlds: Path) -> dict[str, Any]:
    """Machine-wide facts, probed once with the real probes (same PATH as the cases)."""
    worlds.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(
        python=str(python), environ={"PATH": os.environ.get("PATH", ""), "HOME": str(worlds)}, platform=sys.platform,
        cwd=worlds, timeout=60.0,
    )
    tables: dict[str, Any] = {"system": system.collect(ctx), "compilers": compilers.collect(ctx), "cuda": cuda.collect(ctx),
                              "cudnn": cudnn.collect(ctx)}
    tables.update(target.collect(ctx))
    assert tables["python"].get("probe_ok"), tables["python"]
    return tables


def _record(case_env: dict[str, str], cwd: Path, shared: dict[str, Any]) -> dict[str, Any]:
    ctx = ProbeContext(environ=case_env, platform=sys.platform, cwd=cwd, timeout=30.0)
    tables = dict(shared)
    tables["theano_config"] = theano_config.collect(ctx)
    tables["env"] = env_probe.collect(ctx)
    return new_record(tables)


def _norm(value: Any, pid: int) -> Any:
    if isinstance(value, str):
        return value.replace(PID_PLACEHOLDER, str(pid))
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return repr(value)
    return value


def _run_real(flavour: str, worlds: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]:
    version, packages = VENVS[flavour]
    python = legacy_venv(version, packages)
    shared = _shared_tables(python, worlds / ("shared-" + flavour))
    cases = [c for c in CASES if flavour in c.flavours]
    payload, records = [], {}
    for case in cases:
        root = worlds / flavour / case.id
        env = _write_world(case, root)
        cwd = root / case.cwd.replace("home", "alice")
        record = _record(env, cwd, shared)
        assert effective_config(record).release.flavour == flavour  # the schema of the installed release
        records[case.id] = record
        names = [o["name"] for o in effective_config(record).schema.options]
        payload.append({"id": case.id, "env": env, "cwd": str(cwd), "names": names})
    proc = subprocess.run(
        [str(python), str(DRIVER)], input=json.dumps(payload).encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        timeout=900,
    )
    results = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("CASE_RESULT "):
            result = json.loads(line.split(" ", 1)[1])
            results[result["id"]] = result
    assert len(results) == len(cases), proc.stderr.decode("utf-8", "replace")[-3000:]
    return {c.id: c for c in cases}, records, results


def _compare(case: Case, record: dict[str, Any], real: dict[str, Any]) -> tuple[list[str], int]:
    """Mismatches (empty = agreement) and how many option values were compared."""
    config = effective_config(record)
    problems: list[str] = []
    if case.fails is not None and real.get("import_error") != case.fails:
        problems.append("case expects %s, the real Theano gave %r" % (case.fails, real.get("import_error")))
    if "import_error" in real:
        if config.import_error_type != real["import_error"]:
            problems.append("import: real %s (%s), legacydoc %r (%s)" % (
                real["import_error"], real.get("import_message", "")[:120], config.import_error_type, config.import_error))
        return problems, 0
    if config.import_error is not None:
        problems.append("legacydoc predicts an import failure (%s); the real import worked" % config.import_error)
        return problems, 0
    compared = 0
    for setting in config.settings.values():
        key = setting.key
        if key in NOT_COMPARED or setting.value is None:
            continue
        if setting.is_default and setting.option.get("kind") == "removed":
            continue  # their filters turn the empty default into True: nothing to predict
        status, value = real["values"][key]
        if status != "ok":
            continue
        compared += 1
        mine = _norm(setting.typed, real["pid"])
        theirs = _norm(value, real["pid"])
        if mine != theirs:
            problems.append("%s: real %r, legacydoc %r (from %s)" % (key, theirs, mine, setting.origin.label))
    unrecognised = sorted(w.split(": ", 1)[1] for w in real["warnings"] if w.startswith("Theano does not recognise this flag: "))
    if unrecognised != sorted(i.key for i in config.unknown_flags):
        problems.append("unrecognised flags: real %s, legacydoc %s" % (unrecognised, sorted(i.key for i in config.unknown_flags)))
    dropped = sorted(w for w in real["warnings"] if "has no value, ignoring it" in w)
    if len(dropped) != len(config.flags.dropped):
        problems.append("dropped flag items: real %s, legacydoc %s" % (dropped, [i.text for i in config.flags.dropped]))
    return problems, compared


@pytest.mark.parametrize("flavour", sorted(VENVS))
def test_effective_config_matches_real_theano(flavour: str, worlds: Path) -> None:
    cases, records, results = _run_real(flavour, worlds)
    failures = []
    total = 0
    for case_id, case in cases.items():
        problems, compared = _compare(case, records[case_id], results[case_id])
        total += compared
        failures += ["%s: %s" % (case_id, p) for p in problems]
        # findings must never crash on any of these worlds
        find_problems(records[case_id])
    assert not failures, "\n".join(failures)
    # where the cache really went: one folder per host, or under the job's TMPDIR
    host = socket.gethostname()
    for case_id in ("compiledir-format-hostname", "flags-compiledir-format-hostname"):
        status, folder = results[case_id]["values"]["compiledir"]
        assert status == "ok" and folder.endswith("-" + host), (case_id, folder)
    status, folder = results["interpolation-tmpdir"]["values"]["compiledir"]
    assert status == "ok" and "/job42/theano/compiledir_" in folder, folder
    # a real comparison happened: most options of most cases
    assert total > 20 * len(cases)


# --- a written file, imported by the real Theano ----------------------------------------------

MESSY = (
    "[global]\ndevice = cuda\nfloatX = float32\nmode = fast_run\ncompiler = g++\noptimizer = fast_run\nallow_gc = False\n"
    "[cudnn]\nenable = True\n[lib]\ncnmem = 0.5\n[cuda]\nroot = /usr/local/cuda/bin\n[traceback]\nlimit = 12\n"
)


@pytest.mark.parametrize("flavour", sorted(VENVS))
def test_written_file_imports_cleanly_and_gives_its_values(flavour: str, worlds: Path) -> None:
    version, packages = VENVS[flavour]
    python = legacy_venv(version, packages)
    shared = _shared_tables(python, worlds / ("shared-w-" + flavour))
    root = worlds / ("written-" + flavour)
    env = _write_world(Case("written", {"home/.theanorc": MESSY}), root)
    cwd = root / "alice"
    before = (cwd / ".theanorc").read_bytes()
    out = io.StringIO()
    assert write(_record(env, cwd, shared), None, dry_run=False, assume_yes=True, out=out) == 0, out.getvalue()
    assert (cwd / ".theanorc.legacydoc-bak").read_bytes() == before  # byte for byte
    record = _record(env, cwd, shared)  # probed again: the new file
    config = effective_config(record)
    assert config.import_error is None
    assert [f.kind for f in find_problems(record) if f.severity != "info"] == []
    generated = generate(record, config, str(cwd / ".theanorc"))
    claimed = {line.name: line for line in generated.lines}
    assert {"device", "floatX", "mode", "blas.ldflags", "optimizer", "allow_gc", "traceback.limit"} <= set(claimed)
    proc = subprocess.run(
        [str(python), str(DRIVER)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
        input=json.dumps([{"id": "written", "env": env, "cwd": str(cwd), "names": [config[n].key for n in claimed]}]).encode(),
    )
    [line] = [row for row in proc.stdout.decode().splitlines() if row.startswith("CASE_RESULT ")]
    real = json.loads(line.split(" ", 1)[1])
    assert "import_error" not in real, real
    for name, claim in claimed.items():
        option = config.schema.get(name)
        assert real["values"][option["name"]] == ["ok", check_value(option, claim.value).typed], name
