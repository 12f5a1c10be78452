"""Knowledge tables (rules/knowledge/*.toml) and their loader (legacydoc/knowledge.py).

Spot checks use exact values from the primary sources each table cites (NVIDIA's release
notes and support matrices, the projects' release tags; see docs/knowledge/), so a wrong
edit to a table fails here.
"""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest
from packaging.version import Version

from legacydoc import knowledge as k
from legacydoc.errors import UsageError
from legacydoc.knowledge import Knowledge, KnowledgeError, load_tables

EXPECTED_TABLES = {
    "wheels",
    "theano_api",
    "numpy_c_api",
    "cuda_driver",
    "cuda_arch",
    "gpu_compute_capability",
    "cudnn",
    "host_compilers",
    "cuda_libnames",
    "nvidia_smi",
    "theano_releases",
    "gpu_peak",
    "theano_eras",
    "libgpuarray_releases",
}


# --------------------------------------------------------------------------------------
# Loading


def test_every_table_loads_and_names_its_source():
    loaded = load_tables()
    assert set(loaded) == EXPECTED_TABLES
    for name, table in loaded.items():
        assert table.name == name
        assert table.origin.endswith(name + ".toml")
        assert len(table.source) > 40, name  # a real citation, not a placeholder


def test_knowledge_dir_is_the_checkout_rules_dir():
    directory = k.knowledge_dir()
    names = sorted(p.name for p in directory.iterdir() if p.name.endswith(".toml"))
    assert "cuda_driver.toml" in names and "theano_releases.toml" in names


def test_tables_are_cached_and_cache_can_be_cleared():
    first = k.tables()
    assert k.tables() is first
    assert k.default() is k.default()
    k.clear_cache()
    assert k.tables() is not first
    assert set(k.tables()) == EXPECTED_TABLES


def test_every_row_confidence_is_v_c_or_u():
    for table in load_tables().values():
        for key, value in table.data.items():
            if isinstance(value, list):
                for row in value:
                    if isinstance(row, dict) and "confidence" in row:
                        assert row["confidence"] in ("V", "C", "U"), (table.name, key, row)


# --------------------------------------------------------------------------------------
# Malformed tables -> KnowledgeError naming the file, one line


def _copy_tables(tmp_path: Path) -> Path:
    target = tmp_path / "knowledge"
    shutil.copytree(k.knowledge_dir(), target)
    return target


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, "fixture edit target missing: %r" % old
    path.write_text(text.replace(old, new, count), encoding="utf-8")


MALFORMED = [
    pytest.param("cuda_driver.toml", 'source = "NVIDIA, CUDA Toolkit', 'origin = "NVIDIA, CUDA Toolkit',
                 "missing 'source'", id="no-source"),
    pytest.param("cuda_driver.toml", 'linux = "440.33"\n', "", "missing required field 'linux'", id="missing-field"),
    pytest.param("cuda_driver.toml", 'windows = "441.22"', 'windows = "four-forty"', "field 'windows'",
                 id="bad-driver"),
    pytest.param("cuda_driver.toml", "update = 2\nlabel = \"CUDA 10.1 Update 2\"",
                 "update = \"2\"\nlabel = \"CUDA 10.1 Update 2\"", "must be an integer", id="wrong-type"),
    pytest.param("gpu_compute_capability.toml", 'pattern = "\\\\bK80\\\\b"', 'pattern = "\\\\bK80(\\\\b"',
                 "field 'pattern' is not a valid regular expression (missing ), unterminated subpattern",
                 id="bad-regex"),
    pytest.param("gpu_compute_capability.toml", 'cc = "3.7"', 'cc = "3,7"', "compute capability", id="bad-cc"),
    pytest.param("cudnn.toml", 'confidence = "V"', 'confidence = "sure"', "'V', 'C', 'U'", id="bad-confidence"),
    pytest.param("theano_releases.toml", 'applies = ">=0.9"', 'applies = "0.9 and up"', "specifier",
                 id="bad-specifier"),
    pytest.param("cuda_libnames.toml", "[driver]\n", "[driver_gone]\n", "missing table [driver]",
                 id="missing-table"),
    pytest.param("host_compilers.toml", "[[gcc_max]]", "[[gcc_maximum]]", "missing [[gcc_max]] rows",
                 id="renamed-array"),
    pytest.param("nvidia_smi.toml", "[[exit_code]]\nrc = 0", "[[exit_code]]\nrc = 0\nrc = 1", "not valid TOML",
                 id="toml-syntax"),
]


