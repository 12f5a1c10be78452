"""One finding per problem, each with its exact corrected line: a table of config files,
THEANO_FLAGS values and machine facts, and the findings each must produce (all of them,
in order: nothing more)."""

from __future__ import annotations

from typing import Any, Optional

import pytest

from legacydoc.theanorc import derive_config_facts, effective_config, find_problems
from legacydoc.theanorc.discovery import config_file_paths, theanorc_line, theanorc_value, write_target
from legacydoc.theanorc.findings import KINDS

HOME = "/home/ann"
RC = HOME + "/.theanorc"


def rc_file(text: str, path: str = RC, origin: str = "default", **extra: Any) -> dict[str, Any]:
    fact = {"path": path, "from": origin, "exists": True, "readable": True, "kind": "file", "encoding": "utf-8", "text": text}
    fact.update(extra)
    return fact


def record(text: Optional[str] = None, flags: Optional[str] = None, files: Optional[list] = None, theanorc: Optional[str] = None,
           unread: Optional[list] = None, theano: str = "1.0.5", pygpu: bool = True, gpu: bool = True,
           cxx: str = "/usr/bin/g++", **tables: Any) -> dict[str, Any]:
    if files is None:
        files = [rc_file(text)] if text is not None else [{"path": RC, "from": "default", "exists": False, "readable": False}]
    packages: dict[str, Any] = {"theano": {"name": "theano", "version": theano}} if theano else {}
    if pygpu:
        packages["pygpu"] = {"name": "pygpu", "version": "0.7.6"}
    packages["found"] = sorted(packages)  # the target probe always lists what it found
    rec: dict[str, Any] = {
        "schema": 1,
        "system": {"os": "linux"},
        "python": {"probe_ok": True, "version": "3.8.18", "version_info": [3, 8, 18], "platform": "linux"},
        "packages": packages,
        "gpu": {"nvidia_smi": {"found": True, "rc": 0}, "devices": [{"name": "Tesla K80"}]} if gpu else
               {"nvidia_smi": {"found": True, "rc": 255, "output": "Failed to initialize NVML: Unknown Error"}},
        "compilers": {"theano_cxx": cxx, "gxx_all": [{"path": cxx, "ok": True, "source": "PATH"}] if cxx else []},
        "cuda": {"toolkits": [{"root": "/usr/local/cuda-10.2", "exists": True, "aliases": ["/usr/local/cuda"]},
                              {"root": "/opt/cuda-9.0", "exists": False, "found_by": ["theano:cuda.root"]}],
                 "path_nvcc_all": ["/usr/local/cuda-10.2/bin/nvcc"], "nvcc": {"found": True, "toolkit_root": "/usr/local/cuda-10.2"}},
        "theano_config": {"files": files, "unread_files": unread or [], "flags": {"THEANO_FLAGS": flags} if flags is not None else {}},
        "env": {"variables": {}},
    }
    if theanorc is not None:
        rec["theano_config"]["theanorc_env"] = theanorc
    rec.update(tables)
    return rec


@pytest.mark.parametrize("os_name, says", [
    ("windows", "Module use of python34.dll conflicts with this version of Python"),
    ("darwin", "On macOS Theano links no Python library"),
    ("linux", "a second Python runtime"),
])
def test_another_pythons_library_is_explained_for_each_os(os_name: str, says: str) -> None:
    rec = record("[gcc]\ncxxflags = -lpython34\n", system={"os": os_name})
    [finding] = find_problems(rec)
    assert finding.kind == "cxxflags-other-python" and says in finding.message
    assert finding.fix_line == ""  # nothing left: the line goes, as cxxflags' default is empty


def test_a_placeholder_in_theano_flags_is_removed_as_an_item() -> None:
    [finding] = find_problems(record(flags="base_compiledir=<your home dir>/theano"))
    assert finding.kind == "placeholder-value" and "Remove the item" in finding.message


def got(rec: dict[str, Any]) -> list[tuple]:
    return [(f.kind, f.line, f.fix_line) for f in find_problems(rec)]


