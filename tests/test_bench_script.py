"""The timing script (legacydoc/bench/target_bench_script.py): its statistics, the sweep's
stopping rules on a fake clock (deterministic: no real timing is asserted), its BLAS
discovery parsers, and real runs with tiny sizes, in-process, in a subprocess and under
Python 2.7."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Callable

import pytest

from legacy_envs import find_python
from legacydoc.bench import target_bench_script as script
from legacydoc.bench.gemm import make_plan, side_from_report
from legacydoc.bench.target_run import run_script, script_source

# --- statistics -------------------------------------------------------------------------


def test_median_odd_even_and_empty() -> None:
    assert script.median([3.0, 1.0, 2.0]) == 2.0
    assert script.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert script.median([]) == 0.0


def test_summarize_gflops_is_2n3_over_time() -> None:
    # 2 * 512^3 = 268435456 FLOP; 1.27 ms -> 211.4 GFLOPS (the seed's float32 figure)
    out = script.summarize([0.00127, 0.00127, 0.00254], 512)
    assert out["n"] == 512 and out["reps"] == 3
    assert out["ms"] == {"median": 1.27, "best": 1.27, "worst": 2.54}
    assert out["gflops"]["median"] == pytest.approx(211.37, abs=0.01)
    assert out["gflops"]["worst"] == pytest.approx(105.68, abs=0.01)
    assert out["spread_pct"] == 100.0


# --- the sweep on a fake clock ------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def fake_factory(clock: FakeClock, rate: Callable[[int], float], setup_s: float = 0.001):
    """A product whose call advances the fake clock by 2 n^3 / rate(n)."""
    made: list[int] = []

    def factory(n: int):
        made.append(n)
        clock.t += setup_s

        def call() -> None:
            clock.t += 2.0 * n ** 3 / (rate(n) * 1e9)

        return call

    factory.made = made  # type: ignore[attr-defined]
    return factory


OPTIONS = dict(script.DEFAULTS)


def test_sweep_climbs_until_the_rate_stops_rising_then_spends_the_rest_on_the_best_size() -> None:
    clock = FakeClock()
    # 1024 dips (noise): one size that does not rise must not end the sweep; two in a
    # row (3072: +1%, 4096: -1%) do
    rates = {512: 20.0, 768: 30.0, 1024: 25.0, 1536: 48.0, 2048: 50.0, 3072: 50.5, 4096: 50.0}
    factory = fake_factory(clock, lambda n: rates.get(n, 50.0))
    out = script.sweep(factory, [], 60.0, OPTIONS, clock)
    assert [s["n"] for s in out["sizes"]] == [512, 768, 1024, 1536, 2048, 3072, 4096]
    assert out["stopped"] == "rate stopped rising"
    assert out["best_n"] == 3072  # +1% is "not rising", but it is still the best measured
    best = out["sizes"][-2]
    assert best["gflops"]["median"] == pytest.approx(50.5, rel=1e-3)
    assert best["reps"] > OPTIONS["min_reps"]  # the exploitation phase added runs
    # the budget holds, give or take the last product
    assert clock.t <= 60.0 + 2.0 * 3072 ** 3 / 50.5e9 + 0.01


def test_sweep_stops_before_a_size_that_would_not_fit_in_the_budget() -> None:
    clock = FakeClock()
    factory = fake_factory(clock, lambda n: 10.0 * n / 512)  # always rising
    out = script.sweep(factory, [], 1.0, OPTIONS, clock)
    assert out["stopped"] == "budget"
    assert out["sizes"][0]["n"] == 512
    assert clock.t <= 1.0 + 0.5


def test_sweep_measures_512_even_on_a_tiny_budget() -> None:
    clock = FakeClock()
    factory = fake_factory(clock, lambda n: 1.0)
    out = script.sweep(factory, [], 0.0001, OPTIONS, clock)
    assert [s["n"] for s in out["sizes"]] == [512]
    assert out["sizes"][0]["reps"] >= 1


def test_sweep_respects_the_memory_cap() -> None:
    clock = FakeClock()
    factory = fake_factory(clock, lambda n: 1000.0 * n)
    options = dict(OPTIONS, max_bytes=3 * 1024 * 1024 * 4)
    out = script.sweep(factory, [], 100.0, options, clock, bytes_per_size=lambda n: 3 * n * n * 4)
    assert out["stopped"] == "memory"
    assert max(s["n"] for s in out["sizes"]) <= 1024


def test_fixed_sizes_are_each_measured_with_a_share_and_no_sweep_logic() -> None:
    clock = FakeClock()
    factory = fake_factory(clock, lambda n: 100.0 if n == 64 else 10.0)
    out = script.sweep(factory, [64, 32, 128], 0.3, OPTIONS, clock)
    assert [s["n"] for s in out["sizes"]] == [64, 32, 128]
    assert out["stopped"] == "sizes done"
    assert factory.made == [64, 32, 128]  # type: ignore[attr-defined]


def test_time_calls_bounds() -> None:
    clock = FakeClock()

    def call() -> None:
        clock.t += 0.1

    assert len(script.time_calls(call, 0.0, 3, 100, 1e9, clock)) == 3  # min_reps
    assert len(script.time_calls(call, 100.0, 1, 5, 1e9, clock)) == 5  # max_reps
    # past the hard deadline no new run starts, even below min_reps
    assert len(script.time_calls(call, 100.0, 10, 100, clock.t + 0.15, clock)) == 2


# --- BLAS discovery ------------------------------------------------------------------------


def fake_numpy(**config) -> types.SimpleNamespace:
    return types.SimpleNamespace(__config__=types.SimpleNamespace(**config))


def test_blas_from_meson_config() -> None:
    np = fake_numpy(CONFIG={"Build Dependencies": {"blas": {
        "name": "scipy-openblas", "found": True, "version": "0.3.27",
        "openblas configuration": "OpenBLAS 0.3.27 USE64BITINT DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"}}})
    out = script.blas_from_numpy_config(np)
    assert out["config_name"] == "scipy-openblas"
    assert out["config_version"] == "0.3.27"
    assert "Haswell" in out["config_detail"]


def test_blas_from_distutils_config_openblas_mkl_and_none() -> None:
    openblas = fake_numpy(blas_opt_info={"libraries": ["openblas", "openblas"], "library_dirs": ["/usr/local/lib"]})
    assert script.blas_from_numpy_config(openblas)["config_name"] == "openblas"
    mkl = fake_numpy(blas_mkl_info={"libraries": ["mkl_rt", "pthread"]}, blas_opt_info={"libraries": ["mkl_rt", "pthread"]})
    assert script.blas_from_numpy_config(mkl)["config_name"] == "mkl"
    bare = fake_numpy(blas_opt_info={}, blas_info={})
    assert script.blas_from_numpy_config(bare)["config_name"] == "none"
    assert script.blas_from_numpy_config(types.SimpleNamespace()) == {}


@pytest.mark.parametrize("family, env, expected", [
    ("openblas", {"OMP_NUM_THREADS": "4", "OPENBLAS_NUM_THREADS": "2"}, (2, "OPENBLAS_NUM_THREADS")),
    ("openblas", {"OMP_NUM_THREADS": "4"}, (4, "OMP_NUM_THREADS")),
    ("openblas", {"GOTO_NUM_THREADS": "3", "OMP_NUM_THREADS": "4"}, (3, "GOTO_NUM_THREADS")),
    ("mkl", {"MKL_NUM_THREADS": "1", "OMP_NUM_THREADS": "4"}, (1, "MKL_NUM_THREADS")),
    ("mkl", {"OPENBLAS_NUM_THREADS": "1"}, (None, None)),
    ("openblas", {"OMP_NUM_THREADS": "4,2"}, (4, "OMP_NUM_THREADS")),  # OpenMP nesting list
    ("openblas", {"OMP_NUM_THREADS": "many"}, (None, None)),
    ("openblas", {"OPENBLAS_CORETYPE": "Haswell"}, (None, None)),
])
def test_thread_variables_by_library_and_precedence(family: str, env: dict, expected: tuple) -> None:
    assert script.threads_from_env(family, env) == expected


def test_is_blas_file() -> None:
    assert script.is_blas_file("libopenblasp-r0-2d23e62b.3.17.so")
    assert script.is_blas_file("libscipy_openblas64_-32a4b2a6.so")
    assert script.is_blas_file("mkl_rt.2.dll")
    assert script.is_blas_file("libblas.so.3")
    assert not script.is_blas_file("libgfortran-2e0d59d6.so.5.0.0")
    assert not script.is_blas_file("openblas.txt")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="GNU ld syntax")
def test_ldflags_suggestion_links_the_very_file_and_refuses_ilp64() -> None:
    info = {"path": "/v/site-packages/numpy.libs/libopenblasp-r0-2d23e62b.3.17.so", "symbols": "lp64"}
    assert script.ldflags_suggestion(info, "openblas") == "-L/v/site-packages/numpy.libs -l:libopenblasp-r0-2d23e62b.3.17.so"
    assert script.ldflags_suggestion({"path": "/usr/lib/libopenblas.so", "symbols": "lp64"}, "openblas") == "-L/usr/lib -lopenblas"
    assert script.ldflags_suggestion({"path": "/c/lib/libmkl_rt.so.2", "symbols": "lp64"}, "mkl") == "-L/c/lib -lmkl_rt"
    assert script.ldflags_suggestion(dict(info, symbols="ilp64"), "openblas") is None


def test_classify_op_names_the_implementation() -> None:
    warn = ["WARNING (theano.tensor.blas): Using NumPy C-API based implementation for BLAS functions."]
    assert script.classify_op(["HostFromGpu", "GpuGemm"], True, "", []) == ("GpuGemm", "gpu")
    assert script.classify_op(["Gemm"], True, "-lopenblas", []) == ("Gemm", "blas")
    assert script.classify_op(["Gemm"], True, "", warn) == ("Gemm", "numpy_c_api")
    assert script.classify_op(["Gemm"], True, "", []) == ("Gemm", "numpy_c_api")
    assert script.classify_op(["Gemm"], False, "", warn) == ("Gemm", "python")
    assert script.classify_op(["Elemwise{add}"], None, "", []) == (None, "unknown")


def test_compile_error_keeps_the_compilers_message() -> None:
    exc = Exception(("The following error happened while compiling the node", "Gemm{inplace}(...)", "\n",
                     "Compilation failed (return status=1): /usr/bin/ld: cannot find -lblas: No such file or "
                     "directory. collect2: error: ld returned 1 exit status. ", "[Gemm{inplace}(...)]"))
    message = script.compile_error(exc)
    assert message.startswith("Compilation failed: /usr/bin/ld: cannot find -lblas")
    assert "collect2" in message and "Gemm{inplace}" not in message
    assert script.compile_error(ValueError("odd")) == "ValueError: odd"


# --- real runs, tiny sizes -------------------------------------------------------------


def test_run_gemm_in_process_with_real_numpy() -> None:
    np = pytest.importorskip("numpy")
    report = script.run_gemm(np, make_plan(0.2, [16, 32]))
    assert set(report["results"]) == {"float32", "float64"}
    for dtype in ("float32", "float64"):
        sizes = report["results"][dtype]["sizes"]
        assert [s["n"] for s in sizes][:1] == [16]
        for size in sizes:
            assert size["reps"] >= 1
            assert set(size["gflops"]) == set(size["ms"]) == {"median", "best", "worst"}
            assert size["gflops"]["best"] >= size["gflops"]["median"] >= size["gflops"]["worst"] > 0
    assert report["blas"]["family"] != ""
    assert isinstance(report["cpu_features"], list)


def test_script_source_drops_comments_and_still_compiles() -> None:
    source = script_source()
    assert not any(line.lstrip().startswith("#") for line in source.splitlines())
    compile(source, "<bench script>", "exec")
    source.encode("ascii")  # Python 2 reads -c code as bytes
    assert len(source) < 30000  # Windows command lines stop at 32767 characters
    assert source.startswith("from __future__ import division")


def test_script_in_a_subprocess_reports_json(ctx_factory) -> None:
    pytest.importorskip("numpy")
    ctx = ctx_factory()
    report, result = run_script(ctx, sys.executable, make_plan(0.2, [16]), 60.0)
    assert result.ok, result.stderr
    side = side_from_report(report, "target")
    assert side.ok and side.headline("float32").n == 16
    assert side.python_version == "%d.%d.%d" % sys.version_info[:3]


def test_a_bad_plan_and_a_missing_numpy_still_give_a_report(ctx_factory, tmp_path: Path) -> None:
    # -S -I style isolation is not available on 2.7, so hide numpy with a broken shadow
    shadow = tmp_path / "shadow" / "numpy"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('numpy is broken here')\n")
    ctx = ctx_factory(env={"PYTHONPATH": str(shadow.parent)})
    report, result = run_script(ctx, sys.executable, make_plan(0.1, [16]), 60.0)
    assert report["error"].startswith("ImportError: numpy is broken here")
    side = side_from_report(report, "target")
    assert not side.ok and "numpy is broken" in side.error


FAKE_NUMPY = '''
__version__ = "0.0-fake"
class _Type(object):
    def __init__(self, name):
        self.itemsize = 4 if name == "float32" else 8
def dtype(name):
    return _Type(name)
class _M(object):
    def __init__(self, n):
        self.n = n
    def astype(self, name):
        return self
def empty(shape, dtype=None):
    return _M(shape[0])
def dot(a, b, out=None):
    total = 0.0
    for i in range(a.n):
        for j in range(a.n):
            total += i * j
    return out
class _RS(object):
    def __init__(self, seed):
        pass
    def random_sample(self, shape):
        return _M(shape[0])
class random(object):
    RandomState = _RS
'''


@pytest.mark.legacy
def test_the_script_runs_on_python_27(ctx_factory, tmp_path: Path) -> None:
    """Python 2.7 syntax and semantics: the whole sweep with a stand-in numpy, then the
    clean report when numpy is missing."""
    python = find_python("2.7")
    if python is None:
        pytest.skip("no Python 2.7 under /root/.pyenv/versions")
    fake = tmp_path / "fake"
    (fake / "numpy").mkdir(parents=True)
    (fake / "numpy" / "__init__.py").write_text(FAKE_NUMPY)
    ctx = ctx_factory(env={"PYTHONPATH": str(fake)})
    report, result = run_script(ctx, str(python), make_plan(0.1, [8, 12]), 60.0)
    assert result.ok, result.stderr
    assert report["python"]["version"].startswith("2.7")
    assert report["numpy"] == "0.0-fake"
    side = side_from_report(report, "target")
    assert side.ok
    assert [s.n for s in side.sweeps["float32"].sizes] == [8, 12]

    ctx = ctx_factory(env={"PYTHONPATH": str(tmp_path / "nothing")})
    report, result = run_script(ctx, str(python), make_plan(0.1, [8]), 60.0)
    assert report.get("stage") == "import"
    assert "No module named numpy" in report["error"]
    report, result = run_script(ctx, str(python), {"mode": "theano", "theano": {"n": 8}}, 60.0)
    assert report["stage"] == "import" and "No module named" in report["error"]


def test_plan_is_plain_json() -> None:
    plan = make_plan(3.0, [512])
    assert json.loads(json.dumps(plan)) == plan
    assert plan["shares"]["float32"] > plan["shares"]["float64"]
