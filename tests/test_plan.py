"""The planner: pins that install, the smallest change, the project's needs, and the CLI.

The records are the fixtures' real facts with one fact changed where a case needs it
(written next to each case), so the rest of the machine stays what was recorded.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from legacydoc import replay
from legacydoc.errors import UsageError
from legacydoc.plan import project as project_mod
from legacydoc.plan.planner import TARGETS, Plan, PlanError, make_plan
from legacydoc.plan.wheels import Wheels

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
HEALTHY = FIXTURES / "healthy-linux-gtx1080ti-cuda102" / "facts.toml"
SEED_000 = FIXTURES / "seed-000-win10-python313-nvml-error" / "facts.toml"
SEED_002 = FIXTURES / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"
# the seeds, the field corpus, and real environments recorded as starting points for plans
ALL_FACTS = [*sorted(FIXTURES.glob("*/facts.toml")), *sorted((FIXTURES / "tickets").glob("*/facts.toml")),
             *sorted((FIXTURES / "plan-starts").glob("*/facts.toml"))]


def load(path: Path) -> dict[str, Any]:
    return copy.deepcopy(dict(replay.load(path, with_commands=False).record))


def with_python(record: dict[str, Any], version: str) -> dict[str, Any]:
    parts = [int(p) for p in version.split(".")]
    record["python"]["version"] = version
    record["python"]["version_info"] = parts
    return record


def with_package(record: dict[str, Any], name: str, version: str) -> dict[str, Any]:
    record["packages"][name] = {"name": name, "version": version}
    if isinstance(record["packages"].get("found"), list) and name not in record["packages"]["found"]:
        record["packages"]["found"].append(name)
    return record


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def assert_installable(plan: Plan) -> None:
    """Every binary pin the plan installs has a wheel for the planned Python on the planned
    OS (one already installed at its pin is kept, not installed)."""
    wheels = Wheels.load()
    install = " ".join(line for s in plan.steps for line in s.commands.get("bash", []) if "pip install" in line)
    for name in ("numpy", "scipy"):
        version = plan.packages[name].lstrip("=")
        if '"%s==%s"' % (name, version) in install or not plan.keep_env:
            assert wheels.has_wheel(name, version, plan.python, plan.os), (name, version, plan.python, plan.os)


# --- pins that install ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_FACTS, ids=lambda p: p.parent.name)
def test_every_fixture_gets_a_plan_whose_pins_have_wheels(path: Path) -> None:
    plan = make_plan(load(path))
    assert_installable(plan)
    assert plan.steps[-1].commands["bash"] == ["legacydoc check"]
    # drivers and toolkits are never installed by a command of the plan
    for step in plan.steps:
        for lines in step.commands.values():
            assert not any(word in line.lower() for line in lines for word in ("nvidia-driver", "cuda-toolkit", "apt "))


def test_python_311_with_numpy_126_keeps_the_environment_with_a_numpy_that_installs() -> None:
    # the case: both findings used to propose numpy<1.22, which has no 3.11 wheel
    record = with_package(with_python(load(HEALTHY), "3.11.7"), "numpy", "1.26.4")
    record["packages"].pop("scipy")
    plan = make_plan(record)
    assert plan.keep_env and plan.python == "3.11"
    numpy = plan.packages["numpy"].lstrip("=")
    assert numpy.startswith("1.23.")  # <1.22 has no wheel for 3.11; 1.24 removed np.bool
    assert "[blas] ldflags" in plan.reasons["numpy"]
    assert "\n[blas]\n" in plan.theanorc and "\nldflags =" in plan.theanorc
    assert_installable(plan)


def test_python_313_gets_a_new_environment_and_says_why() -> None:
    plan = make_plan(load(SEED_000))
    assert not plan.keep_env and plan.python_now == "3.13"
    # Windows outside conda: 3.8+ cannot load the DLLs of what Theano compiles (LD318)
    assert plan.env_kind == "venv" and plan.python == "3.7"
    assert "does not run on Python 3.13" in plan.reasons["new_env"] and "LD318" in plan.reasons["python"]
    assert plan.steps[0].kind == "env"
    assert plan.steps[0].commands["cmd"][0] == "py -%s -m venv theano-legacy" % plan.python
    assert_installable(plan)


def test_an_installed_numpy_that_fits_is_kept() -> None:
    record = load(SEED_002)  # numpy 1.19.5 and scipy 1.5.2 on Python 3.7
    plan = make_plan(record)
    assert plan.keep_env
    assert plan.packages["numpy"] == "==1.19.5" and plan.packages["scipy"] == "==1.5.2"
    install = next(s for s in plan.steps if s.title == "Install the pinned packages")
    assert install.commands["bash"] == ['python -m pip install "Theano==1.0.5"']
    # Theano-PyMC owns the theano package there: it goes first
    titles = [s.title for s in plan.steps]
    assert titles.index("Uninstall Theano-PyMC") < titles.index("Install the pinned packages")


def test_an_installed_numpy_or_scipy_below_theanos_own_floor_is_replaced() -> None:
    # Theano 1.0.5's setup.py: numpy>=1.9.1, scipy>=0.14 (Theano #3454's numpy 1.8.1, scipy 0.12.0)
    record = load(SEED_002)
    record["packages"]["numpy"]["version"] = "1.8.1"
    record["packages"]["scipy"]["version"] = "0.12.0"
    plan = make_plan(record)
    assert plan.packages["numpy"] != "==1.8.1" and plan.packages["scipy"] != "==0.12.0", plan.packages
    record["packages"]["numpy"]["version"] = "1.9.1"
    assert make_plan(record).packages["numpy"] == "==1.9.1"


def test_a_kept_python_without_headers_or_shared_libpython_gets_manual_steps() -> None:
    record = load(HEALTHY)
    assert make_plan(record).keep_env
    record["python"]["headers"] = {"include_dir": "/usr/include/python3.7m", "python_h": False, "pyconfig_h": True}
    record["python"]["libpython"] = {
        "ldlibrary": "libpython3.7m.a", "libdir": "/opt/py/lib", "include_name": "python3.7m",
        "stdlib_parent": "/opt/py/lib", "dirs_listed": ["/opt/py/lib"], "files": ["/opt/py/lib/libpython3.7m.a"]}
    manual = [s for s in make_plan(record).steps if s.manual]
    assert [s.title for s in manual] == [
        "Install this Python's C headers (Debian/Ubuntu: sudo apt install python3.7-dev; Fedora: python3-devel)",
        "Rebuild this Python with a shared libpython (pyenv: env PYTHON_CONFIGURE_OPTS=--enable-shared pyenv "
        "install <version>), or use a conda Python; then recreate the environment"]
    assert manual[0].args == ("3.7", "python3-devel") and "Python.h missing" in manual[0].why
    assert "/opt/py/lib/libpython3.7m.a" in manual[1].why
    # the shared library next to it: nothing to rebuild
    record["python"]["libpython"]["files"].append("/opt/py/lib/libpython3.7m.so")
    assert len([s for s in make_plan(record).steps if s.manual]) == 1
    # gcc shown the headers through CPLUS_INCLUDE_PATH, as check's LD424 allows
    record.setdefault("env", {}).setdefault("variables", {})["CPLUS_INCLUDE_PATH"] = "/usr/include/python3.7m"
    assert not [s for s in make_plan(record).steps if s.manual]


def test_a_windows_python_without_headers_gets_no_apt_line() -> None:
    record = load(SEED_002)  # Windows, Python 3.7
    record["python"]["headers"] = {"include_dir": "C:/py37/include", "python_h": False, "pyconfig_h": False}
    plan = make_plan(record)
    assert plan.keep_env
    titles = [s.title for s in plan.steps if s.manual]
    # on Windows the headers come with another install of Python
    assert any("python.org's installer or conda" in t for t in titles), titles
    assert not any("apt install" in t for t in titles), titles


def test_the_plans_config_is_the_one_theanorc_write_writes() -> None:
    from legacydoc.theanorc.discovery import write_target
    from legacydoc.theanorc.effective import effective_config
    from legacydoc.theanorc.writer import generate

    for path in (HEALTHY, SEED_002):
        record = load(path)
        target = write_target(record)
        written = generate(record, effective_config(record), target.path if target else None).text
        assert make_plan(record).theanorc == written


def test_seed_002_plans_the_cpu_and_says_no_toolkit_serves_its_turing_gpu() -> None:
    # GTX 1660 SUPER (sm_75), driver CUDA 11.0, pygpu 0.7.6 on Windows: libgpuarray asks
    # for nvrtc64_110.dll, then 9.1/9.0/8.0, and NVRTC 9.1 stops at compute_72
    plan = make_plan(load(SEED_002))
    assert plan.device == "cpu"
    assert not any(s.manual for s in plan.steps)  # no manual step can make it work
    assert any("CUDA 9.1, 9.0, 8.0" in c and "sm_75" in c for c in plan.cannot), plan.cannot


def test_a_pascal_gpu_on_windows_is_told_which_toolkit_to_add() -> None:
    from legacydoc.derive import toolkit_fit

    pascal = [{"index": 0, "name": "GeForce GTX 1080 Ti", "sm": 61}]
    fit = toolkit_fit("11.0", "windows", pascal)
    assert fit["toolkits_that_fit"] == ["9.1", "9.0", "8.0"]
    assert fit["toolkit_fix"].startswith("Install CUDA 9.1 ")
    assert fit["toolkit_fix"].endswith("with cuDNN 7.1.3, the newest 7.x built for CUDA 9.1")
    assert toolkit_fit("11.0", "linux", pascal) == {}  # Linux loads the unversioned name
    assert toolkit_fit("11.0", "windows", [{"index": 0, "name": "?"}]) == {}  # architecture unknown: no claim


def test_a_healthy_gpu_machine_keeps_device_cuda() -> None:
    plan = make_plan(load(HEALTHY))
    assert plan.device == "cuda" and plan.keep_env
    assert not any(s.manual for s in plan.steps)


def test_a_gpu_plan_for_pymc3_says_its_chains_need_cores_1() -> None:
    # LD218 warns about parallel chains on the GPU: the plan that writes device=cuda says so
    note = "cannot use the GPU this config opens"
    plan = make_plan(with_package(load(HEALTHY), "pymc3", "3.11.6"))
    assert plan.device == "cuda" and [n for n in plan.notes if note in n and "cores=1" in n] != []
    assert not any(note in n for n in make_plan(load(HEALTHY)).notes)
    cpu = load(HEALTHY)
    cpu.pop("gpu")
    assert not any(note in n for n in make_plan(with_package(cpu, "pymc3", "3.11.6")).notes)
    # one core: PyMC3 samples in this process
    single = with_package(load(HEALTHY), "pymc3", "3.11.6")
    single["system"]["logical_cores"] = 1
    assert not any(note in n for n in make_plan(single).notes)


def test_a_gpu_plan_that_brings_pymc3_for_the_project_says_it_too(tmp_path: Path) -> None:
    # every installed package is listed and PyMC3 is not among them: the plan installs it
    record = load(HEALTHY)
    assert "pymc3" not in record["packages"]["found"]
    plan = make_plan(record, project_mod.scan(write_project(tmp_path, {"model.py": "import pymc3 as pm\n"})))
    assert plan.packages.get("pymc3") == "==3.11.6" and plan.device == "cuda"
    assert [n for n in plan.notes if "cannot use the GPU this config opens" in n] != []
    # a project pinning an older PyMC3 (parallel by default from 3.3) on Theano 1.0.5
    root = write_project(tmp_path / "pinned", {"model.py": "import pymc3 as pm\n", "requirements.txt": "pymc3==3.5\n"})
    plan = make_plan(record, project_mod.scan(root))
    assert "pymc3" not in plan.packages and plan.device == "cuda"
    assert [n for n in plan.notes if "cannot use the GPU this config opens" in n] != []


def test_gpu_only_lasagne_layers_are_found_where_they_always_run(tmp_path: Path) -> None:
    """project.gpu_only (LD172): a module-level import of lasagne.layers.dnn, cuda_convnet or
    corrmm, in every spelling; one inside a try, an if or a function may be the project's
    CPU fallback, and a vendored copy is not the project's code."""
    for files, found in (
            ({"net.py": "import lasagne\nfrom lasagne.layers import dnn\n"}, "lasagne.layers.dnn (net.py:2)"),
            ({"net.py": "from lasagne.layers.dnn import Conv2DDNNLayer as Conv\n"}, "lasagne.layers.dnn (net.py:1)"),
            ({"net.py": "import lasagne.layers.cuda_convnet\n"}, "lasagne.layers.cuda_convnet (net.py:1)"),
            ({"a/net.py": "x = 1\nfrom lasagne.layers import Conv2DLayer, corrmm\n"}, "lasagne.layers.corrmm (a/net.py:2)"),
            # Python 2 code, which Python 3 cannot parse: an unindented line
            ({"old.py": "print 'net'\nfrom lasagne.layers import cuda_convnet\n"}, "lasagne.layers.cuda_convnet (old.py:2)"),
            ({"net.py": "try:\n    from lasagne.layers.dnn import Conv2DDNNLayer as Conv\n"
                        "except ImportError:\n    from lasagne.layers import Conv2DLayer as Conv\n"}, ""),
            ({"net.py": "import theano\nif theano.config.device.startswith('gpu'):\n    from lasagne.layers import dnn\n"}, ""),
            ({"net.py": "def build():\n    from lasagne.layers import dnn\n    return dnn\n"}, ""),
            ({"old.py": "print 'net'\ntry:\n    from lasagne.layers import dnn\nexcept ImportError:\n    pass\n"}, ""),
            # a blank line above an indented import is not the import's own line
            ({"old.py": "print 'net'\ntry:\n\n    from lasagne.layers import dnn\nexcept ImportError:\n    pass\n"}, ""),
            ({"old.py": "print 'net'\n\n\nfrom lasagne.layers import dnn\n"}, "lasagne.layers.dnn (old.py:4)"),
            ({"net.py": "if __name__ == '__main__':\n    from lasagne.layers import dnn\n"}, ""),
            ({"third_party/lasagne_extra.py": "from lasagne.layers import dnn\n"}, ""),
            ({"net.py": "from lasagne.layers import Conv2DLayer, MaxPool2DLayer\nimport dnn_utils\n"}, "")):
        assert project_mod.scan(write_project(tmp_path / str(abs(hash(str(files)))), files)).gpu_only == found, files


