"""compilers probe: g++ -v / cl / clang++ parsers on sample outputs (tests/data/compilers/README.md says which are recorded), and the real
subprocess path with fake compilers on a PATH of their own."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path
from typing import Any, Optional

import pytest
import tomli_w

from conftest import DATA, FakeTools, data_bytes, posix_only
from legacydoc.probes import compilers, run_probe
from legacydoc.probes.compilers import parse_clang_version, parse_gxx_v, parse_msvc_banner
from legacydoc.probes.context import ProbeContext

SAMPLES = DATA / "compilers"


def text(name: str, encoding: str = "utf-8") -> str:
    return data_bytes("compilers/" + name).decode(encoding)


def isolated_ctx(tmp_path: Path, dirs: list, env: Optional[dict] = None, platform: str = "linux", **kwargs: Any) -> ProbeContext:
    """A context whose PATH is ``dirs`` plus a directory holding only cat and sleep (what
    the fake tools need). conftest's make_ctx adds /usr/bin, where a real g++ may live."""
    util = tmp_path / "util"
    util.mkdir(exist_ok=True)
    for tool in ("cat", "sleep"):
        link = util / tool
        found = shutil.which(tool, path="/usr/bin:/bin")
        if found and not link.exists():
            link.symlink_to(found)
    environ = {"PATH": os.pathsep.join([str(d) for d in dirs] + [str(util)]), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    environ.update(env or {})
    kwargs.setdefault("timeout", 5.0)
    return ProbeContext(environ=environ, platform=platform, cwd=tmp_path, **kwargs)


def no_none(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and no_none(v) for k, v in value.items())
    if isinstance(value, list):
        return all(no_none(v) for v in value)
    return value is not None


# ------------------------------------------------------------------------ g++ -v
GXX_CASES = {
    "gxx-mingw-builds-8.1.0-x86_64-posix-seh.txt": {
        "version": "8.1.0",
        "version_major": 8,
        "target": "x86_64-w64-mingw32",
        "bits": 64,
        "is_mingw": True,
        "thread_model": "posix",
        "exception_model": "seh",
        "exception_model_source": "vendor",
        "vendor": "x86_64-posix-seh-rev0, Built by MinGW-W64 project",
    },
    "gxx-mingw-builds-8.1.0-i686-posix-sjlj.txt": {
        "version": "8.1.0",
        "version_major": 8,
        "target": "i686-w64-mingw32",
        "bits": 32,
        "is_mingw": True,
        "thread_model": "posix",
        "exception_model": "sjlj",
        "exception_model_source": "vendor",
        "vendor": "i686-posix-sjlj-rev0, Built by MinGW-W64 project",
    },
    "gxx-mingw-builds-8.1.0-i686-win32-dwarf.txt": {
        "version": "8.1.0",
        "version_major": 8,
        "target": "i686-w64-mingw32",
        "bits": 32,
        "is_mingw": True,
        "thread_model": "win32",
        "exception_model": "dwarf",
        "exception_model_source": "vendor",
        "vendor": "i686-win32-dwarf-rev0, Built by MinGW-W64 project",
    },
    "gxx-conda-m2w64-5.3.0.txt": {
        "version": "5.3.0",
        "version_major": 5,
        "target": "x86_64-w64-mingw32",
        "bits": 64,
        "is_mingw": True,
        "thread_model": "posix",
        "exception_model": "seh",
        "exception_model_source": "default",
        "vendor": "Rev5, Built by MSYS2 project",
    },
    "gxx-tdm64-5.1.0.txt": {
        "version": "5.1.0",
        "version_major": 5,
        "target": "x86_64-w64-mingw32",
        "bits": 64,
        "is_mingw": True,
        "thread_model": "posix",
        "exception_model": "seh",
        "exception_model_source": "default",
        "vendor": "tdm64-1",
    },
    "gxx-linux-debian-12.2.0.txt": {
        "version": "12.2.0",
        "version_major": 12,
        "target": "x86_64-linux-gnu",
        "bits": 64,
        "is_mingw": False,
        "thread_model": "posix",
        "vendor": "Debian 12.2.0-14+deb12u1",
    },
    "gxx-linux-ubuntu-7.5.0.txt": {
        "version": "7.5.0",
        "version_major": 7,
        "target": "x86_64-linux-gnu",
        "bits": 64,
        "is_mingw": False,
        "thread_model": "posix",
        "vendor": "Ubuntu 7.5.0-3ubuntu1~18.04",
    },
}


@pytest.mark.parametrize("name", sorted(GXX_CASES))
def test_parse_gxx_v_samples(name: str) -> None:
    out = parse_gxx_v(text(name))
    line = out.pop("version_line")
    assert line.startswith("gcc version " + GXX_CASES[name]["version"])
    assert out == GXX_CASES[name]


def test_parse_gxx_v_crlf_and_lf_agree() -> None:
    crlf = text("gxx-mingw-builds-8.1.0-x86_64-posix-seh.txt")
    assert "\r\n" in crlf  # kept as Windows prints it
    assert parse_gxx_v(crlf) == parse_gxx_v(crlf.replace("\r\n", "\n"))


def test_parse_gxx_v_macos_shim_is_clang() -> None:
    out = parse_gxx_v(text("gxx-macos-apple-clang-12.0.0.txt"))
    assert out["is_clang"] is True
    assert out["clang_version"] == "12.0.0"
    assert "version" not in out and "exception_model" not in out


def test_parse_gxx_v_configure_flags_without_build_string() -> None:
    base = "Target: i686-w64-mingw32\nConfigured with: ../configure --target=i686-w64-mingw32 %s\nThread model: win32\ngcc version 4.9.2 (GCC) \n"
    assert parse_gxx_v(base % "--enable-sjlj-exceptions")["exception_model"] == "sjlj"
    assert parse_gxx_v(base % "--disable-sjlj-exceptions --with-dwarf2")["exception_model"] == "dwarf"
    out = parse_gxx_v(base % "--enable-threads=win32")
    assert "exception_model" not in out  # nothing says, and i686 has no single default
    assert out["vendor"] == "GCC" and out["bits"] == 32


def test_parse_gxx_v_translated_and_prerelease_lines() -> None:
    german = "Ziel: x86_64-linux-gnu\nThread-Modell: posix\ngcc-Version 12.2.0 (Debian 12.2.0-14)\n"
    assert parse_gxx_v(german)["version"] == "12.2.0"
    assert parse_gxx_v(german)["thread_model"] == "posix"
    chinese = "目标：x86_64-w64-mingw32\n线程模型：posix\ngcc 版本 8.1.0 (x86_64-posix-seh-rev0, Built by MinGW-W64 project)\n"
    out = parse_gxx_v(chinese)
    assert (out["version"], out["thread_model"]) == ("8.1.0", "posix")
    redhat = parse_gxx_v("Target: x86_64-redhat-linux\ngcc version 4.8.5 20150623 (Red Hat 4.8.5-44) (GCC) \n")
    assert (redhat["version"], redhat["vendor"], redhat["version_major"]) == ("4.8.5", "Red Hat 4.8.5-44", 4)


def test_parse_gxx_v_truncated_empty_garbage() -> None:
    truncated = parse_gxx_v(text("gxx-truncated.txt"))
    # Cut inside the configure line: what came before it is kept, the version is not invented.
    assert truncated == {"target": "x86_64-w64-mingw32", "thread_model": "posix", "bits": 64, "is_mingw": True}
    assert parse_gxx_v(text("gxx-empty.txt")) == {}
    garbage = data_bytes("compilers/garbage.bin")
    assert parse_gxx_v(garbage.decode("utf-8", errors="replace")) == {}
    assert parse_gxx_v(garbage.decode("latin-1")) == {}


# -------------------------------------------------------------------------- MSVC
MSVC_CASES = {
    "msvc-19.00-vs2015-x64.txt": ("19.00.24215.1", 1900, 190024215, "x64"),
    "msvc-19.16-vs2017-x86.txt": ("19.16.27045", 1916, 191627045, "x86"),
    "msvc-19.29-vs2019-x64.txt": ("19.29.30133", 1929, 192930133, "x64"),
    "msvc-19.38-vs2022-x64.txt": ("19.38.33130", 1938, 193833130, "x64"),
    "msvc-19.50-vs2026-arm64.txt": ("19.50.35717", 1950, 195035717, "ARM64"),
}


@pytest.mark.parametrize("name", sorted(MSVC_CASES))
def test_parse_msvc_banner_samples(name: str) -> None:
    out = parse_msvc_banner(text(name))
    version, msc_ver, full, arch = MSVC_CASES[name]
    assert out == {
        "version": version,
        "msc_ver": msc_ver,
        "msc_full_ver": full,
        "arch": arch,
        "banner": "Microsoft (R) C/C++ Optimizing Compiler Version %s for %s" % (version, arch),
    }


def test_parse_msvc_banner_chinese_gbk() -> None:
    raw = data_bytes("compilers/msvc-19.29-vs2019-x64-zh-gbk.txt")
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")  # really GBK, as cl.exe prints it on a Chinese Windows
    out = parse_msvc_banner(raw.decode("gbk"))
    assert out == {
        "version": "19.29.30133",
        "msc_ver": 1929,
        "msc_full_ver": 192930133,
        "arch": "x64",
        "banner": "用于 x64 的 Microsoft (R) C/C++ 优化编译器 19.29.30133 版",
    }
    # Decoded wrongly (what happens without the right code page) the numbers still come through.
    garbled = parse_msvc_banner(raw.decode("utf-8", errors="replace"))
    assert (garbled["msc_ver"], garbled["arch"]) == (1929, "x64")


def test_parse_msvc_banner_old_and_odd() -> None:
    vs2008 = parse_msvc_banner("Microsoft (R) 32-bit C/C++ Optimizing Compiler Version 15.00.30729.01 for 80x86\n")
    assert (vs2008["msc_ver"], vs2008["arch"]) == (1500, "x86")
    assert parse_msvc_banner(text("msvc-truncated.txt")) == {}
    assert parse_msvc_banner(text("msvc-empty.txt")) == {}
    assert parse_msvc_banner(data_bytes("compilers/garbage.bin").decode("latin-1")) == {}
    assert parse_msvc_banner("usage: cl [ option... ] filename... [ /link linkoption... ]\n") == {}


# ------------------------------------------------------------------------- clang
def test_parse_clang_version_samples() -> None:
    assert parse_clang_version(text("clang-macos-apple-12.0.0.txt")) == {
        "version": "12.0.0",
        "version_major": 12,
        "vendor": "Apple",
        "is_apple": True,
        "apple_build": "clang-1200.0.32.29",
        "target": "x86_64-apple-darwin19.6.0",
        "thread_model": "posix",
        "installed_dir": "/Library/Developer/CommandLineTools/usr/bin",
    }
    old = parse_clang_version(text("clang-macos-apple-llvm-10.0.1.txt"))
    assert (old["version"], old["apple_build"], old["is_apple"]) == ("10.0.1", "clang-1001.0.46.4", True)
    linux = parse_clang_version("Ubuntu clang version 14.0.0-1ubuntu1.1\nTarget: x86_64-pc-linux-gnu\n")
    assert (linux["version"], linux["vendor"], linux["is_apple"]) == ("14.0.0", "Ubuntu", False)
    assert parse_clang_version("") == {}
    assert parse_clang_version(data_bytes("compilers/garbage.bin").decode("latin-1")) == {}


def test_parsers_never_raise() -> None:
    rnd = random.Random(7)
    alphabet = "gcc version 8.1.0 ()-:：\r\n\t x86_64-w64-mingw32 Target Thread model posix C/C++ 19.29.30133 for x64 clang \x00\ufffd用于版"
    samples: list[Any] = [None, 0, b"bytes", "(" * 500, ")" * 500, "\n" * 1000]
    samples += ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(200))) for _ in range(300)]
    for name in sorted(os.listdir(SAMPLES)):
        raw = (SAMPLES / name).read_bytes()
        for cut in (1, len(raw) // 3, len(raw) // 2):
            samples.append(raw[:cut].decode("latin-1"))
    for sample in samples:
        for parser in (parse_gxx_v, parse_msvc_banner, parse_clang_version):
            assert isinstance(parser(sample), dict)  # type: ignore[arg-type]


# ----------------------------------------------------------------- pure helpers
def test_windows_conda_layout_is_beside_python_exe() -> None:
    # Theano looks in <dir of python.exe>\Library\mingw-w64\bin; conda's python.exe is in the prefix.
    prefix = compilers.prefix_of_python(r"C:\Users\lab\Anaconda3\envs\theano_old\python.exe", is_windows=True)
    assert prefix == r"C:\Users\lab\Anaconda3\envs\theano_old"
    assert compilers.conda_gxx_dir(prefix, is_windows=True) == r"C:\Users\lab\Anaconda3\envs\theano_old\Library\mingw-w64\bin"
    assert compilers.prefix_of_python(r"C:\proj\venv\Scripts\python.exe", is_windows=True) == r"C:\proj\venv"
    assert compilers.exe_name("g++", True) == "g++.exe" and compilers.exe_name("cl.exe", True) == "cl.exe"


def test_posix_conda_layout() -> None:
    assert compilers.prefix_of_python("/opt/conda/envs/t/bin/python3.7", is_windows=False) == "/opt/conda/envs/t"
    assert compilers.conda_gxx_dir("/opt/conda/envs/t", is_windows=False) == "/opt/conda/envs/t/bin"
    assert compilers.exe_name("g++", False) == "g++"


def test_windows_path_entries() -> None:
    path = r'C:\mingw64\bin;;"C:\Program Files\Microsoft Visual Studio\VC\bin";  ;C:\Windows'
    assert compilers.path_entries(path, ";") == [
        r"C:\mingw64\bin",
        r"C:\Program Files\Microsoft Visual Studio\VC\bin",
        r"C:\Windows",
    ]


def test_nvcc_host_windows_is_first_cl() -> None:
    msvc = {"found": True, "path": r"C:\VS\bin\Hostx64\x64\cl.exe", "version": "19.29.30133", "msc_ver": 1929}
    gxx = {"found": True, "path": r"C:\mingw64\bin\g++.exe", "version_major": 8}
    out = compilers.nvcc_host("windows", gxx_on_path=gxx, msvc=msvc, environ={"NVCC_CCBIN": "", "CUDAHOSTCXX": r"C:\x"})
    assert out == {
        "found": True,
        "source": "PATH",
        "compiler": "cl",
        "path": r"C:\VS\bin\Hostx64\x64\cl.exe",
        "version": "19.29.30133",
        "msc_ver": 1929,
        "env": {"CUDAHOSTCXX": r"C:\x"},
    }
    assert compilers.nvcc_host("windows", gxx_on_path=gxx, msvc={"found": False}) == {"found": False, "source": "PATH"}


def test_theano_cxx_windows_falls_back_to_conda() -> None:
    broken = {"found": True, "path": r"C:\old\g++.exe", "source": "PATH", "ok": False, "timed_out": False}
    conda = {"found": True, "path": r"C:\a3\Library\mingw-w64\bin\g++.exe", "source": "conda_prefix", "ok": True, "timed_out": False}
    assert compilers.theano_cxx("windows", [broken, conda]) == conda["path"]
    assert compilers.theano_cxx("linux", [broken, conda]) == ""  # the conda fallback is Windows-only
    assert compilers.theano_cxx("windows", [dict(broken, timed_out=True), conda]) is None


# ------------------------------------------------------- real subprocess path
@posix_only
def test_two_gxx_on_path_both_recorded_in_order(tmp_path: Path, fake_tools: FakeTools) -> None:
    mingw = fake_tools.add("g++", stderr=data_bytes("compilers/gxx-mingw-builds-8.1.0-x86_64-posix-seh.txt"))
    other = FakeTools(tmp_path / "second" / "bin")
    debian = other.add("g++", stderr=data_bytes("compilers/gxx-linux-debian-12.2.0.txt"))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir, other.bindir])
    facts = compilers.collect(ctx)

    assert facts["found"] is True
    gxx = facts["gxx"]
    assert gxx["path"] == str(mingw) and gxx["source"] == "PATH"
    assert (gxx["version"], gxx["target"], gxx["thread_model"], gxx["exception_model"]) == (
        "8.1.0",
        "x86_64-w64-mingw32",
        "posix",
        "seh",
    )
    assert gxx["is_mingw"] is True and gxx["bits"] == 64 and gxx["ok"] is True
    assert gxx["command"]["argv"] == [str(mingw), "-v"] and gxx["command"]["rc"] == 0
    assert [e["path"] for e in facts["gxx_all"]] == [str(mingw), str(debian)]
    assert [e["version"] for e in facts["gxx_all"]] == ["8.1.0", "12.2.0"]
    assert facts["gxx_all"][0] == gxx and facts["gxx_count"] == 2
    assert facts["theano_cxx"] == str(mingw)
    assert facts["gcc"] == {"found": False}
    assert facts["nvcc_host"]["compiler"] == "g++" and facts["nvcc_host"]["gcc_major"] == 8
    assert "msvc" not in facts and "clang" not in facts  # not this OS's compilers
    tomli_w.dumps({"compilers": facts})
    assert no_none(facts)


