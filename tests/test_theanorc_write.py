"""``legacydoc theanorc --write``: what is generated, and that the user's file is never
lost: a byte-identical backup every time an existing file is replaced, an atomic
replace, and a refusal that touches nothing when it cannot be done safely."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any, Optional

import pytest
from test_theanorc_findings import rc_file, record
from test_theanorc_seed import SEED_THEANORC, seed_record

from legacydoc import safe_io as fileops
from legacydoc.errors import UsageError
from legacydoc.theanorc import effective_config, find_problems
from legacydoc.theanorc.command import write
from legacydoc.theanorc.discovery import write_target
from legacydoc.theanorc.writer import generate

posix = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes, links and FIFOs")
not_root = pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores file permissions")

ODD_BYTES = [
    SEED_THEANORC.encode(),
    b"\xef\xbb\xbf[global]\r\nfloatX = float32\r\n",
    "# 使用 GPU\n[global]\nfloatX = float32\n".encode("gbk"),
    bytes(range(256)),
    b"",
]


def machine_record(home: Path, text: Optional[str] = None, **kw: Any) -> dict[str, Any]:
    """A Linux record whose ~/.theanorc is ``home/.theanorc``."""
    rc = str(home / ".theanorc")
    files = [rc_file(text, rc)] if text is not None else [{"path": rc, "from": "default", "exists": False, "readable": False}]
    return record(files=files, **kw)


def run_write(rec: dict[str, Any], path: Optional[Path], dry_run: bool = False, yes: bool = True, **kw: Any) -> tuple[int, str]:
    out = io.StringIO()
    code = write(rec, path, dry_run=dry_run, assume_yes=yes, out=out, **kw)
    return code, out.getvalue()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: (p.read_bytes() if p.is_file() and not p.is_symlink() else b"<special>") for p in folder.iterdir()}


# --- generation ------------------------------------------------------------------------------


def test_cpu_machine() -> None:
    rec = record(gpu=False, pygpu=False)
    generated = generate(rec, effective_config(rec))
    values = {line.name: line.value for line in generated.lines}
    assert values == {"device": "cpu", "floatX": "float32", "mode": "FAST_RUN", "blas.ldflags": ""}
    assert generated.lines[0].why == ("cpu: no working NVIDIA GPU (Failed to initialize NVML: Unknown Error); pygpu is not "
                                      "installed in the target interpreter. device = cuda needs that fixed first "
                                      "(legacydoc check says how)")
    assert "# cpu: no working NVIDIA GPU" in generated.text
    assert "\nldflags =\n" in generated.text
    assert all(not line.rstrip().endswith("#") for line in generated.text.splitlines())
    # what it writes is clean by legacydoc's own reading
    again = machine_record(Path("/home/ann"), generated.text, gpu=False, pygpu=False)
    assert find_problems(again) == []


def test_a_compiler_the_record_never_probed_is_unknown_not_missing() -> None:
    rec = record(gpu=False, pygpu=False)
    del rec["compilers"]
    why = generate(rec, effective_config(rec)).lines[0].why
    assert "not known: whether a C++ compiler is there" in why and "no C++ compiler" not in why
    # probed and none found: that is said
    rec = record(gpu=False, pygpu=False, cxx="")
    assert "no C++ compiler" in generate(rec, effective_config(rec)).lines[0].why


def test_cudnn_the_record_never_searched_is_not_called_missing() -> None:
    rec = record()
    generated = generate(rec, effective_config(rec))
    assert generated.lines[0].value == "cuda"
    assert any("cuDNN is not in the record" in n for n in generated.notes), generated.notes
    assert not any("no cudnn.h found" in n for n in generated.notes)
    rec["cudnn"] = {"headers": [], "libraries": []}
    assert any("no cudnn.h found" in n for n in generate(rec, effective_config(rec)).notes)


def test_kept_lines_that_check_would_flag_are_corrected_or_left_out() -> None:
    # gh-theano-5519's file: a quoted cxxflags, which Theano passes to g++ with its quotes
    home = Path("/home/ann")
    old = '[gcc]\ncxxflags = "-I/opt/cuda/include"\n[global]\noptimizer = fast_run # the default\n'
    rec = machine_record(home, old, gpu=False, pygpu=False)
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    values = {line.name: line.value for line in generated.lines}
    assert values["gcc.cxxflags"] == "-I/opt/cuda/include"
    assert values.get("optimizer") in (None, "fast_run")  # the inline comment is never copied
    assert find_problems(machine_record(home, generated.text, gpu=False, pygpu=False)) == []


def test_a_guides_copied_cxxflags_are_written_without_its_placeholders_and_other_pythons_library() -> None:
    # gh-theano-4778's file: a guide's placeholders and its -lpython34, on Python 3.8 here
    home = Path("/home/ann")
    old = "[gcc]\ncxxflags = -shared -I[MinGW directory]\\include -L[Python directory]\\libs -lpython34 -DMS_WIN64\n"
    rec = machine_record(home, old, gpu=False, pygpu=False)
    kinds = {f.kind for f in find_problems(rec)}
    assert {"placeholder-value", "cxxflags-other-python"} <= kinds
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    values = {line.name: line.value for line in generated.lines}
    assert values["gcc.cxxflags"] == "-shared -DMS_WIN64"
    assert find_problems(machine_record(home, generated.text, gpu=False, pygpu=False)) == []


@pytest.mark.parametrize("line", [
    "cxxflags = -lpython34 -O2 # from the guide",  # the inline comment's fix alone would keep -lpython34
    'cxxflags = "-lpython34 -O2"',
    "cxxflags = -I[MinGW directory]\\include -O2 ; guide",
])
def test_one_written_line_answers_every_finding_on_it(line: str) -> None:
    home = Path("/home/ann")
    rec = machine_record(home, "[gcc]\n%s\n" % line, gpu=False, pygpu=False)
    assert len([f for f in find_problems(rec) if f.line == 2]) == 2
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    assert {line.name: line.value for line in generated.lines}["gcc.cxxflags"] == "-O2"
    assert find_problems(machine_record(home, generated.text, gpu=False, pygpu=False)) == []


def _mac_record(home: Path, text: Optional[str], clang: dict[str, Any]) -> dict[str, Any]:
    rec = machine_record(home, text, gpu=False, pygpu=False, cxx=clang["path"])
    rec["system"] = {"os": "darwin"}
    rec["python"]["platform"] = "darwin"
    rec["compilers"] = {"theano_cxx": clang["path"], "gxx_all": [], "clang": {"found": True, "ok": True, **clang}}
    return rec


CONDA_CLANG = {"path": "/Users/ann/miniconda3/envs/m/bin/clang++", "version": "10.0.0", "version_major": 10,
               "is_apple": False}
APPLE_CLANG = {"path": "/usr/bin/clang++", "version": "12.0.0", "version_major": 12, "is_apple": True}


@pytest.mark.parametrize("old, clang, expected", [
    (None, CONDA_CLANG, "-Wno-c++11-narrowing"),
    ("[gcc]\ncxxflags = -O2 -Werror=narrowing\n", CONDA_CLANG, "-O2 -Werror=narrowing -Wno-c++11-narrowing"),
    ("[gcc]\ncxxflags = -std=c++11\n", APPLE_CLANG, "-std=c++11 -Wno-c++11-narrowing"),
    (None, APPLE_CLANG, None),  # Apple's default dialect is not claimed: nothing added
    ("[gcc]\ncxxflags = -Wno-c++11-narrowing\n", CONDA_CLANG, "-Wno-c++11-narrowing"),  # already there, kept once
])
def test_a_clang_that_rejects_theanos_narrowing_gets_the_flag(old: Optional[str], clang: dict[str, Any],
                                                               expected: Optional[str]) -> None:
    """LD425's fix, written: the same flag check names, and the file then passes LD425."""
    from legacydoc.cxxdialect import narrowing

    home = Path("/Users/ann")
    rec = _mac_record(home, old, clang)
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    values = {line.name: line.value for line in generated.lines}
    assert values.get("gcc.cxxflags") == expected
    assert narrowing(_mac_record(home, generated.text, clang)).rejects is not True


