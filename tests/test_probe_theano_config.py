"""The theano_config probe: which config files Theano 1.0.5 reads, what is in them
(whatever the bytes), the *_FLAGS variables and the compile cache folders."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
import tomli_w

from legacydoc.probes import run_probe
from legacydoc.probes import theano_config as tc
from legacydoc.probes.context import ProbeContext

posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes and symlinks")


def make(tmp_path: Path, env: dict | None = None, platform: str = "linux", **kwargs) -> ProbeContext:
    """A context in a world of its own: home and cwd under tmp_path, nothing inherited."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    cwd = tmp_path / "work"
    cwd.mkdir(exist_ok=True)
    if platform.startswith("win"):
        environ = {"USERPROFILE": str(home)}
    else:
        environ = {"HOME": str(home)}
    environ.update(env or {})
    kwargs.setdefault("cwd", cwd)
    return ProbeContext(environ=environ, platform=platform, **kwargs)


def by_path(facts: list, path: Path) -> dict:
    matches = [f for f in facts if f["path"] == str(path)]
    assert len(matches) == 1, facts
    return matches[0]


def assert_toml(result: dict) -> None:
    tomli_w.dumps({"theano_config": result})  # raises on None or non-string keys


# --- discovery ----------------------------------------------------------------------


def test_posix_default_is_home_theanorc_only(tmp_path):
    ctx = make(tmp_path)
    (tmp_path / "home" / ".theanorc").write_text("[global]\nfloatX = float32\n")
    result = tc.collect(ctx)
    assert [f["path"] for f in result["files"]] == [str(tmp_path / "home" / ".theanorc")]
    fact = result["files"][0]
    assert fact["from"] == "default"
    assert fact["exists"] is True and fact["readable"] is True and fact["kind"] == "file"
    assert fact["encoding"] == "utf-8" and fact["crlf"] is False
    assert fact["text"] == "[global]\nfloatX = float32\n"
    assert fact["size"] == len(fact["text"])
    assert "gbk_decodable" not in fact and "text_truncated" not in fact
    assert result["flags"] == {} and "theanorc_env" not in result
    assert_toml(result)


def test_posix_home_theanorc_txt_is_unread(tmp_path):
    ctx = make(tmp_path)
    (tmp_path / "home" / ".theanorc.txt").write_text("[global]\n")
    result = tc.collect(ctx)
    assert len(result["files"]) == 1
    unread = by_path(result["unread_files"], tmp_path / "home" / ".theanorc.txt")
    assert unread["where"] == "home"


def test_windows_default_adds_theanorc_txt(tmp_path):
    ctx = make(tmp_path, platform="win32")
    (tmp_path / "home" / ".theanorc.txt").write_text("[global]\r\ndevice = cuda\r\n")
    result = tc.collect(ctx)
    # expanduser keeps the '/' of '~/.theanorc' after USERPROFILE, as on Windows
    assert [f["path"] for f in result["files"]] == [
        str(tmp_path / "home") + "/.theanorc",
        str(tmp_path / "home") + "/.theanorc.txt",
    ]
    assert [f["from"] for f in result["files"]] == ["default", "default"]
    assert result["files"][0]["exists"] is False
    txt = result["files"][1]
    assert txt["exists"] is True and txt["crlf"] is True
    assert result["unread_files"] == []
    assert_toml(result)


