"""The one safe writer and reader (legacydoc/safe_io.py), and the commands that use it:
every hostile target found by the adversarial pass of issue #10 is refused or handled."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from conftest import REPO, posix_only
from legacydoc import facts, safe_io
from legacydoc.safe_io import Refused, read_regular, replace_file
from test_cli import run_cli

SEED_002 = REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"


# --- writing -------------------------------------------------------------------------------


def test_a_predictable_temp_name_is_never_used(tmp_path: Path) -> None:
    """Defect 1: probe --save wrote through FILE.tmp, following a symlink planted there."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "facts.toml.tmp").symlink_to(victim)
    notes = tmp_path / "notes.toml.tmp"
    notes.write_text("my notes\n")
    facts.save(facts.new_record({}), tmp_path / "facts.toml")
    facts.save(facts.new_record({}), tmp_path / "notes.toml")
    assert victim.read_text() == "precious\n"
    assert notes.read_text() == "my notes\n"
    assert facts.load(tmp_path / "facts.toml")["schema"] == facts.SCHEMA
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp") and p.name.startswith(".")]
    assert leftovers == []


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "link-to-stdout", "folder", "dangling", "loop"])
def test_special_targets_are_refused_and_left_alone(tmp_path: Path, kind: str) -> None:
    """Defect 2: a FIFO, a device or a link to /proc/self/fd/1 became a regular file."""
    target = tmp_path / "out.zip"
    if kind == "fifo":
        os.mkfifo(str(target))
    elif kind == "link-to-stdout":
        target.symlink_to("/proc/self/fd/1")
    elif kind == "folder":
        target.mkdir()
    elif kind == "dangling":
        target.symlink_to(tmp_path / "nowhere")
    else:
        target.symlink_to(tmp_path / "loop2")
        (tmp_path / "loop2").symlink_to(target)
    before = os.lstat(str(target))
    proc = run_cli("report", "--facts", str(SEED_002), "-o", str(target), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    after = os.lstat(str(target))
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {"out.zip", "loop2"} if kind == "loop" else {"out.zip"})


@posix_only
def test_a_device_node_is_refused_before_anything_is_probed(tmp_path: Path) -> None:
    proc = run_cli("probe", "--save", "/dev/null", "--timeout", "1", cwd=tmp_path)
    assert proc.returncode == 2
    assert "/dev/null is a device" in proc.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_full_disk_leaves_no_empty_backup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Defect 8: ENOSPC while writing the backup left a 0-byte .legacydoc-bak."""
    target = tmp_path / ".theanorc"
    target.write_bytes(b"[global]\nfloatX = float32\n")
    real_write = os.write

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_io.os, "write", full)
    with pytest.raises(Refused, match="No space left on device"):
        replace_file(target, b"[global]\nfloatX = float64\n", keep_backup=True)
    monkeypatch.setattr(safe_io.os, "write", real_write)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".theanorc"]
    assert target.read_bytes() == b"[global]\nfloatX = float32\n"
    # the next run puts the backup at the documented name
    result = replace_file(target, b"[global]\nfloatX = float64\n", keep_backup=True)
    assert result.backup == tmp_path / (".theanorc" + safe_io.BACKUP_SUFFIX)


@posix_only
def test_read_only_and_hard_linked_targets_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "facts.toml"
    target.write_text("old\n")
    os.chmod(str(target), 0o444)
    with pytest.raises(Refused, match="read-only"):
        replace_file(target, b"new\n")
    os.chmod(str(target), 0o644)
    os.link(str(target), str(tmp_path / "other-name"))
    with pytest.raises(Refused, match="2 hard links"):
        replace_file(target, b"new\n")
    assert target.read_text() == "old\n"


@posix_only
def test_mode_is_kept_and_root_keeps_the_owner(tmp_path: Path) -> None:
    target = tmp_path / ".theanorc"
    target.write_text("[global]\n")
    os.chmod(str(target), 0o640)
    if os.geteuid() == 0:
        os.chown(str(target), 4321, 4322)
    replace_file(target, b"[global]\nfloatX = float32\n", keep_backup=True)
    st = os.stat(str(target))
    assert stat.S_IMODE(st.st_mode) == 0o640
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (4321, 4322)


def test_a_new_file_gets_the_umask_mode_not_mkstemps_0600(tmp_path: Path) -> None:
    replace_file(tmp_path / "r.zip", b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(str(tmp_path / "r.zip")).st_mode) == 0o666 & ~umask


# --- reading -------------------------------------------------------------------------------


@posix_only
@pytest.mark.parametrize("source", ["fifo", "/dev/zero", "folder"])
def test_check_facts_refuses_what_is_not_a_regular_file_at_once(tmp_path: Path, source: str) -> None:
    """Defect 4: a FIFO blocked forever, /dev/zero grew memory until MemoryError."""
    path = tmp_path / "facts.toml"
    if source == "fifo":
        os.mkfifo(str(path))
    elif source == "folder":
        path.mkdir()
    else:
        path = Path(source)
    proc = run_cli("check", "--facts", str(path), cwd=tmp_path, timeout=20)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_read_regular_caps_the_size(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_bytes(b"x" * 101)
    with pytest.raises(Refused, match="101 bytes, more than the 100"):
        read_regular(path, 100, "facts file")
    assert read_regular(path, 101, "facts file") == b"x" * 101


def test_read_small_reads_up_to_its_limit_not_one_read(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"0123456789" * 1000)
    assert safe_io.read_small(str(path), 25000) == b"0123456789" * 1000
    assert safe_io.read_small(str(path), 15) == b"012345678901234"
    # /proc hands back about a page per read: a single read lost /proc/modules' later lines.
    smaps = Path("/proc/self/smaps")
    if smaps.is_file():
        assert len(safe_io.read_small(str(smaps), 1 << 20) or b"") > 8192


@posix_only
def test_probes_never_block_on_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(str(tmp_path / "version.txt"))
    assert safe_io.read_small(str(tmp_path / "version.txt"), 100) is None
    assert safe_io.read_small(str(tmp_path / "missing"), 100) is None


@posix_only
def test_a_fifo_among_the_files_read_drops_no_area(tmp_path: Path) -> None:
    """Defect 9: a FIFO at ~/.theanorc, $CUDA_PATH/version.txt or a compile lock blocked the
    probe until its deadline, and the whole area was lost ("no cuDNN was found")."""
    import time

    from conftest import make_ctx
    from legacydoc.probes import collect_all

    home = tmp_path / "home"
    home.mkdir()
    os.mkfifo(str(home / ".theanorc"))
    lock_dir = home / ".theano" / "compiledir_Linux-x86_64-3.8.18-64" / "lock_dir"
    lock_dir.mkdir(parents=True)
    os.mkfifo(str(lock_dir / "lock"))
    toolkit = tmp_path / "cuda-10.2"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "include").mkdir()
    os.mkfifo(str(toolkit / "version.txt"))
    (toolkit / "include" / "cudnn.h").write_text(
        "#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n")
    ctx = make_ctx(tmp_path, [], env={"CUDA_PATH": str(toolkit)}, timeout=20.0)
    started = time.monotonic()
    tables = collect_all(ctx, only=("theano_config", "cuda", "cudnn"))
    assert time.monotonic() - started < 10
    for name in ("theano_config", "cuda", "cudnn"):
        assert "probe_error" not in tables[name], (name, tables[name].get("probe_error"))
    rc = tables["theano_config"]["files"][0]
    assert rc["exists"] is True and rc["kind"] == "other" and rc["readable"] is False
    assert [h["version"] for h in tables["cudnn"]["headers"]] == ["7.6.5"]
