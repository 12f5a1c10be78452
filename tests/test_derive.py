"""derive.py: pure functions from facts (+ knowledge) to derived facts. No I/O."""

from __future__ import annotations

from typing import Optional

import pytest

from legacydoc import derive, factschema


def test_every_derived_name_is_documented_and_known() -> None:
    for name, doc in derive.DERIVED.items():
        assert doc.strip()
        assert factschema.is_known("derived." + name.replace("<name>", "some-name"))  # a map's entries
    assert not factschema.is_known("derived.no_such_thing")


def test_theano_flavour() -> None:
    assert derive.theano_flavour({"packages": {"found": []}}) == {"both_installed": False, "flavour": "none"}
    # An unread package list says nothing about Theano.
    assert "flavour" not in derive.theano_flavour({"packages": {}})
    only_pymc = {"packages": {"theano-pymc": {"version": "1.1.2"}, "found": ["theano-pymc"]}}
    assert derive.theano_flavour(only_pymc) == {"both_installed": False, "flavour": "theano-pymc", "version": "1.1.2"}
    # Without the package list, a second copy is neither there nor absent.
    del only_pymc["packages"]["found"]
    assert "both_installed" not in derive.theano_flavour(only_pymc)
    both = {
        "packages": {
            "theano": {"version": "1.0.5"},
            "theano-pymc": {"version": "1.1.2"},
            "theano_claimed_by": ["Theano", "Theano-PyMC"],
            "theano_version_text": "1.1.2",
        }
    }
    assert derive.theano_flavour(both) == {"both_installed": True, "flavour": "theano-pymc", "version": "1.1.2"}


@pytest.mark.parametrize("text_version, expected", [
    ("1.0.4", {"flavour": "theano", "version": "1.0.4"}),
    ("1.1.2", {"flavour": "theano-pymc", "version": "1.1.2"}),
    ("1.0.5", {"version": "1.0.5"}),  # the last Theano and an early Theano-PyMC: either
    (None, {}),
])
def test_theano_importable_from_a_folder_no_distribution_claims_is_not_absent(text_version, expected) -> None:
    """A source checkout on PYTHONPATH: no metadata, but Python imports theano from it."""
    packages: dict = {"found": ["numpy"], "theano_import_dir": "/home/u/src/Theano/theano", "theano_claimed_by": []}
    if text_version:
        packages["theano_version_text"] = text_version
    out = derive.theano_flavour({"packages": packages})
    assert out.get("flavour") != "none"
    assert {k: v for k, v in out.items() if k != "both_installed"} == expected


def test_the_gpus_are_a_list_only_when_they_were_listed() -> None:
    listed = derive.enrich({"gpu": {"devices": [{"name": "GeForce GTX 1080"}]}})
    assert [g["name"] for g in listed["derived"]["gpus"]] == ["GeForce GTX 1080"]
    # nvidia-smi timed out: not "no GPUs", which would let every per-GPU rule pass
    assert "gpus" not in derive.enrich({"gpu": {"nvidia_smi": {"found": True, "timed_out": True}}})["derived"]


@pytest.mark.parametrize("os, driver_ok", [("linux", True), ("windows", False), (None, None)])
def test_a_record_without_its_os_gets_only_what_both_driver_tables_say(os, driver_ok) -> None:
    """CUDA 10.2 needs driver 440.33 on Linux and 441.22 on Windows: 440.97 is enough for
    one and not the other, so without the OS nothing is said (it used to be read as Linux)."""
    facts: dict = {"gpu": {"driver_version": "440.97"}, "cuda": {"nvcc": {"found": True, "version": "10.2"}}}
    if os:
        facts["system"] = {"os": os}
    nvcc = derive.enrich(facts)["derived"].get("nvcc", {})
    assert nvcc.get("driver_ok") is driver_ok


@pytest.mark.parametrize("extra, expected", [
    ({}, None),  # the import failed, and whether pygpu is installed was never read
    ({"import_check": {"pygpu": {"ok": False, "error": "ModuleNotFoundError: No module named 'pygpu'"}}}, False),
    ({"found": ["theano"]}, False),  # the package list was read: no pygpu in it
    ({"pygpu": {"name": "pygpu", "version": "0.7.6"}}, True),
])
def test_pygpu_installed_but_not_importable_only_as_far_as_known(extra: dict, expected) -> None:
    packages: dict = {"theano": {"name": "Theano", "version": "1.0.5"},
                      "import_check": {"pygpu": {"ok": False, "error": "ImportError: libgpuarray.so.3: cannot open"}}}
    packages.update(extra)
    record = {"packages": packages, "theano_config": {"flags": {"THEANO_FLAGS": "device=cuda"}, "files": []}}
    derived = derive.enrich(record)["derived"]
    assert derived.get("pygpu", {}).get("installed_not_importable") is expected