def test_the_flag_follows_the_compiler_the_new_file_leads_to() -> None:
    """The old file's cxx (g++-9) is dropped: the new file leaves Theano with the conda clang,
    which needs the flag; a cxxflags in THEANO_FLAGS overrides the file, and the user is told."""
    from legacydoc.cxxdialect import narrowing

    home = Path("/Users/ann")
    rec = _mac_record(home, "[global]\ncxx = /usr/local/bin/g++-9\n", CONDA_CLANG)
    rec["compilers"]["gxx_all"] = [{"path": "/usr/local/bin/g++-9", "ok": True, "source": "PATH", "version": "9.3.0",
                                    "is_clang": False}]
    assert narrowing(rec).rejects is False  # as it is: g++ 9
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    values = {line.name: line.value for line in generated.lines}
    assert "cxx" not in values and values["gcc.cxxflags"] == "-Wno-c++11-narrowing"
    assert narrowing(_mac_record(home, generated.text, CONDA_CLANG)).rejects is False
    rec = _mac_record(home, None, CONDA_CLANG)
    rec["theano_config"]["flags"] = {"THEANO_FLAGS": "gcc.cxxflags=-O3"}
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    assert {line.name: line.value for line in generated.lines}["gcc.cxxflags"] == "-O3 -Wno-c++11-narrowing"
    assert any("THEANO_FLAGS" in note and "-Wno-c++11-narrowing" in note for note in generated.notes), generated.notes
    # a record already derived from the old config is judged on the new one all the same
    from legacydoc.derive import enrich

    rec = _mac_record(home, "[global]\ncxx = /usr/local/bin/g++-9\n", CONDA_CLANG)
    rec["compilers"]["gxx_all"] = [{"path": "/usr/local/bin/g++-9", "ok": True, "source": "PATH", "version": "9.3.0",
                                    "is_clang": False}]
    enriched = enrich(rec)
    generated = generate(enriched, effective_config(enriched), str(home / ".theanorc"))
    assert {line.name: line.value for line in generated.lines}["gcc.cxxflags"] == "-Wno-c++11-narrowing"


