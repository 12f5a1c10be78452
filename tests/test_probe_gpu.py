"""The gpu probe: nvidia-smi parsers on sample outputs (reconstructed: tests/data/nvidia-smi/README.md), then the real subprocess path
with fake nvidia-smi executables (failures, a hang, GBK bytes, old drivers, no tool)."""

from __future__ import annotations

import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from conftest import DATA, data_bytes, posix_only
from legacydoc import facts, structs
from legacydoc.probes import gpu
from legacydoc.probes.gpu import (
    QUERY_FIELDS,
    QUERY_FIELDS_NO_CC,
    devices_from_rows,
    find_nvidia_smi,
    parse_compute_modes,
    parse_header,
    parse_proc_version,
    parse_query_csv,
    rejects_compute_cap,
    summary_line,
)

SMI = "nvidia-smi/"
DATA_FILES = sorted(p.name for p in (DATA / "nvidia-smi").iterdir() if p.name != "README.md")
NVML_UNKNOWN = "Failed to initialize NVML: Unknown Error"


def text_of(name: str) -> str:
    """A sample as the runner would hand it to a parser (GBK files in their own codec)."""
    raw = data_bytes(SMI + name)
    codec = "gbk" if name.endswith("_gbk.txt") else "utf-8"
    return raw.decode(codec, errors="replace")


def full(driver: str, cuda: str) -> dict[str, str]:
    return {"driver_version": driver, "cuda_version": cuda, "smi_version": driver}


# Every sample file and what parse_header must find in it ({} = nothing).
HEADER_EXPECT: dict[str, dict[str, str]] = {
    "win10_gtx1660super_451.67_cuda11.0_plain.txt": full("451.67", "11.0"),
    "win10_zh_cn_451.67_plain_gbk.txt": full("451.67", "11.0"),
    "linux_535.183.01_4x_a100_cuda12.2_plain.txt": full("535.183.01", "12.2"),
    "linux_570.133.07_rtx4090_rtx3090_cuda12.8_plain.txt": full("570.133.07", "12.8"),
    "linux_570.133.07_plain_truncated.txt": full("570.133.07", "12.8"),
    "linux_470.182.03_2x_k80_cuda11.4_plain.txt": full("470.182.03", "11.4"),
    "linux_470.182.03_2x_k80_exclusive_process_plain.txt": full("470.182.03", "11.4"),
    "linux_470.182.03_inforom_corrupted_rc14_plain.txt": full("470.182.03", "11.4"),
    "linux_375.66_gtx1080_no_cuda_version_plain.txt": {"driver_version": "375.66", "smi_version": "375.66"},
    "linux_340.108_gt730_no_cuda_version_plain.txt": {"driver_version": "340.108", "smi_version": "340.108"},
    "linux_450.66_q_excerpt.txt": {"driver_version": "450.66", "cuda_version": "11.0"},
    "linux_550.54.14_version_flag.txt": full("550.54.14", "12.4"),
    "win10_gtx1660super_451.67_query_compute_cap_invalid_rc2.txt": {},
    "win10_gtx1660super_451.67_query_no_compute_cap.csv": {},
    "win10_zh_cn_cmd_not_recognized_gbk.txt": {},
    "linux_535.183.01_4x_a100_query.csv": {},
    "linux_570.133.07_rtx4090_rtx3090_query.csv": {},
    "linux_570.133.07_query_truncated.csv": {},
    "linux_470.182.03_query_compute_cap_invalid_rc2.txt": {},
    "linux_470.182.03_2x_k80_query_no_compute_cap.csv": {},
    "linux_375.66_gtx1080_query_no_compute_cap.csv": {},
    "linux_580.95.05_gb10_query_memory_na.csv": {},
    "nvml_unknown_error_rc255.txt": {},
    "nvml_driver_library_mismatch_rc18.txt": {},  # "NVML library version: 535.183" is not the driver
    "driver_not_loaded_rc9.txt": {},
    "no_devices_found_rc6.txt": {},
    "libnvidia_ml_not_found_rc12.txt": {},
    "empty.txt": {},
    "garbage_binary.bin": {},
    "proc_driver_nvidia_version_535.183.01.txt": {},
    "proc_driver_nvidia_version_open_570.133.07.txt": {},
}


def a100(index: int, bus: str) -> dict[str, Any]:
    return {"index": index, "name": "NVIDIA A100-SXM4-80GB", "memory_total_mib": 81920,
            "compute_capability": "8.0", "pci_bus_id": "00000000:%s:00.0" % bus}


RTX4090 = {"index": 0, "name": "NVIDIA GeForce RTX 4090", "memory_total_mib": 24564,
           "compute_capability": "8.9", "pci_bus_id": "00000000:01:00.0"}
RTX3090 = {"index": 1, "name": "NVIDIA GeForce RTX 3090", "memory_total_mib": 24576,
           "compute_capability": "8.6", "pci_bus_id": "00000000:21:00.0"}
GTX1660S = {"index": 0, "name": "GeForce GTX 1660 SUPER", "memory_total_mib": 6144, "pci_bus_id": "00000000:01:00.0"}
K80 = [{"index": i, "name": "Tesla K80", "memory_total_mib": 11441, "pci_bus_id": "00000000:0%d:00.0" % (4 + i)}
       for i in (0, 1)]


