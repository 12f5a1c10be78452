"""The bench against real legacy environments (cached venvs on pyenv interpreters; skipped
where absent): the target-interpreter run on Python 3.7 + numpy 1.19.5, and --theano on a
real Theano 1.0.5 (Python 3.8, numpy 1.21.6, scipy 1.7.3) on the CPU: the NumPy C-API
fallback with blas.ldflags empty, the BLAS-backed Gemm with blas.ldflags set to the
suggestion the fallback run made (the OpenBLAS inside numpy's wheel), a compile failure
and a missing Theano. Tiny sizes and budgets; no timing is asserted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from legacy_envs import legacy_venv, venvs_root
from legacydoc.bench import facts as bench_facts
from legacydoc.bench import peak
from legacydoc.bench.gemm import make_plan
from legacydoc.bench.target_run import run_target_gemm
from legacydoc.bench.theano_bench import TheanoRun, run_theano
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules
from legacydoc.facts import new_record
from legacydoc.probes.context import ProbeContext

pytestmark = pytest.mark.legacy
THEANO_SPEC = ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"]


@pytest.fixture(scope="module")
def py37_numpy() -> Path:
    return legacy_venv("3.7", ["numpy==1.19.5"])


@pytest.fixture(scope="module")
def py38_theano() -> Path:
    return legacy_venv("3.8", THEANO_SPEC)


def theano_ctx(tmp_path: Path, flags: str) -> ProbeContext:
    """The target sees only these flags: HOME is empty (no ~/.theanorc) and the compile
    cache is shared between runs so only the first run compiles."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    compiledir = venvs_root() / "theano-compiledir-bench"
    env = {k: v for k, v in os.environ.items() if not k.startswith("THEANO")}
    env.update({"HOME": str(home), "THEANO_FLAGS": "base_compiledir=%s,%s" % (compiledir, flags)})
    return ProbeContext(environ=env, cwd=tmp_path, timeout=10.0)


def test_target_run_on_python37_numpy119(py37_numpy: Path, tmp_path: Path) -> None:
    ctx = ProbeContext(cwd=tmp_path, timeout=10.0)
    side = run_target_gemm(ctx, str(py37_numpy), make_plan(0.3, [32, 64]))
    assert side.ok, side.error
    assert side.python_version.startswith("3.7.")
    assert side.numpy == "1.19.5"
    # numpy 1.19.5's wheel: distutils config says openblas, the loaded library says which
    assert side.blas["config_key"] == "blas_opt_info"
    assert side.blas["family"] == "openblas"
    assert side.blas.get("threads_source") == "library" and side.threads >= 1
    assert "libopenblasp" in side.blas.get("library", "")
    for dtype in ("float32", "float64"):
        assert [s.n for s in side.sweeps[dtype].sizes][:1] == [32]
        head = side.headline(dtype)
        assert head.gflops.best >= head.gflops.median >= head.gflops.worst > 0


def test_target_run_sees_the_thread_variable(py37_numpy: Path, tmp_path: Path) -> None:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    side = run_target_gemm(ProbeContext(environ=env, cwd=tmp_path), str(py37_numpy), make_plan(0.1, [16]))
    assert side.ok, side.error
    assert side.threads == 1
    assert side.blas["threads_env_var"] == "OPENBLAS_NUM_THREADS"
    assert side.env["OPENBLAS_NUM_THREADS"] == "1"


@pytest.fixture(scope="module")
def fallback_run(py38_theano: Path, tmp_path_factory) -> TheanoRun:
    tmp = tmp_path_factory.mktemp("theano-fallback")
    return run_theano(theano_ctx(tmp, "blas.ldflags="), str(py38_theano), 64, 0.1)


