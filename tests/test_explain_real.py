"""`legacydoc explain` on what real Theano prints (tests/data/real_logs/, recorded from the
cached legacy venvs; see its README). The fast tests read the recordings; the legacy ones
run Theano again and check that it still prints the same messages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from conftest import DATA
from legacy_envs import find_python, legacy_venv
from legacydoc import logscan
from legacydoc.engine import load_rules
from legacydoc.explain import explain

REAL = DATA / "real_logs"
THEANO_105 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])
THEANO_105_NUMPY_124 = ("3.8", ["numpy==1.24.4", "scipy==1.10.1", "Theano==1.0.5"])
THEANO_105_NUMPY_123 = ("3.8", ["numpy==1.23.5", "scipy==1.9.3", "Theano==1.0.5"])
THEANO_090 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0"])
THEANO_082 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.8.2"])
THEANO_PYMC_112 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano-PyMC==1.1.2"])
# Theano 1.0.5 without scipy (installed with --no-deps: Theano itself requires scipy)
THEANO_105_NO_SCIPY = ("3.8", ["numpy==1.21.6", "six==1.16.0", "Theano==1.0.5"], ["--no-deps"])
THEANO_105_SCIPY_18 = ("3.8", ["numpy==1.21.6", "scipy==1.8.1", "Theano==1.0.5"])
# pip 23.0.1 building the sdist the way pip 23.1+ always does without wheel: isolated, newest setuptools
# (--no-cache-dir: the unconverted wheel must not stay in pip's cache for other installs)
THEANO_070_PEP517 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==0.7.0"], ["--use-pep517", "--no-cache-dir"])
KERAS_231 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5", "Keras==2.3.1"])
THEANO_104_PY39 = ("3.9", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.4"])
THEANO_104_PY310 = ("3.10", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.4"])
# pyparsing pinned: the newest needs Python 3.9, and Python 3.6's pip would not know
THEANO_082_PYDOT_123 = ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.8.2", "pyparsing==2.4.7", "pydot==1.2.3"])
# PyMC3 3.5 on Python 3.6, its dependencies pinned to releases that still support 3.6
PYMC3_35 = ("3.6", ["numpy==1.16.6", "scipy==1.2.3", "Theano==1.0.5", "pymc3==3.5", "pandas==0.25.3", "h5py==2.10.0",
                    "tqdm==4.64.1", "patsy==0.5.3", "joblib==0.14.1", "python-dateutil==2.8.2", "pytz==2023.3",
                    "six==1.16.0", "importlib-resources==5.4.0", "zipp==3.6.0"])

# recording -> (venv, THEANO_FLAGS, the message it must be recognised as, the rule it points at)
CASES = {
    "theano105-device-gpu": (THEANO_105, "device=gpu", "theano-old-gpu-backend-removed", "LD516"),
    "theano105-device-cuda-no-pygpu": (THEANO_105, "device=cuda", "theano-gpuarray-pygpu-not-imported", "LD115"),
    "theano105-numpy124": (THEANO_105_NUMPY_124, "", "numpy-no-attribute-bool", "LD106"),
    "theano105-numpy123": (THEANO_105_NUMPY_123, "", "numpy-distutils-no-blas-opt-info", "LD105"),
    "theano090-device-gpu-no-nvcc": (THEANO_090, "device=gpu", "theano-cuda-nvcc-not-found", "LD312"),
    "theano090-device-cuda-no-pygpu": (THEANO_090, "device=cuda", "theano-gpuarray-pygpu-not-imported", "LD115"),
    "theanopymc112-device-gpu": (THEANO_PYMC_112, "device=gpu", "theano-old-gpu-backend-removed", "LD516"),
    "theano105-floatx-invalid": (THEANO_105, "floatX=float33", "theano-config-enum-invalid", "LD513"),
    "theano105-unknown-flag": (THEANO_105, "foo.bar=1", "theano-config-unknown-flag", "LD510"),
    "theano105-warn-float64-raise": (THEANO_105, "warn_float64=raise", "theano-warn-float64-raised", "LD543"),
    # Theano-PyMC 1.0.12+ names its options blas__ldflags: the dotted flag is ignored
    "theanopymc112-dotted-flag": (THEANO_PYMC_112, "blas.ldflags=-lblas", "theano-config-unknown-flag", "LD525"),
    "theano105-cxx-missing": (THEANO_105, "cxx=/nonexistent/g++", "theano-cxx-not-found-at-compile", "LD426"),
    # folders nobody can create or write in, even root: the message is what a user without the
    # rights sees (a ~/.theano made by sudo, a service user without a home)
    "theano105-compiledir-cannot-create": (THEANO_105, "base_compiledir=/proc/theano-cache",
                                           "theano-compiledir-no-permission", "LD500"),
    "theano105-compiledir-no-permission": (THEANO_105, "compiledir=/proc/sys", "theano-compiledir-no-permission",
                                           "LD500"),
    "theano104-python39": (THEANO_104_PY39, "", "python-removed-name-theano-imports", "LD103"),
    "theano104-python310": (THEANO_104_PY310, "", "python-removed-name-theano-imports", "LD103"),
    "theano082-pydot123": (THEANO_082_PYDOT_123, "", "pydot-find-graphviz-removed", "LD151"),
    "theano105-cxxflags-fopenmp": (THEANO_105, "gcc.cxxflags=-fopenmp", "theano-config-cxxflags-fopenmp", "LD513"),
    "theano105-mode-lowercase": (THEANO_105, "mode=fast_run", "theano-config-mode-invalid", "LD513"),
    "theano082-cnmem-true": (THEANO_082, "lib.cnmem=True", "theano-config-number-invalid", "LD513"),
    "theano105-preallocate-yes": (THEANO_105, "gpuarray.preallocate=yes", "theano-config-number-invalid", "LD513"),
    "theano105-vm-lazy-1": (THEANO_105, "vm.lazy=1", "theano-config-vm-lazy-invalid", "LD513"),
    "theano105-cxx-not-gxx": (THEANO_105, "cxx=/usr/bin/c++", "theano-optimization-warning-cxx-not-gxx", "LD619"),
    "theano090-config-home": (THEANO_090, "home=/tmp/x", "theano-config-home-removed", "LD513"),
    "theano090-nvcc-flags-space": (THEANO_090, "nvcc.flags=-arch sm_52", "theano-config-nvcc-flags-space", "LD513"),
    "theano090-init-gpu-device-gpu0": (THEANO_090, "init_gpu_device=gpu0", "theano-cuda-init-gpu-device-without-device",
                                       "LD602"),
    "theanopymc112-floatx-invalid": (THEANO_PYMC_112, "floatX=float23", "theano-config-enum-invalid", "LD513"),
    "theanopymc112-mode-lowercase": (THEANO_PYMC_112, "mode=fast_run", "theano-config-mode-invalid", "LD513"),
    "theanopymc112-cxxflags-fopenmp": (THEANO_PYMC_112, "gcc__cxxflags=-fopenmp", "theano-config-cxxflags-fopenmp",
                                       "LD513"),
    "theanopymc112-cxx-not-gxx": (THEANO_PYMC_112, "cxx=/usr/bin/c++", "theano-optimization-warning-cxx-not-gxx",
                                  "LD619"),
    "theano082-cxxflags-march": (THEANO_082, "gcc.cxxflags=-march=x86-64", "theano-cxxflags-march-set", "LD136"),
}
# run.py under an environment variable other than THEANO_FLAGS: recording -> (venv, the
# variables, the message, the rule). Re-run by the legacy test.
ENV_CASES = {
    "theano105-omp-num-threads-list": (THEANO_105, {"OMP_NUM_THREADS": "4,2"}, "theano-config-omp-num-threads-not-number",
                                       None),
}
# pip's own output (not re-run: it needs the package index).
PIP_CASES = {
    "pip-pygpu-not-on-pypi": ("pip-no-distribution-for-pygpu", "LD115"),
    "pip-theano105-python312": ("theano-setup-safeconfigparser-missing", "LD102"),
    "pip-theano104-under-pymc3": ("python-requirements-conflict", "LD144"),
    "pip-pymc3-theano-pins-conflict": ("python-requirements-conflict", "LD144"),
}
# Recorded from a script of its own (see the README); RERUN_SCRIPTS says which the legacy
# test runs again.
SCRIPT_CASES = {
    # the sequential run's message names no rule: check is quiet about it
    "pymc35-parallel-and-sequential-sampling": ("pymc3-multiprocess-sampling", "LD218"),
    "theano090-name-added-later": ("theano-name-added-after-release", "LD121"),
    "theano082-keyword-added-later": ("theano-keyword-added-after-release", "LD121"),
    "theano082-module-added-later": ("theano-module-added-after-release", "LD121"),
    "theano105-removed-compat-six": ("theano-module-removed-after-release", "LD165"),
    "theano105-removed-profilemode": ("theano-name-gone-by-09", "LD165"),
    "theano105-removed-conv3d": ("theano-name-removed-after-release", "LD165"),
    "theanopymc112-theano-op": ("theano-name-not-in-theano-pymc-11", "LD166"),
    "theanopymc112-gof-import": ("theano-module-not-in-theano-pymc-11", "LD166"),
    "theano090-tmpdir-noexec": ("theano-trial-compile-oserror-hidden", None),
    "theano105-unpickle-gpuarray-no-pygpu": ("theano-unpickle-gpu-array-without-backend", "LD536"),
    "theano090-unpickle-cudandarray-no-cuda": ("theano-unpickle-gpu-array-without-backend", "LD536"),
    "py3-load-py2-pickle": ("python2-pickle-in-python3", "LD145"),
    "py3-numpy-load-py2-npy": ("python2-pickle-in-python3", "LD145"),
    "theano105-py2_print": ("python2-syntax-on-python3", "LD147"),
    "theano105-py2_cpickle": ("python2-module-on-python3", "LD147"),
    "theano105-py2_xrange": ("python2-builtin-on-python3", "LD147"),
    "theano105-py2_iteritems": ("python2-builtin-on-python3", "LD147"),
    "scipy130-misc-imread-removed": ("scipy-misc-image-function-missing", "LD148"),
    "scipy130-misc-imresize-attribute": ("scipy-misc-image-function-missing", "LD148"),
    "scipy123-misc-imread-without-pillow": ("scipy-misc-image-function-missing", "LD148"),
    "keras231-h5py311-load-model": ("keras-hdf5-attribute-decode", "LD149"),
    "theano105-floatx_update": ("theano-update-float-type-mismatch", "LD537"),
    "theano105-floatx_conv": ("theano-conv-image-kernel-dtype-mismatch", "LD537"),
    "theano105-floatx_givens": ("theano-convert-float32-into-float64", "LD537"),
    "theano105-floatx_givens_float64": ("theano-convert-float64-into-float32", "LD542"),
    "theano105-floatx_scan_float64_step": ("theano-scan-float64-step-for-float32-state", "LD542"),
    "theano105-float64_input": ("theano-input-float64-into-float32", "LD538"),
    "theano105-deep_graph": ("theano-recursion-limit", "LD539"),
    "keras231-dim-ordering": ("keras-dim-ordering-api-removed", "LD152"),
    "keras231-private-backend": ("keras-private-backend-name-removed", "LD163"),
    "keras231-keras1-backend-keyword": ("keras-1-backend-keyword-on-keras-2", "LD142"),
    "keras231-tf-only-function": ("keras-tensorflow-only-function", "LD164"),
    "py38-spawn-no-guard": ("multiprocessing-spawn-without-main-guard", "LD155"),
    "py27-user-lasagne-py-shadows": ("user-theano-py-shadows-package", "LD134"),
    "py38-user-lasagne-py-shadows": ("user-theano-py-shadows-package", "LD134"),
    "numpy123-module-under-numpy121": ("numpy-module-compiled-against-api-version", "LD160"),
    "py27-six141-moves-cpickle": ("six-too-old-for-moves-import", "LD128"),
    "py36-six141-moves-cpickle": ("six-too-old-for-moves-import", "LD128"),
    "theano105-blas-ldflags-include-dir": ("theano-blas-ldflags-include-dir", "LD616"),
    "theano105-corrmm-no-cxx": ("theano-perform-not-defined", "LD401"),
    # re-run by tests/test_configured_cxx_real.py (it needs THEANO_FLAGS and an empty cache)
    "theano105-cxx-missing-import": ("theano-cxx-missing-at-import", "LD426"),
    "theano105-conv-no-scipy": ("theano-conv-python-needs-scipy", "LD401"),
    "theano105-conv-scipy18": ("theano-conv-python-needs-scipy", "LD168"),
    # re-run, with LD425's fix, by tests/test_clang_narrowing_real.py
    "theano105-clang-narrowing": ("compiler-narrowing-error", "LD425"),
    "theano070-pep517-unconverted": ("theano-installed-unconverted-on-python3", "LD169"),
    # re-run, with its fixes, by tests/test_mpi_import_real.py
    "theano105-mpi4py-leaked-pmi": ("mpi-init-failed", "LD170"),
    "theano105-missing-lazylinker-c": ("theano-lazylinker-c-missing", "LD161"),
    "theano105-cache-truncated-key": ("theano-cache-broken-entry-deleted", None),
    # not re-run: pytest's tmp_path is under /tmp, where Theano keeps 'Removing key file' quiet
    "theano105-cache-module-deleted": ("theano-cache-module-gone", "LD503"),
    "theanopymc112-old-config-api": ("theano-pymc-dotted-config-api", None),
}
# The theano package folder itself on PYTHONPATH (see the README): recording -> (venv,
# the arguments after the interpreter, the message, the rule). Re-run by the legacy test.
PYTHONPATH_CASES = {
    "theano082-pythonpath-theano-dir": (THEANO_082_PYDOT_123, ["run.py"], "theano-configparser-shadowed-by-theano-dir",
                                        "LD110"),
    "pip-theano082-pythonpath-theano-dir": (THEANO_082_PYDOT_123, ["-m", "pip", "--version"],
                                            "theano-configparser-shadowed-by-theano-dir", "LD110"),
    "theano105-pythonpath-theano-dir": (THEANO_105, ["run.py"], "theano-dir-in-python-path", "LD110"),
}
# A .theanorc that import theano refuses (see the README): recording -> (its bytes, the
# locale it is read in or None, the message, the rule). Re-run by the legacy test.
THEANORC_CASES = {
    "theano105-theanorc-bom": (b"\xef\xbb\xbf[global]\nfloatX = float32\n", None,
                               "theanorc-missing-section-header", "LD521"),
    "theano105-theanorc-no-section": (b"floatX = float32\ndevice = cpu\n", None, "theanorc-missing-section-header",
                                      "LD521"),
    "theano105-theanorc-duplicate-option": (b"[global]\nfloatX = float32\nfloatX = float64\n", None,
                                            "theanorc-duplicate-option", "LD521"),
    "theano105-theanorc-parse-error": (b"[global]\nfloatX float32\n", None, "theanorc-parsing-error", "LD521"),
    # a Chinese comment saved as UTF-8, read in a GBK locale (Chinese Windows' code page 936)
    "theano105-theanorc-gbk": ("# 配置文件：使用 CPU\n[global]\nfloatX = float32\n".encode("utf-8"), "zh_CN.GBK",
                               "theanorc-undecodable-in-locale", "LD524"),
}
# Recordings of a script in real_logs/scripts/ -> (venv, script): re-run by the legacy test.
RERUN_SCRIPTS = {
    "pymc35-parallel-and-sequential-sampling": (PYMC3_35, "pymc_chains.py"),
    "theano105-unpickle-gpuarray-no-pygpu": (THEANO_105, "gpuarray_pickle.py"),
    "theano090-unpickle-cudandarray-no-cuda": (THEANO_090, "cudandarray_pickle.py"),
    "theano105-py2_print": (THEANO_105, "py2_print.py.txt"),
    "theano105-py2_cpickle": (THEANO_105, "py2_cpickle.py.txt"),
    "theano105-py2_xrange": (THEANO_105, "py2_xrange.py.txt"),
    "theano105-py2_iteritems": (THEANO_105, "py2_iteritems.py.txt"),
    "theano105-floatx_update": (THEANO_105, "floatx_update.py"),
    "theano105-floatx_conv": (THEANO_105, "floatx_conv.py"),
    "theano105-floatx_givens": (THEANO_105, "floatx_givens.py"),
    "theano105-floatx_givens_float64": (THEANO_105, "floatx_givens_float64.py"),
    "theano105-floatx_scan_float64_step": (THEANO_105, "floatx_scan_float64_step.py"),
    "theano105-float64_input": (THEANO_105, "float64_input.py"),
    "theano105-deep_graph": (THEANO_105, "deep_graph.py"),
    "keras231-dim-ordering": (KERAS_231, "keras_dim_ordering.py"),
    "keras231-private-backend": (KERAS_231, "keras_private_backend.py"),
    "keras231-keras1-backend-keyword": (KERAS_231, "keras1_backend_keyword.py"),
    "keras231-tf-only-function": (KERAS_231, "keras_tf_only.py"),
    "theano082-keyword-added-later": (THEANO_082, "keyword_added_later.py"),
    "theano082-module-added-later": (THEANO_082, "module_added_later.py"),
    "theano105-removed-compat-six": (THEANO_105, "removed_compat_six.py"),
    "theano105-removed-profilemode": (THEANO_105, "removed_profilemode.py"),
    "theano105-removed-conv3d": (THEANO_105, "removed_conv3d.py"),
    "theanopymc112-theano-op": (THEANO_PYMC_112, "pymc_theano_op.py"),
    "theanopymc112-gof-import": (THEANO_PYMC_112, "pymc_gof_import.py"),
    "theano105-blas-ldflags-include-dir": (THEANO_105, "blas_ldflags_include.py"),
    "theano105-corrmm-no-cxx": (THEANO_105, "corrmm_no_cxx.py"),
    "theano105-conv-no-scipy": (THEANO_105_NO_SCIPY, "conv_no_scipy.py"),
    "theano105-conv-scipy18": (THEANO_105_SCIPY_18, "conv_no_scipy.py"),
    "theano070-pep517-unconverted": (THEANO_070_PEP517, "import_theano.py"),
    "theano105-missing-lazylinker-c": (THEANO_105, "missing_c_sources.py"),
    "theano105-cache-truncated-key": (THEANO_105, "cache_truncated_key.py"),
    "theanopymc112-old-config-api": (THEANO_PYMC_112, "pymc_old_config_api.py"),
}
# Re-run scripts that exit 0 (the damage they show is repaired by Theano itself).
RERUN_EXIT = {"theano105-cache-truncated-key": 0, "pymc35-parallel-and-sequential-sampling": 0}
# The Theano its finding says to install, under which the same script runs: a newer one for
# code written for a newer Theano (LD121), the last that had the API for older code (LD165).
FIXED_BY_RELEASE = {"theano082-keyword-added-later": THEANO_105, "theano082-module-added-later": THEANO_105,
                    "theano105-removed-compat-six": THEANO_090, "theano105-removed-profilemode": THEANO_082,
                    "theano105-removed-conv3d": THEANO_090,
                    # scipy 1.7.3, the last with the private functions: the Python convolution runs
                    "theano105-conv-scipy18": THEANO_105,
                    # code written for Theano 1.0 runs under it again (LD166's second fix)
                    "theanopymc112-theano-op": THEANO_105, "theanopymc112-gof-import": THEANO_105}
# The flags that make a re-run script succeed: the fix its finding gives works.
FIXED_BY = {
    "theano105-unpickle-gpuarray-no-pygpu": "experimental.unpickle_gpu_on_cpu=True",
    "theano090-unpickle-cudandarray-no-cuda": "experimental.unpickle_gpu_on_cpu=True",
    "theano105-floatx_update": "floatX=float32",
    "theano105-floatx_conv": "floatX=float32",
    "theano105-floatx_givens": "floatX=float32",
    "theano105-floatx_givens_float64": "floatX=float64",  # the floatX the code was written for
    "theano105-floatx_scan_float64_step": "floatX=float64",
}
RUN_PY = "import theano, theano.tensor as T\nx = T.vector()\nf = theano.function([x], x * 2)\nprint(f([1.0, 2.0]))\n"


def _explained(data: bytes) -> dict[str, set[str]]:
    """message id -> every rule it names (its own and its causes')."""
    result = explain(logscan.log_table(data, source="real"), load_rules())
    return {f.message.id: set(f.message.rules) | {r.id for c in f.causes for r in c.rules} for f in result.found}


@pytest.mark.parametrize("name", sorted(CASES) + sorted(PIP_CASES) + sorted(SCRIPT_CASES) + sorted(PYTHONPATH_CASES)
                         + sorted(THEANORC_CASES) + sorted(ENV_CASES))
def test_a_recorded_real_run_is_explained(name: str) -> None:
    """explain finds the message in the recording, and the message names the rule (as its own
    or a cause's): what explain shows the user. Whether check then fires the rule depends on
    the machine's facts, which the recordings do not hold; the rules' own examples test that."""
    if name in PYTHONPATH_CASES:
        message, rule = PYTHONPATH_CASES[name][2:]
    elif name in ENV_CASES:
        message, rule = ENV_CASES[name][2:]
    elif name in THEANORC_CASES:
        message, rule = THEANORC_CASES[name][2:]
    else:
        message, rule = ({**PIP_CASES, **SCRIPT_CASES}[name] if name in PIP_CASES or name in SCRIPT_CASES
                         else CASES[name][2:])
    found = _explained((REAL / (name + ".txt")).read_bytes())
    assert message in found, sorted(found)
    if rule is not None:  # None: no rule checks this yet, the message stands alone
        assert rule in found[message], (message, sorted(found[message]))


def test_every_recording_the_catalogue_names_exists() -> None:
    """A message or rule that says 'recorded: tests/data/real_logs/X' points at a file here."""
    import re

    named = set()
    for path in (DATA.parent.parent / "rules").rglob("*.toml"):
        named.update(re.findall(r"tests/data/real_logs/([\w.-]+\.txt)", path.read_text(encoding="utf-8")))
    assert named, "the catalogue names no recording at all"
    missing = sorted(name for name in named if not (REAL / name).is_file())
    assert missing == [], missing


def _run_py_in(spec: tuple[str, list[str]], folder: Path) -> Callable[[dict[str, str]], subprocess.CompletedProcess]:
    """RUN_PY in `folder` with the legacy venv `spec`, as a function of the environment."""
    python = legacy_venv(*spec)
    (folder / "run.py").write_text(RUN_PY)
    return lambda env: subprocess.run([str(python), "run.py"], cwd=str(folder), env=env, capture_output=True,
                                      timeout=600)


@pytest.mark.legacy
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_real_theano_still_prints_what_was_recorded(name: str, tmp_path: Path) -> None:
    spec, flags, message, _rule = CASES[name]
    run = _run_py_in(spec, tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THEANO", "PYTHON"))}
    env.update(HOME=str(tmp_path), THEANO_FLAGS="", PATH="/usr/bin:/bin")
    if "cxx=" in flags:
        # Recorded with a warm compile cache: with a cold one, the first thing to fail is
        # Theano's own lazylinker module instead.
        run(env)
    env["THEANO_FLAGS"] = flags
    proc = run(env)
    live = _explained(proc.stdout + proc.stderr)
    recorded = _explained((REAL / (name + ".txt")).read_bytes())
    assert message in live, sorted(live)
    assert set(live) == set(recorded), (sorted(live), sorted(recorded))


def _assert_fails_as_recorded(proc: subprocess.CompletedProcess, name: str, message: str) -> None:
    """The live run failed with the message, and shows the same messages as its recording."""
    live = _explained(proc.stdout + proc.stderr)
    assert proc.returncode == 1 and message in live, sorted(live)
    assert set(live) == set(_explained((REAL / (name + ".txt")).read_bytes())), sorted(live)


@pytest.mark.legacy
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ENV_CASES))
def test_real_theano_still_refuses_the_environment_as_recorded(name: str, tmp_path: Path) -> None:
    spec, variables, message, _rule = ENV_CASES[name]
    run = _run_py_in(spec, tmp_path)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "THEANO_FLAGS": "", **variables}
    _assert_fails_as_recorded(run(env), name, message)
    # the fix: one integer
    proc = run({**env, **{k: "4" for k in variables}})
    assert proc.returncode == 0, proc.stderr[-2000:]


