"""The ``bench`` facts table: plain numbers and booleans the rules in rules/bench.toml
match on. Everything a rule needs to compare is computed here (ratios, "is a thread
variable limiting"), so the rules stay simple conditions and no derived fact is needed.

Keys (all optional: a figure that was not measured is absent, never None):

    bench.seconds, bench.elapsed_s                 the budget and the time taken
    bench.machine.* / bench.target.*               per numpy: ok, error, python, executable,
        numpy, blas, blas_version, blas_library, blas_core, threads, threads_source,
        float32_gflops, float32_n, float64_gflops, float64_n, n512_float32_gflops,
        f32_over_f64; bench.target.same_as_machine
    bench.target_vs_machine                        target float32 / machine float32
    bench.target_slowdown                          machine float32 / target float32
    bench.f32_over_f64                             float32 / float64 rate (target's, else machine's)
    bench.cores, bench.threads                     peak's cores; the BLAS threads the target uses
    bench.threads_limited, bench.threads_limit_var, bench.threads_limit_value,
    bench.threads_limit_blas, bench.threads_limit_float32_gflops   (of the numpy measured)
    bench.env                                      BLAS / OpenMP variables as seen (never changed)
    bench.peak.*                                   gflops_float32, gflops_float64, vector, uncertain,
                                                   fraction_float32 (machine / peak)
    bench.theano.*                                 ran, ok, stage, message, op, op_kind, cthunk,
        floatx, device, ldflags, gflops, n, vs_numpy, speedup_vs_machine,
        capi_warning, ldflags_fix
    bench.gpu.*                                    name, peak_tflops, speedup_low, speedup_high, seed_bar
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.bench.gemm import SEED_N, Side
from legacydoc.bench.peak import Peak
from legacydoc.bench.theano_bench import TheanoRun


def _r(value: Optional[float], digits: int = 1) -> Optional[float]:
    return round(value, digits) if value is not None else None


def _clean(table: Mapping[str, Any]) -> dict[str, Any]:
    """TOML-safe: no None anywhere."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        if value is None:
            continue
        out[key] = _clean(value) if isinstance(value, Mapping) else value
    return out


def side_facts(side: Side) -> dict[str, Any]:
    f32, f64 = side.headline("float32"), side.headline("float64")
    seed = side.sweeps["float32"].at(SEED_N) if "float32" in side.sweeps else None
    ratio = side.f32_over_f64()
    return {
        "ok": side.ok,
        "error": side.error or None,
        "python": side.python_version or None,
        "executable": side.executable or None,
        "numpy": side.numpy or None,
        "blas": side.blas.get("family") or side.blas.get("config_name"),
        "blas_version": side.blas.get("version"),
        "blas_library": side.blas.get("library"),
        # the kernel set OpenBLAS picked: an OpenBLAS older than the CPU falls back to old ones
        "blas_core": side.blas.get("corename"),
        "threads": side.threads,
        "threads_source": side.blas.get("threads_source"),
        "float32_gflops": _r(f32.gflops.median) if f32 else None,
        "float32_n": f32.n if f32 else None,
        "float64_gflops": _r(f64.gflops.median) if f64 else None,
        "float64_n": f64.n if f64 else None,
        "n512_float32_gflops": _r(seed.gflops.median) if seed else None,
        "f32_over_f64": _r(ratio, 2),
    }


def threads_limit(side: Optional[Side], cores: Optional[int]) -> dict[str, Any]:
    """Does an environment variable hold the BLAS below the cores it could use?"""
    if side is None or not cores:
        return {}
    var, value = side.blas.get("threads_env_var"), side.blas.get("threads_env_value")
    if not isinstance(var, str) or not isinstance(value, int) or isinstance(value, bool):
        return {"threads_limited": False}
    # the variable counts only if the library really runs fewer threads than cores
    # (a pthreads OpenBLAS honours OMP_NUM_THREADS, an MKL may not; its own answer wins)
    threads = side.threads
    limited = value < cores and (threads is None or threads < cores)
    f32 = side.headline("float32")
    return {
        "threads_limited": limited,
        "threads_limit_var": var,
        "threads_limit_value": value,
        # which numpy that was (the target's when it ran, else legacydoc's), for the text
        "threads_limit_blas": side.blas.get("family") or side.blas.get("config_name"),
        "threads_limit_float32_gflops": _r(f32.gflops.median) if f32 else None,
    }


