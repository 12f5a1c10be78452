"""The cudnn probe: header-macro parser on written fixtures, library-name parser, and
collect() on fake toolkit / cuDNN trees (it must never start a process)."""

from __future__ import annotations

import ntpath
import os
from pathlib import Path
from typing import Any, Optional

import pytest
import tomli_w

from conftest import DATA, FakeTools, data_bytes, posix_only
from legacydoc.probes import cudnn
from legacydoc.probes.context import ProbeContext


def no_none(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and no_none(v) for k, v in value.items())
    if isinstance(value, list):
        return all(no_none(v) for v in value)
    return True


def put(path: Path, fixture: Optional[str] = None, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if fixture:
        path.write_bytes(data_bytes("cudnn/" + fixture))
    else:
        path.write_text(text)
    return path


# ----------------------------------------------------------------------------------------
# parse_cudnn_header
# ----------------------------------------------------------------------------------------
HEADER_CASES = [
    ("cudnn-7.6.5-cudnn.h", {"major": 7, "minor": 6, "patch": 5, "version": "7.6.5", "version_number": 7605}),
    ("cudnn-8.0.5-cudnn_version.h", {"major": 8, "minor": 0, "patch": 5, "version": "8.0.5", "version_number": 8005}),
    ("cudnn-9.3.0-cudnn_version.h", {"major": 9, "minor": 3, "patch": 0, "version": "9.3.0", "version_number": 90300}),
    ("cudnn-8.0.5-cudnn.h", {"includes_version_header": True}),
    ("cudnn-literal-version.h", {"major": 5, "minor": 1, "patch": 10, "version": "5.1.10", "version_number": 5110}),
    ("empty.h", {}),
    ("truncated.h", {"major": 7, "minor": 6}),
]


@pytest.mark.parametrize("name,expected", HEADER_CASES)
def test_parse_cudnn_header(name: str, expected: dict) -> None:
    assert cudnn.parse_cudnn_header(data_bytes("cudnn/" + name).decode("utf-8")) == expected


def test_parse_cudnn_header_garbage() -> None:
    raw = data_bytes("cudnn/garbage.bin")
    assert cudnn.parse_cudnn_header(raw.decode("latin-1")) == {}
    assert cudnn.parse_cudnn_header(raw) == {}  # type: ignore[arg-type]


def test_parse_cudnn_header_gbk_bytes() -> None:
    raw = data_bytes("cudnn/gbk-comment.h")
    expected = {"major": 7, "minor": 6, "patch": 5, "version": "7.6.5", "version_number": 7605}
    assert cudnn.parse_cudnn_header(raw.decode("gbk")) == expected
    assert cudnn.parse_cudnn_header(raw.decode("latin-1")) == expected


@pytest.mark.parametrize("bad", [None, 3.5, "#define CUDNN_MAJOR\n", "#define CUDNN_MAJOR 9" + "9" * 5000])
def test_parse_cudnn_header_never_raises(bad: Any) -> None:
    assert isinstance(cudnn.parse_cudnn_header(bad), dict)


def test_encoded_version_formula_changes_at_9() -> None:
    assert cudnn.encoded_version(7, 6, 5) == 7605
    assert cudnn.encoded_version(8, 9, 7) == 8907
    assert cudnn.encoded_version(9, 3, 0) == 90300


# ----------------------------------------------------------------------------------------
# parse_library_name
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,expected",
    [
        ("cudnn64_7.dll", {"kind": "dll", "major": 7}),
        ("CUDNN64_5.DLL", {"kind": "dll", "major": 5}),
        ("cudnn64_8.dll", {"kind": "dll", "major": 8}),
        ("cudnn_ops_infer64_8.dll", {"kind": "dll", "major": 8, "part": "ops_infer"}),
        ("cudnn_adv_train64_8.dll", {"kind": "dll", "major": 8, "part": "adv_train"}),
        ("cudnn_graph64_9.dll", {"kind": "dll", "major": 9, "part": "graph"}),
        ("cudnn_engines_runtime_compiled64_9.dll", {"kind": "dll", "major": 9, "part": "engines_runtime_compiled"}),
        ("cudnn64_65.dll", {"kind": "dll", "name_number": 65}),
        ("cudnn.lib", {"kind": "import_lib"}),
        ("cudnn_ops_infer.lib", {"kind": "import_lib", "part": "ops_infer"}),
        ("libcudnn.so", {"kind": "so"}),
        ("libcudnn.so.7", {"kind": "so", "major": 7}),
        ("libcudnn.so.7.6.5", {"kind": "so", "major": 7, "version": "7.6.5"}),
        ("libcudnn.so.7.0.5", {"kind": "so", "major": 7, "version": "7.0.5"}),
        # v1-v3 named after their CUDA release: v2 is libcudnn.so.6.5.48, v3 libcudnn.so.7.0.64
        ("libcudnn.so.6.5.48", {"kind": "so", "name_number": 65}),
        ("libcudnn.so.6.5", {"kind": "so", "name_number": 65}),
        ("libcudnn.so.7.0.64", {"kind": "so", "name_number": 70}),
        ("libcudnn.so.7.0", {"kind": "so", "name_number": 70}),
        ("libcudnn_ops_infer.so.8", {"kind": "so", "major": 8, "part": "ops_infer"}),
        ("libcudnn_engines_precompiled.so.9.3.0", {"kind": "so", "major": 9, "version": "9.3.0", "part": "engines_precompiled"}),
        ("libcudnn_static.a", None),
        ("libcudnn.so.7.bak", None),
        ("cudart64_102.dll", None),
        ("cudnn.h", None),
    ],
)
def test_parse_library_name(name: str, expected: Optional[dict]) -> None:
    assert cudnn.parse_library_name(name) == expected