def test_a_cpu_plan_for_gpu_only_layers_says_they_cannot_run(tmp_path: Path) -> None:
    # LD172 would find the device=cpu config the plan writes refused by the project's code
    note = "cannot run: use lasagne.layers.Conv2DLayer"
    record = load(HEALTHY)
    record.pop("gpu")
    project = project_mod.scan(write_project(tmp_path / "p", {"net.py": "from lasagne.layers import dnn\n"}))
    plan = make_plan(record, project)
    assert plan.device == "cpu" and [n for n in plan.notes if note in n and "net.py:1" in n] != []
    # on the GPU they run: no note
    gpu = make_plan(load(HEALTHY), project)
    assert gpu.device == "cuda" and not any(note in n for n in gpu.notes)


def test_unknown_gpu_is_not_called_absent() -> None:
    record = load(HEALTHY)
    for table in ("gpu",):
        record.pop(table, None)
    plan = make_plan(record)
    assert plan.device == "cpu"
    assert any("not known" in c for c in plan.cannot), plan.cannot
    assert not any("no working NVIDIA GPU was found" in c for c in plan.cannot)


def test_an_unrecorded_os_is_planned_for_linux_and_says_so() -> None:
    record = load(HEALTHY)
    plan = make_plan(record)
    assert not any("operating system" in n for n in plan.notes)
    record["system"].pop("os")
    record["python"].pop("platform", None)
    plan = make_plan(record)
    assert plan.os == "linux"
    assert any("does not say which operating system" in n for n in plan.notes), plan.notes