def test_one_cuda_on_path_is_known_only_when_every_entry_was_scanned() -> None:
    scanned = {"index": 0, "entry": "/usr/local/cuda-10.2/bin", "exists": True, "provides": ["nvcc"],
               "cuda_versions": ["10.2"]}
    whole = derive.enrich({"path": {"entries": [scanned, {"index": 1, "entry": "/usr/bin", "exists": True,
                                                           "provides": ["g++"]}]}})["derived"]
    assert whole["cuda"]["path_version_count"] == 1
    # an entry skipped when the probe ran out of time may hold another CUDA
    cut = derive.enrich({"path": {"entries": [scanned, {"index": 1, "entry": "/opt/cuda-9.0/bin",
                                                         "not_scanned": True}]}})["derived"]
    assert "path_version_count" not in cut["cuda"]
    two = dict(scanned, index=1, entry="/opt/cuda-9.0/bin", cuda_versions=["9.0"])
    both = derive.enrich({"path": {"entries": [scanned, two, {"index": 2, "entry": "/x", "not_scanned": True}]}})
    assert both["derived"]["cuda"]["path_version_count"] == 2  # two are two, whatever the rest holds


@pytest.mark.parametrize("env, expected", [
    ({"variables": {"PATH": "/usr/bin"}}, 2),  # the whole environment, without the variable: all GPUs
    ({"variables": {"CUDA_VISIBLE_DEVICES": "1"}}, 1),
    # a report that quoted another variable says nothing of CUDA_VISIBLE_DEVICES
    ({"partial": True, "variables": {"OMP_NUM_THREADS": "2"}}, None),
    ({"partial": True, "variables": {"CUDA_VISIBLE_DEVICES": "0"}}, 1),
    (None, None),
])
def test_a_partial_environment_leaves_the_variables_it_lacks_unknown(env, expected) -> None:
    facts: dict = {"gpu": {"count": 2}}
    if env is not None:
        facts["env"] = env
    assert derive.visible_gpus(facts) == expected


def test_python_verdict() -> None:
    assert derive.python_verdict("3.11.7", ">=2.7,<3.12") == "ok"
    assert derive.python_verdict("3.12.1", ">=2.7,<3.12") == "too_new"
    assert derive.python_verdict("2.7.18", ">=3.6") == "too_old"
    assert derive.python_verdict("garbage", ">=3.6") is None


def test_driver_max_cuda_from_header_or_table() -> None:
    assert derive.driver_facts({"gpu": {"driver_cuda_version": "11.0"}}, "windows") == {
        "max_cuda": "11.0",
        "max_cuda_source": "nvidia-smi",
    }
    # R375 prints no CUDA Version: the table knows 375.66 runs CUDA 8.0 GA2.
    out = derive.driver_facts({"gpu": {"driver_version": "375.66"}}, "linux")
    assert out == {"max_cuda": "8.0", "max_cuda_source": "table", "branch": 375}
    assert derive.driver_facts({"gpu": {}}, "linux") == {}


def test_driver_branch_in_every_form_or_unknown() -> None:
    # LD171 turns on the branch: 373.06 computes Theano 0.9.0rc2's reductions right, 375.26 not
    assert derive.driver_facts({"gpu": {"driver_version": "373.06"}}, "windows")["branch"] == 373
    # Windows' driver-store form names the same driver as nvidia-smi's 451.67
    assert derive.driver_facts({"gpu": {"driver_version": "27.21.14.5167"}}, "windows")["branch"] == 451
    # a macOS web driver's number is not a driver branch
    assert "branch" not in derive.driver_facts({"gpu": {"driver_version": "387.10.10.10.25.156"}}, "darwin")
    # a version nobody can read says nothing about the branch
    assert "branch" not in derive.driver_facts({"gpu": {"driver_version": "unknown"}}, "linux")


