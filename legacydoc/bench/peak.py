"""The machine's limit: peak FLOP/s from cores, clock and the widest vector FMA.

peak = physical cores x clock x FLOP per cycle per core, where FLOP per cycle comes from
the widest fused multiply-add the CPU has (an FMA is 2 FLOP per lane):

    AVX-512 (Intel, two 512-bit FMA units)   2 x 16 lanes x 2 = 64 float32 FLOP/cycle
    AVX-512 on AMD Zen 4 (256-bit units)      2 x  8 lanes x 2 = 32
    AVX2 + FMA (Haswell on, Zen 2 on)         2 x  8 lanes x 2 = 32
    AVX without FMA (Sandy/Ivy Bridge)        8 mul + 8 add    = 16
    SSE2                                      4 mul + 4 add    =  8
    float64: half of each.

It is an estimate, and it says why when it is shaky: a virtual machine, a clock that is
the current or base one rather than the all-core turbo, hyper-threads counted as cores,
a CPU whose FMA units cannot be told from its flags. Pure functions, no I/O: the command
reads /proc/cpuinfo and cpufreq and passes the text in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from legacydoc.i18n import N_
from legacydoc.structs import field, struct

# (vector class, float32 FLOP per cycle per core, label)
VECTOR_CLASSES: dict[str, tuple[int, str]] = {
    "avx512": (64, "AVX-512, two 512-bit FMA units"),
    "avx512_256": (32, "AVX-512 executed on 256-bit units (AMD Zen 4)"),
    "avx2_fma": (32, "AVX2 + FMA, two 256-bit FMA units"),
    "avx": (16, "AVX without FMA (separate 256-bit multiply and add)"),
    "sse": (8, "SSE2 (128-bit multiply and add)"),
    "neon": (16, "ARM NEON, two 128-bit FMA units"),
}


@struct
class Peak:
    """The estimate; ``gflops_f32`` is None when the clock or the vector width is unknown."""

    cores: Optional[int] = None
    cores_source: str = ""
    mhz: Optional[float] = None
    mhz_source: str = ""
    vector: str = "unknown"
    flops_per_cycle_f32: Optional[int] = None
    notes: list[str] = field(default_factory=list)

    @property
    def gflops_f32(self) -> Optional[float]:
        if not (self.cores and self.mhz and self.flops_per_cycle_f32):
            return None
        return self.cores * self.mhz / 1000.0 * self.flops_per_cycle_f32

    @property
    def gflops_f64(self) -> Optional[float]:
        f32 = self.gflops_f32
        return f32 / 2.0 if f32 is not None else None

    @property
    def uncertain(self) -> bool:
        return bool(self.notes) or self.gflops_f32 is None

    def formula(self) -> str:
        if self.gflops_f32 is None:
            return "unknown"
        return "%d cores x %.2f GHz x %d FLOP/cycle (%s)" % (
            self.cores or 0, (self.mhz or 0) / 1000.0, self.flops_per_cycle_f32 or 0, VECTOR_CLASSES[self.vector][1])

    def fraction(self, measured: Optional[float], dtype: str = "float32") -> Optional[float]:
        peak = self.gflops_f32 if dtype == "float32" else self.gflops_f64
        if not measured or not peak:
            return None
        return measured / peak

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cores": self.cores,
            "cores_source": self.cores_source,
            "mhz": self.mhz,
            "mhz_source": self.mhz_source,
            "vector": self.vector,
            "flops_per_cycle_float32": self.flops_per_cycle_f32,
            "gflops": {k: v for k, v in (("float32", _round(self.gflops_f32)), ("float64", _round(self.gflops_f64)))
                       if v is not None},
            "formula": self.formula(),
            "uncertain": self.uncertain,
            "notes": list(self.notes),
        }
        return {k: v for k, v in out.items() if v is not None}


def _round(value: Optional[float]) -> Optional[float]:
    return round(value, 1) if value is not None else None


# --- parsing ------------------------------------------------------------------------


def parse_physical_cores(cpuinfo: str) -> Optional[int]:
    """Physical cores from Linux /proc/cpuinfo: distinct (physical id, core id) pairs, or
    'cpu cores' x sockets; None when the file does not say (never raises)."""
    pairs: set[tuple[str, str]] = set()
    per_socket: dict[str, int] = {}
    physical = core = ""
    cores_line: Optional[int] = None
    for line in str(cpuinfo).splitlines() + [""]:
        if not line.strip():
            # end of one processor's block
            if core:
                pairs.add((physical, core))
            if cores_line is not None:
                per_socket[physical] = cores_line
            physical = core = ""
            cores_line = None
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "physical id":
            physical = value
        elif key == "core id":
            core = value
        elif key == "cpu cores" and value.isdigit():
            cores_line = int(value)
    if pairs:
        return len(pairs)
    if per_socket:
        return sum(per_socket.values()) or None
    return None


def parse_model_mhz(model: Any) -> Optional[float]:
    """The base clock some model names carry: 'Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz'."""
    match = re.search(r"@\s*([0-9]+(?:\.[0-9]+)?)\s*([GM])Hz", str(model or ""), re.I)
    if not match:
        return None
    value = float(match.group(1))
    return value * 1000.0 if match.group(2).upper() == "G" else value


def parse_cpufreq_khz(text: Any) -> Optional[float]:
    """cpufreq's cpuinfo_max_freq (kHz) as MHz."""
    value = str(text or "").strip()
    return int(value) / 1000.0 if value.isdigit() and int(value) > 0 else None