# ----------------------------------------------------------------------------------------
# collect()
# ----------------------------------------------------------------------------------------
def make_cuda_with_cudnn7(root: Path) -> Path:
    put(root / "include" / "cuda.h", text="/* fake */\n")
    put(root / "include" / "cudnn.h", "cudnn-7.6.5-cudnn.h")
    lib = root / "lib64"
    put(lib / "libcudnn.so.7.6.5", text="")
    (lib / "libcudnn.so.7").symlink_to("libcudnn.so.7.6.5")
    (lib / "libcudnn.so").symlink_to("libcudnn.so.7")
    put(lib / "libcudart.so.10.0", text="")
    return root


@posix_only
def test_collect_headers_and_libraries_in_toolkit(tmp_path: Path, ctx_factory) -> None:
    tk = make_cuda_with_cudnn7(tmp_path / "cuda-10.0")
    # a fake nvcc that must not be run by this probe
    FakeTools(tk / "bin").add("nvcc", stdout=data_bytes("nvcc/nvcc-10.0-linux.txt"))
    ctx = ctx_factory(path_dirs=[tk / "bin"], env={"CUDA_PATH": str(tk)})
    facts = cudnn.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert ctx.log.results == []  # discovery only: no process started
    source = "toolkit:" + str(tk)
    assert facts["headers"] == [
        {
            "path": str(tk / "include" / "cudnn.h"),
            "found_by": [source],
            "header": "cudnn.h",
            "major": 7,
            "minor": 6,
            "patch": 5,
            "version": "7.6.5",
            "version_number": 7605,
        }
    ]
    libs = {lib["name"]: lib for lib in facts["libraries"]}
    assert sorted(libs) == ["libcudnn.so", "libcudnn.so.7", "libcudnn.so.7.6.5"]
    real = str(tk / "lib64" / "libcudnn.so.7.6.5")
    assert libs["libcudnn.so"] == {
        "path": str(tk / "lib64" / "libcudnn.so"),
        "link_target": real,
        "found_by": [source],
        "name": "libcudnn.so",
        "kind": "so",
        "major": 7,
        "version": "7.6.5",
    }
    assert libs["libcudnn.so.7"]["major"] == 7 and libs["libcudnn.so.7"]["link_target"] == real
    assert "link_target" not in libs["libcudnn.so.7.6.5"]
    assert facts["dnn_settings"] == {}
    assert str(tk / "include") in facts["include_dirs_searched"]
    assert str(tk / "lib64") in facts["library_dirs_searched"]
    assert no_none(facts)
    tomli_w.dumps({"cudnn": facts})


@posix_only
def test_collect_must_not_call_run(tmp_path: Path, ctx_factory, monkeypatch) -> None:
    tk = make_cuda_with_cudnn7(tmp_path / "cuda-10.0")
    FakeTools(tk / "bin").add("nvcc", stdout="x")

    def refuse(self, *args, **kwargs):
        raise AssertionError("cudnn probe started a process")

    monkeypatch.setattr(ProbeContext, "run", refuse)
    ctx = ctx_factory(path_dirs=[tk / "bin"])
    assert cudnn.collect(ctx, sysroot=str(tmp_path / "sys"))["headers"][0]["version"] == "7.6.5"