def test_nvcc_driver_check_and_arch_range() -> None:
    facts = {"cuda": {"nvcc": {"version": "10.2"}}, "gpu": {"driver_version": "411.31"}}
    out = derive.nvcc_facts(facts, "windows", None)
    assert out["min_driver"] == "441.22"
    assert out["driver_ok"] is False
    assert (out["lowest_sm"], out["highest_sm"]) == (30, 75)
    assert out["max_gcc"] == 8
    ok = derive.nvcc_facts({"cuda": {"nvcc": {"version": "10.2"}}, "gpu": {"driver_version": "451.67"}}, "windows", None)
    assert ok["driver_ok"] is True
    # Every update of a release needs the GA's minimum (the runtime checks the driver's CUDA
    # level, 8.0 for each 8.0 update); a pre-release build's minimum is not known.
    ga2 = {"cuda": {"nvcc": {"version": "8.0", "version_full": "8.0.61"}}, "gpu": {"driver_version": "370.28"}}
    assert derive.nvcc_facts(ga2, "linux", None)["min_driver"] == "367.48"
    assert derive.nvcc_facts(ga2, "linux", None)["driver_ok"] is True
    # Where the table has no minimum (macOS; a release Windows marks N/A) the driver's own
    # level still decides, build number or not.
    mac = {"cuda": {"nvcc": {"version": "10.2", "version_full": "10.2.89"}}, "gpu": {"driver_version": "418.105"}}
    assert derive.nvcc_facts(mac, "darwin", "10.1")["driver_ok"] is False
    rc = {"cuda": {"nvcc": {"version": "8.0", "version_full": "8.0.26"}}, "gpu": {"driver_version": "367.27"}}
    assert "min_driver" not in derive.nvcc_facts(rc, "linux", None)
    assert "driver_ok" not in derive.nvcc_facts(rc, "linux", None)
    assert "driver_ok" not in derive.nvcc_facts(rc, "linux", "7.5")  # not the driver's level either
    assert derive.derive(dict(rc, system={"os": "linux"}))["nvcc"].get("driver_ok") is None
    # Without the build number, an earlier build of the listed driver's own branch is not
    # claimed either way; an older branch still is.
    same_branch = {"cuda": {"nvcc": {"version": "8.0"}}, "gpu": {"driver_version": "367.27"}}
    assert "driver_ok" not in derive.nvcc_facts(same_branch, "linux", None)
    older_branch = {"cuda": {"nvcc": {"version": "8.0"}}, "gpu": {"driver_version": "361.42"}}
    assert derive.nvcc_facts(older_branch, "linux", None)["driver_ok"] is False
    # Windows numbers its drivers apart from the Linux branches: the table decides there.
    windows = {"cuda": {"nvcc": {"version": "8.0"}}, "gpu": {"driver_version": "369.05"}}
    assert derive.nvcc_facts(windows, "windows", None)["driver_ok"] is False


def test_gpu_architecture_against_toolkit() -> None:
    nvcc = {"version": "10.2", "lowest_sm": 30, "highest_sm": 75}
    facts = {"gpu": {"devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3090"}, {"index": 1, "name": "Tesla K80"}]}}
    gpus = derive.gpu_list(facts, nvcc)
    assert gpus[0]["sm"] == 86 and gpus[0]["in_nvcc_range"] is False
    assert gpus[1]["sm"] == 37 and gpus[1]["in_nvcc_range"] is True


def test_path_cuda_versions_ignore_duplicates_and_missing() -> None:
    facts = {
        "path": {
            "entries": [
                {"index": 0, "exists": True, "cuda_versions": ["10.2"]},
                {"index": 1, "exists": False, "cuda_versions": ["9.0"]},
                {"index": 2, "exists": True, "cuda_versions": ["10.2"], "duplicate_of": 0},
                {"index": 3, "exists": True, "cuda_versions": ["11.x"]},
            ]
        }
    }
    assert derive.path_cuda_versions(facts) == ["10.2", "11.x"]


def test_loader_cudart_against_nvcc() -> None:
    winners = {"libraries": {"winner": {"cudart": {
        "libcudart.so.11.0": {"order": 4, "cuda": "11.x"},
        "libcudart.so.10.2": {"order": 1, "cuda": "10.2"},
    }}}}  # fmt: skip
    assert derive.loader_facts(winners, "10.2") == {"has_cudart": True, "cudart_cuda": "10.2", "cudart_matches_nvcc": True}
    assert derive.loader_facts(winners, "11.1")["cudart_matches_nvcc"] is False
    # no runtime found says "none" only after a whole search (ldconfig -p answered on Linux)
    assert derive.loader_facts({"libraries": {"winner": {}}}, "10.2") == {}
    whole = {"os_rules": "linux", "search_order": [], "ldconfig": {"rc": 0, "timed_out": False}, "winner": {}}
    assert derive.loader_facts({"libraries": whole}, "10.2") == {"has_cudart": False}
    for partial in ({"scan_incomplete": True}, {"found_truncated": True}, {"ldconfig": {"rc": 1}},
                    {"ldconfig": {"timed_out": True}}):
        assert derive.loader_facts({"libraries": {**whole, **partial}}, "10.2") == {}, partial
    windows = {"os_rules": "windows", "search_order": [], "winner": {}}
    assert derive.loader_facts({"libraries": windows}, "10.2") == {"has_cudart": False}
    assert derive.loader_facts({}, "10.2") == {}  # the loader was never probed


