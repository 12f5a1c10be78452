"""The cuda probe: nvcc/version-file parsers on sample outputs (tests/data/nvcc/README.md says which are recorded), discovery helpers with
Windows-style paths, and collect() on fake toolkit trees with fake nvcc executables."""

from __future__ import annotations

import ntpath
import os
import posixpath
import time
from pathlib import Path
from typing import Any, Optional

import pytest
import tomli_w

from conftest import DATA, FakeTools, data_bytes, posix_only
from legacydoc.probes import cuda
from legacydoc.probes.context import ProbeContext
from legacydoc.probes.run import decode_output

WIN_CUDA = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA"


def no_none(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and no_none(v) for k, v in value.items())
    if isinstance(value, list):
        return all(no_none(v) for v in value)
    return True


def make_toolkit(
    root: Path,
    nvcc: Optional[str] = None,
    nvcc_sleep: Optional[float] = None,
    nvcc_rc: int = 0,
    version_txt: Optional[str] = None,
    version_json: Optional[str] = None,
    libdirs: tuple = ("lib64",),
    cuda_h: bool = True,
) -> Path:
    """A fake toolkit tree; ``nvcc`` names a sample output under tests/data/nvcc/."""
    root.mkdir(parents=True, exist_ok=True)
    if nvcc is not None or nvcc_sleep is not None:
        tools = FakeTools(root / "bin")
        tools.add("nvcc", stdout=data_bytes("nvcc/" + nvcc) if nvcc else b"", rc=nvcc_rc, sleep=nvcc_sleep)
    if version_txt:
        (root / "version.txt").write_bytes(data_bytes("nvcc/" + version_txt))
    if version_json:
        (root / "version.json").write_bytes(data_bytes("nvcc/" + version_json))
    if cuda_h:
        (root / "include").mkdir(exist_ok=True)
        (root / "include" / "cuda.h").write_text("/* fake */\n")
    for d in libdirs:
        (root / d).mkdir(parents=True, exist_ok=True)
    return root


# ----------------------------------------------------------------------------------------
# parse_nvcc_version
# ----------------------------------------------------------------------------------------
NVCC_CASES = [
    ("nvcc-8.0-linux.txt", "8.0", "8.0.61", "Tue_Jan_10_13:22:03_CST_2017", None),
    ("nvcc-9.0-linux.txt", "9.0", "9.0.176", "Fri_Sep__1_21:08:03_CDT_2017", None),
    ("nvcc-10.0-linux.txt", "10.0", "10.0.130", "Sat_Aug_25_21:08:01_CDT_2018", None),
    ("nvcc-10.1-linux.txt", "10.1", "10.1.105", "Fri_Feb__8_19:08:17_PST_2019", None),
    ("nvcc-10.2-linux.txt", "10.2", "10.2.89", "Wed_Oct_23_19:24:38_PDT_2019", None),
    ("nvcc-10.2-windows.txt", "10.2", "10.2.89", "Wed_Oct_23_19:32:27_Pacific_Daylight_Time_2019", None),
    ("nvcc-11.0-linux.txt", "11.0", "11.0.221", "Wed_Jul_22_19:09:09_PDT_2020", "cuda_11.0_bu.TC445_37.28845127_0"),
    ("nvcc-11.1-linux.txt", "11.1", "11.1.105", "Mon_Oct_12_20:09:46_PDT_2020", "cuda_11.1.TC455_06.29190527_0"),
    ("nvcc-12.6-linux.txt", "12.6", "12.6.68", "Wed_Aug_14_10:10:22_PDT_2024", "cuda_12.6.r12.6/compiler.34714021_0"),
    ("nvcc-13.0-linux.txt", "13.0", "13.0.88", "Wed_Aug_20_01:58:59_PM_PDT_2025", "cuda_13.0.r13.0/compiler.36424714_0"),
]


@pytest.mark.parametrize("name,release,full,built_on,build", NVCC_CASES)
def test_parse_nvcc_version_samples(name: str, release: str, full: str, built_on: str, build: Optional[str]) -> None:
    text, _enc = decode_output(data_bytes("nvcc/" + name))
    parsed = cuda.parse_nvcc_version(text)
    major, minor = (int(x) for x in release.split("."))
    expected = {
        "is_nvcc": True,
        "release": release,
        "major": major,
        "minor": minor,
        "full": full,
        "built_on": built_on,
        "built_year": int(built_on[-4:]),
    }
    if build:
        expected["build"] = build
    assert parsed == expected


