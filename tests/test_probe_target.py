"""The target probe: choosing the interpreter, running the probe script in real legacy
interpreters (CPython 2.7 bare, a 3.7 venv with numpy 1.19.5, the current one), import
checks, fake Theano / Theano-PyMC installs and the failures that must become facts."""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

import pytest
import tomli_w

from conftest import posix_only
from legacy_envs import PYENV_VERSIONS, find_python, legacy_venv, require_python
from legacydoc.probes import target, target_script
from legacydoc.probes.context import ProbeContext

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

REAL_TIMEOUT = 60.0  # real interpreters on a loaded CI machine; they take ~0.1 s


def assert_toml(facts: dict) -> None:
    """Facts must survive a TOML round trip unchanged (no None, valid keys and values)."""
    assert tomllib.loads(tomli_w.dumps(facts)) == facts


def collect_with(ctx: ProbeContext) -> dict:
    facts = target.collect(ctx.for_probe())
    assert set(facts) == {"python", "packages"}
    assert_toml(facts)
    return facts


@pytest.fixture(scope="module")
def py37_numpy() -> Path:
    """A cached Python 3.7 venv with numpy 1.19.5 (the last numpy for 3.6 that Theano
    1.0.5 likes; its wheel still defines blas_opt_info)."""
    return legacy_venv("3.7", ["numpy==1.19.5"])


# --- the script itself -------------------------------------------------------------------


def test_script_source_is_portable_and_short():
    source = target.script_source()
    source.encode("ascii")  # Python 2 reads -c code as bytes
    assert len(source) < 30000  # Windows command lines stop at 32767 characters
    compile(source, "<target_script>", "exec")


def _pyenv_versions() -> list[str]:
    try:
        return sorted(p.name for p in PYENV_VERSIONS.iterdir() if (p / "bin" / "python").exists())
    except OSError:
        return []


@pytest.mark.legacy
@pytest.mark.parametrize("version", _pyenv_versions() or ["none"])
def test_script_runs_on_every_pyenv_python(version, ctx_factory):
    python = require_python(version)
    facts = collect_with(ctx_factory(python=str(python), timeout=REAL_TIMEOUT))
    assert facts["python"]["probe_ok"] is True, facts["python"]
    assert facts["python"]["version"] == version.split("-")[0]


@pytest.mark.legacy
def test_bare_python27(ctx_factory):
    python = require_python("2.7")
    facts = collect_with(ctx_factory(python=str(python), timeout=REAL_TIMEOUT))
    py, pk = facts["python"], facts["packages"]
    assert py["probe_ok"] is True
    assert py["selected_by"] == "--python"
    assert py["executable_requested"] == str(python)
    assert py["version"].startswith("2.7.")
    assert py["version_info"][:2] == [2, 7]
    assert py["implementation"] == "CPython"
    assert py["bits"] == 64
    assert py["env_kind"] == "system"
    assert py["platform"] == "linux2"
    assert py["executable"] == str(python)
    assert "" in py["sys_path"] and any("python2.7" in p for p in py["sys_path"])
    assert "numpy" not in pk and "numpy" not in pk["found"]
    assert "numpy_import_dir" not in pk and "numpy_blas_opt_info" not in pk
    assert "theano_import_dir" not in pk and pk["theano_claimed_by"] == []


@pytest.mark.legacy
@pytest.mark.slow
def test_py37_venv_with_numpy_1_19(py37_numpy, ctx_factory, tmp_path):
    env_dir = py37_numpy.parent.parent
    # selected through an activated venv, as a user would have it
    facts = collect_with(ctx_factory(env={"VIRTUAL_ENV": str(env_dir)}, timeout=REAL_TIMEOUT))
    py, pk = facts["python"], facts["packages"]
    assert py["probe_ok"] is True
    assert py["selected_by"] == "VIRTUAL_ENV"
    assert py["executable_requested"] == str(env_dir / "bin" / "python")
    assert py["version"].startswith("3.7.")
    assert py["env_kind"] == "venv"
    assert py["prefix"] == str(env_dir)
    assert py["base_prefix"] != py["prefix"]
    numpy = pk["numpy"]
    assert numpy["name"] == "numpy" and numpy["version"] == "1.19.5"
    assert numpy["kind"] == "dist-info" and numpy["installer"] == "pip"
    assert numpy["location"].endswith("site-packages")
    assert "copies" not in numpy
    assert pk["numpy_import_dir"] == str(Path(numpy["location"]) / "numpy")
    assert pk["numpy_distutils"] is True
    assert pk["numpy_distutils_config"] is True
    assert pk["numpy_blas_opt_info"] is True
    assert pk["numpy_blas"] == "openblas"
    assert "openblas" in pk["numpy_blas_libraries"]
    assert "import_check" not in pk


@pytest.mark.legacy
@pytest.mark.parametrize("version", ["0.8.2", "0.9.0"])
def test_the_released_theano_says_so_in_its_files(version, ctx_factory):
    """Theano 0.6-0.9 keep their version in generated_version.py, which the package on PyPI
    ships with release = True (every tag, and so every git build, says False): LD171 needs
    that to tell the released 0.9.0rc2 from a master build that calls itself the same."""
    python = legacy_venv("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==%s" % version])
    facts = collect_with(ctx_factory(python=str(python), timeout=REAL_TIMEOUT))
    pk = facts["packages"]
    assert pk["theano"]["version"] == version
    assert pk["theano_version_text"] == version
    assert pk["theano_version_source"] == "generated_version.py"
    assert pk["theano_revision"] == "RELEASE"
    assert pk["theano_released"] is True


