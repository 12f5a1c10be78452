"""The bench's pure layers: parsing reports and options, the peak estimate, what a figure
means, the bench facts and the rules on them, and the renderers. No timing here."""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest

from legacydoc.bench import facts as bench_facts
from legacydoc.bench import meaning, noise, peak
from legacydoc.bench.command import BenchOptions, BenchReport, gpu_names, target_interpreter
from legacydoc.bench.gemm import Side, make_plan, parse_sizes, side_from_report, split_budget
from legacydoc.bench.render import render_json, render_text
from legacydoc.bench.theano_bench import TheanoRun, run_from_report
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules
from legacydoc.facts import new_record

RULES = load_rules()


def size(n: int, gflops: float, reps: int = 10) -> dict[str, Any]:
    ms = 2.0 * n ** 3 / (gflops * 1e9) * 1e3
    return {"n": n, "reps": reps, "gflops": {"median": gflops, "best": gflops * 1.1, "worst": gflops * 0.8},
            "ms": {"median": ms, "best": ms / 1.1, "worst": ms / 0.8}, "spread_pct": 30.0, "warmup_ms": 5.0}


def report(f32: list, f64: list, numpy: str = "1.19.5", blas: Optional[dict] = None, **extra) -> dict:
    out = {
        "legacydoc_bench_report": 1,
        "python": {"version": "3.7.16", "executable": "/envs/old/bin/python"},
        "numpy": numpy,
        "blas": blas or {"family": "openblas", "version": "0.3.13", "threads": 8, "threads_source": "library"},
        "env": {},
        "results": {"float32": {"sizes": f32, "stopped": "rate stopped rising"},
                    "float64": {"sizes": f64, "stopped": "rate stopped rising"}},
    }
    out.update(extra)
    return out


def side(label: str, f32: float, f64: float, **kw) -> Side:
    return side_from_report(report([size(512, f32 * 0.7), size(1024, f32)], [size(512, f64 * 0.7), size(1024, f64)], **kw), label)


# --- reports and options -------------------------------------------------------------------


def test_side_headline_is_the_best_sizes_median_and_512_is_kept() -> None:
    s = side("machine", 100.0, 50.0)
    assert s.ok
    assert s.headline("float32").n == 1024 and s.headline("float32").gflops.median == 100.0
    assert s.sweeps["float32"].at(512).gflops.median == pytest.approx(70.0)
    assert s.f32_over_f64() == pytest.approx(2.0)
    assert s.threads == 8
    assert s.blas_label() == "openblas 0.3.13"
    out = s.to_dict()
    for dtype in ("float32", "float64"):
        assert set(out[dtype]["gflops"]) == set(out[dtype]["ms"]) == {"median", "best", "worst"}
        assert out[dtype]["n512"]["n"] == 512


@pytest.mark.parametrize("garbage", [{}, {"results": "x"}, {"results": {"float32": {"sizes": [{"n": "a"}, 3]}}},
                                     {"error": "ImportError: No module named numpy"}, {"python": [], "blas": 4, "env": 5}])
def test_garbled_reports_become_errors_not_exceptions(garbage: dict) -> None:
    s = side_from_report(garbage, "target")
    assert not s.ok and s.error


def test_parse_sizes() -> None:
    assert parse_sizes("512,1024 2048,512") == [512, 1024, 2048]
    for bad in ("", "abc", "4", "100000", "512,x"):
        with pytest.raises(ValueError):
            parse_sizes(bad)


def test_budget_split_and_plan() -> None:
    assert split_budget(6.0, True) == (3.0, 3.0)
    assert split_budget(6.0, False) == (6.0, 0.0)
    plan = make_plan(3.0, [64])
    assert plan["budget_s"] == 3.0 and plan["sizes"] == [64] and plan["dtypes"] == ["float32", "float64"]
    assert "max_bytes" not in plan
    # three matrices may take a quarter of the memory available, never more than 1.5 GiB
    assert make_plan(3.0, available_mib=2000)["max_bytes"] == 500 * 1024 * 1024
    assert make_plan(3.0, available_mib=64000)["max_bytes"] == 1536 * 1024 * 1024


