"""libnames (file name -> kind/version, libgpuarray's names), ldconfig -p parsing and
the libraries probe (loader search order, copies found, winners)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import tomli_w

from legacydoc import structs
from legacydoc.probes import libnames
from legacydoc.probes import libraries as lib_probe
from legacydoc.probes.context import ProbeContext
from legacydoc.probes.libnames import (
    implied_cuda_versions,
    libgpuarray_attempts,
    libgpuarray_wanted_names,
    library_kind_and_version,
    parse_cuda_version,
)
from legacydoc.probes.libraries import (
    parse_ldconfig_p,
    pick_winners,
    posix_search_order,
    scan_search_order,
    windows_search_order,
)
from legacydoc.probes.run import decode_output
from tests.conftest import data_bytes, posix_only

ELEVEN = ["11.0", "11.1", "11.2", "11.3", "11.4", "11.5", "11.6", "11.7", "11.8"]


def touch(directory: Path, *names: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (directory / name).write_bytes(b"")


# --- libnames ----------------------------------------------------------------------------------

NAME_CASES = [
    # (file name, windows, expected subset)
    ("cudart64_102.dll", True, {"kind": "cudart", "cuda": "10.2", "cuda_versions": ["10.2"], "shipped_name": True}),
    ("cudart64_110.dll", True, {"kind": "cudart", "cuda": "11.x", "cuda_versions": ELEVEN}),
    ("cudart64_90.dll", True, {"kind": "cudart", "cuda": "9.0"}),
    ("cudart64_12.dll", True, {"kind": "cudart", "cuda": "12.x"}),
    ("cublas64_10.dll", True, {"kind": "cublas", "cuda": "10.1/10.2", "cuda_versions": ["10.1", "10.2"]}),
    ("cublas64_100.dll", True, {"kind": "cublas", "cuda": "10.0", "shipped_name": True}),
    ("cublasLt64_11.dll", True, {"kind": "cublas", "component": "Lt", "cuda": "11.x"}),
    ("nvrtc64_100_0.dll", True, {"kind": "nvrtc", "cuda": "10.0", "shipped_name": True}),
    ("nvrtc64_92.dll", True, {"kind": "nvrtc", "cuda": "9.2", "shipped_name": True}),
    ("nvrtc64_112_0.dll", True, {"kind": "nvrtc", "cuda": "11.2-11.8", "cuda_versions": ELEVEN[2:]}),
    ("nvrtc64_120_0.dll", True, {"kind": "nvrtc", "cuda": "12.x"}),
    # what libgpuarray asks for on a 10.0 driver: a renamed copy if it exists at all
    ("nvrtc64_100.dll", True, {"kind": "nvrtc", "cuda": "10.0", "shipped_name": False}),
    ("nvrtc-builtins64_118.dll", True, {"kind": "nvrtc", "component": "builtins", "cuda": "11.8"}),
    ("cudnn64_7.dll", True, {"kind": "cudnn", "cudnn": "7"}),
    ("cudnn_ops_infer64_8.dll", True, {"kind": "cudnn", "cudnn": "8", "component": "ops_infer"}),
    ("cudnn_engines_precompiled64_9.dll", True, {"kind": "cudnn", "cudnn": "9", "component": "engines_precompiled"}),
    ("CUDNN64_8.DLL", True, {"kind": "cudnn", "cudnn": "8"}),
    ("nvcuda.dll", True, {"kind": "libcuda", "versioned": False}),
    ("nvml.dll", True, {"kind": "nvml"}),
    ("libcudart.so.10.2", False, {"kind": "cudart", "cuda": "10.2", "so_version": "10.2", "versioned": True}),
    ("libcudart.so.10.2.89", False, {"kind": "cudart", "cuda": "10.2"}),
    ("libcudart.so.11.0", False, {"kind": "cudart", "cuda": "11.x", "cuda_versions": ELEVEN}),
    ("libcudart.so.11.8.89", False, {"kind": "cudart", "cuda": "11.8"}),  # a real file is exact
    ("libcudart.so.12", False, {"kind": "cudart", "cuda": "12.x"}),
    ("libcublas.so.10", False, {"kind": "cublas", "cuda": "10.1/10.2"}),
    ("libcublas.so.10.0", False, {"kind": "cublas", "cuda": "10.0"}),
    ("libcublasLt.so.11", False, {"kind": "cublas", "component": "Lt", "cuda": "11.x"}),
    ("libnvrtc.so.11.2", False, {"kind": "nvrtc", "cuda": "11.2-11.8"}),
    ("libnvrtc.so.11.1", False, {"kind": "nvrtc", "cuda": "11.1"}),
    ("libnvrtc.so.10.2", False, {"kind": "nvrtc", "cuda": "10.2"}),
    ("libcudnn.so.8", False, {"kind": "cudnn", "cudnn": "8"}),
    ("libcudnn.so.7.6.5", False, {"kind": "cudnn", "cudnn": "7", "so_version": "7.6.5"}),
    ("libcudnn_ops_infer.so.8", False, {"kind": "cudnn", "cudnn": "8", "component": "ops_infer"}),
    ("libnvrtc.so", False, {"kind": "nvrtc", "versioned": False}),
    ("libcublas.so", False, {"kind": "cublas", "versioned": False}),
    ("libcuda.so", False, {"kind": "libcuda", "versioned": False}),
    ("libcuda.so.1", False, {"kind": "libcuda", "versioned": True, "so_version": "1"}),
    ("libcuda.so.535.104.05", False, {"kind": "libcuda", "driver_version": "535.104.05"}),
    ("libnvidia-ml.so.1", False, {"kind": "nvml"}),
    ("libnvidia-ptxjitcompiler.so.1", False, {"kind": "ptxjit", "so_version": "1"}),
    ("libnvidia-ptxjitcompiler.so.367.44", False, {"kind": "ptxjit", "driver_version": "367.44"}),
]


@pytest.mark.parametrize("name,windows,expected", NAME_CASES, ids=[c[0] for c in NAME_CASES])
def test_library_kind_and_version(name, windows, expected):
    info = library_kind_and_version(name, windows)
    assert info is not None
    assert {k: info.get(k) for k in expected} == expected
    assert None not in info.values()
    tomli_w.dumps(info)


def test_unversioned_names_carry_no_cuda():
    for name in ("libnvrtc.so", "libcublas.so", "libcudart.so", "libcuda.so"):
        info = library_kind_and_version(name, False)
        assert "cuda" not in info and "cuda_versions" not in info


@pytest.mark.parametrize(
    "name,windows",
    [
        ("libcudart.so.10.2", True),  # a Linux name under Windows rules
        ("cudart64_102.dll", False),
        ("libc.so.6", False),
        ("kernel32.dll", True),
        ("libcudart_static.a", False),
        ("libcudart.so.10.2.bak", False),
        ("cudart64_.dll", True),
        ("", True),
        ("", False),
    ],
)
def test_library_kind_and_version_rejects(name, windows):
    assert library_kind_and_version(name, windows) is None


def test_library_kind_and_version_refuses_odd_input():
    for junk in (None, 12, "\x00", "cudart64_" + "9" * 500 + ".dll", "libcudart.so." + "1." * 200 + "1"):
        assert library_kind_and_version(junk, True) is None  # type: ignore[arg-type]
        assert library_kind_and_version(junk, False) is None  # type: ignore[arg-type]
    assert libnames.parse_cuda_version("9" * 5000) is None  # no 5,000-digit int is ever built


def test_macos_dylib_names():
    info = library_kind_and_version("libcudart.10.2.dylib", False, mac=True)
    assert info["kind"] == "cudart" and info["cuda"] == "10.2"
    assert library_kind_and_version("libnvrtc.dylib", False, mac=True)["versioned"] is False


def test_implied_cuda_versions():
    infos = [library_kind_and_version(n, True) for n in ("cudart64_102.dll", "cublas64_10.dll", "nvrtc64_102_0.dll")]
    assert implied_cuda_versions(infos) == ["10.2"]
    infos = [library_kind_and_version(n, True) for n in ("cudart64_110.dll", "nvrtc64_112_0.dll", "cublas64_11.dll")]
    assert implied_cuda_versions(infos) == ["11.2-11.8"]
    infos = [library_kind_and_version(n, True) for n in ("cudart64_90.dll", "cudart64_102.dll", "cudnn64_7.dll")]
    assert implied_cuda_versions(infos) == ["9.0", "10.2"]
    assert implied_cuda_versions([]) == []
    assert implied_cuda_versions([{"cuda_versions": ["bad"]}, "junk"]) == []  # type: ignore[list-item]


def test_parse_cuda_version():
    assert parse_cuda_version("10.2") == (10, 2)
    assert parse_cuda_version("12.2.140") == (12, 2)
    assert parse_cuda_version("10") == (10, 0)
    assert parse_cuda_version(10020) == (10, 2)  # cuDriverGetVersion encoding
    assert parse_cuda_version("9020") == (9, 2)
    for bad in (None, "", "abc", "10.x", True):
        assert parse_cuda_version(bad) is None


# What the released libgpuarray 0.7.6 falls back through (not master's 10.0/9.2 entries).
FALLBACK_NVRTC = ["nvrtc64_91.dll", "nvrtc64_90.dll", "nvrtc64_80.dll", "nvrtc64_75.dll", "nvrtc64_70.dll"]


def test_libgpuarray_names_driver_10_2():
    assert libgpuarray_wanted_names("10.2", True) == ["nvrtc64_102.dll"] + FALLBACK_NVRTC
    cublas = libgpuarray_wanted_names("10.2", True, "cublas")
    assert cublas[:3] == ["cublas64_102.dll", "cublas64_91.dll", "cublas64_90.dll"]
    # 10.2 ships neither nvrtc64_102.dll (it ships nvrtc64_102_0.dll) nor cublas64_102.dll
    assert not library_kind_and_version("nvrtc64_102.dll", True)["shipped_name"]
    assert libgpuarray_wanted_names("10.2", False) == ["libnvrtc.so"]
    assert libgpuarray_wanted_names("10.2", False, "cublas") == ["libcublas.so"]


def test_libgpuarray_names_driver_9_2_skips_newer_and_equal():
    assert libgpuarray_wanted_names("9.2", True) == [
        "nvrtc64_92.dll", "nvrtc64_91.dll", "nvrtc64_90.dll", "nvrtc64_80.dll", "nvrtc64_75.dll", "nvrtc64_70.dll",
    ]  # fmt: skip


def test_libgpuarray_names_driver_12_2():
    assert libgpuarray_wanted_names("12.2", True) == ["nvrtc64_122.dll"] + FALLBACK_NVRTC
    attempts = libgpuarray_attempts("12.2", True)
    assert attempts[0] == {"cuda": "12.2", "nvrtc": "nvrtc64_122.dll", "cublas": "cublas64_122.dll"}
    # released pygpu 0.7.6 falls back to 9.1 first (10.0/9.2 are only on untagged master)
    assert attempts[1] == {"cuda": "9.1", "nvrtc": "nvrtc64_91.dll", "cublas": "cublas64_91.dll"}
    assert libgpuarray_wanted_names("12.2", False, "libcuda") == ["libcuda.so"]
    assert libgpuarray_wanted_names("12.2", True, "libcuda") == ["nvcuda.dll"]


def test_libgpuarray_names_unknown_driver_and_kind():
    assert libgpuarray_wanted_names(None, True) == FALLBACK_NVRTC
    assert libgpuarray_wanted_names("garbage", True) == FALLBACK_NVRTC
    assert libgpuarray_wanted_names("7.0", True) == ["nvrtc64_70.dll"]  # nothing older to fall back to
    assert libgpuarray_wanted_names("10.2", True, "cudnn") == []


def test_matches_libgpuarray_name():
    yes = [("nvrtc64_92.dll", "nvrtc"), ("NVRTC64_100.DLL", "nvrtc"), ("nvrtc64_122.dll", "nvrtc"),
           ("cublas64_100.dll", "cublas"), ("nvcuda.dll", "libcuda")]  # fmt: skip
    no = [("nvrtc64_102_0.dll", "nvrtc"), ("cublas64_10.dll", "cublas"), ("cublasLt64_11.dll", "cublas"),
          ("nvrtc64_92.dll", "cublas"), ("nvml.dll", "libcuda")]  # fmt: skip
    assert all(libnames.matches_libgpuarray_name(n, k, True) for n, k in yes)
    assert not any(libnames.matches_libgpuarray_name(n, k, True) for n, k in no)
    assert libnames.matches_libgpuarray_name("libnvrtc.so", "nvrtc", False)
    assert not libnames.matches_libgpuarray_name("libnvrtc.so.10.2", "nvrtc", False)


def test_every_table_names_its_source():
    for name in ("KNOWN_CUDA_SOURCE", "WINDOWS_SHIPPED_SOURCE", "CUDNN_SOURCE", "LIBGPUARRAY_SOURCE",
                 "LINUX_SONAME_SOURCE"):  # fmt: skip
        assert "docs/knowledge/" in getattr(libnames, name)
    assert "9cec614" in libnames.LIBGPUARRAY_SOURCE
    assert "docs/knowledge/" in lib_probe.SOURCE


# --- parse_ldconfig_p ---------------------------------------------------------------------------


def test_parse_ldconfig_p_ubuntu1804():
    parsed = parse_ldconfig_p(data_bytes("ldconfig/ldconfig-p-ubuntu1804-cuda10.2-cudnn7.txt").decode())
    assert parsed["header_count"] == len(parsed["entries"]) == 26
    assert parsed["cache_file"] == "/etc/ld.so.cache"
    assert parsed["unparsed"] == 0 and "generator" not in parsed
    by_name = {}
    for entry in parsed["entries"]:
        by_name.setdefault(entry["name"], []).append(entry)
    [cudart] = by_name["libcudart.so.10.2"]
    assert cudart["path"] == "/usr/local/cuda-10.2/targets/x86_64-linux/lib/libcudart.so.10.2"
    assert cudart["arch"] == "x86-64" and cudart["flags"] == "libc6,x86-64"
    libcuda64, libcuda32 = by_name["libcuda.so.1"]
    assert libcuda64["arch"] == "x86-64" and "arch" not in libcuda32
    [libm] = by_name["libm.so.6"]
    assert libm["arch"] == "x86-64" and libm["flags"] == "libc6,x86-64, OS ABI: Linux 3.2.0"
    assert "arch" not in by_name["ld-linux.so.2"][0]
    assert {"libcublas.so.10", "libcudnn.so.7", "libnvrtc.so", "libcublas.so"} <= set(by_name)


def test_parse_ldconfig_p_ubuntu2204_with_trailer():
    parsed = parse_ldconfig_p(data_bytes("ldconfig/ldconfig-p-ubuntu2204-cuda11.8-cudnn8.txt").decode())
    assert parsed["header_count"] == len(parsed["entries"]) == 23
    assert parsed["generator"] == "ldconfig (Ubuntu GLIBC 2.35-0ubuntu3.8) stable release version 2.35"
    names = [e["name"] for e in parsed["entries"]]
    assert "libcudnn_ops_infer.so.8" in names and "libcudart.so.11.0" in names
    kinds = {library_kind_and_version(n, False)["kind"] for n in names if library_kind_and_version(n, False)}
    assert kinds == {"cudart", "cublas", "nvrtc", "cudnn", "libcuda", "nvml"}


def test_parse_ldconfig_p_hwcap_and_crlf():
    text = "2 libs found in cache `/etc/ld.so.cache'\r\n\tlibm.so.6 (libc6,x86-64, hwcap: 0x0000000000000002) => /lib/tls/libm.so.6\r\n\tlibx.so (libc6,AArch64) => /usr/lib/libx.so\r\n"
    parsed = parse_ldconfig_p(text)
    assert [e["arch"] for e in parsed["entries"]] == ["x86-64", "AArch64"]
    assert parsed["entries"][0]["path"] == "/lib/tls/libm.so.6"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "ldconfig: unrecognized option: p\n",
        "\x00\x01\x02 garbage ((( => \n\t=> nothing\n",
        "12 libs found in cache `/etc/ld.so.cache'\n\tlibcudart.so.10",  # truncated mid-line
        "\tlib (x) =>\n",
    ],
)
def test_parse_ldconfig_p_empty_truncated_and_garbage(text):
    parsed = parse_ldconfig_p(text)
    assert parsed["entries"] == []
    tomli_w.dumps(parsed)


def test_parse_ldconfig_p_unsupported_option_and_gbk_bytes():
    parsed = parse_ldconfig_p(data_bytes("ldconfig/ldconfig-p-unsupported-option.txt").decode())
    assert parsed["entries"] == [] and parsed["unparsed"] == 1
    text, _encoding = decode_output("\t库.so (libc6,x86-64) => /opt/库/lib.so\n".encode("gbk"))
    parsed = parse_ldconfig_p(text)
    assert len(parsed["entries"]) == 1
    assert parse_ldconfig_p(b"\xff\xfe\x00junk")["entries"] == []  # type: ignore[arg-type]
    assert parse_ldconfig_p(None)["entries"] == []  # type: ignore[arg-type]


# --- search order (pure) --------------------------------------------------------------------------


def test_posix_search_order():
    order = posix_search_order("/opt/a::/opt/a/", "/work", ("/lib", "/usr/lib"), ("/usr/local/cuda/lib64",))
    assert [(o["source"], o["dir"]) for o in order] == [
        ("LD_LIBRARY_PATH", "/opt/a"),
        ("LD_LIBRARY_PATH", "/work"),
        ("LD_LIBRARY_PATH", "/opt/a/"),
        ("ldconfig", "/etc/ld.so.cache"),
        ("default", "/lib"),
        ("default", "/usr/lib"),
        ("cuda_install", "/usr/local/cuda/lib64"),
    ]
    assert order[1]["means_cwd"] is True
    assert order[2]["duplicate_of"] == 0
    assert order[6]["loader_searches"] is False
    assert [o["order"] for o in order] == list(range(7))


def test_windows_search_order():
    order = windows_search_order(
        r"C:\envs\theano",
        r"C:\Windows",
        r"C:\work",
        r'C:\envs\theano\Library\bin;"C:\CUDA\v9.2\bin";%CUDA_PATH%\bin;;c:\windows\system32\\',
        {"CUDA_PATH": r"C:\CUDA\v10.2"}.get,
    )
    assert [(o["source"], o["dir"]) for o in order] == [
        ("exe_dir", r"C:\envs\theano"),
        ("system32", r"C:\Windows\System32"),
        ("windows", r"C:\Windows"),
        ("cwd", r"C:\work"),
        ("PATH", r"C:\envs\theano\Library\bin"),
        ("PATH", r"C:\CUDA\v9.2\bin"),
        ("PATH", r"%CUDA_PATH%\bin"),  # searched literally: Windows does not expand it
        ("PATH", "c:\\windows\\system32\\\\"),
    ]
    assert order[6]["unexpanded_vars"] == ["CUDA_PATH"] and order[6]["path_index"] == 2
    assert order[7]["duplicate_of"] == 1 and order[7]["path_index"] == 4
    # no --python: no exe dir; no SystemRoot: no system dirs
    order = windows_search_order(None, None, r"C:\work", r"C:\x")
    assert [o["source"] for o in order] == ["cwd", "PATH"]


def test_scan_search_order_and_winners(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    touch(a, "cudnn64_7.dll", "nvrtc64_92.dll")
    touch(b, "CUDNN64_7.DLL", "cudart64_92.dll")
    order = windows_search_order(None, None, None, "%s;%s;%s" % (a, b, a))
    found, complete = scan_search_order(order, True)
    assert complete is True
    assert [(f["name"], f["order"]) for f in found] == [
        ("cudnn64_7.dll", 0), ("nvrtc64_92.dll", 0), ("CUDNN64_7.DLL", 1), ("cudart64_92.dll", 1),
    ]  # fmt: skip
    winners = pick_winners(found, True)
    assert winners["cudnn"]["cudnn64_7.dll"]["dir"] == str(a)
    assert winners["cudnn"]["cudnn64_7.dll"]["copies"] == 2  # the same name, case-insensitively
    assert "CUDNN64_7.DLL" not in winners["cudnn"]
    assert winners["cudart"]["cudart64_92.dll"]["cuda"] == "9.2"
    found, complete = scan_search_order(order, True, time_left=lambda: 0.0)
    assert found == [] and complete is False


# --- collect -----------------------------------------------------------------------------------------


@pytest.fixture
def linux_world(tmp_path: Path, monkeypatch):
    """LD_LIBRARY_PATH dir, a dir only the (fake) cache knows, a default dir and a CUDA dir."""
    ld = tmp_path / "ld"
    cached = tmp_path / "cuda-10.2" / "lib64"
    default = tmp_path / "usr-lib"
    cuda_install = tmp_path / "usr-local-cuda-lib64"
    touch(ld, "libcudart.so.9.0", "libcudnn.so.7")
    touch(cached, "libcudart.so.10.2", "libcublas.so.10", "libnvrtc.so.10.2", "libcuda.so.1")
    os.symlink("libnvrtc.so.10.2", str(cached / "libnvrtc.so"))
    os.symlink("libcublas.so.10", str(cached / "libcublas.so"))
    touch(default, "libcudart.so.10.2", "libcuda.so")
    touch(cuda_install, "libnvrtc.so.11.2")
    os.symlink("libnvrtc.so.11.9", str(cuda_install / "libnvrtc.so"))  # dangling
    monkeypatch.setattr(lib_probe, "LINUX_DEFAULT_DIRS", (str(default),))
    monkeypatch.setattr(lib_probe, "LINUX_CUDA_DIRS", (str(cuda_install),))
    monkeypatch.setattr(lib_probe, "LDCONFIG_FALLBACKS", ())
    monkeypatch.setattr(lib_probe, "host_ldconfig_arch", lambda: "x86-64")
    lines = ["%d libs found in cache `/etc/ld.so.cache'" % 8]
    for name in ("libnvrtc.so.10.2", "libnvrtc.so", "libcudart.so.10.2", "libcuda.so.1", "libcublas.so.10",
                 "libcublas.so"):  # fmt: skip
        lines.append("\t%s (libc6,x86-64) => %s/%s" % (name, cached, name))
    lines.append("\tlibcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1")
    lines.append("\tlibcudnn.so.8 (libc6,x86-64) => %s/gone/libcudnn.so.8" % tmp_path)  # stale cache entry
    return {"ld": ld, "cached": cached, "default": default, "cuda_install": cuda_install, "ldconfig": "\n".join(lines) + "\n"}


@posix_only
def test_collect_linux_with_fake_ldconfig(tmp_path: Path, fake_tools, ctx_factory, linux_world):
    fake_tools.add("ldconfig", by_args={"-p": (linux_world["ldconfig"], 0)}, rc=2)
    ctx = ctx_factory(path_dirs=[fake_tools.bindir], env={"LD_LIBRARY_PATH": str(linux_world["ld"])})
    ctx = structs.replace(ctx, platform="linux")
    table = lib_probe.collect(ctx)
    tomli_w.dumps({"libraries": table})

    assert table["os_rules"] == "linux"
    assert table["ldconfig"]["rc"] == 0 and table["ldconfig"]["argv"][1] == "-p"
    assert table["ldconfig_cache"]["entries"] == 8 and table["ldconfig_cache"]["header_count"] == 8
    assert [o["source"] for o in table["search_order"]] == ["LD_LIBRARY_PATH", "ldconfig", "default", "cuda_install"]

    found = table["found"]
    assert [f["source"] for f in found][:2] == ["LD_LIBRARY_PATH", "LD_LIBRARY_PATH"]
    by_path = {f["path"]: f for f in found}
    assert by_path[str(linux_world["cached"] / "libnvrtc.so")]["link_to"] == "libnvrtc.so.10.2"
    assert by_path["/usr/lib/i386-linux-gnu/libcuda.so.1"]["arch_mismatch"] is True
    assert by_path[str(tmp_path / "gone" / "libcudnn.so.8")]["exists"] is False
    dangling = by_path[str(linux_world["cuda_install"] / "libnvrtc.so")]
    assert dangling["dangling"] is True and dangling["loader_searches"] is False

    winner = table["winner"]
    assert winner["cudart"]["libcudart.so.9.0"]["source"] == "LD_LIBRARY_PATH"
    assert winner["cudart"]["libcudart.so.10.2"]["source"] == "ldconfig"
    assert winner["cudart"]["libcudart.so.10.2"]["copies"] == 2  # the cache's and /usr/lib's
    assert winner["libcuda"]["libcuda.so.1"]["path"] == str(linux_world["cached"] / "libcuda.so.1")
    assert winner["libcuda"]["libcuda.so"]["source"] == "default"
    assert "libcudnn.so.8" not in winner["cudnn"]  # stale cache entry
    assert "libnvrtc.so.11.2" not in winner["nvrtc"]  # /usr/local/cuda/lib64 is not searched by ld.so
    assert winner["cudnn"]["libcudnn.so.7"]["cudnn"] == "7"

    gpuarray = table["libgpuarray_names"]
    assert gpuarray["nvrtc"] == {"asks_for": "libnvrtc.so", "found": ["libnvrtc.so"]}
    assert gpuarray["cublas"]["found"] == ["libcublas.so"]
    assert gpuarray["libcuda"]["found"] == ["libcuda.so"]
    assert table["kinds_found"] == ["cublas", "cudart", "cudnn", "libcuda", "nvrtc"]


def _driver_world(tmp_path: Path, fake_tools, monkeypatch, *names: str, links: dict[str, str]) -> dict:
    """A Linux loader cache holding a driver's files and their soname links; ldconfig -p lists the links."""
    lib = tmp_path / "x86_64-linux-gnu"
    touch(lib, *names)
    for link, target in links.items():
        os.symlink(target, str(lib / link))
    monkeypatch.setattr(lib_probe, "LINUX_DEFAULT_DIRS", ())
    monkeypatch.setattr(lib_probe, "LINUX_CUDA_DIRS", ())
    monkeypatch.setattr(lib_probe, "LDCONFIG_FALLBACKS", ())
    monkeypatch.setattr(lib_probe, "host_ldconfig_arch", lambda: "x86-64")
    listed = sorted(links)  # ld.so's cache holds sonames: the links ldconfig made
    lines = ["%d libs found in cache `/etc/ld.so.cache'" % len(listed)]
    lines += ["\t%s (libc6,x86-64) => %s/%s" % (name, lib, name) for name in listed]
    fake_tools.add("ldconfig", by_args={"-p": ("\n".join(lines) + "\n", 0)}, rc=2)
    return {"lib": lib}


