"""The machine itself: OS, CPU and memory.

Memory comes from the OS's own interface (Linux /proc/meminfo, Windows
GlobalMemoryStatusEx, macOS sysctl); the CPU's flags matter for the GEMM baseline
(AVX-512 / AVX2+FMA / AVX / SSE decide the machine's peak).
"""

from __future__ import annotations

import os
import platform
import re
import sys
from pathlib import Path
from typing import Any, Optional

from legacydoc.probes.context import ProbeContext, platform_family
from legacydoc.safe_io import read_small

# The vector-width flags the bench needs; the full /proc/cpuinfo list is long and noisy.
INTERESTING_FLAGS = ("sse2", "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni", "hypervisor")
# A batch system's submit command on PATH: this machine sends jobs to a cluster's nodes,
# which see the same home folder (rule LD545). Slurm, PBS or Grid Engine, LSF.
BATCH_COMMANDS = ("sbatch", "qsub", "bsub")


def parse_meminfo(text: str) -> dict[str, int]:
    """MemTotal/MemAvailable (kB in the file) as MiB. Missing lines are left out."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        match = re.match(r"^(MemTotal|MemAvailable|MemFree):\s+(\d+)\s*kB", line)
        if match:
            key = {"MemTotal": "memory_total_mib", "MemAvailable": "memory_available_mib", "MemFree": "_free"}[
                match.group(1)
            ]
            out[key] = int(match.group(2)) // 1024
    if "memory_available_mib" not in out and "_free" in out:
        out["memory_available_mib"] = out["_free"]  # kernels before 3.14 have no MemAvailable
    out.pop("_free", None)
    return out


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """CPU model, MHz and the vector flags from Linux /proc/cpuinfo (first processor)."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "model name" and "cpu_model" not in out:
            out["cpu_model"] = value
        elif key == "cpu MHz" and "cpu_mhz" not in out:
            try:
                out["cpu_mhz"] = round(float(value))
            except ValueError:
                pass
        elif key == "flags" and "cpu_flags" not in out:
            present = set(value.split())
            out["cpu_flags"] = [flag for flag in INTERESTING_FLAGS if flag in present]
    return out


def _read_text(path: str, limit: int = 1 << 20) -> str:
    data = read_small(path, limit)
    return data.decode("utf-8", errors="replace") if data is not None else ""


def parse_os_release(text: str) -> dict[str, str]:
    """/etc/os-release: ID and VERSION_ID as distro and distro_version."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        value = value.strip().strip("\"'")
        if key.strip() == "ID" and value:
            out["distro"] = value[:64]
        elif key.strip() == "VERSION_ID" and value:
            out["distro_version"] = value[:64]
    return out


def glibc_version() -> str:
    """The C library's version ('2.31'), '' when not glibc (musl, macOS, Windows)."""
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        return ""
    name, _, version = text.partition(" ")
    return version if name == "glibc" else ""


def _windows_memory() -> dict[str, int]:
    import ctypes

    class MemoryStatusEx(ctypes.Structure):
        _fields_ = [
            ("dwLength", ctypes.c_ulong),
            ("dwMemoryLoad", ctypes.c_ulong),
            ("ullTotalPhys", ctypes.c_ulonglong),
            ("ullAvailPhys", ctypes.c_ulonglong),
            ("ullTotalPageFile", ctypes.c_ulonglong),
            ("ullAvailPageFile", ctypes.c_ulonglong),
            ("ullTotalVirtual", ctypes.c_ulonglong),
            ("ullAvailVirtual", ctypes.c_ulonglong),
            ("ullAvailExtendedVirtual", ctypes.c_ulonglong),
        ]

    status = MemoryStatusEx()
    status.dwLength = ctypes.sizeof(MemoryStatusEx)
    if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
        return {}
    return {
        "memory_total_mib": status.ullTotalPhys // (1 << 20),
        "memory_available_mib": status.ullAvailPhys // (1 << 20),
    }


# `csrutil status` (macOS 10.11 and later) says "System Integrity Protection status:
# enabled." or "disabled."; a custom configuration, an older macOS without csrutil and a
# failed run leave it unknown.
_SIP_STATUS = re.compile(r"System Integrity Protection status:\s*(enabled|disabled)\.", re.IGNORECASE)


def parse_csrutil_status(text: str) -> Optional[bool]:
    match = _SIP_STATUS.search(text or "")
    return None if match is None else match.group(1).lower() == "enabled"


def _sip_enabled(ctx: ProbeContext) -> Optional[bool]:
    result = ctx.run(["csrutil", "status"])
    return parse_csrutil_status(result.stdout) if result.ok else None


def _sysctl(ctx: ProbeContext, name: str) -> str:
    result = ctx.run(["sysctl", "-n", name])
    return result.stdout.strip() if result.ok else ""