@pytest.mark.parametrize("filename, old, new, expect", MALFORMED)
def test_malformed_table_raises_knowledge_error_naming_the_file(tmp_path, filename, old, new, expect):
    directory = _copy_tables(tmp_path)
    _edit(directory / filename, old, new, count=-1 if old.startswith("[[") else 1)
    with pytest.raises(KnowledgeError) as info:
        load_tables(directory)
    message = str(info.value)
    assert filename in message
    assert "\n" not in message
    if expect:
        assert expect in message
    assert isinstance(info.value, UsageError) and info.value.exit_code == 2


def test_non_utf8_table_is_reported(tmp_path):
    directory = _copy_tables(tmp_path)
    (directory / "gpu_peak.toml").write_bytes(b'source = "caf\xe9"\n')
    with pytest.raises(KnowledgeError, match=r"gpu_peak\.toml: not UTF-8"):
        load_tables(directory)


def test_a_new_table_needs_only_a_source(tmp_path):
    directory = _copy_tables(tmp_path)
    (directory / "extra.toml").write_text('source = "somewhere, tag v1"\n[[row]]\nx = 1\n', encoding="utf-8")
    assert load_tables(directory)["extra"].rows("row") == [{"x": 1}]
    (directory / "extra.toml").write_text('[[row]]\nx = 1\n', encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"extra\.toml: missing 'source'"):
        load_tables(directory)


def test_missing_directory_is_a_knowledge_error(tmp_path):
    with pytest.raises(KnowledgeError, match="cannot list"):
        load_tables(tmp_path / "nope")


def test_lookups_follow_the_data(tmp_path):
    directory = _copy_tables(tmp_path)
    _edit(directory / "cuda_driver.toml", 'windows = "441.22"', 'windows = "999.99"')
    custom = Knowledge(load_tables(directory))
    assert custom.min_driver("10.2", "windows") == "999.99"
    assert k.default().min_driver("10.2", "windows") == "441.22"


# --------------------------------------------------------------------------------------
# 1. CUDA -> driver


@pytest.mark.parametrize(
    "cuda, os, expected",
    [
        ("10.2", "windows", "441.22"),
        ("10.2", "linux", "440.33"),
        ("10.2.89", "linux", "440.33"),
        ("9.1", "linux", "390.46"),
        ("9.2", "windows", "397.44"),
        ("V9.2.148", "windows", "398.26"),
        ("9.0", "linux", "384.81"),
        ("V9.0.176", "linux", "384.81"),  # nvcc prints 9.0.176, NVIDIA's table says 9.0.76
        ("8.0", "linux", "367.48"),
        ("8.0.61", "windows", "376.51"),
        ("8.0.50", "linux", "367.48"),  # an unlisted build after GA1: GA1's minimum
        ("V8.0.26", "linux", None),  # a build before GA1 (a release candidate): not listed, not GA1
        ("11.0.100", "linux", None),  # before 11.0 GA's nvcc, and the RC row names no nvcc
        ("10.1.243", "windows", "418.96"),
        ("11.0", "linux", "450.51.05"),  # GA, not the 11.0.1 RC
        ("11.0.1", "linux", "450.36.06"),
        ("V11.0.221", "linux", "450.51.06"),
        ("11.4.3", "windows", "472.50"),
        ("11.8", "windows", "520.06"),
        ("12.2.2", "linux", "535.104.05"),
        ("V12.8.61", "windows", "570.65"),
        ("13.0", "linux", "580.65.06"),
        ("13.0", "windows", None),  # N/A in NVIDIA's table
        ("12.7", "linux", None),  # no such release
        ("10.2", "macos", None),
        (10020, "linux", "440.33"),  # cuDriverGetVersion encoding
    ],
)
def test_min_driver(cuda, os, expected):
    assert k.default().min_driver(cuda, os) == expected