def test_mkl_ldflags_bring_the_threading_layer_variable_for_every_shell() -> None:
    plan = make_plan(load(SEED_002))
    assert plan.env == {"MKL_THREADING_LAYER": "GNU"}
    step = next(s for s in plan.steps if s.title == "Set the environment variables")
    assert step.commands == {"bash": ["export MKL_THREADING_LAYER=GNU"], "cmd": ['set "MKL_THREADING_LAYER=GNU"'],
                             "powershell": ['$env:MKL_THREADING_LAYER = "GNU"']}


def test_steps_are_ordered_environment_first_check_last() -> None:
    plan = make_plan(load(SEED_000))
    kinds = [s.kind for s in plan.steps]
    assert kinds[0] == "env" and kinds[-1] == "check"
    rank = {"env": 0, "install": 1, "manual": 2, "config": 3, "check": 4}
    assert [rank[k] for k in kinds] == sorted(rank[k] for k in kinds)


def test_no_wheel_anywhere_is_a_plan_error_not_a_wrong_plan() -> None:
    empty = Wheels(rows=(), conda=(), generated="test")
    record = load(HEALTHY)
    record["packages"].pop("numpy")  # an installed numpy would be kept: no wheel needed
    with pytest.raises(PlanError, match="no Python on linux has wheels"):
        make_plan(record, wheels=empty)


# --- the project ------------------------------------------------------------------------------


def test_old_backend_imports_plan_theano_090_with_numpy_below_116(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"train.py": "import theano.sandbox.cuda as cuda\nprint(cuda)\n"})
    scan = project_mod.scan(root)
    assert scan.uses(project_mod.OLD_BACKEND) == "train.py:1"
    plan = make_plan(load(HEALTHY), scan)
    assert plan.theano == "Theano==0.9.0"
    assert plan.packages["numpy"].lstrip("=").startswith("1.15.")
    assert plan.python in TARGETS["Theano==0.9.0"]["python"]
    assert_installable(plan)


def test_python2_only_syntax_plans_python_27(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"model.py": "import theano\nprint 'training'\n",
                                    "util.py": "try:\n    pass\nexcept ValueError, e:\n    pass\n"})
    scan = project_mod.scan(root)
    assert scan.py2_only and scan.py2_only[0].startswith("model.py:2")
    assert scan.uses(("theano",)) == "model.py:1"  # found by the fallback reader
    plan = make_plan(load(HEALTHY), scan)
    assert plan.python == "2.7" and not plan.keep_env
    assert "Python-2-only" in plan.reasons["python"]
    assert_installable(plan)


