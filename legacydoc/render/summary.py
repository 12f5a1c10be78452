"""A readable summary of a facts record, one block per area.

It reports what was *seen*, never a verdict (that is `check`'s job); a probe that
failed is shown as such, so the user knows what could not be read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Callable, TextIO

from legacydoc.areas import FACT_TABLES
from legacydoc.i18n import tr

AreaLines = Callable[[Mapping[str, Any]], list[str]]


def use_color(stream: TextIO) -> bool:
    """Colour on a terminal that can show it: never with NO_COLOR (no-color.org) or
    TERM=dumb; always with FORCE_COLOR (a CI log that renders ANSI), unless NO_COLOR."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR") not in (None, "", "0"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except Exception:
        return False


def _command_line(fact: Mapping[str, Any]) -> str:
    """'rc 255: Failed to initialize NVML: Unknown Error' style description of a command."""
    if not isinstance(fact, Mapping):
        return ""
    if fact.get("timed_out"):
        return tr("timed out after %.1f s") % fact.get("duration_s", 0)
    if fact.get("error"):
        return str(fact["error"])
    first = str(fact.get("output", "")).strip().splitlines()
    return "rc %s%s" % (fact.get("rc", "?"), (": " + first[0]) if first else "")


def _system(t: Mapping[str, Any]) -> list[str]:
    mem = ""
    if "memory_total_mib" in t:
        mem = tr(", %.1f GiB RAM") % (t["memory_total_mib"] / 1024)
        if "memory_available_mib" in t:
            mem += tr(" (%.1f GiB free)") % (t["memory_available_mib"] / 1024)
    flags = t.get("cpu_flags")
    line = tr("%s %s (%s), %s, %s logical cores%s") % (
        t.get("os_name", "?"),
        t.get("os_release", ""),
        t.get("machine", "?"),
        t.get("cpu_model", tr("unknown CPU")),
        t.get("logical_cores", "?"),
        mem,
    )
    lines = [line]
    if flags:
        lines.append(tr("CPU vector flags: %s") % " ".join(flags))
    return lines


def _python(t: Mapping[str, Any]) -> list[str]:
    if not t.get("probe_ok", "version" in t):
        cmd = t.get("command", {})
        target = t.get("executable_requested", tr("the target python"))
        return [tr("could not probe %s: %s") % (target, _command_line(cmd))]
    return [
        tr("Python %s (%s-bit, %s) at %s [chosen by %s]")
        % (
            t.get("version", "?"),
            t.get("bits", "?"),
            t.get("env_kind", "?"),
            t.get("executable", t.get("executable_requested", "?")),
            t.get("selected_by", "?"),
        )
    ] + _python_build(t)


def _python_build(t: Mapping[str, Any]) -> list[str]:
    """What Theano's compiles use of this Python, as read (the rules judge it)."""
    lines = []
    headers = t.get("headers")
    if isinstance(headers, Mapping):
        found = [name for name, key in (("Python.h", "python_h"), ("pyconfig.h", "pyconfig_h")) if headers.get(key)]
        lines.append(tr("C headers in %s: %s") % (headers.get("include_dir", "?"), ", ".join(found) or tr("none")))
    libpython = t.get("libpython")
    if isinstance(libpython, Mapping) and isinstance(libpython.get("files"), list):
        lines.append(tr("libpython files in %s: %s") % (
            ", ".join(map(str, libpython.get("dirs_listed") or [])) or "?",
            ", ".join(map(str, libpython["files"])) or tr("none")))
    return lines


def _packages(t: Mapping[str, Any]) -> list[str]:
    found = [
        "%s %s" % (v.get("name", k), v.get("version", "?"))
        for k, v in sorted(t.items())
        if isinstance(v, Mapping) and "version" in v
    ]
    lines = [", ".join(found) if found else tr("none of the packages that matter is installed")]
    for module, result in sorted((t.get("import_check") or {}).items()):
        if isinstance(result, Mapping):
            state = tr("ok") if result.get("ok") else tr("FAILS: %s") % result.get("error", "?")
            lines.append(tr("import %s: %s") % (module, state))
    claimed = t.get("theano_claimed_by")
    if isinstance(claimed, list) and len(claimed) > 1:
        lines.append(tr("the theano package directory is claimed by: %s") % ", ".join(map(str, claimed)))
    return lines


def _gpu(t: Mapping[str, Any]) -> list[str]:
    smi = t.get("nvidia_smi", {})
    if "macos_cuda_driver" in t and not smi.get("found", False):  # macOS: no nvidia-smi there
        if not t["macos_cuda_driver"]:
            return [tr("no CUDA driver for macOS (CUDA.framework)")]
        level = t.get("driver_cuda_api_version")
        return [tr("CUDA driver for macOS (CUDA %s)") % level if level else tr("CUDA driver for macOS")]
    if not smi.get("found", False):
        return [tr("nvidia-smi not found")]
    lines = []
    if smi.get("rc", 0) != 0 or smi.get("timed_out"):
        first = str(smi.get("output", "")).strip().splitlines()
        if smi.get("timed_out"):
            lines.append(tr("nvidia-smi at %s timed out") % smi.get("path", "?"))
        else:
            lines.append("nvidia-smi rc %s%s" % (smi.get("rc", "?"), (": " + first[0]) if first else ""))
    if t.get("driver_version"):
        cuda = tr(" (driver supports CUDA %s)") % t["driver_cuda_version"] if t.get("driver_cuda_version") else ""
        lines.append(tr("NVIDIA driver %s%s") % (t["driver_version"], cuda))
    for dev in t.get("devices", []) or []:
        cc = tr(", compute %s") % dev["compute_capability"] if dev.get("compute_capability") else ""
        mem = ", %s MiB" % dev["memory_total_mib"] if dev.get("memory_total_mib") else ""
        lines.append("GPU %s: %s%s%s" % (dev.get("index", "?"), dev.get("name", "?"), mem, cc))
    return lines or [tr("nvidia-smi found at %s") % smi.get("path", "?")]


def _cuda(t: Mapping[str, Any]) -> list[str]:
    lines = []
    nvcc = t.get("nvcc", {})
    if nvcc.get("found"):
        lines.append(tr("nvcc %s on PATH: %s") % (
            nvcc.get("version_full", nvcc.get("version", "?")), nvcc.get("path", "?")))
    else:
        lines.append(tr("no nvcc on PATH"))
    for kit in t.get("toolkits", []) or []:
        lines.append(
            tr("toolkit %s at %s (found by %s)")
            % (kit.get("version", tr("unknown version")), kit.get("root", "?"),
               ", ".join(kit.get("found_by", [])) or "?")
        )
    return lines


def _cudnn(t: Mapping[str, Any]) -> list[str]:
    headers = t.get("headers", []) or []
    libs = t.get("libraries", []) or []
    if not headers and not libs:
        return [tr("no cuDNN header or library found")]
    lines = [tr("cuDNN %s header at %s") % (h.get("version", "?"), h.get("path", "?")) for h in headers]
    if libs:
        lines.append(tr("cuDNN libraries: %s") % ", ".join(str(lib.get("name", "?")) for lib in libs[:6]))
    return lines


def _libraries(t: Mapping[str, Any]) -> list[str]:
    winners = t.get("winner", {}) or {}
    lines = []
    for kind in sorted(winners):
        by_name = winners[kind]
        if not isinstance(by_name, Mapping):
            continue
        for name, win in sorted(by_name.items()):
            if isinstance(win, Mapping):
                cuda = ", CUDA %s" % win["cuda"] if win.get("cuda") else ""
                copies = tr(", %d copies") % win["copies"] if win.get("copies", 1) > 1 else ""
                lines.append(tr("%s: %s (via %s%s%s)") % (
                    kind, win.get("path", name), win.get("source", "?"), cuda, copies))
    return lines or [tr("no CUDA runtime, cuBLAS, NVRTC or cuDNN library on the loader path")]


def _path(t: Mapping[str, Any]) -> list[str]:
    entries = t.get("entries", []) or []
    missing = sum(1 for e in entries if isinstance(e, Mapping) and not e.get("exists", True))
    dups = t.get("duplicates", 0)
    lines = [tr("%d PATH entries (%d missing, %d duplicates)") % (len(entries), missing, dups)]
    for shadow in t.get("shadowed", []) or []:
        if isinstance(shadow, Mapping):
            lines.append(
                tr("%s found %d times; first: %s")
                % (shadow.get("tool", "?"), 1 + len(shadow.get("others", [])), shadow.get("winner", "?"))
            )
    return lines


def _compilers(t: Mapping[str, Any]) -> list[str]:
    lines = []
    gxx = t.get("gxx", {})
    if gxx.get("found"):
        extra = ", ".join(str(gxx[k]) for k in ("target", "thread_model", "exception_model") if gxx.get(k))
        lines.append(tr("g++ %s at %s%s") % (
            gxx.get("version", "?"), gxx.get("path", "?"), (" (%s)" % extra) if extra else ""))
    else:
        lines.append(tr("no g++ found"))
    xcode = t.get("xcode", {})
    if isinstance(xcode, Mapping) and xcode.get("found") and xcode.get("version"):
        # macOS: whose clang /usr/bin/g++ is, second on the area line
        name = tr("Command Line Tools %s") if xcode.get("tools") == "command-line-tools" else tr("Xcode %s")
        lines.append(name % xcode["version"])
    elif isinstance(xcode, Mapping) and xcode.get("found") is False:
        lines.append(tr("no Xcode or Command Line Tools selected (xcode-select -p)"))
    if t.get("gxx_count", 0) > 1:
        lines.append(tr("%d g++ toolchains found") % t["gxx_count"])
    msvc = t.get("msvc", {})
    if msvc.get("found"):
        lines.append(tr("MSVC cl.exe %s at %s") % (msvc.get("version", "?"), msvc.get("path", "?")))
    return lines


def _theano_config(t: Mapping[str, Any]) -> list[str]:
    lines = []
    for f in t.get("files", []) or []:
        if isinstance(f, Mapping):
            state = tr("exists") if f.get("exists") else tr("absent")
            lines.append("%s (%s, %s)" % (f.get("path", "?"), f.get("from", "?"), state))
    for f in t.get("unread_files", []) or []:
        if isinstance(f, Mapping):
            lines.append(tr("%s exists but Theano will not read it") % f.get("path", "?"))
    flags = t.get("flags", {}) or {}
    for name, value in sorted(flags.items()):
        lines.append("%s=%s" % (name, value))
    cache = t.get("compiledir", {}) or {}
    if cache.get("base_compiledir"):
        lines.append(
            tr("compile cache %s (%s%s)")
            % (
                cache["base_compiledir"],
                tr("exists") if cache.get("exists") else tr("absent"),
                tr(", not writable") if cache.get("exists") and not cache.get("writable", True) else "",
            )
        )
    return lines or [tr("no Theano config file found")]


def _env(t: Mapping[str, Any]) -> list[str]:
    names = [n for n in (t.get("variables", {}) or {}) if n not in ("PATH", "LD_LIBRARY_PATH")]
    return [tr("set: %s") % ", ".join(names)] if names else [tr("no CUDA/Theano/BLAS variables set")]


# How each fact table is described; legacydoc.areas gives the order and the titles.
DESCRIBE: dict[str, AreaLines] = {
    "system": _system,
    "python": _python,
    "packages": _packages,
    "gpu": _gpu,
    "cuda": _cuda,
    "cudnn": _cudnn,
    "libraries": _libraries,
    "path": _path,
    "compilers": _compilers,
    "theano_config": _theano_config,
    "env": _env,
}


def area_line(record: Mapping[str, Any], tables: Sequence[str], width: int = 110) -> str:
    """What was found in an area, on one line: the key versions and paths."""
    parts: list[str] = []
    for name in tables:
        facts = record.get(name)
        if not isinstance(facts, Mapping) or name not in DESCRIBE:
            continue
        try:
            lines = DESCRIBE[name](facts)
        except Exception:  # a surprising record must not break the check's first screen
            continue
        parts.extend(line for line in lines[:2] if line and "?" not in line)
    text = "; ".join(parts)
    return text if len(text) <= width else text[: width - 3] + "..."


def render_summary(record: Mapping[str, Any], color: bool = False) -> str:
    bold = ("\033[1m", "\033[0m") if color else ("", "")
    out = []
    for table in FACT_TABLES:
        describe = DESCRIBE[table.name]
        facts = record.get(table.name, {}) or {}
        out.append("%s%s%s" % (bold[0], table.title, bold[1]))
        if facts.get("probe_error"):
            out.append(tr("  probe failed: %s") % facts["probe_error"])
            continue
        try:
            lines = describe(facts)
        except Exception as exc:  # a surprising facts file must not break the summary
            lines = [tr("(cannot summarise: %s: %s)") % (type(exc).__name__, exc)]
        out.extend("  " + line for line in lines)
    return "\n".join(out)


__all__ = ["area_line", "render_summary", "use_color"]