@posix_only
def test_same_gxx_twice_on_path_is_one(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("g++", stderr=data_bytes("compilers/gxx-linux-ubuntu-7.5.0.txt"))
    alias = tmp_path / "alias"
    alias.symlink_to(fake_tools.bindir)
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir, alias])
    facts = compilers.collect(ctx)
    assert len(facts["gxx_all"]) == 1 and facts["gxx_count"] == 1
    assert sum(1 for r in ctx.log.results if r.argv[-1] == "-v") == 1


@posix_only
def test_gcc_is_nvcc_host_on_linux(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("gcc", stderr=data_bytes("compilers/gxx-linux-ubuntu-7.5.0.txt"))
    fake_tools.add("g++", stderr=data_bytes("compilers/gxx-linux-debian-12.2.0.txt"))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"NVCC_CCBIN": "/usr/bin/gcc-7"})
    facts = compilers.collect(ctx)
    gcc = facts["gcc"]
    assert (gcc["version"], gcc["version_major"], gcc["vendor"]) == ("7.5.0", 7, "Ubuntu 7.5.0-3ubuntu1~18.04")
    host = facts["nvcc_host"]
    assert host == {
        "found": True,
        "source": "PATH",
        "compiler": "gcc",
        "path": str(fake_tools.bindir / "gcc"),
        "version": "7.5.0",
        "timed_out": False,
        "gcc_major": 7,
        "env": {"NVCC_CCBIN": "/usr/bin/gcc-7"},
    }
    # each tool ran once: g++ -v and gcc -v
    assert sorted(Path(r.argv[0]).name for r in ctx.log.results) == ["g++", "gcc"]