def test_parse_nvcc_version_raw_crlf_text() -> None:
    # not passed through decode_output: "\r" must not leak into the values
    parsed = cuda.parse_nvcc_version(data_bytes("nvcc/nvcc-10.2-windows.txt").decode("ascii"))
    assert parsed["built_on"] == "Wed_Oct_23_19:32:27_Pacific_Daylight_Time_2019"
    assert parsed["full"] == "10.2.89"


def test_parse_nvcc_version_empty() -> None:
    assert cuda.parse_nvcc_version(data_bytes("nvcc/empty.txt").decode()) == {"is_nvcc": False}


def test_parse_nvcc_version_truncated_keeps_release_only() -> None:
    parsed = cuda.parse_nvcc_version(data_bytes("nvcc/truncated.txt").decode())
    assert parsed == {
        "is_nvcc": True,
        "release": "10.2",
        "major": 10,
        "minor": 2,
        "built_on": "Wed_Oct_23_19:24:38_PDT_2019",
        "built_year": 2019,
    }


def test_parse_nvcc_version_garbage() -> None:
    text, _enc = decode_output(data_bytes("nvcc/garbage.bin"))
    assert cuda.parse_nvcc_version(text) == {"is_nvcc": False}
    assert cuda.parse_nvcc_version(data_bytes("nvcc/garbage.bin").decode("latin-1")) == {"is_nvcc": False}


def test_parse_nvcc_version_gbk() -> None:
    raw = data_bytes("nvcc/gbk-not-found.txt")
    text, enc = decode_output(raw, ["utf-8", "gbk"])
    assert enc == "gbk" and "nvcc" in text
    assert cuda.parse_nvcc_version(text) == {"is_nvcc": False}
    assert cuda.parse_nvcc_version(raw.decode("latin-1")) == {"is_nvcc": False}


@pytest.mark.parametrize("bad", [None, 12, b"release 10.2, V10.2.89", "\x00" * 1000, "release 99999999999999999999.1, V1.2.3"])
def test_parse_nvcc_version_never_raises(bad: Any) -> None:
    assert isinstance(cuda.parse_nvcc_version(bad), dict)


# ----------------------------------------------------------------------------------------
# version.txt / version.json
# ----------------------------------------------------------------------------------------
def test_parse_version_txt() -> None:
    assert cuda.parse_version_txt(data_bytes("nvcc/version-10.0.txt").decode()) == {"version": "10.0", "full": "10.0.130"}
    assert cuda.parse_version_txt(data_bytes("nvcc/version-9.0.txt").decode()) == {"version": "9.0", "full": "9.0.176"}
    assert cuda.parse_version_txt("CUDA Version 8.0") == {"version": "8.0"}
    for bad in ("", "garbage", data_bytes("nvcc/garbage.bin").decode("latin-1"), None):
        assert cuda.parse_version_txt(bad) == {}  # type: ignore[arg-type]


def test_parse_version_json() -> None:
    assert cuda.parse_version_json(data_bytes("nvcc/version-11.1.json").decode()) == {
        "version": "11.1",
        "full": "11.1.1",
        "nvcc_version": "11.1.105",
        "cudart_version": "11.1.74",
    }
    assert cuda.parse_version_json('\ufeff{"cuda": {"version": "12.6.2"}}') == {"version": "12.6", "full": "12.6.2"}
    for bad in ("", "{", "[]", '{"cuda": 3}', '{"cuda": {"version": "x"}}', None, data_bytes("nvcc/gbk-not-found.txt").decode("latin-1")):
        assert cuda.parse_version_json(bad) == {}  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------
# Pure discovery helpers, Windows-style strings (no filesystem)
# ----------------------------------------------------------------------------------------
def test_split_path_list_windows_quotes_and_empties() -> None:
    value = r'C:\Windows\system32;"%s\v10.2\bin";;  C:\tools ;' % WIN_CUDA
    assert cuda.split_path_list(value, ";") == [r"C:\Windows\system32", WIN_CUDA + r"\v10.2\bin", r"C:\tools"]