CLANG_ON_PATH = {"source": "/home/ann/.theanorc", "found": True, "ok": True, "path": "/usr/bin/clang++",
                 "is_clang": True, "clang_version": "14.0.0", "clang_is_apple": False}


def test_a_cxx_of_the_users_own_that_runs_is_kept_one_that_names_nothing_is_not() -> None:
    """The probe ran the compiler the old file's cxx names: a clang++ that runs stays (with
    LD425's flag, which it needs); a path with nothing there (LD426) is left out, so Theano
    takes g++ from PATH again; a g++ on macOS, which Theano warns against, is not kept."""
    from legacydoc.cxxdialect import narrowing

    home = Path("/home/ann")
    rec = machine_record(home, "[global]\ncxx = clang++\n", gpu=False, pygpu=False)
    rec["compilers"]["cxx_configured"] = {"setting": "clang++", **CLANG_ON_PATH}
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    values = {line.name: line.value for line in generated.lines}
    assert values["cxx"] == "clang++" and values["gcc.cxxflags"] == "-Wno-c++11-narrowing"
    again = machine_record(home, generated.text, gpu=False, pygpu=False)
    again["compilers"]["cxx_configured"] = rec["compilers"]["cxx_configured"]
    assert narrowing(again).rejects is False
    missing = machine_record(home, "[global]\ncxx = /opt/llvm/bin/clang++\n", gpu=False, pygpu=False)
    missing["compilers"]["cxx_configured"] = {"setting": "/opt/llvm/bin/clang++", "source": str(home / ".theanorc"),
                                              "found": False}
    generated = generate(missing, effective_config(missing), str(home / ".theanorc"))
    assert "cxx" not in {line.name for line in generated.lines}
    assert "cxx is not set: Theano finds /usr/bin/g++ by itself" in generated.notes
    # never checked (a record without the probe): decided as before, from what was probed
    unchecked = machine_record(home, "[global]\ncxx = clang++\n", gpu=False, pygpu=False)
    generated = generate(unchecked, effective_config(unchecked), str(home / ".theanorc"))
    assert "cxx" not in {line.name for line in generated.lines}
    # there, but its -v timed out: still the user's choice, kept
    rec["compilers"]["cxx_configured"] = {"setting": "clang++", **CLANG_ON_PATH, "ok": False, "timed_out": True}
    del rec["compilers"]["cxx_configured"]["is_clang"]
    generated = generate(rec, effective_config(rec), str(home / ".theanorc"))
    assert {line.name: line.value for line in generated.lines}["cxx"] == "clang++"
    mac = _mac_record(Path("/Users/ann"), "[global]\ncxx = /usr/local/bin/g++-9\n", CONDA_CLANG)
    mac["compilers"]["cxx_configured"] = {"setting": "/usr/local/bin/g++-9", "source": "/Users/ann/.theanorc",
                                          "found": True, "ok": True, "path": "/usr/local/bin/g++-9", "version": "9.3.0"}
    generated = generate(mac, effective_config(mac), "/Users/ann/.theanorc")
    assert "cxx" not in {line.name for line in generated.lines}