@posix_only
@pytest.mark.parametrize("names, links, expected", [
    # the driver as NVIDIA's installer leaves it: the JIT beside libcuda, with its soname link
    (("libcuda.so.367.44", "libnvidia-ptxjitcompiler.so.367.44"),
     {"libcuda.so.1": "libcuda.so.367.44", "libnvidia-ptxjitcompiler.so.1": "libnvidia-ptxjitcompiler.so.367.44"}, True),
    # the file without the link libcuda asks for (void-packages#7494)
    (("libcuda.so.384.69", "libnvidia-ptxjitcompiler.so.384.69"), {"libcuda.so.1": "libcuda.so.384.69"}, False),
    # a distribution's libcuda package without its JIT package (libgpuarray#289)
    (("libcuda.so.367.44",), {"libcuda.so.1": "libcuda.so.367.44"}, False),
])
def test_the_drivers_ptx_jit_is_found_only_by_the_name_libcuda_loads(
        tmp_path: Path, fake_tools, ctx_factory, monkeypatch, names, links, expected) -> None:
    from legacydoc.derive import has_ptxjit

    _driver_world(tmp_path, fake_tools, monkeypatch, *names, links=links)
    ctx = structs.replace(ctx_factory(path_dirs=[fake_tools.bindir]), platform="linux")
    table = lib_probe.collect(ctx)
    tomli_w.dumps({"libraries": table})
    assert "ptxjit" in table["kinds_scanned"] and "libcuda" in table["kinds_found"]
    assert has_ptxjit({"libraries": table}) is expected
    # Unknown is not absent: a scan that did not look for it, or could not read the
    # loader cache, or stopped early, says nothing about the JIT.
    older = {k: v for k, v in table.items() if k != "kinds_scanned"}
    assert has_ptxjit({"libraries": older}) is None
    assert has_ptxjit({"libraries": dict(table, ldconfig=dict(table["ldconfig"], rc=1))}) is None
    assert has_ptxjit({"libraries": dict(table, scan_incomplete=True)}) is None