def test_cudnn_facts() -> None:
    facts = {
        "cudnn": {
            "headers": [{"version": "7.6.5", "major": 7}],
            "libraries": [{"major": 8, "name": "libcudnn.so.8"}],
        }
    }
    out = derive.cudnn_facts(facts, "10.2")
    assert out["header_library_mismatch"] is True
    assert out["built_for_nvcc"] is True
    assert "10.2" in out["cuda_builds"]
    assert derive.cudnn_facts({"cudnn": {"headers": [], "libraries": []}}, None) == {"found": False}
    assert derive.cudnn_facts({"cudnn": {"headers": []}}, None) == {}  # libraries never searched


@pytest.mark.parametrize("libraries, mismatch, versions", [
    ([{"major": 5, "name": "libcudnn.so.5"}], None, ["5.x"]),  # the same major: minor and patch unknown
    # Theano compares the whole version (Theano issue 5581: header 5005, library 5110)
    ([{"major": 5, "name": "libcudnn.so.5.1.10", "version": "5.1.10"}], True, ["5.1.10"]),
    ([{"major": 5, "name": "libcudnn.so.5.0.5", "version": "5.0.5"}], False, ["5.0.5"]),
    ([{"major": 6, "name": "libcudnn.so.6"}, {"major": 5, "name": "libcudnn.so.5"}], None, ["5.x", "6.x"]),
    # one copy that matches beside one that does not: which the loader takes is not known
    ([{"major": 6, "name": "libcudnn.so.6"}, {"major": 5, "name": "libcudnn.so.5.0.5", "version": "5.0.5"}],
     None, ["5.0.5", "6.x"]),
    # Theano 5581's machine as a probe would see it: its own 5.0.5 and Torch's 5.1.10
    ([{"major": 5, "name": "libcudnn.so.5.0.5", "version": "5.0.5"},
      {"major": 5, "name": "libcudnn.so.5.1.10", "version": "5.1.10"}], None, ["5.0.5", "5.1.10"]),
    # copied over an old one in part: the symlinks point at 5.1.10 (no 5.x beside it)
    ([{"major": 5, "name": "libcudnn.so.5", "version": "5.1.10"},
      {"major": 5, "name": "libcudnn.so.5.1.10", "version": "5.1.10"}], True, ["5.1.10"]),
    ([{"major": 5, "name": "libcudnn.so.5"}, {"major": 5, "name": "libcudnn.so.5.0.5", "version": "5.0.5"}],
     None, ["5.0.5"]),
    ([{"major": 6, "name": "libcudnn.so.6"}], True, ["6.x"]),
    # a build number after the patch (a conda package's): the patch is what Theano compares
    ([{"major": 5, "name": "libcudnn.so.5.0.5", "version": "5.0.5.32"}], False, ["5.0.5"]),
    # cuDNN v3's libcudnn.so.7.0.64 is named after CUDA 7.0: no major, nothing decided
    ([{"name": "libcudnn.so.7.0.64", "name_number": 70}], None, None),
])
def test_a_cudnn_header_and_library_differ_in_any_part_of_the_version(
        libraries: list, mismatch: Optional[bool], versions: Optional[list]) -> None:
    header = {"version": "5.0.5", "major": 5, "minor": 0, "patch": 5}
    out = derive.cudnn_facts({"cudnn": {"headers": [header], "libraries": libraries}}, None)
    assert out.get("header_library_mismatch") is mismatch
    assert out.get("library_versions") == versions