def test_nvcc_on_path_windows_order_and_case() -> None:
    present = {(WIN_CUDA + r"\v10.2\bin\nvcc.exe").lower(), (WIN_CUDA + r"\v9.0\bin\nvcc.exe").lower()}
    entries = [
        r"C:\Windows",
        WIN_CUDA + r"\v10.2\bin",
        WIN_CUDA.upper() + r"\V10.2\BIN\\",  # same directory spelt differently
        WIN_CUDA + r"\v9.0\bin",
    ]
    hits = cuda.nvcc_on_path(entries, ntpath, True, is_file=lambda p: p.lower() in present)
    assert hits == [WIN_CUDA + r"\v10.2\bin\nvcc.exe", WIN_CUDA + r"\v9.0\bin\nvcc.exe"]


def test_nvcc_names_per_os() -> None:
    assert cuda.nvcc_names(True) == ("nvcc.exe",)
    assert cuda.nvcc_names(False) == ("nvcc",)


def test_root_of_nvcc() -> None:
    assert cuda.root_of_nvcc(WIN_CUDA + r"\v10.2\bin\nvcc.exe", ntpath) == WIN_CUDA + r"\v10.2"
    assert cuda.root_of_nvcc("/usr/local/cuda-10.2/bin/nvcc", posixpath) == "/usr/local/cuda-10.2"
    assert cuda.root_of_nvcc("/usr/bin/nvcc", posixpath) == "/usr"


def test_cuda_env_windows_case_insensitive_and_ordered() -> None:
    environ = {
        "Path": r"C:\Windows",
        "CUDA_PATH_V10_2": WIN_CUDA + r"\v10.2",
        "cuda_path": WIN_CUDA + r"\v10.2",
        "CUDA_PATH_V9_0": WIN_CUDA + r"\v9.0",
        "CUDA_PATH_V10_0": WIN_CUDA + r"\v10.0",
        "CUDA_HOME": "",
    }
    env = cuda.cuda_env(environ, is_windows=True)
    assert list(env) == ["cuda_path", "CUDA_PATH_V9_0", "CUDA_PATH_V10_0", "CUDA_PATH_V10_2", "CUDA_HOME"]
    assert env["CUDA_HOME"] == ""
    # POSIX names are case-sensitive
    assert cuda.cuda_env({"cuda_path": "/x", "CUDA_ROOT": "/y"}, is_windows=False) == {"CUDA_ROOT": "/y"}


def test_windows_default_roots_sorted_by_version() -> None:
    listing = {ntpath.join(r"C:\Program Files", "NVIDIA GPU Computing Toolkit", "CUDA"): ["v11.8", "v9.0", "v10.2", "v10.0", "readme.txt"]}
    roots = cuda.windows_default_roots([r"C:\Program Files", ""], ntpath, listdir=lambda p: listing.get(p, []))
    assert roots == [WIN_CUDA + r"\v9.0", WIN_CUDA + r"\v10.0", WIN_CUDA + r"\v10.2", WIN_CUDA + r"\v11.8"]


def test_linux_default_roots() -> None:
    names = ["bin", "cuda-11.8", "cuda", "cuda-9.0", "cuda-10.2", "cudnn"]
    roots = cuda.linux_default_roots("/usr/local", posixpath, listdir=lambda p: names if p == "/usr/local" else [])
    assert roots == ["/usr/local/cuda", "/usr/local/cuda-9.0", "/usr/local/cuda-10.2", "/usr/local/cuda-11.8"]


def test_merge_candidates_windows_case_insensitive() -> None:
    merged = cuda.merge_candidates(
        [
            ("PATH", WIN_CUDA + r"\v10.2"),
            ("CUDA_PATH", '"' + WIN_CUDA.lower() + r'\V10.2\"'),
            ("CUDA_PATH_V10_2", WIN_CUDA + r"\v10.2"),
            ("CUDA_PATH_V9_0", WIN_CUDA + r"\v9.0"),
            ("default", WIN_CUDA + r"\v9.0"),
            ("CUDA_HOME", "  "),
        ],
        ntpath,
        is_windows=True,
    )
    assert [m["root"] for m in merged] == [WIN_CUDA + r"\v10.2", WIN_CUDA + r"\v9.0"]
    assert merged[0]["found_by"] == ["PATH", "CUDA_PATH", "CUDA_PATH_V10_2"]
    assert "aliases" not in merged[0]  # a case variant is the same place on Windows
    assert merged[1]["found_by"] == ["CUDA_PATH_V9_0", "default"]