def in_default_mode(devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The devices as the probe records them when plain nvidia-smi's table shows each GPU
    in the Default compute mode, as every sample here does."""
    return [{**device, "compute_mode": "default"} for device in devices]

# Query samples: (fields they were produced with, driver_version per row, devices).
QUERY_EXPECT: dict[str, tuple[tuple[str, ...], list[str], list[dict[str, Any]]]] = {
    "win10_gtx1660super_451.67_query_no_compute_cap.csv": (QUERY_FIELDS_NO_CC, ["451.67"], [GTX1660S]),
    "linux_535.183.01_4x_a100_query.csv": (
        QUERY_FIELDS, ["535.183.01"] * 4, [a100(0, "07"), a100(1, "0F"), a100(2, "47"), a100(3, "4E")]),
    "linux_570.133.07_rtx4090_rtx3090_query.csv": (QUERY_FIELDS, ["570.133.07"] * 2, [RTX4090, RTX3090]),
    "linux_570.133.07_query_truncated.csv": (QUERY_FIELDS, ["570.133.07"], [RTX4090]),
    "linux_470.182.03_2x_k80_query_no_compute_cap.csv": (QUERY_FIELDS_NO_CC, ["470.182.03"] * 2, K80),
    "linux_375.66_gtx1080_query_no_compute_cap.csv": (
        QUERY_FIELDS_NO_CC, ["375.66"],
        [{"index": 0, "name": "GeForce GTX 1080", "memory_total_mib": 8113, "pci_bus_id": "0000:01:00.0"}]),
    "linux_580.95.05_gb10_query_memory_na.csv": (
        QUERY_FIELDS, ["580.95.05"],
        [{"index": 0, "name": "NVIDIA GB10", "compute_capability": "12.1", "pci_bus_id": "0000000F:01:00.0"}]),
}


# --- the sample outputs -------------------------------------------------------------------


def test_every_sample_file_has_an_expectation() -> None:
    assert set(DATA_FILES) == set(HEADER_EXPECT)
    assert set(QUERY_EXPECT) <= set(DATA_FILES)
    assert {name for name in DATA_FILES if "_plain" in name} <= set(MODES_EXPECT)


@pytest.mark.parametrize("name", sorted(HEADER_EXPECT))
def test_parse_header_on_sample_output(name: str) -> None:
    assert parse_header(text_of(name)) == HEADER_EXPECT[name]


@pytest.mark.parametrize("name", sorted(QUERY_EXPECT))
def test_parse_query_csv_on_sample_output(name: str) -> None:
    fields, drivers, devices = QUERY_EXPECT[name]
    rows = parse_query_csv(text_of(name), fields)
    assert [r.get("driver_version") for r in rows] == drivers
    assert devices_from_rows(rows) == devices


@pytest.mark.parametrize("name", sorted(set(HEADER_EXPECT) - set(QUERY_EXPECT)))
def test_non_query_samples_give_no_rows(name: str) -> None:
    assert parse_query_csv(text_of(name), QUERY_FIELDS) == []
    assert parse_query_csv(text_of(name), QUERY_FIELDS_NO_CC) == []


@pytest.mark.parametrize("name", DATA_FILES)
def test_parsers_never_raise_on_any_decoding(name: str) -> None:
    raw = data_bytes(SMI + name)
    for text in (raw, raw.decode("utf-8", "replace"), raw.decode("latin-1"), raw.decode("gbk", "replace")):
        assert isinstance(parse_header(text), dict)
        assert isinstance(parse_query_csv(text, QUERY_FIELDS), list)
        assert isinstance(parse_proc_version(text), dict)
        assert isinstance(rejects_compute_cap(text), bool)
        assert isinstance(parse_compute_modes(text), dict)


def test_gbk_box_header_survives_wrong_decoding() -> None:
    """Decoded as UTF-8 with replacement (no GBK locale), the ASCII header still parses."""
    raw = data_bytes(SMI + "win10_zh_cn_451.67_plain_gbk.txt")
    assert parse_header(raw.decode("utf-8", "replace")) == full("451.67", "11.0")


def test_compute_cap_rejection_is_recognised() -> None:
    assert rejects_compute_cap(text_of("linux_470.182.03_query_compute_cap_invalid_rc2.txt"))
    assert rejects_compute_cap(text_of("win10_gtx1660super_451.67_query_compute_cap_invalid_rc2.txt"))
    assert not rejects_compute_cap('Field "id" is not a valid field to query.')
    assert not rejects_compute_cap(text_of("nvml_unknown_error_rc255.txt"))


@pytest.mark.parametrize(
    "name, version",
    [("proc_driver_nvidia_version_535.183.01.txt", "535.183.01"),
     ("proc_driver_nvidia_version_open_570.133.07.txt", "570.133.07")],
)
def test_parse_proc_version(name: str, version: str) -> None:
    assert parse_proc_version(text_of(name)) == {"driver_version": version}


# --- parser edge cases -----------------------------------------------------------------------


def test_header_line_formats_of_every_era() -> None:
    assert parse_header("| NVIDIA-SMI 340.108    Driver Version: 340.108        |") == {
        "driver_version": "340.108", "smi_version": "340.108"}
    assert parse_header("| NVIDIA-SMI 410.79       Driver Version: 410.79       CUDA Version: 10.0     |") == full(
        "410.79", "10.0")
    assert parse_header("Driver Version                            : 450.66\r\n"
                        "CUDA Version                              : 11.0\r\n") == {
        "driver_version": "450.66", "cuda_version": "11.0"}


def test_header_ignores_na_cuda_and_failure_prose() -> None:
    assert parse_header("| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: N/A |") == {
        "driver_version": "535.54.03", "smi_version": "535.54.03"}
    assert parse_header("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.") == {}
    assert parse_header("Failed to initialize NVML: Driver/library version mismatch") == {}


@pytest.mark.parametrize("junk", [None, 42, [], {}, "", "\x00\x00", "Driver Version:", "CUDA Version: 1234.5",
                                  "Driver Version: 535.1834"])
def test_header_junk_gives_nothing(junk: Any) -> None:
    assert parse_header(junk) == {}
    assert parse_compute_modes(junk) == {}


def test_query_csv_placeholders_blank_lines_and_crlf() -> None:
    text = "\r\n0, Tesla K20m, [Not Supported], 418.67, [N/A], 00000000:03:00.0\r\n\r\n"
    assert parse_query_csv(text, QUERY_FIELDS) == [
        {"index": "0", "name": "Tesla K20m", "driver_version": "418.67", "pci.bus_id": "00000000:03:00.0"}]


def test_query_csv_comma_in_name_is_rejoined() -> None:
    rows = parse_query_csv("0, Board, Rev 2, 4096, 535.54.03, 7.5, 00000000:01:00.0", QUERY_FIELDS)
    assert rows == [{"index": "0", "name": "Board, Rev 2", "memory.total": "4096", "driver_version": "535.54.03",
                     "compute_cap": "7.5", "pci.bus_id": "00000000:01:00.0"}]


@pytest.mark.parametrize("text, fields", [
    ("a, b, c, d, e, f", QUERY_FIELDS),  # right width but index is not a number
    ("0, 1, 2", QUERY_FIELDS),  # too few columns
    ("0, x", "index,name"),  # fields as one string is not a field list
    ("0, x", None),
    ("0, x", [1, 2]),
    (None, QUERY_FIELDS),
    (b"\xff\xfe,,,,,", QUERY_FIELDS),
])
def test_query_csv_rejects_non_rows(text: Any, fields: Any) -> None:
    assert parse_query_csv(text, fields) == []


def test_devices_drop_values_that_do_not_fit_their_field() -> None:
    rows = [{"index": "1", "name": "X", "memory.total": "16GB", "compute_cap": "8.", "pci.bus_id": "00000000:21:0"}]
    assert devices_from_rows(rows) == [{"index": 1, "name": "X"}]


def test_parsers_keep_their_shape_on_random_input() -> None:
    rng = random.Random(1234)
    alphabet = "0123456789.,:|[]NA/ \n\r\tDriverVsionCUDA-SMI"
    version = re.compile(r"^[0-9]+(\.[0-9]+)*$")
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        header = parse_header(text)
        assert set(header) <= {"driver_version", "cuda_version", "smi_version"}, header
        assert all(version.match(v) for v in header.values()), header
        for row in parse_query_csv(text, QUERY_FIELDS):
            assert set(row) <= set(QUERY_FIELDS), row
        parse_proc_version(text)
        devices_from_rows(parse_query_csv(text, QUERY_FIELDS))
        assert set(parse_compute_modes(text).values()) <= set(gpu.COMPUTE_MODES.values())


# --- finding nvidia-smi ----------------------------------------------------------------------


def windows_ctx(ctx_factory: Any, tmp_path: Path, env: dict[str, str]) -> Any:
    empty = tmp_path / "emptybin"
    empty.mkdir(exist_ok=True)
    ctx = ctx_factory(env=dict(env, PATH=str(empty)))
    return structs.replace(ctx, platform="win32")


SYS32 = "D:\\WINNT\\System32\\nvidia-smi.exe"
NVSMI = "C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe"


def test_windows_falls_back_to_system32_then_nvsmi(ctx_factory: Any, tmp_path: Path) -> None:
    ctx = windows_ctx(ctx_factory, tmp_path, {"SystemRoot": "D:\\WINNT", "ProgramW6432": "C:\\Program Files",
                                              "ProgramFiles": "C:\\Program Files (x86)"})
    assert find_nvidia_smi(ctx, isfile=lambda p: p == SYS32) == (SYS32, ["PATH", SYS32])
    assert find_nvidia_smi(ctx, isfile=lambda p: p == NVSMI) == (NVSMI, ["PATH", SYS32, NVSMI])
    assert find_nvidia_smi(ctx, isfile=lambda p: False) == (None, ["PATH", SYS32, NVSMI])


def test_windows_without_programw6432_uses_programfiles(ctx_factory: Any, tmp_path: Path) -> None:
    ctx = windows_ctx(ctx_factory, tmp_path, {"ProgramFiles": "E:\\Apps"})
    path, searched = find_nvidia_smi(ctx, isfile=lambda p: False)
    assert path is None
    assert searched == ["PATH", "C:\\Windows\\System32\\nvidia-smi.exe",
                        "E:\\Apps\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe"]


def test_windows_isfile_errors_are_not_fatal(ctx_factory: Any, tmp_path: Path) -> None:
    def broken(path: str) -> bool:
        raise OSError("access denied")

    ctx = windows_ctx(ctx_factory, tmp_path, {})
    assert find_nvidia_smi(ctx, isfile=broken)[0] is None


# --- the real subprocess path ----------------------------------------------------------------


@pytest.fixture(autouse=True)
def no_real_proc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Never read this machine's /proc/driver/nvidia: point the probe at a test path."""
    target = tmp_path / "proc-driver-nvidia-version"
    monkeypatch.setattr(gpu, "PROC_DRIVER_VERSION", str(target))
    monkeypatch.setattr(gpu, "PROC_MODULES", str(tmp_path / "proc-modules"))
    monkeypatch.setattr(gpu, "UVM_DEVICE_NODE", str(tmp_path / "dev-nvidia-uvm"))
    monkeypatch.setattr(gpu, "MPS_PIPE_DIR_DEFAULT", str(tmp_path / "nvidia-mps"))
    monkeypatch.setattr(gpu, "PROC_ROOT", str(tmp_path / "proc"))
    monkeypatch.setattr(gpu, "MACOS_CUDA_DRIVER", str(tmp_path / "CUDA.framework" / "CUDA"))
    return target


def linux_ctx(ctx_factory: Any, fake_tools: Any, **kwargs: Any) -> Any:
    # Only the fake bin dir and /usr/bin:/bin (for sh, cat, sleep); force the Linux view.
    return structs.replace(ctx_factory(path_dirs=[fake_tools.bindir], **kwargs), platform="linux")


def toml_roundtrip(table: dict[str, Any]) -> dict[str, Any]:
    """The table must be storable as TOML and come back unchanged."""
    text = tomli_w.dumps({"gpu": table})
    return facts.loads("schema = 1\n" + text)["gpu"]


def argvs(ctx: Any) -> list[list[str]]:
    return [r.argv[1:] for r in ctx.log.results]


QUERY_ARGS = ["--query-gpu=index,name,memory.total,driver_version,compute_cap,pci.bus_id",
              "--format=csv,noheader,nounits"]
QUERY_ARGS_NO_CC = ["--query-gpu=index,name,memory.total,driver_version,pci.bus_id", "--format=csv,noheader,nounits"]


@posix_only
def test_nvml_unknown_error_recorded_exactly(ctx_factory: Any, fake_tools: Any) -> None:
    tool = fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "nvml_unknown_error_rc255.txt"), rc=255)
    ctx = linux_ctx(ctx_factory, fake_tools)
    table = gpu.collect(ctx)
    smi = table["nvidia_smi"]
    assert smi["found"] is True
    assert smi["path"] == str(tool)
    assert smi["searched"] == ["PATH"]
    assert smi["rc"] == 255
    assert smi["output"] == NVML_UNKNOWN
    assert smi["timed_out"] is False
    assert smi["query"]["rc"] == 255 and smi["query"]["output"] == NVML_UNKNOWN
    assert smi["query"]["argv"] == [str(tool)] + QUERY_ARGS
    assert smi["plain"]["rc"] == 255
    assert "query_retry" not in smi
    for key in ("devices", "count", "driver_version", "driver_cuda_version", "proc_driver_version"):
        assert key not in table
    assert argvs(ctx) == [QUERY_ARGS, []]
    assert toml_roundtrip(table) == table
    assert summary_line(table) == "nvidia-smi rc 255: " + NVML_UNKNOWN


