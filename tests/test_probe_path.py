"""The path probe: PATH / LD_LIBRARY_PATH split with the probed OS's rules, what each
entry provides, duplicates and shadowing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import tomli_w

from legacydoc import structs
from legacydoc.probes import path as path_probe
from legacydoc.probes.context import ProbeContext
from legacydoc.probes.path import (
    describe_path,
    expand_windows_vars,
    find_shadowed,
    inspect_entries,
    parse_path,
    path_key,
    split_path_string,
    tool_file_names,
)
from tests.conftest import posix_only

CUDA_ROOT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.2"
WIN_PATH = r'C:\a;"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.2\bin";%CUDA_PATH%\bin;;c:\A' + "\\"


def touch(directory: Path, *names: str, executable: bool = False) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        target = directory / name
        target.write_bytes(b"")
        if executable:
            target.chmod(target.stat().st_mode | stat.S_IXUSR)


# --- pure splitting ----------------------------------------------------------------------


def test_windows_split_keeps_entries_as_written():
    assert split_path_string(WIN_PATH, True) == [
        r"C:\a",
        '"' + CUDA_ROOT + r'\bin"',
        r"%CUDA_PATH%\bin",
        "",
        "c:\\A\\",
    ]


def test_windows_split_quoted_semicolon_is_one_entry():
    assert split_path_string(r'"C:\odd;dir\bin";C:\b', True) == ['"C:\\odd;dir\\bin"', r"C:\b"]
    entries = parse_path(r'"C:\odd;dir\bin";C:\b', True)
    assert entries[0]["expanded"] == r"C:\odd;dir\bin" and entries[0]["quoted"] is True


def test_windows_parse_quotes_vars_empty_and_duplicates():
    entries = parse_path(WIN_PATH, True, {"CUDA_PATH": CUDA_ROOT}.get)
    assert [e["index"] for e in entries] == [0, 1, 2, 3, 4]
    assert entries[0] == {"index": 0, "entry": r"C:\a", "expanded": r"C:\a"}
    assert entries[1]["quoted"] is True
    assert entries[1]["expanded"] == CUDA_ROOT + r"\bin"
    # %CUDA_PATH% is reported and expanded; the expanded form equals entry 1
    assert entries[2]["entry"] == r"%CUDA_PATH%\bin"
    assert entries[2]["unexpanded_vars"] == ["CUDA_PATH"]
    assert "unresolved_vars" not in entries[2]
    assert entries[2]["expanded"] == CUDA_ROOT + r"\bin"
    assert entries[2]["duplicate_of"] == 1
    assert entries[3]["empty"] is True and "means_cwd" not in entries[3]
    # c:\A\ is C:\a: case-insensitive, trailing backslash ignored
    assert entries[4]["duplicate_of"] == 0


def test_windows_unresolved_var_stays_literal():
    entries = parse_path(r"%CUDA_PATH%\bin;%NOPE%", True, {}.get)
    assert entries[0]["expanded"] == r"%CUDA_PATH%\bin"
    assert entries[0]["unresolved_vars"] == ["CUDA_PATH"]
    assert entries[1]["unexpanded_vars"] == ["NOPE"] and entries[1]["unresolved_vars"] == ["NOPE"]
    assert "duplicate_of" not in entries[1]


def test_windows_var_lookup_through_context_is_case_insensitive():
    ctx = ProbeContext(environ={"Path": r"%cuda_path%\bin", "CUDA_PATH": CUDA_ROOT}, platform="win32")
    entries = parse_path(ctx.path_string, True, ctx.env)
    assert entries[0]["expanded"] == CUDA_ROOT + r"\bin"


def test_expand_windows_vars_several_and_parenthesised_names():
    text, names, unresolved = expand_windows_vars(
        r"%ProgramFiles(x86)%\x;%A%%B%", {"ProgramFiles(x86)": r"C:\PF86", "A": "a"}.get
    )
    assert text == r"C:\PF86\x;a%B%"
    assert names == ["ProgramFiles(x86)", "A", "B"] and unresolved == ["B"]


def test_path_key_ntpath_semantics():
    assert path_key("C:/Program Files/X/", True) == path_key(r"c:\program files\x", True)
    assert path_key("C:\\", True) == "c:\\"
    assert path_key("/usr/bin/", False) == "/usr/bin"
    assert path_key("/usr/Bin", False) != path_key("/usr/bin", False)  # POSIX is case-sensitive


def test_posix_split_empty_entries_and_duplicates():
    entries = parse_path("/usr/bin::/usr/local/cuda/bin/:/usr/bin/:", False)
    assert [e["entry"] for e in entries] == ["/usr/bin", "", "/usr/local/cuda/bin/", "/usr/bin/", ""]
    assert entries[1]["empty"] is True and entries[1]["means_cwd"] is True
    assert entries[3]["duplicate_of"] == 0
    assert entries[4]["empty"] is True
    # no Windows treatment on POSIX: ; and % are ordinary characters
    assert [e["entry"] for e in parse_path("/a;b:%X%", False)] == ["/a;b", "%X%"]
    assert "unexpanded_vars" not in parse_path("%X%", False)[0]


def test_unset_path_has_no_entries():
    assert parse_path("", False) == []
    assert parse_path("", True) == []
    facts = describe_path("", True)
    assert facts["count"] == 0 and facts["entries"] == [] and facts["shadowed"] == []


def test_surrounding_space_is_recorded():
    entries = parse_path(r"C:\a ;C:\b", True)
    assert entries[0]["surrounding_space"] is True and "surrounding_space" not in entries[1]


def test_tool_file_names():
    assert "nvcc.exe" in tool_file_names(True) and "cl.exe" in tool_file_names(True)
    assert "nvcc" in tool_file_names(False) and "cl" not in tool_file_names(False)
    assert "python3" in tool_file_names(False)


# --- filesystem through given directories ---------------------------------------------------


@pytest.fixture
def two_cuda_bins(tmp_path: Path) -> tuple[Path, Path]:
    v102 = tmp_path / "CUDA" / "v10.2" / "bin"
    v90 = tmp_path / "CUDA" / "v9.0" / "bin"
    touch(v102, "nvcc.exe", "cudart64_102.dll", "cublas64_10.dll", "nvrtc64_102_0.dll", "cudnn64_7.dll", "readme.txt")
    touch(v90, "NVCC.EXE", "cudart64_90.dll", "cublas64_90.dll", "cudnn64_7.dll")
    return v102, v90


def test_windows_provides_shadowing_and_cuda_versions(tmp_path: Path, two_cuda_bins):
    v102, v90 = two_cuda_bins
    missing = tmp_path / "nowhere"
    value = ";".join([str(v102), str(v90), str(missing)])
    facts = describe_path(value, True)
    first, second, third = facts["entries"]
    assert first["exists"] is True
    assert first["provides"] == ["nvcc.exe", "cublas64_10.dll", "cudart64_102.dll", "cudnn64_7.dll", "nvrtc64_102_0.dll"]
    assert first["cuda_versions"] == ["10.2"]  # cublas64_10's 10.1/10.2 narrowed by cudart64_102
    assert second["provides"][0] == "NVCC.EXE"  # found case-insensitively, reported as on disk
    assert second["cuda_versions"] == ["9.0"]
    assert third["exists"] is False and "cuda_versions" not in third
    assert facts["missing"] == [2]
    assert facts["shadowed"] == [
        {
            "tool": "nvcc.exe",
            "winner": str(v102),
            "winner_index": 0,
            "others": [str(v90)],
            "other_indices": [1],
        }
    ]
    [lib] = facts["shadowed_libraries"]
    assert lib["library"] == "cudnn64_7.dll" and lib["kind"] == "cudnn" and lib["winner_index"] == 0
    tomli_w.dumps(facts)


def test_mixed_directory_reports_every_cuda_version(tmp_path: Path):
    mixed = tmp_path / "bin"
    touch(mixed, "cudart64_102.dll", "cudart64_90.dll", "cublas64_10.dll")
    [entry] = describe_path(str(mixed), True)["entries"]
    assert entry["cuda_versions"] == ["9.0", "10.2"]


def test_duplicates_and_unexpanded_entries_do_not_shadow(tmp_path: Path, two_cuda_bins):
    v102, v90 = two_cuda_bins
    env = {"CUDA_BIN": str(v102)}
    value = ";".join(["%CUDA_BIN%", str(v90), str(v90).upper() if os.name == "nt" else str(v90) + "\\"])
    facts = describe_path(value, True, env.get)
    entries = facts["entries"]
    assert entries[0]["unexpanded_vars"] == ["CUDA_BIN"]
    assert "nvcc.exe" in entries[0]["provides"]  # what it would give if Windows expanded it
    assert entries[2]["duplicate_of"] == 1 and entries[2]["provides"] == entries[1]["provides"]
    assert facts["duplicates"] == 1
    assert facts["unexpanded"] == [0]
    # Windows does not expand %VAR% when searching, and a repeat is the same directory
    assert facts["shadowed"] == [] and facts["shadowed_libraries"] == []


@posix_only
def test_posix_tools_need_the_executable_bit(tmp_path: Path):
    bindir = tmp_path / "bin"
    touch(bindir, "nvcc", "python3", executable=True)
    touch(bindir, "gcc", "nvcc.exe")  # not executable / not a POSIX tool name
    touch(bindir, "libcudart.so.10.2", "libcudart.so")
    [entry] = describe_path(str(bindir), False)["entries"]
    assert entry["provides"] == ["nvcc", "python3", "libcudart.so", "libcudart.so.10.2"]
    assert entry["cuda_versions"] == ["10.2"]


def test_deadline_marks_entries_not_scanned(tmp_path: Path, two_cuda_bins):
    v102, _v90 = two_cuda_bins
    facts = describe_path(str(v102) + ";" + str(v102), True, time_left=lambda: 0.0)
    assert facts["entries"][0]["not_scanned"] is True and "provides" not in facts["entries"][0]
    assert facts["entries"][1]["not_scanned"] is True
    assert facts["scan_incomplete"] is True
    tomli_w.dumps(facts)


def test_inspect_and_find_shadowed_are_separately_usable(two_cuda_bins):
    v102, v90 = two_cuda_bins
    entries = inspect_entries(parse_path("%s;%s" % (v102, v90), True), True, ("nvcc.exe",))
    tools, libraries = find_shadowed(entries, True, ("nvcc.exe",))
    assert [t["tool"] for t in tools] == ["nvcc.exe"]
    assert [lib["library"] for lib in libraries] == ["cudnn64_7.dll"]


# --- collect -------------------------------------------------------------------------------------


@posix_only
def test_collect_linux_path_and_ld_library_path(tmp_path: Path, ctx_factory):
    cuda_bin = tmp_path / "cuda-10.2" / "bin"
    cuda_lib = tmp_path / "cuda-10.2" / "lib64"
    other_bin = tmp_path / "cuda-9.0" / "bin"
    touch(cuda_bin, "nvcc", executable=True)
    touch(other_bin, "nvcc", executable=True)
    touch(cuda_lib, "libcudart.so.10.2", "libcudart.so.10.2.89", "libnvrtc.so", "libcublas.so.10")
    ctx = ctx_factory(
        path_dirs=[cuda_bin, other_bin, cuda_bin],
        env={"LD_LIBRARY_PATH": "%s:%s/:" % (cuda_lib, cuda_lib)},
    )
    ctx = structs.replace(ctx, platform="linux")
    table = path_probe.collect(ctx)
    assert table["variable"] == "PATH" and table["os_rules"] == "posix" and table["separator"] == ":"
    assert table["entries"][0]["provides"][0] == "nvcc"
    assert table["entries"][2]["duplicate_of"] == 0
    assert table["duplicates"] >= 1
    assert {"tool": "nvcc", "winner": str(cuda_bin)}.items() <= table["shadowed"][0].items()
    assert table["shadowed"][0]["others"] == [str(other_bin)]
    assert table["ld_library_path_set"] is True
    ld = table["ld_library_path"]
    assert ld[0]["provides"] == ["libcublas.so.10", "libcudart.so.10.2", "libcudart.so.10.2.89", "libnvrtc.so"]
    assert ld[0]["cuda_versions"] == ["10.2"]
    assert ld[1]["duplicate_of"] == 0 and ld[2]["means_cwd"] is True
    tomli_w.dumps({"path": table})


def test_collect_windows_context_on_any_host(tmp_path: Path, two_cuda_bins):
    v102, v90 = two_cuda_bins
    environ = {"Path": '"%s";%%CUDA_PATH%%;%s' % (v90, v102), "CUDA_PATH": str(v102)}
    ctx = ProbeContext(environ=environ, platform="win32", cwd=tmp_path, timeout=5.0)
    table = path_probe.collect(ctx)
    assert table["os_rules"] == "windows" and table["separator"] == ";"
    assert "ld_library_path" not in table
    entries = table["entries"]
    assert entries[0]["quoted"] is True and entries[0]["cuda_versions"] == ["9.0"]
    assert entries[1]["unexpanded_vars"] == ["CUDA_PATH"] and entries[2]["duplicate_of"] == 1
    # only entry 0 is searched as written (1 is literal %CUDA_PATH%, 2 repeats it)
    assert table["shadowed"] == []
    tomli_w.dumps({"path": table})


def test_collect_darwin_reads_dyld_library_path(tmp_path: Path):
    lib = tmp_path / "lib"
    touch(lib, "libcudart.10.2.dylib", "libcudart.dylib")
    ctx = ProbeContext(environ={"PATH": "", "DYLD_LIBRARY_PATH": str(lib)}, platform="darwin", cwd=tmp_path)
    table = path_probe.collect(ctx)
    assert table["dyld_library_path"][0]["provides"] == ["libcudart.10.2.dylib", "libcudart.dylib"]
    assert table["dyld_library_path"][0]["cuda_versions"] == ["10.2"]
    tomli_w.dumps({"path": table})
