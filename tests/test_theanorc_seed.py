"""The seed post's .theanorc (reconstructed in SEED_THEANORC below and in
tests/data/theanorc/corpus/seed-blog.theanorc), from a blog diary of reviving a 2016
Theano project on Windows 10, GTX 1660 SUPER, CUDA 10.2, cuDNN 7.6.5, Python 3.7,
Theano-PyMC 1.0.5, MinGW-w64 g++ (the post's address was not kept).

The post shows its config with the '=' signs (and the '++' of g++) lost by the page
scraper; restored, it is the "minimal config" of its section 3.2 plus the two lines its
sections 4.1 ([cudnn] enable = True) and 4.3 ([global] compiler = g++) tell the reader
to add. Exactly three entries are wrong, and nothing else is.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from legacydoc import facts
from legacydoc.theanorc import derive_config_facts, effective_config, find_problems
from legacydoc.theanorc.command import show

SEED_THEANORC = (
    "[global]\n"
    "device = cuda\n"
    "floatX = float32\n"
    "mode = FAST_RUN\n"
    "compiler = g++\n"
    "\n"
    "[cuda]\n"
    "root = C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.2\n"
    "\n"
    "[cudnn]\n"
    "enable = True\n"
    "\n"
    "[lib]\n"
    "cnmem = 0.8\n"
)
ROOT = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.2"
HOME = "C:\\Users\\dev"


def seed_record(**packages: Any) -> dict[str, Any]:
    """The seed's machine as the probes would record it (Windows 10, conda Python 3.7)."""
    record = facts.new_record({
        "system": {"os": "windows", "os_name": "Windows", "os_release": "10"},
        "python": {"probe_ok": True, "version": "3.7.9", "version_info": [3, 7, 9], "platform": "win32", "env_kind": "conda",
                   "prefix": "C:\\Anaconda3\\envs\\theano_old"},
        "packages": packages or {
            "theano-pymc": {"name": "theano-pymc", "version": "1.0.5"},
            "pygpu": {"name": "pygpu", "version": "0.7.6"},
            "numpy": {"name": "numpy", "version": "1.19.5"},
            "theano_claimed_by": ["Theano-PyMC"],
            "numpy_distutils_config": True, "numpy_blas_opt_info": True, "numpy_blas": "mkl",
        },
        "gpu": {"nvidia_smi": {"found": True, "rc": 0}, "driver_version": "451.67", "count": 1,
                "devices": [{"index": 0, "name": "GeForce GTX 1660 SUPER", "memory_total_mib": 6144}]},
        "cuda": {"path_nvcc_all": [ROOT + "\\bin\\nvcc.exe"], "nvcc": {"found": True, "toolkit_root": ROOT, "version": "10.2"},
                 "toolkits": [{"root": ROOT, "found_by": ["PATH", "CUDA_PATH", "theano:cuda.root"], "exists": True,
                               "version": "10.2", "nvcc": ROOT + "\\bin\\nvcc.exe"}]},
        "cudnn": {"headers": [{"path": ROOT + "\\include\\cudnn.h", "header": "cudnn.h", "major": 7, "minor": 6, "patch": 5,
                               "version": "7.6.5", "found_by": ["toolkit:" + ROOT]}],
                  "libraries": [{"path": ROOT + "\\bin\\cudnn64_7.dll", "name": "cudnn64_7.dll", "major": 7}],
                  "include_dirs_searched": [ROOT + "\\include"], "library_dirs_searched": [ROOT + "\\bin", ROOT + "\\lib\\x64"],
                  "dnn_settings": {}},
        "compilers": {"found": True, "theano_cxx": "C:\\mingw64\\bin\\g++.exe",
                      "gxx_all": [{"found": True, "ok": True, "path": "C:\\mingw64\\bin\\g++.exe", "source": "PATH"}]},
        "theano_config": {
            "files": [
                {"path": HOME + "\\.theanorc", "from": "default", "exists": True, "readable": True, "kind": "file",
                 "encoding": "utf-8", "crlf": False, "text": SEED_THEANORC, "size": len(SEED_THEANORC)},
                {"path": HOME + "\\.theanorc.txt", "from": "default", "exists": False, "readable": False},
            ],
            "unread_files": [],
            "flags": {},
            "compiledir": {"base_compiledir": "C:\\Users\\dev\\AppData\\Local\\Theano", "source": "default",
                           "default_from": "LOCALAPPDATA"},
        },
        "env": {"variables": {"CUDA_PATH": ROOT, "PATH": ROOT + "\\bin;C:\\mingw64\\bin"}},
    })
    return record


EXPECTED = [
    # (kind, line, section, option, fix_line, did_you_mean)
    ("unknown-option", 5, "global", "compiler", "[global]\ncxx = g++", "cxx"),
    ("unknown-option", 11, "cudnn", "enable", "[dnn]\nenabled = True", "dnn.enabled"),
    ("removed-option", 14, "lib", "cnmem", "[gpuarray]\npreallocate = 0.8", "gpuarray.preallocate"),
]