@posix_only
def test_hanging_nvidia_smi_is_killed_and_not_run_again(ctx_factory: Any, fake_tools: Any) -> None:
    fake_tools.add("nvidia-smi", stdout="never printed", sleep=1000)
    ctx = linux_ctx(ctx_factory, fake_tools, timeout=2.0)
    started = time.monotonic()
    table = gpu.collect(ctx)
    elapsed = time.monotonic() - started
    assert elapsed < 3.0
    smi = table["nvidia_smi"]
    assert smi["timed_out"] is True
    assert smi["query"]["timed_out"] is True
    assert "rc" not in smi and "rc" not in smi["query"]
    assert "plain" not in smi and "query_retry" not in smi
    assert smi["plain_skipped"] == "an earlier nvidia-smi command timed out"
    assert len(ctx.log.results) == 1
    assert toml_roundtrip(table) == table
    assert summary_line(table) == "nvidia-smi timed out"


@posix_only
def test_gbk_bytes_do_not_crash_and_store_as_toml(ctx_factory: Any, fake_tools: Any) -> None:
    gbk = data_bytes(SMI + "win10_zh_cn_451.67_plain_gbk.txt")
    fake_tools.add("nvidia-smi", stdout=gbk, rc=0, by_args={
        "compute_cap": (data_bytes(SMI + "win10_gtx1660super_451.67_query_compute_cap_invalid_rc2.txt"), 2),
        "--query-gpu": (data_bytes(SMI + "win10_gtx1660super_451.67_query_no_compute_cap.csv"), 0),
    })
    # Without a GBK locale the runner falls back to replacement characters...
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["driver_version"] == "451.67"
    assert table["driver_cuda_version"] == "11.0"
    assert table["devices"] == in_default_mode([GTX1660S])
    assert toml_roundtrip(table) == table
    # ...and with it (--encoding gbk, a Chinese Windows locale) the process names read right.
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools, encodings=("gbk",)))
    assert table["nvidia_smi"]["plain"]["encoding"] == "gbk"
    assert "D:\\深度学习\\python.exe" in table["nvidia_smi"]["plain"]["output"]
    assert toml_roundtrip(table) == table