@pytest.mark.parametrize(
    "driver, os, compat, expected",
    [
        ("451.67", "windows", True, "11.0"),
        ("451.67", "windows", False, "11.0"),
        ("27.21.14.5167", "windows", True, "11.0"),  # Windows driver-store form of 451.67
        ("441.22", "windows", True, "10.2"),
        ("441.21", "windows", True, "10.1"),
        ("418.96", "windows", True, "10.1"),
        ("440.33", "linux", True, "10.2"),
        ("384.81", "linux", True, "9.0"),
        ("375.66", "linux", True, "8.0"),
        ("346.45", "linux", True, None),
        ("470.82.01", "linux", False, "11.4"),
        ("470.82.01", "linux", True, "11.8"),  # >= 450.80.02: every 11.x via minor compat
        ("450.80.01", "linux", True, "11.0"),  # just below the 11.x floor
        ("535.54.02", "linux", False, "12.1"),  # per-component: 535.54.02 < 535.54.03
        ("535.104.04", "linux", False, "12.2"),
        ("535.104.05", "linux", True, "12.9"),
        ("580.65.06", "linux", True, "13.1"),
        ("581.57", "windows", True, "13.1"),
        ("581.57", "windows", False, "12.9"),
    ],
)
def test_driver_max_cuda(driver, os, compat, expected):
    assert k.default().driver_max_cuda(driver, os, minor_compat=compat) == expected


def test_driver_key_compares_per_component():
    assert k.driver_key("535.104.05") > k.driver_key("535.54.03")
    assert k.driver_key("451.67") == (451, 67)
    assert k.driver_key("31.0.15.3623") == (536, 23)
    assert k.driver_key("r450") is None


def test_release_rows_are_ordered_and_nvcc_numbers_unique():
    rows = k.tables()["cuda_driver"].rows("release")
    seen_nvcc = set()
    by_minor: dict[str, list[int]] = {}
    for row in rows:
        by_minor.setdefault(row["cuda"], []).append(row["update"])
        if "nvcc" in row:
            assert row["nvcc"] not in seen_nvcc
            assert row["nvcc"].startswith(row["cuda"] + ".")
            seen_nvcc.add(row["nvcc"])
    for cuda, updates in by_minor.items():
        assert updates == list(range(len(updates))), cuda
    assert "12.7" not in by_minor


# --------------------------------------------------------------------------------------
# 2. Architectures and GPU names


@pytest.mark.parametrize(
    "cuda, expected",
    [
        ("10.2", (30, 75)),
        ("V10.1.243", (30, 75)),
        ("8.0", (20, 62)),
        ("9.0", (30, 70)),
        ("9.2", (30, 72)),
        ("11.0", (35, 80)),
        ("11.1", (35, 86)),
        ("11.8", (35, 90)),
        ("12.4", (50, 90)),
        ("12.8", (50, 120)),
        ("12.9", (50, 121)),
        ("13.1", (75, 121)),
        ("12.7", None),
        ("6.5", None),
    ],
)
def test_arch_range(cuda, expected):
    assert k.default().arch_range(cuda) == expected


@pytest.mark.parametrize(
    "cuda, sm, expected",
    [("11.8", 37, True), ("12.0", 37, False), ("12.9", "6.1", True), ("13.0", "sm_61", False),
     ("9.0", 75, False), ("10.0", "7.5", True), ("10.0", 99, None)],
)
def test_sm_supported(cuda, sm, expected):
    assert k.default().sm_supported(cuda, sm) is expected


