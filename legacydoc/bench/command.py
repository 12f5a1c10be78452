"""`legacydoc bench` as a function: probe, measure both numpys, estimate the peak, say
what it means, optionally run Theano, then let the rules judge the bench facts.

Order and time: the probes first (concurrently, bounded by --timeout), then the numpy
measurements one after the other (never two at once: they would share the cores), each
within its share of --seconds, then --theano (import and compile take extra time, up to
theano_bench.MIN_TIMEOUT_S the first time).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Optional

from legacydoc.bench import facts as bench_facts
from legacydoc.bench import noise as bench_noise
from legacydoc.bench.gemm import DEFAULT_SECONDS, Side, make_plan, run_in_process, split_budget
from legacydoc.bench.meaning import meaning as describe
from legacydoc.bench.peak import Peak, estimate
from legacydoc.bench.target_run import run_target_gemm, same_interpreter
from legacydoc.bench.theano_bench import TheanoRun, run_theano
from legacydoc.engine import Diagnosis, Rule
from legacydoc.facts import get
from legacydoc.i18n import N_, tr
from legacydoc.probes.context import ProbeContext
from legacydoc.redact import Redactor
from legacydoc.structs import field, replace, struct

# Rule areas the bench shows: its own findings and the performance rules they explain.
SHOWN_AREAS = ("performance",)
# --theano times one size; larger than this takes too long in the fallback paths.
THEANO_MAX_N = 4096
THEANO_DEFAULT_N = 1024


@struct
class BenchOptions:
    seconds: float = DEFAULT_SECONDS
    sizes: list[int] = field(default_factory=list)
    theano: bool = False


@struct
class BenchReport:
    options: BenchOptions
    machine: Side
    target: Optional[Side]
    peak: Peak
    meaning: dict[str, Any]
    theano: Optional[TheanoRun]
    noise: bench_noise.Verdict
    table: dict[str, Any]
    diagnoses: list[Diagnosis]
    target_python: str = ""
    target_selected_by: str = ""
    probe_s: float = 0.0
    elapsed_s: float = 0.0


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")[:1 << 20]
    except OSError:
        return ""


def estimate_peak(record: dict[str, Any], machine: Side) -> Peak:
    """The peak from the system facts plus what Linux says about cores and boost clock."""
    found = record.get("system")
    system: dict[str, Any] = found if isinstance(found, dict) else {}
    linux = system.get("os") == "linux" or (not system and sys.platform.startswith("linux"))
    cpuinfo = _read("/proc/cpuinfo") if linux else ""
    cpufreq = _read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") if linux else ""
    affinity = machine.blas.get("affinity_cpus")
    return estimate(system, cpuinfo, cpufreq, machine.cpu_features, affinity if isinstance(affinity, int) else None)


def gpu_names(record: dict[str, Any]) -> list[str]:
    devices = get(record, "gpu.devices", [])
    names: list[str] = []
    for device in devices if isinstance(devices, list) else []:
        if isinstance(device, dict) and isinstance(device.get("name"), str):
            names.append(device["name"])
    return names


def target_interpreter(record: dict[str, Any]) -> tuple[str, str, str]:
    """(path, selected_by, error) of the target interpreter the probe found."""
    found = record.get("python")
    python: dict[str, Any] = found if isinstance(found, dict) else {}
    path = str(python.get("executable") or python.get("executable_requested") or "")
    error = ""
    if not path:
        error = str(python.get("error") or N_("no target interpreter found"))  # shown through tr
    elif python.get("probe_ok") is False:
        error = "the target interpreter could not be probed: %s" % (python.get("error") or "unknown reason")
    return path, str(python.get("selected_by", "")), error


def measure_target(ctx: ProbeContext, path: str, error: str, machine: Side, plan: dict[str, Any]) -> Side:
    if error:
        return Side(label="target", executable=path, error=error)
    if same_interpreter(path):
        # legacydoc runs in the target itself: one measurement serves both columns
        return replace(machine, label="target", same_as_machine=True)
    return run_target_gemm(ctx, path, plan)


def theano_size(options: BenchOptions, machine: Side) -> int:
    if options.sizes:
        return options.sizes[0]
    head = machine.headline("float32")
    return min(head.n, THEANO_MAX_N) if head else THEANO_DEFAULT_N


def _rerun(machine: Side, pairs: list[tuple[str, int]], budget_s: float, memory: Any,
           before: bench_noise.Conditions, cores: Any) -> bench_noise.Verdict:
    """Measure the uneven sizes once more and keep, per size, the steadier of the two
    measurements; the verdict is then made again on what is kept."""
    notes = []  # (template, values): English in the JSON, the reader's language on screen
    for dtype, n in pairs:
        again = run_in_process(make_plan(budget_s / len(pairs), [n], dtypes=[dtype], available_mib=memory))
        sweep, fresh = machine.sweeps.get(dtype), again.sweeps.get(dtype)
        old = sweep.at(n) if sweep else None
        new = fresh.at(n) if fresh else None
        if sweep is None or old is None or new is None:
            continue
        keep = bench_noise.steadier(old, new)
        sweep.sizes = [keep if s.n == n else s for s in sweep.sizes]
        template = (N_("%s n=%d: median %.0f%% -> %.0f%% below the best") if keep is new
                    else N_("%s n=%d: median %.0f%% -> %.0f%% below the best (first run kept)"))
        notes.append((template, (dtype, n, 100 * bench_noise.median_gap(old), 100 * bench_noise.median_gap(new))))
    judged = bench_noise.judge(list(machine.sweeps.values()), before, bench_noise.sample(), cores)
    for template, values in notes:
        judged.add_rerun(template, *values)
    return judged


def run_bench(
    ctx: ProbeContext,
    options: BenchOptions,
    rules: Optional[Sequence[Rule]] = None,
    record: Optional[dict[str, Any]] = None,
    redactor: Optional[Redactor] = None,
    progress: Optional[Callable[[str], None]] = None,
) -> BenchReport:
    """Everything `legacydoc bench` reports. ``record`` is the facts when they were probed
    already (the CLI probes first, to build the redactor); without it this probes. The
    diagnoses are made on the record as ``redactor`` hides it, like check's."""
    from legacydoc import facts
    from legacydoc.diagnose import diagnose
    from legacydoc.engine import load_rules
    from legacydoc.probes import collect_all

    if rules is None:
        rules = load_rules()  # a broken rule pack fails before any measuring
    started = time.monotonic()
    if record is None:
        record = facts.new_record(collect_all(ctx))
    probe_s = time.monotonic() - started
    path, selected_by, error = target_interpreter(record)
    with_target = not error and not same_interpreter(path)
    machine_s, target_s = split_budget(options.seconds, with_target)

    say = progress or (lambda line: None)
    memory = get(record, "system.memory_available_mib")
    say(tr("legacydoc's numpy, up to %.0f s:") % machine_s)
    on_size = lambda dtype, n, rate: say("  %s n=%d: %.1f GFLOPS" % (dtype, n, rate / 1e9))  # noqa: E731
    cores = get(record, "system.logical_cores")
    before = bench_noise.sample()
    machine = run_in_process(make_plan(machine_s, options.sizes, available_mib=memory), on_size=on_size)
    verdict = bench_noise.judge(list(machine.sweeps.values()), before, bench_noise.sample(), cores)
    rerun = bench_noise.rerun_plan(verdict)
    if rerun and machine.ok:
        say(tr("uneven runs: measuring %s again ...") % ", ".join("%s n=%d" % pair for pair in rerun))
        verdict = _rerun(machine, rerun, min(3.0, 0.3 * options.seconds), memory, before, cores)
    if with_target:
        say(tr("the target Python's numpy (%s), up to %.0f s ...") % (path, target_s))
    target = measure_target(ctx, path, error, machine, make_plan(target_s, options.sizes, available_mib=memory))
    theano = None
    if options.theano:
        if error:
            theano = TheanoRun(stage="import", error=error, python=path)
        else:
            say(tr("Theano's own GEMM in the target Python ..."))
            theano = run_theano(ctx, path, theano_size(options, machine), max(0.5, options.seconds / 3.0))

    peak = estimate_peak(record, machine)
    head = machine.headline("float32")
    meaning = describe(head.gflops.median if head else None, gpu_names(record))
    table = bench_facts.build(machine, target, peak, theano, meaning.get("gpus"), options.seconds,
                              time.monotonic() - started - probe_s)
    table["trustworthy"] = verdict.trustworthy
    if verdict.reasons:
        table["noise_reasons"] = "; ".join(verdict.reasons)
    record = dict(record)
    record["bench"] = table
    if redactor is None:
        redactor = Redactor.for_record(record)
    result = diagnose(record, list(rules), redactor, "this machine")
    diagnoses = [d for d in result.diagnoses if d.area in SHOWN_AREAS]
    return BenchReport(
        options=options,
        machine=machine,
        target=target,
        peak=peak,
        meaning=meaning,
        theano=theano,
        noise=verdict,
        table=table,
        diagnoses=diagnoses,
        target_python=path,
        target_selected_by=selected_by,
        probe_s=probe_s,
        elapsed_s=time.monotonic() - started,
    )