@posix_only
def test_gbk_error_text_as_the_only_output(ctx_factory: Any, fake_tools: Any) -> None:
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "win10_zh_cn_cmd_not_recognized_gbk.txt"), rc=1)
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools, encodings=("gbk",)))
    assert table["nvidia_smi"]["rc"] == 1
    assert table["nvidia_smi"]["output"] == "'nvidia-smi' 不是内部或外部命令，也不是可运行的程序\n或批处理文件。"
    assert toml_roundtrip(table) == table


@posix_only
def test_old_driver_retries_without_compute_cap(ctx_factory: Any, fake_tools: Any) -> None:
    rejected = data_bytes(SMI + "linux_470.182.03_query_compute_cap_invalid_rc2.txt")
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_470.182.03_2x_k80_cuda11.4_plain.txt"), by_args={
        "compute_cap": (rejected, 2),
        "--query-gpu": (data_bytes(SMI + "linux_470.182.03_2x_k80_query_no_compute_cap.csv"), 0),
    })
    ctx = linux_ctx(ctx_factory, fake_tools)
    table = gpu.collect(ctx)
    smi = table["nvidia_smi"]
    assert argvs(ctx) == [QUERY_ARGS, QUERY_ARGS_NO_CC, []]
    assert smi["query"]["rc"] == 2
    assert smi["query"]["output"] == 'Field "compute_cap" is not a valid field to query.'
    assert smi["query_retry"]["rc"] == 0
    assert smi["rc"] == 0  # the query that stands is the retry
    assert smi["output"] == ("0, Tesla K80, 11441, 470.182.03, 00000000:04:00.0\n"
                             "1, Tesla K80, 11441, 470.182.03, 00000000:05:00.0")
    assert table["count"] == 2
    assert table["devices"] == in_default_mode(K80)
    assert table["driver_version"] == "470.182.03"
    assert table["driver_cuda_version"] == "11.4"
    assert smi["smi_version"] == "470.182.03"
    assert toml_roundtrip(table) == table
    assert summary_line(table) == "NVIDIA driver 470.182.03 (CUDA 11.4), 2 GPUs: 2x Tesla K80 11441 MiB"


