"""Can Theano's GPU backend start here? One answer, from the facts record alone.

The rules read it as derived facts (``derived.gpu.usable``, ``derived.pygpu.usable``,
``derived.compiler.usable``, ``derived.theano.runs_on`` ...) and ``theanorc --write``
decides ``device`` from the same functions, so the two never disagree.

Each answer is ``True``, ``False`` or ``None``: ``None`` means the record does not say
(the area was not probed, the probe timed out, a ticket's record leaves it out), and
nothing is claimed about it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from packaging.version import Version

from legacydoc.facts import get
from legacydoc.factschema.kinds import is_int
from legacydoc.i18n import tr
from legacydoc.structs import field, struct
from legacydoc.versions import parse_version


def _recorded_table(record: Mapping[str, Any], table: str) -> bool:
    """The table was probed and its probe did not fail."""
    value = record.get(table)
    return isinstance(value, Mapping) and bool(value) and not value.get("probe_error")


def _macos_without_smi(record: Mapping[str, Any]) -> bool:
    """macOS, where nvidia-smi does not exist (its man page: Linux and 64-bit Windows only),
    so its absence says nothing about the driver."""
    return get(record, "system.os") == "darwin" and get(record, "gpu.nvidia_smi.found") is False


def gpu_usable(record: Mapping[str, Any]) -> Optional[bool]:
    """nvidia-smi ran fine and listed at least one GPU. None: nvidia-smi was not recorded,
    or it answered but the devices were not recorded. On macOS: False without the CUDA
    driver for macOS, else None (nothing there lists the GPUs)."""
    smi = get(record, "gpu.nvidia_smi")
    if not isinstance(smi, Mapping) or not smi:
        return None
    if _macos_without_smi(record):
        return False if get(record, "gpu.macos_cuda_driver") is False else None
    if smi.get("found") is False or smi.get("timed_out") is True:
        return False if smi.get("found") is False else None
    rc = smi.get("rc")
    if is_int(rc) and rc != 0:
        return False
    devices, count = get(record, "gpu.devices"), get(record, "gpu.count")
    if isinstance(devices, list):
        return len(devices) > 0
    if is_int(count):
        return count > 0
    return None


def gpu_failure_text(record: Mapping[str, Any]) -> str:
    """What nvidia-smi said, in a few words, for a reason line."""
    if _macos_without_smi(record) and get(record, "gpu.macos_cuda_driver") is False:
        return tr("the CUDA driver for macOS is not installed")
    if get(record, "gpu.nvidia_smi.found") is False:
        return tr("nvidia-smi was not found")
    output = get(record, "gpu.nvidia_smi.output")
    if isinstance(output, str) and output.strip():
        return output.strip().splitlines()[0]
    return tr("nvidia-smi listed no GPU")


def packages_recorded(record: Mapping[str, Any]) -> bool:
    """The target's packages were read (so a package missing from them is not installed)."""
    return get(record, "python.probe_ok") is True and isinstance(get(record, "packages.found"), list)


def pygpu_status(record: Mapping[str, Any]) -> tuple[Optional[bool], str]:
    """(usable, evidence): a real ``import pygpu`` wins; else the installed distribution,
    conda package or package folder. None when the target's packages were not read."""
    check = import_check(record, "pygpu")
    if check is not None:
        if check.get("ok"):
            return True, tr("import pygpu worked (pygpu %s)") % check.get("version", tr("of unknown version"))
        return False, tr("import pygpu failed: %s") % check.get("error", tr("an error legacydoc did not record"))
    installed = pygpu_installed(record)
    if log_shows_pygpu_import_failed(record):  # the user's own run is a real import, and it failed
        if installed:
            return False, tr("%s, but the log shows Theano could not import it") % installed
        return False, tr("the log shows Theano could not import pygpu")
    if installed:
        return True, installed
    if not packages_recorded(record):
        return None, tr("the target's packages were not read")
    return False, tr("pygpu is not installed in the target interpreter")