@posix_only
@pytest.mark.parametrize("platform", ["win32", "darwin"])
def test_a_windows_or_macos_scan_does_not_look_for_the_linux_jit(tmp_path: Path, platform: str) -> None:
    from legacydoc.derive import has_ptxjit

    ctx = ProbeContext(environ={"PATH": ""}, platform=platform, cwd=tmp_path, timeout=5.0)
    table = lib_probe.collect(ctx)
    assert "ptxjit" not in table["kinds_scanned"] and "libcuda" in table["kinds_scanned"]
    assert has_ptxjit({"libraries": table}) is None


@posix_only
def test_collect_linux_ldconfig_absent(tmp_path: Path, fake_tools, linux_world):
    ctx = ProbeContext(
        environ={"PATH": str(fake_tools.bindir), "LD_LIBRARY_PATH": str(linux_world["ld"])},
        platform="linux",
        cwd=tmp_path,
        timeout=5.0,
    )
    table = lib_probe.collect(ctx)
    assert "not found" in table["ldconfig"]["error"] and "rc" not in table["ldconfig"]
    assert "ldconfig_cache" not in table
    assert {f["source"] for f in table["found"]} == {"LD_LIBRARY_PATH", "default", "cuda_install"}
    assert table["winner"]["cudart"]["libcudart.so.10.2"]["source"] == "default"
    tomli_w.dumps({"libraries": table})