def _summary(findings) -> list[tuple]:
    return [(f.kind, f.line, f.section, f.option, f.fix_line, f.did_you_mean) for f in findings]


def test_seed_yields_exactly_its_three_wrong_entries() -> None:
    findings = find_problems(seed_record())
    assert _summary(findings) == EXPECTED
    for finding in findings:
        assert finding.file == HOME + "\\.theanorc"
        assert finding.severity == "warning" and not finding.import_fails
        assert "does nothing" in finding.message and "without a word" in finding.message


def test_seed_messages_are_self_contained() -> None:
    compiler, cudnn, cnmem = find_problems(seed_record())
    assert compiler.message.startswith(HOME + "\\.theanorc line 5: `compiler = g++` does nothing")
    assert "Use [global] cxx instead" in compiler.message
    assert "Use [dnn] enabled instead" in cudnn.message and "(true is rejected)" in cudnn.message
    assert "removed in Theano 1.0" in cnmem.message and "Use [gpuarray] preallocate instead" in cnmem.message


def test_seed_everything_else_is_right() -> None:
    config = effective_config(seed_record())
    assert config.import_error is None
    assert config.release.schema_id == "theano-1.0.5" and config.release.flavour == "theano-pymc"
    user = {s.name: (s.value, s.origin.line) for s in config.user_settings()}
    assert user == {"device": ("cuda", 2), "floatX": ("float32", 3), "mode": ("FAST_RUN", 4), "cuda.root": (ROOT, 8)}
    assert all(s.ok for s in config.settings.values())
    # what the wrong lines were meant to set is still at its default
    assert config["dnn.enabled"].value == "auto" and config["gpuarray.preallocate"].value == "0"
    assert config["cxx"].value == '"C:\\mingw64\\bin\\g++.exe"'  # quoted on Windows, as Theano does


@pytest.mark.parametrize(
    "packages",
    [
        {},  # no Theano in the target interpreter: 1.0.5 rules
        {"theano": {"name": "theano", "version": "1.0.5"}, "pygpu": {"name": "pygpu", "version": "0.7.6"}},
        {"theano-pymc": {"name": "theano-pymc", "version": "1.1.2"}, "pygpu": {"name": "pygpu", "version": "0.7.6"}},
    ],
    ids=["none", "theano-1.0.5", "theano-pymc-1.1.2"],
)
def test_seed_same_three_on_every_modern_release(packages: dict) -> None:
    record = seed_record(**packages) if packages else seed_record()
    if not packages:
        record["packages"] = {}
        record["python"]["probe_ok"] = False  # not probed: pygpu unknown, so no pygpu finding
    got = [(f.kind, f.line, f.fix_line) for f in find_problems(record)]
    assert got == [(k, line, fix) for k, line, _s, _o, fix, _d in EXPECTED]


def test_seed_on_theano_09_cnmem_exists_but_does_nothing_with_cuda() -> None:
    record = seed_record(theano={"name": "theano", "version": "0.9.0"}, pygpu={"name": "pygpu", "version": "0.6.9"})
    got = [(f.kind, f.line, f.fix_line) for f in find_problems(record)]
    assert got == [("unknown-option", 5, "[global]\ncxx = g++"), ("unknown-option", 11, "[dnn]\nenabled = True"),
                   ("option-no-effect", 14, "[gpuarray]\npreallocate = 0.8")]


def test_seed_derived_facts_for_the_rule_engine() -> None:
    record = seed_record()
    derived = derive_config_facts(record)["config"]
    assert [f["kind"] for f in derived["findings"]] == ["unknown-option", "unknown-option", "removed-option"]
    assert derived["findings"][1]["fix_line"] == "[dnn]\nenabled = True"
    assert derived["finding_kinds"] == ["removed-option", "unknown-option"]
    assert derived["effective"]["device"] == {"value": "cuda", "source": HOME + "\\.theanorc:2", "file": HOME + "\\.theanorc",
                                              "line": 2}
    assert derived["effective"]["dnn"]["enabled"]["value"] == "auto"
    assert derived["effective"]["cuda"]["root"]["value"] == ROOT
    assert derived["theano_flavour"] == "theano-pymc" and derived["schema"] == "theano-1.0.5"
    assert derived["import_fails"] is False
    # saved with the record, it round-trips through TOML
    merged = dict(copy.deepcopy(record), **derive_config_facts(record))
    assert facts.loads(facts.dumps(merged))["config"] == derived


def test_seed_show_lists_the_three_with_fixes() -> None:
    text = show(seed_record())
    assert "Findings (3: 0 errors):" in text
    assert "fix: [dnn]" in text and "enabled = True" in text
    assert "device               = cuda" in text
