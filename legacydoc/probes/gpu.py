"""The gpu probe: what nvidia-smi says about the NVIDIA driver and the GPUs.

It runs at most three commands, in this order:

1. ``nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`` (machine-readable
   device list);
2. the same query without ``compute_cap``, only when the driver rejected that field
   (drivers before about R510 do);
3. plain ``nvidia-smi``, whose header box is the only place older drivers print the
   highest CUDA version they support, and whose table shows each GPU's compute mode
   (whether several processes may share it).

Each command is recorded verbatim (``CommandResult.to_fact``) beside the parsed values,
so a rule can quote what the user would have seen. After a timeout nothing more is run:
a hung nvidia-smi usually means a hung driver, and every further call would hang too.
On Linux the kernel module's own version is read from /proc/driver/nvidia/version,
because "Driver/library version mismatch" is the two disagreeing; and whether the
unified-memory module (nvidia_uvm, in /proc/modules) is loaded and its device node
/dev/nvidia-uvm exists, because CUDA needs both and cuInit fails with "unknown error"
when the driver could not load them on first use.

macOS has no nvidia-smi (nvidia-smi(1): Linux and 64-bit Windows only): there the probe
records whether the CUDA driver for macOS is installed, as the file libgpuarray loads
(/Library/Frameworks/CUDA.framework/CUDA, src/loaders/libcuda.c), and asks that driver
for its CUDA level.

The probe records; it does not judge.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Sequence
from typing import Any, Callable, Optional

from legacydoc.probes.context import ProbeContext
from legacydoc.probes.run import CommandResult, head
from legacydoc.safe_io import read_small

# The query we ask for. Order matters: parse_query_csv maps columns by position.
QUERY_FIELDS: tuple[str, ...] = ("index", "name", "memory.total", "driver_version", "compute_cap", "pci.bus_id")
# Older drivers reject compute_cap as a query field; everything else here is ancient.
QUERY_FIELDS_NO_CC: tuple[str, ...] = tuple(f for f in QUERY_FIELDS if f != "compute_cap")
FORMAT_ARG = "--format=csv,noheader,nounits"
# Read through this name (not a default argument) so tests can point it elsewhere.
PROC_DRIVER_VERSION = "/proc/driver/nvidia/version"
PROC_MODULES = "/proc/modules"
UVM_DEVICE_NODE = "/dev/nvidia-uvm"
# The MPS control daemon's pipes (NVIDIA's MPS guide: CUDA_MPS_PIPE_DIRECTORY, default
# /tmp/nvidia-mps). With MPS, an exclusive compute mode binds the MPS server, not its
# clients, so many processes share one GPU even in exclusive-process mode.
MPS_PIPE_DIR_DEFAULT = "/tmp/nvidia-mps"
MPS_SERVER_NAME = "nvidia-cuda-mps-server"
# The process list, for a daemon whose pipes are elsewhere (CUDA_MPS_PIPE_DIRECTORY set only
# in the daemon's own shell). The kernel keeps 15 characters of a program's name in
# /proc/<pid>/comm (proc(5), TASK_COMM_LEN 16), so nvidia-cuda-mps-control and
# nvidia-cuda-mps-server both read as this.
PROC_ROOT = "/proc"
MPS_COMM = b"nvidia-cuda-mps"
# Entries of /proc read at most: a machine runs a few thousand processes, not more.
PROC_SCAN_LIMIT = 65536
MACOS_CUDA_DRIVER = "/Library/Frameworks/CUDA.framework/CUDA"
# /proc/modules holds one short line per loaded module: a few hundred lines at most.
PROC_MODULES_LIMIT = 1024 * 1024
# How many lines of the first command's output the convenience fact keeps: error
# messages are one to three lines; the full record is in the command's own fact.
OUTPUT_LINES = 10

# Driver versions are NNN.NN or NNN.NN.NN (340.108, 451.67, 535.183.01). The lookahead
# stops "535.1834" or a following dotted number being read as a shorter version.
_VERSION = r"\d{2,4}(?:\.\d{1,3}){1,2}(?![\d.])"
# "NVIDIA-SMI 451.67" (box header) and "NVIDIA-SMI version  : 550.54.14" (--version);
# "NVIDIA-SMI has failed ..." must not match, hence a version right after the name.
_SMI_RE = re.compile(r"NVIDIA-SMI(?:\s+version)?[ \t]*:?[ \t]*(%s)" % _VERSION, re.IGNORECASE)
# "Driver Version: 451.67" (box), "Driver Version     : 450.66" (-q),
# "DRIVER version : 550.54.14" (--version). "Driver/library version" cannot match.
_DRIVER_RE = re.compile(r"\bDriver[ \t]+Version[ \t]*:[ \t]*(%s)" % _VERSION, re.IGNORECASE)
# "CUDA Version: 12.8"; absent before R410, "N/A" on some broken installs.
_CUDA_RE = re.compile(r"\bCUDA[ \t]+Version[ \t]*:[ \t]*(\d{1,2}\.\d{1,2})(?![\d.])", re.IGNORECASE)
# 'Field "compute_cap" is not a valid field to query.' (quotes vary by platform).
_CC_REJECTED_RE = re.compile(r"compute_cap\W{0,3}\s*is not a valid field", re.IGNORECASE)
# /proc/driver/nvidia/version: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01 ..."
# or "... Open Kernel Module for x86_64  570.133.07 ..." (digits in x86_64 are not a version).
_PROC_RE = re.compile(r"NVRM version:[^\n]*?(?<![\w.])(%s)" % _VERSION)
_INT_RE = re.compile(r"^(\d{1,9})(?:\s*MiB)?$")
_CC_RE = re.compile(r"^\d{1,2}\.\d{1,2}$")
# 00000000:01:00.0 on current drivers, 0000:01:00.0 on R3xx.
_BUS_ID_RE = re.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")
_DRIVER_VALUE_RE = re.compile(r"^%s$" % _VERSION)
# The plain box: a GPU's first line holds its index and bus id, the next one ends with
# "<GPU-Util>  <Compute M.> |". nvidia-smi(1) names the modes Default, Exclusive_Process,
# Exclusive_Thread (gone since CUDA 8's drivers) and Prohibited; the box abbreviates the
# exclusive ones ("E. Process"). Anything else is left unread, not guessed.
_BOX_GPU_RE = re.compile(r"^\|\s+(\d{1,3})\s+\S.*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]\b")
_BOX_MODE_RE = re.compile(
    r"MiB\s*\|\s*(?:\d{1,3}\s*%|N/A)\s+(Default|E\. Process|E\. Thread|Exclusive_Process|Exclusive_Thread|Prohibited)"
    r"\s*\|\s*$")
# R450+ boxes add a third line per GPU whose last cell is the MIG mode.
_BOX_MIG_ENABLED_RE = re.compile(r"^\|.*\|\s*Enabled\s*\|$")
COMPUTE_MODES = {"Default": "default", "E. Process": "exclusive_process", "Exclusive_Process": "exclusive_process",
                 "E. Thread": "exclusive_thread", "Exclusive_Thread": "exclusive_thread", "Prohibited": "prohibited"}


# --- pure parsers (never raise) ---------------------------------------------------------


def _as_text(value: Any) -> str:
    """Parsers take str; bytes are decoded leniently and anything else reads as empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return ""