@pytest.mark.legacy
@pytest.mark.slow
def test_import_check_py37_numpy(py37_numpy, ctx_factory):
    facts = collect_with(ctx_factory(python=str(py37_numpy), import_check=True, timeout=REAL_TIMEOUT))
    checks = facts["packages"]["import_check"]
    assert list(checks) == ["numpy", "pygpu", "theano"]
    numpy = checks["numpy"]
    assert numpy["ok"] is True, numpy
    assert numpy["version"] == "1.19.5"
    assert numpy["file"].endswith(os.path.join("numpy", "__init__.py"))
    assert numpy["blas_opt_info"] is True
    assert "command" not in numpy
    assert checks["theano"]["ok"] is False
    assert checks["theano"]["error"] == "ModuleNotFoundError: No module named 'theano'"
    assert checks["theano"]["command"]["argv"][2] == "<legacydoc import check>"
    assert checks["pygpu"]["error"] == "ModuleNotFoundError: No module named 'pygpu'"


@pytest.mark.legacy
def test_import_check_py27_numpy_missing(ctx_factory):
    python = require_python("2.7")
    facts = collect_with(ctx_factory(python=str(python), import_check=True, timeout=REAL_TIMEOUT))
    assert facts["python"]["probe_ok"] is True
    numpy = facts["packages"]["import_check"]["numpy"]
    assert numpy["ok"] is False
    assert numpy["error"] == "ImportError: No module named numpy"
    assert numpy["command"]["rc"] == 1
    assert "Traceback" in numpy["command"]["output"]


def test_current_interpreter(ctx_factory):
    facts = collect_with(ctx_factory(python=sys.executable, timeout=REAL_TIMEOUT))
    py, pk = facts["python"], facts["packages"]
    assert py["probe_ok"] is True
    assert py["version"] == platform.python_version()
    assert py["version_info"] == list(sys.version_info[:3])
    assert py["bits"] == (64 if sys.maxsize > 2**32 else 32)
    assert py["platform"] == sys.platform
    assert py["prefix"] == sys.prefix
    assert py["machine"] == platform.machine()
    assert "platform_platform" not in py  # platform.platform() spawns `uname -p`: not run
    import numpy  # legacydoc depends on numpy, so the current interpreter has it

    assert pk["numpy"]["version"] == numpy.__version__
    assert pk["numpy_import_dir"] == os.path.dirname(numpy.__file__)
    has_config = os.path.isfile(os.path.join(os.path.dirname(numpy.__file__), "distutils", "__config__.py"))
    assert pk["numpy_distutils_config"] is has_config
    if int(numpy.__version__.split(".")[0]) >= 2:
        assert pk["numpy_blas_opt_info"] is False  # numpy 2 has no numpy/distutils/__config__.py
        assert pk["numpy_blas_source"].endswith("__config__.py")


# --- choosing the interpreter ------------------------------------------------------------


def _link_python(directory: Path, name: str = "python") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    link = directory / name
    link.symlink_to(os.path.realpath(sys.executable))
    return link


@posix_only
def test_selection_order(tmp_path, ctx_factory):
    explicit = _link_python(tmp_path / "explicit" / "bin")
    conda = tmp_path / "conda"
    _link_python(conda / "bin")
    (conda / "conda-meta").mkdir()
    venv = tmp_path / "venv"
    _link_python(venv / "bin")
    on_path = _link_python(tmp_path / "onpath")
    env = {"CONDA_PREFIX": str(conda), "VIRTUAL_ENV": str(venv)}

    choice = target.choose_interpreter(ctx_factory(path_dirs=[on_path.parent], env=env, python=str(explicit)))
    assert (choice.selected_by, choice.path) == ("--python", str(explicit))
    choice = target.choose_interpreter(ctx_factory(path_dirs=[on_path.parent], env=env))
    assert (choice.selected_by, choice.path) == ("CONDA_PREFIX", str(conda / "bin" / "python"))
    choice = target.choose_interpreter(ctx_factory(path_dirs=[on_path.parent], env={"VIRTUAL_ENV": str(venv)}))
    assert (choice.selected_by, choice.path) == ("VIRTUAL_ENV", str(venv / "bin" / "python"))
    choice = target.choose_interpreter(ctx_factory(path_dirs=[on_path.parent]))
    assert (choice.selected_by, choice.path) == ("PATH", str(on_path))

    # nothing anywhere: legacydoc's own interpreter
    empty = tmp_path / "empty"
    empty.mkdir()
    choice = target.choose_interpreter(ProbeContext(environ={"PATH": str(empty)}, platform="linux"))
    assert (choice.selected_by, choice.path) == ("legacydoc", sys.executable)
    assert choice.skipped == ["PATH: no python found"]

    # end to end: the conda prefix really is probed, and symlinks resolve to the real one
    facts = collect_with(ctx_factory(path_dirs=[on_path.parent], env=env, timeout=REAL_TIMEOUT))
    assert facts["python"]["selected_by"] == "CONDA_PREFIX"
    assert facts["python"]["executable_requested"] == str(conda / "bin" / "python")
    assert facts["python"]["probe_ok"] is True