def test_an_unguarded_python2_import_plans_python_27_and_a_guarded_one_does_not(tmp_path: Path) -> None:
    root = write_project(tmp_path / "a", {"train.py": "import theano\nimport cPickle\nx = cPickle.loads\n",
                                          "io_util.py": "from StringIO import StringIO\n"})
    scan = project_mod.scan(root)
    assert sorted(scan.py2_only) == ["io_util.py:1 (import StringIO)", "train.py:2 (import cPickle)"]
    plan = make_plan(load(HEALTHY), scan)
    assert plan.python == "2.7" and "Python-2-only" in plan.reasons["python"]
    both = write_project(tmp_path / "b", {"train.py": "import theano\ntry:\n    import cPickle as pickle\n"
                                                      "except ImportError:\n    import pickle\n",
                                          "setup_util.py": "import configparser\nimport queue\n",
                                          # Python 3 first, Python 2 in the handler
                                          "net.py": "try:\n    from urllib.request import urlopen\n"
                                                    "except ImportError:\n    from urllib2 import urlopen\n",
                                          "compat.py": "import sys\nif sys.version_info[0] == 2:\n"
                                                       "    import cPickle as pickle\n",
                                          "third_party/old.py": "import cPickle\n",  # vendored
                                          "worker.py": "import Queue\n", "Queue.py": "x = 1\n"})  # its own
    assert project_mod.scan(both).py2_only == []
    # A try that catches something else guards nothing.
    script = write_project(tmp_path / "c", {"run.py": "try:\n    import cPickle\nexcept KeyboardInterrupt:\n    pass\n"})
    assert project_mod.scan(script).py2_only == ["run.py:2 (import cPickle)"]
    # A data folder or a module elsewhere by that name is not the project's own module.
    elsewhere = write_project(tmp_path / "d", {"train.py": "import Queue\n", "data/Queue/readme.txt": "x\n",
                                               "tests/sub/Queue.py": "x = 1\n"})
    assert project_mod.scan(elsewhere).py2_only == ["train.py:1 (import Queue)"]
    versions = write_project(tmp_path / "e", {"a.py": "import sys\nif sys.version > '3':\n    import pickle\n"
                                                     "else:\n    import cPickle as pickle\n",
                                              "b.py": "IS_PY2 = 1\nif IS_PY2:\n    import urllib2\n",
                                              "third_party/lib.py": "print 'vendored'\n"})
    assert project_mod.scan(versions).py2_only == []


def test_scipy_misc_image_functions_plan_scipy_below_13_with_pillow(tmp_path: Path) -> None:
    for files, found in (
            ({"data.py": "import theano\nfrom scipy.misc import imread, imresize\n"}, "scipy.misc.imread (data.py:2)"),
            ({"io.py": "import scipy.misc\n\nx = scipy.misc.imresize(a, (2, 2))\n"}, "scipy.misc.imresize (io.py:3)"),
            ({"io.py": "from scipy import misc\nmisc.imsave('a.png', a)\n"}, "scipy.misc.imsave (io.py:2)"),
            ({"io.py": "import scipy.misc as sm\nsm.imread('a.png')\n"}, "scipy.misc.imread (io.py:2)"),
            ({"io.py": "from scipy.misc import *\nx = imresize(a, 2)\n"}, "scipy.misc.imresize (io.py:2)"),
            # Python 2 code, which Python 3 cannot parse
            ({"old.py": "from scipy.misc import imread\nprint 'loaded'\n"}, "scipy.misc.imread (old.py:1)")):
        root = write_project(tmp_path / str(abs(hash(found))), files)
        scan = project_mod.scan(root)
        assert scan.scipy_misc_images == found
        # Python 3.11 has no scipy below 1.3: a new environment with one that has
        plan = make_plan(with_python(load(HEALTHY), "3.11.7"), scan)
        assert not plan.keep_env and plan.python in ("3.7", "3.6", "2.7"), plan.python
        assert plan.packages["scipy"].lstrip("=").startswith(("1.2.", "1.1.", "1.0."))
        assert plan.packages["Pillow"] == "" and '"Pillow"' in plan.install_line()
        if "old.py" in found:  # Python 2 code: 2.7, for that reason first
            assert plan.python == "2.7" and "Python-2-only" in plan.reasons["new_env"]
        else:
            assert "scipy" in plan.reasons["new_env"] and "1.3" in plan.reasons["new_env"]
        assert_installable(plan)
    plain = project_mod.scan(write_project(tmp_path / "plain", {
        "m.py": "from scipy.misc import logsumexp\n",
        # a module of the project's own called misc
        "n.py": "from utils import misc\nmisc.imread('a.png')\n", "utils/misc.py": "def imread(p): pass\n"}))
    assert plain.scipy_misc_images == ""
    assert "Pillow" not in make_plan(load(HEALTHY), plain).packages


def test_wishes_no_python_can_carry_are_dropped_and_said(tmp_path: Path) -> None:
    # scipy.misc images with a project pin of scipy>=1.3; Keras with a pin only Python 3.9+ has
    for files, said in (
            ({"data.py": "from scipy.misc import imread\n", "requirements.txt": "scipy>=1.3\n"}, "SciPy 1.3 removed"),
            ({"app.py": "import keras\n", "requirements.txt": "scipy>=1.11\n"}, "h5py 2 wheel")):
        scan = project_mod.scan(write_project(tmp_path / said.split()[0], files))
        plan = make_plan(load(HEALTHY), scan)
        assert any(said in line for line in plan.cannot), plan.cannot
        assert "Pillow" not in plan.packages and "h5py" not in plan.packages
    pinned = make_plan(load(HEALTHY), project_mod.scan(write_project(tmp_path / "p", {"requirements.txt": "scipy==1.2.3\n"})))
    assert "the project pins scipy==1.2.3 (requirements.txt:1)" in pinned.reasons["scipy"]


def test_keras_projects_get_an_h5py_below_3_and_a_python_with_its_wheel(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"app.py": "import keras\nfrom keras.models import load_model\n"})
    scan = project_mod.scan(root)
    plan = make_plan(load(HEALTHY), scan)
    assert plan.packages["h5py"].startswith("==2."), plan.packages
    wheels = Wheels.load()
    assert wheels.has_wheel("h5py", plan.packages["h5py"].lstrip("="), plan.python, plan.os)
    # Python 3.11 has no h5py 2 wheel: a new environment, and the reason says so
    moved = make_plan(with_python(load(HEALTHY), "3.11.7"), scan)
    assert not moved.keep_env and moved.python in ("3.8", "3.7", "3.6", "2.7")
    assert "h5py" in moved.reasons["new_env"]
    # Without Keras nothing of h5py is planned
    assert "h5py" not in make_plan(load(HEALTHY), project_mod.scan(write_project(tmp_path / "b", {"m.py": "import theano\n"}))).packages


def test_pymc3_projects_get_theano_pymc_and_pymc3_3116(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"fit.py": "import pymc3 as pm\n", "requirements.txt": "pymc3\nnumpy\n"})
    plan = make_plan(load(HEALTHY), project_mod.scan(root))
    assert plan.theano == "Theano-PyMC==1.1.2"
    assert plan.packages["pymc3"] == "==3.11.6" and plan.packages["Theano-PyMC"] == "==1.1.2"
    scipy = plan.packages["scipy"].lstrip("=")
    assert scipy.startswith("1.7.")  # pymc3 3.11.6 requires scipy<1.8.0,>=1.7.3
    assert "Theano" not in plan.packages