def test_merge_candidates_posix_is_case_sensitive_and_resolves() -> None:
    links = {"/usr/local/cuda": "/usr/local/cuda-10.2"}
    merged = cuda.merge_candidates(
        [("default", "/usr/local/cuda"), ("default", "/usr/local/cuda-10.2"), ("CUDA_HOME", "/usr/local/CUDA-10.2")],
        posixpath,
        is_windows=False,
        realpath=lambda p: links.get(p, p),
    )
    assert [(m["root"], m.get("link_target")) for m in merged] == [
        ("/usr/local/cuda", "/usr/local/cuda-10.2"),
        ("/usr/local/CUDA-10.2", None),
    ]
    assert merged[0]["aliases"] == ["/usr/local/cuda-10.2"]


def test_wrapper_target() -> None:
    assert cuda.wrapper_target('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n') == "/usr/local/cuda-13.0/bin/nvcc"
    assert cuda.wrapper_target("#!/bin/sh\nexec '/opt/cuda/bin/nvcc' $*\n") == "/opt/cuda/bin/nvcc"
    assert cuda.wrapper_target("#!/bin/sh\nexec /usr/bin/nvcc-real \"$@\"\n") is None
    assert cuda.wrapper_target("\x7fELF exec /a/bin/nvcc") is None
    assert cuda.wrapper_target(None) is None  # type: ignore[arg-type]


def test_read_theano_settings_precedence(tmp_path: Path, ctx_factory) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".theanorc").write_text("[global]\nfloatX = float32\n[cuda]\nroot = /from/rc\n[dnn]\ninclude_path = /inc %(USER)s\n")
    ctx = ctx_factory()
    got = cuda.read_theano_settings(ctx, ("cuda.root", "dnn.include_path", "dnn.library_path"))
    rc = str(home / ".theanorc")
    assert got == {
        "cuda.root": {"value": "/from/rc", "source": rc},
        # Theano's ConfigParser interpolates %(USER)s: $USER, else the home folder's name
        "dnn.include_path": {"value": "/inc home", "source": rc},
    }
    ctx = ctx_factory(env={"THEANO_FLAGS": "cuda__root=/from/flags"})
    assert cuda.read_theano_settings(ctx, ("cuda.root",)) == {"cuda.root": {"value": "/from/flags", "source": "THEANO_FLAGS"}}


def test_read_theano_settings_broken_file_is_ignored(tmp_path: Path, ctx_factory) -> None:
    good, bad = tmp_path / "good.rc", tmp_path / "bad.rc"
    good.write_text("[cuda]\nroot = /good\n")
    bad.write_bytes(b"root = /no/section\n\xff\xfe")
    ctx = ctx_factory(env={"THEANORC": "%s:%s:%s" % (good, bad, tmp_path / "missing.rc")})
    assert cuda.read_theano_settings(ctx, ("cuda.root",)) == {"cuda.root": {"value": "/good", "source": str(good)}}


# ----------------------------------------------------------------------------------------
# collect() with fake toolkits and real subprocesses
# ----------------------------------------------------------------------------------------
@posix_only
def test_collect_path_nvcc_in_toolkit(tmp_path: Path, ctx_factory) -> None:
    tk = make_toolkit(tmp_path / "cuda-10.2", nvcc="nvcc-10.2-linux.txt", version_txt=None)
    ctx = ctx_factory(path_dirs=[tk / "bin"], env={"CUDA_PATH": str(tk) + "/"})
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    nvcc = facts["nvcc"]
    assert nvcc["found"] is True
    assert nvcc["path"] == str(tk / "bin" / "nvcc")
    assert (nvcc["version"], nvcc["version_full"]) == ("10.2", "10.2.89")
    assert nvcc["built_on"] == "Wed_Oct_23_19:24:38_PDT_2019"
    assert nvcc["toolkit_root"] == str(tk)
    assert nvcc["command"]["rc"] == 0 and nvcc["command"]["argv"] == [str(tk / "bin" / "nvcc"), "--version"]
    assert "release 10.2, V10.2.89" in nvcc["command"]["output"]
    assert facts["path_nvcc_all"] == [str(tk / "bin" / "nvcc")]
    assert facts["env"] == {"CUDA_PATH": str(tk) + "/"}
    [toolkit] = facts["toolkits"]
    assert toolkit == {
        "root": str(tk),
        "found_by": ["PATH", "CUDA_PATH"],
        "exists": True,
        "nvcc": str(tk / "bin" / "nvcc"),
        "has_include_cuda_h": True,
        "lib_dirs": [str(tk / "lib64")],
        "version": "10.2",
        "version_full": "10.2.89",
        "version_source": "nvcc",
    }
    assert len(ctx.log.results) == 1  # found twice, run once
    assert no_none(facts)
    tomli_w.dumps({"cuda": facts})