@posix_only
def test_selection_details(tmp_path, ctx_factory):
    # --python may name an env directory; an env without python is passed over
    env_dir = tmp_path / "env"
    python3 = _link_python(env_dir / "bin", "python3")
    empty_conda = tmp_path / "emptyconda"
    empty_conda.mkdir()
    choice = target.choose_interpreter(ctx_factory(python=str(env_dir)))
    assert (choice.selected_by, choice.path) == ("--python", str(python3))
    choice = target.choose_interpreter(ctx_factory(env={"CONDA_PREFIX": str(empty_conda), "VIRTUAL_ENV": str(env_dir)}))
    assert (choice.selected_by, choice.path) == ("VIRTUAL_ENV", str(python3))
    assert choice.skipped == ["CONDA_PREFIX=%s: no python in it" % empty_conda]
    # a relative --python is relative to the working directory; a bare name is looked up
    choice = target.choose_interpreter(ctx_factory(python="env"))
    assert choice.path == str(python3)
    bindir = tmp_path / "bins"
    named = _link_python(bindir, "python3.99")
    choice = target.choose_interpreter(ctx_factory(path_dirs=[bindir], python="python3.99"))
    assert (choice.selected_by, choice.path) == ("--python", str(named))
    # a directory with no interpreter is a recorded failure, not an exception
    facts = collect_with(ctx_factory(python=str(empty_conda)))
    assert facts["python"]["probe_ok"] is False
    assert facts["python"]["error"].startswith("no Python interpreter found in directory")


def test_selection_windows_layouts():
    files = {
        r"C:\Miniconda3\envs\old\python.exe",
        r"C:\venvs\legacy\Scripts\python.exe",
    }
    dirs = {r"C:\venvs\legacy"}

    def choose(env: dict, python: str | None = None) -> target.Choice:
        ctx = ProbeContext(environ=dict(env, PATH=""), platform="win32", python=python, cwd=Path("C:/work"))
        return target.choose_interpreter(ctx, is_file=files.__contains__, is_dir=dirs.__contains__)

    both = {"CONDA_PREFIX": r"C:\Miniconda3\envs\old", "VIRTUAL_ENV": r"C:\venvs\legacy"}
    choice = choose(both)
    assert (choice.selected_by, choice.path) == ("CONDA_PREFIX", r"C:\Miniconda3\envs\old\python.exe")
    choice = choose({"VIRTUAL_ENV": r"C:\venvs\legacy"})
    assert (choice.selected_by, choice.path) == ("VIRTUAL_ENV", r"C:\venvs\legacy\Scripts\python.exe")
    choice = choose(both, python=r"C:\venvs\legacy")
    assert (choice.selected_by, choice.path) == ("--python", r"C:\venvs\legacy\Scripts\python.exe")


# --- failures become facts ---------------------------------------------------------------


def test_missing_python_path(ctx_factory, tmp_path):
    missing = str(tmp_path / "nowhere" / "bin" / "python")
    facts = collect_with(ctx_factory(python=missing, import_check=True))
    py = facts["python"]
    assert py["probe_ok"] is False
    assert py["selected_by"] == "--python"
    assert py["executable_requested"] == missing
    assert py["error"].startswith("could not run the interpreter")
    assert "No such file" in py["command"]["error"]
    assert "rc" not in py["command"]
    # an interpreter that cannot start is not started again for the import checks
    assert facts["packages"]["import_check"]["numpy"] == {
        "ok": False,
        "skipped": True,
        "error": "not run: the interpreter probe could not start it",
    }


@posix_only
def test_fake_python_printing_garbage(fake_tools, ctx_factory):
    fake_tools.add("python", stdout=b"garbage\n{not json\n\xff\xfe\n", rc=0)
    ctx = ctx_factory(path_dirs=[fake_tools.bindir])
    facts = collect_with(ctx)
    py = facts["python"]
    assert py["selected_by"] == "PATH"
    assert py["executable_requested"] == str(fake_tools.bindir / "python")
    assert py["probe_ok"] is False
    assert py["error"] == "no report in the interpreter's output"
    assert "garbage" in py["command"]["output"]
    # the user's folder is passed to the script, which runs from an empty one
    assert py["command"]["argv"] == [str(fake_tools.bindir / "python"), "-c", "<legacydoc target_script.py>",
                                     str(ctx.cwd)]
    assert facts["packages"] == {}


@posix_only
def test_fake_python_failing(fake_tools, ctx_factory):
    fake_tools.add("python", stderr="Traceback (most recent call last):\nSyntaxError: invalid syntax\n", rc=1)
    facts = collect_with(ctx_factory(path_dirs=[fake_tools.bindir], import_check=True))
    py = facts["python"]
    assert py["probe_ok"] is False
    assert py["error"] == "exit code 1: SyntaxError: invalid syntax"
    assert py["command"]["rc"] == 1
    # the import checks still run (it did start) and fail the same way
    numpy = facts["packages"]["import_check"]["numpy"]
    assert numpy["ok"] is False and numpy["error"] == "SyntaxError: invalid syntax"


@posix_only
def test_fake_python_hanging(fake_tools, ctx_factory):
    fake_tools.add("python", sleep=30)
    ctx = ctx_factory(path_dirs=[fake_tools.bindir], timeout=2.0, import_check=True)
    facts = collect_with(ctx)
    py = facts["python"]
    assert py["probe_ok"] is False
    assert py["error"].startswith("timed out after")
    assert py["command"]["timed_out"] is True
    assert "rc" not in py["command"]
    assert py["command"]["duration_s"] < 10
    checks = facts["packages"]["import_check"]
    assert all(c["skipped"] and "timed out" in c["error"] for c in checks.values())
    assert len(ctx.log.results) == 1  # the hung interpreter was not started again


# --- fake installs on a PYTHONPATH site dir ----------------------------------------------