# Each plain sample's compute modes, by the GPU's index: the table's second line per GPU.
MODES_EXPECT: dict[str, dict[int, str]] = {
    "linux_340.108_gt730_no_cuda_version_plain.txt": {0: "default"},
    "linux_375.66_gtx1080_no_cuda_version_plain.txt": {0: "default"},
    "linux_470.182.03_2x_k80_cuda11.4_plain.txt": {0: "default", 1: "default"},
    "linux_470.182.03_2x_k80_exclusive_process_plain.txt": {0: "exclusive_process", 1: "exclusive_process"},
    "linux_470.182.03_inforom_corrupted_rc14_plain.txt": {0: "default", 1: "default"},
    "linux_535.183.01_4x_a100_cuda12.2_plain.txt": {0: "default", 1: "default", 2: "default", 3: "default"},
    # cut off inside the second GPU's block: its mode is not claimed
    "linux_570.133.07_plain_truncated.txt": {0: "default"},
    "linux_570.133.07_rtx4090_rtx3090_cuda12.8_plain.txt": {0: "default", 1: "default"},
    "win10_gtx1660super_451.67_cuda11.0_plain.txt": {0: "default"},
    "win10_zh_cn_451.67_plain_gbk.txt": {0: "default"},
    # no table at all
    "linux_450.66_q_excerpt.txt": {},
    "driver_not_loaded_rc9.txt": {},
    "garbage_binary.bin": {},
}


@pytest.mark.parametrize("name", sorted(MODES_EXPECT))
def test_compute_modes_from_the_plain_table(name: str) -> None:
    assert parse_compute_modes(data_bytes(SMI + name)) == MODES_EXPECT[name]


def test_each_gpu_gets_its_own_mode_and_mig_leaves_it_unread() -> None:
    def block(index: int, bus: str, mode: str, mig: str = "") -> str:
        lines = ["|   %d  Tesla V100-SXM2...  Off  | 00000000:%s:00.0 Off |                    0 |" % (index, bus),
                 "| N/A   34C    P0    40W / 300W |      0MiB / 16160MiB |      0%%  %11s |" % mode]
        if mig:
            lines.append("|                               |                      |  %19s |" % mig)
        return "\n".join(lines + ["+-------------------------------+----------------------+----------------------+"])

    box = "\n".join([block(0, "15", "Default"), block(1, "16", "E. Process"), block(2, "3A", "Prohibited"),
                     block(3, "3B", "E. Thread")])
    assert parse_compute_modes(box) == {0: "default", 1: "exclusive_process", 2: "prohibited",
                                        3: "exclusive_thread"}
    assert parse_compute_modes(box.encode("utf-16")) == {}  # not a box nvidia-smi prints: unread, no error
    migs = "\n".join([block(0, "07", "Default", "Enabled"), block(1, "0F", "Default", "Disabled")])
    assert parse_compute_modes(migs) == {1: "default"}


def test_a_mode_line_without_its_gpu_line_or_an_unknown_mode_is_not_read() -> None:
    gpu_line = "|   0  Tesla K80           Off  | 00000000:04:00.0 Off |                    0 |"
    mode_line = "| N/A   34C    P8    26W / 149W |      0MiB / 11441MiB |      0%      {} |"
    assert parse_compute_modes(gpu_line + "\n" + mode_line.format("Default")) == {0: "default"}
    assert parse_compute_modes(mode_line.format("Default")) == {}
    assert parse_compute_modes(gpu_line + "\n" + mode_line.format("Shared")) == {}
    # a line between them: not the GPU's own mode line
    assert parse_compute_modes(gpu_line + "\n|  |\n" + mode_line.format("Default")) == {}


@posix_only
def test_a_mode_is_given_to_the_gpu_of_its_index_only(ctx_factory: Any, fake_tools: Any) -> None:
    # the query lists GPUs 0 and 1, the box (cut after its first GPU) shows GPU 0's mode only
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_570.133.07_plain_truncated.txt"), by_args={
        "--query-gpu": (data_bytes(SMI + "linux_570.133.07_rtx4090_rtx3090_query.csv"), 0)})
    devices = gpu.collect(linux_ctx(ctx_factory, fake_tools))["devices"]
    assert [d.get("compute_mode") for d in devices] == ["default", None]


@posix_only
def test_exclusive_process_mode_is_recorded_per_gpu(ctx_factory: Any, fake_tools: Any) -> None:
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_470.182.03_2x_k80_exclusive_process_plain.txt"),
                   by_args={"compute_cap": (data_bytes(SMI + "linux_470.182.03_query_compute_cap_invalid_rc2.txt"), 2),
                            "--query-gpu": (data_bytes(SMI + "linux_470.182.03_2x_k80_query_no_compute_cap.csv"), 0)})
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["devices"] == [{**device, "compute_mode": "exclusive_process"} for device in K80]
    assert toml_roundtrip(table) == table


@posix_only
def test_an_mps_daemon_is_seen_by_its_pipe_folder_or_its_server(ctx_factory: Any, fake_tools: Any,
                                                                tmp_path: Path) -> None:
    plain = data_bytes(SMI + "linux_470.182.03_2x_k80_exclusive_process_plain.txt")
    fake_tools.add("nvidia-smi", stdout=plain, by_args={
        "compute_cap": (data_bytes(SMI + "linux_470.182.03_query_compute_cap_invalid_rc2.txt"), 2),
        "--query-gpu": (data_bytes(SMI + "linux_470.182.03_2x_k80_query_no_compute_cap.csv"), 0)})
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["mps_pipe_dir_exists"] is False and table["mps_server_listed"] is False
    # the daemon's default folder there
    (tmp_path / "nvidia-mps").mkdir()
    assert gpu.collect(linux_ctx(ctx_factory, fake_tools))["mps_pipe_dir_exists"] is True
    # a folder of its own, named by the environment
    own = tmp_path / "job-mps"
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools, env={"CUDA_MPS_PIPE_DIRECTORY": str(own)}))
    assert table["mps_pipe_dir"] == str(own) and table["mps_pipe_dir_exists"] is False
    # the server in the process list
    serving = plain.replace(b"|  No running processes found", b"|    0   N/A  N/A     4242      C   nvidia-cuda-mps-server")
    fake_tools.add("nvidia-smi", stdout=serving, by_args={
        "compute_cap": (data_bytes(SMI + "linux_470.182.03_query_compute_cap_invalid_rc2.txt"), 2),
        "--query-gpu": (data_bytes(SMI + "linux_470.182.03_2x_k80_query_no_compute_cap.csv"), 0)})
    assert gpu.collect(linux_ctx(ctx_factory, fake_tools))["mps_server_listed"] is True