@posix_only
def test_collect_two_toolkits_path_and_cuda_path(tmp_path: Path, ctx_factory) -> None:
    tk102 = make_toolkit(tmp_path / "cuda-10.2", nvcc="nvcc-10.2-linux.txt", libdirs=("lib64", "targets/x86_64-linux/lib"))
    tk90 = make_toolkit(tmp_path / "cuda-9.0", version_txt="version-9.0.txt", libdirs=("lib64", "lib"), cuda_h=False)
    ctx = ctx_factory(path_dirs=[tk102 / "bin"], env={"CUDA_PATH": str(tk90)})
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert facts["nvcc"]["toolkit_root"] == str(tk102)
    assert [t["root"] for t in facts["toolkits"]] == [str(tk102), str(tk90)]
    first, second = facts["toolkits"]
    assert first["lib_dirs"] == [str(tk102 / "lib64"), str(tk102 / "targets" / "x86_64-linux" / "lib")]
    assert second == {
        "root": str(tk90),
        "found_by": ["CUDA_PATH"],
        "exists": True,
        "has_include_cuda_h": False,
        "lib_dirs": [str(tk90 / "lib64"), str(tk90 / "lib")],
        "version": "9.0",
        "version_full": "9.0.176",
        "version_source": "version.txt",
        "version_files": {"version.txt": "9.0.176"},
    }
    tomli_w.dumps({"cuda": facts})


@posix_only
def test_collect_runs_each_toolkit_nvcc_once(tmp_path: Path, ctx_factory) -> None:
    tk102 = make_toolkit(tmp_path / "cuda-10.2", nvcc="nvcc-10.2-linux.txt")
    tk90 = make_toolkit(tmp_path / "cuda-9.0", nvcc="nvcc-9.0-linux.txt", version_txt="version-9.0.txt")
    # 9.0 is on PATH too, behind 10.2: shadowed, but still listed
    ctx = ctx_factory(path_dirs=[tk102 / "bin", tk90 / "bin"], env={"CUDA_PATH": str(tk90), "CUDA_PATH_V9_0": str(tk90)})
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert facts["path_nvcc_all"] == [str(tk102 / "bin" / "nvcc"), str(tk90 / "bin" / "nvcc")]
    assert facts["nvcc"]["version"] == "10.2"
    by_root = {t["root"]: t for t in facts["toolkits"]}
    assert by_root[str(tk90)]["found_by"] == ["PATH", "CUDA_PATH", "CUDA_PATH_V9_0"]
    assert by_root[str(tk90)]["version_full"] == "9.0.176"
    assert by_root[str(tk90)]["version_source"] == "nvcc"
    assert by_root[str(tk90)]["version_files"] == {"version.txt": "9.0.176"}
    assert sorted(r.argv[0] for r in ctx.log.results) == sorted([str(tk102 / "bin" / "nvcc"), str(tk90 / "bin" / "nvcc")])