def _dist_info(site: Path, dirname: str, name: str, version: str, files: list[str], installer: str = "pip",
               top_level: str | None = None) -> Path:
    meta = site / dirname
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: x\n\nName: not-this\n" % (name, version))
    (meta / "INSTALLER").write_text(installer + "\n")
    record = [f + ",sha256=abc,10" for f in files] + [dirname + "/METADATA,,", dirname + "/RECORD,,"]
    (meta / "RECORD").write_text("\n".join(record) + "\n")
    if top_level is not None:
        (meta / "top_level.txt").write_text(top_level)
    return meta


def _theano_package(site: Path, version: str, revision: str) -> Path:
    pkg = site / "theano"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from theano.version import version as __version__\n")
    (pkg / "_version.py").write_text(
        "import json\n\nversion_json = '''\n{\n \"dirty\": false,\n \"error\": null,\n"
        " \"full-revisionid\": \"%s\",\n \"version\": \"%s\"\n}\n'''  # END VERSION_JSON\n" % (revision, version)
    )
    return pkg


def _interpreters() -> list:
    found = [pytest.param(sys.executable, id="current")]
    py27 = find_python("2.7")
    found.append(pytest.param(str(py27) if py27 else None, id="py27", marks=pytest.mark.legacy))
    return found


@pytest.mark.parametrize("python", _interpreters())
def test_theano_and_theano_pymc_over_each_other(python, tmp_path, ctx_factory):
    if python is None:
        pytest.skip("no Python 2.7 under %s" % PYENV_VERSIONS)
    site = tmp_path / "site"
    theano_files = ["theano/__init__.py", "theano/_version.py", "theano/version.py"]
    pkg = _theano_package(site, "1.1.2", "ebaad559d6ea4a49fa87123adf50c9aa847ce27a")
    _dist_info(site, "Theano-1.0.5.dist-info", "Theano", "1.0.5", theano_files + ["bin/theano-cache"])
    _dist_info(site, "Theano_PyMC-1.1.2.dist-info", "Theano-PyMC", "1.1.2", theano_files, top_level="theano\n")
    _dist_info(site, "pygpu-0.7.6.dist-info", "pygpu", "0.7.6", ["pygpu/__init__.py"], installer="conda")
    (site / "pygpu").mkdir()
    (site / "pygpu" / "__init__.py").write_text("")
    # something else in the same site dir that claims other names only
    _dist_info(site, "six-1.16.0.dist-info", "six", "1.16.0", ["six.py"])
    # what builds pygpu from source (LD176)
    _dist_info(site, "Cython-0.29.36.dist-info", "Cython", "0.29.36", ["Cython/__init__.py"])

    facts = collect_with(ctx_factory(python=python, env={"PYTHONPATH": str(site)}, timeout=REAL_TIMEOUT))
    pk = facts["packages"]
    assert facts["python"]["probe_ok"] is True
    assert str(site) in facts["python"]["sys_path"]
    assert pk["theano"] == {
        "name": "Theano",
        "version": "1.0.5",
        "location": str(site),
        "metadata": str(site / "Theano-1.0.5.dist-info"),
        "kind": "dist-info",
        "installer": "pip",
    }
    assert pk["theano-pymc"]["version"] == "1.1.2" and pk["theano-pymc"]["name"] == "Theano-PyMC"
    assert pk["pygpu"]["installer"] == "conda"
    assert pk["theano_import_dir"] == str(pkg)
    assert pk["theano_claimed_by"] == ["Theano", "Theano-PyMC"]
    assert pk["theano_version_text"] == "1.1.2"  # the files on disk are Theano-PyMC's
    assert pk["theano_version_source"] == "_version.py"
    assert pk["theano_revision"] == "ebaad559d6ea4a49fa87123adf50c9aa847ce27a"
    assert pk["pygpu_import_dir"] == str(site / "pygpu")
    assert {"theano", "theano-pymc", "pygpu", "six", "cython"} <= set(pk["found"])
    assert pk["cython"]["version"] == "0.29.36" and pk["cython"]["name"] == "Cython"
    assert "theano_dir_in_sys_path" not in pk


@pytest.mark.parametrize("python", _interpreters())
def test_the_keras_json_the_installed_keras_reads(python, tmp_path, ctx_factory):
    """Keras 2.0 reads ~/.keras/keras.json; 2.2+ $KERAS_HOME/keras.json when it is set;
    Keras 2.0 ignores KERAS_HOME. Recorded as read, never interpreted; unreadable is said."""
    if python is None:
        pytest.skip("no Python 2.7 under %s" % PYENV_VERSIONS)
    home = tmp_path / "home"
    (home / ".keras").mkdir(parents=True)
    (home / ".keras" / "keras.json").write_text(
        '{"backend": "theano", "image_data_format": "channels_last", "epsilon": 1e-07, "floatx": 3}')
    elsewhere = tmp_path / "kh"
    elsewhere.mkdir()
    (elsewhere / "keras.json").write_text("{not json")
    for version, env, expected in (
        ("2.0.8", {}, {"path": str(home / ".keras" / "keras.json"), "from": "home", "exists": True,
                       "backend": "theano", "image_data_format": "channels_last"}),
        ("2.0.8", {"KERAS_HOME": str(elsewhere)}, {"path": str(home / ".keras" / "keras.json"), "from": "home",
                                                    "exists": True, "backend": "theano",
                                                    "image_data_format": "channels_last"}),
        ("2.2.4", {"KERAS_HOME": str(elsewhere)}, {"path": str(elsewhere / "keras.json"), "from": "KERAS_HOME",
                                                    "exists": True}),
        ("2.2.4", {"KERAS_HOME": str(tmp_path / "none")}, {"path": str(tmp_path / "none" / "keras.json"),
                                                            "from": "KERAS_HOME", "exists": False}),
    ):
        site = tmp_path / ("site-" + version + str(len(env)) + str("none" in str(env)))
        _dist_info(site, "Keras-%s.dist-info" % version, "Keras", version, ["keras/__init__.py"])
        facts = collect_with(ctx_factory(python=python, env={"PYTHONPATH": str(site), **env}, timeout=REAL_TIMEOUT))
        config = facts["packages"]["keras_config"]
        error = config.pop("error", "")
        assert config == expected, (version, env)
        assert error.startswith("not JSON") == (expected.get("from") == "KERAS_HOME" and expected["exists"])
    # no Keras installed: no keras.json facts at all
    facts = collect_with(ctx_factory(python=python, env={"PYTHONPATH": str(tmp_path / "empty")}, timeout=REAL_TIMEOUT))
    assert "keras_config" not in facts["packages"]


