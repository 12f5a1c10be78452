"""`legacydoc bench` output: a short text table for people, one JSON object for machines.

JSON shape (``bench_schema`` 1): ``machine`` and ``target`` each carry ``float32`` and
``float64`` with the headline size's ``n``, ``gflops`` and ``ms`` (each ``median``,
``best``, ``worst``), ``spread_pct``, ``reps``, every size measured (``sizes``) and the
n = 512 figure (``n512``); then ``peak``, ``meaning``, ``theano`` (or null), ``facts``
(the ``bench`` table the rules saw) and ``diagnoses``.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from legacydoc import __version__
from legacydoc.bench.command import BenchReport
from legacydoc.bench.gemm import DTYPES, SEED_N, Side, SizeResult
from legacydoc.bench.meaning import (
    BAR_WORDS,
    BATCH,
    IMAGES,
    LAYERS,
    conv_batch_gflop,
    conv_layer_seconds,
    describe_seconds,
    epoch_seconds,
)
from legacydoc.bench.noise import MEDIAN_GAP_LIMIT, MIN_N_JUDGED
from legacydoc.bench.plot import text_chart
from legacydoc.engine import Diagnosis
from legacydoc.i18n import N_, tr
from legacydoc.render.columns import ljust, wrap

BENCH_SCHEMA = 1
LABEL_WIDTH = 20
COLUMN_WIDTH = 40
# Where the BLAS thread count came from (the timing script's threads_source), as shown.
THREAD_SOURCES = {"library": N_("from the BLAS library"), "environment": N_("environment"),
                  "assumed: one per CPU": N_("assumed: one per CPU")}


# --- JSON -------------------------------------------------------------------------------


def _diag_dict(diag: Diagnosis) -> dict[str, Any]:
    out = diag.to_dict()
    out["folded"] = [_diag_dict(f) for f in diag.folded]
    return out


def to_dict(report: BenchReport) -> dict[str, Any]:
    peak = report.peak.to_dict()
    for dtype in DTYPES:
        head = report.machine.headline(dtype)
        fraction = report.peak.fraction(head.gflops.median if head else None, dtype)
        if fraction is not None:
            peak.setdefault("measured_fraction", {})[dtype] = round(fraction, 3)
    return {
        "legacydoc_version": __version__,
        "bench_schema": BENCH_SCHEMA,
        "budget_s": report.options.seconds,
        "sizes_requested": list(report.options.sizes),
        "elapsed_s": round(report.elapsed_s, 2),
        "probe_s": round(report.probe_s, 2),
        "flop_per_product": "2*n^3",
        "target_interpreter": {"path": report.target_python, "selected_by": report.target_selected_by},
        "machine": report.machine.to_dict(),
        "target": report.target.to_dict() if report.target is not None else None,
        "peak": peak,
        "meaning": report.meaning,
        "theano": report.theano.to_dict() if report.theano is not None else None,
        "noise": report.noise.to_dict(),
        "facts": {"bench": report.table},
        "diagnoses": [_diag_dict(d) for d in report.diagnoses],
    }


def render_json(report: BenchReport, color: bool = False) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False)


# --- text ---------------------------------------------------------------------------------


def _trust_section(report: BenchReport) -> list[str]:
    verdict = report.noise
    lines = []
    if verdict.trustworthy:
        before, after = verdict.before, verdict.after
        load = (tr("load average %.1f") % max(before.load_1m, after.load_1m)
                if before.load_1m is not None and after.load_1m is not None else tr("load not known on this OS"))
        clock = (tr("clock %.0f -> %.0f MHz") % (before.mhz, after.mhz)
                 if before.mhz and after.mhz else tr("clock not readable here"))
        lines.append(tr("Trust: steady (from n=%d the median run is within %.0f%% of the best; %s; %s)")
                     % (MIN_N_JUDGED, 100 * MEDIAN_GAP_LIMIT, load, clock))
    else:
        lines.append(tr("Trust: NOT reliable, measure again on a quiet machine:"))
        lines.extend("  - " + reason for reason in verdict.shown_reasons())
    if verdict.rerun:
        lines.append("  " + tr("measured again: %s") % tr("; ").join(verdict.shown_rerun()))
    return lines


def _rate(size: Optional[SizeResult], with_n: bool = True) -> str:
    if size is None:
        return "-"
    text = "%.1f GFLOPS" % size.gflops.median
    if with_n:
        text += " @ n=%d" % size.n
    return text + ", %s" % _ms(size.ms.median)


def _ms(value: float) -> str:
    return "%.1f ms" % value if value >= 10 else "%.2f ms" % value


def _detail(size: Optional[SizeResult]) -> str:
    if size is None:
        return ""
    return tr("(best %.1f, worst %.1f; %d runs)") % (size.gflops.best, size.gflops.worst, size.reps)


def _row(label: str, left: str, right: Optional[str] = None) -> str:
    line = "  " + ljust(label, LABEL_WIDTH) + left
    if right is not None:
        line = ljust(line, 2 + LABEL_WIDTH + COLUMN_WIDTH) + " " + right
    return line.rstrip()


def _threads(side: Side) -> str:
    if side.threads is None:
        return "?"
    source = side.blas.get("threads_source") or ""
    text = "%d (%s)" % (side.threads, tr(THREAD_SOURCES[source]) if source in THREAD_SOURCES else source)
    if side.blas.get("threads_env_var"):
        text += ", %s=%s" % (side.blas["threads_env_var"], side.blas.get("threads_env_value"))
    return text


def _side_cells(side: Optional[Side]) -> dict[str, str]:
    if side is None:
        return {}
    if not side.ok:
        return {"python": side.python_version or "-", "numpy": side.numpy or "-",
                "error": tr("not measured (see below)")}
    cells = {
        "python": side.python_version,
        "numpy": side.numpy,
        "blas": side.blas_label(),
        "threads": _threads(side),
    }
    for dtype in DTYPES:
        sweep = side.sweeps.get(dtype)
        head = sweep.headline if sweep else None
        cells[dtype] = _rate(head)
        cells[dtype + "_detail"] = _detail(head)
        cells[dtype + "_512"] = _rate(sweep.at(SEED_N), with_n=False) if sweep and sweep.at(SEED_N) else "-"
    ratio = side.f32_over_f64()
    cells["ratio"] = "%.2fx" % ratio if ratio else "-"
    return cells


def _gemm_table(report: BenchReport) -> list[str]:
    machine, target = report.machine, report.target
    if target is not None and target.same_as_machine:
        target = None  # one column says it all
    left, right = _side_cells(machine), _side_cells(target)
    out = [
        tr("CPU matrix product (GEMM, 2*n^3 FLOP each): medians of timed runs after one warm-up"),
        "",
        _row("", tr("this machine (legacydoc's numpy)"), tr("target interpreter") if target is not None else None),
    ]
    rows = [("Python", "python"), ("numpy", "numpy"), ("BLAS", "blas"), (tr("threads"), "threads")]
    if machine.ok or (target is not None and target.ok):
        for dtype in DTYPES:
            sustained = tr("float32 sustained") if dtype == "float32" else tr("float64 sustained")
            rows += [(sustained, dtype), ("", dtype + "_detail"), ("%s @ n=%d" % (dtype, SEED_N), dtype + "_512")]
        rows.append(("float32 / float64", "ratio"))
    for label, key in rows:
        l_cell = left.get(key, left.get("error", "-") if key == "blas" else "")
        r_cell = right.get(key, right.get("error", "-") if key == "blas" else "") if target is not None else None
        if not l_cell and not r_cell:
            continue
        out.append(_row(label, l_cell, r_cell))
    for side in (machine, target):
        if side is not None and side.error:
            said = tr("this machine: %s") if side.label == "machine" else tr("target interpreter: %s")
            out.append("  " + said % tr(side.error))
    if report.target_python:
        same = report.target is not None and report.target.same_as_machine
        out.append("  " + tr("target: %s%s%s") % (
            report.target_python,
            tr(" (chosen by %s)") % report.target_selected_by if report.target_selected_by else "",
            tr(", legacydoc's own interpreter: measured once") if same else ""))
    return out


def _peak_section(report: BenchReport) -> list[str]:
    peak = report.peak
    out = [tr("The machine's limit")]
    if peak.gflops_f32 is None:
        out.append(_row(tr("peak (estimate)"), tr("unknown")))
    else:
        out.extend(_wrapped(tr("peak (estimate)"), tr("%.0f GFLOPS float32, %.0f float64 = %s") % (
            peak.gflops_f32, peak.gflops_f64 or 0, peak.formula())))
    parts = []
    for dtype in DTYPES:
        head = report.machine.headline(dtype)
        if head is None:
            continue
        fraction = peak.fraction(head.gflops.median, dtype)
        parts.append("%s %.1f GFLOPS%s" % (
            dtype, head.gflops.median, tr(" = %.0f%% of peak") % (100 * fraction) if fraction else ""))
    if parts:
        out.extend(_wrapped(tr("measured"), tr("; ").join(parts)))
    head = report.machine.headline("float32")
    if head is not None and (peak.fraction(head.gflops.median) or 0) > 1.0:
        out.extend(_wrapped("", tr("above the estimate: the cores run a faster clock or wider FMA units than assumed")))
    if peak.notes:
        label = tr("uncertain because")
        for note in peak.notes:
            out.extend(_wrapped(label, "- " + tr(note)))  # fixed notes are marked N_ in peak.py
            label = ""
    return out


def _wrapped(label: str, text: str) -> list[str]:
    columns = 100 - 2 - LABEL_WIDTH
    lines = wrap(text, columns, subsequent="  ") or [""]
    return [_row(label if i == 0 else "", line) for i, line in enumerate(lines)]


def _meaning_section(report: BenchReport) -> list[str]:
    head = report.machine.headline("float32")
    if head is None:
        return []
    gflops = head.gflops.median
    out = [tr("What it means, at this machine's %.1f GFLOPS float32") % gflops]
    out.extend(_wrapped(tr("conv layer"), tr("one 3x3 convolution, 64->64 channels on 32x32, batch %d, forward + "
                                             "backward (%.2f GFLOP): %s")
                        % (BATCH, conv_batch_gflop(), describe_seconds(conv_layer_seconds(gflops)))))
    out.extend(_wrapped(tr("epoch"), tr("%d such layers over %s images: %s") % (
        LAYERS, format(IMAGES, ","), describe_seconds(epoch_seconds(gflops)))))
    target = report.target
    t_head = target.headline("float32") if target is not None and target.ok and not target.same_as_machine else None
    if t_head is not None and abs(t_head.gflops.median - gflops) > 0.1 * gflops:
        out.extend(_wrapped(tr("with target numpy"), tr("%.1f GFLOPS: layer %s, epoch %s") % (
            t_head.gflops.median, describe_seconds(conv_layer_seconds(t_head.gflops.median)),
            describe_seconds(epoch_seconds(t_head.gflops.median)))))
    gpus = report.meaning.get("gpus") or []
    if not gpus:
        out.extend(_wrapped("GPU", tr("no GPU from the knowledge table was found by nvidia-smi, "
                                      "so there is no speedup to estimate")))
    for gpu in gpus:
        bar = gpu["seed_bar_3_5x"]
        out.extend(_wrapped("GPU", tr("%s, %.1f TFLOPS peak float32: %.0f-%.0fx this CPU (25%%-80%% of its peak); "
                                      "the seed's 3-5x bar is %s")
                            % (gpu["name"], gpu["peak_tflops"], gpu["speedup_low"], gpu["speedup_high"],
                               tr(BAR_WORDS[bar]) if bar in BAR_WORDS else bar)))
    return out


def _theano_section(report: BenchReport) -> list[str]:
    run = report.theano
    if run is None:
        return []
    out = [tr("Theano (--theano, in the target interpreter)")]
    if run.config or run.theano:
        flags = " ".join("%s=%s" % (k, v if v else '""') for k, v in run.config.items()
                         if k in ("device", "floatX", "blas.ldflags"))
        out.extend(_wrapped(tr("configuration"), tr("Theano %s, numpy %s; %s") % (
            run.theano or "?", run.numpy or "?", flags)))
    if not run.ok:
        out.extend(_wrapped(tr("result"), run.message()))
        return out
    out.extend(_wrapped(tr("op"), run.op_text))
    result = run.result
    if result is not None:
        line = tr("%s (best %.1f, worst %.1f; %d runs)") % (_rate(result, with_n=False), result.gflops.best,
                                                            result.gflops.worst, result.reps)
        out.extend(_wrapped("%s @ n=%d" % (run.dtype, run.n), line))
    if run.numpy_result is not None and result is not None and run.numpy_result.gflops.median > 0:
        out.extend(_wrapped(tr("vs numpy"), tr("%.2fx numpy's dot in the same process (%.1f GFLOPS)") % (
            result.gflops.median / run.numpy_result.gflops.median, run.numpy_result.gflops.median)))
    head = report.machine.headline("float32")
    speedup = run.speedup_over(head.gflops.median if head else None)
    if speedup is not None:
        out.extend(_wrapped(tr("vs this machine"), tr("%.2fx the CPU baseline (%.1f GFLOPS float32)") % (
            speedup, head.gflops.median if head else 0)))
    out.append(_row(tr("import / compile"), "%.1f s / %.1f s" % (run.import_s, run.compile_s)))
    return out


def _diagnosis(diag: Diagnosis, indent: str = "  ") -> list[str]:
    if diag.severity in ("error", "warning", "info"):
        label = tr({"error": "ERROR", "warning": "WARNING", "info": "INFO"}[diag.severity])
    else:
        label = diag.severity.upper()
    out = ["%s%s %s [%s %s]" % (indent, label, diag.title, diag.id, diag.name)]
    pad = indent + "   "
    for para in diag.why.split("\n\n"):
        out.extend(wrap(" ".join(para.split()), 96, pad, pad))
    if diag.fix:
        out.append(pad + tr("Fix:"))
        for step in diag.fix:
            for i, line in enumerate(step.splitlines() or [""]):
                out.append(pad + ("  - " if i == 0 else "    ") + line)
    for echo in diag.folded:
        out.append(pad + tr("This also explains: %s [%s]") % (echo.title, echo.id))
    return out


def render_text(report: BenchReport, color: bool = False) -> str:
    out = [tr("legacydoc bench: %.1f s budget, done in %.1f s (probing %.1f s)") % (
        report.options.seconds, report.elapsed_s, report.probe_s), ""]
    out.extend(_gemm_table(report))
    for section in (_trust_section(report), text_chart(report), _peak_section(report), _meaning_section(report),
                    _theano_section(report)):
        if section:
            out.append("")
            out.extend(section)
    out.append("")
    if report.diagnoses:
        out.append(tr("Findings:"))
        for diag in report.diagnoses:
            out.extend(_diagnosis(diag))
    else:
        out.append(tr("Findings: no performance problem found."))
    return "\n".join(out)