def _unavailable(value: str) -> bool:
    """nvidia-smi's placeholders: "[N/A]", "[Not Supported]", "[Unknown Error]", bare N/A."""
    return not value or value.upper() == "N/A" or (value.startswith("[") and value.endswith("]"))


def parse_query_csv(text: Any, fields: Any) -> list[dict[str, str]]:
    """Rows of ``--query-gpu=... --format=csv,noheader,nounits`` as {field: value}.

    Only lines with one column per field are rows (error messages, warnings and a
    truncated last line are skipped); when ``index`` is queried it must be a number.
    Placeholder values such as "[N/A]" are left out, so a missing key means "not reported".
    """
    text = _as_text(text)
    if isinstance(fields, (str, bytes)) or not isinstance(fields, (list, tuple)):
        return []  # a single string is a caller bug, not a field list
    names = [f for f in fields if isinstance(f, str)]
    if not names or len(names) != len(fields):
        return []
    rows: list[dict[str, str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split(",")]
        surplus = len(parts) - len(names)
        if surplus > 0 and "name" in names:
            # No quoting in nvidia-smi's CSV: a comma inside a board name splits it.
            at = names.index("name")
            parts[at : at + surplus + 1] = [", ".join(parts[at : at + surplus + 1])]
        if len(parts) != len(names):
            continue
        row = {name: value for name, value in zip(names, parts) if not _unavailable(value)}
        if "index" in names and not row.get("index", "").isdigit():
            continue  # prose with commas in it, not a device row
        rows.append(row)
    return rows


def parse_header(text: Any) -> dict[str, str]:
    """Versions from nvidia-smi's header: driver_version, cuda_version, smi_version.

    Works on the box header of every era (R340/R375 have no CUDA Version, R410-R535
    and the wider R545+ box have it), on ``nvidia-smi -q`` ("Driver Version : 450.66")
    and on ``nvidia-smi --version``. Keys that were not printed are absent.
    """
    text = _as_text(text)
    found: dict[str, str] = {}
    for key, pattern in (("driver_version", _DRIVER_RE), ("cuda_version", _CUDA_RE), ("smi_version", _SMI_RE)):
        match = pattern.search(text)
        if match:
            found[key] = match.group(1)
    return found


def parse_compute_modes(text: Any) -> dict[int, str]:
    """Each GPU's compute mode from plain nvidia-smi's box, as {index: "default" |
    "exclusive_process" | "exclusive_thread" | "prohibited"}. A GPU whose mode line is
    missing or unreadable (a truncated box) is left out."""
    modes: dict[int, str] = {}
    index: Optional[int] = None
    just_read: Optional[int] = None
    for line in _as_text(text).splitlines():
        line = line.rstrip()
        if just_read is not None and _BOX_MIG_ENABLED_RE.search(line):
            # MIG on: the GPU's own mode says nothing sure about its instances
            del modes[just_read]
        just_read = None
        gpu_line = _BOX_GPU_RE.match(line)
        if gpu_line:
            index = int(gpu_line.group(1))
            continue
        mode = _BOX_MODE_RE.search(line)
        if mode and index is not None and index not in modes:
            modes[index] = COMPUTE_MODES[mode.group(1)]
            just_read = index
        index = None  # the mode is on the line right after the GPU's own
    return modes


def parse_proc_version(text: Any) -> dict[str, str]:
    """The kernel module version from /proc/driver/nvidia/version, as {"driver_version": ...}."""
    match = _PROC_RE.search(_as_text(text))
    return {"driver_version": match.group(1)} if match else {}


def devices_from_rows(rows: Sequence[dict[str, str]]) -> list[dict[str, Any]]:
    """Query rows to device facts. Values that do not look like what the field holds
    (a truncated bus id, "8." for a compute capability) are left out, not guessed."""
    devices: list[dict[str, Any]] = []
    for row in rows:
        device: dict[str, Any] = {}
        index = row.get("index", "")
        if index.isdigit():
            device["index"] = int(index)
        name = row.get("name", "")
        if name:
            device["name"] = name[:200]
        memory = _INT_RE.match(row.get("memory.total", ""))
        if memory:
            device["memory_total_mib"] = int(memory.group(1))
        cc = row.get("compute_cap", "")
        if _CC_RE.match(cc):
            device["compute_capability"] = cc
        bus_id = row.get("pci.bus_id", "")
        if _BUS_ID_RE.match(bus_id):
            device["pci_bus_id"] = bus_id
        devices.append(device)
    return devices


def rejects_compute_cap(output: Any) -> bool:
    """True when nvidia-smi refused compute_cap as a query field (older drivers)."""
    return bool(_CC_REJECTED_RE.search(_as_text(output)))


# --- finding nvidia-smi -------------------------------------------------------------------


def windows_candidates(ctx: ProbeContext) -> list[str]:
    """Where Windows drivers put nvidia-smi.exe when it is not on PATH: System32 (DCH
    drivers) and NVSMI under the 64-bit Program Files (older drivers)."""
    pathmod = ctx.pathmod
    system_root = ctx.env("SystemRoot") or ctx.env("windir") or "C:\\Windows"
    # ProgramW6432 is the 64-bit folder even when a 32-bit Python sees Program Files (x86).
    program_files = ctx.env("ProgramW6432") or ctx.env("ProgramFiles") or "C:\\Program Files"
    return [
        pathmod.join(system_root, "System32", "nvidia-smi.exe"),
        pathmod.join(program_files, "NVIDIA Corporation", "NVSMI", "nvidia-smi.exe"),
    ]


def find_nvidia_smi(
    ctx: ProbeContext, isfile: Callable[[str], bool] = os.path.isfile
) -> tuple[Optional[str], list[str]]:
    """(path or None, where we looked). "PATH" stands for the PATH search."""
    searched = ["PATH"]
    found = ctx.which("nvidia-smi")
    if found:
        return found, searched
    if ctx.is_windows:
        for candidate in windows_candidates(ctx):
            searched.append(candidate)
            try:
                exists = bool(isfile(candidate))
            except (OSError, ValueError):
                exists = False
            if exists:
                return candidate, searched
    return None, searched


def read_proc_driver_version(path: str) -> Optional[str]:
    """The loaded kernel module's version, or None when the file is absent or unreadable."""
    data = read_small(path, 4096)  # two short lines; never a runaway file, never a FIFO
    if data is None:
        return None
    return parse_proc_version(data.decode("utf-8", errors="replace")).get("driver_version")


def read_uvm_module_loaded(path: str) -> Optional[bool]:
    """Whether nvidia_uvm is among the loaded kernel modules; None when the list cannot be
    read (no /proc, a sandbox that hides it)."""
    data = read_small(path, PROC_MODULES_LIMIT)
    if not data:  # unreadable, or empty as some sandboxes show it: nothing known
        return None
    names = (line.split(" ", 1)[0] for line in data.decode("utf-8", errors="replace").splitlines())
    return "nvidia_uvm" in names


def _is(path: str, kind: Callable[[int], bool],
        absent: tuple[type[OSError], ...] = (FileNotFoundError, NotADirectoryError)) -> Optional[bool]:
    """Whether ``path`` is there as that kind of file; None when that cannot be told."""
    try:
        return kind(os.stat(path).st_mode)
    except absent:
        return False
    except (OSError, ValueError):
        return None


def uvm_device_node_exists(path: str) -> Optional[bool]:
    """Whether /dev/nvidia-uvm exists as a character device; None when /dev cannot be read
    (a /dev that is not a folder is not a /dev to judge by)."""
    return _is(path, stat.S_ISCHR, absent=(FileNotFoundError,))


def folder_exists(path: str) -> Optional[bool]:
    """Whether a folder is there; None when that cannot be told."""
    return _is(path, stat.S_ISDIR)


def mps_process_running(proc_root: str, limit: int = PROC_SCAN_LIMIT) -> Optional[bool]:
    """Whether an MPS control daemon or server runs here, by the names in /proc/<pid>/comm;
    None when the process list cannot be read whole: no /proc, one mounted with hidepid
    (other users' processes hidden: the daemon usually runs as root), or too many entries."""
    if read_small(os.path.join(proc_root, "1", "comm"), 64) is None:
        return None
    try:
        with os.scandir(proc_root) as entries:
            for seen, entry in enumerate(entries):
                if seen >= limit:
                    return None
                if not entry.name.isdigit():
                    continue
                # a process that ended meanwhile reads as None: it is no daemon
                if (read_small(os.path.join(entry.path, "comm"), 64) or b"").strip() == MPS_COMM:
                    return True
    except (OSError, ValueError):
        return None
    return False


def macos_cuda_driver_exists(path: str) -> Optional[bool]:
    """Whether the CUDA driver for macOS is installed; None when that cannot be told."""
    return _is(path, stat.S_ISREG)


def query_argv(path: str, fields: Sequence[str]) -> list[str]:
    return [path, "--query-gpu=" + ",".join(fields), FORMAT_ARG]


# --- the probe ------------------------------------------------------------------------------


def collect(ctx: ProbeContext) -> dict[str, Any]:
    table: dict[str, Any] = {}
    smi: dict[str, Any] = {}
    table["nvidia_smi"] = smi
    path, searched = find_nvidia_smi(ctx)
    smi["found"] = path is not None
    if path is not None:
        smi["path"] = path
    smi["searched"] = searched
    if ctx.family == "linux":
        proc_version = read_proc_driver_version(PROC_DRIVER_VERSION)
        if proc_version:
            table["proc_driver_version"] = proc_version
        table["mps_pipe_dir"] = ctx.env("CUDA_MPS_PIPE_DIRECTORY") or MPS_PIPE_DIR_DEFAULT
        for key, value in (("uvm_module_loaded", read_uvm_module_loaded(PROC_MODULES)),
                           ("uvm_device_node", uvm_device_node_exists(UVM_DEVICE_NODE)),
                           ("mps_pipe_dir_exists", folder_exists(table["mps_pipe_dir"])),
                           ("mps_process_running", mps_process_running(PROC_ROOT))):
            if value is not None:
                table[key] = value
    if ctx.family == "darwin":
        present = macos_cuda_driver_exists(MACOS_CUDA_DRIVER)
        if present is not None:
            table["macos_cuda_driver"] = present
        if present:  # nvidia-smi never answers here: the driver itself says its CUDA level
            api = driver_api_cuda_version(ctx)
            if api:
                table["driver_cuda_api_version"] = api
    if path is not None:
        _run_nvidia_smi(ctx, path, table, smi)
    if smi.get("rc") == 0 and not smi.get("timed_out") and not table.get("driver_cuda_version"):
        # nvidia-smi's header names the driver's CUDA level only from R410 on; older
        # drivers answer the driver API itself. Only asked of a driver that just answered
        # nvidia-smi: one that hangs or fails there would do the same here.
        api = driver_api_cuda_version(ctx)
        if api:
            table["driver_cuda_api_version"] = api
    return table


# Run in a child (legacydoc's own Python) under the probe's timeout: loading a broken
# driver library can hang or crash, and must not take legacydoc with it.
DRIVER_API_SCRIPT = (
    "import ctypes, sys\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        lib = ctypes.CDLL(name)\n"
    "    except OSError:\n"
    "        continue\n"
    "    v = ctypes.c_int(0)\n"
    "    print('%s %d %d' % (name, lib.cuDriverGetVersion(ctypes.byref(v)), v.value))\n"
    "    break\n"
)
DRIVER_LIBRARIES = {
    "linux": ("libcuda.so.1", "libcuda.so"),
    "windows": ("nvcuda.dll",),
    "darwin": (MACOS_CUDA_DRIVER, "/usr/local/cuda/lib/libcuda.dylib", "libcuda.dylib"),
}


def parse_driver_api_output(text: Any) -> Optional[str]:
    """'<library> <rc> <version>' -> '9.0' (cuDriverGetVersion's 1000*major + 10*minor)."""
    parts = _as_text(text).strip().split()
    if len(parts) < 3 or parts[-2] != "0" or not parts[-1].isdigit() or len(parts[-1]) > 6:
        return None
    number = int(parts[-1])
    if number < 1000:
        return None
    return "%d.%d" % (number // 1000, (number % 1000) // 10)


def driver_api_cuda_version(ctx: ProbeContext) -> Optional[str]:
    names = DRIVER_LIBRARIES.get(ctx.family, ())
    if not names:
        return None
    from legacydoc.probes.run import neutral_folder

    with neutral_folder() as folder:  # a ctypes.py in the user's folder must not run
        result = ctx.run([sys.executable, "-c", DRIVER_API_SCRIPT, *names], cwd=folder)
    return parse_driver_api_output(result.stdout) if result.ok else None


def _run_nvidia_smi(ctx: ProbeContext, path: str, table: dict[str, Any], smi: dict[str, Any]) -> None:
    query = ctx.run(query_argv(path, QUERY_FIELDS))
    smi["query"] = query.to_fact()
    main, fields = query, QUERY_FIELDS
    if not query.timed_out and not query.ok and rejects_compute_cap(query.output):
        retry = ctx.run(query_argv(path, QUERY_FIELDS_NO_CC))
        smi["query_retry"] = retry.to_fact()
        main, fields = retry, QUERY_FIELDS_NO_CC

    # The convenience facts describe the query that stands: after a compute_cap retry
    # that is the retry, since the rejection is an expected quirk of old drivers.
    _describe(smi, main)
    smi["timed_out"] = main.timed_out or query.timed_out

    rows = parse_query_csv(main.stdout, list(fields))
    if rows or main.ok:
        # rc 14 (infoROM warning) still prints rows; keep them whatever the rc.
        devices = devices_from_rows(rows)
        table["devices"] = devices
        table["count"] = len(devices)
    driver = next((r["driver_version"] for r in rows if _DRIVER_VALUE_RE.match(r.get("driver_version", ""))), None)

    header: dict[str, str] = {}
    if smi["timed_out"]:
        smi["plain_skipped"] = "an earlier nvidia-smi command timed out"
    elif main.error:
        smi["plain_skipped"] = "nvidia-smi could not be run: " + main.error
    else:
        plain = ctx.run([path])
        smi["plain"] = plain.to_fact()
        smi["timed_out"] = plain.timed_out
        header = parse_header(plain.output)
        modes = parse_compute_modes(plain.output)
        if plain.ok:
            table["mps_server_listed"] = MPS_SERVER_NAME in plain.output
        for device in table.get("devices", []):
            if device.get("index") in modes:
                device["compute_mode"] = modes[device["index"]]
    if header.get("smi_version"):
        smi["smi_version"] = header["smi_version"]
    driver = driver or header.get("driver_version")
    if driver:
        table["driver_version"] = driver
    if header.get("cuda_version"):
        table["driver_cuda_version"] = header["cuda_version"]


def _describe(smi: dict[str, Any], result: CommandResult) -> None:
    if result.rc is not None:
        smi["rc"] = result.rc
    text = head(result.output, OUTPUT_LINES)
    if text:
        smi["output"] = text
    if result.error:
        smi["error"] = result.error


# --- one line for the summary -------------------------------------------------------------


def summary_line(table: Any) -> str:
    """A neutral one-line description of a gpu table, e.g.
    "NVIDIA driver 451.67 (CUDA 11.0), 1 GPU: GeForce GTX 1660 SUPER 6144 MiB"."""
    if not isinstance(table, dict):
        return "not probed"
    found = table.get("nvidia_smi")
    smi: dict[str, Any] = found if isinstance(found, dict) else {}
    if not smi.get("found") and "macos_cuda_driver" in table:  # macOS: no nvidia-smi there
        if not table["macos_cuda_driver"]:
            return "no CUDA driver for macOS"
        level = table.get("driver_cuda_api_version")
        return "CUDA driver for macOS" + (" (CUDA %s)" % level if level else "")
    if not smi.get("found"):
        return "nvidia-smi not found"
    if smi.get("timed_out"):
        return "nvidia-smi timed out"
    if smi.get("error"):
        return "nvidia-smi could not be run: %s" % smi["error"]
    parts: list[str] = []
    if table.get("driver_version"):
        text = "NVIDIA driver %s" % table["driver_version"]
        if table.get("driver_cuda_version"):
            text += " (CUDA %s)" % table["driver_cuda_version"]
        parts.append(text)
    devices = table.get("devices")
    if isinstance(devices, list):
        count = len(devices)
        text = "%d GPU%s" % (count, "" if count == 1 else "s")
        if devices:
            text += ": " + ", ".join(_group_devices(devices))
        parts.append(text)
    rc = smi.get("rc")
    if rc not in (None, 0) and not devices:
        first = str(smi.get("output", "")).strip().split("\n")[0]
        parts.append("nvidia-smi rc %s%s" % (rc, ": " + first if first else ""))
    return ", ".join(parts) or "nvidia-smi gave no usable output"


def _group_devices(devices: list[Any]) -> list[str]:
    """Runs of identical boards collapse to "4x NAME MEM MiB"."""
    labels: list[str] = []
    for device in devices:
        if not isinstance(device, dict):
            continue
        label = str(device.get("name", "unknown GPU"))
        if "memory_total_mib" in device:
            label += " %s MiB" % device["memory_total_mib"]
        labels.append(label)
    grouped: list[list[Any]] = []
    for label in labels:
        if grouped and grouped[-1][0] == label:
            grouped[-1][1] += 1
        else:
            grouped.append([label, 1])
    return [label if n == 1 else "%dx %s" % (n, label) for label, n in grouped]
