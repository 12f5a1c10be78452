"""Can the bench figures be trusted? A verdict from what the run itself shows.

Three signs say a timing run was disturbed: the repeated runs of one size disagree, other
programs kept the CPU busy (the load average against the core count), and the CPU clock
moved during the run (power saving, turbo running out, thermal throttling).

Runs disagree when the median run is much slower than the best one (the figure shown is
then not what the CPU does), or when some run was several times slower than the best (the
machine was taken away for a while). A single slower run among dozens is normal and is not
held against the figures. Sizes below MIN_N_JUDGED take microseconds, where timer and cache
effects dominate, so they are not judged.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from typing import Any, Optional

from legacydoc.i18n import N_, tr
from legacydoc.structs import field, struct

MEDIAN_GAP_LIMIT = 0.20  # the median run more than 20 % slower than the best one
WORST_RATIO_LIMIT = 3.0  # some run more than 3 times slower than the best one
MIN_N_JUDGED = 256
MIN_REPS_JUDGED = 3
LOAD_SHARE_LIMIT = 0.5  # a 1-minute load above half the cores: something else was running
CLOCK_CHANGE_LIMIT = 0.15  # the mean clock moved by more than 15 %
MAX_RERUN_SIZES = 3


@struct(frozen=True)
class Conditions:
    """What the machine looked like at one moment (None: this OS does not say)."""

    load_1m: Optional[float] = None
    mhz: Optional[float] = None

    def to_dict(self) -> dict[str, Any]:
        return {"load_1m": self.load_1m, "mhz": self.mhz}


@struct
class NoisySize:
    dtype: str
    n: int
    gap: float  # the median run's distance below the best (median_gap)
    best: float
    worst: float  # GFLOPS of the fastest and the slowest run


@struct
class Verdict:
    trustworthy: bool
    reasons: list[str] = field(default_factory=list)
    noisy: list[NoisySize] = field(default_factory=list)
    before: Conditions = field(default_factory=Conditions)
    after: Conditions = field(default_factory=Conditions)
    busy: bool = False  # other programs kept the CPU busy: a rerun would say nothing new
    rerun: list[str] = field(default_factory=list)  # "float32 n=2048: median 35% -> 4% below the best"
    # The same sentences as (English template, values): shown in the reader's language, while
    # reasons and rerun stay English (they are facts and JSON).
    reason_templates: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    rerun_templates: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def add_reason(self, template: str, *values: Any) -> None:
        self.reasons.append(template % values)
        self.reason_templates.append((template, values))

    def add_rerun(self, template: str, *values: Any) -> None:
        self.rerun.append(template % values)
        self.rerun_templates.append((template, values))

    def shown_reasons(self) -> list[str]:
        """The reasons in the reader's language."""
        return _shown(self.reasons, self.reason_templates)

    def shown_rerun(self) -> list[str]:
        """The rerun notes in the reader's language."""
        return _shown(self.rerun, self.rerun_templates)

    def to_dict(self) -> dict[str, Any]:
        return {
            "trustworthy": self.trustworthy,
            "reasons": list(self.reasons),
            "noisy_sizes": [{"dtype": s.dtype, "n": s.n, "median_gap": round(s.gap, 3),
                             "gflops_best": s.best, "gflops_worst": s.worst} for s in self.noisy],
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "rerun": list(self.rerun),
            "limits": {"median_gap": MEDIAN_GAP_LIMIT, "worst_ratio": WORST_RATIO_LIMIT, "min_n": MIN_N_JUDGED,
                       "load_share": LOAD_SHARE_LIMIT, "clock_change": CLOCK_CHANGE_LIMIT},
        }


def _shown(english: list[str], templates: list[tuple[str, tuple[Any, ...]]]) -> list[str]:
    if len(templates) != len(english):  # set as plain English text: shown as it is
        return list(english)
    return [tr(template) % values for template, values in templates]


def _mean_mhz_linux() -> Optional[float]:
    khz = []
    for path in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq")[:512]:
        try:
            with open(path) as handle:
                khz.append(float(handle.read().strip()))
        except (OSError, ValueError):
            continue
    if khz:
        return sum(khz) / len(khz) / 1000.0
    try:
        with open("/proc/cpuinfo") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return None
    mhz = [float(m) for m in re.findall(r"^cpu MHz\s*:\s*([\d.]+)", text, re.MULTILINE)]
    return sum(mhz) / len(mhz) if mhz else None


def sample() -> Conditions:
    try:
        load: Optional[float] = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has no load average
        load = None
    return Conditions(load_1m=load, mhz=_mean_mhz_linux() if os.path.isdir("/sys/devices/system/cpu") else None)


def median_gap(size: Any) -> float:
    """How far the median run is below the best one (0.25: 25 % slower)."""
    return 1.0 - size.gflops.median / size.gflops.best if size.gflops.best > 0 else 0.0


def uneven(size: Any) -> bool:
    """Do the runs of this size disagree enough to distrust its median?"""
    if size.n < MIN_N_JUDGED or size.reps < MIN_REPS_JUDGED or size.gflops.best <= 0:
        return False
    return median_gap(size) > MEDIAN_GAP_LIMIT or size.gflops.worst * WORST_RATIO_LIMIT < size.gflops.best


def steadier(first: Any, second: Any) -> Any:
    """Of two measurements of one size, the one to keep: an even one over an uneven one,
    else the smaller gap between its median and its best run."""
    return min((first, second), key=lambda size: (uneven(size), median_gap(size)))


def noisy_sizes(sweeps: Sequence[Any]) -> list[NoisySize]:
    return [NoisySize(sweep.dtype, size.n, median_gap(size), size.gflops.best, size.gflops.worst)
            for sweep in sweeps for size in sweep.sizes if uneven(size)]


def judge(sweeps: Sequence[Any], before: Conditions, after: Conditions, cores: Optional[int]) -> Verdict:
    """The verdict on one side's sweeps (``Sweep`` objects) and the conditions around them."""
    verdict = Verdict(trustworthy=True, before=before, after=after)
    verdict.noisy = noisy_sizes(sweeps)
    for size in verdict.noisy[:4]:
        verdict.add_reason(N_("%s n=%d: the runs ranged from %.1f to %.1f GFLOPS"),
                           size.dtype, size.n, size.worst, size.best)
    loads = [c.load_1m for c in (before, after) if c.load_1m is not None]
    if loads and cores and max(loads) > LOAD_SHARE_LIMIT * cores:
        verdict.busy = True
        verdict.add_reason(N_("other programs kept the CPU busy: load average %.1f on %d logical cores"),
                           max(loads), cores)
    if before.mhz and after.mhz and abs(after.mhz - before.mhz) / before.mhz > CLOCK_CHANGE_LIMIT:
        verdict.add_reason(N_("the CPU clock moved from %.0f to %.0f MHz during the run (power saving, "
                              "turbo or heat)"), before.mhz, after.mhz)
    verdict.trustworthy = not verdict.reasons
    return verdict


def rerun_plan(verdict: Verdict) -> list[tuple[str, int]]:
    """The (dtype, n) worth measuring again: the noisiest sizes, not when the whole machine
    was busy (a rerun under the same load says nothing new)."""
    if verdict.busy:
        return []
    ranked = sorted(verdict.noisy, key=lambda s: -s.gap)[:MAX_RERUN_SIZES]
    return [(s.dtype, s.n) for s in ranked]