def import_check(record: Mapping[str, Any], module: str) -> Optional[Mapping[str, Any]]:
    """What --import-check recorded for ``module``, when it really imported it (ran, not
    skipped, with an outcome); None otherwise."""
    check = get(record, "packages.import_check." + module)
    return check if isinstance(check, Mapping) and not check.get("skipped") and "ok" in check else None


def import_check_failed(record: Mapping[str, Any], module: str) -> bool:
    """--import-check really imported ``module`` in the target, and the import failed."""
    check = import_check(record, module)
    return check is not None and check.get("ok") is False


def pygpu_import_says_missing(record: Mapping[str, Any]) -> bool:
    """The import check's error says there is no pygpu module at all."""
    check = import_check(record, "pygpu")
    error = str(check.get("error", "")) if check is not None else ""
    return "No module named" in error and "pygpu" in error


def log_shows_pygpu_import_failed(record: Mapping[str, Any]) -> bool:
    from legacydoc.messages import shown_by_log

    return "pygpu-import-failed" in shown_by_log(record)


def log_shows_pygpu_context(record: Mapping[str, Any]) -> bool:
    """The log has a line Theano prints only after pygpu passed its version checks and
    opened a GPU context: whatever pygpu is installed, it works with that Theano."""
    from legacydoc.messages import shown_by_log

    return "pygpu-context-created" in shown_by_log(record)


def pygpu_installed(record: Mapping[str, Any]) -> str:
    """How the record shows a pygpu installation, in words ('' when it does not)."""
    dist = get(record, "packages.pygpu")
    if isinstance(dist, Mapping):
        version = dist.get("version")
        return "pygpu %s is installed" % version if version else "pygpu is installed (version not recorded)"
    conda = get(record, "packages.conda.pygpu")
    if isinstance(conda, Mapping):
        return "conda package pygpu %s is installed" % conda.get("version", "(version not recorded)")
    if get(record, "packages.pygpu_import_dir"):
        return "a pygpu package is on sys.path (%s)" % get(record, "packages.pygpu_import_dir")
    return ""


def theano_cxx(record: Mapping[str, Any]) -> Optional[str]:
    """What Theano's cxx default resolves to ('' = no compiler; None = not probed)."""
    value = get(record, "compilers.theano_cxx")
    if isinstance(value, str):
        return value
    if get(record, "compilers.clang.timed_out") is True:
        return None  # macOS: Theano would use clang++, whose answer never came
    if get(record, "compilers.found") is False or get(record, "compilers.gxx.found") is False:
        return ""
    return None


def compiler_usable(record: Mapping[str, Any]) -> Optional[bool]:
    cxx = theano_cxx(record)
    return None if cxx is None else cxx != ""


def usable_gxx(record: Mapping[str, Any]) -> Optional[str]:
    """The first g++ that ran, wherever it was found (PATH first)."""
    for entry in get(record, "compilers.gxx_all", []) or []:
        if isinstance(entry, Mapping) and entry.get("ok") and entry.get("path"):
            return str(entry["path"])
    return None


def backend(device: Any, theano_version: Any = None) -> Optional[str]:
    """Which Theano backend a device value selects: 'old' (device=gpu*, theano.sandbox.cuda,
    removed in 0.10), 'gpuarray' (cuda*/opencl*, pygpu) or 'cpu'. None: unknown device."""
    if not isinstance(device, str) or not device:
        return None
    if device.startswith("gpu"):
        return "old"
    if device.startswith(("cuda", "opencl")):
        return "gpuarray"
    if device == "cpu":
        return "cpu"
    return None


# The old back-end's configuration left master with commit 9ab1e81d9 (merged 2017-04-12,
# 72d2cbdc8), so every 0.10.0 development build and beta refuses device=gpu* like 1.0
# (rel-0.10.0beta1 theano/configdefaults.py:98-122); master was labelled 0.10.0dev1 only
# from 2017-06-05 (74b923146, merged in e499751f0).
OLD_BACKEND_GONE = "0.10.0.dev0"
# Labels master kept after the release of that name: from rel-0.9.0 (2017-03-20) to
# 2017-06-05 setup.py still said 0.9.0, with the old back-end removed in between; the
# 0.9.X maintenance branch says 0.9.0 too and kept it.
MASTER_KEPT_LABEL = frozenset({"0.9.0"})