@posix_only
def test_collect_linux_ldconfig_fails(fake_tools, ctx_factory, linux_world):
    fake_tools.add("ldconfig", stderr=data_bytes("ldconfig/ldconfig-p-unsupported-option.txt"), rc=1)
    ctx = structs.replace(ctx_factory(path_dirs=[fake_tools.bindir]), platform="linux")
    table = lib_probe.collect(ctx)
    assert table["ldconfig"]["rc"] == 1 and "unrecognized option" in table["ldconfig"]["output"]
    assert "ldconfig_cache" not in table
    assert table["search_order"][0]["source"] == "ldconfig"
    tomli_w.dumps({"libraries": table})


@posix_only
def test_collect_linux_hanging_ldconfig_times_out(fake_tools, ctx_factory, linux_world):
    fake_tools.add("ldconfig", sleep=30)
    ctx = structs.replace(ctx_factory(path_dirs=[fake_tools.bindir], timeout=1.0), platform="linux")
    started = time.monotonic()
    table = lib_probe.collect(ctx)
    elapsed = time.monotonic() - started
    assert elapsed < ctx.timeout + 1.0
    assert table["ldconfig"]["timed_out"] is True and "rc" not in table["ldconfig"]
    assert "ldconfig_cache" not in table
    assert table["winner"]["cudart"]["libcudart.so.10.2"]["source"] == "default"  # scans still ran
    tomli_w.dumps({"libraries": table})