def _locale(name: str, tmp_path: Path) -> dict[str, str]:
    """The environment that makes Python read files in the locale `name` (compiled into
    tmp_path with localedef: CI machines rarely have a GBK locale installed)."""
    language, charmap = name.split(".")
    try:
        built = subprocess.run(["localedef", "-i", language, "-f", charmap, str(tmp_path / name)],
                               capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip("localedef cannot build %s here: %s" % (name, error))
    if not (tmp_path / name).is_dir():
        pytest.skip("localedef cannot build %s here: %s" % (name, built.stderr.decode(errors="replace")[-300:]))
    return {"LOCPATH": str(tmp_path), "LC_ALL": name}


@pytest.mark.legacy
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(THEANORC_CASES))
def test_real_theano_still_refuses_the_theanorc_as_recorded(name: str, tmp_path: Path) -> None:
    text, locale_name, message, _rule = THEANORC_CASES[name]
    python = legacy_venv(*THEANO_105)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".theanorc").write_bytes(text)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    if locale_name:
        env.update(_locale(locale_name, tmp_path))
    run = [str(python), "-c", "import theano; print(theano.config.floatX)"]
    proc = subprocess.run(run, cwd=str(home), env=env, capture_output=True, timeout=600)
    _assert_fails_as_recorded(proc, name, message)