def _distinct(values: list[str], first: str, fold: bool) -> list[str]:
    """Non-empty values other than ``first`` (case-folded when ``fold``), each once."""
    seen = {first.lower() if fold else first}
    out = []
    for value in values:
        key = value.lower() if fold else value
        if value and key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _windows_short_path(path: str) -> str:
    import ctypes

    buf = ctypes.create_unicode_buffer(1024)
    n = ctypes.windll.kernel32.GetShortPathNameW(path, buf, len(buf))  # type: ignore[attr-defined]
    return buf.value if 0 < n < len(buf) else ""


def identity(ctx: ProbeContext) -> dict[str, Any]:
    """User name, host name and home folder, with their other spellings.

    Recorded so that redaction (legacydoc.redact) knows what to hide: every shared output
    replaces them by <user>, <host>, <home>. home_has_space / home_non_ascii survive that,
    because such a home breaks Theano's compile cache on Windows.
    """
    names = ("USERNAME", "USER", "LOGNAME") if ctx.is_windows else ("USER", "LOGNAME", "USERNAME")
    users = [ctx.env(n) for n in names]
    homes = [ctx.home()]
    same_os = platform_family(sys.platform) == ctx.family  # host-side lookups only make sense then
    if same_os and not ctx.is_windows:
        try:
            import pwd

            entry = pwd.getpwuid(os.getuid())
            users.append(entry.pw_name)
            homes.append(entry.pw_dir)
        except Exception:  # no passwd entry (containers): the environment is all we have
            pass
    if ctx.is_windows:
        homes += [ctx.env("USERPROFILE"), ctx.env("HOMEDRIVE") + ctx.env("HOMEPATH")]
    if same_os and homes[0]:
        try:
            homes.append(os.path.realpath(homes[0]))
            if ctx.is_windows:
                homes.append(_windows_short_path(homes[0]))
        except Exception:
            pass
    user = next((u for u in users if u), "")
    host = platform.node()
    home = homes[0]
    facts: dict[str, Any] = {"user": user, "hostname": host, "home": home}
    fold = ctx.is_windows
    facts["user_aliases"] = _distinct(users, user, fold)
    facts["host_aliases"] = _distinct([ctx.env("COMPUTERNAME"), ctx.env("HOSTNAME")], host, True)
    facts["home_aliases"] = _distinct([h.rstrip("/\\") or h for h in homes], home, fold)
    if home:
        facts["home_has_space"] = " " in home
        facts["home_non_ascii"] = not home.isascii()
    return {k: v for k, v in facts.items() if v not in ("", [])}


def collect(ctx: ProbeContext) -> dict[str, Any]:
    uname = platform.uname()
    facts: dict[str, Any] = {
        "os": ctx.family,
        "os_name": uname.system,
        "os_release": uname.release,
        "os_version": uname.version,
        "machine": uname.machine,
        "logical_cores": os.cpu_count() or 0,
        "python_platform": platform.platform(),
    }
    if ctx.family == "linux":
        facts.update(parse_cpuinfo(_read_text("/proc/cpuinfo")))
        facts.update(parse_meminfo(_read_text("/proc/meminfo")))
        if Path("/proc/sys/fs/binfmt_misc/WSLInterop").exists() or "microsoft" in uname.release.lower():
            facts["wsl"] = True
        facts.update(parse_os_release(_read_text("/etc/os-release") or _read_text("/usr/lib/os-release")))
        glibc = glibc_version()
        if glibc:
            facts["glibc"] = glibc
    elif ctx.is_windows:
        facts["cpu_model"] = platform.processor() or ctx.env("PROCESSOR_IDENTIFIER")
        try:
            facts.update(_windows_memory())
        except Exception as exc:  # ctypes missing or the call failed: record, go on
            facts["memory_error"] = "%s: %s" % (type(exc).__name__, exc)
        # Windows keeps no flags list; the bench falls back to what numpy reports.
    elif ctx.family == "darwin":
        facts["macos_version"] = platform.mac_ver()[0]
        facts["cpu_model"] = _sysctl(ctx, "machdep.cpu.brand_string")
        total = _sysctl(ctx, "hw.memsize")
        if total.isdigit():
            facts["memory_total_mib"] = int(total) // (1 << 20)
        features = (_sysctl(ctx, "machdep.cpu.features") + " " + _sysctl(ctx, "machdep.cpu.leaf7_features")).lower()
        facts["cpu_flags"] = [
            flag for flag in INTERESTING_FLAGS if flag.replace("_", "") in features.replace(".", "").split()
        ]
        sip = _sip_enabled(ctx)
        if sip is not None:
            facts["sip_enabled"] = sip
    if not facts.get("cpu_model"):
        facts["cpu_model"] = platform.processor() or uname.machine
    if not ctx.is_windows:
        facts["batch_commands"] = [name for name in BATCH_COMMANDS if ctx.which(name)]  # [] is "none"
    facts.update(identity(ctx))
    return facts