def test_collect_windows_on_any_host(tmp_path: Path):
    env_dir = tmp_path / "envs" / "theano"
    windows = tmp_path / "Windows"
    system32 = windows / "System32"
    cuda92 = tmp_path / "CUDA" / "v9.2" / "bin"
    cuda102 = tmp_path / "CUDA" / "v10.2" / "bin"
    cwd = tmp_path / "work"
    touch(env_dir, "python.exe", "cudnn64_7.dll")
    touch(system32, "nvcuda.dll", "nvml.dll", "kernel32.dll")
    touch(cuda92, "cudart64_92.dll", "nvrtc64_92.dll", "cublas64_92.dll", "cudnn64_7.dll")
    touch(cuda102, "cudart64_102.dll", "nvrtc64_102_0.dll", "cublas64_10.dll")
    cwd.mkdir()
    ctx = ProbeContext(
        python=str(env_dir / "python.exe"),
        environ={"Path": '%s;"%s";%%CUDA_PATH%%' % (cuda102, cuda92), "SystemRoot": str(windows), "CUDA_PATH": str(cuda102)},
        platform="win32",
        cwd=cwd,
        timeout=5.0,
    )
    table = lib_probe.collect(ctx)
    tomli_w.dumps({"libraries": table})
    assert table["os_rules"] == "windows" and "ldconfig" not in table and "exe_dir_known" not in table
    assert [o["source"] for o in table["search_order"]] == ["exe_dir", "system32", "windows", "cwd", "PATH", "PATH", "PATH"]
    winner = table["winner"]
    assert winner["cudnn"]["cudnn64_7.dll"]["source"] == "exe_dir" and winner["cudnn"]["cudnn64_7.dll"]["copies"] == 2
    assert winner["libcuda"]["nvcuda.dll"]["source"] == "system32"
    assert winner["nvml"]["nvml.dll"]["source"] == "system32"
    assert set(winner["cudart"]) == {"cudart64_102.dll", "cudart64_92.dll"}
    assert winner["cudart"]["cudart64_102.dll"]["cuda"] == "10.2"
    gpuarray = table["libgpuarray_names"]
    assert gpuarray["nvrtc"]["asks_for"] == "nvrtc64_<major><minor>.dll"
    assert gpuarray["nvrtc"]["found"] == ["nvrtc64_92.dll"]  # nvrtc64_102_0.dll is not a name it asks for
    assert gpuarray["cublas"]["found"] == ["cublas64_92.dll"]  # cublas64_10.dll would be "CUDA 1.0"
    assert gpuarray["nvrtc"]["fallback_names"][:2] == ["nvrtc64_91.dll", "nvrtc64_90.dll"]
    assert gpuarray["libcuda"] == {"asks_for": "nvcuda.dll", "found": ["nvcuda.dll"]}