def test_theano_report_parsing_and_messages() -> None:
    missing = run_from_report({"stage": "import", "error": "ModuleNotFoundError: No module named 'theano'",
                               "python": {"executable": "/envs/old/bin/python"}})
    assert not missing.ok
    assert missing.message() == "Theano is not installed in the target interpreter (/envs/old/bin/python)."
    broken = run_from_report({"stage": "import", "error": "AttributeError: module 'numpy' has no attribute 'bool'."})
    assert broken.message().startswith("Theano cannot be imported in the target interpreter: AttributeError")
    failed = run_from_report({"stage": "compile", "error": "Compilation failed: /usr/bin/ld: cannot find -lblas"})
    assert "could not compile" in failed.message() and "-lblas" in failed.message()
    done = run_from_report({"stage": "done", "op": "Gemm", "op_kind": "numpy_c_api", "cthunk": True, "n": 64,
                            "result": size(64, 10.0), "numpy_result": size(64, 20.0),
                            "warnings": ["WARNING (theano.tensor.blas): Using NumPy C-API based implementation for BLAS functions."],
                            "config": {"blas.ldflags": "", "floatX": "float64"}})
    assert done.ok and done.capi_warning and done.message() == ""
    assert "NumPy C-API fallback" in done.op_text
    assert run_from_report({"stage": "done"}).error == "the run produced no timing"


# --- peak -------------------------------------------------------------------------------