def test_toolkit_ranges_agree_with_per_sm_table():
    arch = k.tables()["cuda_arch"]
    sms = [r for r in arch.rows("sm") if not r.get("variant")]

    def key(text):
        major, minor = text.split(".")[:2]
        return (int(major), int(minor))

    for row in arch.rows("toolkit"):
        for cuda in {row["from"], row.get("to", "13.9")}:
            usable = [r["sm"] for r in sms if key(r["first"]) <= key(cuda) <= key(r.get("last", "99.0"))]
            assert (min(usable), max(usable)) == (row["lowest_sm"], row["highest_sm"]), cuda


@pytest.mark.parametrize(
    "name, cc",
    [
        ("GeForce GTX 1660 SUPER", "7.5"),
        ("NVIDIA GeForce GTX 1650", "7.5"),
        ("NVIDIA GeForce RTX 3090", "8.6"),
        ("GeForce RTX 3090", "8.6"),
        ("NVIDIA GeForce RTX 2050", "8.6"),
        ("GeForce RTX 2080 Ti", "7.5"),
        ("NVIDIA GeForce RTX 4090", "8.9"),
        ("NVIDIA GeForce RTX 5090", "12.0"),
        ("Tesla K80", "3.7"),
        ("Tesla K40m", "3.5"),
        ("GTX TITAN X", "5.2"),
        ("GeForce GTX TITAN X", "5.2"),
        ("TITAN X (Pascal)", "6.1"),
        ("NVIDIA TITAN X", "6.1"),
        ("NVIDIA TITAN Xp", "6.1"),
        ("NVIDIA TITAN V", "7.0"),
        ("GeForce GTX TITAN Black", "3.5"),
        ("H200", "9.0"),
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("NVIDIA A100-SXM4-40GB", "8.0"),
        ("NVIDIA A10G", "8.6"),
        ("NVIDIA L40S", "8.9"),
        ("Tesla T4", "7.5"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("Tesla P100-PCIE-16GB", "6.0"),
        ("Quadro P4000", "6.1"),
        ("Quadro RTX 8000", "7.5"),
        ("NVIDIA RTX A6000", "8.6"),
        ("NVIDIA RTX 6000 Ada Generation", "8.9"),
        ("GeForce GTX 750 Ti", "5.0"),
        ("GeForce GTX 980 Ti", "5.2"),
        ("GeForce GTX 960M", "5.0"),
        ("GeForce GTX 1080 Ti", "6.1"),
        ("GeForce GT 730", "3.5"),
        ("GeForce GTX 680", "3.0"),
        ("GeForce GTX 580", "2.0"),
    ],
)
def test_compute_capability(name, cc):
    assert k.default().compute_capability(name) == cc


def test_ambiguous_board_lists_alternatives():
    assert k.default().gpu_rule("GeForce GT 730")["also"] == ["2.1"]


def test_every_cc_rule_example_is_matched_first_by_its_own_rule():
    rules = k.tables()["gpu_compute_capability"].rows("rule")
    for index, rule in enumerate(rules):
        example = rule.get("example")
        assert example, rule["pattern"]
        first = next(i for i, r in enumerate(rules) if re.search(r["pattern"], example, re.IGNORECASE))
        assert first == index, "%r is caught earlier by %r" % (example, rules[first]["pattern"])


# --------------------------------------------------------------------------------------
# 3. Host compilers


@pytest.mark.parametrize(
    "cuda, expected",
    [("10.2", 8), ("10.1", 8), ("10.0", 7), ("9.2", 7), ("9.1", 6), ("8.0", 5), ("7.5", 4), ("11.0", 9),
     ("11.4", 10), ("11.4.0", 10), ("11.4.1", 11), ("V11.4.100", 11), ("11.8", 11), ("12.3", 12),
     ("12.6", 13), ("12.8", 14), ("13.0", 15), ("6.5", None)],
)
def test_max_gcc(cuda, expected):
    assert k.default().max_gcc(cuda) == expected


def test_min_gcc_and_clang():
    assert k.default().min_gcc("10.2") is None
    assert k.default().min_gcc("11.0") == 5
    assert k.default().min_gcc("12.4") == 6
    assert k.default().max_clang("10.2") == 8
    assert k.default().max_clang("11.4.1") == 12
    assert k.default().max_clang("12.6") == 18


@pytest.mark.parametrize(
    "cuda, expected",
    [("9.0", (1600, 1911)), ("9.2", (1600, 1913)), ("10.1", (1700, 1929)), ("11.2", (1910, 1929)),
     ("12.2", (1910, 1939)), ("12.6", (1910, 1949)), ("13.0", (1920, 1950)), ("7.5", None)],
)
def test_msvc_range(cuda, expected):
    assert k.default().msvc_range(cuda) == expected


def test_msc_ver_and_stl1002():
    assert k.default().msc_ver_name(1916) == "Visual Studio 2017 (15.x)"
    assert k.default().msc_ver_name(1938) == "Visual Studio 2022 (17.x)"
    assert k.default().msc_ver_name(1800) == "Visual Studio 2013"
    assert k.default().msc_ver_name(1234) is None
    assert k.default().stl1002_requires(1916) is None
    assert k.default().stl1002_requires(1929) == "10.1.2"
    assert k.default().stl1002_requires(1944) == "12.4"
    assert k.default().stl1002_requires("1950") == "13.2"


def test_compiler_messages_match_their_regexes():
    table = k.tables()["host_compilers"]
    errors = {row["id"]: re.compile(row["regex"]) for row in table.rows("error")}
    for row in table.rows("msvc"):
        if "message" in row:
            assert errors["msvc-unsupported"].search(row["message"]), row["from"]
    for row in table.rows("stl1002"):
        match = errors["stl1002"].search(row["message"])
        assert match and match.group(1) == row["requires_cuda"][:4].rstrip(".")
    gcc = errors["gcc-too-new"].search(
        "#error -- unsupported GNU version! gcc versions later than 8 are not supported!")
    assert gcc and gcc.group(1) == "8"


# --------------------------------------------------------------------------------------
# 4. cuDNN


@pytest.mark.parametrize(
    "cudnn, expected",
    [
        ("7.6.5", ["9.0", "9.2", "10.0", "10.1", "10.2"]),
        (7605, ["9.0", "9.2", "10.0", "10.1", "10.2"]),
        ("7.6.3", ["9.0", "9.2", "10.0", "10.1"]),
        ("7.5.1", ["9.0", "9.2", "10.0", "10.1"]),
        ("7.4.2", ["9.0", "9.2", "10.0"]),
        ("5.1.10", ["7.5", "8.0"]),
        ("8.0.5", ["10.1", "10.2", "11.0", "11.1"]),
        ("9.17.0", ["12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9", "13.0", "13.1"]),
        ("garbage", []),
        ("1.0", []),
        (None, []),
    ],
)
def test_cudnn_cuda_builds(cudnn, expected):
    assert k.default().cudnn_cuda_builds(cudnn) == expected


def test_cudnn_builds_for_89_and_90_include_the_11x_line():
    assert "11.8" in k.default().cudnn_cuda_builds("8.9.6") and "12.2" in k.default().cudnn_cuda_builds("8.9.6")
    assert "12.6" in k.default().cudnn_cuda_builds("90300")


@pytest.mark.parametrize(
    "value, expected",
    [(7605, "7.6.5"), ("8005", "8.0.5"), (8401, "8.4.1"), (5110, "5.1.10"), (90300, "9.3.0"), (91002, "9.10.2"),
     (0, None), (-5, None), ("x", None)],
)
def test_cudnn_version_from_macro(value, expected):
    assert k.default().cudnn_version_from_macro(value) == expected


# --------------------------------------------------------------------------------------
# 6. Library names / libgpuarray


def test_libgpuarray_fallback_lists_per_version():
    libgpuarray = k.tables()["cuda_libnames"].data["libgpuarray"]
    by_range = {(row["from"], row["to"]): row for row in libgpuarray["version"]}
    assert by_range[("0.7.6", "0.7.6")]["fallback"] == ["9.1", "9.0", "8.0", "7.5", "7.0"]
    assert by_range[("0.7.6+1", "0.7.99")]["fallback"][:2] == ["10.0", "9.2"]
    assert by_range[("0.6.5", "0.6.8")]["driver_major_limit"] == 9
    assert re.search(by_range[("0.6.5", "0.6.8")]["invalid_version_regex"], "Invalid cuda version: 10.2")
    assert libgpuarray["nvrtc_windows"].format(major=10, minor=0) == "nvrtc64_100.dll"
    assert libgpuarray["nvrtc_linux"] == "libnvrtc.so"
    assert by_range[("0.6.9", "0.6.9")]["api_version"] == 1
    assert by_range[("0.7.0", "0.7.4")]["api_version"] == 2


def test_windows_names_per_cuda():
    rows = k.tables()["cuda_libnames"].rows("windows")
    names = {row["from"]: row for row in rows}
    assert names["10.0"]["nvrtc"] == ["nvrtc64_100_0.dll"]
    assert names["10.1"]["cublas"][0] == "cublas64_10.dll"
    assert names["11.2"]["cudart"] == "cudart64_110.dll"


# --------------------------------------------------------------------------------------
# 7. nvidia-smi


def test_nvidia_smi_exit_codes_and_failures():
    table = k.tables()["nvidia_smi"]
    codes = {row["rc"]: row["meaning"] for row in table.rows("exit_code")}
    assert codes[9] == "NVIDIA driver is not loaded"
    assert codes[12].startswith("NVML shared library")
    assert sorted(codes) == [0, 2, 3, 4, 6, 8, 9, 10, 12, 13, 14, 15, 255]
    failures = {row["id"]: row for row in table.rows("failure")}
    text = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running.")
    hits = [fid for fid, row in failures.items() if re.search(row["regex"], text)]
    assert hits == ["driver-not-loaded"] and failures["driver-not-loaded"]["rc"] == 9
    assert re.search(failures["invalid-query-field"]["regex"], 'Field "compute_cap" is not a valid field to query.')
    for row in table.rows("failure"):
        assert row.get("rc") is None or row["rc"] in codes or row["rc"] in (125, 127), row["id"]


# --------------------------------------------------------------------------------------
# 8. Theano releases


def test_theano_release_rows():
    release = k.default().theano_release("Theano", "1.0.5")
    assert release["python_classifiers"] == ["2.7", "3.4", "3.5", "3.6", "3.7", "3.8"]
    assert release["libgpuarray_api"] == 2
    assert release["pygpu"] == ">=0.7.0,<0.8"
    assert release["commit"] == "f3bb5b755ec5e92fb60b5364d83a10878fa9a211"
    assert "numpy-bool-alias" in release["failures"]
    assert "python39-fractions-gcd" not in release["failures"]
    assert k.default().theano_release("theano", "1.0.3")["python_ok"] == ">=2.7,<3.9"
    assert k.default().theano_release("Theano", "0.9.0")["libgpuarray_api"] == 1
    assert k.default().theano_release("Theano_PyMC", "1.0.11")["config_style"] == "dotted"
    assert k.default().theano_release("theano-pymc", "1.0.12")["config_style"] == "dunder"
    assert k.default().theano_release("Theano-PyMC", "1.1.2")["commit"].startswith("ebaad559")
    assert k.default().theano_release("Theano", "2.0") is None
    assert k.default().theano_release("Lasagne", "0.1") is None


def test_theano_failures_follow_python_and_numpy():
    def ids(*args, **kwargs):
        return {row["id"] for row in k.default().theano_failures(*args, **kwargs)}

    assert {"numpy-bool-alias", "numpy-blas-opt-info"} <= ids("Theano", "1.0.5", python="3.11.7", numpy="1.26.4")
    assert not {"numpy-bool-alias", "numpy-blas-opt-info"} & ids("Theano", "1.0.5", numpy="1.21.6")
    assert "numpy-blas-opt-info" in ids("Theano", "1.0.5", numpy="1.23.5")
    assert "numpy-bool-alias" not in ids("Theano", "1.0.5", numpy="1.23.5")
    with_numpy2 = ids("Theano-PyMC", "1.1.2", numpy="2.0.2")
    assert "numpy2-gemm-compile" in with_numpy2 and "numpy-bool-alias" not in with_numpy2
    assert {"python310-collections-abc", "python39-fractions-gcd"} <= ids("Theano", "1.0.4", python="3.10.13")
    assert "python310-collections-abc" not in ids("Theano", "1.0.5", python="3.10.13")
    assert "python312-safeconfigparser" in ids("Theano", "1.0.5", python="3.12.1")
    assert {"cudnn8-removed-api", "cudnn-too-new-warning"} <= ids("Theano", "1.0.5", cudnn_macro=8005)
    assert "cudnn8-removed-api" not in ids("Theano", "1.0.5", cudnn_macro=7605)
    assert "lasagne-01-downsample" in ids("Lasagne", "0.1")


def test_theano_failure_messages_match_their_regexes():
    for row in k.tables()["theano_releases"].rows("failure"):
        assert re.search(row["regex"], row["message"]), row["id"]


# --------------------------------------------------------------------------------------
# 9. Peak FLOPS


@pytest.mark.parametrize(
    "name, tflops",
    [("NVIDIA GeForce RTX 3090", 35.58), ("GeForce GTX 1080 Ti", 11.34), ("GeForce GTX 1080", 8.87),
     ("Tesla K80", 4.37), ("NVIDIA H200", 66.91), ("NVIDIA H200 NVL", 60.32), ("NVIDIA H100 PCIe", 51.22),
     ("Tesla V100-SXM2-16GB", 15.67), ("Tesla V100-PCIE-16GB", 14.13), ("GeForce GTX 1060 3GB", 3.94),
     ("GeForce GTX 1660 SUPER", 5.03), ("GeForce GTX 750 Ti", 1.39), ("GeForce GTX TITAN X", 6.6),
     ("NVIDIA TITAN X", 10.97), ("NVIDIA GeForce RTX 4090", 82.58), ("Tesla T4", 8.14),
     ("Intel(R) UHD Graphics", None)],
)
def test_gpu_peak_tflops(name, tflops):
    assert k.default().gpu_peak_tflops(name) == tflops


def test_peak_figures_are_cores_times_clock():
    for row in k.tables()["gpu_peak"].rows("gpu"):
        computed = row["cuda_cores"] * row["boost_mhz"] * 2 / 1e6
        assert math.isclose(row["tflops"], computed, abs_tol=0.006), row["name"]
        if "datasheet_tflops" in row:
            assert abs(row["datasheet_tflops"] - row["tflops"]) < 0.6, row["name"]


# --------------------------------------------------------------------------------------
# Edge inputs: never raise


GARBAGE = [None, "", "   ", "abc", "10", "10.x", "1.2.3.4.5.6", [], {}, True, -1, 0, float("nan"), 1e308,
           b"10.2", "９.０", "-10.2", "10..2"]


@pytest.mark.parametrize("value", GARBAGE, ids=repr)
def test_garbage_inputs_return_none(value):
    assert k.default().min_driver(value, "linux") is None
    assert k.default().min_driver("10.2", value) is None
    assert k.default().driver_max_cuda(value, "windows") is None
    assert k.default().compute_capability(value) is None
    assert k.default().gpu_rule(value) is None
    assert k.default().arch_range(value) is None
    assert k.default().sm_supported(value, 61) is None
    assert k.default().max_gcc(value) is None
    assert k.default().min_gcc(value) is None
    assert k.default().max_clang(value) is None
    assert k.default().msvc_range(value) is None
    assert k.default().msc_ver_name(value) is None
    assert k.default().cudnn_cuda_builds(value) == []
    assert k.default().theano_release(value, "1.0.5") is None
    assert k.default().theano_release("Theano", value) is None
    assert k.default().theano_failures(value, value) == []
    assert k.default().gpu_peak_tflops(value) is None
    assert k.default().cuda_release(value) is None


@pytest.mark.parametrize(
    "output, rc, expected",
    [
        ("Failed to initialize NVML: Unknown Error", 255, "nvml-unknown-error"),
        ("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.183", 18, "driver-library-mismatch"),
        ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure", 9, "driver-not-loaded"),
        ("No devices were found", 6, "no-devices"),
        ("", 9, "driver-not-loaded"),  # no message: the exit code alone decides
        ("something new and strange", 255, None),  # 255 alone is ambiguous
        (None, None, None),
    ],
)
def test_nvidia_smi_failure_lookup(output, rc, expected) -> None:
    assert k.default().nvidia_smi_failure(output, rc) == expected


def test_theano_eras_lists_one_package_oldest_first() -> None:
    rows = k.default().theano_eras("Theano")
    versions = [Version(row["version"]) for row in rows]
    assert len(versions) >= 4 and versions == sorted(versions)
    assert all(row["package"] == "Theano" for row in rows)
    assert k.default().theano_eras("no-such-dist") == []


@pytest.mark.parametrize("printed, series", [
    ("a", ["1.10", "1.11", "1.12"]),  # numpy before 1.11 printed the hex without 0x
    ("0xe", ["1.20", "1.21"]),
    ("0x10", ["1.23", "1.24"]),
    (9, ["1.8", "1.9"]),
    ("0x8", []),  # no release had C API 8
    ("0xzz", []),
    (True, []),
])
def test_numpy_c_api_versions_map_to_release_series(printed, series) -> None:
    assert k.default().numpy_series_for_c_api(printed) == series


def test_a_build_between_two_releases_knows_only_what_both_say() -> None:
    # 0.9.0rc2 (Theano/Theano#5649 ran a build of it from git) may hold 0.8.2's code or
    # 0.9.0's: where they differ (the pygpu each accepts) nothing is claimed.
    kb = k.default()
    between = kb.theano_era("Theano", "0.9.0rc2")
    assert between is not None
    assert between["pygpu"] is None and between["cudnn_warn_from"] is None
    assert between["lib_cnmem"] is True  # both have the old back-end's memory pool
    assert kb.theano_era("Theano", "0.9.0")["pygpu"] == ">=0.6.1,<0.7"
    assert kb.theano_era("Theano", "0.10.0beta2")["version"] == "0.10.0beta2"  # a listed pre-release
    # 1.0.0rc1: 0.10.0beta4 and 1.0.0 write the same pygpu range two ways
    assert kb.theano_era("Theano", "1.0.0rc1")["pygpu"] is not None
    # after the last row there is nothing to disagree with: the last row's facts
    assert kb.theano_era("Theano", "1.0.6.dev0") == kb.theano_era("Theano", "1.0.5")


def test_era_facts_leave_out_what_a_build_between_releases_does_not_know() -> None:
    from legacydoc import derive

    era = k.default().theano_era("Theano", "0.9.0rc2")
    out = derive.era_facts({"packages": {"numpy": {"name": "numpy", "version": "1.9.0"}}}, era)
    assert "cudnn_warn_from" not in out and "device_gpu" not in out
    assert out["lib_cnmem"] is True