def test_windows_ignores_home_env_for_config_files(tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    ctx = make(tmp_path, platform="win32", env={"HOME": str(other)})
    paths = [f["path"] for f in tc.collect(ctx)["files"]]
    assert all(p.startswith(str(tmp_path / "home")) for p in paths)


def test_windows_theanorc_set_drops_theanorc_txt(tmp_path):
    a = tmp_path / "a.rc"
    a.write_text("[global]\n")
    ctx = make(tmp_path, platform="win32", env={"THEANORC": str(a)})
    (tmp_path / "home" / ".theanorc.txt").write_text("[global]\n")
    result = tc.collect(ctx)
    assert [f["path"] for f in result["files"]] == [str(a)]
    assert result["files"][0]["from"] == "THEANORC"
    # the .theanorc.txt still on disk is reported as not read
    assert by_path(result["unread_files"], tmp_path / "home" / ".theanorc.txt")["where"] == "home"


def test_cygwin_gets_no_theanorc_txt(tmp_path):
    ctx = make(tmp_path, platform="cygwin")
    assert len(tc.config_file_list(ctx)) == 1


def test_windows_theanorc_split_on_semicolon(tmp_path):
    ctx = make(tmp_path, platform="win32", env={"THEANORC": "~/one;~/two"})
    home = str(tmp_path / "home")
    assert tc.config_file_list(ctx) == [(home + "/one", "THEANORC"), (home + "/two", "THEANORC")]


def test_theanorc_two_files_order_kept_missing_recorded(tmp_path):
    first = tmp_path / "first.rc"
    first.write_text("[global]\nfloatX = float32\n")
    missing = tmp_path / "missing.rc"
    ctx = make(tmp_path, env={"THEANORC": "%s:%s" % (missing, first)})
    (tmp_path / "home" / ".theanorc").write_text("[global]\n")
    result = tc.collect(ctx)
    assert [f["path"] for f in result["files"]] == [str(missing), str(first)]
    assert [f["from"] for f in result["files"]] == ["THEANORC", "THEANORC"]
    assert result["files"][0]["exists"] is False and result["files"][0]["readable"] is False
    assert "size" not in result["files"][0]
    assert result["files"][1]["exists"] is True
    assert result["theanorc_env"] == "%s:%s" % (missing, first)
    # THEANORC replaces the default: ~/.theanorc is now an unread file
    assert by_path(result["unread_files"], tmp_path / "home" / ".theanorc")["where"] == "home"
    assert_toml(result)


def test_theanorc_tilde_and_relative_entries(tmp_path):
    ctx = make(tmp_path, env={"THEANORC": "~/.theanorc:.theanorc"})
    (ctx.cwd / ".theanorc").write_text("[global]\n")
    result = tc.collect(ctx)
    assert result["files"][0]["path"] == str(tmp_path / "home") + "/.theanorc"
    rel = result["files"][1]
    assert rel["path"] == ".theanorc"
    assert rel["abspath"] == str(ctx.cwd / ".theanorc")
    assert rel["exists"] is True
    assert result["unread_files"] == []


def test_theanorc_empty_counts_as_set(tmp_path):
    ctx = make(tmp_path, env={"THEANORC": ""})
    result = tc.collect(ctx)
    assert result["theanorc_env"] == ""
    assert [f["path"] for f in result["files"]] == [""]
    assert result["files"][0]["exists"] is False
    assert_toml(result)


def test_cwd_theanorc_is_unread_unless_listed(tmp_path):
    ctx = make(tmp_path)
    cwd_rc = ctx.cwd / ".theanorc"
    cwd_rc.write_text("[global]\ndevice = cuda\n")
    result = tc.collect(ctx)
    unread = by_path(result["unread_files"], cwd_rc)
    assert unread["where"] == "cwd"
    assert unread["size"] == cwd_rc.stat().st_size
    assert unread["encoding"] == "utf-8" and "device = cuda" in unread["text"]

    listed = make(tmp_path, env={"THEANORC": str(cwd_rc)})
    result = tc.collect(listed)
    assert [f["path"] for f in result["files"]] == [str(cwd_rc)]
    assert all(f["path"] != str(cwd_rc) for f in result["unread_files"])


def test_project_rc_files_reported(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".theanorc.txt").write_text("[global]\n")
    (project / ".theanorc").write_text("[global]\n")
    ctx = make(tmp_path, project=project)
    result = tc.collect(ctx)
    wheres = {(Path(f["path"]).name, f["where"]) for f in result["unread_files"]}
    assert wheres == {(".theanorc", "project"), (".theanorc.txt", "project")}


def test_project_same_as_cwd_not_duplicated(tmp_path):
    ctx = make(tmp_path)
    (ctx.cwd / ".theanorc").write_text("[global]\n")
    ctx = make(tmp_path, project=ctx.cwd)
    result = tc.collect(ctx)
    assert len(result["unread_files"]) == 1


@posix_only
def test_rc_reached_through_symlink_is_not_unread(tmp_path):
    ctx = make(tmp_path)
    real = tmp_path / "home" / ".theanorc"
    real.write_text("[global]\n")
    (ctx.cwd / ".theanorc").symlink_to(real)
    assert tc.collect(ctx)["unread_files"] == []


# --- flags ----------------------------------------------------------------------------


def test_flags_recorded_as_given(tmp_path):
    env = {
        "THEANO_FLAGS": " device=cuda, floatX = float32 ",
        "AESARA_FLAGS": "",
        "PYTENSOR_FLAGS": "floatX=float32",
    }
    result = tc.collect(make(tmp_path, env=env))
    assert result["flags"] == env


def test_flags_case_insensitive_on_windows(tmp_path):
    result = tc.collect(make(tmp_path, platform="win32", env={"theano_flags": "device=cuda"}))
    assert result["flags"] == {"THEANO_FLAGS": "device=cuda"}


# --- decoding and hostile files ------------------------------------------------------


def _rc(tmp_path: Path, data: bytes) -> dict:
    path = tmp_path / "home" / ".theanorc"
    (tmp_path / "home").mkdir(exist_ok=True)
    path.write_bytes(data)
    result = tc.collect(make(tmp_path))
    assert_toml(result)
    return result["files"][0]


def test_utf8_bom(tmp_path):
    fact = _rc(tmp_path, b"\xef\xbb\xbf[global]\nfloatX = float32\n")
    assert fact["encoding"] == "utf-8-sig" and fact["bom"] == "utf-8"
    assert fact["text"] == "[global]\nfloatX = float32\n"
    assert "gbk_decodable" not in fact


def test_utf16_bom(tmp_path):
    fact = _rc(tmp_path, "[global]\r\nfloatX = float32\r\n".encode("utf-16"))
    assert fact["encoding"] == "utf-16" and fact["bom"] in ("utf-16-le", "utf-16-be")
    assert fact["text"] == "[global]\r\nfloatX = float32\r\n"
    assert fact["crlf"] is True
    assert isinstance(fact["gbk_decodable"], bool)


def test_gbk_comment(tmp_path):
    data = "[global]\n# 使用显卡\ndevice = cuda\n".encode("gbk")
    fact = _rc(tmp_path, data)
    assert fact["encoding"] == "undecodable"
    # GBK "使" (ca b9) happens to be valid UTF-8; the first bad byte is "用"'s d3
    assert fact["undecodable_offset"] == data.index(b"#") + 4
    with pytest.raises(UnicodeDecodeError) as err:
        data.decode("utf-8")
    assert fact["undecodable_offset"] == err.value.start
    assert fact["gbk_decodable"] is True
    assert "device = cuda" in fact["text"] and "\ufffd" in fact["text"]


def test_utf8_chinese_is_utf8(tmp_path):
    fact = _rc(tmp_path, "[global]\n# 使用显卡\n".encode("utf-8"))
    assert fact["encoding"] == "utf-8" and "使用显卡" in fact["text"]


def test_crlf(tmp_path):
    fact = _rc(tmp_path, b"[global]\r\nfloatX = float32\r\n")
    assert fact["crlf"] is True and fact["encoding"] == "utf-8"


def test_binary_garbage(tmp_path):
    data = bytes(range(256)) * 4
    fact = _rc(tmp_path, data)
    assert fact["encoding"] == "undecodable"
    assert fact["undecodable_offset"] == 128
    assert fact["gbk_decodable"] is False
    assert fact["readable"] is True and fact["size"] == len(data)


def test_empty_file(tmp_path):
    fact = _rc(tmp_path, b"")
    assert fact["encoding"] == "utf-8" and fact["text"] == "" and fact["size"] == 0


def test_huge_file_is_bounded(tmp_path, monkeypatch):
    reads = []
    real = tc._read_head

    def spy(path, limit):
        reads.append(limit)
        return real(path, limit)

    monkeypatch.setattr(tc, "_read_head", spy)
    data = b"[global]\n" + b"# " + b"x" * 77 + b"\n"
    data = data * (5 * 1024 * 1024 // len(data) + 1)
    fact = _rc(tmp_path, data)
    assert fact["size"] == len(data) > 5 * 1024 * 1024
    assert fact["text_truncated"] is True
    assert len(fact["text"]) <= tc.TEXT_MAX_BYTES
    assert reads and max(reads) <= tc.TEXT_MAX_BYTES + 1


def test_truncation_inside_a_character_is_not_undecodable(tmp_path):
    # 3-byte characters straddling the bound must not count as bad bytes
    data = b"[global]\n#" + "使".encode("utf-8") * (tc.TEXT_MAX_BYTES // 3 + 10)
    fact = _rc(tmp_path, data)
    assert fact["encoding"] == "utf-8" and fact["text_truncated"] is True


def test_directory_named_theanorc(tmp_path):
    (tmp_path / "home" / ".theanorc").mkdir(parents=True)
    result = tc.collect(make(tmp_path))
    fact = result["files"][0]
    assert fact["exists"] is True and fact["kind"] == "directory" and fact["readable"] is False
    assert "text" not in fact
    assert_toml(result)


@posix_only
def test_broken_symlink(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".theanorc").symlink_to(tmp_path / "nowhere")
    result = tc.collect(make(tmp_path))
    fact = result["files"][0]
    assert fact["is_symlink"] is True and fact["exists"] is False and fact["readable"] is False
    assert fact["symlink_target"] == str(tmp_path / "nowhere")
    assert_toml(result)


@posix_only
def test_fifo_is_not_opened(tmp_path):
    (tmp_path / "home").mkdir()
    os.mkfifo(str(tmp_path / "home" / ".theanorc"))
    fact = tc.collect(make(tmp_path))["files"][0]  # would hang if it were opened
    assert fact["kind"] == "other" and fact["readable"] is False


@posix_only
def test_unreadable_file(tmp_path):
    path = tmp_path / "home" / ".theanorc"
    (tmp_path / "home").mkdir()
    path.write_text("[global]\n")
    path.chmod(0)
    try:
        if os.access(str(path), os.R_OK):
            pytest.skip("running as root: mode 000 is still readable")
        result = tc.collect(make(tmp_path))
    finally:
        path.chmod(0o600)
    fact = result["files"][0]
    assert fact["exists"] is True and fact["readable"] is False
    assert fact["read_error"].startswith("PermissionError")
    assert_toml(result)


def test_read_error_is_recorded(tmp_path, monkeypatch):
    # the same path as chmod 000, reachable when tests run as root
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".theanorc").write_text("[global]\n")

    def deny(path, limit):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(tc, "_read_head", deny)
    result = tc.collect(make(tmp_path))
    fact = result["files"][0]
    assert fact["readable"] is False and fact["read_error"] == "PermissionError: Permission denied"
    assert_toml(result)


def test_decode_never_raises_on_odd_bytes():
    samples = [b"\xff\xfe", b"\xff\xfe\x00", b"\xfe\xff\xd8\x00", b"\xef\xbb\xbf\xff", b"\x00" * 10, b"\x80"]
    for data in samples:
        for truncated in (False, True):
            out = tc.decode_config_bytes(data, truncated)
            assert out["encoding"] in ("utf-8", "utf-8-sig", "utf-16", "undecodable")
            tomli_w.dumps(out)
    assert tc.decode_config_bytes(b"\xef\xbb\xbf\xff")["undecodable_offset"] == 3


# --- compiledir -------------------------------------------------------------------------


def test_compiledir_default_posix_uses_home(tmp_path):
    result = tc.collect(make(tmp_path))
    cd = result["compiledir"]
    assert cd["base_compiledir"] == os.path.join(str(tmp_path / "home"), ".theano")
    assert cd["source"] == "default" and cd["default_from"] == "HOME"
    assert cd["exists"] is False and cd["writable"] is False and cd["creatable"] is True
    assert "subdirs" not in cd


def test_compiledir_default_windows_localappdata(tmp_path):
    ctx = make(tmp_path, platform="win32", env={"LOCALAPPDATA": "C:\\Users\\x\\AppData\\Local"})
    cd = tc.collect(ctx)["compiledir"]
    assert cd["base_compiledir"] == "C:\\Users\\x\\AppData\\Local\\Theano"
    assert cd["default_from"] == "LOCALAPPDATA" and cd["exists"] is False


def test_compiledir_default_windows_prefers_home_env(tmp_path):
    ctx = make(tmp_path, platform="win32", env={"HOME": "D:\\h"})
    cd = tc.collect(ctx)["compiledir"]
    assert cd["base_compiledir"] == "D:\\h\\.theano" and cd["default_from"] == "HOME"
    ctx = make(tmp_path, platform="win32")  # no HOME: expanduser, i.e. USERPROFILE
    cd = tc.collect(ctx)["compiledir"]
    assert cd["base_compiledir"] == str(tmp_path / "home") + "\\.theano" and cd["default_from"] == "home"


def test_localappdata_ignored_off_windows(tmp_path):
    cd = tc.collect(make(tmp_path, env={"LOCALAPPDATA": "/x"}))["compiledir"]
    assert cd["default_from"] == "HOME"


def test_compiledir_from_config_file_last_wins(tmp_path):
    a, b = tmp_path / "a.rc", tmp_path / "b.rc"
    a.write_text("[global]\nbase_compiledir = /nope\n")
    b.write_text("[global]\nBASE_COMPILEDIR = ~/cache%(USER)s\n[global]\nfloatX = float32\n")
    ctx = make(tmp_path, env={"THEANORC": "%s:%s" % (a, b), "USER": "ann"})
    cd = tc.collect(ctx)["compiledir"]
    assert cd["source"] == "config_file" and cd["source_file"] == str(b)
    # as Theano uses it: interpolated by its ConfigParser, then through expanduser
    assert cd["base_compiledir_raw"] == "~/cacheann"
    assert cd["base_compiledir"] == str(tmp_path / "home") + "/cacheann"


def test_compiledir_ignores_broken_config_and_other_sections(tmp_path):
    a, b = tmp_path / "a.rc", tmp_path / "b.rc"
    a.write_text("base_compiledir = /no/section/header\n")
    b.write_text("[Global]\nbase_compiledir = /wrong/case\n[gpuarray]\nbase_compiledir = /x\n")
    cd = tc.collect(make(tmp_path, env={"THEANORC": "%s:%s" % (a, b)}))["compiledir"]
    assert cd["source"] == "default"


def test_compiledir_flags_beat_config_file(tmp_path):
    (tmp_path / "home" / ".theanorc").parent.mkdir(exist_ok=True)
    (tmp_path / "home" / ".theanorc").write_text("[global]\nbase_compiledir = /from/file\ncompiledir = /cd\n")
    target = tmp_path / "cache"
    ctx = make(tmp_path, env={"THEANO_FLAGS": "floatX=float32,base_compiledir=%s" % target})
    cd = tc.collect(ctx)["compiledir"]
    assert cd["base_compiledir"] == str(target) and cd["source"] == "THEANO_FLAGS"
    assert "base_compiledir_raw" not in cd
    assert cd["compiledir_setting"] == "/cd" and cd["compiledir_setting_source"] == "config_file"


def test_compiledir_relative_resolved_against_cwd(tmp_path):
    ctx = make(tmp_path, env={"THEANO_FLAGS": "base_compiledir=rel"})
    (ctx.cwd / "rel").mkdir()
    cd = tc.collect(ctx)["compiledir"]
    assert cd["base_compiledir"] == "rel" and cd["abspath"] == str(ctx.cwd / "rel")
    assert cd["exists"] is True


def test_compiledir_is_a_file(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".theano").write_text("")
    cd = tc.collect(make(tmp_path))["compiledir"]
    assert cd["exists"] is False and cd["not_a_directory"] is True


def test_compiledir_subdirs_and_stale_lock(tmp_path):
    base = tmp_path / "home" / ".theano"
    name = "compiledir_Linux-5.4--generic-x86_64-with-glibc2.29-x86_64-3.7.16-64"
    sub = base / name
    (sub / "tmpab12cd").mkdir(parents=True)
    (sub / "tmpab12cd" / "key.pkl").write_bytes(b"\x80")
    (sub / "tmpzz99").mkdir()
    (sub / "__init__.py").write_text("")
    lock = sub / "lock_dir"
    lock.mkdir()
    (lock / "lock").write_text("4242_0123456789_build_host-1\n")
    old = time.time() - 3600
    os.utime(str(lock / "lock"), (old, old))
    (base / "compiledir_custom").mkdir()
    (base / "not_a_compiledir").mkdir()
    (base / "compiledir_file").write_text("")

    result = tc.collect(make(tmp_path))
    cd = result["compiledir"]
    assert cd["exists"] is True and cd["writable"] is True and cd["source"] == "default"
    assert cd["subdirs_total"] == 2
    assert [s["name"] for s in cd["subdirs"]] == ["compiledir_Linux-5.4--generic-x86_64-with-glibc2.29-x86_64-3.7.16-64", "compiledir_custom"]
    first = cd["subdirs"][0]
    assert first["platform"] == "Linux-5.4--generic-x86_64-with-glibc2.29"
    assert first["system"] == "Linux"
    assert first["processor"] == "x86_64"
    assert first["python_version"] == "3.7.16"
    assert first["bitwidth"] == 64
    assert first["entries"] == 4 and first["module_dirs"] == 2
    lock_fact = first["lock_dir"]
    assert lock_fact["lock_file"] is True
    assert 3590 <= lock_fact["age_s"] <= 3700
    assert lock_fact["owner"] == "4242_0123456789_build_host-1"
    assert lock_fact["owner_pid"] == 4242 and lock_fact["owner_host"] == "build_host-1"
    custom = cd["subdirs"][1]
    assert "platform" not in custom and "lock_dir" not in custom and custom["entries"] == 0
    assert_toml(result)


def test_lock_dir_without_lock_file_uses_folder_age(tmp_path):
    lock = tmp_path / "home" / ".theano" / "compiledir_Windows-10-10.0.19041-SP0-Intel64_Family_6_Model_158_Stepping_10_GenuineIntel-3.6.8-64" / "lock_dir"
    lock.mkdir(parents=True)
    old = time.time() - 100
    os.utime(str(lock), (old, old))
    cd = tc.collect(make(tmp_path))["compiledir"]
    sub = cd["subdirs"][0]
    assert sub["processor"] == "Intel64_Family_6_Model_158_Stepping_10_GenuineIntel"
    assert sub["python_version"] == "3.6.8" and sub["system"] == "Windows"
    assert sub["lock_dir"]["lock_file"] is False and 95 <= sub["lock_dir"]["age_s"] <= 200
    assert "owner" not in sub["lock_dir"]


def test_subdirs_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(tc, "MAX_SUBDIRS", 3)
    for i in range(5):
        (tmp_path / "home" / ".theano" / ("compiledir_x%d" % i)).mkdir(parents=True)
    cd = tc.collect(make(tmp_path))["compiledir"]
    assert cd["subdirs_total"] == 5 and cd["subdirs_truncated"] is True and len(cd["subdirs"]) == 3


def test_entries_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(tc, "MAX_ENTRIES", 2)
    sub = tmp_path / "home" / ".theano" / "compiledir_x"
    for i in range(4):
        (sub / ("tmp%d" % i)).mkdir(parents=True)
    s = tc.collect(make(tmp_path))["compiledir"]["subdirs"][0]
    assert s["entries"] == 2 and s["entries_truncated"] is True


@pytest.mark.parametrize(
    "name,expected",
    [
        ("compiledir_Linux-4.15--generic-x86_64-with-Ubuntu-18.04-bionic-x86_64-3.6.9-64", ("x86_64", "3.6.9", 64)),
        ("compiledir_Linux-5.15--generic-x86_64-with-glibc2.35--3.10.13-64", ("", "3.10.13", 64)),
        ("compiledir_Darwin-19.6.0-x86_64-i386-64bit-i386-2.7.16-64", ("i386", "2.7.16", 64)),
        ("compiledir_Windows-7-6.1.7601-SP1-x86_Family_6_Model_42_Stepping_7_GenuineIntel-2.7.15-32", ("x86_Family_6_Model_42_Stepping_7_GenuineIntel", "2.7.15", 32)),
    ],
)
def test_parse_compiledir_name(name, expected):
    parts = tc.parse_compiledir_name(name)
    assert (parts["processor"], parts["python_version"], parts["bitwidth"]) == expected


@pytest.mark.parametrize("name", ["compiledir_", "compiledir_foo", "lock_dir", "compiledir_a-b-c-d", ""])
def test_parse_compiledir_name_no_match(name):
    assert tc.parse_compiledir_name(name) == {}


@posix_only
def test_unwritable_compiledir(tmp_path):
    base = tmp_path / "home" / ".theano"
    base.mkdir(parents=True)
    base.chmod(0o500)
    try:
        if os.access(str(base), os.W_OK):
            pytest.skip("running as root: mode 500 is still writable")
        cd = tc.collect(make(tmp_path))["compiledir"]
    finally:
        base.chmod(0o700)
    assert cd["exists"] is True and cd["writable"] is False


# --- whole probe ---------------------------------------------------------------------


def test_run_probe_and_toml(tmp_path, monkeypatch):
    # run through the registry as the CLI does; the real world must not leak in
    ctx = make(tmp_path, env={"THEANO_FLAGS": "device=cuda"})
    (tmp_path / "home" / ".theanorc").write_bytes("[global]\r\n# 注释\r\n".encode("gbk"))
    tables = run_probe("theano_config", ctx)
    assert set(tables) == {"theano_config"}
    facts = tables["theano_config"]
    assert "probe_error" not in facts
    assert facts["files"][0]["encoding"] == "undecodable"
    text = tomli_w.dumps(tables)
    if sys.version_info >= (3, 11):
        import tomllib

        assert tomllib.loads(text)["theano_config"]["flags"] == {"THEANO_FLAGS": "device=cuda"}


def test_probe_starts_no_process(tmp_path, monkeypatch):
    import subprocess

    def boom(*args, **kwargs):
        raise AssertionError("theano_config must not start processes")

    monkeypatch.setattr(subprocess, "Popen", boom)
    ctx = make(tmp_path)
    tc.collect(ctx)
    assert ctx.log.results == []