@posix_only
def test_conda_prefix_gxx_found_through_conda_prefix(tmp_path: Path, fake_tools: FakeTools) -> None:
    prefix = tmp_path / "conda" / "envs" / "theano_old"
    conda_bin = FakeTools(prefix / "bin")  # the POSIX layout: <prefix>/bin
    gxx = conda_bin.add("g++", stderr=data_bytes("compilers/gxx-conda-m2w64-5.3.0.txt"))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"CONDA_PREFIX": str(prefix)})
    facts = compilers.collect(ctx)
    assert facts["gxx"]["path"] == str(gxx)
    assert facts["gxx"]["source"] == "conda_prefix"
    assert (facts["gxx"]["version"], facts["gxx"]["vendor"]) == ("5.3.0", "Rev5, Built by MSYS2 project")
    assert facts["conda_gxx_dirs"] == [str(prefix / "bin")]
    assert facts["theano_cxx"] == ""  # Theano only looks in the prefix on Windows
    assert facts["nvcc_host"] == {"found": False, "source": "PATH"}  # not on PATH: nvcc would not see it
    tomli_w.dumps({"compilers": facts})


@posix_only
def test_conda_prefix_from_target_python(tmp_path: Path, fake_tools: FakeTools) -> None:
    prefix = tmp_path / "env"
    env_bin = FakeTools(prefix / "bin")
    env_bin.add("python3.7", stdout="")
    gxx = env_bin.add("g++", stderr=data_bytes("compilers/gxx-linux-ubuntu-7.5.0.txt"))
    path_gxx = fake_tools.add("g++", stderr=data_bytes("compilers/gxx-linux-debian-12.2.0.txt"))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], python=str(prefix / "bin" / "python3.7"))
    facts = compilers.collect(ctx)
    assert [(e["path"], e["source"]) for e in facts["gxx_all"]] == [(str(path_gxx), "PATH"), (str(gxx), "conda_prefix")]
    assert facts["conda_gxx_dirs"] == [str(prefix / "bin")]