@pytest.mark.legacy
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RERUN_SCRIPTS))
def test_real_python_and_theano_still_print_what_the_scripts_recorded(name: str, tmp_path: Path) -> None:
    venv, script = RERUN_SCRIPTS[name]
    python = legacy_venv(venv[0], venv[1], pip_args=venv[2] if len(venv) > 2 else ())  # (version, packages[, pip_args])
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    copy = tmp_path / (script[:-4] if script.endswith(".txt") else script)  # Python 2 scripts: .py.txt
    copy.write_bytes((REAL / "scripts" / script).read_bytes())
    run = [str(python), copy.name]
    proc = subprocess.run(run, cwd=str(tmp_path), env=env, capture_output=True, timeout=600)
    live = _explained(proc.stdout + proc.stderr)
    assert proc.returncode == RERUN_EXIT.get(name, 1), proc.stderr[-2000:]
    assert set(live) == set(_explained((REAL / (name + ".txt")).read_bytes())), sorted(live)
    if name in FIXED_BY_RELEASE:
        upgraded = legacy_venv(*FIXED_BY_RELEASE[name])
        proc = subprocess.run([str(upgraded), copy.name], cwd=str(tmp_path), env=env, capture_output=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
    if name not in FIXED_BY:
        return
    env["THEANO_FLAGS"] = FIXED_BY[name]
    proc = subprocess.run(run, cwd=str(tmp_path), env=env, capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    if "unpickle" in name:
        assert "theano-unpickle-gpu-on-cpu-active" in _explained(proc.stdout + proc.stderr)


@pytest.mark.legacy
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PYTHONPATH_CASES))
def test_theano_folder_on_pythonpath_still_fails_as_recorded(name: str, tmp_path: Path) -> None:
    (version, packages), arguments, message, _rule = PYTHONPATH_CASES[name]
    python = legacy_venv(version, packages)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, timeout=120).stdout.strip()
    (tmp_path / "run.py").write_text(RUN_PY)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "THEANO_FLAGS": ""}
    run = [str(python), *arguments]
    proc = subprocess.run(run, cwd=str(tmp_path), env={**env, "PYTHONPATH": purelib + "/theano"},
                          capture_output=True, timeout=600)
    live = _explained(proc.stdout + proc.stderr)
    assert proc.returncode == 1 and message in live, sorted(live)
    assert set(live) == set(_explained((REAL / (name + ".txt")).read_bytes())), sorted(live)
    # LD110's fix: the folder off PYTHONPATH, and the same command gets past it
    proc = subprocess.run(run, cwd=str(tmp_path), env=env, capture_output=True, timeout=600)
    assert message not in _explained(proc.stdout + proc.stderr), proc.stderr[-2000:]