def test_lasagne_and_keras_get_versions_that_work_with_theano_1(tmp_path: Path) -> None:
    root = write_project(tmp_path, {
        "net.py": "import lasagne\nfrom keras.models import Sequential\n",
        "requirements.txt": "Lasagne==0.1  # the PyPI one\nKeras\n",
        ".keras/keras.json": '{"backend": "tensorflow", "image_data_format": "channels_last"}',
        "keras.json": '{"backend": "tensorflow", "image_data_format": "channels_last"}',
    })
    plan = make_plan(load(HEALTHY), project_mod.scan(root))
    assert plan.theano == "Theano==1.0.5"  # Lasagne 0.1's downsample import is Lasagne's, not the project's
    assert plan.packages["Lasagne"].startswith("https://github.com/Lasagne/Lasagne/archive/")
    assert plan.packages["Keras"] == "==2.3.1"
    assert plan.keras_json == {"backend": "theano", "image_data_format": "channels_last", "floatx": "float32"}


def test_keras_1_pin_is_kept(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"a.py": "import keras\n", "setup.py":
                                    "from setuptools import setup\nsetup(install_requires=['keras<2', 'theano'])\n"})
    scan = project_mod.scan(root)
    assert [(p.name, p.spec) for p in scan.pins] == [("keras", "<2"), ("theano", "")]
    plan = make_plan(load(HEALTHY), scan)
    assert plan.packages["Keras"] == "<2"
    assert "pins Keras<2" in plan.reasons["Keras"]
    # Keras 1 spells the layout image_dim_ordering
    assert plan.keras_json == {"backend": "theano", "image_dim_ordering": "th", "floatx": "float32"}


def test_keras_reads_the_users_keras_json_only_for_this_machine(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"a.py": "import keras\n"})
    home = write_project(tmp_path / "home", {".keras/keras.json": '{"image_data_format": "channels_last"}'})
    env = dict(os.environ, HOME=str(home), LEGACYDOC_LANG="en")
    live = subprocess.run([sys.executable, "-m", "legacydoc", "plan", "--project", str(project), "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert live.returncode == 0, live.stderr
    assert json.loads(live.stdout)["keras_json"]["image_data_format"] == "channels_last"
    replayed = subprocess.run([sys.executable, "-m", "legacydoc", "plan", "--facts", str(HEALTHY), "--project",
                               str(project), "--format", "json"], capture_output=True, text=True, env=env, timeout=120)
    # a plan for another machine's record does not read this machine's home
    assert json.loads(replayed.stdout)["keras_json"]["image_data_format"] == "channels_first"


def test_environment_yml_pins_are_read(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"environment.yml": (
        "name: old\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.6\n  - numpy=1.14.5\n"
        "  - conda-forge::scipy=1.1.0=py36_0\n  - pip\n  - pip:\n    - Theano==1.0.2\n    - git+https://github.com/Lasagne/Lasagne.git#egg=Lasagne\n"
        "other: [1]\n")})
    pins = {(p.name, p.spec, p.url) for p in project_mod.scan(root).pins}
    assert ("numpy", "==1.14.5", "") in pins and ("scipy", "==1.1.0", "") in pins
    assert ("Theano", "==1.0.2", "") in pins
    assert ("Lasagne", "", "git+https://github.com/Lasagne/Lasagne.git") in pins


def test_a_project_numpy_pin_narrows_the_plan(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"requirements.txt": "numpy<1.20\n"})
    plan = make_plan(with_package(load(HEALTHY), "numpy", "1.21.6"), project_mod.scan(root))
    assert plan.packages["numpy"].lstrip("=").startswith("1.19.")


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_the_scan_stays_inside_the_folder_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("import theano.sandbox.cuda\n")
    root = write_project(tmp_path / "proj", {"a.py": "import numpy\n", "venv/pyvenv.cfg": "home = x\n",
                                             "venv/lib.py": "import theano.sandbox.cuda\n"})
    (root / "link.py").symlink_to(outside / "secret.py")
    (root / "big.py").write_text("x = 1\n" * 10)
    monkeypatch.setattr(project_mod, "MAX_BYTES", 20)
    scan = project_mod.scan(root)
    assert scan.uses(project_mod.OLD_BACKEND) is None  # neither the symlink's target nor the venv
    assert any("big.py" in u and "bytes" in u for u in scan.unreadable), scan.unreadable
    monkeypatch.setattr(project_mod, "MAX_FILES", 1)
    assert project_mod.scan(root).truncated


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_in_the_project_does_not_hang_the_scan(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"a.py": "import lasagne\n"})
    os.mkfifo(root / "requirements.txt")  # nobody writes to it: reading it would block forever
    os.mkfifo(root / "b.py")
    scan = project_mod.scan(root)
    assert scan.uses(("lasagne",)) == "a.py:1"
    assert sum("not a project file" in u for u in scan.unreadable) == 2, scan.unreadable


def test_undecodable_and_binary_files_are_read_without_failing(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"setup.py": "x"})
    (root / "setup.py").write_bytes(b"install_requires=['theano\xff\xfe']\n\x00\x01")
    (root / "requirements.txt").write_bytes(b"\xff\xfenumpy==1.16\n--index-url x\n-e .\ngit+https://h/x.git\n")
    (root / "environment.yml").write_bytes(b"dependencies:\n  - [weird\n  - numpy=\n  - ::\n")
    scan = project_mod.scan(root)
    assert scan.files_scanned == 3


# --- the CLI ----------------------------------------------------------------------------------


def run_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "legacydoc", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, env=dict(os.environ, LEGACYDOC_LANG="en"))


