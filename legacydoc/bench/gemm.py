"""GEMM results as data, how the time budget is shared, and the in-process run.

The timing loop lives in :mod:`legacydoc.bench.target_bench_script` (it must also run on
Python 2.7 inside the target interpreter); this module turns its JSON-shaped reports
into typed results and runs it against legacydoc's own numpy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from legacydoc.factschema.kinds import is_int
from legacydoc.structs import field, struct

DTYPES: tuple[str, ...] = ("float32", "float64")
DEFAULT_SECONDS = 6.0
MAX_SECONDS = 600.0
MIN_N = 8
MAX_N = 16384
SEED_N = 512  # the seed post's size, always shown for comparison
# float32 is the headline (what Theano users set floatX to), so it gets a bit more time.
DTYPE_SHARES: dict[str, float] = {"float32": 0.55, "float64": 0.45}


@struct(frozen=True)
class Figure:
    """One quantity for the median, best and worst timed run."""

    median: float
    best: float
    worst: float

    def to_dict(self) -> dict[str, float]:
        return {"median": self.median, "best": self.best, "worst": self.worst}


@struct(frozen=True)
class SizeResult:
    n: int
    reps: int
    gflops: Figure
    ms: Figure
    spread_pct: float
    warmup_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "reps": self.reps,
            "gflops": self.gflops.to_dict(),
            "ms": self.ms.to_dict(),
            "spread_pct": self.spread_pct,
            "warmup_ms": self.warmup_ms,
        }


@struct
class Sweep:
    """Every size measured for one dtype, and why the sweep stopped."""

    dtype: str
    sizes: list[SizeResult] = field(default_factory=list)
    stopped: str = ""
    budget_s: float = 0.0
    elapsed_s: float = 0.0
    error: str = ""

    @property
    def headline(self) -> Optional[SizeResult]:
        """The best size's result: the highest median rate (the sustained figure)."""
        if not self.sizes:
            return None
        return max(self.sizes, key=lambda s: s.gflops.median)

    def at(self, n: int) -> Optional[SizeResult]:
        for size in self.sizes:
            if size.n == n:
                return size
        return None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stopped": self.stopped,
            "budget_s": self.budget_s,
            "elapsed_s": self.elapsed_s,
            "sizes": [s.to_dict() for s in self.sizes],
        }
        head = self.headline
        if head is not None:
            # the shape: figures keyed by dtype, with median / best / worst
            out.update({"n": head.n, "reps": head.reps, "gflops": head.gflops.to_dict(), "ms": head.ms.to_dict(),
                        "spread_pct": head.spread_pct})
            seed = self.at(SEED_N)
            if seed is not None:
                out["n512"] = seed.to_dict()
        if self.error:
            out["error"] = self.error
        return out


@struct
class Side:
    """One numpy: legacydoc's own ("machine") or the target interpreter's ("target")."""

    label: str
    python_version: str = ""
    executable: str = ""
    numpy: str = ""
    blas: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    cpu_features: list[str] = field(default_factory=list)  # numpy's own CPU detection
    sweeps: dict[str, Sweep] = field(default_factory=dict)
    error: str = ""
    elapsed_s: float = 0.0
    same_as_machine: bool = False

    @property
    def ok(self) -> bool:
        return not self.error and any(s.headline for s in self.sweeps.values())

    @property
    def threads(self) -> Optional[int]:
        value = self.blas.get("threads")
        return value if is_int(value) else None

    def headline(self, dtype: str) -> Optional[SizeResult]:
        sweep = self.sweeps.get(dtype)
        return sweep.headline if sweep else None

    def f32_over_f64(self) -> Optional[float]:
        f32, f64 = self.headline("float32"), self.headline("float64")
        if f32 is None or f64 is None or f64.gflops.median <= 0:
            return None
        return f32.gflops.median / f64.gflops.median

    def blas_label(self) -> str:
        """'openblas 0.3.17 (Zen)' or what is known of it."""
        parts = [str(self.blas.get("family") or self.blas.get("config_name") or "unknown")]
        if self.blas.get("version"):
            parts.append(str(self.blas["version"]))
        label = " ".join(parts)
        if self.blas.get("corename"):
            label += " (%s)" % self.blas["corename"]
        return label

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "python": self.python_version,
            "executable": self.executable,
            "numpy": self.numpy,
            "blas": dict(self.blas),
            "threads": self.threads,
            "threads_source": self.blas.get("threads_source"),
            "env": dict(self.env),
            "cpu_features": list(self.cpu_features),
            "elapsed_s": self.elapsed_s,
            "same_as_machine": self.same_as_machine,
        }
        for dtype, sweep in self.sweeps.items():
            out[dtype] = sweep.to_dict()
        if self.error:
            out["error"] = self.error
        return {k: v for k, v in out.items() if v is not None}


# --- plans ---------------------------------------------------------------------------