def test_approximate_gpu_math_is_not_carried_over() -> None:
    # LD546 warns about nvcc.fastmath: the written file must not keep what check warns about,
    # while the section's other options stay
    old = "[global]\ndevice = gpu\n[nvcc]\nfastmath = True\nflags = -D_FORCE_INLINES\n"
    rec = record(old, theano="0.8.2", pygpu=False)
    generated = generate(rec, effective_config(rec), "/home/ann/.theanorc")
    values = {line.name: line.value for line in generated.lines}
    assert "nvcc.fastmath" not in values and values["nvcc.flags"] == "-D_FORCE_INLINES"
    assert [d for d in generated.dropped if d.startswith("fastmath = True (line 4)") and "LD546" in d] != []
    # set off, it is kept like any other option
    rec = record(old.replace("True", "False"), theano="0.8.2", pygpu=False)
    generated = generate(rec, effective_config(rec), "/home/ann/.theanorc")
    assert {line.name: line.value for line in generated.lines}["nvcc.fastmath"] == "False"


def test_a_per_host_compiledir_format_is_kept() -> None:
    # LD545's fix: ConfigParser cannot fill these keys, Theano reads the line raw and fills them
    line = "compiledir_%(short_platform)s-%(processor)s-%(python_version)s-%(python_bitwidth)s-%(hostname)s"
    rec = record("[global]\nfloatX = float32\ncompiledir_format = %s\n" % line)
    generated = generate(rec, effective_config(rec), "/home/ann/.theanorc")
    assert {kept.name: kept.value for kept in generated.lines}["compiledir_format"] == line
    assert generated.dropped == []
    # a name only ConfigParser knows is still left out, and says why
    rec = record("[global]\nfloatX = float32\n[gcc]\ncxxflags = -I%(CUDA)s\n")
    generated = generate(rec, effective_config(rec), "/home/ann/.theanorc")
    assert [d for d in generated.dropped if "ConfigParser cannot fill" in d] != []


def test_gpu_machine_with_cudnn_outside_the_toolkit_and_cnmem_migrated() -> None:
    rec = record("[global]\ndevice = cuda\n[lib]\ncnmem = 0.6\n[global]\n", cudnn={
        "headers": [{"header": "cudnn.h", "path": "/opt/cudnn/include/cudnn.h", "major": 7, "version": "7.6.5"}],
        "libraries": [{"name": "libcudnn.so.7", "path": "/opt/cudnn/lib64/libcudnn.so.7", "major": 7}]})
    rec["theano_config"]["files"][0]["text"] = "[global]\ndevice = cuda\noptimizer = fast_run\n[lib]\ncnmem = 0.6\n[cudnn]\nenable = 1\n"
    generated = generate(rec, effective_config(rec), "/home/ann/.theanorc")
    values = {line.name: line.value for line in generated.lines}
    assert values["device"] == "cuda" and values["cuda.root"] == "/usr/local/cuda-10.2"
    assert values["dnn.include_path"] == "/opt/cudnn/include" and values["dnn.library_path"] == "/opt/cudnn/lib64"
    assert values["gpuarray.preallocate"] == "0.6" and values["optimizer"] == "fast_run"  # migrated, kept
    assert any("enable = 1" in d for d in generated.dropped)
    assert "cxx" not in values  # g++ is found by name