def test_a_hostile_keras_json_costs_only_its_own_facts(tmp_path, ctx_factory):
    """Nested past the recursion limit, json.loads raises RecursionError, not ValueError."""
    (tmp_path / "home" / ".keras").mkdir(parents=True)
    (tmp_path / "home" / ".keras" / "keras.json").write_text("[" * 200000)
    site = tmp_path / "site"
    _dist_info(site, "Keras-2.3.1.dist-info", "Keras", "2.3.1", ["keras/__init__.py"])
    _dist_info(site, "Theano-1.0.5.dist-info", "Theano", "1.0.5", ["theano/__init__.py"])
    facts = collect_with(ctx_factory(python=sys.executable, env={"PYTHONPATH": str(site)}, timeout=REAL_TIMEOUT))
    assert facts["packages"]["theano"]["version"] == "1.0.5"
    assert "RecursionError" in facts["packages"]["keras_config"]["error"]


def test_an_installed_pymc3_is_import_checked_and_its_error_read(tmp_path, ctx_factory):
    """PyMC3 3.9-3.11.2 stop at import on a numpy without float128 (LD150): the import check
    imports PyMC3 when it is installed, and its error line is read with the catalogue."""
    site = tmp_path / "site"
    _dist_info(site, "pymc3-3.11.1.dist-info", "pymc3", "3.11.1", ["pymc3/__init__.py"])
    (site / "pymc3").mkdir()
    (site / "pymc3" / "__init__.py").write_text("import numpy\nnumpy.dtype('float999')\n")
    ctx = ctx_factory(python=sys.executable, env={"PYTHONPATH": str(site)}, import_check=True, timeout=REAL_TIMEOUT)
    checks = collect_with(ctx)["packages"]["import_check"]
    assert list(checks) == ["numpy", "pygpu", "theano", "pymc3"]
    assert checks["pymc3"]["ok"] is False and "float999" in checks["pymc3"]["error"]
    assert "lasagne" not in checks  # not installed, not imported
    # without PyMC3 installed, only the three
    plain = collect_with(ctx_factory(python=sys.executable, env={"PYTHONPATH": str(tmp_path / "empty")},
                                     import_check=True, timeout=REAL_TIMEOUT))
    assert list(plain["packages"]["import_check"]) == ["numpy", "pygpu", "theano"]


@pytest.mark.parametrize("layout, found", [
    # where each release keeps them: 0.7-0.9, 1.0.x, Theano-PyMC 1.1
    (["gof/lazylinker_c.c", "scan_module/scan_perform.c"], {"lazylinker_c": True, "scan_perform": True}),
    (["gof/c_code/lazylinker_c.c", "scan_module/c_code/scan_perform.c"], {"lazylinker_c": True, "scan_perform": True}),
    (["link/c/c_code/lazylinker_c.c", "scan/c_code/scan_perform.c"], {"lazylinker_c": True, "scan_perform": True}),
    # only the .py files were installed (a zipped egg, a frozen app)
    ([], {"lazylinker_c": False, "scan_perform": False}),
])
def test_the_c_sources_theano_compiles_are_looked_for_in_its_folder(layout, found, tmp_path, ctx_factory):
    site = tmp_path / "site"
    pkg = _theano_package(site, "1.0.5", "f3bb5b755ec5e92fb60b5364d83a10878fa9a211")
    for relative in layout:
        (pkg / relative).parent.mkdir(parents=True, exist_ok=True)
        (pkg / relative).write_text("/* C */\n")
    facts = collect_with(ctx_factory(python=sys.executable, env={"PYTHONPATH": str(site)}, timeout=REAL_TIMEOUT))
    assert facts["packages"]["theano_c_sources"] == found


def test_a_stale_lasagne_earlier_on_sys_path_is_recorded_beside_the_installed_one(tmp_path, ctx_factory):
    """An old Lasagne folder on PYTHONPATH is imported before the site's: both are recorded,
    in import order, and LD162 names them."""
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules

    stale, site = tmp_path / "python_modules", tmp_path / "site"
    for folder in (stale, site):
        (folder / "lasagne").mkdir(parents=True)
        (folder / "lasagne" / "__init__.py").write_text("")
    _dist_info(site, "Lasagne-0.2.dev1.dist-info", "Lasagne", "0.2.dev1", ["lasagne/__init__.py"])
    env = {"PYTHONPATH": os.pathsep.join([str(stale), str(site)])}
    facts = collect_with(ctx_factory(python=sys.executable, env=env, timeout=REAL_TIMEOUT))
    pk = facts["packages"]
    assert pk["lasagne_import_dir"] == str(stale / "lasagne")
    assert pk["lasagne_shadowed_dirs"] == [str(site / "lasagne")]
    fired = {d.id: d for d in run_check(facts, load_rules()).every()}
    assert "LD162" in fired and str(stale / "lasagne") in fired["LD162"].title
    # one copy: recorded, nothing to say
    alone = collect_with(ctx_factory(python=sys.executable, env={"PYTHONPATH": str(site)}, timeout=REAL_TIMEOUT))
    assert "lasagne_shadowed_dirs" not in alone["packages"]
    assert "LD162" not in {d.id for d in run_check(alone, load_rules()).every()}