def test_collect_windows_without_python_skips_exe_dir(tmp_path: Path):
    ctx = ProbeContext(environ={"PATH": ""}, platform="win32", cwd=tmp_path, timeout=5.0)
    table = lib_probe.collect(ctx)
    assert table["exe_dir_known"] is False
    assert [o["source"] for o in table["search_order"]] == ["cwd"]
    assert table["found"] == [] and table["winner"] == {}
    tomli_w.dumps({"libraries": table})


def test_fallback_list_matches_the_knowledge_table_for_the_last_release():
    """One fact, two places: the probe's constant must agree with rules/knowledge."""
    from legacydoc import knowledge
    from legacydoc.probes.libnames import LIBGPUARRAY_FALLBACK

    rows = knowledge.tables()["cuda_libnames"].data["libgpuarray"]["version"]
    released = [r for r in rows if not r.get("unreleased")]
    last = max(released, key=lambda r: tuple(int(p) for p in r["to"].split(".")))
    assert ["%d.%d" % v for v in LIBGPUARRAY_FALLBACK] == last["fallback"]


@posix_only
@pytest.mark.parametrize("stubs_first", [True, False])
def test_the_toolkits_stub_libcuda_is_named_where_libgpuarray_meets_it_first(
        tmp_path: Path, fake_tools, ctx_factory, monkeypatch, stubs_first) -> None:
    """libgpuarray opens libcuda.so: a stubs folder on LD_LIBRARY_PATH before any folder
    holding the driver's libcuda.so hands it the stub (Theano 6572); after one, it does not."""
    from legacydoc.derive import libcuda_stub

    world = _driver_world(tmp_path, fake_tools, monkeypatch, "libcuda.so.384.90",
                          links={"libcuda.so.1": "libcuda.so.384.90", "libcuda.so": "libcuda.so.1"})
    stubs = tmp_path / "cuda-9.0" / "lib64" / "stubs"
    touch(stubs, "libcuda.so")
    folders = [str(stubs), str(world["lib"])] if stubs_first else [str(world["lib"]), str(stubs)]
    ctx = ctx_factory(path_dirs=[fake_tools.bindir], env={"LD_LIBRARY_PATH": ":".join(folders)})
    table = lib_probe.collect(structs.replace(ctx, platform="linux"))
    record = {"system": {"os": "linux"}, "libraries": table,
              "env": {"variables": {"LD_LIBRARY_PATH": ":".join(folders)}}}
    # the scan's winner decides, whatever the variable's order would suggest alone
    assert libcuda_stub(record) == ((True, str(stubs / "libcuda.so")) if stubs_first else (False, None))