CASES = [
    ("clean", record("[global]\ndevice = cuda\nfloatX = float32\nmode = FAST_RUN\n"), []),
    ("no-config-at-all", record(), []),
    ("dotted-key-in-global", record("[global]\ngpuarray.preallocate = 0.5\n"),
     [("dotted-key-in-global", 2, "[gpuarray]\npreallocate = 0.5")]),
    ("dotted-key-under-section", record("[dnn]\nconv.algo_fwd = time_once\n"),
     [("unknown-option", 2, "[dnn.conv]\nalgo_fwd = time_once")]),
    # blas.ldflags moved where theanorc --write would put it, with what it would write there
    # (nothing known links: empty); the user's own flags stay named, as a comment
    ("dotted-ldflags-in-global", record("[global]\nblas.ldflags = -LC:\\openblas -lopenblas\n"),
     [("dotted-key-in-global", 2,
       "[blas]\nldflags =\n# or your own flags (-LC:\\openblas -lopenblas), once g++ links a test program with them")]),
    # the same, misplaced without a dotted name; a value continued on a second line stays in the comment
    ("ldflags-in-global", record("[global]\nldflags = -lopenblas\n  -lgfortran\n"),
     [("continuation-line", 3, "ldflags = -lopenblas\n-lgfortran"),
      ("unknown-option", 2,
       "[blas]\nldflags =\n# or your own flags (-lopenblas -lgfortran), once g++ links a test program with them")]),
    ("global-prefix-in-file", record("[global]\nglobal.floatX = float32\n"), [("dotted-key-in-global", 2, "[global]\nfloatX = float32")]),
    ("option-in-wrong-section", record("[global]\npreallocate = 0.8\n"), [("unknown-option", 2, "[gpuarray]\npreallocate = 0.8")]),
    ("section-case", record("[Global]\nfloatX = float32\n"), [("unknown-option", 2, "[global]\nfloatX = float32")]),
    ("typo", record("[global]\nflaotX = float32\n"), [("unknown-option", 2, "[global]\nfloatX = float32")]),
    ("nothing-like-it", record("[foo]\nbar = 1\n"), [("unknown-option", 2, "")]),
    ("nvcc-removed", record("[nvcc]\nflags = -D_FORCE_INLINES\n"), [("removed-option", 2, "")]),
    ("mode-case", record("[global]\nmode = fast_run\n"), [("invalid-value", 2, "[global]\nmode = FAST_RUN")]),
    ("dnn-enabled-true", record("[dnn]\nenabled = true\n"), [("invalid-value", 2, "[dnn]\nenabled = True")]),
    ("bool-no", record("[global]\nallow_gc = no\n"), [("invalid-value", 2, "[global]\nallow_gc = False")]),
    ("no-repair", record("[tensor]\ncmp_sloppy = 7\n"), [("invalid-value", 2, "")]),
    ("inline-comment", record("[global]\nfloatX = float32  # fast\n"), [("inline-comment", 2, "[global]\nfloatX = float32")]),
    ("inline-comment-str", record("[gcc]\ncxxflags = -O3 ; tuned\n"), [("inline-comment", 2, "[gcc]\ncxxflags = -O3")]),
    ("quoted", record("[global]\nfloatX = 'float32'\n"), [("quoted-value", 2, "[global]\nfloatX = float32")]),
    ("quoted-path", record('[cuda]\nroot = "/usr/local/cuda"\n'), [("quoted-value", 2, "[cuda]\nroot = /usr/local/cuda")]),
    ("old-gpu-backend", record("[global]\ndevice = gpu1\nfloatX = float32\n"), [("old-gpu-backend", 2, "[global]\ndevice = cuda1")]),
    ("old-gpu-backend-0.9", record("[global]\ndevice = gpu\nfloatX = float32\n", theano="0.9.0"),
     [("old-gpu-backend", 2, "[global]\ndevice = cuda")]),
    ("force-device", record("[global]\nforce_device = True\n"), [("force-device-no-effect", 2, "")]),
    ("cuda-without-pygpu", record("[global]\ndevice = cuda\nfloatX = float32\n", pygpu=False),
     [("cuda-without-pygpu", 2, "conda install -c mila-udem pygpu=0.7")]),
    ("cuda-without-gpu", record("[global]\ndevice = cuda0\nfloatX = float32\n", gpu=False),
     [("cuda-without-gpu", 2, "[global]\ndevice = cpu")]),
    ("cuda-without-compiler", record("[global]\ndevice = cuda\nfloatX = float32\ncxx =\n"),
     [("cuda-without-compiler", 2, "[global]\ncxx = /usr/bin/g++")]),
    ("gpu-device-name", record("[global]\ndevice = cuda*\nfloatX = float32\n"),
     [("gpu-device-name", 2, "[global]\ndevice = cuda")]),
    ("gpu-device-name-opencl", record("[global]\ndevice = opencl0\nfloatX = float32\n"),
     [("gpu-device-name", 2, "[global]\ndevice = opencl0:0")]),
    ("float64-on-gpu-default", record("[global]\ndevice = cuda\n"), [("float64-on-gpu", 2, "[global]\nfloatX = float32")]),
    ("float64-on-gpu-set", record("[global]\ndevice = cuda\nfloatX = float64\n"), [("float64-on-gpu", 3, "[global]\nfloatX = float32")]),
    ("cuda-root-bin", record("[cuda]\nroot = /usr/local/cuda/bin\n"), [("cuda-root-bin", 2, "[cuda]\nroot = /usr/local/cuda")]),
    ("cuda-root-missing", record("[cuda]\nroot = /opt/cuda-9.0\n"),
     [("cuda-root-missing", 2, "[cuda]\nroot = /usr/local/cuda-10.2")]),
    ("cuda-root-fine", record("[cuda]\nroot = /usr/local/cuda\n"), []),
    ("dnn-path-missing", record("[dnn]\ninclude_path = /opt/cudnn/include\n", cudnn={
        "dnn_settings": {"include_path": "/opt/cudnn/include"}, "include_dirs_searched": ["/usr/local/cuda-10.2/include"],
        "library_dirs_searched": [], "headers": [{"header": "cudnn.h", "path": "/usr/include/cudnn.h", "major": 7}]}),
     [("dnn-path-missing", 2, "[dnn]\ninclude_path = /usr/include")]),
    ("dnn-path-unknown", record("[dnn]\ninclude_path = /opt/cudnn/include\n"), []),  # not probed: no finding
    ("duplicate-option", record("[global]\nfloatX = float32\nFLOATX = float64\n"),
     [("duplicate-option", 3, "[global]\nFLOATX = float64")]),
    ("duplicate-section", record("[global]\nfloatX = float32\n[global]\ndevice = cpu\n"),
     [("duplicate-section", 3, "[global]\nfloatX = float32\ndevice = cpu")]),
    ("missing-header", record("floatX = float32\ndevice = cpu\n"), [("missing-section-header", 1, "[global]\nfloatX = float32")]),
    ("parse-error", record("[global]\ndevice cuda\n"), [("parse-error", 2, "device = cuda")]),
    ("continuation", record("[global]\nfloatX = float32\n  device = cuda\n"),
     [("continuation-line", 3, "floatX = float32\ndevice = cuda"), ("invalid-value", 2, "")]),
    ("bom", record(files=[rc_file("[global]\nfloatX = float32\n", encoding="utf-8-sig", bom="utf-8")]), [("bom", 1, "[global]")]),
    ("gbk-on-linux", record(files=[rc_file("# \ufffd\ufffd\n[global]\nfloatX = float32\n", encoding="undecodable",
                                           undecodable_offset=2, gbk_decodable=True)]), [("undecodable", 1, "")]),
    ("default-section", record("[DEFAULT]\nfloatX = float32\n[global]\n"), [("default-section", 1, "")]),
    ("interpolation", record("[gcc]\ncxxflags = -I%(CUDA)s\n"), [("interpolation", 2, "")]),
    ("env-var-syntax", record("[global]\nbase_compiledir = %LOCALAPPDATA%\\Theano\n[blas]\nldflags = -L$CONDA_PREFIX/lib "
                              "-Wl,-rpath,$ORIGIN\n"), [("interpolation", 4, ""), ("interpolation", 2, "")]),  # registry order
    # a guide's -lpython34 copied onto another Python; Theano links its own Python's library itself
    ("cxxflags-other-python", record("[gcc]\ncxxflags = -shared -lpython2.7 -O2\n"),
     [("cxxflags-other-python", 2, "[gcc]\ncxxflags = -shared -O2")]),
    ("cxxflags-own-python", record("[gcc]\ncxxflags = -lpython38 -O2\n"), []),
    ("cxxflags-python-unknown", record("[gcc]\ncxxflags = -lpython27\n", python={"probe_ok": False}), []),
    # a guide's placeholder: flags holding it go, a path option's line goes (Theano's default)
    ("placeholder-in-flags", record("[gcc]\ncxxflags = -I[MinGW directory]\\include -L[Python directory]\\libs -O2\n"),
     [("placeholder-value", 2, "[gcc]\ncxxflags = -O2")]),
    ("placeholder-path", record("[cuda]\nroot = <path to your CUDA>\n"), [("placeholder-value", 2, "")]),
    # the option whose argument it was goes too: "-I -O2" would take -O2 for a folder
    ("placeholder-separate-argument", record("[gcc]\ncxxflags = -I <path to include dir> -O2 -L [Python directory]\\libs "
                                             "-DMS_WIN64\n"), [("placeholder-value", 2, "[gcc]\ncxxflags = -O2 -DMS_WIN64")]),
    # an emptied blas.ldflags would switch BLAS off: the line goes instead
    ("placeholder-only-flag", record("[blas]\nldflags = -L<path to your OpenBLAS dir>\n"), [("placeholder-value", 2, "")]),
    ("placeholder-and-other-python", record("[gcc]\ncxxflags = -L[Python directory]\\libs -lpython34 -DMS_WIN64\n"),
     [("placeholder-value", 2, "[gcc]\ncxxflags = -DMS_WIN64"), ("cxxflags-other-python", 2, "[gcc]\ncxxflags = -DMS_WIN64")]),
    ("origin-is-fine", record("[blas]\nldflags = -lopenblas -Wl,-rpath,$ORIGIN/../lib\n"), []),
    # Theano formats compiledir_format's own keys (LD545's per-host cache): no warning;
    # %(PID)s is ConfigParser's, never the format's (Theano then stops with KeyError 'PID')
    ("compiledir-format-hostname", record("[global]\ncompiledir_format = compiledir_%(short_platform)s-%(hostname)s\n"), []),
    ("compiledir-format-pid", record("[global]\ncompiledir_format = compiledir_%(short_platform)s-%(PID)s\n"),
     [("interpolation", 2, "")]),
    ("scraped-seed-lines", record("[global]\ndevice cuda\n[lib]\ncnmem 0.8\n"),
     [("parse-error", 2, "device = cuda"), ("parse-error", 4, "[gpuarray]\npreallocate = 0.8")]),
    ("conflicting-files", record(files=[rc_file("[global]\nfloatX = float16\n", "/etc/theanorc", "THEANORC"),
                                        rc_file("[global]\nfloatX = float32\n", RC, "THEANORC")], theanorc="/etc/theanorc:" + RC),
     [("conflicting-values", 2, "[global]\nfloatX = float32")]),
    ("conflicting-flags", record("[global]\nfloatX = float16\n", flags="floatX=float32"), [("conflicting-values", None, "floatX=float32")]),
    ("flags-spaces", record(flags="floatX = float32"), [("flags-syntax", None, "floatX=float32")]),
    ("flags-global", record(flags="global.floatX=float32"), [("flags-syntax", None, "floatX=float32")]),
    ("flags-no-equals", record(flags="floatX float32,device=cpu"), [("flags-syntax", None, "floatX=float32")]),
    ("flags-hash", record(flags="floatX=float32#x,device=cpu"), [("flags-syntax", None, "THEANO_FLAGS=floatX=float32")]),
    ("flags-backslash", record(flags="cuda.root=C:\\CUDA\\v10.2"),
     [("flags-syntax", None, "cuda.root=C:/CUDA/v10.2")]),
    # doubled backslashes arrive as the single ones they stand for: nothing is lost
    ("flags-doubled-backslash", record(flags="cuda.root=C:\\\\CUDA\\\\v10.2"), []),
    ("flags-half-doubled-backslash", record(flags="cuda.root=C:\\\\CUDA\\v10.2"),
     [("flags-syntax", None, "cuda.root=C:/CUDA/v10.2")]),
    # quoted: shlex keeps every backslash inside single quotes, and a lone one inside double quotes
    ("flags-quoted-unc", record(flags="base_compiledir='\\\\srv\\share',cuda.root=\"C:\\CUDA\""), []),
    # a network path typed as Windows shows it: fixed to //srv/share/tc, not to a folder on the drive
    ("flags-unc", record(flags="base_compiledir=\\\\srv\\share\\tc"),
     [("flags-syntax", None, "base_compiledir=//srv/share/tc")]),
    ("flags-unclosed", record(flags='floatX="float32'), [("flags-syntax", None, "THEANO_FLAGS=floatX=float32")]),
    ("flags-value-space", record(flags="floatX= float32"), [("flags-syntax", None, "floatX=float32")]),
    ("flags-unknown", record(flags="lib.cnmem=0.8"), [("removed-option", None, "gpuarray.preallocate=0.8")]),
    ("flags-invalid", record(flags="mode=fast_run"), [("invalid-value", None, "mode=FAST_RUN")]),
    ("flags-dotted-on-pymc", record(flags="gpuarray.preallocate=0.5", theano="", **{"packages": {
        "theano-pymc": {"name": "theano-pymc", "version": "1.1.2"}, "pygpu": {"version": "0.7.6"}}}),
     [("flags-syntax", None, "gpuarray__preallocate=0.5")]),
    ("flags-dunder-on-theano", record(flags="gpuarray__preallocate=0.5"), [("flags-syntax", None, "gpuarray.preallocate=0.5")]),
    ("pymc-dunder-key-in-global", record("[global]\ngpuarray__preallocate = 0.5\n", theano="", **{"packages": {
        "theano-pymc": {"name": "theano-pymc", "version": "1.1.2"}}}), [("dotted-key-in-global", 2, "[gpuarray]\npreallocate = 0.5")]),
    ("pymc-dotted-section", record("[dnn.conv]\nalgo_fwd = time_once\n", theano="", **{"packages": {
        "theano-pymc": {"name": "theano-pymc", "version": "1.1.2"}}}), [("unknown-option", 2, "[dnn__conv]\nalgo_fwd = time_once")]),
    ("unread-project", record(unread=[{"path": "/work/proj/.theanorc", "where": "project", "exists": True, "kind": "file"}]),
     [("unread-theanorc", None, "export THEANORC=~/.theanorc:/work/proj/.theanorc")]),
    ("unread-txt-on-linux", record(unread=[{"path": HOME + "/.theanorc.txt", "where": "home", "exists": True, "kind": "file"}]),
     [("unread-theanorc", None, "mv /home/ann/.theanorc.txt /home/ann/.theanorc")]),
    ("hides-home", record(files=[rc_file("[global]\nfloatX = float32\n", "/work/proj/.theanorc", "THEANORC")],
                          theanorc="/work/proj/.theanorc",
                          unread=[{"path": RC, "where": "home", "exists": True, "kind": "file"}]),
     [("theanorc-hides-home", None, "export THEANORC=~/.theanorc:/work/proj/.theanorc")]),
    ("theanorc-missing", record(files=[{"path": "/nope/rc", "from": "THEANORC", "exists": False, "readable": False},
                                       rc_file("[global]\nfloatX = float32\n", RC, "THEANORC")], theanorc="/nope/rc:" + RC),
     [("theanorc-file-missing", None, "export THEANORC=/home/ann/.theanorc")]),  # the user's own spelling
    ("unreadable", record(files=[{"path": RC, "from": "default", "exists": True, "readable": False, "kind": "file",
                                  "read_error": "PermissionError: Permission denied"}]),
     [("unreadable-theanorc", None, "chmod u+r /home/ann/.theanorc")]),
    ("blas-needed", record(**{"packages": {"theano": {"version": "1.0.5"}, "numpy": {"version": "1.23.5"},
                                           "numpy_distutils_config": True, "numpy_blas_opt_info": False}}),
     [("blas-ldflags-needed", None, "[blas]\nldflags =")]),
    ("blas-set", record("[blas]\nldflags =\n", **{"packages": {"theano": {"version": "1.0.5"}, "numpy_distutils_config": True,
                                                               "numpy_blas_opt_info": False}}), []),
    ("cnmem-0.9-cuda", record("[global]\ndevice = cuda\nfloatX = float32\n[lib]\ncnmem = 0.5\n", theano="0.9.0"),
     [("option-no-effect", 5, "[gpuarray]\npreallocate = 0.5")]),
    ("cnmem-0.9-gpu", record("[global]\ndevice = gpu\nfloatX = float32\n[lib]\ncnmem = 0.5\n", theano="0.9.0"),
     [("old-gpu-backend", 2, "[global]\ndevice = cuda")]),
    ("truncated", record(files=[rc_file("[global]\nfloatX = float32\n# half a li", text_truncated=True)]), [("file-truncated", None, "")]),
    # a quoted excerpt: its first line may sit under a header the quote left out
    ("excerpt", record(files=[rc_file("flags = -arch=sm_30\n", text_partial=True)]), [("file-partial", None, "")]),
    ("excerpt-after-a-comment", record(files=[rc_file("# the GPU part\nflags = -arch=sm_30\n", text_partial=True)]),
     [("file-partial", None, "")]),
    ("not-an-excerpt", record(files=[rc_file("flags = -arch=sm_30\n")]),
     [("missing-section-header", 1, "[global]\nflags = -arch=sm_30")]),
]