def test_cudnn8_only_disables_cudnn_and_cxx_when_gxx_not_by_name() -> None:
    rec = record(cxx="", cudnn={"headers": [{"header": "cudnn.h", "path": "/usr/local/cuda-10.2/include/cudnn.h", "major": 8,
                                             "version": "8.0.5"}]})
    rec["compilers"]["gxx_all"] = [{"path": "/opt/gcc7/bin/g++", "ok": True, "source": "conda_prefix"}]
    values = {line.name: line.value for line in generate(rec, effective_config(rec)).lines}
    assert values["dnn.enabled"] == "False" and values["cxx"] == "/opt/gcc7/bin/g++" and values["device"] == "cuda"


def test_conda_mkl_ldflags() -> None:
    rec = record(gpu=False)
    rec["python"].update(env_kind="conda", prefix="/opt/conda/envs/old")
    rec["packages"].update(numpy_blas="mkl", conda={"mkl": {"version": "2019.4"}})
    values = {line.name: line.value for line in generate(rec, effective_config(rec)).lines}
    assert values["blas.ldflags"] == "-L/opt/conda/envs/old/lib -Wl,-rpath,/opt/conda/envs/old/lib -lmkl_rt"


def test_target_selection() -> None:
    rec = record(files=[rc_file("[global]\n", "/etc/a", "THEANORC"), {"path": "/home/ann/b", "from": "THEANORC", "exists": False}],
                 theanorc="/etc/a:/home/ann/b")
    assert write_target(rec).path == "/etc/a"  # the last file that exists: nothing overrides it
    rec["theano_config"]["files"][0]["exists"] = False
    assert write_target(rec).path == "/home/ann/b"  # none exists: the last THEANORC entry
    assert write_target(record()).path == "/home/ann/.theanorc"


# --- writing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("old", ODD_BYTES, ids=["seed", "bom-crlf", "gbk", "binary", "empty"])
def test_write_over_existing_file_leaves_a_byte_identical_backup(tmp_path: Path, old: bytes) -> None:
    target = tmp_path / ".theanorc"
    target.write_bytes(old)
    target.chmod(0o640)
    code, out = run_write(machine_record(tmp_path, old.decode("utf-8", "replace")), None)
    assert code == 0, out
    backup = tmp_path / (".theanorc" + fileops.BACKUP_SUFFIX)
    assert backup.read_bytes() == old
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 == stat.S_IMODE(backup.stat().st_mode)
    new = target.read_bytes()
    assert new != old and b"device = cuda" in new
    assert (b"\r\n" in new) == (b"\r\n" in old)  # line endings kept
    assert "Wrote %s (the previous file is saved as %s)." % (target, backup) in out
    assert "--- %s" % target in out and "+# Theano configuration for this machine" in out  # the diff came first
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".theanorc", backup.name])  # no temp file left


def test_second_write_is_a_no_op_and_backups_never_overwrite(tmp_path: Path) -> None:
    target = tmp_path / ".theanorc"
    target.write_bytes(b"[global]\nfloatX = float64\n")
    assert run_write(machine_record(tmp_path, "[global]\nfloatX = float64\n"), None)[0] == 0
    written = target.read_bytes()
    code, out = run_write(machine_record(tmp_path, written.decode()), None)
    assert code == 0 and "already up to date" in out and target.read_bytes() == written
    target.write_bytes(b"[global]\nfloatX = float16\n")
    assert run_write(machine_record(tmp_path, "[global]\nfloatX = float16\n"), None)[0] == 0
    assert (tmp_path / ".theanorc.legacydoc-bak").read_bytes() == b"[global]\nfloatX = float64\n"
    assert (tmp_path / ".theanorc.legacydoc-bak.1").read_bytes() == b"[global]\nfloatX = float16\n"