def release_label_unreliable(record: Mapping[str, Any], version: Any) -> bool:
    """A git build (generated_version.py: release = False) under a label master kept after
    the release: the release's code or a later one without the old back-end, unknown which,
    unless its log shows the old back-end running (then it is the release's)."""
    if version not in MASTER_KEPT_LABEL or get(record, "packages.theano_released") is not False:
        return False
    from legacydoc.messages import shown_by_log

    return "old-backend" not in shown_by_log(record)


def old_backend_removed(theano_version: Any) -> Optional[bool]:
    """Whether this Theano refuses device=gpu* (theano.sandbox.cuda gone): 0.10.0 betas on."""
    version = parse_version(theano_version)
    return None if version is None else version >= Version(OLD_BACKEND_GONE)


@struct
class Decision:
    """Where Theano would run, and why not on the GPU."""

    runs_on: str  # "gpu" | "cpu" | "unknown"
    reasons: list[str] = field(default_factory=list)  # why not on the GPU (known facts only)
    unknown: list[str] = field(default_factory=list)  # what the record does not say


def gpu_decision(
    record: Mapping[str, Any],
    device: Any,
    theano_version: Any = None,
    compiler: Optional[bool] = None,
    blockers: tuple[str, ...] = (),
) -> Decision:
    """Would Theano run on the GPU with this device setting? Reasons are claimed only from
    what the record shows; what it lacks is listed as unknown. ``compiler`` overrides what
    the record says about the C++ compiler (a config about to set cxx); ``blockers`` are
    further known reasons the backend cannot start (a library libgpuarray cannot load)."""
    which = backend(device, theano_version)
    decision = Decision("cpu")
    gpu = gpu_usable(record)
    if which in (None, "cpu"):
        if which is None:
            decision.unknown.append(tr("the device Theano is configured for"))
            decision.runs_on = "unknown"
        if gpu is False:
            decision.reasons.append(tr("no working NVIDIA GPU was found (%s)") % gpu_failure_text(record))
        if which == "cpu":
            decision.reasons.append(tr("the config says device=%s") % device)
        return decision
    if which == "old":
        removed = old_backend_removed(theano_version)
        if removed:
            decision.reasons.append(tr("device=%s is the old backend, removed in Theano 0.10 and 1.0") % device)
        elif removed is None:
            decision.unknown.append(tr("whether this Theano release still has the old backend"))
        # the old backend compiles every GPU op with nvcc
        nvcc = get(record, "cuda.nvcc.found")
        if nvcc is False:
            decision.reasons.append(tr("the old backend compiles with nvcc, which was not found"))
        elif nvcc is None:
            decision.unknown.append(tr("whether nvcc is there (the old backend compiles with it)"))
    if gpu is False:
        decision.reasons.append(tr("no working NVIDIA GPU (%s)") % gpu_failure_text(record))
    elif gpu is None:
        decision.unknown.append(tr("whether a working NVIDIA GPU is there"))
    if which == "gpuarray":
        pygpu, why = pygpu_status(record)
        if pygpu is False:
            decision.reasons.append(why)
        elif pygpu is None:
            decision.unknown.append(tr("whether pygpu is installed"))
    if which == "gpuarray":
        decision.reasons.extend(blockers)
    if compiler is None:
        compiler = compiler_usable(record)
    if compiler is False:
        decision.reasons.append(tr("no C++ compiler: the GPU backend needs one"))
    elif compiler is None:
        decision.unknown.append(tr("whether a C++ compiler is there"))
    if decision.reasons:
        decision.runs_on = "cpu"
    elif decision.unknown:
        decision.runs_on = "unknown"
    else:
        decision.runs_on = "gpu"
    return decision