def fake_proc(root: Path, names: dict[str, str]) -> Path:
    """A /proc with one folder per process and its comm file; other entries as /proc has."""
    for pid, name in names.items():
        (root / pid).mkdir(parents=True)
        (root / pid / "comm").write_text(name + "\n")
    (root / "sys").mkdir(parents=True, exist_ok=True)
    (root / "uptime").write_text("1.0 1.0\n")
    return root


def test_an_mps_daemon_is_seen_in_the_process_list(tmp_path: Path) -> None:
    # comm keeps 15 characters: nvidia-cuda-mps-control reads as nvidia-cuda-mps
    proc = fake_proc(tmp_path / "proc", {"1": "systemd", "812": "python3", "4242": "nvidia-cuda-mps"})
    assert gpu.mps_process_running(str(proc)) is True
    quiet = fake_proc(tmp_path / "quiet", {"1": "systemd", "812": "python3", "900": "nvidia-persiste"})
    assert gpu.mps_process_running(str(quiet)) is False
    # more entries than it reads: the list was not read whole
    assert gpu.mps_process_running(str(quiet), limit=2) is None
    # hidepid: other users' processes (pid 1 among them) cannot be read; no /proc at all
    hidden = fake_proc(tmp_path / "hidden", {"812": "python3"})
    assert gpu.mps_process_running(str(hidden)) is None
    assert gpu.mps_process_running(str(tmp_path / "none")) is None


@pytest.mark.skipif(not os.access("/proc/1/comm", os.R_OK), reason="needs a Linux /proc that shows pid 1")
def test_this_machines_process_list_is_read_whole() -> None:
    # the real /proc, read to its end: an answer either way (a GPU host may well run MPS)
    assert gpu.mps_process_running("/proc") is not None
    # and a limit below the processes running (this one and pid 1 at least) is no answer
    assert gpu.mps_process_running("/proc", limit=1) is None


@posix_only
def test_the_probe_records_an_mps_process(ctx_factory: Any, fake_tools: Any, tmp_path: Path) -> None:
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_470.182.03_2x_k80_exclusive_process_plain.txt"), by_args={
        "compute_cap": (data_bytes(SMI + "linux_470.182.03_query_compute_cap_invalid_rc2.txt"), 2),
        "--query-gpu": (data_bytes(SMI + "linux_470.182.03_2x_k80_query_no_compute_cap.csv"), 0)})
    assert "mps_process_running" not in gpu.collect(linux_ctx(ctx_factory, fake_tools))  # no /proc there
    fake_proc(tmp_path / "proc", {"1": "init", "4242": "nvidia-cuda-mps"})
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["mps_pipe_dir_exists"] is False and table["mps_process_running"] is True
    assert toml_roundtrip(table) == table


@posix_only
def test_r375_box_has_no_cuda_version(ctx_factory: Any, fake_tools: Any) -> None:
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_375.66_gtx1080_no_cuda_version_plain.txt"), by_args={
        "compute_cap": (b'Field "compute_cap" is not a valid field to query.\n', 2),
        "--query-gpu": (data_bytes(SMI + "linux_375.66_gtx1080_query_no_compute_cap.csv"), 0),
    })
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["driver_version"] == "375.66"
    assert "driver_cuda_version" not in table
    assert table["devices"] == in_default_mode([{"index": 0, "name": "GeForce GTX 1080", "memory_total_mib": 8113,
                                 "pci_bus_id": "0000:01:00.0"}])
    assert summary_line(table) == "NVIDIA driver 375.66, 1 GPU: GeForce GTX 1080 8113 MiB"


@posix_only
def test_no_nvidia_smi_anywhere(ctx_factory: Any, tmp_path: Path) -> None:
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    # PATH replaced outright: this machine's /usr/bin may well hold a real nvidia-smi.
    ctx = structs.replace(ctx_factory(env={"PATH": str(empty)}), platform="linux")
    table = gpu.collect(ctx)
    # No /proc/modules at the test path: unknown; no /dev/nvidia-uvm there: known absent;
    # no MPS pipe folder at the default place: known absent.
    assert table == {"nvidia_smi": {"found": False, "searched": ["PATH"]}, "uvm_device_node": False,
                     "mps_pipe_dir": str(tmp_path / "nvidia-mps"), "mps_pipe_dir_exists": False}
    assert ctx.log.results == []
    assert toml_roundtrip(table) == table
    assert summary_line(table) == "nvidia-smi not found"


@posix_only
def test_healthy_multi_gpu_box(ctx_factory: Any, fake_tools: Any, no_real_proc: Path) -> None:
    no_real_proc.write_bytes(data_bytes(SMI + "proc_driver_nvidia_version_535.183.01.txt"))
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_535.183.01_4x_a100_cuda12.2_plain.txt"), by_args={
        "--query-gpu": (data_bytes(SMI + "linux_535.183.01_4x_a100_query.csv"), 0),
    })
    ctx = linux_ctx(ctx_factory, fake_tools)
    table = gpu.collect(ctx)
    smi = table["nvidia_smi"]
    assert argvs(ctx) == [QUERY_ARGS, []]
    assert smi["rc"] == 0 and smi["timed_out"] is False
    assert "query_retry" not in smi
    assert table["count"] == 4
    assert table["devices"] == in_default_mode([a100(0, "07"), a100(1, "0F"), a100(2, "47"), a100(3, "4E")])
    assert table["driver_version"] == "535.183.01"
    assert table["driver_cuda_version"] == "12.2"
    assert table["proc_driver_version"] == "535.183.01"
    assert smi["plain"]["output"].splitlines()[2].startswith("| NVIDIA-SMI 535.183.01")
    assert toml_roundtrip(table) == table
    assert summary_line(table) == "NVIDIA driver 535.183.01 (CUDA 12.2), 4 GPUs: 4x NVIDIA A100-SXM4-80GB 81920 MiB"