@posix_only
def test_hanging_gxx_times_out_once(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("g++", sleep=30)
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], timeout=2.0)
    started = time.monotonic()
    facts = compilers.collect(ctx)
    assert time.monotonic() - started < 3.0
    gxx = facts["gxx"]
    assert gxx["found"] is True and gxx["timed_out"] is True and gxx["ok"] is False
    assert gxx["command"]["timed_out"] is True and "rc" not in gxx["command"]
    assert "version" not in gxx
    assert "theano_cxx" not in facts  # cannot be told
    assert facts["nvcc_host"]["timed_out"] is True and "gcc_major" not in facts["nvcc_host"]
    assert len(ctx.log.results) == 1  # not started again for nvcc_host
    assert no_none(facts)
    tomli_w.dumps({"compilers": facts})


@posix_only
def test_no_compiler_at_all(tmp_path: Path, fake_tools: FakeTools) -> None:
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir])
    facts = compilers.collect(ctx)
    assert facts == {
        "gxx": {"found": False},
        "gxx_all": [],
        "gxx_count": 0,
        "gcc": {"found": False},
        "nvcc_host": {"found": False, "source": "PATH"},
        "theano_cxx": "",
        "found": False,
    }
    assert ctx.log.results == []
    tomli_w.dumps({"compilers": facts})