@pytest.mark.legacy
@pytest.mark.slow
def test_pydot_ng_beside_pydot_12_lets_theano_08_import(tmp_path: Path) -> None:
    # LD151's second fix: Theano 0.8 imports pydot-ng before pydot
    version, packages = THEANO_082_PYDOT_123
    python = legacy_venv(version, packages + ["pydot-ng==2.0.0"])
    (tmp_path / "run.py").write_text(RUN_PY)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "THEANO_FLAGS": ""}
    proc = subprocess.run([str(python), "run.py"], cwd=str(tmp_path), env=env, capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "pydot-find-graphviz-removed" not in _explained(proc.stdout + proc.stderr)


# Recordings whose rule fires from the log alone (nothing else recorded): the catalogue
# names the rule, and the rule's own conditions (when, unless, applies) let it through.
FIRES_FROM_THE_LOG_ALONE = {
    "theano105-floatx_update": "LD537",
    "theano105-floatx_conv": "LD537",
    "theano105-floatx_givens": "LD537",
    "theano105-floatx_givens_float64": "LD542",
    "theano105-floatx_scan_float64_step": "LD542",
    "theano105-warn-float64-raise": "LD543",
    "theano105-float64_input": "LD538",
    "theano105-deep_graph": "LD539",
    "theano104-python39": "LD103",
    "theano104-python310": "LD103",
    "theano082-pydot123": "LD151",
    "keras231-dim-ordering": "LD152",
    "keras231-private-backend": "LD163",
    "keras231-keras1-backend-keyword": "LD142",
    "keras231-tf-only-function": "LD164",
    "theano082-keyword-added-later": "LD121",
    "theano082-module-added-later": "LD121",
    "theano105-removed-compat-six": "LD165",
    "theano105-removed-profilemode": "LD165",
    "theano105-removed-conv3d": "LD165",
    "theanopymc112-theano-op": "LD166",
    "theanopymc112-gof-import": "LD166",
    "py38-spawn-no-guard": "LD155",
    "theano082-pythonpath-theano-dir": "LD110",
    "pip-theano082-pythonpath-theano-dir": "LD110",
    "theano105-pythonpath-theano-dir": "LD110",
    "py27-user-lasagne-py-shadows": "LD134",
    "py38-user-lasagne-py-shadows": "LD134",
    "theano105-numpy123": "LD105",
}


@pytest.mark.parametrize("name", sorted(FIRES_FROM_THE_LOG_ALONE))
def test_the_rule_fires_on_the_recording_alone(name: str) -> None:
    from legacydoc.checkup import run_check

    record = {"schema": 1, "log": logscan.log_table((REAL / (name + ".txt")).read_bytes(), source="real")}
    fired = [d.id for d in run_check(record, load_rules()).diagnoses]
    assert FIRES_FROM_THE_LOG_ALONE[name] in fired, fired


NUMPY_123 = ("3.8", ["numpy==1.23.5", "scipy==1.9.3", "Theano==1.0.5"])
NUMPY_121 = ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])


