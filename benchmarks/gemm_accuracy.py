"""How close is `legacydoc bench`'s default float32 figure to a careful measurement?

In one run, on one machine, with legacydoc's own numpy:

1. a reference harness, written independently of legacydoc's timing code, scans every
   size from 256 to 4096 (stopping where one size would take far longer than allowed):
   three warm-up products, then at least 10 and for at least ``--per-size`` seconds of
   timed products each; the median GFLOPS per size. The two best sizes are kept.
2. ``--runs`` pairs, each: the reference again at those two sizes (best median of the
   two), then legacydoc's default figure: the float32 headline of the machine-side
   measurement exactly as `legacydoc bench` makes it by default (DEFAULT_SECONDS, split
   with a target interpreter, i.e. the smaller share). Pairing keeps both under the same
   conditions when the machine's load drifts.

It prints the ratio (median legacydoc figure / median reference; the goal is >= 0.9),
the median of the per-pair ratios, the run-to-run spread of legacydoc's figure
((max - min) / median over the runs), the load average before and after, and last one
JSON line with every number.

    python benchmarks/gemm_accuracy.py [--runs 5] [--per-size 2] [--json-only]

No assertion here and none in the test suite: timings depend on the machine and on
what else runs on it; this script is how the README's figures were obtained.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from legacydoc.bench.gemm import DEFAULT_SECONDS, make_plan, run_in_process, split_budget  # noqa: E402

REFERENCE_SIZES = (256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)


def reference_rate(n: int, per_size_s: float, min_reps: int = 10) -> float:
    """Median GFLOPS of float32 n x n products: 3 warm-ups, then >= min_reps and
    >= per_size_s seconds of timed products, each timed on its own."""
    rng = np.random.default_rng(n)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    c = np.empty((n, n), dtype=np.float32)
    for _ in range(3):
        np.matmul(a, b, out=c)
    samples = []
    began = time.perf_counter()
    while len(samples) < min_reps or time.perf_counter() - began < per_size_s:
        t0 = time.perf_counter()
        np.matmul(a, b, out=c)
        samples.append(time.perf_counter() - t0)
    return 2.0 * n ** 3 / statistics.median(samples) / 1e9


def scan(per_size_s: float) -> dict[int, float]:
    rates: dict[int, float] = {}
    for n in REFERENCE_SIZES:
        # skip a size whose minimum work would take far longer than allowed
        if rates:
            last_n = max(rates)
            predicted = 2.0 * n ** 3 / (rates[last_n] * 1e9) * 13
            if predicted > 4 * per_size_s:
                break
        rates[n] = reference_rate(n, per_size_s)
    return rates


def legacydoc_default() -> dict:
    machine_s, _target_s = split_budget(DEFAULT_SECONDS, with_target=True)
    side = run_in_process(make_plan(machine_s))
    head = side.headline("float32")
    if head is None:
        raise SystemExit("legacydoc's measurement failed: %s" % side.error)
    return {"gflops": head.gflops.median, "n": head.n, "reps": head.reps, "spread_pct": head.spread_pct,
            "threads": side.threads, "blas": side.blas_label()}


def loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="pairs of reference + legacydoc default runs (default 5)")
    parser.add_argument("--per-size", type=float, default=2.0, help="reference seconds per size (default 2)")
    parser.add_argument("--json-only", action="store_true")
    args = parser.parse_args()

    started = time.perf_counter()
    load_before = loadavg()
    rates = scan(args.per_size)
    top = sorted(rates, key=rates.get, reverse=True)[:2]
    pairs = []
    for _ in range(args.runs):
        ref = max(reference_rate(n, args.per_size) for n in top)
        pairs.append({"reference": round(ref, 2), **legacydoc_default()})
    load_after = loadavg()
    figures = [p["gflops"] for p in pairs]
    refs = [p["reference"] for p in pairs]
    mid, ref_mid = statistics.median(figures), statistics.median(refs)
    result = {
        "machine": {"cpu": platform.processor() or platform.machine(), "logical_cpus": os.cpu_count(),
                    "python": platform.python_version(), "numpy": np.__version__, "blas": pairs[0]["blas"],
                    "threads": pairs[0]["threads"]},
        "default_seconds": DEFAULT_SECONDS,
        "machine_share_s": split_budget(DEFAULT_SECONDS, with_target=True)[0],
        "scan": {str(k): round(v, 2) for k, v in rates.items()},
        "reference_sizes": top,
        "pairs": pairs,
        "reference_median_gflops": round(ref_mid, 2),
        "legacydoc_median_gflops": round(mid, 2),
        "ratio": round(mid / ref_mid, 3),
        "ratio_of_pairs_median": round(statistics.median(f / r for f, r in zip(figures, refs)), 3),
        "run_to_run_spread_pct": round(100.0 * (max(figures) - min(figures)) / mid, 1),
        "reference_spread_pct": round(100.0 * (max(refs) - min(refs)) / ref_mid, 1),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "goal": 0.9,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    if not args.json_only:
        print("reference scan (median GFLOPS per size, >= %.0f s each): %s" % (
            args.per_size, ", ".join("%d: %.1f" % (k, v) for k, v in rates.items())))
        for i, pair in enumerate(pairs, 1):
            print("pair %d: reference %.1f GFLOPS (best of n=%s), legacydoc default %.1f GFLOPS at n=%d "
                  "(%d runs, spread %.0f%%)"
                  % (i, pair["reference"], "/".join(map(str, top)), pair["gflops"], pair["n"], pair["reps"],
                     pair["spread_pct"]))
        print("ratio legacydoc / reference: %.3f (pairs: %.3f; goal >= 0.9: %s)" % (
            result["ratio"], result["ratio_of_pairs_median"], "met" if result["ratio"] >= 0.9 else "NOT met"))
        print("run-to-run spread of legacydoc's figure: %.1f%% over %d runs (reference: %.1f%%)" % (
            result["run_to_run_spread_pct"], len(pairs), result["reference_spread_pct"]))
        print("load average before %s, after %s" % (load_before, load_after))
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