@posix_only
def test_gxx_that_fails(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("g++", stderr="g++: error while loading shared libraries: libmpc.so.3\n", rc=127)
    facts = compilers.collect(isolated_ctx(tmp_path, [fake_tools.bindir]))
    assert facts["gxx"]["found"] is True and facts["gxx"]["ok"] is False
    assert facts["gxx"]["command"]["rc"] == 127 and "libmpc" in facts["gxx"]["command"]["output"]
    assert facts["theano_cxx"] == ""


@posix_only
def test_msvc_banner_from_fake_cl(tmp_path: Path, fake_tools: FakeTools) -> None:
    cl = fake_tools.add(
        "cl",
        stdout="usage: cl [ option... ] filename... [ /link linkoption... ]\n",
        stderr=data_bytes("compilers/msvc-19.29-vs2019-x64.txt"),
    )
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir])
    out = compilers.probe_msvc(ctx)  # "cl" here; "cl.exe" when the context is Windows
    assert out["found"] is True and out["path"] == str(cl)
    assert (out["version"], out["msc_ver"], out["arch"]) == ("19.29.30133", 1929, "x64")
    assert out["command"]["argv"] == [str(cl)]


@posix_only
def test_msvc_gbk_banner_through_subprocess(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("cl", stderr=data_bytes("compilers/msvc-19.29-vs2019-x64-zh-gbk.txt"))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], encodings=("gbk",))
    out = compilers.probe_msvc(ctx)
    assert (out["msc_ver"], out["arch"]) == (1929, "x64")
    assert out["banner"].startswith("用于 x64 的 Microsoft (R) C/C++")
    assert out["command"]["encoding"] == "gbk"