@posix_only
def test_collect_dnn_include_path_from_theanorc(tmp_path: Path, ctx_factory) -> None:
    cudnn9 = tmp_path / "opt" / "cudnn-9.3"
    put(cudnn9 / "include" / "cudnn.h", "cudnn-8.0.5-cudnn.h")  # v8+ cudnn.h: version elsewhere
    put(cudnn9 / "include" / "cudnn_version.h", "cudnn-9.3.0-cudnn_version.h")
    put(cudnn9 / "lib" / "libcudnn.so.9", text="")
    put(cudnn9 / "lib" / "libcudnn_ops.so.9", text="")
    put(cudnn9 / "lib" / "libcudnn_static.a", text="")
    home = tmp_path / "home"
    put(
        home / ".theanorc",
        text="[global]\ndevice = cuda\n\n[dnn]\ninclude_path = %s\nlibrary_path = %s\n" % (cudnn9 / "include", cudnn9 / "lib"),
    )
    ctx = ctx_factory()
    facts = cudnn.collect(ctx, sysroot=str(tmp_path / "sys"))
    rc = str(home / ".theanorc")
    assert facts["dnn_settings"] == {
        "include_path": str(cudnn9 / "include"),
        "library_path": str(cudnn9 / "lib"),
        "source": {"include_path": rc, "library_path": rc},
    }
    headers = {h["header"]: h for h in facts["headers"]}
    assert headers["cudnn.h"] == {
        "path": str(cudnn9 / "include" / "cudnn.h"),
        "found_by": ["theano:dnn.include_path"],
        "header": "cudnn.h",
        "includes_version_header": True,
    }
    version_h = headers["cudnn_version.h"]
    assert (version_h["major"], version_h["minor"], version_h["patch"]) == (9, 3, 0)
    assert version_h["version"] == "9.3.0" and version_h["version_number"] == 90300
    libs = {lib["name"]: lib for lib in facts["libraries"]}
    assert sorted(libs) == ["libcudnn.so.9", "libcudnn_ops.so.9"]
    assert libs["libcudnn_ops.so.9"]["part"] == "ops" and libs["libcudnn_ops.so.9"]["major"] == 9
    assert libs["libcudnn.so.9"]["found_by"] == ["theano:dnn.library_path"]
    tomli_w.dumps({"cudnn": facts})


@posix_only
def test_collect_windows_dll_names_via_flags_bin_path(tmp_path: Path, ctx_factory) -> None:
    bindir = tmp_path / "cudnn8" / "bin"
    for name in ("cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_cnn_infer64_8.dll", "cudart64_110.dll"):
        put(bindir / name, text="")
    ctx = ctx_factory(env={"THEANO_FLAGS": "device=cuda,dnn__bin_path=%s" % bindir})
    facts = cudnn.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert facts["dnn_settings"] == {"bin_path": str(bindir), "source": {"bin_path": "THEANO_FLAGS"}}
    assert [(lib["name"], lib["major"], lib.get("part")) for lib in facts["libraries"]] == [
        ("cudnn64_8.dll", 8, None),
        ("cudnn_cnn_infer64_8.dll", 8, "cnn_infer"),
        ("cudnn_ops_infer64_8.dll", 8, "ops_infer"),
    ]


@posix_only
def test_collect_base_path_env_and_system_dirs(tmp_path: Path, ctx_factory) -> None:
    sysroot = tmp_path / "sys"
    multiarch = sysroot / "usr" / "include" / "x86_64-linux-gnu"
    put(multiarch / "cudnn_version_v8.h", "cudnn-8.0.5-cudnn_version.h")
    (sysroot / "usr" / "include" / "cudnn_version.h").symlink_to(multiarch / "cudnn_version_v8.h")
    (sysroot / "usr" / "include" / "cudnn.h").symlink_to(tmp_path / "etc-alternatives-gone")  # dangling
    put(sysroot / "usr" / "lib" / "x86_64-linux-gnu" / "libcudnn.so.8.0.5", text="")
    base = tmp_path / "base"
    put(base / "include" / "cudnn.h", "cudnn-7.6.5-cudnn.h")
    put(base / "lib64" / "libcudnn.so.7", text="")
    envdir = tmp_path / "envcudnn"
    put(envdir / "include" / "cudnn.h", "cudnn-literal-version.h")
    ctx = ctx_factory(env={"THEANO_FLAGS": "dnn.base_path=%s" % base, "CUDNN_PATH": str(envdir)})
    facts = cudnn.collect(ctx, sysroot=str(sysroot))
    got = [(h["path"], h["found_by"], h.get("version"), h.get("link_target"), h.get("exists")) for h in facts["headers"]]
    assert got == [
        (str(base / "include" / "cudnn.h"), ["theano:dnn.base_path"], "7.6.5", None, None),
        (str(envdir / "include" / "cudnn.h"), ["CUDNN_PATH"], "5.1.10", None, None),
        (str(sysroot / "usr" / "include" / "cudnn.h"), ["system"], None, str(tmp_path / "etc-alternatives-gone"), False),
        (str(sysroot / "usr" / "include" / "cudnn_version.h"), ["system"], "8.0.5", str(multiarch / "cudnn_version_v8.h"), None),
        (str(multiarch / "cudnn_version_v8.h"), ["system"], "8.0.5", None, None),
    ]
    assert [(lib["name"], lib["major"], lib["found_by"]) for lib in facts["libraries"]] == [
        ("libcudnn.so.7", 7, ["theano:dnn.base_path"]),
        ("libcudnn.so.8.0.5", 8, ["system"]),
    ]
    assert facts["env"] == {"CUDNN_PATH": str(envdir)}
    assert no_none(facts)
    tomli_w.dumps({"cudnn": facts})