def check_sizes(sizes: Sequence[int]) -> list[int]:
    """Sizes as given, validated (ValueError with a one-line reason)."""
    out: list[int] = []
    for n in sizes:
        if not isinstance(n, int) or isinstance(n, bool) or not (MIN_N <= n <= MAX_N):
            raise ValueError("matrix size %r: must be a whole number from %d to %d" % (n, MIN_N, MAX_N))
        if n not in out:
            out.append(n)
    return out


def parse_sizes(text: str) -> list[int]:
    """'512,1024 2048' -> [512, 1024, 2048]; ValueError on anything else."""
    items = [t for t in text.replace(",", " ").split() if t]
    if not items:
        raise ValueError("no sizes given")
    values: list[int] = []
    for item in items:
        try:
            values.append(int(item))
        except ValueError:
            raise ValueError("matrix size %r is not a whole number" % item) from None
    return check_sizes(values)


def split_budget(seconds: float, with_target: bool) -> tuple[float, float]:
    """(machine, target) seconds: half each when both run, all to the machine otherwise."""
    if not with_target:
        return seconds, 0.0
    return seconds / 2.0, seconds / 2.0


def make_plan(budget_s: float, sizes: Sequence[int] = (), dtypes: Sequence[str] = DTYPES,
              available_mib: Optional[int] = None) -> dict[str, Any]:
    """The JSON plan the timing script reads. With the memory available known, the three
    matrices of a size may take a quarter of it (the script's own cap is 1.5 GiB)."""
    plan: dict[str, Any] = {
        "mode": "gemm",
        "budget_s": float(budget_s),
        "sizes": list(sizes),
        "dtypes": list(dtypes),
        "shares": {d: DTYPE_SHARES.get(d, 0.5) for d in dtypes},
    }
    if is_int(available_mib) and available_mib > 0:
        plan["max_bytes"] = min(1536, available_mib // 4) * 1024 * 1024
    return plan


# --- reports -> results -----------------------------------------------------------------


def _number(value: Any, default: float = 0.0) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return default


def _figure(value: Any) -> Optional[Figure]:
    if not isinstance(value, Mapping):
        return None
    keys = ("median", "best", "worst")
    if not all(isinstance(value.get(k), (int, float)) and not isinstance(value.get(k), bool) for k in keys):
        return None
    return Figure(*(float(value[k]) for k in keys))


def size_from_report(item: Any) -> Optional[SizeResult]:
    """One size of a report; None if it is malformed (never raises)."""
    if not isinstance(item, Mapping):
        return None
    gflops, ms = _figure(item.get("gflops")), _figure(item.get("ms"))
    n, reps = item.get("n"), item.get("reps")
    if gflops is None or ms is None or not isinstance(n, int) or not isinstance(reps, int) or reps < 1:
        return None
    return SizeResult(n=n, reps=reps, gflops=gflops, ms=ms, spread_pct=_number(item.get("spread_pct")),
                      warmup_ms=_number(item.get("warmup_ms")))


def sweep_from_report(dtype: str, data: Any) -> Sweep:
    if not isinstance(data, Mapping):
        return Sweep(dtype=dtype, error="no result for %s" % dtype)
    sizes = [s for s in (size_from_report(i) for i in data.get("sizes") or []) if s is not None]
    return Sweep(
        dtype=dtype,
        sizes=sizes,
        stopped=str(data.get("stopped", "")),
        budget_s=_number(data.get("budget_s")),
        elapsed_s=_number(data.get("elapsed_s")),
        error=str(data.get("error", "")),
    )


def side_from_report(report: Mapping[str, Any], label: str) -> Side:
    """A :class:`Side` from the script's report; a failed or garbled report becomes an
    error on the side, never an exception."""
    found = report.get("python")
    python: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    side = Side(
        label=label,
        python_version=str(python.get("version", "")),
        executable=str(python.get("executable", "")),
        numpy=str(report.get("numpy", "")),
        blas=dict(report["blas"]) if isinstance(report.get("blas"), Mapping) else {},
        env=({str(k): str(v) for k, v in (report.get("env") or {}).items()}
             if isinstance(report.get("env"), Mapping) else {}),
        cpu_features=[str(f) for f in report.get("cpu_features") or [] if isinstance(f, str)],
        elapsed_s=_number(report.get("elapsed_s")),
        error=str(report.get("error", "")),
    )
    results = report.get("results")
    if isinstance(results, Mapping):
        for dtype, data in results.items():
            side.sweeps[str(dtype)] = sweep_from_report(str(dtype), data)
    if not side.error and not side.ok:
        side.error = "the benchmark produced no result"
    return side


def run_in_process(
    plan: Mapping[str, Any],
    environ: Optional[Mapping[str, str]] = None,
    on_size: Optional[Callable[[str, int, float], None]] = None,
) -> Side:
    """Measure legacydoc's own numpy (imported here, not at module import)."""
    from legacydoc.bench import target_bench_script as script

    try:
        import numpy as np
    except Exception as exc:  # legacydoc depends on numpy, but a broken install happens
        return Side(label="machine", error="%s: %s" % (type(exc).__name__, exc))
    report = script.run_gemm(np, dict(plan), environ=dict(os.environ if environ is None else environ), on_size=on_size)
    return side_from_report(report, "machine")