CPUINFO_2x4_HT = "\n\n".join(
    "processor\t: %d\nphysical id\t: %d\ncore id\t\t: %d\ncpu cores\t: 4\n" % (i, i // 8, (i % 8) % 4)
    for i in range(16)
)


def test_physical_cores_from_cpuinfo() -> None:
    assert peak.parse_physical_cores(CPUINFO_2x4_HT) == 8
    assert peak.parse_physical_cores("processor : 0\ncpu cores : 6\n\nprocessor : 1\ncpu cores : 6\n") == 6
    assert peak.parse_physical_cores("garbage\x00\n:::") is None
    assert peak.parse_physical_cores("") is None


def test_clock_sources() -> None:
    assert peak.parse_model_mhz("Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz") == 3400.0
    assert peak.parse_model_mhz("AMD EPYC") is None
    assert peak.parse_cpufreq_khz("4200000\n") == 4200.0
    assert peak.parse_cpufreq_khz("n/a") is None


@pytest.mark.parametrize("flags, model, vector, per_cycle", [
    (["sse2", "avx", "avx2", "fma", "avx512f"], "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", "avx512", 64),
    (["sse2", "avx", "avx2", "fma", "avx512f", "hypervisor"], "AMD EPYC", "avx512_256", 32),
    (["sse2", "avx", "avx2", "fma"], "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz", "avx2_fma", 32),
    (["sse2", "avx"], "Intel(R) Core(TM) i7-2600 CPU @ 3.40GHz", "avx", 16),
    (["sse2"], "Intel(R) Core(TM)2 Duo CPU E8500 @ 3.16GHz", "sse", 8),
    (["AVX", "AVX2", "FMA3", "SSE2"], "Intel64 Family 6 Model 94 Stepping 3, GenuineIntel", "avx2_fma", 32),
])
def test_vector_class(flags: list, model: str, vector: str, per_cycle: int) -> None:
    found, _notes = peak.vector_class(flags, model)
    assert found == vector
    assert peak.VECTOR_CLASSES[found][0] == per_cycle


def test_peak_of_a_known_workstation_is_certain_enough() -> None:
    system = {"os": "linux", "logical_cores": 16, "cpu_model": "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz",
              "cpu_flags": ["sse2", "avx", "avx2", "fma", "avx512f"]}
    est = peak.estimate(system, CPUINFO_2x4_HT, "")
    assert est.cores == 8 and est.mhz == 2400.0
    assert est.gflops_f32 == pytest.approx(8 * 2.4 * 64)
    assert est.gflops_f64 == pytest.approx(8 * 2.4 * 32)
    assert est.fraction(614.4) == pytest.approx(0.5)
    assert any("base clock" in n for n in est.notes)


def test_peak_says_when_it_is_uncertain_or_unknown() -> None:
    vm = peak.estimate({"logical_cores": 2, "cpu_model": "AMD EPYC", "cpu_mhz": 2596,
                        "cpu_flags": ["sse2", "avx", "avx2", "fma", "avx512f", "hypervisor"]})
    assert vm.uncertain and vm.gflops_f32 == pytest.approx(2 * 2.596 * 32)
    assert any("virtual machine" in n for n in vm.notes)
    assert any("physical core count unknown" in n for n in vm.notes)
    windows = peak.estimate({"logical_cores": 8, "cpu_model": "Intel64 Family 6 Model 94 Stepping 3, GenuineIntel"},
                            numpy_features=["SSE2", "AVX", "AVX2", "FMA3"])
    assert windows.vector == "avx2_fma" and windows.gflops_f32 is None
    assert any("clock is unknown" in n for n in windows.notes)
    assert windows.to_dict()["gflops"] == {}
    limited = peak.estimate({"logical_cores": 16, "cpu_mhz": 3000, "cpu_flags": ["avx2", "fma"]}, CPUINFO_2x4_HT,
                            affinity_cpus=2)
    assert limited.cores == 2


# --- meaning ------------------------------------------------------------------------------


def test_the_seeds_conversion() -> None:
    assert meaning.conv_flop_per_image() == pytest.approx(7.55e7, rel=1e-3)
    assert meaning.conv_batch_gflop() == pytest.approx(22.65, abs=0.01)
    assert meaning.conv_layer_seconds(210.6) == pytest.approx(0.1075, abs=1e-3)  # seed: 0.11 s
    # 12 layers, 500 batches an epoch
    assert meaning.epoch_seconds(210.6) == pytest.approx(0.1075 * 12 * 500, rel=1e-2)
    assert meaning.conv_layer_seconds(0) is None
    assert meaning.describe_seconds(0.1075) == "0.11 s"
    assert meaning.describe_seconds(645) == "11 min"
    assert meaning.describe_seconds(5 * 3600) == "5.0 h"


def test_gpu_speedup_from_the_knowledge_table() -> None:
    # the seed's machine: GTX 1660 SUPER (5.0 TFLOPS) over its CPU's 210.6 GFLOPS
    found = meaning.gpu_speedups(["NVIDIA GeForce GTX 1660 SUPER", "NVIDIA GeForce GTX 1660 SUPER", "Unknown Card"], 210.6)
    assert len(found) == 1
    gpu = found[0]
    assert 4.5 < gpu.tflops < 5.5
    assert gpu.low == pytest.approx(gpu.tflops * 1000 * 0.25 / 210.6)
    assert gpu.bar == "plausible"  # low end ~6x: the seed's 3-5x bar holds (it measured ~15x)
    weak = meaning.gpu_speedups(["x"], 2000.0, peak_of=lambda name: 2.0)[0]
    assert weak.bar == "unlikely"
    assert meaning.gpu_speedups(["x"], None, peak_of=lambda name: 2.0) == []


# --- facts and the rules on them ------------------------------------------------------


def fired(record: dict) -> set[str]:
    return {diag.id for diag in run_check(record, RULES).every()}


def theano_run(kind: str, ldflags: str = "", suggestion: str = "") -> TheanoRun:
    return run_from_report({"stage": "done", "op": "Gemm", "op_kind": kind, "cthunk": True, "n": 64,
                            "result": size(64, 30.0), "numpy_result": size(64, 50.0),
                            "config": {"blas.ldflags": ldflags, "floatX": "float64", "device": "cpu"},
                            "blas": {"ldflags_suggestion": suggestion} if suggestion else {}})


def test_facts_table_is_toml_safe_and_carries_the_ratios() -> None:
    machine, target = side("machine", 100.0, 50.0), side("target", 4.0, 2.0, numpy="1.11.0")
    est = peak.estimate({"logical_cores": 8, "cpu_mhz": 3000, "cpu_flags": ["avx2", "fma"]})
    table = bench_facts.build(machine, target, est, None, None, 6.0, 5.5)
    assert table["target_vs_machine"] == 0.04 and table["target_slowdown"] == 25.0
    assert table["machine"]["float32_gflops"] == 100.0 and table["target"]["numpy"] == "1.11.0"
    assert table["theano"] == {"ran": False}
    assert table["peak"]["fraction_float32"] == pytest.approx(100.0 / (8 * 3.0 * 32), abs=1e-3)

    def no_none(value: Any) -> None:
        assert value is not None
        if isinstance(value, dict):
            for v in value.values():
                no_none(v)

    no_none(table)
    from legacydoc import facts

    facts.loads(facts.dumps(dict(new_record({}), bench=table)))


def test_slow_target_numpy_fires_ld610_and_a_fast_one_does_not() -> None:
    machine = side("machine", 100.0, 50.0)
    est = peak.estimate({"logical_cores": 8})
    slow = bench_facts.build(machine, side("target", 4.0, 2.0), est)
    assert "LD610" in fired(dict(new_record({}), bench=slow))
    fast = bench_facts.build(machine, side("target", 95.0, 47.0), est)
    assert "LD610" not in fired(dict(new_record({}), bench=fast))


def test_theano_fallback_fires_ld611_with_the_linking_fix_and_folds_ld600() -> None:
    machine = side("machine", 100.0, 50.0)
    est = peak.estimate({"logical_cores": 8})
    run = theano_run("numpy_c_api", "", "-L/v/numpy.libs -l:libopenblasp-r0-x.so")
    record = new_record({"packages": {"theano": {"name": "Theano", "version": "1.0.5"}},
                         "theano_config": {"flags": {"THEANO_FLAGS": "blas.ldflags="}}})
    record["bench"] = bench_facts.build(machine, None, est, run)
    result = run_check(record, RULES)
    ld611 = [d for d in result.diagnoses if d.id == "LD611"]
    assert ld611, [d.id for d in result.diagnoses]
    assert "LD600" in ld611[0].explains
    assert any("-l:libopenblasp-r0-x.so" in step for step in ld611[0].fix)
    linked = bench_facts.build(machine, None, est, theano_run("blas", "-lopenblas"))
    assert "LD611" not in fired(dict(new_record({}), bench=linked))
    # no suggestion: the templated fix step drops out instead of printing '?'
    record["bench"] = bench_facts.build(machine, None, est, theano_run("numpy_c_api"))
    diag = [d for d in run_check(record, RULES).diagnoses if d.id == "LD611"][0]
    assert all(step.strip() and step != "?" for step in diag.fix)


def test_thread_variable_limit_fires_ld613() -> None:
    blas = {"family": "openblas", "threads": 1, "threads_source": "library", "threads_env_var": "OPENBLAS_NUM_THREADS",
            "threads_env_value": 1}
    machine = side("machine", 20.0, 10.0, blas=blas)
    est = peak.estimate({"logical_cores": 8, "cpu_flags": ["avx2", "fma"]}, CPUINFO_2x4_HT)
    table = bench_facts.build(machine, None, est)
    assert table["threads_limited"] is True and table["threads_limit_var"] == "OPENBLAS_NUM_THREADS"
    assert "LD613" in fired(dict(new_record({}), bench=table))
    enough = dict(blas, threads=8, threads_env_value=8)
    table = bench_facts.build(side("machine", 20.0, 10.0, blas=enough), None, est)
    assert table["threads_limited"] is False
    assert "LD613" not in fired(dict(new_record({}), bench=table))


def test_float64_in_use_fires_ld612_only_with_theano_and_a_measured_gap() -> None:
    machine = side("machine", 100.0, 50.0)
    est = peak.estimate({"logical_cores": 8})
    theano_pkg = {"packages": {"theano": {"name": "Theano", "version": "1.0.5"}}}
    record = new_record(theano_pkg)
    record["bench"] = bench_facts.build(machine, None, est, theano_run("blas", "-lopenblas"))
    assert "LD612" in fired(record)  # the run said floatX=float64
    record["bench"] = bench_facts.build(side("machine", 100.0, 95.0), None, est)
    assert "LD612" not in fired(record)  # float32 barely faster: nothing to gain


# --- rendering ---------------------------------------------------------------------------


def bench_report(target: Optional[Side] = None, theano: Optional[TheanoRun] = None) -> BenchReport:
    machine = side("machine", 100.0, 50.0)
    est = peak.estimate({"logical_cores": 8, "cpu_mhz": 3000, "cpu_flags": ["avx2", "fma", "hypervisor"]})
    gpus = meaning.meaning(100.0, ["NVIDIA GeForce GTX 1660 SUPER"])
    table = bench_facts.build(machine, target, est, theano, gpus["gpus"], 6.0, 5.0)
    record = dict(new_record({"packages": {"theano": {"name": "Theano", "version": "1.0.5"}}}), bench=table)
    diagnoses = [d for d in run_check(record, RULES).diagnoses if d.area == "performance"]
    verdict = noise.judge(list(machine.sweeps.values()), noise.Conditions(), noise.Conditions(), None)
    return BenchReport(options=BenchOptions(), machine=machine, target=target, peak=est, meaning=gpus,
                       theano=theano, noise=verdict, table=table, diagnoses=diagnoses,
                       target_python="/envs/old/bin/python",
                       target_selected_by="--python", probe_s=0.5, elapsed_s=6.2)


def test_json_has_every_figure_keyed_by_dtype_for_both_numpys() -> None:
    doc = json.loads(render_json(bench_report(side("target", 4.0, 2.0), theano_run("numpy_c_api"))))
    for which in ("machine", "target"):
        for dtype in ("float32", "float64"):
            block = doc[which][dtype]
            assert set(block["gflops"]) == {"median", "best", "worst"}
            assert set(block["ms"]) == {"median", "best", "worst"}
            assert block["n"] == 1024 and block["n512"]["n"] == 512
    assert doc["peak"]["gflops"]["float32"] == pytest.approx(8 * 3.0 * 32)
    assert doc["peak"]["measured_fraction"]["float32"] == pytest.approx(100 / 768, abs=1e-3)
    assert doc["meaning"]["gpus"][0]["seed_bar_3_5x"] in ("plausible", "possible", "unlikely")
    assert doc["theano"]["op_kind"] == "numpy_c_api"
    assert {d["id"] for d in doc["diagnoses"]} >= {"LD610", "LD611"}
    assert doc["facts"]["bench"]["target_slowdown"] == 25.0


def test_text_reads_like_a_short_table() -> None:
    text = render_text(bench_report(side("target", 4.0, 2.0), theano_run("numpy_c_api")))
    assert "this machine (legacydoc's numpy)" in text and "target interpreter" in text
    assert "float32 sustained   100.0 GFLOPS @ n=1024" in text
    assert "float32 @ n=512" in text
    assert "uncertain because" in text and "virtual machine" in text
    assert "conv layer" in text and "GTX 1660 SUPER" in text
    assert "NumPy C-API fallback" in text
    assert "LD610" in text and "LD611" in text
    assert max(len(line) for line in text.splitlines() if "Fix" not in line) < 200


def test_text_with_a_failed_target_and_theano() -> None:
    failed = Side(label="target", error="numpy cannot be imported there: ImportError: No module named numpy")
    theano = run_from_report({"stage": "import", "error": "ImportError: No module named theano"})
    text = render_text(bench_report(failed, theano))
    assert "target interpreter: numpy cannot be imported there" in text
    assert "Theano is not installed in the target interpreter" in text


def test_helpers_read_the_probe_facts() -> None:
    record = {"python": {"executable": "/e/bin/python", "selected_by": "VIRTUAL_ENV", "probe_ok": True},
              "gpu": {"devices": [{"name": "NVIDIA H200"}, {"index": 1}]}}
    assert target_interpreter(record) == ("/e/bin/python", "VIRTUAL_ENV", "")
    assert gpu_names(record) == ["NVIDIA H200"]
    broken = {"python": {"executable_requested": "/x/python", "probe_ok": False, "error": "exit code 1"}}
    assert target_interpreter(broken)[2].startswith("the target interpreter could not be probed")
    assert target_interpreter({})[2] == "no target interpreter found"


def test_run_bench_with_an_unusable_target_still_measures_the_machine(tmp_path) -> None:
    pytest.importorskip("numpy")
    from legacydoc.bench.command import run_bench
    from legacydoc.probes.context import ProbeContext

    record = new_record({
        "python": {"executable_requested": "/nowhere/python", "selected_by": "--python", "probe_ok": False,
                   "error": "could not run the interpreter: FileNotFoundError"},
        "system": {"os": "linux", "logical_cores": 2, "cpu_flags": ["avx2", "fma"], "cpu_mhz": 3000},
    })
    result = run_bench(ProbeContext(cwd=tmp_path), BenchOptions(seconds=0.1, sizes=[16], theano=True), record=record)
    assert result.machine.ok and result.machine.headline("float32").n == 16
    assert not result.target.ok and result.target.error.startswith("the target interpreter could not be probed")
    assert not result.theano.ok and "could not be probed" in result.theano.message()
    text = render_text(result)
    assert "target interpreter: the target interpreter could not be probed" in text
    json.loads(render_json(result))