def theano_facts(run: Optional[TheanoRun], machine: Side) -> dict[str, Any]:
    if run is None:
        return {"ran": False}
    machine_f32 = machine.headline("float32")
    vs_numpy = None
    if run.result is not None and run.numpy_result is not None and run.numpy_result.gflops.median > 0:
        vs_numpy = run.result.gflops.median / run.numpy_result.gflops.median
    fix = ""
    if run.ldflags_suggestion:
        # The note first: a line after the config lines would be pasted into .theanorc too.
        fix = ("Link the BLAS library numpy itself loaded (or set THEANO_FLAGS=blas.ldflags=\"%s\"):\n"
               "[blas]\nldflags = %s" % (run.ldflags_suggestion, run.ldflags_suggestion))
    return {
        "ran": True,
        "ok": run.ok,
        "stage": run.stage,
        "message": run.message() or None,
        "op": run.op or None,
        "op_kind": run.op_kind or None,
        "cthunk": run.cthunk,
        "floatx": run.config.get("floatX"),
        "device": run.config.get("device"),
        "ldflags": run.config.get("blas.ldflags"),
        "n": run.n or None,
        "gflops": _r(run.result.gflops.median) if run.result else None,
        "vs_numpy": _r(vs_numpy, 2),
        "speedup_vs_machine": _r(run.speedup_over(machine_f32.gflops.median if machine_f32 else None), 2),
        "capi_warning": run.capi_warning,
        # a whole fix line, or "" so the rule's templated step drops out
        "ldflags_fix": fix,
    }


def build(
    machine: Side,
    target: Optional[Side],
    peak: Peak,
    theano: Optional[TheanoRun] = None,
    gpus: Optional[list[dict[str, Any]]] = None,
    seconds: float = 0.0,
    elapsed_s: float = 0.0,
) -> dict[str, Any]:
    """The ``bench`` table."""
    table: dict[str, Any] = {"seconds": seconds, "elapsed_s": round(elapsed_s, 2)}
    table["machine"] = side_facts(machine)
    if target is not None:
        table["target"] = side_facts(target)
        table["target"]["same_as_machine"] = target.same_as_machine
        m32, t32 = machine.headline("float32"), target.headline("float32")
        if m32 and t32 and m32.gflops.median > 0 and t32.gflops.median > 0:
            table["target_vs_machine"] = round(t32.gflops.median / m32.gflops.median, 2)
            table["target_slowdown"] = round(m32.gflops.median / t32.gflops.median, 1)
    main = target if target is not None and target.ok else machine
    table["f32_over_f64"] = _r(main.f32_over_f64(), 2)
    table["cores"] = peak.cores
    table["threads"] = main.threads
    table.update(threads_limit(main, peak.cores))
    table["env"] = dict(main.env)
    m32 = machine.headline("float32")
    table["peak"] = {
        "gflops_float32": _r(peak.gflops_f32),
        "gflops_float64": _r(peak.gflops_f64),
        "vector": peak.vector,
        "uncertain": peak.uncertain,
        "fraction_float32": _r(peak.fraction(m32.gflops.median if m32 else None), 3),
    }
    table["theano"] = theano_facts(theano, machine)
    if gpus:
        first = gpus[0]
        table["gpu"] = {
            "name": first.get("name"),
            "peak_tflops": first.get("peak_tflops"),
            "speedup_low": first.get("speedup_low"),
            "speedup_high": first.get("speedup_high"),
            "seed_bar": first.get("seed_bar_3_5x"),
        }
    return _clean(table)
