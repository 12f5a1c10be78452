"""``--theano``: the same matrix product through ``theano.function`` in the target.

The script compiles ``c <- 0.4 c + 0.8 dot(a, b)`` (what Theano's own
``theano/misc/check_blas.py`` compiles) with the target's effective configuration
(``.theanorc`` and ``THEANO_FLAGS`` as the project would see them), tells which op ran
and times it. The op, in check_blas.py's terms plus the fallback it does not name:

- ``gpu``          GpuGemm / GpuDot22: the product ran on the GPU;
- ``blas``         Gemm with C code, blas.ldflags linking a BLAS library;
- ``numpy_c_api``  Gemm with C code but blas.ldflags empty: Theano logs "Using NumPy
                   C-API based implementation for BLAS functions" and goes through numpy;
- ``python``       Gemm without C code (no compiler): Python's perform, numpy/scipy BLAS.

Failures (Theano missing, import error, compile error, timeout) become a clear message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.bench import target_bench_script as script
from legacydoc.bench.gemm import SizeResult, size_from_report
from legacydoc.bench.target_run import failure_reason, run_script
from legacydoc.probes.context import ProbeContext
from legacydoc.structs import field, struct

# Importing Theano and compiling its C code the first time easily takes a minute; later
# runs hit the compile cache. The run may take this long even with a small --timeout.
MIN_TIMEOUT_S = 120.0

OP_KINDS: dict[str, str] = {
    "gpu": "GPU GEMM",
    "blas": "CPU GEMM, C code linked to BLAS",
    "numpy_c_api": "CPU GEMM through the NumPy C-API fallback (blas.ldflags empty)",
    "python": "CPU GEMM without C code (Python implementation calling numpy/scipy)",
    "unknown": "no GEMM op found in the compiled graph",
}
_MISSING = re.compile(r"No module named '?theano'?$|No module named theano$")


@struct
class TheanoRun:
    """What ``--theano`` found. ``ok`` when the product was compiled and timed."""

    stage: str = "import"  # import | compile | run | done
    error: str = ""
    theano: str = ""
    numpy: str = ""
    python: str = ""
    n: int = 0
    dtype: str = "float32"
    op: str = ""
    op_kind: str = ""
    cthunk: Optional[bool] = None
    config: dict[str, str] = field(default_factory=dict)
    result: Optional[SizeResult] = None
    numpy_result: Optional[SizeResult] = None
    warnings: list[str] = field(default_factory=list)
    import_s: float = 0.0
    compile_s: float = 0.0
    ldflags_suggestion: str = ""
    blas_symbols: str = ""

    @property
    def ok(self) -> bool:
        return self.stage == "done" and not self.error and self.result is not None

    @property
    def capi_warning(self) -> bool:
        return any(script.NUMPY_CAPI_WARNING in w for w in self.warnings)

    @property
    def op_text(self) -> str:
        text = OP_KINDS.get(self.op_kind, self.op_kind or "?")
        return "%s: %s" % (self.op, text) if self.op else text

    def message(self) -> str:
        """One plain sentence for a failure ('' when it worked)."""
        if self.ok:
            return ""
        if self.stage == "import":
            if _MISSING.search(self.error.strip()):
                return "Theano is not installed in the target interpreter (%s)." % (self.python or "?")
            return "Theano cannot be imported in the target interpreter: %s" % (self.error or "no reason given")
        if self.stage == "compile":
            return "Theano could not compile the matrix product: %s" % (self.error or "no reason given")
        if self.stage == "run":
            return "Theano compiled the matrix product but running it failed: %s" % (self.error or "no reason given")
        return self.error or "the Theano run gave no result"

    def speedup_over(self, gflops: Optional[float]) -> Optional[float]:
        if self.result is None or not gflops:
            return None
        return self.result.gflops.median / gflops

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": self.ok,
            "stage": self.stage,
            "theano": self.theano,
            "numpy": self.numpy,
            "python": self.python,
            "n": self.n,
            "dtype": self.dtype,
            "op": self.op,
            "op_kind": self.op_kind,
            "op_text": self.op_text if (self.op or self.op_kind) else "",
            "config": dict(self.config),
            "numpy_c_api_warning": self.capi_warning,
            "warnings": list(self.warnings),
            "import_s": self.import_s,
            "compile_s": self.compile_s,
        }
        if self.cthunk is not None:
            out["cthunk"] = self.cthunk
        if self.result is not None:
            out["result"] = self.result.to_dict()
        if self.numpy_result is not None:
            out["numpy_result"] = self.numpy_result.to_dict()
        if self.ldflags_suggestion:
            out["ldflags_suggestion"] = self.ldflags_suggestion
        if not self.ok:
            out["error"] = self.error
            out["message"] = self.message()
        return out


def _table(report: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = report.get(key)
    return value if isinstance(value, Mapping) else {}


def run_from_report(report: Mapping[str, Any]) -> TheanoRun:
    """A :class:`TheanoRun` from the script's report (never raises)."""
    python = _table(report, "python")
    config = _table(report, "config")
    blas = _table(report, "blas")
    listed = report.get("warnings")
    warnings: list[Any] = listed if isinstance(listed, list) else []
    cthunk = report.get("cthunk")

    def number(key: str) -> float:
        value = report.get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0

    run = TheanoRun(
        stage=str(report.get("stage", "import")),
        error=str(report.get("error", "")),
        theano=str(report.get("theano", "")),
        numpy=str(report.get("numpy", "")),
        python=str(python.get("executable", "")),
        n=int(report["n"]) if isinstance(report.get("n"), int) else 0,
        dtype=str(report.get("dtype", "float32")),
        op=str(report.get("op", "")),
        op_kind=str(report.get("op_kind", "")),
        cthunk=cthunk if isinstance(cthunk, bool) else None,
        config={str(k): str(v) for k, v in config.items()},
        result=size_from_report(report.get("result")),
        numpy_result=size_from_report(report.get("numpy_result")),
        warnings=[str(w) for w in warnings][:20],
        import_s=number("import_s"),
        compile_s=number("compile_s"),
        ldflags_suggestion=str(blas.get("ldflags_suggestion", "")),
        blas_symbols=str(blas.get("symbols", "")),
    )
    if run.stage == "done" and run.result is None and not run.error:
        run.error = "the run produced no timing"
    return run


def run_theano(ctx: ProbeContext, python: str, n: int, budget_s: float, dtype: str = "float32") -> TheanoRun:
    """Compile and time the product in ``python`` (the target interpreter)."""
    plan = {"mode": "theano", "theano": {"n": int(n), "dtype": dtype, "budget_s": float(budget_s)}}
    timeout = max(ctx.timeout, MIN_TIMEOUT_S) + 2.0 * budget_s
    report, result = run_script(ctx, python, plan, timeout)
    if not report:
        why = failure_reason(result)
        if result.timed_out:
            why += " (importing Theano and compiling its C code can take a minute the first time)"
        return TheanoRun(stage="import", error=why, python=python, n=n, dtype=dtype)
    run = run_from_report(report)
    # Theano logs through its own handler too: the warning may only be on stderr.
    if script.NUMPY_CAPI_WARNING in result.stderr and not run.capi_warning:
        run.warnings.append("WARNING (theano.tensor.blas): %s." % script.NUMPY_CAPI_WARNING)
        if run.op_kind == "blas":
            run.op_kind = "numpy_c_api"
    return run