@posix_only
def test_macos_clang(tmp_path: Path, fake_tools: FakeTools) -> None:
    clang = fake_tools.add("clang++", stdout=data_bytes("compilers/clang-macos-apple-12.0.0.txt"))
    fake_tools.add("g++", stderr=data_bytes("compilers/gxx-macos-apple-clang-12.0.0.txt"))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], platform="darwin")
    facts = compilers.collect(ctx)
    assert facts["clang"]["version"] == "12.0.0" and facts["clang"]["is_apple"] is True
    assert facts["gxx"]["is_clang"] is True
    assert facts["theano_cxx"] == str(clang)  # Theano prefers clang++ on macOS
    assert facts["nvcc_host"]["compiler"] == "clang" and facts["nvcc_host"]["clang_major"] == 12
    assert "gcc" not in facts and "msvc" not in facts


# xcode-select, xcodebuild and pkgutil answers, reconstructed from Apple's manual pages
# and from outputs quoted in public reports (no Mac was at hand to record them).
XCODE_DIR = "/Applications/Xcode.app/Contents/Developer\n"
CLT_DIR = "/Library/Developer/CommandLineTools\n"
XCODEBUILD = "Xcode 9.4.1\nBuild version 9F2000\n"
CLT_RECEIPT = ("package-id: com.apple.pkg.CLTools_Executables\nversion: 10.1.0.0.1.1539992718\nvolume: /\n"
               "location: /\ninstall-time: 1541518011\n")