@pytest.mark.parametrize("part", ["text_partial", "text_truncated"])
def test_a_file_the_record_holds_only_in_part_is_not_rewritten(tmp_path: Path, part: str) -> None:
    """The new file is built from the recorded text: the part not recorded would be lost."""
    target = tmp_path / ".theanorc"
    target.write_bytes(b"[global]\nfloatX = float32\n[nvcc]\nflags = -arch=sm_30\n")
    before = snapshot(tmp_path)
    rec = record(files=[rc_file("[nvcc]\nflags = -arch=sm_30\n", str(target), **{part: True})])
    code, out = run_write(rec, None)
    assert code == 2 and "holds only part of %s" % target in out
    assert snapshot(tmp_path) == before
    # another PATH is not the file the record holds in part
    assert run_write(rec, tmp_path / "new.theanorc")[0] == 0


def test_new_file_has_no_backup(tmp_path: Path) -> None:
    code, out = run_write(machine_record(tmp_path), None)
    assert code == 0 and (tmp_path / ".theanorc").exists() and out.rstrip().endswith("Wrote %s." % (tmp_path / ".theanorc"))
    assert "--- /dev/null" in out


def test_dry_run_touches_nothing(tmp_path: Path) -> None:
    (tmp_path / ".theanorc").write_bytes(SEED_THEANORC.encode())
    before = snapshot(tmp_path)
    code, out = run_write(machine_record(tmp_path, SEED_THEANORC), None, dry_run=True)
    assert code == 0 and "Dry run: nothing written." in out and "-compiler = g++" in out
    assert snapshot(tmp_path) == before


def test_seed_file_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "theanorc.new"
    path.write_text(SEED_THEANORC)
    code, out = run_write(seed_record(), path)
    assert code == 0, out
    assert (tmp_path / ("theanorc.new" + fileops.BACKUP_SUFFIX)).read_bytes() == SEED_THEANORC.encode()
    text = path.read_bytes().decode()
    assert "\r\n" not in text  # the old file had LF endings
    assert "[gpuarray]" in text and "[cudnn]" not in text and "compiler =" not in text and "cnmem" not in text


def test_confirmation(tmp_path: Path) -> None:
    target = tmp_path / ".theanorc"
    target.write_bytes(b"[global]\n")
    asked = []
    code, out = run_write(machine_record(tmp_path, "[global]\n"), None, yes=False, confirm=lambda p: asked.append(p) or False)
    assert code == 1 and "Not written." in out and asked and target.read_bytes() == b"[global]\n"
    code, out = run_write(machine_record(tmp_path, "[global]\n"), None, yes=False, confirm=lambda p: True)
    assert code == 0 and (tmp_path / ".theanorc.legacydoc-bak").read_bytes() == b"[global]\n"


def test_no_terminal_and_no_yes_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    (tmp_path / ".theanorc").write_bytes(b"[global]\n")
    before = snapshot(tmp_path)
    code, out = run_write(machine_record(tmp_path, "[global]\n"), None, yes=False)
    assert code == 2 and out.strip().splitlines()[-1].startswith("legacydoc: not written: %s" % (tmp_path / ".theanorc"))
    assert snapshot(tmp_path) == before


@posix
def test_symlink_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "theanorc"
    real.parent.mkdir()
    real.write_bytes(b"[global]\nfloatX = float64\n")
    link = tmp_path / ".theanorc"
    link.symlink_to(real)
    code, out = run_write(machine_record(tmp_path, "[global]\nfloatX = float64\n"), None)
    assert code == 0, out
    assert link.is_symlink() and b"device = cuda" in real.read_bytes()
    assert (real.parent / ("theanorc" + fileops.BACKUP_SUFFIX)).read_bytes() == b"[global]\nfloatX = float64\n"