@pytest.mark.parametrize("rec,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_findings_table(rec: dict[str, Any], expected: list[tuple]) -> None:
    assert got(rec) == expected


def test_every_kind_is_covered_by_the_table() -> None:
    seen = {f.kind for _id, rec, _e in CASES for f in find_problems(rec)}
    assert set(KINDS) - seen == set()


def test_messages_name_place_and_effect() -> None:
    [finding] = find_problems(record("[global]\nmode = fast_run\n"))
    assert finding.message.startswith(RC + " line 2: `mode = fast_run`")
    assert "import theano fails" in finding.message and finding.import_fails
    assert (finding.file, finding.section, finding.option, finding.value) == (RC, "global", "mode", "fast_run")


def test_import_error_is_the_first_in_theano_order() -> None:
    config = effective_config(record("[global]\ndevice = gpu\nfloatX = Float32\n"))
    # floatX is registered before device, so it is what import theano reports
    assert config.import_error_type == "ValueError" and "floatX" in config.import_error
    config = effective_config(record(flags='x="', text="[global]\nfloatX = bad\n"))
    assert config.import_error_at == "THEANO_FLAGS"
    config = effective_config(record("[a]\nbad\n[a]\n"))
    assert config.import_error_type == "DuplicateSectionError"


def test_windows_discovery_and_theanorc_lines() -> None:
    rec = record()
    rec["system"] = {"os": "windows"}
    rec["python"]["platform"] = "win32"
    rec["theano_config"]["files"] = [{"path": "C:\\Users\\ann\\.theanorc", "from": "default", "exists": False},
                                     {"path": "C:\\Users\\ann\\.theanorc.txt", "from": "default", "exists": True}]
    assert theanorc_value(rec, add=["D:\\proj\\.theanorc"]) == "~\\.theanorc;~\\.theanorc.txt;D:\\proj\\.theanorc"
    assert theanorc_line(rec, add=["D:\\proj\\.theanorc"]).startswith("set \"THEANORC=")
    target = write_target(rec)
    assert target is not None and target.path == "C:\\Users\\ann\\.theanorc.txt"  # the later file wins
    def paths(*args, **kw):
        return [path for path, _origin in config_file_paths(*args, **kw)]

    assert paths(None, "C:\\Users\\ann", windows=True) == ["C:\\Users\\ann/.theanorc", "C:\\Users\\ann/.theanorc.txt"]
    assert paths("a;~\\b", "C:\\Users\\ann", windows=True) == ["a", "C:\\Users\\ann\\b"]
    assert paths(None, "/home/ann", windows=False) == ["/home/ann/.theanorc"]
    assert paths("", "/home/ann", windows=False) == [""]  # set but empty: no file at all
    assert config_file_paths("x:y", "/home/ann", windows=False) == [("x", "THEANORC"), ("y", "THEANORC")]


def test_windows_locale_warnings() -> None:
    rec = record(files=[rc_file("[global]\n# 使用 GPU 加速\nfloatX = float32\n")])
    rec["system"] = {"os": "windows"}
    [finding] = find_problems(rec)
    assert (finding.kind, finding.severity, finding.line, finding.fix_line) == ("undecodable", "warning", 2, "# GPU")
    assert "Chinese Windows (GBK) this line makes import theano fail" in finding.message
    rec["theano_config"]["files"] = [rc_file("# 配置\n[global]\n")]  # decodes as GBK, to other characters
    [finding] = find_problems(rec)
    assert "turns into other characters" in finding.message
    rec["theano_config"]["files"] = [rc_file("# \ufffd\n[global]\n", encoding="undecodable", gbk_decodable=True)]
    [finding] = find_problems(rec)
    assert "Chinese Windows" in finding.message and not finding.import_fails


def test_python2_rules() -> None:
    rec = record("[global]\nfloatX = float32 ; comment\nfloatX = float64\n")
    rec["python"].update(version="2.7.18", version_info=[2, 7, 18])
    config = effective_config(rec)
    assert config.dialect == "py2" and config["floatX"].value == "float64" and config.import_error is None


def test_effective_provenance() -> None:
    rec = record("[global]\nbase_compiledir = /tmp/%(USER)s/x\n", flags="floatX=float32")
    config = effective_config(rec)
    assert config["floatX"].origin.label == "THEANO_FLAGS"
    setting = config["base_compiledir"]
    assert (setting.value, setting.raw, setting.origin.line) == ("/tmp/ann/x", "/tmp/%(USER)s/x", 2)
    assert config["cuda.root"].value == "/usr/local/cuda-10.2" and config["cuda.root"].is_default
    assert config["linker"].value == "cvm" and config["compile.timeout"].value == "120"
    derived = derive_config_facts(rec)["config"]
    assert derived["effective"]["floatX"] == {"value": "float32", "source": "THEANO_FLAGS"}
    assert derived["effective"]["blas"]["ldflags"]["source"] == "default" and "value" not in derived["effective"]["blas"]["ldflags"]


def test_a_default_stands_only_when_the_whole_config_was_read() -> None:
    """Unknown is not absent: a record that never listed the config files (a ticket, a
    partial replay) may hide a .theanorc that sets the option, so its default is unknown."""
    full = derive_config_facts(record())["config"]["effective"]
    assert full["floatX"] == {"source": "default", "value": "float64"}
    assert full["cxx"]["value"] == "/usr/bin/g++"
    partial = record()
    del partial["theano_config"]["files"]
    effective = derive_config_facts(partial)["config"]["effective"]
    assert effective["floatX"] == {"unknown": True}
    assert "value" not in effective["cxx"] and "source" not in effective["cxx"] and effective["cxx"]["unknown"] is True
    # a value the record shows (THEANO_FLAGS) is known all the same
    flagged = record(flags="floatX=float32")
    del flagged["theano_config"]["files"]
    assert derive_config_facts(flagged)["config"]["effective"]["floatX"] == {"value": "float32", "source": "THEANO_FLAGS"}
    # a config file cut at the probe's size limit may set anything further down
    cut = record(files=[rc_file("[global]\ndevice = cpu\n", text_truncated=True)])
    assert derive_config_facts(cut)["config"]["effective"]["floatX"].get("unknown") is True


def test_a_long_theanorc_list_costs_linear_work(monkeypatch) -> None:
    """Issue #10 defect 5: every missing file's finding rescanned the whole list for the
    home folder, once per entry: 400 entries took 24 s. Count the scans, not the seconds."""
    from legacydoc.theanorc import machine as machine_module

    calls = {"home": 0}
    real_home = machine_module.home

    def counting_home(record):
        calls["home"] += 1
        return real_home(record)

    monkeypatch.setattr(machine_module, "home", counting_home)
    files = [{"path": "/home/u/rc%d" % i, "from": "THEANORC", "exists": False, "readable": False} for i in range(400)]
    rec = record(files=files, theanorc=":".join(f["path"] for f in files))
    findings = [f for f in find_problems(rec) if f.kind == "theanorc-file-missing"]
    assert len(findings) == 1 and "400 files" in findings[0].message
    assert findings[0].fix_line == "unset THEANORC"  # every entry is missing: none is left
    assert calls["home"] < 50, calls


def test_float64_is_claimed_only_when_the_config_files_were_read() -> None:
    # A ticket gives only THEANO_FLAGS=device=cuda: a .theanorc nobody recorded may set
    # floatX, so the default is unknown and nothing is claimed (unknown is not absent).
    unread = record(flags="device=cuda")
    del unread["theano_config"]["files"]
    assert [f for f in find_problems(unread) if f.kind == "float64-on-gpu"] == []
    [finding] = [f for f in find_problems(record(flags="device=cuda")) if f.kind == "float64-on-gpu"]
    assert "(the default)" in finding.message