NO_DEVELOPER_DIR = "xcode-select: error: unable to get active developer directory, use `sudo xcode-select --switch " \
                   "path/to/Xcode.app` to set one (or see `man xcode-select`)\n"


@posix_only
@pytest.mark.parametrize("selected, rc, expected", [
    (XCODE_DIR, 0, {"found": True, "tools": "xcode", "version": "9.4.1",
                    "path": "/Applications/Xcode.app/Contents/Developer"}),
    (CLT_DIR, 0, {"found": True, "tools": "command-line-tools", "version": "10.1.0",
                  "path": "/Library/Developer/CommandLineTools"}),
    (NO_DEVELOPER_DIR, 2, {"found": False}),
])
def test_macos_records_the_active_developer_tools(tmp_path: Path, fake_tools: FakeTools, selected, rc,
                                                  expected) -> None:
    fake_tools.add("clang++", stdout=data_bytes("compilers/clang-macos-apple-12.0.0.txt"))
    fake_tools.add("xcode-select", by_args={"-p": (selected, rc)}, rc=1)
    fake_tools.add("xcodebuild", by_args={"-version": (XCODEBUILD, 0)}, rc=1)
    fake_tools.add("pkgutil", by_args={"CLTools_Executables": (CLT_RECEIPT, 0)}, rc=1)
    facts = compilers.collect(isolated_ctx(tmp_path, [fake_tools.bindir], platform="darwin"))
    assert facts["xcode"] == expected
    assert tomli_w.dumps(facts)


@posix_only
def test_macos_without_xcode_select_or_a_version_leaves_them_unknown(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("clang++", stdout=data_bytes("compilers/clang-macos-apple-12.0.0.txt"))
    facts = compilers.collect(isolated_ctx(tmp_path, [fake_tools.bindir], platform="darwin"))
    assert "xcode" not in facts  # xcode-select not found: neither there nor absent
    fake_tools.add("xcode-select", by_args={"-p": (XCODE_DIR, 0)}, rc=1)
    fake_tools.add("xcodebuild", stdout="xcodebuild: error: tool 'xcodebuild' requires Xcode\n", rc=1)
    facts = compilers.collect(isolated_ctx(tmp_path, [fake_tools.bindir], platform="darwin"))
    assert facts["xcode"] == {"found": True, "tools": "xcode", "path": "/Applications/Xcode.app/Contents/Developer"}


@posix_only
def test_run_probe_records_table(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("g++", stderr=data_bytes("compilers/gxx-tdm64-5.1.0.txt"))
    tables = run_probe("compilers", isolated_ctx(tmp_path, [fake_tools.bindir]).for_probe())
    assert set(tables) == {"compilers"}
    table = tables["compilers"]
    assert "probe_error" not in table
    assert table["gxx"]["vendor"] == "tdm64-1"
    assert tomli_w.dumps(tables)


@posix_only
def test_also_on_path_lists_other_copies_only(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("gcc", stderr=data_bytes("compilers/gcc-linux-debian-12.2.0.txt"))
    alias = tmp_path / "alias"
    alias.symlink_to(fake_tools.bindir)  # the same gcc again, like /bin -> /usr/bin
    other = FakeTools(tmp_path / "old" / "bin")
    old_gcc = other.add("gcc", stderr=data_bytes("compilers/gxx-linux-ubuntu-7.5.0.txt"))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir, alias, other.bindir])
    gcc = compilers.collect(ctx)["gcc"]
    assert gcc["version"] == "12.2.0" and gcc["also_on_path"] == [str(old_gcc)]


# ------------------------------------------------- the compiler a cxx setting names
ZIG_CLANG_V = "clang-zig-0.17.1-linux-22.1.8-v.txt"  # recorded: `clang++ -v` of ziglang 0.17.1


def test_parse_gxx_v_tells_llvm_clang_from_apple_clang() -> None:
    llvm = parse_gxx_v(text(ZIG_CLANG_V))
    assert llvm["is_clang"] is True and llvm["clang_version"] == "22.1.8" and llvm["clang_is_apple"] is False
    assert "version" not in llvm  # "version" is gcc's own line only
    assert parse_gxx_v(text("gxx-macos-apple-clang-12.0.0.txt"))["clang_is_apple"] is True
    assert "clang_is_apple" not in parse_gxx_v(text("gxx-linux-debian-12.2.0.txt"))


@posix_only
def test_a_clang_set_by_name_in_theano_flags_is_run_from_path(tmp_path: Path, fake_tools: FakeTools) -> None:
    fake_tools.add("clang++", stderr=data_bytes("compilers/" + ZIG_CLANG_V))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"THEANO_FLAGS": "floatX=float32,cxx=clang++"})
    facts = compilers.collect(ctx)
    configured = facts["cxx_configured"]
    assert configured["setting"] == "clang++" and configured["source"] == "THEANO_FLAGS"
    assert configured["path"] == str(fake_tools.bindir / "clang++") and configured["ok"] is True
    assert configured["is_clang"] is True and configured["clang_version"] == "22.1.8"
    assert facts["gxx"] == {"found": False}  # the g++ probe is unchanged: there is none
    assert no_none(facts)
    tomli_w.dumps({"compilers": facts})