@posix_only
def test_a_theano_folder_python_2_cannot_name_is_not_read_as_missing_its_c_sources(tmp_path, ctx_factory):
    """Python 2 decodes a folder name its file system encoding cannot hold into a name that
    does not exist: the C sources are then unknown, never 'missing' (LD161 is an error)."""
    python = find_python("2.7")
    if python is None:
        pytest.skip("no Python 2.7 under %s" % PYENV_VERSIONS)
    site = Path(os.fsdecode(bytes(tmp_path) + b"/lat\xe9"))  # Latin-1 bytes, not UTF-8
    pkg = _theano_package(site, "1.0.5", "f3bb5b755ec5e92fb60b5364d83a10878fa9a211")
    for relative in ("gof/c_code/lazylinker_c.c", "scan_module/c_code/scan_perform.c"):
        (pkg / relative).parent.mkdir(parents=True)
        (pkg / relative).write_text("/* C */\n")
    ctx = ctx_factory(python=str(python), env={"PYTHONPATH": str(site), "LC_ALL": "C.UTF-8"}, timeout=REAL_TIMEOUT)
    sources = collect_with(ctx)["packages"].get("theano_c_sources")
    assert sources in (None, {"lazylinker_c": True, "scan_perform": True}), sources


@pytest.mark.legacy
@pytest.mark.slow
def test_the_real_theano_from_pypi_has_its_c_sources(ctx_factory):
    python = legacy_venv("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])
    facts = collect_with(ctx_factory(python=str(python), timeout=REAL_TIMEOUT))
    assert facts["packages"]["theano_c_sources"] == {"lazylinker_c": True, "scan_perform": True}


def test_pydot_and_pydot_ng_are_recorded_for_theano_08(tmp_path, ctx_factory):
    """Theano 0.7/0.8 call pydot.find_graphviz() at import (LD151): the probe records both."""
    site = tmp_path / "site"
    _dist_info(site, "Theano-0.8.2.dist-info", "Theano", "0.8.2", ["theano/__init__.py"])
    _dist_info(site, "pydot-1.2.3.dist-info", "pydot", "1.2.3", ["pydot.py"])
    facts = collect_with(ctx_factory(python=sys.executable, env={"PYTHONPATH": str(site)}, timeout=REAL_TIMEOUT))
    assert facts["packages"]["pydot"]["version"] == "1.2.3"
    assert "pydot-ng" not in facts["packages"]["found"]
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules

    assert "LD151" in [d.id for d in run_check(facts, load_rules()).diagnoses]
    _dist_info(site, "pydot_ng-2.0.0.dist-info", "pydot-ng", "2.0.0", ["pydot_ng/__init__.py"])
    facts = collect_with(ctx_factory(python=sys.executable, env={"PYTHONPATH": str(site)}, timeout=REAL_TIMEOUT))
    assert facts["packages"]["pydot-ng"]["version"] == "2.0.0"
    assert "LD151" not in [d.id for d in run_check(facts, load_rules()).diagnoses]


@pytest.mark.parametrize("python", _interpreters())
def test_egg_info_develop_and_duplicate_copies(python, tmp_path, ctx_factory):
    if python is None:
        pytest.skip("no Python 2.7 under %s" % PYENV_VERSIONS)
    first, second, src = tmp_path / "first", tmp_path / "second", tmp_path / "src" / "Theano"
    # numpy twice: a distutils egg-info *file* first, a dist-info later on sys.path
    first.mkdir()
    (first / "numpy-1.16.6-py2.7.egg-info").write_text("Metadata-Version: 1.1\nName: numpy\nVersion: 1.16.6\n")
    _dist_info(second, "numpy-1.19.5.dist-info", "numpy", "1.19.5", ["numpy/__init__.py"])
    # Theano as a develop install: the egg-link in a site dir names the source checkout
    (src / "theano").mkdir(parents=True)
    (src / "theano" / "__init__.py").write_text("")
    # what setup.py develop writes at rel-0.9.0 (write_version_py): the commit of the checkout
    (src / "theano" / "generated_version.py").write_text(
        "\n# THIS FILE IS GENERATED FROM THEANO SETUP.PY\nshort_version = '0.9.0'\nversion = '0.9.0'\n"
        "git_revision = 'c697eeab84e5b8a74908da654b66ec9eca4f1291'\n"
        "full_version = '0.9.0.dev-%(git_revision)s' % {\n    'git_revision': git_revision}\nrelease = False\n\n"
        "if not release:\n    version = full_version\n")
    egg_info = src / "Theano.egg-info"
    egg_info.mkdir()
    (egg_info / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: Theano\nVersion: 0.9.0\n")
    (egg_info / "top_level.txt").write_text("bin\ntheano\n")
    (second / "Theano.egg-link").write_text(str(src) + "\n.")
    # a legacy setup.py install: egg-info directory with installed-files.txt
    _dist_info(second, "Lasagne-0.2.dev1.dist-info", "Lasagne", "0.2.dev1", ["lasagne/__init__.py"])
    legacy = second / "Keras-1.2.2-py2.7.egg-info"
    legacy.mkdir()
    (legacy / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: Keras\nVersion: 1.2.2\n")
    (legacy / "installed-files.txt").write_text("../keras/__init__.py\n../theano/__init__.py\nPKG-INFO\n")

    # the source checkout is on sys.path as easy-install.pth would put it; and the theano
    # package directory itself is on sys.path too (breaks Theano on Python 3)
    pythonpath = os.pathsep.join(map(str, [first, second, src, src / "theano"]))
    facts = collect_with(ctx_factory(python=python, env={"PYTHONPATH": pythonpath}, timeout=REAL_TIMEOUT))
    pk = facts["packages"]
    numpy = pk["numpy"]
    assert numpy["version"] == "1.16.6" and numpy["kind"] == "egg-info-file"
    versions = [c["version"] for c in numpy["copies"]]
    assert versions[:2] == ["1.16.6", "1.19.5"]
    theano = pk["theano"]
    assert theano["version"] == "0.9.0" and theano["develop"] is True
    assert theano["location"] == str(src)
    assert theano["egg_link"] == str(second / "Theano.egg-link")
    assert "copies" not in theano  # found via the egg-link and via sys.path: one copy
    assert pk["theano_import_dir"] == str(src / "theano")
    assert pk["theano_claimed_by"] == ["Theano"]
    assert pk["theano_version_text"] == "0.9.0" and pk["theano_version_source"] == "generated_version.py"
    assert pk["theano_revision"] == "c697eeab84e5b8a74908da654b66ec9eca4f1291"
    assert pk["theano_released"] is False  # a git build, not the package on PyPI
    assert pk["keras"]["version"] == "1.2.2" and pk["keras"]["kind"] == "egg-info"
    assert pk["lasagne"]["version"] == "0.2.dev1"
    assert pk["theano_dir_in_sys_path"] == str(src / "theano")


# --- pure helpers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", "garbage", "{", "[1, 2]", '{"other": 1}', "\x00\xff", "null\n" * 3, '{"legacydoc_target_report": 1'],
)
def test_parse_report_garbage(text):
    assert target.parse_report(text) == {}


def test_parse_report_takes_last_report_after_noise():
    first = json.dumps({target.REPORT_KEY: 1, "python": {"version": "old"}})
    last = json.dumps({target.REPORT_KEY: 1, "python": {"version": "3.7.16"}})
    text = "sitecustomize says hi\n%s\n{broken\n  %s  \n\nWarning: trailing\n" % (first, last)
    assert target.parse_report(text)["python"]["version"] == "3.7.16"


def test_packages_from_report_groups_copies():
    report = {
        "packages": {
            "distributions": [
                {"name": "Theano_PyMC", "version": "1.1.2", "location": "/a"},
                {"name": "numpy", "version": "1.19.5", "location": "/a"},
                {"name": "theano-pymc", "version": "1.0.5", "location": "/b"},
                "junk",
            ],
            "theano_claimed_by": ["Theano-PyMC"],
        }
    }
    facts = target.packages_from_report(report)
    assert facts["theano-pymc"]["version"] == "1.1.2"
    assert [c["location"] for c in facts["theano-pymc"]["copies"]] == ["/a", "/b"]
    assert facts["found"] == ["numpy", "theano-pymc"]
    assert target.packages_from_report({"packages": "junk"}) == {}


def test_clean_makes_toml_safe():
    facts = target.clean({"a": None, "b": ("x", None), "c": "bad \udcff name", "d": {"e": None}})
    assert facts == {"b": ["x"], "c": "bad ? name", "d": {}}
    assert_toml(facts)


NUMPY_119_CONFIG = """\
blas_mkl_info={}
blis_info={}
openblas_info={'libraries': ['openblas', 'openblas'], 'library_dirs': ['/usr/local/lib'], 'language': 'c'}
blas_opt_info={'libraries': ['openblas', 'openblas'], 'library_dirs': ['/usr/local/lib'], 'language': 'c', 'define_macros': [('HAVE_CBLAS', None)]}
lapack_mkl_info={}
"""
NUMPY_CONDA_MKL_CONFIG = """\
blas_mkl_info={'libraries': ['mkl_rt', 'pthread'], 'library_dirs': ['C:/Miniconda3/envs/old/Library/lib']}
blas_opt_info={'libraries': ['mkl_rt', 'pthread'], 'library_dirs': ['C:/Miniconda3/envs/old/Library/lib'], 'define_macros': [('SCIPY_MKL_H', None)]}
"""
NUMPY_122_CONFIG = """\
openblas64__info={'libraries': ['openblas64_', 'openblas64_'], 'library_dirs': ['/usr/local/lib']}
blas_ilp64_opt_info={'libraries': ['openblas64_', 'openblas64_'], 'library_dirs': ['/usr/local/lib'], 'language': 'c'}
"""
NUMPY_MACOS_CONFIG = """\
blas_opt_info={'extra_compile_args': ['-msse3'], 'extra_link_args': ['-Wl,-framework', '-Wl,Accelerate'], 'define_macros': [('NO_ATLAS_INFO', 3)]}
"""
NUMPY_MESON_CONFIG = """\
        "Build Dependencies": {
            "blas": {
                "name": "scipy-openblas",
                "found": bool("True".lower().replace("false", "")),
                "version": "0.3.27",
            },
            "lapack": {
                "name": "dep140",
"""


@pytest.mark.parametrize(
    "text, expected",
    [
        (NUMPY_119_CONFIG, {"blas_opt_info": True, "blas": "openblas", "blas_libraries": ["openblas", "openblas"]}),
        (NUMPY_CONDA_MKL_CONFIG, {"blas_opt_info": True, "blas": "mkl", "blas_libraries": ["mkl_rt", "pthread"]}),
        (NUMPY_122_CONFIG, {"blas_opt_info": False, "blas": "openblas", "blas_libraries": ["openblas64_", "openblas64_"]}),
        (NUMPY_MACOS_CONFIG, {"blas_opt_info": True, "blas": "accelerate", "blas_libraries": ["-Wl,Accelerate"]}),
        ("", {"blas_opt_info": False}),
        ("blas_opt_info={}\n", {"blas_opt_info": True}),
    ],
)
def test_blas_from_distutils_config(text, expected):
    assert target_script.blas_from_distutils_config(text) == expected


def test_blas_from_meson_config():
    assert target_script.blas_from_meson_config(NUMPY_MESON_CONFIG) == {
        "blas_libraries": ["scipy-openblas"],
        "blas": "openblas",
        "blas_version": "0.3.27",
    }
    assert target_script.blas_from_meson_config("garbage {") == {}


@pytest.mark.parametrize(
    "filename, name",
    [
        ("Theano_PyMC-1.1.2.dist-info", "theano-pymc"),
        ("numpy-1.9.1-py2.7.egg-info", "numpy"),
        ("Theano.egg-info", "theano"),
        ("mkl_service-2.4.0.dist-info", "mkl-service"),
        ("Theano.egg-link", "theano"),
    ],
)
def test_name_from_filename(filename, name):
    assert target_script.name_from_filename(filename) == name


def test_claims_from_record_and_installed_files():
    record = ["theano/__init__.py,sha256=x,1", "theano/gof/cc.py,,", "six.py,,", "../../bin/theano-cache,,",
              "Theano-1.0.5.dist-info/RECORD,,", "__pycache__/six.cpython-37.pyc,,"]
    assert target_script.claims_from_lines(record, False) == {"theano", "six"}
    installed = ["../theano/__init__.py", "PKG-INFO", "../../../../bin/x", "../keras\\models.py"]
    assert target_script.claims_from_lines(installed, True) == {"theano", "keras"}


def test_conda_packages_name_version_build_and_channel(tmp_path: Path) -> None:
    meta = tmp_path / "conda-meta"
    meta.mkdir()
    # Shapes written by conda 4.3 (schannel) and by conda 4.6+ (channel URL).
    (meta / "cudnn-7.6.5-cuda10.2_0.json").write_text(
        json.dumps({"name": "cudnn", "channel": "https://repo.anaconda.com/pkgs/main/linux-64"}))
    (meta / "pygpu-0.7.6-py36h035aef0_0.json").write_text(
        json.dumps({"name": "pygpu", "channel": "https://conda.anaconda.org/conda-forge/linux-64"}))
    (meta / "theano-1.0.3-py36_0.json").write_text(json.dumps({"name": "theano", "schannel": "defaults"}))
    (meta / "numpy-1.16.0-py36_0.json").write_text("{not json")
    (meta / "zlib-1.2.11-0.json").write_text("{}")  # not a package that matters here
    out = target_script.conda_packages(str(tmp_path))
    assert out == {
        "cudnn": {"version": "7.6.5", "build": "cuda10.2_0", "channel": "pkgs/main"},
        "pygpu": {"version": "0.7.6", "build": "py36h035aef0_0", "channel": "conda-forge"},
        "theano": {"version": "1.0.3", "build": "py36_0", "channel": "defaults"},
        "numpy": {"version": "1.16.0", "build": "py36_0"},
    }


@posix_only
def test_nothing_in_the_users_folder_is_imported_into_the_probe(tmp_path: Path, ctx_factory) -> None:
    """`python -c` puts the current folder first on sys.path: a json.py or numpy.py in the
    user's folder must not be imported (and run) by the probe or the import check."""
    project = tmp_path / "project"
    project.mkdir()
    marker = tmp_path / "ran"
    for name in ("json", "numpy", "re", "timeit"):
        (project / (name + ".py")).write_text("open(%r, 'a').write(%r)\nraise SystemExit(3)\n" % (str(marker), name))
    ctx = ctx_factory(env={"PATH": os.path.dirname(sys.executable)}, python=sys.executable, cwd=project,
                      import_check=True, timeout=REAL_TIMEOUT)
    facts = collect_with(ctx)
    assert not marker.exists(), marker.read_text()
    assert facts["python"]["probe_ok"] is True
    assert facts["python"]["cwd"] == str(project)  # the user's folder is still what is reported
    assert facts["packages"]["import_check"]["numpy"]["ok"] is True
    assert str(project) not in facts["packages"]["import_check"]["numpy"].get("file", "")


@pytest.mark.legacy
def test_conda_channel_is_read_on_python_27_too(tmp_path: Path) -> None:
    """json gives unicode on Python 2: the channel must still be recorded there."""
    python = require_python("2.7")
    source = Path(target_script.__file__).read_text()
    code = ("import json\nns = {'__name__': 'legacydoc_probe'}\nexec(compile(%r, 'target_script', 'exec'), ns)\n"
            "print(ns['conda_channel'](json.loads('{\"schannel\": \"conda-forge\"}')))\n"
            "print(ns['conda_channel'](json.loads('{\"channel\": \"https://repo.anaconda.com/pkgs/main/win-64\"}')))\n"
            % source)
    import subprocess

    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["conda-forge", "pkgs/main"]
