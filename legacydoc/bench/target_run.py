"""Run the timing script inside the target interpreter.

The script is sent as ``python -c <source> <plan JSON>`` (like the target probe's), so
nothing has to be installed there and an installed legacydoc inside a zip works too. The
process is started through :meth:`ProbeContext.run`, the one place that starts processes:
it has a hard timeout that kills the whole tree, and it never raises.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from legacydoc import locate, structs
from legacydoc.bench import target_bench_script as script
from legacydoc.bench.gemm import Side, side_from_report
from legacydoc.probes.context import ProbeContext
from legacydoc.probes.run import CommandResult
from legacydoc.probes.target import failure_reason, parse_report

# Starting an interpreter and importing numpy (or theano) comes on top of the plan's
# budget: this much slack before the run is killed.
START_SLACK_S = 10.0


def script_source() -> str:
    return locate.target_script("legacydoc.bench", "target_bench_script.py")


def same_interpreter(python: str) -> bool:
    """Is ``python`` the interpreter legacydoc runs in? (then its numpy is measured once)"""
    try:
        return os.path.samefile(python, sys.executable)
    except OSError:
        return False


def run_script(
    ctx: ProbeContext, python: str, plan: Mapping[str, Any], timeout_s: float
) -> tuple[dict[str, Any], CommandResult]:
    """The script's report ({} if none) and the command's record."""
    # The probe context caps every command at --timeout; the bench needs its own limit.
    run_ctx = structs.replace(ctx, timeout=timeout_s, deadline=None)
    argv = [python, "-c", script_source(), json.dumps(dict(plan), sort_keys=True)]
    result = run_ctx.run(argv, cwd=str(ctx.cwd))
    return parse_report(result.stdout, script.REPORT_KEY), result


def run_target_gemm(ctx: ProbeContext, python: str, plan: Mapping[str, Any]) -> Side:
    """Measure the target interpreter's numpy with ``plan``."""
    timeout = float(plan.get("budget_s", 0.0)) + max(ctx.timeout, START_SLACK_S)
    report, result = run_script(ctx, python, plan, timeout)
    if not report:
        return Side(label="target", executable=python, error=failure_reason(result))
    side = side_from_report(report, "target")
    if report.get("stage") == "import" and side.error:
        side.error = "numpy cannot be imported there: %s" % side.error
    return side