def _refusal(tmp_path: Path, path: Path, rec: Optional[dict] = None) -> str:
    before = snapshot(tmp_path)
    code, out = run_write(rec or machine_record(tmp_path), path)
    assert code == 2, out
    assert snapshot(tmp_path) == before  # nothing touched
    line = out.strip().splitlines()[-1]
    assert line.startswith("legacydoc: not written: ") and str(path) in line
    return line


@posix
@pytest.mark.parametrize("kind", ["directory", "symlink-loop", "dangling-symlink", "fifo", "missing-folder"])
def test_refusals(tmp_path: Path, kind: str) -> None:
    path = tmp_path / ".theanorc"
    if kind == "directory":
        path.mkdir()
    elif kind == "symlink-loop":
        path.symlink_to(path)
    elif kind == "dangling-symlink":
        path.symlink_to(tmp_path / "nowhere")
    elif kind == "fifo":
        os.mkfifo(str(path))
    else:
        path = tmp_path / "no" / "such" / ".theanorc"
    line = _refusal(tmp_path, path)
    expected = {"directory": "is a folder", "symlink-loop": "symbolic link loop", "dangling-symlink": "does not exist",
                "fifo": "is a FIFO", "missing-folder": "does not exist"}[kind]
    assert expected in line


@posix
@not_root
def test_refusal_unwritable_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / ".theanorc").write_bytes(b"[global]\n")
    folder.chmod(0o500)
    try:
        assert "no permission to create files" in _refusal(tmp_path, folder / ".theanorc")
    finally:
        folder.chmod(0o700)


@posix
@not_root
def test_refusal_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / ".theanorc"
    path.write_bytes(b"[global]\n")
    path.chmod(0)
    try:
        assert "cannot be read" in _refusal(tmp_path, path) or "cannot read" in _refusal(tmp_path, path)
    finally:
        path.chmod(0o600)


def test_refusal_facts_from_another_os(tmp_path: Path) -> None:
    rec = seed_record()  # a Windows machine's facts, no PATH given
    if os.name == "nt":
        pytest.skip("the facts are from Windows: this is the same OS")
    code, out = run_write(rec, None)
    assert code == 2 and "C:\\Users\\dev\\.theanorc belongs to the windows machine" in out


def test_failure_midway_restores_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / ".theanorc"
    target.write_bytes(b"[global]\nfloatX = float16\n")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileops.os, "replace", broken_replace)
    line = _refusal(tmp_path, target, machine_record(tmp_path, "[global]\nfloatX = float16\n"))
    assert "No space left on device" in line


def test_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        write(["not", "a", "record"], None, False, True, io.StringIO())  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        write(record(), Path("bad\0path"), False, True, io.StringIO())


def test_stale_facts_are_noted(tmp_path: Path) -> None:
    (tmp_path / ".theanorc").write_bytes(b"[global]\nfloatX = float16\n")
    code, out = run_write(machine_record(tmp_path, "[global]\nfloatX = float64\n"), None, dry_run=True)
    assert code == 0 and "changed since the facts were recorded" in out


def test_contexts_alone_ask_for_the_gpu() -> None:
    rec = record("[global]\ncontexts = dev0->cuda0\nfloatX = float32\n", pygpu=False)
    [finding] = find_problems(rec)
    assert finding.kind == "cuda-without-pygpu" and finding.option == "contexts" and finding.line == 2


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux sysfs")
def test_refusal_in_a_folder_nobody_can_create_files_in(tmp_path: Path) -> None:
    """sysfs refuses new files even to root: the refusal path runs for real, as any user."""
    code, out = run_write(machine_record(tmp_path), Path("/sys/.theanorc"))
    assert code == 2 and not os.path.lexists("/sys/.theanorc")
    line = out.strip().splitlines()[-1]
    assert line.startswith("legacydoc: not written: cannot write /sys/.theanorc: ")