def test_without_a_scan_only_a_stubs_folder_first_on_ld_library_path_is_claimed(tmp_path: Path) -> None:
    from legacydoc.derive import libcuda_stub

    def record(value: str, os_name: str = "linux") -> dict:
        return {"system": {"os": os_name}, "env": {"variables": {"LD_LIBRARY_PATH": value}}}

    assert libcuda_stub(record("/opt/cuda/lib64/stubs/:/opt/cuda/lib64")) == (True, "/opt/cuda/lib64/stubs/libcuda.so")
    # a folder before it may hold the driver's libcuda.so: unknown, not "no stub"
    assert libcuda_stub(record("/usr/lib/nvidia-384:/opt/cuda/lib64/stubs")) == (None, None)
    # no stubs folder on the variable: /etc/ld.so.conf.d may still list one
    assert libcuda_stub(record("/opt/cuda/lib64")) == (None, None)
    assert libcuda_stub({"system": {"os": "linux"}}) == (None, None)
    assert libcuda_stub(record("/opt/cuda/lib64/stubs", os_name="windows")) == (None, None)
    # a complete scan that found no libcuda.so anywhere: no stub either
    scanned = dict(record("/opt/cuda/lib64/stubs"), libraries={
        "os_rules": "linux", "search_order": [], "winner": {},
        "ldconfig": {"argv": ["ldconfig", "-p"], "duration_s": 0.01, "timed_out": False, "rc": 0}})
    assert libcuda_stub(scanned) == (False, None)
    # one that stopped early says nothing beyond the variable
    partial = dict(scanned, libraries=dict(scanned["libraries"], scan_incomplete=True))
    assert libcuda_stub(partial) == (True, "/opt/cuda/lib64/stubs/libcuda.so")
