"""One answer to "would Theano run on the GPU here": check's derived facts, its rules, and
theanorc --write all take it from legacydoc.readiness."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from conftest import REPO
from legacydoc import facts, readiness
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules
from legacydoc.theanorc import effective_config
from legacydoc.theanorc.writer import generate

HEALTHY = REPO / "fixtures" / "healthy-linux-gtx1080ti-cuda102" / "facts.toml"
RULES = load_rules()


def _healthy() -> dict:
    return facts.load(HEALTHY)


def test_the_healthy_machine_runs_on_the_gpu_everywhere() -> None:
    record = _healthy()
    result = run_check(record, RULES)
    assert result.facts["derived"]["theano"]["runs_on"] == "gpu"
    lines = {line.name: line.value for line in generate(record, effective_config(record)).lines}
    assert lines["device"] == "cuda"


def _two_gpus(record: dict, device: str, visible: str | None = None) -> dict:
    record = copy.deepcopy(record)
    record["gpu"]["count"] = 2
    record["gpu"]["devices"].append(dict(record["gpu"]["devices"][0], index=1, pci_bus_id="00000000:02:00.0"))
    record["theano_config"]["flags"] = {"THEANO_FLAGS": "device=" + device}
    if visible is not None:
        record["env"]["variables"]["CUDA_VISIBLE_DEVICES"] = visible
    return record


def test_on_two_gpus_plain_cuda_is_an_information_and_the_written_config_says_how_to_spread() -> None:
    """device=cuda sends every process to the first GPU that accepts it (LD217, information:
    one process alone is not harmed); theanorc --write keeps plain cuda, right in
    exclusive-process mode, and its reason says how to name another GPU."""
    unpinned = _two_gpus(_healthy(), "cuda")
    fired = {d.id: d for d in run_check(unpinned, RULES).every()}
    assert "LD217" in fired and fired["LD217"].severity == "info" and "2 GPUs are visible" in fired["LD217"].title
    device = generate(unpinned, effective_config(unpinned)).lines[0]
    assert device.value == "cuda" and "device=cuda1" in device.why
    pinned = _two_gpus(_healthy(), "cuda0")
    assert "LD217" not in {d.id for d in run_check(pinned, RULES).every()}
    # one GPU made visible to the process: already pinned
    one_visible = _two_gpus(_healthy(), "cuda", visible="1")
    assert "LD217" not in {d.id for d in run_check(one_visible, RULES).every()}
    assert "device=cuda1" not in generate(one_visible, effective_config(one_visible)).lines[0].why
    # Theano 1.0 refuses device=gpu altogether (LD516): nothing is said about which GPU it takes
    refused = _two_gpus(_healthy(), "gpu")
    ids = {d.id for d in run_check(refused, RULES).every()}
    assert "LD516" in ids and "LD217" not in ids


def _in_modes(record: dict, *modes: str, mps: bool = False) -> dict:
    """The GPUs' compute modes as nvidia-smi's table shows them, on a Linux box whose MPS
    pipe folder was looked for (and found where ``mps``)."""
    for device, mode in zip(record["gpu"]["devices"], modes):
        device["compute_mode"] = mode
    record["system"]["os"] = "linux"
    record["gpu"].update(mps_pipe_dir="/tmp/nvidia-mps", mps_pipe_dir_exists=mps, mps_server_listed=False)
    return record


def test_the_compute_modes_nvidia_smi_shows_decide_whether_plain_cuda_piles_up() -> None:
    # both GPUs in exclusive-process mode: the next process moves on, plain cuda is right
    exclusive = _in_modes(_two_gpus(_healthy(), "cuda"), "exclusive_process", "exclusive_process")
    result = run_check(exclusive, RULES)
    assert result.facts["derived"]["gpu"]["compute_modes"] == ["exclusive_process", "exclusive_process"]
    assert "LD217" not in {d.id for d in result.every()}
    why = generate(exclusive, effective_config(exclusive)).lines[0].why
    assert "exclusive compute mode" in why and "device=cuda1" not in why
    # the default mode shown: the information names it
    shared = _in_modes(_two_gpus(_healthy(), "cuda"), "default", "default")
    fired = {d.id: d for d in run_check(shared, RULES).every()}
    assert "compute modes: default, default" in fired["LD217"].why.replace("\n", " ")
    shared_why = generate(shared, effective_config(shared)).lines[0].why
    assert "device=cuda1" in shared_why and "unless" not in shared_why  # the mode is known
    # one exclusive, one default: the default one takes every process once the other is held
    mixed = _in_modes(_two_gpus(_healthy(), "cuda"), "default", "exclusive_process")
    assert "LD217" in {d.id for d in run_check(mixed, RULES).every()}
    assert "device=cuda1" in generate(mixed, effective_config(mixed)).lines[0].why
    # both exclusive, but an MPS daemon's pipe folder is there: its clients share one GPU
    mps = _in_modes(_two_gpus(_healthy(), "cuda"), "exclusive_process", "exclusive_process", mps=True)
    assert "LD217" in {d.id for d in run_check(mps, RULES).every()}
    # no pipe folder where this shell looks, but an MPS process runs (its pipes are elsewhere)
    elsewhere = _in_modes(_two_gpus(_healthy(), "cuda"), "exclusive_process", "exclusive_process")
    elsewhere["gpu"]["mps_process_running"] = True
    assert "LD217" in {d.id for d in run_check(elsewhere, RULES).every()}
    elsewhere["gpu"]["mps_process_running"] = False  # none seen: the folder decides, as before
    assert "LD217" not in {d.id for d in run_check(elsewhere, RULES).every()}
    # the MPS folder never looked for (an older record): not claimed either
    unlooked = _in_modes(_two_gpus(_healthy(), "cuda"), "exclusive_process", "exclusive_process")
    del unlooked["gpu"]["mps_pipe_dir_exists"]
    assert "LD217" in {d.id for d in run_check(unlooked, RULES).every()}
    # a prohibited GPU takes no process: the one exclusive GPU left decides
    prohibited = _in_modes(_two_gpus(_healthy(), "cuda"), "prohibited", "exclusive_thread")
    assert "LD217" not in {d.id for d in run_check(prohibited, RULES).every()}
    # every GPU prohibited: no context anywhere (LD220), and the written config stays on the CPU
    closed = _in_modes(_two_gpus(_healthy(), "cuda"), "prohibited", "prohibited")
    result = run_check(closed, RULES)
    assert "LD220" in {d.id for d in result.every()} and "LD217" not in {d.id for d in result.every()}
    assert result.facts["derived"]["theano"]["runs_on"] == "cpu"
    assert generate(closed, effective_config(closed)).lines[0].value == "cpu"
    # a GPU counted but not listed: its mode is not known, nothing is claimed
    partial = _in_modes(_two_gpus(_healthy(), "cuda"), "exclusive_process", "exclusive_process")
    partial["gpu"]["count"] = 3
    assert "compute_modes" not in run_check(partial, RULES).facts["derived"].get("gpu", {})


def test_a_failed_import_of_an_installed_pygpu_fires_ld135_and_keeps_both_on_the_cpu() -> None:
    record = copy.deepcopy(_healthy())
    assert record["packages"]["pygpu"]["version"]  # installed
    record["packages"]["import_check"] = {"pygpu": {"ok": False, "error": "ImportError: libgpuarray.so.3: cannot open"}}
    result = run_check(record, RULES)
    fired = {d.id: d for d in result.every()}
    assert "LD135" in fired and "LD115" not in fired  # installed but not importable, not missing
    assert "import pygpu failed: ImportError: libgpuarray.so.3" in fired["LD135"].title
    assert result.facts["derived"]["theano"]["runs_on"] == "cpu"
    assert "would run on the CPU" in result.runs_on()
    generated = generate(record, effective_config(record))
    device = generated.lines[0]
    assert device.name == "device" and device.value == "cpu"
    assert "import pygpu failed" in device.why


def test_nothing_is_claimed_about_what_was_not_recorded() -> None:
    record = {"theano_config": {"flags": {"THEANO_FLAGS": "device=cuda"}, "files": []}}
    decision = readiness.gpu_decision(record, "cuda", "1.0.5")
    assert decision.runs_on == "unknown" and decision.reasons == []
    assert set(decision.unknown) == {
        "whether a working NVIDIA GPU is there", "whether pygpu is installed", "whether a C++ compiler is there"}
    assert readiness.pygpu_status(record) == (None, "the target's packages were not read")


@pytest.mark.parametrize("version, nvcc, runs_on, says", [
    (None, True, "unknown", "whether this Theano release still has the old backend"),
    ("0.9.0", None, "unknown", "whether nvcc is there (the old backend compiles with it)"),
    ("0.9.0", False, "cpu", "the old backend compiles with nvcc, which was not found"),
    ("1.0.5", True, "cpu", "device=gpu is the old backend, removed in Theano 0.10 and 1.0"),
    ("0.9.0", True, "gpu", None),
])
def test_the_old_backend_runs_on_the_gpu_only_with_its_release_and_nvcc_known(version, nvcc, runs_on, says) -> None:
    record: dict = {"gpu": {"nvidia_smi": {"found": True, "rc": 0}, "count": 1},
                    "compilers": {"gxx": {"found": True, "path": "/usr/bin/g++"}, "theano_cxx": "/usr/bin/g++"}}
    if nvcc is not None:
        record["cuda"] = {"nvcc": {"found": nvcc}}
    decision = readiness.gpu_decision(record, "gpu", version)
    assert decision.runs_on == runs_on, (decision.reasons, decision.unknown)
    if says:
        assert says in decision.reasons + decision.unknown


def test_backend_of_each_device_value() -> None:
    assert readiness.backend("gpu0") == "old"
    assert readiness.backend("cuda1") == "gpuarray" and readiness.backend("opencl0:0") == "gpuarray"
    assert readiness.backend("cpu") == "cpu" and readiness.backend(None) is None
    assert readiness.old_backend_removed("1.0.5") is True and readiness.old_backend_removed("0.9.0") is False


@pytest.mark.parametrize("fixture", sorted((REPO / "fixtures").glob("*/facts.toml")), ids=lambda p: p.parent.name)
def test_theanorc_write_and_check_agree_on_the_device(fixture: Path) -> None:
    """The config written never puts device = cuda where check says Theano runs on the CPU
    (seed-002: libgpuarray finds no NVRTC it asks for), and the reverse."""
    record = facts.load(fixture)
    runs_on = run_check(record, RULES).facts["derived"]["theano"]["runs_on"]
    device = generate(record, effective_config(record)).lines[0]
    assert device.name == "device"
    assert (device.value in ("cuda", "gpu")) == (runs_on == "gpu"), (device.value, runs_on)


@pytest.mark.parametrize("fixture", sorted((REPO / "fixtures").glob("*/facts.toml")), ids=lambda p: p.parent.name)
def test_the_blas_fix_is_what_theanorc_write_would_write(fixture: Path) -> None:
    """LD600 never proposes an ldflags the writer would not choose (one that cannot link)."""
    from legacydoc.theanorc.machine import blas_choice

    record = facts.load(fixture)
    flags, _why = blas_choice(record)
    fix = run_check(record, RULES).facts["derived"]["blas"].get("fix")
    if fix is not None:
        assert fix == ("[blas]\nldflags = %s" % flags if flags else fix)
        assert flags or (fix.startswith("Install a BLAS") and "-lopenblas" not in fix)


def _as_a_mac(record: dict, driver: bool) -> dict:
    """The healthy record moved to macOS as the probe records it there: no nvidia-smi at all,
    and the CUDA driver for macOS there or not."""
    mac = copy.deepcopy(record)
    mac["system"]["os"] = "darwin"
    mac["gpu"] = {"nvidia_smi": {"found": False, "searched": ["PATH"]}, "macos_cuda_driver": driver}
    return mac


def test_on_macos_nvidia_smi_absent_is_no_evidence_the_cuda_driver_is() -> None:
    without = _as_a_mac(_healthy(), driver=False)
    assert readiness.gpu_usable(without) is False
    assert readiness.gpu_failure_text(without) == "the CUDA driver for macOS is not installed"
    result = run_check(without, RULES)
    fired = {d.id for d in result.every()}
    assert "LD215" in fired and "LD200" not in fired
    assert {a.name: a.summary for a in result.areas}["gpu"].startswith("no CUDA driver for macOS")
    assert result.facts["derived"]["theano"]["runs_on"] == "cpu"
    assert generate(without, effective_config(without)).lines[0].value == "cpu"
    # The driver is there: nothing lists the GPUs on macOS, so whether one works is unknown,
    # and neither "no driver" rule may claim otherwise.
    present = _as_a_mac(_healthy(), driver=True)
    present["gpu"]["driver_cuda_api_version"] = "10.1"
    assert readiness.gpu_usable(present) is None
    checked = run_check(present, RULES)
    assert not {d.id for d in checked.every()} & {"LD200", "LD215"}
    assert {a.name: a.summary for a in checked.areas}["gpu"].startswith("CUDA driver for macOS (CUDA 10.1)")
    # Linux keeps its nvidia-smi answer
    linux = copy.deepcopy(without)
    linux["system"]["os"] = "linux"
    assert readiness.gpu_usable(linux) is False
    assert "LD200" in {d.id for d in run_check(linux, RULES).every()}