@posix_only
def test_collect_hanging_nvcc_times_out_once(tmp_path: Path, ctx_factory) -> None:
    hang = make_toolkit(tmp_path / "cuda-10.2", nvcc_sleep=30)
    other = make_toolkit(tmp_path / "cuda-9.0", nvcc_sleep=30, version_txt="version-9.0.txt")
    ctx = ctx_factory(path_dirs=[hang / "bin"], env={"CUDA_HOME": str(other)}, timeout=2.0)
    started = time.monotonic()
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert time.monotonic() - started < 3.0
    nvcc = facts["nvcc"]
    assert nvcc["found"] is True and nvcc["timed_out"] is True
    assert nvcc["command"]["timed_out"] is True and "rc" not in nvcc["command"]
    assert "version" not in nvcc
    first, second = facts["toolkits"]
    assert first["nvcc_timed_out"] is True and "version" not in first
    assert first["nvcc_command"]["timed_out"] is True
    assert second["nvcc_skipped"] == "an earlier nvcc timed out"
    assert second["version"] == "9.0" and second["version_source"] == "version.txt"
    assert len(ctx.log.results) == 1
    tomli_w.dumps({"cuda": facts})


@posix_only
def test_collect_version_json_only(tmp_path: Path, ctx_factory) -> None:
    tk = make_toolkit(tmp_path / "cuda-11.1", version_json="version-11.1.json", libdirs=("lib64",))
    ctx = ctx_factory(env={"CUDA_HOME": str(tk)})
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert facts["nvcc"] == {"found": False}
    assert facts["path_nvcc_all"] == []
    [toolkit] = facts["toolkits"]
    assert toolkit["found_by"] == ["CUDA_HOME"]
    assert (toolkit["version"], toolkit["version_full"], toolkit["version_source"]) == ("11.1", "11.1.1", "version.json")
    assert "nvcc" not in toolkit
    assert ctx.log.results == []


@posix_only
def test_collect_missing_dir_and_theano_cuda_root(tmp_path: Path, ctx_factory) -> None:
    tk = make_toolkit(tmp_path / "cuda-9.0", version_txt="version-9.0.txt")
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / ".theanorc").write_text("[cuda]\nroot = %s\n" % tk)
    ctx = ctx_factory(env={"CUDA_ROOT": str(tmp_path / "gone")})
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    gone, found = facts["toolkits"]
    assert gone == {"root": str(tmp_path / "gone"), "found_by": ["CUDA_ROOT"], "exists": False, "has_include_cuda_h": False, "lib_dirs": []}
    assert found["found_by"] == ["theano:cuda.root"] and found["version"] == "9.0"
    assert facts["theano_cuda_root"] == {"value": str(tk), "source": str(tmp_path / "home" / ".theanorc")}
    # THEANO_FLAGS beats the file
    ctx = ctx_factory(env={"THEANO_FLAGS": "cuda.root=%s" % (tmp_path / "other")})
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert facts["theano_cuda_root"]["source"] == "THEANO_FLAGS"
    assert [t["root"] for t in facts["toolkits"]] == [str(tmp_path / "other")]


@posix_only
def test_collect_usr_local_symlink(tmp_path: Path, ctx_factory) -> None:
    usr_local = tmp_path / "sys" / "usr" / "local"
    tk = make_toolkit(usr_local / "cuda-10.2", nvcc="nvcc-10.2-linux.txt")
    make_toolkit(usr_local / "cuda-9.0", version_txt="version-9.0.txt")
    (usr_local / "cuda").symlink_to("cuda-10.2")
    (usr_local / "bin").mkdir()
    ctx = ctx_factory(path_dirs=[usr_local / "cuda" / "bin"])
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    roots = [(t["root"], t.get("link_target"), t["found_by"]) for t in facts["toolkits"]]
    assert roots == [
        (str(usr_local / "cuda"), str(tk), ["PATH", "default"]),
        (str(usr_local / "cuda-9.0"), None, ["default"]),
    ]
    assert facts["toolkits"][0]["aliases"] == [str(tk)]
    assert facts["nvcc"]["toolkit_root"] == str(usr_local / "cuda")
    assert len(ctx.log.results) == 1


@posix_only
def test_collect_wrapper_script_nvcc(tmp_path: Path, ctx_factory, fake_tools) -> None:
    tk = make_toolkit(tmp_path / "cuda-12.6", nvcc="nvcc-12.6-linux.txt")
    wrapper = fake_tools.bindir / "nvcc"
    wrapper.write_text('#!/bin/sh\nexec %s/bin/nvcc "$@"\n' % tk)
    wrapper.chmod(0o755)
    ctx = ctx_factory(path_dirs=[fake_tools.bindir])
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    assert facts["nvcc"]["path"] == str(wrapper)
    assert facts["nvcc"]["resolves_to"] == str(tk / "bin" / "nvcc")
    assert facts["nvcc"]["version_full"] == "12.6.68"
    assert facts["nvcc"]["toolkit_root"] == str(tk)
    assert [t["root"] for t in facts["toolkits"]] == [str(tk)]
    assert len(ctx.log.results) == 1