@posix_only
def test_mixed_gpus_and_windows_box_summaries(ctx_factory: Any, fake_tools: Any) -> None:
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_570.133.07_rtx4090_rtx3090_cuda12.8_plain.txt"),
                   by_args={"--query-gpu": (data_bytes(SMI + "linux_570.133.07_rtx4090_rtx3090_query.csv"), 0)})
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["devices"] == in_default_mode([RTX4090, RTX3090])
    assert summary_line(table) == ("NVIDIA driver 570.133.07 (CUDA 12.8), 2 GPUs: "
                                   "NVIDIA GeForce RTX 4090 24564 MiB, NVIDIA GeForce RTX 3090 24576 MiB")
    windows = {"nvidia_smi": {"found": True, "rc": 0}, "driver_version": "451.67", "driver_cuda_version": "11.0",
               "count": 1, "devices": [GTX1660S]}
    assert summary_line(windows) == "NVIDIA driver 451.67 (CUDA 11.0), 1 GPU: GeForce GTX 1660 SUPER 6144 MiB"


@posix_only
@pytest.mark.parametrize("name, rc, first_line", [
    ("driver_not_loaded_rc9.txt", 9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."),
    ("no_devices_found_rc6.txt", 6, "No devices were found"),
    ("libnvidia_ml_not_found_rc12.txt", 12, "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system."),
    ("nvml_driver_library_mismatch_rc18.txt", 18, "Failed to initialize NVML: Driver/library version mismatch"),
])
def test_failure_catalogue_recorded_verbatim(ctx_factory: Any, fake_tools: Any, no_real_proc: Path,
                                             name: str, rc: int, first_line: str) -> None:
    no_real_proc.write_bytes(data_bytes(SMI + "proc_driver_nvidia_version_open_570.133.07.txt"))
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + name), rc=rc)
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    smi = table["nvidia_smi"]
    assert smi["rc"] == rc and smi["plain"]["rc"] == rc
    assert smi["output"] == text_of(name).rstrip()
    assert smi["output"].startswith(first_line)
    assert "devices" not in table and "driver_version" not in table
    assert table["proc_driver_version"] == "570.133.07"
    assert toml_roundtrip(table) == table


@posix_only
def test_inforom_warning_keeps_devices_despite_rc14(ctx_factory: Any, fake_tools: Any) -> None:
    warning = b"WARNING: infoROM is corrupted at gpu 0000:04:00.0\n"
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_470.182.03_inforom_corrupted_rc14_plain.txt"), rc=14,
                   by_args={"--query-gpu": (warning + data_bytes(SMI + "linux_535.183.01_4x_a100_query.csv"), 14)})
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["nvidia_smi"]["rc"] == 14
    assert table["count"] == 4
    assert table["driver_cuda_version"] == "11.4"


@posix_only
def test_truncated_and_empty_outputs(ctx_factory: Any, fake_tools: Any) -> None:
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_570.133.07_plain_truncated.txt"),
                   by_args={"--query-gpu": (data_bytes(SMI + "linux_570.133.07_query_truncated.csv"), 0)})
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["devices"] == in_default_mode([RTX4090])
    assert table["driver_cuda_version"] == "12.8"

    fake_tools.add("nvidia-smi", stdout=b"", rc=0)
    table = gpu.collect(linux_ctx(ctx_factory, fake_tools))
    assert table["devices"] == [] and table["count"] == 0
    assert "output" not in table["nvidia_smi"] and "driver_version" not in table
    assert toml_roundtrip(table) == table


@posix_only
def test_unrunnable_nvidia_smi_is_not_tried_twice(ctx_factory: Any, fake_tools: Any) -> None:
    tool = fake_tools.add("nvidia-smi", stdout="x")
    tool.chmod(0o644)  # found by name on PATH is impossible now, so call the runner path directly
    ctx = linux_ctx(ctx_factory, fake_tools)
    table: dict[str, Any] = {}
    smi: dict[str, Any] = {}
    gpu._run_nvidia_smi(ctx, str(tool), table, smi)
    assert "PermissionError" in smi["error"]
    assert smi["plain_skipped"].startswith("nvidia-smi could not be run: PermissionError")
    assert len(ctx.log.results) == 1
    assert summary_line(dict(table, nvidia_smi=dict(smi, found=True))).startswith("nvidia-smi could not be run")


def test_proc_version_is_read_only_on_linux(ctx_factory: Any, tmp_path: Path, no_real_proc: Path) -> None:
    no_real_proc.write_bytes(data_bytes(SMI + "proc_driver_nvidia_version_535.183.01.txt"))
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    base = ctx_factory(env={"PATH": str(empty)})
    assert gpu.collect(structs.replace(base, platform="linux"))["proc_driver_version"] == "535.183.01"
    assert "proc_driver_version" not in gpu.collect(structs.replace(base, platform="darwin"))
    assert gpu.read_proc_driver_version(str(tmp_path / "absent")) is None
    assert gpu.read_proc_driver_version(str(tmp_path)) is None  # a directory, not a file


def test_uvm_module_and_node_are_read_only_on_linux(ctx_factory: Any, tmp_path: Path, no_real_proc: Path) -> None:
    modules = tmp_path / "proc-modules"
    modules.write_bytes((DATA / "proc" / "modules-nvidia-uvm-loaded.txt").read_bytes())
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    base = ctx_factory(env={"PATH": str(empty)})
    table = gpu.collect(structs.replace(base, platform="linux"))
    # No /dev/nvidia-uvm at the test path: known absent, not unknown.
    assert (table["uvm_module_loaded"], table["uvm_device_node"]) == (True, False)
    assert toml_roundtrip(table) == table
    darwin = gpu.collect(structs.replace(base, platform="darwin"))
    assert "uvm_module_loaded" not in darwin and "uvm_device_node" not in darwin