@posix_only
def test_collect_same_dir_from_two_sources_listed_once(tmp_path: Path, ctx_factory) -> None:
    tk = make_cuda_with_cudnn7(tmp_path / "cuda-10.0")
    ctx = ctx_factory(env={"CUDA_HOME": str(tk), "THEANO_FLAGS": "dnn.include_path=%s/" % (tk / "include")})
    facts = cudnn.collect(ctx, sysroot=str(tmp_path / "sys"))
    [header] = facts["headers"]
    assert header["found_by"] == ["theano:dnn.include_path", "toolkit:" + str(tk)]
    assert header["path"] == str(tk / "include" / "cudnn.h")


def test_collect_nothing_found(tmp_path: Path, ctx_factory) -> None:
    ctx = ctx_factory()
    facts = cudnn.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert facts == {"headers": [], "libraries": [], "dnn_settings": {}, "include_dirs_searched": [], "library_dirs_searched": []}
    tomli_w.dumps({"cudnn": facts})


def test_search_dirs_windows_layout() -> None:
    """Windows search places as ntpath strings: toolkit bin / lib\\x64, conda's Library."""
    ctx = ProbeContext(environ={"CONDA_PREFIX": r"C:\Miniconda3\envs\theano"}, platform="win32")
    root = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.0"
    toolkits = [{"root": root, "exists": True, "lib_dirs": [root + r"\lib\x64"]}, {"root": r"D:\gone", "exists": False}]
    settings = {"dnn.base_path": {"value": r"C:\tools\cudnn", "source": "THEANO_FLAGS"}}
    inc, lib = cudnn.search_dirs(ctx, toolkits, settings)
    assert inc == [
        ("theano:dnn.base_path", r"C:\tools\cudnn\include"),
        ("toolkit:" + root, root + r"\include"),
        ("CONDA_PREFIX", r"C:\Miniconda3\envs\theano\Library\include"),
    ]
    assert ("theano:dnn.base_path", r"C:\tools\cudnn\lib\x64") in lib
    assert ("theano:dnn.base_path", r"C:\tools\cudnn\bin") in lib
    assert ("toolkit:" + root, root + r"\bin") in lib
    assert ("toolkit:" + root, root + r"\lib\x64") in lib
    assert ("CONDA_PREFIX", r"C:\Miniconda3\envs\theano\Library\bin") in lib
    assert not any(src == "system" for src, _ in inc + lib)
    assert all(ntpath.isabs(d) for _, d in inc + lib)


def test_collect_windows_world_without_filesystem() -> None:
    env = {"CUDA_PATH": r"C:\CUDA\v10.0", "CUDNN_PATH": r"C:\cudnn", "THEANO_FLAGS": r"dnn.include_path=C:\cudnn\include"}
    ctx = ProbeContext(environ=env, platform="win32")
    facts = cudnn.collect(ctx)
    # Theano splits THEANO_FLAGS with POSIX shlex, which eats unquoted backslashes
    assert facts["dnn_settings"] == {
        "include_path": "C:cudnninclude",
        "source": {"include_path": "THEANO_FLAGS"},
        "typed": {"include_path": r"C:\cudnn\include"},
    }
    assert facts["env"] == {"CUDNN_PATH": r"C:\cudnn"}
    if os.name != "nt":
        assert facts["headers"] == [] and facts["libraries"] == []
    assert ctx.log.results == []
    tomli_w.dumps({"cudnn": facts})


def test_data_files_present() -> None:
    names = {p.name for p in (DATA / "cudnn").iterdir()}
    assert {case[0] for case in HEADER_CASES} | {"garbage.bin", "gbk-comment.h"} <= names