def test_plan_writes_the_bundle_and_json_says_the_same(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    proc = run_cli("plan", "--facts", str(SEED_000), "-o", str(out), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["environment.yml", "requirements.txt", "theanorc", "activate.sh", "activate.bat", "activate.ps1", "PLAN.md"])
    requirements = [ln for ln in (out / "requirements.txt").read_text().splitlines() if not ln.startswith("#")]
    assert requirements == ["%s%s" % kv for kv in data["packages"].items()]
    assert "  - python=%s" % data["python"] in (out / "environment.yml").read_text()
    assert (out / "theanorc").read_text() == data["theanorc"]
    assert (out / "activate.bat").read_bytes().endswith(b"\r\n")
    assert "| numpy | `%s` |" % data["packages"]["numpy"] in (out / "PLAN.md").read_text()
    # a second run backs the first files up instead of overwriting them blindly
    (out / "theanorc").write_text("edited\n")
    assert run_cli("plan", "--facts", str(SEED_000), "-o", str(out)).returncode == 0
    assert any(p.read_text() == "edited\n" for p in out.iterdir() if p.name.startswith("theanorc") and p.name != "theanorc")


def test_plan_text_uses_the_records_shell_and_shell_overrides(tmp_path: Path) -> None:
    cmd = run_cli("plan", "--facts", str(SEED_000))
    assert cmd.returncode == 0 and "Steps (for cmd):" in cmd.stdout and "py -3." in cmd.stdout
    bash = run_cli("plan", "--facts", str(SEED_000), "--shell", "bash")
    assert "Steps (for bash):" in bash.stdout and ". theano-legacy/bin/activate" in bash.stdout


@pytest.mark.parametrize("args, message", [
    (["--project", "/nonexistent/dir"], "--project is not a directory"),
    (["--shell", "fish"], "--shell: must be one of"),
    (["--format", "xml"], "xml"),
])
def test_plan_bad_usage_is_one_line_exit_2(args: list[str], message: str) -> None:
    proc = run_cli("plan", "--facts", str(SEED_000), *args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_plan_output_into_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    proc = run_cli("plan", "--facts", str(SEED_000), "-o", str(target))
    assert proc.returncode == 2 and "-o must be a folder" in proc.stderr
    assert target.read_text() == "x"


def test_check_project_option_reaches_the_plan(tmp_path: Path) -> None:
    write_project(tmp_path, {"fit.py": "import pymc3\n"})
    proc = run_cli("check", "--facts", str(HEALTHY), "--project", str(tmp_path), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    assert json.loads(proc.stdout)["plan"]["theano"] == "Theano-PyMC==1.1.2"


def test_check_markdown_ends_with_the_plan_before_the_facts() -> None:
    proc = run_cli("check", "--facts", str(FIXTURES / "plan-starts" / "numpy2-py311" / "facts.toml"),
                   "--format", "markdown")
    assert proc.returncode == 1, proc.stderr
    plan_at, facts_at = proc.stdout.index("### The plan"), proc.stdout.index("<details><summary>Facts")
    assert plan_at < facts_at
    assert 'python -m pip install "numpy==1.23.5"' in proc.stdout[plan_at:facts_at]


def test_the_wheel_table_is_what_the_generator_makes_of_pypis_data() -> None:
    # a recorded excerpt of https://pypi.org/pypi/numpy/json (two releases, trimmed fields)
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import wheel_table
    finally:
        sys.path.pop(0)
    data = json.loads((REPO / "tests" / "data" / "pypi-numpy-excerpt.json").read_text())
    rows = {r["version"]: r for r in wheel_table.binary_rows("numpy", data, "1.9.0")}
    assert sorted(rows) == ["1.16.6", "1.21.6"]
    table = Wheels.load()
    for version, row in rows.items():
        stored = table.row("numpy", version)
        assert stored is not None
        for os_name in ("linux", "windows", "macos"):
            assert row[os_name] == stored[os_name], (version, os_name)
    assert rows["1.21.6"]["linux"] == ["3.7", "3.8", "3.9", "3.10"]


def _without_pygpu(record: dict[str, Any]) -> dict[str, Any]:
    record["packages"].pop("pygpu")
    record["packages"]["found"] = [p for p in record["packages"]["found"] if p != "pygpu"]
    return record


def test_a_working_gpu_without_pygpu_gets_it_from_conda_forge_in_a_conda_env() -> None:
    record = _without_pygpu(load(HEALTHY))
    record["python"]["env_kind"] = "conda"
    plan = make_plan(record)
    assert plan.conda_packages == {"pygpu": "=0.7.6"}
    assert plan.device == "cuda"  # the config once pygpu is in: what theanorc --write then writes
    titles = [s.title for s in plan.steps]
    assert titles.index("Install pygpu from conda-forge") < titles.index("Write the Theano config")
    if "Install the pinned packages" in titles:  # conda first, as fix runs them
        assert titles.index("Install pygpu from conda-forge") < titles.index("Install the pinned packages")


def test_a_working_gpu_without_pygpu_in_a_venv_is_told_why_not() -> None:
    plan = make_plan(_without_pygpu(load(HEALTHY)))  # a venv: pygpu is not on PyPI
    assert plan.device == "cpu" and not plan.conda_packages
    assert len(plan.cannot) == 1 and "not on PyPI" in plan.cannot[0]
    assert not any(s.manual for s in plan.steps)


def test_a_project_pin_no_wheel_satisfies_is_named_in_the_refusal(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"requirements.txt": "numpy==1.3.0\n"})
    with pytest.raises(PlanError, match=r"the project pins numpy==1.3.0 \(requirements.txt:1\)"):
        make_plan(load(SEED_000), project_mod.scan(root))
    proc = run_cli("plan", "--facts", str(SEED_000), "--project", str(root))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no plan:" in proc.stderr


def test_a_windows_venv_on_python_38_is_not_kept_but_a_conda_one_is() -> None:
    record = load(SEED_002)  # Windows, conda, Python 3.7
    with_python(record, "3.8.10")
    assert make_plan(record).keep_env  # conda keeps the old DLL search
    record["python"]["env_kind"] = "venv"
    plan = make_plan(record)
    assert not plan.keep_env and plan.python == "3.7"
    assert "LD318" in plan.reasons["new_env"]


def test_fix_finds_the_new_environments_python_where_conda_or_venv_puts_it(tmp_path: Path) -> None:
    from legacydoc.plan.apply import env_python

    env = tmp_path / "e"  # not created yet: fix names the interpreter before it exists
    assert env_python(env, conda=True, windows=True) == env / "python.exe"
    assert env_python(env, conda=False, windows=True) == env / "Scripts" / "python.exe"
    assert env_python(env, conda=True, windows=False) == env / "bin" / "python"


def test_fix_installs_the_planned_pygpu_into_the_conda_env_in_use(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from legacydoc.plan import apply

    record = _without_pygpu(load(HEALTHY))
    record["python"]["env_kind"] = "conda"
    plan = make_plan(record)
    conda = tmp_path / "conda"
    conda.write_text("#!/bin/sh\n")
    conda.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    todo, _python = apply.actions(plan, tmp_path / "unused", "/envs/old/bin/python", "/envs/old")
    assert todo[0].argv == [str(conda), "install", "-y", "-p", "/envs/old", "-c", "conda-forge", "pygpu=0.7.6"]
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(UsageError, match="conda is not on PATH"):
        apply.actions(plan, tmp_path / "unused", "/envs/old/bin/python", "/envs/old")


def _without_compiler_facts(record: dict[str, Any]) -> dict[str, Any]:
    record.pop("compilers", None)
    return record


@pytest.mark.parametrize("found", [None, "timed out", "clang timed out"])
def test_a_compiler_never_recorded_or_timed_out_is_not_planned_as_missing(found: str | None) -> None:
    record = _without_compiler_facts(load(HEALTHY))
    record["compilers"] = {}  # what a replayed record without the table holds
    if found == "timed out":  # what the probe records when g++ -v did not finish
        record["compilers"] = {"gxx": {"found": True, "path": "/usr/bin/g++", "source": "PATH", "timed_out": True},
                               "gxx_all": [{"found": True, "path": "/usr/bin/g++", "source": "PATH",
                                            "timed_out": True}]}
    if found == "clang timed out":  # macOS: no g++, and clang++ (Theano's compiler there) did not answer
        record["system"]["os"] = "darwin"
        record["compilers"] = {"found": False, "gxx": {"found": False}, "gxx_all": [],
                               "clang": {"found": True, "path": "/usr/bin/clang++", "timed_out": True}}
    plan = make_plan(record)
    assert not [s.title for s in plan.steps if "g++" in s.title or "Command Line Tools" in s.title]


@pytest.mark.parametrize(("os_name", "says", "never"), [
    ("linux", "apt install g++", "xcode-select"),
    ("darwin", "xcode-select --install", "apt install"),
])
def test_a_missing_compiler_gets_the_step_of_its_os(os_name: str, says: str, never: str) -> None:
    record = _without_compiler_facts(load(HEALTHY))
    record["system"]["os"] = os_name
    record["compilers"] = {"found": False, "gxx": {"found": False}, "gxx_all": [], "theano_cxx": ""}
    titles = [s.title for s in make_plan(record).steps if s.manual]
    assert any(says in t for t in titles), titles
    assert not any(never in t for t in titles), titles


def test_no_gxx_step_when_the_config_names_a_compiler_that_exists() -> None:
    """cxx = clang++ on a Linux box without g++: Theano uses the clang, which the probe ran."""
    record = _without_compiler_facts(load(HEALTHY))
    record["compilers"] = {"found": False, "gxx": {"found": False}, "gxx_all": [], "theano_cxx": "",
                           "cxx_configured": {"setting": "clang++", "source": "THEANO_FLAGS", "found": True, "ok": True,
                                             "path": "/usr/bin/clang++", "is_clang": True, "clang_version": "14.0.0"}}
    record["theano_config"] = {"files": [{"path": "/home/u/.theanorc", "exists": False}],
                               "flags": {"THEANO_FLAGS": "cxx=clang++"}}
    assert not [s.title for s in make_plan(record).steps if "g++" in s.title]
    record["compilers"]["cxx_configured"] = {"setting": "clang++", "source": "THEANO_FLAGS", "found": False}
    assert [s.title for s in make_plan(record).steps if "apt install g++" in s.title]


def test_theanos_own_folder_comes_off_pythonpath_and_the_rest_stays(tmp_path: Path) -> None:
    """LD110's cause in the plan: a step per shell that leaves PYTHONPATH's other entries,
    the same value in the bundle's activate scripts (quoted for bash), nothing without it."""
    from legacydoc.plan.files import activate

    record: dict[str, Any] = {"schema": 1, "system": {"os": "windows"}, "python": {"version": "3.6.8"},
                              "env": {"variables": {"PYTHONPATH": r"C:\Anaconda3\Lib\site-packages\theano;D:\My libs"}}}
    plan = make_plan(record)
    step = next(s for s in plan.steps if "PYTHONPATH" in s.title)
    assert step.commands["cmd"] == [r'set "PYTHONPATH=D:\My libs"'], step.commands
    assert step.commands["bash"] == ["export PYTHONPATH='D:\\My libs'"], step.commands
    assert plan.env["PYTHONPATH"] == r"D:\My libs"
    assert "export PYTHONPATH='D:\\My libs'" in activate(plan, "activate.sh")
    only = copy.deepcopy(record)
    only["env"]["variables"]["PYTHONPATH"] = r"C:\Anaconda3\Lib\site-packages\theano"
    assert make_plan(only).env["PYTHONPATH"] == ""  # cleared: Python ignores an empty PYTHONPATH
    fine = copy.deepcopy(record)
    fine["env"]["variables"]["PYTHONPATH"] = r"C:\src\Theano;D:\My libs"  # a checkout's top folder
    assert "PYTHONPATH" not in make_plan(fine).env
    assert not any("PYTHONPATH" in s.title for s in make_plan(fine).steps)


def test_packages_recorded_without_a_version_still_count() -> None:
    """A reporter's 'PyMC3 and Theano' (no versions): the plan is PyMC3's Theano-PyMC, and
    the original Theano goes first (both install the package 'theano')."""
    record: dict[str, Any] = {"schema": 1, "system": {"os": "linux"}, "python": {"version": "3.8.10"},
                              "packages": {"pymc3": {"name": "pymc3"}, "theano": {"name": "Theano"}}}
    plan = make_plan(record)
    assert plan.theano.startswith("Theano-PyMC"), plan.theano
    uninstall = [s for s in plan.steps if s.pip == "uninstall"]
    assert uninstall and "Theano" in uninstall[0].packages, [s.title for s in plan.steps]


def test_a_32bit_mingw_under_a_64bit_python_gets_the_64bit_toolchain() -> None:
    """LD404 in the plan: the g++ on PATH exists but cannot build for this Python."""
    record: dict[str, Any] = {"schema": 1, "system": {"os": "windows"},
                              "python": {"version": "3.9.12", "bits": 64, "env_kind": "conda"},
                              "compilers": {"found": True, "gxx": {"found": True, "is_mingw": True, "bits": 32,
                                                                   "target": "mingw32", "version": "6.3.0"}}}
    step = next(s for s in make_plan(record).steps if "MinGW" in s.title)
    assert step.commands["cmd"] == ["conda install -y m2w64-toolchain"] and "32-bit" in step.why, step
    record["compilers"]["gxx"]["bits"] = 64
    assert not any("MinGW" in s.title for s in make_plan(record).steps)


def test_a_project_with_the_old_backend_and_downsample_gets_082_which_has_both(tmp_path: Path) -> None:
    """0.9.0 still has theano.sandbox.cuda but no downsample; 0.8.2 has both (LD157's fix)."""
    (tmp_path / "net.py").write_text("import theano.sandbox.cuda\nfrom theano.tensor.signal import downsample\n")
    record: dict[str, Any] = {"schema": 1, "system": {"os": "linux"}, "python": {"version": "3.6.8"}}
    assert make_plan(record, project_mod.scan(tmp_path)).theano == "Theano==0.8.2"
    (tmp_path / "net.py").write_text("import theano.sandbox.cuda\n")
    assert make_plan(record, project_mod.scan(tmp_path)).theano == "Theano==0.9.0"


@pytest.mark.parametrize("source, theano", [
    # Pylearn2's import of the six Theano bundled, and the old 3-D convolution: gone in 1.0
    ("from theano.compat.six.moves import input\n", "Theano==0.9.0"),
    ("from theano.tensor.nnet import conv3D\n", "Theano==0.9.0"),
    # ProfileMode: gone in 0.9; 0.8.2 also has the old back-end and theano.compat.six
    ("from theano import ProfileMode\nimport theano.sandbox.cuda\n", "Theano==0.8.2"),
    ("from theano.compile.profilemode import ProfileMode\nfrom theano.compat import six\n", "Theano==0.8.2"),
    # what 1.0.5 still has
    ("from theano.tensor.nnet import conv3d\nimport six\n", "Theano==1.0.5"),
    # reached as attributes, which no import line names (the recorded removed_profilemode.py)
    ("import theano\nf = theano.function([], [], mode=theano.ProfileMode())\n", "Theano==0.8.2"),
    ("import theano.tensor as T\ny = T.nnet.conv3D(V=x, W=w, b=b, d=(1, 1, 1))\n", "Theano==0.9.0"),
    ("import theano\nm = theano.compile.profilemode.ProfileMode()\n", "Theano==0.8.2"),
    # an optional use (under an if or a try) does not decide the release
    ("import theano\nif PROFILE:\n    mode = theano.ProfileMode()\n", "Theano==1.0.5"),
    # a class of the user's own, in a file that does not import theano
    ("nnet = Net()\nnnet.Conv3D(1)\n", "Theano==1.0.5"),
    # Python 2 code, read as text; a comment or a string is not a use
    ("import theano\nprint 'profiling'\nmode = theano.ProfileMode()\n", "Theano==0.8.2"),
    ("from theano.tensor import nnet\nprint 'conv'\ny = nnet.conv3D(V=x, W=w, b=b, d=(1, 1, 1))\n", "Theano==0.9.0"),
    ("import theano\nprint 'no'\n# theano.ProfileMode was removed in 0.9\n", "Theano==1.0.5"),
    ("import theano\nprint \"use theano.ProfileMode() for timings\"\n", "Theano==1.0.5"),
    # names no list above holds, from the table read at the tags (rules/knowledge/theano_api.toml)
    ("import theano.tensor as T\nwith T.autocast_float_as('float32'):\n    y = x * 2\n", "Theano==0.8.2"),
    ("from theano.gpuarray.dnn import gpu_dnn_conv\n", "Theano==0.9.0"),
    ("if __name__ == '__main__':\n    from theano.compile.function import In\n", "Theano==0.9.0"),
])
def test_a_project_using_api_theano_removed_gets_the_last_release_that_has_it(
        tmp_path: Path, source: str, theano: str) -> None:
    """LD165's second fix: the plan picks that release from the project's imports."""
    (tmp_path / "net.py").write_text(source)
    record: dict[str, Any] = {"schema": 1, "system": {"os": "linux"}, "python": {"version": "3.6.8"}}
    plan = make_plan(record, project_mod.scan(tmp_path))
    assert plan.theano == theano, plan.reasons


@pytest.mark.parametrize("case, expected", [
    # no OS recorded: a ';' or a drive letter anywhere says Windows
    ({"env": {"variables": {"PYTHONPATH": r".;C:\Anaconda3\Lib\site-packages\theano"}}}, "."),
    # the target probe looked at sys.path and found no theano folder: the entry is stale
    ({"system": {"os": "linux"}, "packages": {"found": ["numpy"]},
      "env": {"variables": {"PYTHONPATH": "/old/site-packages/theano:/lib"}}}, None),
    # a redacted record: the rest cannot be typed back, the step is the user's
    ({"system": {"os": "linux"}, "env": {"variables": {"PYTHONPATH": "<home>/lib:<home>/v/site-packages/theano"}}},
     "manual"),
])
def test_the_pythonpath_step_on_partial_records(case: dict, expected: Any) -> None:
    record: dict[str, Any] = {"schema": 1, "python": {"version": "3.6.8"}, **case}
    plan = make_plan(record)
    steps = [s for s in plan.steps if "PYTHONPATH" in s.title]
    if expected is None:
        assert not steps and "PYTHONPATH" not in plan.env
    elif expected == "manual":
        assert steps[0].manual and not steps[0].commands and "PYTHONPATH" not in plan.env, steps
    else:
        assert plan.env["PYTHONPATH"] == expected, plan.env


def test_python_2_keeps_its_pythonpath(tmp_path: Path) -> None:
    """LD110 is quiet on Python 2: the plan does not take the folder off for it."""
    record: dict[str, Any] = {"schema": 1, "system": {"os": "windows"}, "python": {"version": "2.7.13", "bits": 64},
                              "packages": {"theano": {"name": "Theano", "version": "0.8.2"},
                                           "numpy": {"name": "numpy", "version": "1.11.3"}},
                              "env": {"variables": {"PYTHONPATH": r"C:\Anaconda2\Lib\site-packages\theano"}}}
    plan = make_plan(record)
    assert plan.python == "2.7" and plan.keep_env, (plan.python, plan.keep_env)
    assert not any("PYTHONPATH" in s.title for s in plan.steps)
    record["python"]["version"] = "3.6.8"  # the same folder under Python 3 must go
    assert any("PYTHONPATH" in s.title for s in make_plan(record).steps)


def test_removed_theano_uses_in_python_2_text_keep_their_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text("import theano\nprint 'a'\n\nx = 1\nmode = theano.ProfileMode()\n"
                                     "y = theano.ProfileMode()\n")
    uses = project_mod.scan(tmp_path).theano_api_uses()
    assert [u[3] for u in uses if u[1] == "ProfileMode"] == ["net.py:5"]


def test_the_first_use_is_the_first_by_line_number_not_by_text(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text("import os\nimport theano.tensor.nnet.Conv3D\n" + "x = 1\n" * 7
                                     + "import theano.compat.six\n")
    scan = project_mod.scan(tmp_path)
    assert scan.uses(project_mod.GONE_AFTER_09) == "net.py:2"  # not net.py:10, which sorts first as text