def test_a_module_built_for_a_newer_numpy_names_the_numpy_it_needs(tmp_path: Path) -> None:
    """LD160 reads numpy's C API versions into releases (rules/knowledge/numpy_c_api.toml)."""
    log = REAL / "numpy123-module-under-numpy121.txt"
    facts = tmp_path / "facts.toml"
    facts.write_text('schema = 1\nlegacydoc_version = "0.1.0"\ncollected_at = "2026-12-05T00:00:00+00:00"\n'
                     'redacted = true\n[system]\nos = "linux"\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--facts", str(facts), "--log", str(log)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "LEGACYDOC_LANG": "en"})
    title = next(line for line in proc.stdout.splitlines() if "[LD160" in line)
    assert "numpy 1.23-1.24" in title and "is 1.20-1.21" in title, title
    assert "a numpy of 1.23 or later, where the theano release accepts it" in proc.stdout.lower(), proc.stdout
    assert "numpy-multiarray-failed-import" not in proc.stdout  # settled: LD160 explains it
    # with the record's numpy new enough, the log is older than the record: no finding
    facts.write_text(facts.read_text() + '[packages.numpy]\nname = "numpy"\nversion = "1.24.4"\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--facts", str(facts), "--log", str(log)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "LEGACYDOC_LANG": "en"})
    assert "[LD160" not in proc.stdout, proc.stdout


@pytest.mark.legacy
@pytest.mark.slow
def test_numpy_still_refuses_a_module_built_for_a_newer_numpy(tmp_path: Path) -> None:
    """Build scripts/npmod.c against numpy 1.23.5, import it under numpy 1.21.6 (the
    recording), and under 1.23.5, which LD160 says is new enough."""
    newer, older = legacy_venv(*NUMPY_123), legacy_venv(*NUMPY_121)
    ask = "import sysconfig, numpy; print(sysconfig.get_paths()['include']); print(numpy.get_include()); " \
          "print(sysconfig.get_config_var('EXT_SUFFIX'))"
    include, numpy_include, suffix = subprocess.run([str(newer), "-c", ask], capture_output=True, text=True,
                                                    timeout=120).stdout.split()
    (tmp_path / "npmod.c").write_bytes((REAL / "scripts" / "npmod.c").read_bytes())
    (tmp_path / "import_npmod.py").write_bytes((REAL / "scripts" / "import_npmod.py").read_bytes())
    subprocess.run(["gcc", "-shared", "-fPIC", "-I" + include, "-I" + numpy_include, "npmod.c", "-o", "npmod" + suffix],
                   cwd=str(tmp_path), check=True, capture_output=True, timeout=300)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([str(older), "import_npmod.py"], cwd=str(tmp_path), env=env, capture_output=True,
                          timeout=300)
    live = _explained(proc.stdout + proc.stderr)
    assert proc.returncode == 1 and "LD160" in live.get("numpy-module-compiled-against-api-version", set())
    assert set(live) == set(_explained((REAL / "numpy123-module-under-numpy121.txt").read_bytes())), sorted(live)
    assert subprocess.run([str(newer), "import_npmod.py"], cwd=str(tmp_path), env=env, capture_output=True,
                          timeout=300).returncode == 0


@pytest.mark.legacy
@pytest.mark.slow
def test_scipy_18_imports_but_lacks_what_theano_imports() -> None:
    """The recording under scipy 1.8.1 is LD168's cause, not a missing scipy: scipy.signal
    imports there, Theano's private names do not (they do under 1.7.3)."""
    script = ("import scipy.signal\ntry:\n    from scipy.signal.signaltools import _valfrommode\n"
              "    from scipy.signal.sigtools import _convolve2d\nexcept ImportError:\n    print('private gone')\n"
              "else:\n    print('private there')\n")
    for venv, expected in ((THEANO_105_SCIPY_18, "private gone"), (THEANO_105, "private there")):
        python = legacy_venv(*venv)
        proc = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and proc.stdout.strip() == expected, proc.stderr[-2000:]


@pytest.mark.legacy
@pytest.mark.slow
def test_theano_07_installs_converted_with_ld169s_fix(tmp_path: Path) -> None:
    """A pip of today and setuptools 60+ install Theano 0.7.0 unconverted; LD169's fix
    (setuptools below 60, no build isolation, no cached wheel) installs the same sdist
    converted, and it imports on Python 3."""
    base = find_python("3.8")
    if base is None:
        pytest.skip("no Python 3.8")
    venv = tmp_path / "venv"
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}

    def run(argv: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, timeout=900)

    def imported() -> subprocess.CompletedProcess:
        return subprocess.run([python, "-c", "import theano; print(theano.__version__)"], cwd=str(tmp_path),
                              capture_output=True, text=True, timeout=300, env=env)

    if run([str(base), "-m", "venv", str(venv)]).returncode != 0:
        pytest.skip("cannot create a venv")
    setup = run(pip + ["pip>=23.1", "setuptools>=60", "numpy==1.21.6", "scipy==1.7.3"])
    if setup.returncode != 0:
        pytest.skip("no package index: %s" % setup.stderr[-300:])  # as legacy_venv does
    broken = run(pip + ["--no-deps", "--no-cache-dir", "Theano==0.7.0"])
    assert broken.returncode == 0, broken.stderr[-2000:]
    assert "except Exception, e0:" in imported().stderr  # the failure, reproduced
    fixed = [run(pip + ["setuptools<60", "wheel"]),
             run(pip + ["--force-reinstall", "--no-deps", "--no-build-isolation", "--no-cache-dir", "Theano==0.7.0"])]
    assert all(step.returncode == 0 for step in fixed), [step.stderr[-1000:] for step in fixed]
    proc = imported()
    assert proc.returncode == 0 and proc.stdout.strip().endswith("0.7.0"), proc.stderr[-2000:]