@posix_only
def test_a_cxx_path_in_theanorc_that_names_nothing_is_recorded_as_not_found(tmp_path: Path,
                                                                           fake_tools: FakeTools) -> None:
    (tmp_path / ".theanorc").write_text("[global]\ncxx = /nonexistent/clang++\n")
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir])
    configured = compilers.collect(ctx)["cxx_configured"]
    assert configured == {"setting": "/nonexistent/clang++", "source": str(tmp_path / ".theanorc"), "found": False}
    assert ctx.log.results == []  # nothing was run


@posix_only
@pytest.mark.parametrize("flags", ["", "floatX=float32", "cxx="])
def test_no_cxx_setting_or_an_empty_one_probes_nothing_more(tmp_path: Path, fake_tools: FakeTools, flags: str) -> None:
    fake_tools.add("clang++", stderr=data_bytes("compilers/" + ZIG_CLANG_V))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"THEANO_FLAGS": flags})
    assert "cxx_configured" not in compilers.collect(ctx)
    assert ctx.log.results == []


@posix_only
def test_a_hanging_configured_compiler_times_out(tmp_path: Path, fake_tools: FakeTools) -> None:
    hung = fake_tools.add("clang++", sleep=30)
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"THEANO_FLAGS": "cxx=%s" % hung}, timeout=2.0)
    started = time.monotonic()
    configured = compilers.collect(ctx)["cxx_configured"]
    assert time.monotonic() - started < 3.0
    assert configured["found"] is True and configured["timed_out"] is True and configured["ok"] is False
    assert "is_clang" not in configured  # what it is stays unknown


def test_where_the_lookup_is_not_theanos_own_nothing_is_claimed(tmp_path: Path, fake_tools: FakeTools) -> None:
    # a relative path: Theano resolves it in the folder the project runs in
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"THEANO_FLAGS": "cxx=bin/clang++"})
    assert compilers.collect(ctx)["cxx_configured"] == {"setting": "bin/clang++", "source": "THEANO_FLAGS"}
    # Windows: cmd also finds g++.bat, or a file in the current folder
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"THEANO_FLAGS": "cxx=g++"}, platform="win32")
    assert compilers.probe_configured_cxx(ctx, compilers.Runner(ctx)) == {"setting": "g++", "source": "THEANO_FLAGS"}


@posix_only
def test_a_theano_flags_value_is_looked_for_as_theano_passes_it(tmp_path: Path, fake_tools: FakeTools) -> None:
    """THEANO_FLAGS keeps a value's spaces: ' clang++' is not clang++ to Popen."""
    fake_tools.add("clang++", stderr=data_bytes("compilers/" + ZIG_CLANG_V))
    ctx = isolated_ctx(tmp_path, [fake_tools.bindir], env={"THEANO_FLAGS": "cxx= clang++"})
    configured = compilers.collect(ctx)["cxx_configured"]
    assert configured["setting"] == " clang++" and configured["found"] is False