def vector_class(flags: Sequence[str], model: str = "", machine: str = "") -> tuple[str, list[str]]:
    """The widest FMA class from CPU flags (Linux names: avx512f, avx2, fma, avx, sse2)
    or numpy's feature names (AVX512F, AVX2, FMA3, AVX, SSE2); plus notes on doubt."""
    have = {str(f).lower() for f in flags}
    notes: list[str] = []
    is_amd = "amd" in model.lower()
    if "avx512f" in have:
        if is_amd:
            if re.search(r"EPYC\s+9\d\d5|Ryzen.*\b9\d\d\d", model):
                return "avx512", notes  # Zen 5: full-width 512-bit units
            notes.append(N_("AMD with AVX-512: Zen 4 runs it on 256-bit units (assumed here); Zen 5 has twice that"))
            return "avx512_256", notes
        notes.append(N_("AVX-512: assumes two 512-bit FMA units; "
                        "many Xeon Bronze/Silver and client CPUs have one (half this)"))
        return "avx512", notes
    if "avx2" in have and ("fma" in have or "fma3" in have):
        if is_amd and re.search(r"EPYC\s+7\d\d1|Ryzen\s+\d\s+[12]\d\d\d", model):
            notes.append(N_("AMD Zen 1 runs AVX2 on 128-bit units: half this"))
        return "avx2_fma", notes
    if "avx" in have:
        return "avx", notes
    if "sse2" in have or "sse4_2" in have:
        return "sse", notes
    if machine.lower() in ("aarch64", "arm64"):
        notes.append(N_("ARM: assumes two 128-bit NEON FMA units; SVE or Apple cores may do more"))
        return "neon", notes
    return "unknown", [N_("the CPU's vector instructions are unknown")]


def estimate(
    system: Mapping[str, Any],
    cpuinfo: str = "",
    cpufreq_max: str = "",
    numpy_features: Sequence[str] = (),
    affinity_cpus: Optional[int] = None,
) -> Peak:
    """The peak of this machine from the ``system`` facts plus what the caller read:
    /proc/cpuinfo text, cpufreq's cpuinfo_max_freq text, numpy's CPU features (used when
    the system facts carry no flags, as on Windows)."""
    peak = Peak()
    model = str(system.get("cpu_model") or "")
    flags = system.get("cpu_flags")
    if isinstance(flags, list) and flags:
        peak.vector, notes = vector_class(flags, model, str(system.get("machine", "")))
    elif numpy_features:
        peak.vector, notes = vector_class(numpy_features, model, str(system.get("machine", "")))
    else:
        peak.vector, notes = vector_class([], model, str(system.get("machine", "")))
    peak.notes.extend(notes)
    if peak.vector in VECTOR_CLASSES:
        peak.flops_per_cycle_f32 = VECTOR_CLASSES[peak.vector][0]

    logical = system.get("logical_cores") if isinstance(system.get("logical_cores"), int) else None
    physical = parse_physical_cores(cpuinfo) if cpuinfo else None
    if physical:
        peak.cores, peak.cores_source = physical, "physical cores (/proc/cpuinfo)"
    elif logical:
        peak.cores, peak.cores_source = logical, "logical CPUs"
        peak.notes.append(
            N_("physical core count unknown: counted logical CPUs (with hyper-threading the peak is half)"))
    if affinity_cpus and peak.cores and logical and affinity_cpus < logical:
        # a container or taskset: only part of the machine is ours
        peak.cores = max(1, min(peak.cores, affinity_cpus))
        peak.cores_source += ", limited to the %d CPUs this process may use" % affinity_cpus
        peak.notes.append("this process may use only %d of %d CPUs (affinity / cgroup)" % (affinity_cpus, logical))

    flags_set = {str(f).lower() for f in flags} if isinstance(flags, list) else set()
    max_mhz = parse_cpufreq_khz(cpufreq_max)
    base_mhz = parse_model_mhz(model)
    current = system.get("cpu_mhz")
    if max_mhz:
        peak.mhz, peak.mhz_source = max_mhz, "maximum boost clock (cpufreq)"
        peak.notes.append(
            N_("uses the maximum boost clock; with all cores busy on vector code CPUs usually run slower"))
    elif base_mhz:
        peak.mhz, peak.mhz_source = base_mhz, "base clock from the CPU's name"
        peak.notes.append(N_("uses the base clock from the CPU's name; turbo may run higher"))
    elif isinstance(current, (int, float)) and not isinstance(current, bool) and current > 0:
        peak.mhz, peak.mhz_source = float(current), "clock /proc/cpuinfo reports"
        peak.notes.append(N_("uses the clock /proc/cpuinfo reports (current or nominal); turbo may run higher"))
    else:
        peak.notes.append(N_("the CPU clock is unknown, so no peak can be computed"))
    if "hypervisor" in flags_set:
        peak.notes.append(N_("virtual machine: vCPUs may be hyper-threads or shared with other guests, "
                             "and the reported clock is the host's nominal one"))
    return peak