def test_device_facts_explain_why_cpu_from_recorded_facts_only() -> None:
    cuda1 = {"config": {"effective": {"device": {"value": "cuda1", "source": "THEANO_FLAGS"}}}}
    probed = dict(
        cuda1,
        gpu={"count": 1, "devices": [{"index": 0, "name": "GeForce GTX 1080"}], "nvidia_smi": {"found": True, "rc": 0}},
        python={"probe_ok": True},
        packages={"found": ["numpy", "theano"]},
        compilers={"theano_cxx": "/usr/bin/g++"},
    )
    out = derive.device_facts(probed, "1.0.5")
    assert out["wants_gpu"] is True and out["backend"] == "gpuarray"
    assert out["device_index"] == 1 and out["device_exists"] is False
    assert out["runs_on"] == "cpu"
    assert out["cpu_reasons"] == ["pygpu is not installed in the target interpreter"]
    # The same config with nothing else recorded: nothing is claimed, all is unknown.
    unknown = derive.device_facts(cuda1, "1.0.5")
    assert unknown["runs_on"] == "unknown" and "cpu_reasons" not in unknown
    assert "whether pygpu is installed" in unknown["unknown_reasons"]
    # No config recorded at all: the device itself is unknown.
    assert derive.device_facts({}, None)["runs_on"] == "unknown"
    # The default device=cpu stands only when the config files were listed: the config
    # model gives it no value then (legacydoc/theanorc/findings.py).
    default_only = {"config": {"effective": {"device": {"unknown": True}}}}
    assert derive.device_facts(default_only, "1.0.5")["runs_on"] == "unknown"
    from legacydoc.theanorc import derive_config_facts

    def with_config(rec: dict) -> dict:
        return {**rec, **derive_config_facts(rec)}

    cpu = {"packages": {"theano": {"name": "Theano", "version": "1.0.5"}},
           "theano_config": {"files": [], "flags": {}}, "gpu": {"nvidia_smi": {"found": False}}}
    assert derive.device_facts(with_config(cpu), "1.0.5")["cpu_reasons"] == [
        "no working NVIDIA GPU was found (nvidia-smi was not found)", "the config says device=cpu"]
    # ... and THEANO_FLAGS, which overrides them, was recorded (a ticket may list files only)
    del cpu["theano_config"]["flags"]
    assert derive.device_facts(with_config(cpu), "1.0.5")["runs_on"] == "unknown"


def test_a_failed_pygpu_import_keeps_theano_on_the_cpu_and_says_why() -> None:
    record = {
        "config": {"effective": {"device": {"value": "cuda", "source": "THEANO_FLAGS"}}},
        "gpu": {"count": 1, "devices": [{"index": 0, "name": "GeForce GTX 1080"}], "nvidia_smi": {"found": True, "rc": 0}},
        "python": {"probe_ok": True},
        "packages": {"found": ["pygpu", "theano"], "pygpu": {"name": "pygpu", "version": "0.7.6"},
                     "import_check": {"pygpu": {"ok": False, "error": "ImportError: libgpuarray.so.3: cannot open"}}},
        "compilers": {"theano_cxx": "/usr/bin/g++"},
    }
    out = derive.device_facts(record, "1.0.5")
    assert out["runs_on"] == "cpu"
    assert out["cpu_reasons"] == ["import pygpu failed: ImportError: libgpuarray.so.3: cannot open"]


def test_cache_facts() -> None:
    facts = {
        "python": {"version": "3.7.16"},
        "theano_config": {"compiledir": {"subdirs": [
            {"name": "a", "python_version": "3.7.16", "lock_dir": {"age_s": 30.0}},
            {"name": "b", "python_version": "2.7.18", "module_dirs": 3, "lock_dir": {"age_s": 9000.0}},
        ]}},
    }  # fmt: skip
    assert derive.cache_facts(facts) == {"foreign_dirs": ["b"], "stale_locks": ["b"]}


@pytest.mark.parametrize("compiledir, python, expected", [
    # never probed, or the folder could not be listed: nothing is known about its contents
    (None, "3.7.16", {}),
    ({"exists": True, "scan_error": "PermissionError: [Errno 13]"}, "3.7.16", {}),
    # no cache folder at all: no locks in it, no other Python's modules
    ({"exists": False}, "3.7.16", {"foreign_dirs": [], "stale_locks": []}),
    # listed in full, nothing stale: known empty; without this Python's version, other Pythons are unknown
    ({"exists": True, "subdirs": [{"name": "a", "python_version": "3.7.16"}]}, "3.7.16",
     {"foreign_dirs": [], "stale_locks": []}),
    ({"exists": True, "subdirs": [{"name": "a", "python_version": "3.7.16"}]}, None, {"stale_locks": []}),
    # listed in part: what was seen counts, what was not seen is unknown
    ({"exists": True, "subdirs_truncated": True, "subdirs": [{"name": "a", "python_version": "3.7.16"}]}, "3.7.16", {}),
    ({"exists": True, "subdirs_truncated": True, "subdirs": [
        {"name": "b", "python_version": "2.7.18", "lock_dir": {"age_s": 9000.0}}]}, "3.7.16",
     {"foreign_dirs": ["b"], "stale_locks": ["b"]}),
    # a folder that could not be read, a lock whose age could not be read: unknown
    ({"exists": True, "subdirs": [{"name": "a", "scan_error": "PermissionError"}]}, "3.7.16", {}),
    ({"exists": True, "subdirs": [{"name": "a", "python_version": "3.7.16", "lock_dir": {"lock_file": True}}]},
     "3.7.16", {"foreign_dirs": []}),
])
def test_cache_facts_say_nothing_about_what_was_not_listed(compiledir, python, expected) -> None:
    facts: dict = {}
    if python:
        facts["python"] = {"version": python}
    if compiledir is not None:
        facts["theano_config"] = {"compiledir": compiledir}
    assert derive.cache_facts(facts) == expected