def test_uvm_module_is_matched_by_whole_name(tmp_path: Path) -> None:
    assert gpu.read_uvm_module_loaded(str(DATA / "proc" / "modules-nvidia-uvm-loaded.txt")) is True
    assert gpu.read_uvm_module_loaded(str(DATA / "proc" / "modules-nvidia-without-uvm.txt")) is False
    # No /proc/modules (a sandbox), or a directory in its place: unknown, not "not loaded".
    assert gpu.read_uvm_module_loaded(str(tmp_path / "absent")) is None
    assert gpu.read_uvm_module_loaded(str(tmp_path)) is None
    empty = tmp_path / "modules"
    empty.write_bytes(b"")
    assert gpu.read_uvm_module_loaded(str(empty)) is None


@posix_only
def test_uvm_device_node_must_be_a_character_device(tmp_path: Path) -> None:
    assert gpu.uvm_device_node_exists(str(tmp_path / "absent")) is False
    plain = tmp_path / "nvidia-uvm"
    plain.write_text("")
    assert gpu.uvm_device_node_exists(str(plain)) is False  # a file someone made by hand
    assert gpu.uvm_device_node_exists("/dev/null") is True  # a real character device
    assert gpu.uvm_device_node_exists(str(plain / "below-a-file")) is None  # ENOTDIR: cannot tell


def test_summary_line_of_odd_tables() -> None:
    assert summary_line(None) == "not probed"
    assert summary_line({}) == "nvidia-smi not found"
    assert summary_line({"nvidia_smi": {"found": True, "rc": 0}}) == "nvidia-smi gave no usable output"


def _fake_libcuda(where: Path, version: int) -> Path:
    """A real shared library named libcuda.so.1 whose cuDriverGetVersion answers ``version``,
    as R375's does (8000): the probe's child really loads it through ctypes."""
    import shutil
    import subprocess

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the fake driver library")
    where.mkdir(parents=True, exist_ok=True)
    source = where / "libcuda.c"
    source.write_text("int cuDriverGetVersion(int *v) { *v = %d; return 0; }\n" % version)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(where / "libcuda.so.1"), str(source)], check=True,
                   timeout=60)
    return where


@posix_only
@pytest.mark.skipif(sys.platform != "linux", reason="the fake driver library is an ELF .so")
def test_pre_r410_driver_level_comes_from_the_driver_api(ctx_factory: Any, fake_tools: Any, tmp_path: Path) -> None:
    fake_tools.add("nvidia-smi", stdout=data_bytes(SMI + "linux_375.66_gtx1080_no_cuda_version_plain.txt"), by_args={
        "compute_cap": (b'Field "compute_cap" is not a valid field to query.\n', 2),
        "--query-gpu": (data_bytes(SMI + "linux_375.66_gtx1080_query_no_compute_cap.csv"), 0),
    })
    libdir = _fake_libcuda(tmp_path / "driver", 8000)
    ctx = linux_ctx(ctx_factory, fake_tools)
    ctx = structs.replace(ctx, environ={**ctx.environ, "LD_LIBRARY_PATH": str(libdir)})
    table = gpu.collect(ctx)
    assert "driver_cuda_version" not in table  # the R375 header has none
    assert table["driver_cuda_api_version"] == "8.0"
    from legacydoc.derive import driver_facts

    assert driver_facts({"gpu": table}, "linux") == {"max_cuda": "8.0", "max_cuda_source": "driver API", "branch": 375}


def test_driver_api_output_parsing() -> None:
    assert gpu.parse_driver_api_output("libcuda.so.1 0 9010\n") == "9.1"
    assert gpu.parse_driver_api_output("nvcuda.dll 0 12020") == "12.2"
    assert gpu.parse_driver_api_output("libcuda.so.1 100 0") is None  # CUDA_ERROR_NO_DEVICE etc.
    assert gpu.parse_driver_api_output("") is None
    assert gpu.parse_driver_api_output("x 0 99999999999") is None


def test_macos_records_its_cuda_driver_not_nvidia_smi(ctx_factory: Any, tmp_path: Path, no_real_proc: Path) -> None:
    """macOS has no nvidia-smi with any driver: the probe records whether the CUDA driver
    for macOS (the file libgpuarray loads) is there, and only on macOS."""
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    base = ctx_factory(env={"PATH": str(empty)})
    darwin = structs.replace(base, platform="darwin")
    table = gpu.collect(darwin)
    assert table["macos_cuda_driver"] is False and table["nvidia_smi"]["found"] is False
    assert gpu.summary_line(table) == "no CUDA driver for macOS"
    framework = Path(gpu.MACOS_CUDA_DRIVER)
    framework.parent.mkdir()
    framework.write_bytes(b"not a loadable library here")  # present; the driver API then answers nothing
    table = gpu.collect(darwin)
    assert table["macos_cuda_driver"] is True and "driver_cuda_api_version" not in table
    assert gpu.summary_line(table) == "CUDA driver for macOS"
    assert toml_roundtrip(table) == table
    assert "macos_cuda_driver" not in gpu.collect(structs.replace(base, platform="linux"))
    assert "macos_cuda_driver" not in gpu.collect(structs.replace(base, platform="win32"))


def test_macos_cuda_driver_check_tells_unknown_from_absent(tmp_path: Path) -> None:
    assert gpu.macos_cuda_driver_exists(str(tmp_path / "absent")) is False
    assert gpu.macos_cuda_driver_exists(str(tmp_path)) is False  # a folder is not the library
    plain = tmp_path / "file"
    plain.write_text("x")
    assert gpu.macos_cuda_driver_exists(str(plain)) is True
    assert gpu.macos_cuda_driver_exists(str(plain / "below-a-file")) is False  # ENOTDIR: not there
    assert gpu.macos_cuda_driver_exists("bad\0path") is None  # the OS cannot be asked about it