def test_theano_with_empty_ldflags_reports_the_numpy_c_api_fallback(fallback_run: TheanoRun) -> None:
    run = fallback_run
    assert run.ok, run.message()
    assert run.theano.startswith("1.0.5")
    assert run.op == "Gemm" and run.cthunk is True
    assert run.op_kind == "numpy_c_api"
    assert run.capi_warning
    assert run.config["blas.ldflags"] == ""
    assert run.result is not None and run.result.n == 64 and run.numpy_result is not None
    # the fix it suggests links the OpenBLAS that numpy 1.21.6's wheel ships
    assert "numpy.libs" in run.ldflags_suggestion and "-l:libopenblas" in run.ldflags_suggestion


def test_theano_fallback_becomes_a_diagnosis_with_that_fix(fallback_run: TheanoRun, py38_theano: Path) -> None:
    from legacydoc.bench.gemm import run_in_process

    machine = run_in_process(make_plan(0.1, [16]))
    record = new_record({"packages": {"theano": {"name": "Theano", "version": "1.0.5"}}})
    record["bench"] = bench_facts.build(machine, None, peak.estimate({}), fallback_run)
    found = [d for d in run_check(record, load_rules()).diagnoses if d.id == "LD611"]
    assert found and any(fallback_run.ldflags_suggestion in step for step in found[0].fix)


def test_theano_with_ldflags_set_reports_the_blas_backed_gemm(fallback_run: TheanoRun, py38_theano: Path,
                                                              tmp_path: Path) -> None:
    suggestion = fallback_run.ldflags_suggestion
    assert suggestion
    run = run_theano(theano_ctx(tmp_path, "blas.ldflags=" + suggestion), str(py38_theano), 64, 0.1)
    assert run.ok, run.message()
    assert run.op == "Gemm" and run.cthunk is True
    assert run.op_kind == "blas"
    assert not run.capi_warning
    assert run.config["blas.ldflags"] == suggestion


def test_theano_compile_failure_is_a_clear_message(py38_theano: Path, tmp_path: Path) -> None:
    run = run_theano(theano_ctx(tmp_path, "blas.ldflags=-lnolegacydocblas"), str(py38_theano), 64, 0.1)
    assert not run.ok and run.stage == "compile"
    message = run.message()
    assert message.startswith("Theano could not compile the matrix product: Compilation failed")
    assert "-lnolegacydocblas" in message
    assert "Traceback" not in message


def test_theano_missing_is_a_clear_message(py37_numpy: Path, tmp_path: Path) -> None:
    run = run_theano(ProbeContext(cwd=tmp_path), str(py37_numpy), 32, 0.1)
    assert not run.ok
    assert run.message() == "Theano is not installed in the target interpreter (%s)." % run.python


def _cpu_has_avx2() -> bool:
    try:
        return " avx2" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.fixture(scope="module")
def py36_theano09() -> Path:
    return legacy_venv("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0"])


@pytest.mark.skipif(not _cpu_has_avx2(), reason="needs an x86 CPU with AVX2 (Linux)")
def test_old_openblas_kernel_choice_and_coretype_are_reported(py36_theano09: Path, tmp_path: Path) -> None:
    """numpy 1.13.3 bundles OpenBLAS 0.2.18, which predates many CPUs and may pick old
    kernels; OPENBLAS_CORETYPE overrides the choice, and the report shows both."""
    env = dict(os.environ, OPENBLAS_CORETYPE="Haswell")
    side = run_target_gemm(ProbeContext(environ=env, cwd=tmp_path), str(py36_theano09), make_plan(0.1, [32]))
    assert side.ok, side.error
    assert side.numpy == "1.13.3" and side.blas["family"] == "openblas"
    assert side.blas["corename"] == "Haswell"
    assert side.env["OPENBLAS_CORETYPE"] == "Haswell"
    assert "numpy/.libs" in side.blas["library"]  # the pre-1.16 wheel layout


def test_theano_09_is_identified_too(py36_theano09: Path, tmp_path: Path) -> None:
    run = run_theano(theano_ctx(tmp_path, "blas.ldflags="), str(py36_theano09), 32, 0.1)
    assert run.ok, run.message()
    assert run.theano.startswith("0.9") and run.op == "Gemm" and run.op_kind == "numpy_c_api"