def test_derive_on_an_empty_record_does_not_guess() -> None:
    out = derive.derive({})
    assert "flavour" not in out["theano"]  # no package list: not "none"
    # Areas never probed are unknown: no "no g++", "no cuDNN", "no cudart" claims.
    assert "found" not in out.get("gxx", {}) and "found" not in out.get("cudnn", {})
    assert "has_cudart" not in out.get("loader", {}) and "path_versions" not in out.get("cuda", {})
    assert "gpu" not in out and "pygpu" not in out  # not probed: unknown, not "unusable"
    assert out["theano"]["runs_on"] == "unknown"
    assert "driver" not in out and "nvcc" not in out


def test_cuda_visible_devices_narrows_and_renumbers_the_gpus() -> None:
    def visible(value: str | None) -> int | None:
        env = {} if value is None else {"CUDA_VISIBLE_DEVICES": value}
        return derive.visible_gpus({"gpu": {"count": 2}, "env": {"variables": env}})

    assert visible(None) == 2
    assert visible("1") == 1 and visible("0,1") == 2
    assert visible("") == 0 and visible("-1") == 0
    assert visible("0,5,1") == 1  # the driver stops at the first invalid entry
    assert visible("0,,1") == 1  # an empty entry ends the list
    assert visible("0,0") == 0 and visible("1,1") == 0  # a device named twice hides them all
    assert visible("GPU-abc,1") == 2
    assert derive.visible_gpus({"env": {"variables": {"CUDA_VISIBLE_DEVICES": "0"}}}) is None  # no GPU count
    # the environment never recorded (a ticket): any GPU may be hidden, so unknown
    assert derive.visible_gpus({"gpu": {"count": 4}}) is None
    assert derive.visible_gpus({"gpu": {"count": 0}}) == 0


def test_which_libgpuarray_releases_would_fail_is_guessed_only_while_the_answer_is_unknown() -> None:
    theano = {"pygpu": "~=0.7.0"}
    unknown = {"packages": {"pygpu": {"name": "pygpu"}}, "gpu": {"driver_version": "470.57"}}
    assert derive.pygpu_facts(unknown, theano, driver_max="11.4")["would_fail"]  # the 0.6 releases, by the range
    known = {"packages": {"pygpu": {"name": "pygpu", "version": "0.7.6"}}, "gpu": {"driver_version": "470.57"}}
    assert derive.pygpu_facts(known, theano, driver_max="11.4")["would_fail"] == []
    opened = dict(unknown, log={"ids": ["theano-gpuarray-mapped-name"]})  # printed after pygpu.init()
    facts = derive.pygpu_facts(opened, theano, driver_max="11.4")
    assert facts["would_fail"] == [] and facts["context_per_log"] is True


def test_with_theanos_release_unknown_the_releases_a_pygpu_fits_come_from_their_own_checks() -> None:
    # Theano 0.9.0 checks >=0.6.1,<0.7; 0.10.0beta2 to 1.0.5 check >=0.7.0,<0.8 (theano_eras.toml)
    assert derive.theano_fit("0.6.5") == {"fits_theano": "Theano 0.9.0 to 0.10.0beta1", "newest_theano_rejects": True,
                                          "newest_theano": "1.0.5"}
    assert derive.theano_fit("0.7.6")["newest_theano_rejects"] is False
    assert derive.theano_fit("0.6.0") == {}  # no release's check accepts it: nothing to say
    unknown_theano = {"packages": {"theano": {"name": "Theano"}, "pygpu": {"name": "pygpu", "version": "0.6.8"}}}
    assert derive.pygpu_facts(unknown_theano, None)["newest_theano_rejects"] is True
    known_theano = {"packages": {"theano": {"name": "Theano", "version": "0.9.0"}, "pygpu": {"name": "pygpu", "version": "0.6.8"}}}
    assert "newest_theano_rejects" not in derive.pygpu_facts(known_theano, {"pygpu": ">=0.6.1,<0.7"}, {"version": "0.9.0"})