@posix_only
def test_collect_nvcc_fails_with_gbk_output(tmp_path: Path, ctx_factory) -> None:
    tk = make_toolkit(tmp_path / "cuda-10.2", nvcc="gbk-not-found.txt", nvcc_rc=1, version_txt="version-10.0.txt")
    ctx = ctx_factory(path_dirs=[tk / "bin"], encodings=["gbk"])
    facts = cuda.collect(ctx, sysroot=str(tmp_path / "sys"))
    nvcc = facts["nvcc"]
    assert nvcc["command"]["rc"] == 1 and nvcc["command"]["encoding"] == "gbk"
    assert "不是内部或外部命令" in nvcc["command"]["output"]
    assert "version" not in nvcc
    [toolkit] = facts["toolkits"]
    assert toolkit["version_source"] == "version.txt" and toolkit["nvcc_command"]["rc"] == 1
    tomli_w.dumps({"cuda": facts})


def test_collect_windows_world_without_filesystem() -> None:
    """A Windows environment on any host: discovery runs on ntpath strings, nothing starts."""
    env = {
        "PATH": r"C:\Windows\system32;%s\v10.2\bin" % WIN_CUDA,
        "CUDA_PATH": WIN_CUDA + r"\v10.2",
        "CUDA_PATH_V10_2": WIN_CUDA.lower() + r"\v10.2",
        "CUDA_PATH_V9_0": WIN_CUDA + r"\v9.0",
        "ProgramFiles": r"C:\Program Files",
        "USERPROFILE": r"C:\Users\me",
    }
    ctx = ProbeContext(environ=env, platform="win32", timeout=2.0)
    facts = cuda.collect(ctx)
    assert facts["env"] == {"CUDA_PATH": env["CUDA_PATH"], "CUDA_PATH_V9_0": env["CUDA_PATH_V9_0"], "CUDA_PATH_V10_2": env["CUDA_PATH_V10_2"]}
    if os.name != "nt":
        assert facts["nvcc"] == {"found": False}
        assert [(t["root"], t["found_by"], t["exists"]) for t in facts["toolkits"]] == [
            (WIN_CUDA + r"\v10.2", ["CUDA_PATH", "CUDA_PATH_V10_2"], False),
            (WIN_CUDA + r"\v9.0", ["CUDA_PATH_V9_0"], False),
        ]
        assert ctx.log.results == []
    assert no_none(facts)
    tomli_w.dumps({"cuda": facts})


def test_program_files_dirs() -> None:
    ctx = ProbeContext(environ={"ProgramFiles": r"C:\Program Files (x86)", "ProgramW6432": r"C:\Program Files"}, platform="win32")
    assert cuda.program_files_dirs(ctx) == [r"C:\Program Files", r"C:\Program Files (x86)"]
    ctx = ProbeContext(environ={}, platform="win32")
    assert cuda.program_files_dirs(ctx) == [r"C:\Program Files"]


def test_data_files_present() -> None:
    names = {p.name for p in (DATA / "nvcc").iterdir()}
    for case in NVCC_CASES:
        assert case[0] in names
    assert {"empty.txt", "truncated.txt", "garbage.bin", "gbk-not-found.txt"} <= names


def test_read_theano_settings_records_backslash_loss(ctx_factory) -> None:
    flags = r'cuda.root=C:\CUDA\v9.0,dnn.include_path="C:\cudnn\include"'
    got = cuda.read_theano_settings(ctx_factory(env={"THEANO_FLAGS": flags}), ("cuda.root", "dnn.include_path"))
    assert got == {
        "cuda.root": {"value": "C:CUDAv9.0", "source": "THEANO_FLAGS", "typed": r"C:\CUDA\v9.0"},
        # quoted: the backslashes arrive intact, nothing to report
        "dnn.include_path": {"value": r"C:\cudnn\include", "source": "THEANO_FLAGS"},
    }