def test_with_nvccs_release_unknown_a_gcc_is_placed_among_the_cuda_releases() -> None:
    # host_compilers.toml gcc_max: CUDA 7.0-7.5 take gcc 4, 8.0 takes 5, 9.0-9.1 take 6
    gcc5 = {"compilers": {"nvcc_host": {"found": True, "compiler": "gcc", "gcc_major": 5}}, "cuda": {"nvcc": {"found": True}}}
    assert derive.compiler_facts(gcc5, None) == {"gcc_major": 5, "newer_than_some_cuda": True,
                                                 "newest_cuda_rejecting": "7.5", "oldest_cuda_accepting": "8.0"}
    gcc4 = {"compilers": {"nvcc_host": {"found": True, "compiler": "gcc", "gcc_major": 4}}, "cuda": {"nvcc": {"found": True}}}
    assert derive.compiler_facts(gcc4, None) == {"gcc_major": 4, "newer_than_some_cuda": False}
    known = {"compilers": {"nvcc_host": {"gcc_major": 5}}, "cuda": {"nvcc": {"found": True, "version": "8.0"}}}
    assert derive.compiler_facts(known, 5) == {"gcc_major": 5, "too_new_for_nvcc": False}


def test_a_gcc_some_nvcc_refuses_matters_only_where_theano_may_have_the_old_backend() -> None:
    base = {"compilers": {"nvcc_host": {"found": True, "compiler": "gcc", "gcc_major": 7}},
            "cuda": {"nvcc": {"found": True}}, "theano_config": {"flags": {"THEANO_FLAGS": "device=gpu"}}}

    def may_refuse(theano: dict) -> object:
        return derive.derive({**base, "packages": {"theano": theano}})["gxx"].get("nvcc_may_refuse")

    assert may_refuse({"name": "Theano"}) is True  # the release unknown: it may be 0.9
    assert may_refuse({"name": "Theano", "version": "0.9.0"}) is True
    # 0.10 betas and 1.0 refuse device=gpu at import (LD516): nvcc never runs
    assert may_refuse({"name": "Theano", "version": "0.10.0b1"}) is False
    assert may_refuse({"name": "Theano", "version": "1.0.5"}) is False
    # Theano known not to be installed: no nvcc of its own either
    none = derive.derive({**base, "packages": {"found": ["numpy"]}, "python": {"probe_ok": True}})
    assert none["theano"]["flavour"] == "none" and none["gxx"]["nvcc_may_refuse"] is False


def test_an_nvidia_smi_that_answered_lets_the_failure_rules_decide() -> None:
    answered = {"gpu": {"nvidia_smi": {"found": True, "rc": 0, "output": "GPU 0: GeForce GTX 1080 Ti"}}}
    assert derive.gpu_failure(answered) == "none"
    assert derive.gpu_failure({"gpu": {"nvidia_smi": {"found": False}}}) is None  # not run: unknown
    assert derive.gpu_failure({}) is None


def test_whether_theano_might_compile_with_nvcc_is_decided_only_from_what_is_known() -> None:
    unknown = derive.nvcc_use_unknown
    assert unknown(None, None) is True  # neither the release nor the device
    assert unknown(None, "old") is True  # device=gpu, the release unknown
    assert unknown("0.9.0", None) is True  # a release with the old back-end, the device unknown
    # the rel-0.9.0 tag built from git: still a release with the old back-end, the device unknown
    assert unknown("0.9.0.dev-c697eeab84e5b8a74908da654b66ec9eca4f1291", None) is True
    assert unknown("0.9.0", "old") is False  # both known: LD403 decides
    assert unknown("1.0.5", None) is False and unknown("0.10.0beta1", None) is False  # NVRTC, no nvcc
    assert unknown(None, "gpuarray") is False and unknown(None, "cpu") is False
    assert unknown(None, None, "none") is False  # Theano known not to be installed
    record = {"packages": {"found": ["numpy"]}, "python": {"probe_ok": True},
              "cuda": {"nvcc": {"found": True, "version": "7.5"}},
              "compilers": {"nvcc_host": {"found": True, "compiler": "gcc", "gcc_major": 6}}}
    derived = derive.derive(record)
    assert derived["theano"]["flavour"] == "none"
    assert derived["gxx"]["too_new_for_nvcc"] is True and derived["gxx"]["too_new_for_nvcc_era_unknown"] is False


def test_theanos_own_no_gxx_message_settles_gxx_found_when_not_probed() -> None:
    log = {"ids": ["theano-gxx-not-detected"], "matches": []}
    assert derive.derive({"log": log})["gxx"] == {"found": False, "found_from_log": "theano-gxx-not-detected"}
    probed = derive.derive({"log": log, "compilers": {"gxx": {"found": True, "path": "/usr/bin/g++"}}})
    assert probed["gxx"]["found"] is True and "found_from_log" not in probed["gxx"]  # the probe wins
    assert "found" not in derive.derive({"log": {"ids": [], "matches": []}}).get("gxx", {})


def _scanned(text: str) -> dict:
    """A log as check --log records it: the catalogue's matches, with their groups."""
    from legacydoc import logscan
    from legacydoc.messages import catalogue

    matches = logscan.scan(text, catalogue())
    return {"ids": [m.id for m in matches],
            "matches": [{"id": m.id, "line": m.line, "text": m.text, "groups": m.groups} for m in matches]}


def _recorded(text: str) -> dict:
    """A log as check --log records it, with the command lines that start each run."""
    from legacydoc import logscan

    return logscan.text_table(text, "log.txt", "utf-8")


# Two attempts pasted one after the other (the shape of Theano/Theano#3629): the old
# back-end's warning belongs to the device=gpu run, pygpu's error to the device=cuda one.
TWO_RUNS = ("THEANO_FLAGS=device=gpu python check1.py\n"
            "WARNING (theano.sandbox.cuda): CUDA is installed, but device gpu is not available  "
            "(error: Unable to get the number of gpus available: unknown error)\nUsed the cpu\n\n"
            "THEANO_FLAGS=device=cuda python check1.py\n"
            "ERROR (theano.sandbox.gpuarray): Could not initialize pygpu, support disabled\n")


def test_both_back_ends_count_only_within_one_run() -> None:
    separate = derive.derive({"log": _recorded(TWO_RUNS)})["log"]
    assert separate["both_gpu_backends"] is False
    one_run = TWO_RUNS.replace("THEANO_FLAGS=device=cuda python check1.py\n", "")
    assert derive.derive({"log": _recorded(one_run)})["log"]["both_gpu_backends"] is True
    # A record saved before runs were recorded reads as one run, as it did.
    old = _recorded(TWO_RUNS)
    del old["runs"]
    assert derive.derive({"log": old})["log"]["both_gpu_backends"] is True


# The two lines of https://github.com/keras-team/keras/issues/3043 (driver 367.27, CUDA 8.0 RC).
KERAS_3043 = ("modprobe: ERROR: could not insert 'nvidia_361_uvm': Invalid argument\n"
              "WARNING (theano.sandbox.cuda): CUDA is installed, but device gpu is not available  "
              "(error: Unable to get the number of gpus available: unknown error)\n")


def test_the_runtime_error_the_old_backend_quotes_is_read_from_the_log() -> None:
    log = _scanned(KERAS_3043)
    assert "cuda-uvm-module-load-failed" in log["ids"]
    assert derive.log_cuda_runtime_error({"log": log}) == "unknown error"
    assert derive.derive({"log": log})["log"]["cuda_runtime_error"] == "unknown error"
    # Theano 0.8/0.9's device=gpu forms, and initCnmem's, carry it too.
    for line in ("RuntimeError: Not able to get number of GPUs (unknown error).",
                 "RuntimeError: ('Unable to set device 0: unknown error', 'You asked to force this device and it failed.')",
                 "initCnmem: 'cudaGetDeviceCount' failed! Reason=unknown error"):
        assert derive.log_cuda_runtime_error({"log": _scanned(line)}) == "unknown error", line
    assert derive.log_cuda_runtime_error({"log": _scanned("Using gpu device 0: GeForce GTX 1080")}) is None
    assert derive.log_cuda_runtime_error({}) is None


def test_the_runtime_error_text_is_cleaned_and_a_split_insufficient_stays_insufficient() -> None:
    quoted = {"log": {"ids": ["theano-cuda-runtime-call-failed"], "matches": [
        {"id": "theano-cuda-runtime-call-failed", "line": 1, "text": "x", "groups": {"cuda_error": "'unknown  error'"}}]}}
    assert derive.log_cuda_runtime_error(quoted) == "unknown error"
    split = _scanned("Unable to get the number of gpus available: CUDA driver version is insufficient for\n"
                     "CUDA runtime version\n")
    facts = {"cuda": {"nvcc": {"version": "8.0"}}, "gpu": {"driver_version": "361.42"}, "log": split}
    assert derive.nvcc_facts(facts, "linux", None)["driver_ok"] is False


def test_a_runtime_past_its_driver_check_leaves_the_driver_table_undecided() -> None:
    # The table says 8.0 needs 367.48 (GA1); this runtime answered "unknown error", which it
    # cannot do on a driver it finds too old: no claim either way. (An older branch's driver,
    # so that the table alone would claim.)
    facts = {"cuda": {"nvcc": {"version": "8.0"}}, "gpu": {"driver_version": "361.42"}}
    assert derive.nvcc_facts(facts, "linux", None)["driver_ok"] is False
    past = dict(facts, log=_scanned(KERAS_3043))
    assert "driver_ok" not in derive.nvcc_facts(past, "linux", None)
    too_old = dict(facts, log=_scanned("Unable to get the number of gpus available: "
                                       "CUDA driver version is insufficient for CUDA runtime version"))
    assert derive.nvcc_facts(too_old, "linux", None)["driver_ok"] is False
