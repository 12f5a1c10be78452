"""Derived facts: what the raw facts mean once joined with the knowledge tables.

Pure functions, no I/O: each takes the facts record (and the knowledge tables through
:mod:`legacydoc.knowledge`) and returns plain values. :func:`derive` gathers them into
the ``derived`` table that rules match on; :func:`enrich` adds it (and the Theano config
model's ``config`` table) to a copy of the record.

A derived fact is absent when it cannot be known (no driver, no nvcc, ...): rules then
stay quiet instead of guessing.
"""

from __future__ import annotations

import bisect
import copy
import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from packaging.version import Version

from legacydoc import knowledge, readiness
from legacydoc.cachepaths import module_path_facts
from legacydoc.configread import config_files_read
from legacydoc.cxxdialect import configured_facts, march_facts, narrowing_facts
from legacydoc.facts import effective_setting, env_variable, get
from legacydoc.factschema.kinds import is_int
from legacydoc.i18n import tr
from legacydoc.kerasconfig import keras_facts
from legacydoc.pymc3chains import pymc3_facts
from legacydoc.pythonbuild import python_build_facts
from legacydoc.sharedcache import shared_cache_facts
from legacydoc.theanorc.validate import BOOL_TRUE
from legacydoc.versions import parse_version, small_int

# The derived facts, with one line each on what they mean. legacydoc.factschema declares exactly these.
DERIVED: dict[str, str] = {
    "os": "windows | linux | darwin: the probed OS (absent when the record does not say)",
    "theano.flavour": "theano | theano-pymc | none: which distribution provides the theano package",
    "theano.version": "the version of that distribution",
    "theano.version_label": "a git build's version label that does not say which code it is (0.9.0 on master "
    "after the release, unless its log shows the old back-end running); theano.version is then unknown",
    "theano.both_installed": "Theano and Theano-PyMC are both installed over the same theano/ folder",
    "theano.python_ok": "the target Python is inside the range this Theano release runs on",
    "theano.python_verdict": "ok | too_new | too_old: where the target Python falls against that range",
    "theano.python_range": "that range, as a specifier",
    "theano.release_known": "the Theano release is in the knowledge table",
    "theano.version_unknown": "Theano's release was not recorded (and Theano is not known to be absent)",
    "theano.failures": "ids of known failures that this Theano/Python/numpy/cuDNN combination hits",
    "theano.failure.<name>": "whether this combination hits the failure <name>; a failure whose deciding version "
    "(Python, numpy, cuDNN) is not recorded is left out (unknown)",
    "theano.device": "the device Theano is configured for (cpu, cuda, cuda0, gpu, ...)",
    "theano.wants_gpu": "that device is a GPU one (cuda*, opencl*, gpu*)",
    "theano.backend": "old (device=gpu*, theano.sandbox.cuda) | gpuarray (cuda*/opencl*, pygpu) | cpu",
    "theano.device_index": "N of device=cudaN or gpuN (absent for plain cuda: the driver's default GPU)",
    "theano.device_exists": "that GPU index is below the number of GPUs nvidia-smi listed",
    "theano.c_sources_missing": "the C sources every Theano ships (lazylinker_c.c, scan_perform.c) that its "
    "package folder lacks (absent when the folder was not looked at)",
    "theano.c_sources_complete": "no such C source is missing",
    "theano.gpu_unpinned": "device is plain cuda or gpu (no index) and more than one GPU is visible: "
    "every process opens the first GPU that accepts it (false where nvidia-smi shows every GPU in an "
    "exclusive compute mode and no MPS daemon serves them: the next process moves on)",
    "gpu.compute_modes": "each GPU's compute mode as nvidia-smi's table shows it (absent unless all are shown)",
    "gpu.all_prohibited": "every GPU is in the Prohibited compute mode (absent when the modes are not all shown)",
    "theano.runs_on": "cpu | gpu | unknown: where Theano would really run (legacydoc.readiness)",
    "theano.on_cpu": "Theano would run on the CPU (false: on the GPU); absent when that is unknown",
    "theano.cpu_reasons": "why it would not run on the GPU (from recorded facts only)",
    "theano.unknown_reasons": "what the record does not say that the GPU backend needs",
    "blas.ldflags_set": "blas.ldflags is set explicitly (file or THEANO_FLAGS), even to empty",
    "blas.ldflags": "its effective value",
    "gpu.usable": "nvidia-smi answered and listed at least one GPU (absent: not recorded)",
    "pygpu.usable": "pygpu imports (import check) or is installed; false only when the packages were read",
    "pygpu.evidence": "how that was decided, in words",
    "compiler.usable": "Theano's cxx resolves to a C++ compiler (absent: compilers not probed)",
    "gpu.failure": "the nvidia-smi failure catalogue id that matches its output ('none' when it answered)",
    "driver.max_cuda": "the newest CUDA the driver supports",
    "driver.max_cuda_source": "nvidia-smi (its header) or table (from the driver version)",
    "driver.branch": "the driver's branch number (375 for 375.26; Windows' store form 27.21.14.5167 -> 451)",
    "nvcc.version": "major.minor of the nvcc on PATH (or the only toolkit)",
    "nvcc.min_driver": "the driver that toolkit needs on this OS",
    "nvcc.driver_ok": "the driver is new enough for that toolkit",
    "nvcc.lowest_sm": "the oldest GPU architecture that toolkit can target (e.g. 30)",
    "nvcc.highest_sm": "the newest GPU architecture it knows (e.g. 75)",
    "nvcc.max_gcc": "the newest gcc major its host_config.h accepts",
    "gpus": "list: each GPU with sm, and whether the toolkit can target it (in_nvcc_range)",
    "cuda.path_versions": "the distinct CUDA versions PATH's entries provide (nvcc or libraries)",
    "cuda.path_version_count": "how many distinct CUDA versions PATH mixes",
    "cuda.toolkit_versions": "the versions of every toolkit found",
    "loader.cudart_cuda": "the CUDA version of the cudart the loader would pick",
    "loader.cudart_matches_nvcc": "that version equals nvcc's",
    "loader.has_cudart": "the loader finds a CUDA runtime library at all",
    "loader.libcuda_is_stub": "Linux: libgpuarray's dlopen(\"libcuda.so\") meets the CUDA toolkit's stub (a stubs "
    "folder): the loader scan's winner, or a stubs folder first on LD_LIBRARY_PATH; false after a complete scan",
    "loader.libcuda_stub": "that stub's path",
    "loader.has_ptxjit": "Linux: the loader finds libnvidia-ptxjitcompiler.so.1, the driver's PTX JIT compiler "
                         "libcuda loads (known only from a complete scan that looked for it)",
    "libgpuarray.nvrtc_wanted": "the NVRTC names libgpuarray would try for this driver",
    "libgpuarray.nvrtc_found": "one of them is on the loader path",
    "libgpuarray.cublas_found": "a cuBLAS name it would try is on the loader path",
    "libgpuarray.toolkits_named": "the CUDA toolkits whose NVRTC and cuBLAS DLLs carry a name it asks for (Windows)",
    "libgpuarray.toolkits_that_fit": "those of them whose NVRTC also compiles for every GPU found",
    "libgpuarray.toolkit_fix": "what to install so the GPU back-end can start, or why nothing can",
    "cudnn.header_version": "the cuDNN version in the first header found",
    "cudnn.header_major": "its major",
    "cudnn.library_majors": "the majors of the cuDNN libraries found",
    "cudnn.header_library_mismatch": ("the header's version differs from every library's (Theano compares the "
                                      "whole version): a major from the file name, minor and patch where its "
                                      "full name gives them; unknown where only an equal major is known"),
    "cudnn.library_versions": "the cuDNN libraries' versions as far as their names give them (7.6.5, or 7.x)",
    "cudnn.cuda_builds": "the CUDA versions NVIDIA built that cuDNN for",
    "cudnn.built_for_nvcc": "nvcc's CUDA is among them",
    "cudnn.found": "a cuDNN header or library was found",
    "gxx.found": "a g++ Theano would use was found",
    "gxx.found_from_log": "the log message that shows Theano found no g++ when the compilers were not probed",
    "theano.visible_gpus": "GPUs a CUDA program sees (gpu.count, narrowed by CUDA_VISIBLE_DEVICES)",
    "theano.backend_known": "the back-end is known (the device setting was read)",
    "pygpu.installed_not_importable": ("pygpu is recorded installed but a real import of it failed (the log, or "
                                       "--import-check)"),
    "blas.fix": "the [blas] ldflags lines that link here, or what to install when none can",
    "theano.backend_from_log": "the log message that shows the back-end when the device setting was not read",
    "theano.device_gpu": "what device=gpu* does in the installed release (theano_eras: old-backend, "
                         "old-backend-deprecated-warning, error)",
    "theano.old_backend": "the old CUDA back-end in that release: main, deprecated or removed",
    "theano.cudnn_min": "the lowest CUDNN_VERSION the release accepts (0: no floor)",
    "theano.cudnn_warn_from": "the CUDNN_VERSION from which the release warns it is newer than it knows",
    "theano.lib_cnmem": "the release has lib.cnmem (the old back-end's memory pool)",
    "theano.cnmem_ignored": "lib.cnmem asks for a memory pool, the device is not known, and the log shows the "
    "gpuarray back-end, which reads gpuarray.preallocate instead (false: the old back-end, or preallocate set too)",
    "theano.hypot_fix": "the release works around MinGW's hypot clash with CPython's pyconfig.h",
    "theano.numpy_min": "the numpy its setup.py requires",
    "theano.numpy_too_old": "the installed numpy is older than that",
    "theano.preallocate_fraction": "lib.cnmem or gpuarray.preallocate as a fraction of GPU memory",
    "theano.config_not_used": "where the log contradicts the recorded config (the run read another one)",
    "theano.log_contradicts_config": "the log states a setting other than the recorded config's (absent without a log)",
    "cudnn.version_number": "CUDNN_VERSION of the first header found",
    "cudnn.too_old_for_theano": "that is below the release's floor",
    "cudnn.newer_than_theano": "that is at or above the release's 'more recent than Theano' threshold",
    "cudnn.off_without_known_reason": "dnn.enabled = False is set, and the record shows no reason to keep cuDNN off "
    "(cuDNN known absent, cuDNN 8+, older or newer than the release supports, header and library differing, every "
    "GPU below compute capability 3.0)",
    "msvc.msc_ver": "cl.exe's _MSC_VER",
    "msvc.supported_by_nvcc": "that _MSC_VER is inside the range nvcc's host_config.h accepts",
    "msvc.nvcc_msc_min": "the lowest _MSC_VER that nvcc accepts",
    "msvc.nvcc_msc_max": "the highest _MSC_VER that nvcc accepts",
    "pygpu.libgpuarray_version": "the libgpuarray C library's version (package metadata or conda)",
    "pygpu.matches_libgpuarray": "pygpu and the libgpuarray library are the same release",
    "pygpu.would_fail": "pygpu's version unknown: the libgpuarray releases that would fail here",
    "pygpu.context_per_log": "the log shows Theano opened a GPU context with the installed pygpu",
    "pygpu.fits_theano": "Theano's release unknown: the Theano releases whose check accepts this pygpu",
    "pygpu.newest_theano_rejects": "Theano's release unknown: the newest Theano (what pip installs) rejects this pygpu",
    "pygpu.newest_theano": "the newest Theano release in rules/knowledge/theano_eras.toml",
    "pygpu.api": "GPUARRAY_API_VERSION of that pygpu release (libgpuarray_releases)",
    "pygpu.rejects_cuda_major_gt_9": "that release refuses a driver reporting CUDA 10 or newer",
    "gxx.count": "how many distinct g++ toolchains",
    "cxx.rejects_narrowing": "Theano's C++ compiler, with gcc.cxxflags, rejects the narrowing in Theano's loop "
                             "code (clang in C++11 or later; absent: unknown)",
    "cxx.narrowing_compiler": "the compiler that rejects it (the cxx Theano uses); only when it does",
    "cxx.narrowing_why": "its dialect and where that comes from (-std=c++11, or LLVM clang's default); only "
                         "when it rejects",
    "cxx.cxxflags_fix": "gcc.cxxflags with -Wno-c++11-narrowing added, the rest kept",
    "cxx.march_skipped": "cxx is named like none of the compilers Theano knows (g++, clang++, and per release "
    "clang-omp++, icpc), so Theano leaves out the -march flags it works out for this CPU",
    "cxx.set_in_config": "a config file or THEANO_FLAGS sets cxx (a compiler, or empty for none): Theano's g++ "
    "default is not used",
    "cxx.configured_found": "the compiler that cxx setting names exists (by path, or on PATH for a bare name)",
    "cxx.configured_path": "where that compiler is",
    "gxx.gcc_major": "the host gcc major nvcc would use",
    "gxx.too_new_for_nvcc": "that gcc is newer than the toolkit accepts",
    "gxx.newer_than_some_cuda": "nvcc's release unknown: some CUDA releases' nvcc reject this gcc",
    "gxx.nvcc_may_refuse": ("nvcc's release unknown, some releases' nvcc reject this gcc, and this Theano is not "
                           "known to lack the old back-end (the one that compiles with nvcc)"),
    "gxx.too_new_for_nvcc_era_unknown": ("nvcc rejects this gcc, and whether this Theano compiles GPU ops with nvcc "
                                         "(0.9 and older with device=gpu) is not recorded"),
    "gxx.newest_cuda_rejecting": "nvcc's release unknown: the newest CUDA whose nvcc rejects this gcc",
    "gxx.oldest_cuda_accepting": "nvcc's release unknown: the oldest CUDA whose nvcc accepts it ('none yet')",
    "pygpu.version": "the installed pygpu version",
    "pygpu.ok_for_theano": "it is the pygpu series this Theano needs",
    "pygpu.required": "that series, as a specifier",
    "cache.foreign_dirs": "compiledir_* folders built by another Python version than the target's",
    "cache.stale_locks": "compile cache lock folders older than Theano's own 120 s lock timeout",
    "cache.module_path_length": "Windows: the longest path Theano writes in its compile cache, in characters "
    "(at least: parts the record lacks count at their shortest)",
    "cache.module_path_exact": "that length was computed from recorded parts only",
    "cache.on_network_filesystem": "the compile cache folder is on a file system several machines mount (NFS, "
    "Lustre, GPFS...; read from Linux's mount table, absent elsewhere)",
    "cache.private_to_job_or_host": "the cache folder is this job's, process's or host's own (the job id, "
    "%(PID)s or the host name in its path, or %(hostname)s in compiledir_format)",
    "cache.lock_kind": "directory: Theano's own compile lock (a lock_dir; Theano, Theano-PyMC before 1.0.15) | "
    "filelock: Theano-PyMC 1.0.15 and later",
    "batch.system": "Slurm | PBS | LSF | Grid Engine | PBS or Grid Engine: the batch system whose job the probe "
    "ran in, or whose submit command is on PATH (none: neither, both recorded)",
    "batch.evidence": "what showed it: the job's variable (SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, JOB_ID) or the submit "
    "command found on PATH (sbatch, bsub, qsub)",
    "batch.job_id": "the id of the job the probe ran in",
    "log.found": "a log was given (check --log) and legacydoc recognised at least one message in it",
    "log.rules": "the rules the recognised messages are evidence for (rules/messages/*.toml), with those "
    "recognised in the import check's own errors",
    "log.import_check_ids": "catalogue messages recognised in the errors of the import check (check --import-check)",
    "log.cuda_runtime_error": "the CUDA runtime's error text the old back-end reported for a call at start-up "
    "(e.g. 'unknown error'), lower case",
    "log.numpy_api_built": "the numpy series a compiled module in the log was built for (from its C API version)",
    "log.numpy_api_installed": "the numpy series of the numpy that refused it (its C API version)",
    "log.numpy_min_for_module": "the oldest numpy that module accepts",
    "log.numpy_recorded_accepts_module": "the numpy in the record is at least that one (the log is older than it)",
    "log.both_gpu_backends": "the log holds messages only the old GPU back-end prints beside ones only the "
    "gpuarray back-end prints: one run started both (absent without a log)",
    "log.gpu_unpickle_failed": "the log shows Theano failing to unpickle an array saved from a GPU run (false when "
    "the record's config now sets experimental.unpickle_gpu_on_cpu; absent without such a log)",
    "keras.backend": "the backend the installed Keras runs on (KERAS_BACKEND, keras.json, its default)",
    "keras.backend_source": "KERAS_BACKEND | keras.json | default | release (2.4+ is tf.keras) | log (the 'Using "
    "... backend.' line Keras printed, where the record does not say)",
    "keras.layout": "channels_first | channels_last: the image layout Keras uses (keras.json or its default)",
    "keras.layout_source": "image_data_format | image_dim_ordering | default",
    "keras.config_path": "the keras.json the installed Keras reads",
    "pymc3.parallel_chains": "pm.sample() runs its chains in worker processes (PyMC3 3.3+ with several cores, or the "
    "log's 'Multiprocess sampling'); false: in this process (absent when unknown)",
    "python.theano_dir_on_pythonpath": "the PYTHONPATH entry that is Theano's package folder itself (empty: none is)",
    "python.libpython_link": "shared | static | outside (none in Theano's folders): what ld takes for the -lpython "
                             "Theano links every module with (Linux)",
    "python.libpython_file": "the libpython file ld takes from Theano's link folders",
    "python.headers_ok": "Python.h and pyconfig.h are in the include folders Theano compiles with",
    "python.headers_missing": "which of Python.h and pyconfig.h are missing there",
    "python.headers_elsewhere": "CPATH, C_INCLUDE_PATH or CPLUS_INCLUDE_PATH is set, where gcc also finds headers "
                                "(set when headers are missing)",
    "python.short_version": "X.Y of the target Python, as header packages name it (set when headers are missing)",
    "python.shadowed_packages": "numpy, Lasagne or Keras found in more than one sys.path folder: which copy is "
    "imported and where the others are (empty: one copy each; absent when not looked at)",
}
# Theano 1.0.5 overrides a compile lock after compile.timeout, 120 s by default.
STALE_LOCK_S = 120.0


def _dist(facts: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = get(facts, "packages." + name, {})
    return value if isinstance(value, Mapping) else {}


def _mm(version: Any) -> Optional[str]:
    """'10.2.89' -> '10.2'."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    parts = list(parsed.release) + [0]
    return "%d.%d" % (parts[0], parts[1])


def theano_flavour(facts: Mapping[str, Any]) -> dict[str, Any]:
    """Which Theano distribution owns the theano package (the one Python imports)."""
    claimed = [str(c).lower() for c in get(facts, "packages.theano_claimed_by", []) or []]
    theano, pymc = _dist(facts, "theano"), _dist(facts, "theano-pymc")
    out: dict[str, Any] = {}
    if (theano and pymc) or isinstance(get(facts, "packages.found"), list):
        out["both_installed"] = bool(theano) and bool(pymc)
    if pymc and (not theano or claimed[-1:] == ["theano-pymc"]):
        out.update(flavour="theano-pymc", version=pymc.get("version"))
    elif theano:
        out.update(flavour="theano", version=theano.get("version"))
    elif get(facts, "packages.theano_import_dir"):
        # Importable from a folder no distribution claims (a source checkout on PYTHONPATH,
        # a copied folder): the version its own text gives, and whose numbering that is
        # (Theano ends at 1.0.5, where Theano-PyMC's numbering starts: 1.0.5 is either).
        text_version = get(facts, "packages.theano_version_text")
        parsed = parse_version(text_version)
        if parsed is not None:
            out["version"] = text_version
            if parsed != Version("1.0.5"):
                out["flavour"] = "theano-pymc" if parsed > Version("1.0.5") else "theano"
    elif isinstance(get(facts, "packages.found"), list):
        # "none" only when the package list was read; an unread one says nothing.
        out["flavour"] = "none"
    # theano/__init__ text is what Python imports: trust it over metadata when both exist.
    text_version = get(facts, "packages.theano_version_text")
    if out.get("both_installed") and text_version:
        out["version"] = text_version
        if pymc.get("version") == text_version:
            out["flavour"] = "theano-pymc"
    if out.get("flavour") == "theano" and readiness.release_label_unreliable(facts, out.get("version")):
        # a git build under a label master kept after the release (readiness.MASTER_KEPT_LABEL)
        out["version_label"] = out.pop("version")
    return {k: v for k, v in out.items() if v is not None}


def driver_facts(facts: Mapping[str, Any], os_family: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    smi_cuda = get(facts, "gpu.driver_cuda_version")
    api_cuda = get(facts, "gpu.driver_cuda_api_version")
    driver = get(facts, "gpu.driver_version")
    # macOS numbers its web drivers apart (387.10.10.10.25.156); the CUDA driver there is
    # another component, so no branch is read from them
    key = knowledge.driver_key(driver) if driver and os_family != "darwin" else None
    if key:
        out["branch"] = key[0]
    if smi_cuda:
        out.update({"max_cuda": str(smi_cuda), "max_cuda_source": "nvidia-smi"})
    elif api_cuda:
        out.update({"max_cuda": str(api_cuda), "max_cuda_source": "driver API"})
    elif driver:
        best = knowledge.default().driver_max_cuda(driver, os_family)
        if best:
            out.update({"max_cuda": best, "max_cuda_source": "table"})
    return out


def nvcc_version(facts: Mapping[str, Any]) -> Optional[str]:
    """nvcc on PATH; else the only toolkit found (what Theano's cuda.root would pick)."""
    version = get(facts, "cuda.nvcc.version")
    if version:
        return _mm(version)
    kits = [k for k in get(facts, "cuda.toolkits", []) or [] if isinstance(k, Mapping) and k.get("version")]
    versions = {_mm(k["version"]) for k in kits}
    return versions.pop() if len(versions) == 1 else None


def nvcc_facts(facts: Mapping[str, Any], os_family: str, driver_max: Optional[str]) -> dict[str, Any]:
    version = nvcc_version(facts)
    if not version:
        return {}
    out: dict[str, Any] = {"version": version}
    # The GA's minimum for every update: the runtime checks only the driver's CUDA level
    # (8000 for each 8.0 update), though NVIDIA's table lists each update's own driver. A
    # build older than every listed one is a pre-release: its minimum is not known.
    full = get(facts, "cuda.nvcc.version_full")
    prerelease = isinstance(full, str) and _mm(full) == version and knowledge.default().is_prerelease_build(full)
    minimum = None if prerelease else knowledge.default().min_driver(version, os_family)
    if minimum:
        out["min_driver"] = minimum
    driver = get(facts, "gpu.driver_version")
    if driver and minimum:
        have, need = knowledge.driver_key(driver), knowledge.driver_key(minimum)
        # On Linux an earlier build of the minimum's own branch (367.27 against 8.0's 367.48)
        # is not claimed either way. The runtime checks the CUDA level the driver reports, not
        # its build; that every build of a Linux branch reports the same level is an
        # assumption (NVIDIA documents no per-build levels), so this only keeps silent.
        # Windows numbers its drivers apart from the Linux branches: no such reading there.
        same_branch = os_family == "linux" and have is not None and need is not None and have[0] == need[0]
        if have is not None and need is not None and (have >= need or not same_branch):
            out["driver_ok"] = have >= need
    elif driver_max and not prerelease:  # a pre-release's needs are not known
        mine, best = parse_version(version), parse_version(driver_max)
        if mine is not None and best is not None:
            out["driver_ok"] = mine <= best
    if out.get("driver_ok") is False and runtime_passed_driver_check(facts):
        # The table says the driver is too old, but the log shows the toolkit's runtime got
        # past its driver check (a too-old driver fails every call with "CUDA driver version
        # is insufficient"): a pre-release toolkit, or another runtime than the nvcc on PATH.
        # Neither is claimed.
        del out["driver_ok"]
    arch = knowledge.default().arch_range(version)
    if arch:
        out["lowest_sm"], out["highest_sm"] = arch
    gcc = knowledge.default().max_gcc(version)
    if gcc is not None:
        out["max_gcc"] = gcc
    return out


def _sm(cc: Any) -> Optional[int]:
    parsed = parse_version(cc)
    if parsed is None or len(parsed.release) < 2:
        return None
    return parsed.release[0] * 10 + parsed.release[1]


def gpu_list(facts: Mapping[str, Any], nvcc: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for dev in get(facts, "gpu.devices", []) or []:
        if not isinstance(dev, Mapping):
            continue
        item: dict[str, Any] = {k: dev[k] for k in ("index", "name") if k in dev}
        cc = dev.get("compute_capability") or knowledge.default().compute_capability(dev.get("name", ""))
        if cc:
            item["compute_capability"] = str(cc)
            sm = _sm(cc)
            if sm is not None:
                item["sm"] = sm
                if "lowest_sm" in nvcc and "highest_sm" in nvcc:
                    item["nvcc_version"] = nvcc["version"]
                    item["nvcc_lowest_sm"], item["nvcc_highest_sm"] = nvcc["lowest_sm"], nvcc["highest_sm"]
                    item["in_nvcc_range"] = nvcc["lowest_sm"] <= sm <= nvcc["highest_sm"]
        out.append(item)
    return out


def gpu_failure(facts: Mapping[str, Any]) -> Optional[str]:
    """The nvidia-smi failure catalogue id whose message matches what nvidia-smi said."""
    if not get(facts, "gpu.nvidia_smi.found"):
        return None
    rc, output = get(facts, "gpu.nvidia_smi.rc"), str(get(facts, "gpu.nvidia_smi.output", "") or "")
    if get(facts, "gpu.nvidia_smi.timed_out"):
        return "timed-out"
    if rc == 0:
        return "none"  # it answered: the failure rules can decide (none of them holds)
    return knowledge.default().nvidia_smi_failure(output, rc)


def path_cuda_versions(facts: Mapping[str, Any]) -> list[str]:
    versions: list[str] = []
    for entry in get(facts, "path.entries", []) or []:
        if isinstance(entry, Mapping) and entry.get("exists", True) and "duplicate_of" not in entry:
            for version in entry.get("cuda_versions", []) or []:
                if version not in versions:
                    versions.append(str(version))
    return versions


def path_fully_scanned(facts: Mapping[str, Any]) -> bool:
    """Every PATH entry that exists was looked into: none skipped for time, failed, or
    (a hand-written record) carrying no result of a scan."""
    for entry in get(facts, "path.entries", []) or []:
        if not isinstance(entry, Mapping) or entry.get("empty") or entry.get("exists") is False:
            continue
        if entry.get("not_scanned") or entry.get("error") or "provides" not in entry:
            return False
    return True


def loader_facts(facts: Mapping[str, Any], nvcc: Optional[str]) -> dict[str, Any]:
    """The cudart the loader picks first (lowest search order among loadable copies)."""
    winners = get(facts, "libraries.winner.cudart", {}) or {}
    candidates = [w for w in winners.values() if isinstance(w, Mapping) and w.get("cuda")]
    # Unknown is not absent: without a loader probe, nothing is said about cudart.
    if not isinstance(get(facts, "libraries.winner"), Mapping):
        return {}
    out: dict[str, Any] = {}
    if winners or loader_scan_complete(facts):
        out["has_cudart"] = bool(winners)  # none found says "none" only after a whole search
    jit = has_ptxjit(facts)
    if jit is not None:
        out["has_ptxjit"] = jit
    if candidates:
        first = min(candidates, key=lambda w: w.get("order", 1 << 30))
        cuda = str(first["cuda"])
        out["cudart_cuda"] = cuda
        if nvcc:
            # '11.x' style sonames cover a whole major.
            if cuda.endswith(".x"):
                out["cudart_matches_nvcc"] = nvcc.split(".")[0] == cuda.split(".")[0]
            else:
                out["cudart_matches_nvcc"] = _mm(cuda) == nvcc
    return out


def libcuda_stub(facts: Mapping[str, Any]) -> tuple[Optional[bool], Optional[str]]:
    """Whether libgpuarray's dlopen("libcuda.so") meets the CUDA toolkit's stub (a folder
    named stubs), and that file. From the loader scan: its winner for the name, and no stub
    where a complete scan found none. Without a scan: a stubs folder first on LD_LIBRARY_PATH
    (nothing before it could hold the driver's copy); anything else stays unknown, as does
    every OS but Linux."""
    if get(facts, "system.os") != "linux":
        return None, None
    winners = get(facts, "libraries.winner.libcuda")
    first = winners.get("libcuda.so") if isinstance(winners, Mapping) else None
    if isinstance(first, Mapping) and first.get("dir"):
        if posixpath.basename(str(first["dir"]).rstrip("/")) == "stubs":
            return True, str(first.get("path") or first["dir"])
        return False, None
    if loader_scan_complete(facts):
        return False, None  # no libcuda.so anywhere the loader looks: no stub either
    known, value = env_variable(facts, "LD_LIBRARY_PATH")
    entries = [e for e in (value or "").split(":") if e] if known else []
    if entries and posixpath.basename(entries[0].rstrip("/")) == "stubs":
        return True, entries[0].rstrip("/") + "/libcuda.so"
    return None, None


def loader_scan_complete(facts: Mapping[str, Any]) -> bool:
    """The library scan searched everywhere the loader looks: it ran to its end, kept every
    copy it found, and on Linux read the loader cache (ldconfig -p answered). Only then
    does a library it did not find count as not there."""
    libraries = get(facts, "libraries")
    if not isinstance(libraries, Mapping) or "probe_error" in libraries:
        return False
    if libraries.get("scan_incomplete") is True or libraries.get("found_truncated") is True:
        return False
    if not isinstance(libraries.get("search_order"), list):
        return False  # the probe always lists where it searched: a record without it is partial
    if libraries.get("os_rules") == "linux" or "ldconfig" in libraries:
        return get(facts, "libraries.ldconfig.rc") == 0 and get(facts, "libraries.ldconfig.timed_out") is not True
    return True


def has_ptxjit(facts: Mapping[str, Any]) -> Optional[bool]:
    """Whether the loader finds the driver's PTX JIT compiler under the name libcuda asks
    for; None (unknown) unless the scan looked for it (a record from before it did, another
    OS) and searched everywhere (loader_scan_complete)."""
    from legacydoc.probes.libnames import PTXJIT_SONAME

    scanned = get(facts, "libraries.kinds_scanned")
    if not isinstance(scanned, list) or "ptxjit" not in scanned or not loader_scan_complete(facts):
        return None
    winners = get(facts, "libraries.winner.ptxjit")
    return isinstance(winners, Mapping) and PTXJIT_SONAME in winners


def libgpuarray_facts(facts: Mapping[str, Any], driver_max: Optional[str], os_family: str) -> dict[str, Any]:
    from legacydoc.probes import libnames

    names = get(facts, "libraries.libgpuarray_names", {}) or {}
    out: dict[str, Any] = {}
    if driver_max:
        wanted = libnames.libgpuarray_wanted_names(driver_max, os_family == "windows", kind="nvrtc")
        if wanted:
            out["nvrtc_wanted"] = list(wanted)
    complete = loader_scan_complete(facts)
    for kind in ("nvrtc", "cublas"):
        entry = names.get(kind)
        if isinstance(entry, Mapping) and (entry.get("found") or complete):
            out[kind + "_found"] = bool(entry.get("found"))
    return out


def toolkit_fit(driver_max: Optional[str], os_family: str, gpus: list[dict[str, Any]]) -> dict[str, Any]:
    """Which CUDA toolkit libgpuarray can use on Windows: one whose bin folder has the NVRTC
    and cuBLAS DLLs under a name it asks for (the driver's level, then 9.1 ... 7.0), and
    whose NVRTC knows this GPU (libgpuarray compiles with -arch compute_<cc>: NVRTC 9.1
    stops at compute_72, so no fallback serves a Turing or newer GPU). Nothing is claimed
    when the driver or the GPUs' architecture is not known."""
    from legacydoc.knowledge import load
    from legacydoc.probes import libnames

    sms = [g["sm"] for g in gpus if isinstance(g.get("sm"), int)]
    if os_family != "windows" or not driver_max or not sms or len(sms) != len(gpus):
        return {}
    rows = load.tables()["cuda_libnames"].rows("windows")
    named: list[str] = []
    fit: list[str] = []
    for attempt in libnames.libgpuarray_attempts(driver_max, True):
        for row in rows:
            if attempt["nvrtc"] in row.get("nvrtc", []) and attempt["cublas"] in row.get("cublas", []):
                version = str(row["from"])
                named.append(version)
                if all(knowledge.default().sm_supported(version, sm) for sm in sms):
                    fit.append(version)
    out: dict[str, Any] = {"toolkits_named": named, "toolkits_that_fit": fit}
    top = max(sms)
    if fit:
        out["toolkit_fix"] = tr("Install CUDA %s next to your toolkit and put its bin folder first on PATH: its "
                                "NVRTC and cuBLAS DLLs have names libgpuarray asks for, and it compiles for sm_%d") % (
                                    fit[0], top)
        cudnn = _newest_cudnn_for(fit[0])
        if cudnn:
            out["toolkit_fix"] += tr("; with cuDNN %s, the newest 7.x built for CUDA %s") % (cudnn, fit[0])
    elif named:
        out["toolkit_fix"] = tr(
            "No CUDA toolkit serves this GPU through released pygpu 0.7.6 on Windows: the DLL names it asks for "
            "belong to CUDA %s, whose NVRTC cannot compile for sm_%d. Run on the CPU (device = cpu), or on Linux, "
            "where libgpuarray loads the unversioned libnvrtc.so of the installed toolkit") % (", ".join(named), top)
    return out


def _newest_cudnn_for(cuda: str) -> Optional[str]:
    """The newest cuDNN 7.x release built for this CUDA (Theano 1.0 takes cuDNN 5 to 7), from
    rules/knowledge/cudnn.toml (NVIDIA's support matrices and redist folders)."""
    from legacydoc.knowledge import load

    best: Optional[Version] = None
    for row in load.tables()["cudnn"].rows("build"):
        top = parse_version(row.get("to"))
        if top is not None and top.major == 7 and cuda in [str(c) for c in row.get("cuda", [])]:
            best = top if best is None or top > best else best
    return str(best) if best else None


def _full_version(text: Any) -> Optional[tuple[int, int, int]]:
    # 7.6.5, or a build number after it (7.6.5.32): Theano's check ends at the patch
    found = re.fullmatch(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\.\d{1,6})?", text) if isinstance(text, str) else None
    return (int(found.group(1)), int(found.group(2)), int(found.group(3))) if found else None


def _library_labels(libs: list[Mapping[str, Any]]) -> list[str]:
    """7.6.5 where the name gives it, else 7.x; no 7.x beside a 7.6.5 (the same major's
    symlinks)."""
    full = {_full_version(lib.get("version")) for lib in libs} - {None}
    labels = {"%d.%d.%d" % v for v in full if v is not None}
    majors_with_full = {v[0] for v in full if v is not None}
    labels |= {"%d.x" % lib["major"] for lib in libs if _full_version(lib.get("version")) is None
               and lib.get("major") not in majors_with_full}
    return sorted(labels)


def _header_library_mismatch(header: Mapping[str, Any], libs: list[Mapping[str, Any]]) -> Optional[bool]:
    """Theano refuses any difference between the header's version and the loaded library's
    (rel-0.7 .. rel-1.0.5: v[0] != v[1], the whole version number). Which file the loader
    takes is not known here, so: True where every library differs, False where every one
    matches exactly, None otherwise (an equal major whose minor and patch were not
    recorded, or one copy that matches beside one that does not)."""
    parts = [header.get(k) for k in ("major", "minor", "patch")]
    wanted = tuple(parts) if all(isinstance(p, int) for p in parts) else None
    verdicts: list[Optional[bool]] = []
    for lib in libs:
        full = _full_version(lib.get("version"))
        major = full[0] if full else lib.get("major")
        if major != header["major"]:
            verdicts.append(True)
        elif full is not None and wanted is not None:
            verdicts.append(full != wanted)
        else:
            verdicts.append(None)
    # decided only where every library says the same
    return verdicts[0] if verdicts and len(set(verdicts)) == 1 else None


def cudnn_facts(facts: Mapping[str, Any], nvcc: Optional[str]) -> dict[str, Any]:
    headers = [h for h in get(facts, "cudnn.headers", []) or [] if isinstance(h, Mapping) and h.get("version")]
    libs = [lib for lib in get(facts, "cudnn.libraries", []) or [] if isinstance(lib, Mapping)]
    out: dict[str, Any] = {}
    if headers or libs:
        out["found"] = True
    elif isinstance(get(facts, "cudnn.headers"), list) and isinstance(get(facts, "cudnn.libraries"), list):
        # Absent only when both searches ran and came back empty.
        out["found"] = False
    majors = sorted({int(lib["major"]) for lib in libs
                     if isinstance(lib.get("major"), int) and lib.get("exists", True)})
    if majors:
        out["library_majors"] = majors
    existing = [lib for lib in libs if lib.get("exists", True) and (
        isinstance(lib.get("major"), int) or _full_version(lib.get("version")))]
    if existing:
        out["library_versions"] = _library_labels(existing)
    if headers:
        header = headers[0]
        out["header_version"] = str(header["version"])
        if isinstance(header.get("major"), int):
            out["header_major"] = header["major"]
            mismatch = _header_library_mismatch(header, existing)
            if mismatch is not None:
                out["header_library_mismatch"] = mismatch
        builds = knowledge.default().cudnn_cuda_builds(header["version"])
        if builds:
            out["cuda_builds"] = list(builds)
            if nvcc:
                out["built_for_nvcc"] = any(_mm(b) == nvcc or b == nvcc for b in builds)
    return out


def compiler_facts(facts: Mapping[str, Any], max_gcc: Optional[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    found = get(facts, "compilers.gxx.found")
    if isinstance(found, bool):
        out["found"] = found
    else:
        # Not probed, but the failed run printed Theano's own "g++ not detected": that
        # settles it for the machine the log came from.
        from legacydoc.messages import shown_by_log

        said = shown_by_log(facts).get("no-gxx")
        if said:
            out["found"], out["found_from_log"] = False, said
    count = get(facts, "compilers.gxx_count")
    if is_int(count):
        out["count"] = count
    major = get(facts, "compilers.nvcc_host.gcc_major")
    if is_int(major):
        out["gcc_major"] = major
        if max_gcc is not None:
            out["too_new_for_nvcc"] = major > max_gcc
        elif not get(facts, "cuda.nvcc.version"):
            # nvcc's release unknown: which releases would stop on this gcc, which would not
            rejecting, accepting = knowledge.default().cuda_bounds_for_gcc(major)
            out["newer_than_some_cuda"] = rejecting is not None
            if rejecting is not None:
                out["newest_cuda_rejecting"] = rejecting
                out["oldest_cuda_accepting"] = accepting or "none yet"
    return out


def nvcc_use_unknown(theano_version: Optional[str], backend: Optional[str], flavour: Optional[str] = None) -> bool:
    """Whether Theano might compile GPU ops with nvcc (the old back-end) without the record
    saying so: the release is unknown (or unreadable) and the back-end is unknown or old,
    or a release that has the old back-end (before 0.10) is known with the back-end
    unknown. When both are known, LD403 decides; Theano 1.0, any other back-end and a
    Theano known not to be installed never use nvcc."""
    if backend not in (None, "old") or flavour == "none":
        return False
    parsed = parse_version(theano_version) if theano_version else None
    if parsed is None:
        return True
    # the 0.10.0 development builds and betas onwards: the old back-end is gone
    return backend is None and not readiness.old_backend_removed(theano_version)


def _era_pygpu_spec(era: Optional[Mapping[str, Any]]) -> Optional[str]:
    """The pygpu range a release's own check accepts, from theano_eras: a specifier, or
    '>=1000' for the 0.8 era whose check wants a pre-0.6 dev snapshot no release meets."""
    text = str((era or {}).get("pygpu", "") or "")
    if text.startswith("pre-0.6"):
        return ">=1000"
    head = text.split(" ")[0]
    from legacydoc.versions import parse_specifier

    return head if head and parse_specifier(head) is not None else None


def msvc_facts(facts: Mapping[str, Any], nvcc: Optional[str]) -> dict[str, Any]:
    """cl.exe against the _MSC_VER range this nvcc's host_config.h accepts."""
    msc = get(facts, "compilers.msvc.msc_ver")
    if not isinstance(msc, int) or isinstance(msc, bool):
        return {}
    out: dict[str, Any] = {"msc_ver": msc}
    span = knowledge.default().msvc_range(nvcc) if nvcc else None
    if span:
        out["nvcc_msc_min"], out["nvcc_msc_max"] = span
        out["supported_by_nvcc"] = span[0] <= msc <= span[1]
    return out


BLACKLIST_DRIVER = "373.06"  # libgpuarray 0.6.1 refuses newer drivers (off macOS)


def pygpu_would_fail(
    required: Optional[str], driver_max: Optional[str], driver: Any, os_family: str
) -> list[str]:
    """With pygpu's version unknown: the libgpuarray releases that would fail here, from
    Theano's accepted range, the driver's CUDA level and 0.6.1's driver blacklist."""
    from legacydoc.versions import parse_specifier

    spec = parse_specifier(required) if required else None
    max_cuda = parse_version(driver_max)
    new_driver = knowledge.driver_key(driver)
    failing = []
    for row in knowledge.default().libgpuarray_releases():
        version = parse_version(row["version"])
        if version is None:
            continue
        if ((spec is not None and not spec.contains(version, prereleases=True))
                or (max_cuda is not None and max_cuda.release[0] >= 10 and row["rejects_cuda_major_gt_9"])
                or (str(row["version"]) == "0.6.1" and os_family != "darwin" and new_driver is not None
                    and new_driver > (knowledge.driver_key(BLACKLIST_DRIVER) or ()))):
            failing.append(str(row["version"]))
    return failing


def theano_fit(pygpu_version: str) -> dict[str, Any]:
    """With Theano's release unknown: the releases whose own check accepts this pygpu
    (theano_eras), and whether the newest Theano, the one pip installs, rejects it."""
    from legacydoc.versions import parse_specifier

    parsed = parse_version(pygpu_version)
    if parsed is None:
        return {}
    rows = knowledge.default().theano_eras("Theano")  # oldest first
    accepted = []
    for row in rows:
        spec = parse_specifier(_era_pygpu_spec(row) or "")
        if spec is not None and spec.contains(parsed, prereleases=True):
            accepted.append(str(row["version"]))
    if not rows or not accepted:
        return {}
    newest = rows[-1]
    span = accepted[0] if len(accepted) == 1 else "%s to %s" % (accepted[0], accepted[-1])
    return {"fits_theano": "Theano " + span, "newest_theano_rejects": str(newest["version"]) not in accepted,
            "newest_theano": str(newest["version"])}


def pygpu_facts(
    facts: Mapping[str, Any],
    release: Optional[Mapping[str, Any]],
    era: Optional[Mapping[str, Any]] = None,
    driver_max: Optional[str] = None,
    os_family: str = "linux",
) -> dict[str, Any]:
    version = _dist(facts, "pygpu").get("version") or get(facts, "packages.conda.pygpu.version")
    out: dict[str, Any] = {}
    if version:
        out["version"] = version
        row = knowledge.default().libgpuarray_release(version)
        if row is not None:
            out["api"] = row["api"]
            out["rejects_cuda_major_gt_9"] = row["rejects_cuda_major_gt_9"]
    required = (release or {}).get("pygpu") or _era_pygpu_spec(era)
    if required:
        # The 0.8 era's check wants an unreleased snapshot: say so instead of ">=1000".
        out["required"] = required if required != ">=1000" else "a 2015-2016 libgpuarray snapshot (API -10000)"
        if version:
            parsed = parse_version(version)
            from legacydoc.versions import parse_specifier

            spec = parse_specifier(required)
            if parsed is not None and spec is not None:
                out["ok_for_theano"] = spec.contains(parsed, prereleases=True)
    library = _dist(facts, "libgpuarray").get("version") or get(facts, "packages.conda.libgpuarray.version")
    if version and library:
        mine, theirs = parse_version(version), parse_version(library)
        out["libgpuarray_version"] = str(library)
        if mine is not None and theirs is not None:
            # pygpu is built against one libgpuarray release; conda pins the two together.
            out["matches_libgpuarray"] = mine.release[:3] == theirs.release[:3]
    installed = bool(_dist(facts, "pygpu")) or isinstance(get(facts, "packages.conda.pygpu"), Mapping)
    if version and release is None and era is None and (_dist(facts, "theano") or _dist(facts, "theano-pymc")):
        out.update(theano_fit(version))
    if readiness.log_shows_pygpu_context(facts):
        out["context_per_log"] = True
        out["would_fail"] = []  # the log settles it: nothing to guess (LD132 decides, quietly)
    elif version:
        out["would_fail"] = []  # the version is known: the guess is not needed
    elif installed:
        failing = pygpu_would_fail(required, driver_max, get(facts, "gpu.driver_version"), os_family)
        if failing:
            out["would_fail"] = failing
    return out


def era_facts(facts: Mapping[str, Any], era: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """What the installed release's own sources say (rules/knowledge/theano_eras.toml)."""
    if era is None:
        return {}
    # A pre-release between two releases leaves None where the two differ: unknown.
    out: dict[str, Any] = {key: era[key] for key in ("device_gpu", "old_backend", "cudnn_min", "cudnn_warn_from",
                                                     "lib_cnmem", "hypot_fix") if era.get(key) is not None}
    if era.get("numpy_min") is not None:
        out["numpy_min"] = str(era["numpy_min"])
    numpy = parse_version(_dist(facts, "numpy").get("version"))
    floor = parse_version(era.get("numpy_min"))
    if numpy is not None and floor is not None:
        out["numpy_too_old"] = numpy < floor
    return out


def installed_dist(flavour: Mapping[str, Any]) -> Optional[str]:
    """'Theano' or 'Theano-PyMC' when the installed release is known, else None."""
    if flavour.get("flavour") in (None, "none") or not flavour.get("version"):
        return None
    return "Theano-PyMC" if flavour["flavour"] == "theano-pymc" else "Theano"


def era_of(flavour: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    dist = installed_dist(flavour)
    if dist is None:
        return None
    return knowledge.default().theano_era(dist, flavour["version"])


def cudnn_era_facts(facts: Mapping[str, Any], era: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """The cuDNN header against the release's floor and its "more recent" threshold."""
    header = next((h for h in get(facts, "cudnn.headers", []) or []
                   if isinstance(h, Mapping) and isinstance(h.get("version_number"), int)), None)
    if era is None or header is None:
        return {}
    number = int(header["version_number"])
    out: dict[str, Any] = {"version_number": number}
    if era["cudnn_min"]:
        out["too_old_for_theano"] = number < era["cudnn_min"]
    if era["cudnn_warn_from"]:
        out["newer_than_theano"] = number >= era["cudnn_warn_from"]
    return out


def cudnn_off_without_known_reason(facts: Mapping[str, Any], derived: Mapping[str, Any]) -> Optional[bool]:
    """dnn.enabled = False with nothing recorded that makes it the right workaround. The
    setting's effect is certain either way; what is not known about cuDNN is no reason."""
    setting = effective_setting(facts, "dnn.enabled")
    if setting is None or setting.get("unknown"):
        return None
    version = parse_version(derived.get("theano.version"))
    if version is not None and version < Version("0.8.0rc1"):
        return None  # rel-0.7 has no dnn.enabled (the config model reads it with 0.8.2's options)
    if setting.get("value") != "False" or setting.get("source", "default") == "default":
        return False
    major = derived.get("cudnn.header_major")
    sms = [g.get("sm") for g in derived.get("gpus") or [] if isinstance(g, Mapping)]
    reasons = (
        derived.get("cudnn.found") is False,  # nothing to turn off (LD305)
        # no release supports cuDNN 8 (LD307): 0.9 and 0.10 call the functions it removed too
        isinstance(major, int) and major >= 8,
        derived.get("cudnn.too_old_for_theano") is True,  # LD314
        derived.get("cudnn.header_library_mismatch") is True,  # LD306
        # newer than a release before 1.0 supports: its cuDNN ops may not compile (LD313)
        derived.get("cudnn.newer_than_theano") is True and version is not None and version < Version("1.0.0rc1"),
        # every GPU below compute capability 3.0: cuDNN does not run on them (LD213)
        bool(sms) and all(isinstance(sm, int) and sm < 30 for sm in sms),
    )
    return not any(reasons)


def set_number(facts: Mapping[str, Any], key: str) -> Optional[float]:
    """A Theano option's value as a number, where the config sets it (not its default) and
    it reads as one; None otherwise."""
    setting = effective_setting(facts, key)
    if not setting or setting.get("source") == "default":
        return None
    try:
        return float(str(setting.get("value")))
    except ValueError:
        return None


def preallocate_fraction(facts: Mapping[str, Any]) -> Optional[float]:
    """lib.cnmem (old back-end) or gpuarray.preallocate (new): a fraction of GPU memory
    when 0 < value <= 1 (larger values are MiB)."""
    for key in ("gpuarray.preallocate", "lib.cnmem"):
        value = set_number(facts, key)
        if value is not None and 0 < value <= 1:
            return value
    return None


def cnmem_ignored(facts: Mapping[str, Any], backend: Any, backend_known: Any) -> Optional[bool]:
    """lib.cnmem set to a pool while the log shows the gpuarray back-end running, the
    device not being known. None when either is unknown; with a known device=cuda the
    config check says it already (LD511)."""
    cnmem = set_number(facts, "lib.cnmem")
    if cnmem is None or cnmem <= 0:
        return None  # not set, or no pool asked for
    from legacydoc.messages import shown_by_log

    shown = shown_by_log(facts)
    if backend == "old" or "old-backend" in shown:
        return False
    if backend_known is True or "gpuarray-backend" not in shown:
        return None
    # gpuarray.preallocate given a pool too: cnmem is only left over (0 or less reserves none)
    return not (set_number(facts, "gpuarray.preallocate") or 0) > 0


def theano_facts(facts: Mapping[str, Any], flavour: Mapping[str, Any]) -> tuple[dict[str, Any], Optional[dict]]:
    out: dict[str, Any] = dict(flavour)
    # Not known to be absent, and no release recorded: what hedged rules (LD418, LD420) need.
    out["version_unknown"] = flavour.get("flavour") != "none" and not flavour.get("version")
    sources = get(facts, "packages.theano_c_sources")
    if isinstance(sources, Mapping) and sources:
        # the probe looked in the theano folder Python imports; an unlooked folder says nothing
        out["c_sources_missing"] = sorted(str(name) + ".c" for name, found in sources.items() if found is False)
        out["c_sources_complete"] = not out["c_sources_missing"]
    dist = installed_dist(flavour)
    if dist is None:
        return out, None
    release = knowledge.default().theano_release(dist, flavour["version"])
    out["release_known"] = release is not None
    python = get(facts, "python.version")
    allowed = (release or {}).get("python_ok")
    if release and not allowed and release.get("python_classifiers"):
        # Without a verified range, only the oldest declared Python is a firm limit.
        oldest = min(release["python_classifiers"], key=lambda v: parse_version(v) or Version("0"))
        allowed = ">=%s" % oldest
    if allowed:
        out["python_range"] = allowed
        if python:
            from legacydoc.versions import version_in

            out["python_ok"] = version_in(python, allowed)
            out["python_verdict"] = python_verdict(python, allowed)
    header = next(
        (h for h in get(facts, "cudnn.headers", []) or [] if isinstance(h, Mapping) and h.get("version_number")), None
    )
    versions = {"python": python, "numpy": _dist(facts, "numpy").get("version"),
                "cudnn_macro": (header or {}).get("version_number")}
    failures = knowledge.default().theano_failures(dist, flavour["version"], **versions)
    out["failures"] = [f["id"] for f in failures]
    # the cuDNN probe looked and found no header: no cuDNN failure can happen
    absent = ("cudnn_macro",) if get(facts, "cudnn.headers") == [] else ()
    out["failure"] = knowledge.default().theano_failure_verdicts(dist, flavour["version"], absent=absent,
                                                                 **versions)
    return out, release


def python_verdict(python: Any, allowed: str) -> Optional[str]:
    """'ok', 'too_new' (an upper bound excludes it) or 'too_old'."""
    from legacydoc.versions import parse_specifier

    version, spec = parse_version(python), parse_specifier(allowed)
    if version is None or spec is None:
        return None
    if spec.contains(version, prereleases=True):
        return "ok"
    for one in spec:
        if one.operator in ("<", "<=") and not one.contains(version, prereleases=True):
            return "too_new"
    return "too_old"


def cache_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """Stale locks and other Pythons' folders in the compile cache, as far as it was listed:
    a cache never probed, not listed (a scan error) or listed only in part says nothing
    about what it lacks, and other Pythons need this one's version."""
    compiledir = get(facts, "theano_config.compiledir")
    if not isinstance(compiledir, Mapping):
        return {}
    if compiledir.get("exists") is False:
        return {"foreign_dirs": [], "stale_locks": []}  # no cache folder: nothing in it
    listed = compiledir.get("subdirs")
    if not isinstance(listed, list):
        return {}
    subdirs = [d for d in listed if isinstance(d, Mapping)]
    complete = not compiledir.get("subdirs_truncated")
    python = get(facts, "python.version")
    foreign = [
        str(d.get("name"))
        for d in subdirs
        if python and d.get("python_version") and d.get("python_version") != python and d.get("module_dirs", 1)
    ]
    stale = [
        str(d.get("name"))
        for d in subdirs
        if isinstance(d.get("lock_dir"), Mapping) and float(d["lock_dir"].get("age_s", 0) or 0) > STALE_LOCK_S
    ]
    # a folder that could not be read, or a lock whose age is unknown, leaves "none" unknown
    readable = complete and not any(d.get("scan_error") for d in subdirs)
    aged = readable and all("age_s" in d["lock_dir"] for d in subdirs if isinstance(d.get("lock_dir"), Mapping))
    out: dict[str, Any] = {}
    if stale or aged:
        out["stale_locks"] = stale
    if python and (foreign or readable):
        out["foreign_dirs"] = foreign
    return out


def compute_modes(facts: Mapping[str, Any]) -> Optional[list[str]]:
    """Each listed GPU's compute mode, in order; None unless nvidia-smi's table showed a
    known mode for every GPU, and the list holds every GPU counted."""
    from legacydoc.probes.gpu import COMPUTE_MODES  # the words the probe records

    devices = get(facts, "gpu.devices")
    count = get(facts, "gpu.count")
    if not isinstance(devices, list) or not devices or (is_int(count) and count != len(devices)):
        return None
    modes = [d.get("compute_mode") if isinstance(d, Mapping) else None for d in devices]
    if not all(m in COMPUTE_MODES.values() for m in modes):
        return None
    return [str(m) for m in modes]


def mps_ruled_out(facts: Mapping[str, Any]) -> bool:
    """No MPS daemon serves this machine's GPUs, as far as the record shows: MPS exists on
    Linux only, and there its control pipes' folder must be known to be absent, no MPS
    server listed by nvidia-smi (a daemon starts its server only when a client comes) and no
    MPS process in the process list (a daemon whose pipes are elsewhere). A process list
    without one rules nothing out alone: a container sees only its own processes."""
    system = get(facts, "system.os")
    if system == "windows":
        return True
    return system == "linux" and get(facts, "gpu.mps_pipe_dir_exists") is False and \
        get(facts, "gpu.mps_server_listed") is not True and get(facts, "gpu.mps_process_running") is not True


def all_prohibited(facts: Mapping[str, Any]) -> bool:
    """nvidia-smi shows every GPU in the Prohibited compute mode: no process may create a
    CUDA context on any of them."""
    modes = compute_modes(facts)
    return modes is not None and all(m == "prohibited" for m in modes)


def all_exclusive(facts: Mapping[str, Any]) -> bool:
    """Every GPU that accepts work takes one process at a time (an exclusive compute mode;
    prohibited ones take none), at least one does, and no MPS daemon lets several processes
    share one: then a process that finds a GPU busy moves on to the next."""
    modes = compute_modes(facts)
    if modes is None:
        return False
    usable = [m for m in modes if m != "prohibited"]
    return bool(usable) and all(m.startswith("exclusive") for m in usable) and mps_ruled_out(facts)


def visible_gpus(facts: Mapping[str, Any]) -> Optional[int]:
    """How many GPUs a CUDA program sees: CUDA_VISIBLE_DEVICES renumbers and hides them,
    so device=cuda1 with CUDA_VISIBLE_DEVICES=1 asks for a second GPU that the process
    does not have. None when unknown: no GPU count, or an environment never recorded."""
    count = get(facts, "gpu.count")
    if not isinstance(count, int) or isinstance(count, bool):
        return None
    known, visible = env_variable(facts, "CUDA_VISIBLE_DEVICES")
    if not known:
        # the environment was not recorded (or only in part): it may hide any of them
        return 0 if count == 0 else None
    if visible is None:
        return count
    # Parsed as the driver does: it stops at the first entry that names no device (empty,
    # -1, a word, an index past the last GPU), and a device named twice hides them all.
    seen: list[str] = []
    for entry in visible.split(","):
        entry = entry.strip()
        if entry.startswith(("GPU-", "MIG-")):
            key = entry
        else:
            digits = re.match(r"\d{1,6}", entry)
            if digits is None or int(digits.group(0)) >= count:
                break
            key = str(int(digits.group(0)))
        if key in seen:
            return 0
        seen.append(key)
    return min(len(seen), count)


def _pythonpath_entries(facts: Mapping[str, Any]) -> Optional[tuple[list[str], str, bool]]:
    """PYTHONPATH's entries, its separator, and whether it is a Windows one; None when the
    environment was not recorded, ([], ...) when the variable is not set or the target
    probe's own look at sys.path decides (it checks the folder holds a package)."""
    known, value = env_variable(facts, "PYTHONPATH")
    if not known:
        return None  # the environment was not recorded, or only in part
    if value is None:
        return [], ":", False
    if isinstance(get(facts, "packages.found"), list) and not get(facts, "packages.theano_dir_in_sys_path"):
        # the target probe looked at sys.path itself and found no theano folder there: an
        # entry named so is stale (no such folder) or not used
        return [], ":", False
    recorded_os = get(facts, "system.os")
    windows = recorded_os == "windows" if recorded_os else (
        ";" in value or bool(re.search(r"(?:^|;)\s*[A-Za-z]:[\\/]", value)))
    separator = ";" if windows else ":"
    return value.split(separator), separator, windows


def _is_theano_package_dir(entry: str, windows: bool) -> bool:
    """Told by the path alone: a folder named theano inside site-packages or dist-packages,
    or inside another folder named theano (a source checkout's inner one); a checkout's own
    top folder is the right entry."""
    parts = [part for part in re.split(r"[\\/]+", entry.strip()) if part]
    if len(parts) < 2:
        return False
    name, parent = parts[-1], parts[-2].lower()
    return (name.lower() if windows else name) == "theano" and parent in ("site-packages", "dist-packages", "theano")


def theano_dir_on_pythonpath(facts: Mapping[str, Any]) -> Optional[str]:
    """The PYTHONPATH entry that is Theano's package folder itself, "" when no entry is,
    None when the environment was not recorded."""
    found = _pythonpath_entries(facts)
    if found is None:
        return None
    entries, _separator, windows = found
    return next((entry.strip() for entry in entries if _is_theano_package_dir(entry, windows)), "")


def pythonpath_without_theano_dir(facts: Mapping[str, Any]) -> Optional[str]:
    """PYTHONPATH less the entries that are Theano's package folder ("" when nothing else
    is left), or None when no entry is (or the environment was not recorded)."""
    found = _pythonpath_entries(facts)
    if found is None:
        return None
    entries, separator, windows = found
    kept = [entry for entry in entries if not _is_theano_package_dir(entry, windows)]
    if len(kept) == len(entries):
        return None
    return separator.join(entry for entry in kept if entry.strip())


def device_facts(facts: Mapping[str, Any], theano_version: Any, blockers: tuple[str, ...] = ()) -> dict[str, Any]:
    """Where Theano would really run, and why not on the GPU (legacydoc.readiness)."""
    setting = effective_setting(facts, "device")
    # no value when unknown: a default stands only when every config file was read
    device = setting.get("value") if setting else None
    out: dict[str, Any] = {"backend_known": False}
    if isinstance(device, str):
        out["device"] = device
        out["wants_gpu"] = device.startswith(("cuda", "opencl", "gpu"))
        which = readiness.backend(device, theano_version)
        if which:
            out["backend"], out["backend_known"] = which, True
        index = device[4:] if device.startswith("cuda") else device[3:] if device.startswith("gpu") else ""
        number = small_int(index)
        if number is not None:
            out["device_index"] = number
            count = visible_gpus(facts)
            total = get(facts, "gpu.count")
            if count is not None:
                out["visible_gpus"] = count
                out["device_exists"] = number < count
            elif is_int(total) and number >= total:
                # whatever CUDA_VISIBLE_DEVICES says, it only hides GPUs: this one is not there
                out["device_exists"] = False
        elif device == "cuda" or (device == "gpu" and readiness.old_backend_removed(theano_version) is False):
            # No index: libgpuarray (cuda_init with ordinal -1) and the old back-end
            # (select_a_gpu) take the first visible GPU that accepts a context, the same one
            # for every process unless compute modes are exclusive. (device=gpu only where the
            # old back-end still exists: Theano 1.0 refuses it, LD516.)
            count = visible_gpus(facts)
            if count is not None:
                out["visible_gpus"] = count
                # every GPU in an exclusive mode, without MPS: the next process moves on;
                # every GPU prohibited: no process gets one (LD220)
                out["gpu_unpinned"] = count > 1 and not all_exclusive(facts) and not all_prohibited(facts)
    if "backend" not in out:
        # No device setting in the record, but the log was printed by one back-end's module.
        from legacydoc.messages import shown_by_log

        shown = shown_by_log(facts)
        for name, which in (("gpuarray-backend", "gpuarray"), ("old-backend", "old")):
            if name in shown:
                out["backend"], out["backend_from_log"], out["wants_gpu"] = which, shown[name], True
                break
    if out["backend_known"]:
        unused = config_not_used(facts, out.get("backend"))
        if unused is not None:
            out["log_contradicts_config"] = bool(unused)
            if unused:
                out["config_not_used"] = unused
    decision = readiness.gpu_decision(facts, device, theano_version, blockers=blockers)
    out["runs_on"] = decision.runs_on
    if decision.runs_on in ("cpu", "gpu"):  # left out when unknown: a rule reading it stays undecided
        out["on_cpu"] = decision.runs_on == "cpu"
    if decision.reasons:
        out["cpu_reasons"] = decision.reasons
    if decision.unknown:
        out["unknown_reasons"] = decision.unknown
    return out


def config_not_used(facts: Mapping[str, Any], backend: Optional[str]) -> Optional[list[str]]:
    """Where the log contradicts the recorded config: the run that printed it read another
    one (a launcher script that sets its own THEANO_FLAGS, another shell, another user), or
    ran before the config was changed. None without a log; [] when nothing contradicts.
    Only what the log states outright is compared: the old back-end's last start-up line
    says whether CNMeM is on. (Which back-end printed a message is no such proof: contexts=
    and init_gpu_device start the gpuarray one whatever the device says.)"""
    matches = get(facts, "log.matches")
    if not isinstance(matches, list):
        return None
    cnmem = effective_setting(facts, "lib.cnmem")
    wanted = cnmem.get("value") if cnmem and cnmem.get("source") != "default" else None
    try:
        asked = float(str(wanted)) > 0 if wanted is not None else False
    except ValueError:
        asked = False
    starts = [m.get("groups") for m in matches
              if isinstance(m, Mapping) and m.get("id") == "theano-cuda-using-gpu-device"]
    last = starts[-1] if starts else None  # a pasted log may hold several runs: the last one counts
    if backend == "old" and asked and isinstance(last, Mapping) and last.get("cnmem") == "disabled":
        return [tr("the log says CNMeM is disabled, but the config sets lib.cnmem = %s") % wanted]
    return []


def readiness_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The GPU backend's preconditions as named derived facts (absent when unknown)."""
    out: dict[str, Any] = {}
    gpu = readiness.gpu_usable(facts)
    if gpu is not None:
        out["gpu.usable"] = gpu
    pygpu, why = readiness.pygpu_status(facts)
    if pygpu is not None:
        out["pygpu.usable"] = pygpu
        out["pygpu.evidence"] = why
        # Installed, yet a real import failed (the user's run, or --import-check): not the
        # missing-pygpu case.
        failed = readiness.log_shows_pygpu_import_failed(facts) or readiness.import_check_failed(facts, "pygpu")
        installed = bool(readiness.pygpu_installed(facts))
        # a failed import with pygpu recorded nowhere: "not installed" only if the package
        # list was read or the error says so (No module named 'pygpu')
        known = (pygpu or not failed or installed or isinstance(get(facts, "packages.found"), list)
                 or readiness.pygpu_import_says_missing(facts))
        if known:
            out["pygpu.installed_not_importable"] = not pygpu and failed and installed
    compiler = readiness.compiler_usable(facts)
    if compiler is not None:
        out["compiler.usable"] = compiler
    return out


# What the old back-end's start-up messages quote of the CUDA runtime's answer (its
# cudaGetErrorString text), by message id and the group holding it.
RUNTIME_ERROR_GROUPS = {
    "theano-cuda-unable-get-number-of-gpus": "cuda_error",
    "theano-cuda-runtime-call-failed": "cuda_error",
}
INSUFFICIENT_DRIVER = "cuda driver version is insufficient for cuda runtime version"


def log_cuda_runtime_error(facts: Mapping[str, Any]) -> Optional[str]:
    """The CUDA runtime's error text the old back-end quoted (the scanner keeps each
    message's first occurrence; of several such messages, the later one in catalogue
    order), lower case with its spacing normalised; None when the log has none."""
    matches = get(facts, "log.matches")
    found = None
    for match in matches if isinstance(matches, list) else ():
        group = RUNTIME_ERROR_GROUPS.get(str(match.get("id"))) if isinstance(match, Mapping) else None
        groups = match.get("groups") if group else None
        text = groups.get(group) if isinstance(groups, Mapping) else None
        cleaned = text.strip(" .)'\"\n").lower() if isinstance(text, str) else ""
        if cleaned:
            found = " ".join(cleaned.split())
    return found


def runtime_passed_driver_check(facts: Mapping[str, Any]) -> bool:
    """The log shows a CUDA runtime call failing for another reason than a too-old driver,
    which the runtime checks before anything else."""
    ids = get(facts, "log.ids")
    if isinstance(ids, list) and "cuda-driver-insufficient-for-runtime" in ids:
        return False  # the runtime's own "insufficient" message, wherever it was printed
    error = log_cuda_runtime_error(facts)
    return error is not None and not error.startswith(INSUFFICIENT_DRIVER[:30])


# The import check imports pygpu whatever the device: its failure says nothing where
# Theano is configured for a back-end that never loads it.
NOT_LOADED_BY_BACKEND = {"cpu": ("pygpu",), "old": ("pygpu",)}


def import_check_errors(facts: Mapping[str, Any], backend: Any = None) -> list[tuple[str, str]]:
    """(module, error line) of each import the import check saw fail (not skipped), but for
    a module the configured back-end does not load."""
    checks = get(facts, "packages.import_check")
    if not isinstance(checks, Mapping):
        return []
    unused = NOT_LOADED_BY_BACKEND.get(str(backend), ())
    return [(str(module), check["error"]) for module, check in checks.items()
            if isinstance(check, Mapping) and check.get("ok") is False and not check.get("skipped")
            and isinstance(check.get("error"), str) and module not in unused]


def import_check_matches(facts: Mapping[str, Any], backend: Any = None) -> list[tuple[str, str, str]]:
    """(module, message id, matched text) for the catalogue messages in the import check's
    errors: the exception an import stopped on is a log line like any other."""
    errors = import_check_errors(facts, backend)
    if not errors:
        return []
    from legacydoc.logscan import scan

    return [(module, match.id, match.text) for module, error in errors for match in scan(error)]


def log_facts(facts: Mapping[str, Any], backend: Any = None) -> dict[str, Any]:
    """What the messages found in a log, or in the import check's errors, are evidence for
    (absent when there is neither). ``backend``: derived.theano.backend."""
    ids = get(facts, "log.ids")
    matches = import_check_matches(facts, backend)
    from_imports = list(dict.fromkeys(message_id for _m, message_id, _t in matches))
    if not isinstance(ids, list) and not from_imports:
        return {}
    from legacydoc.messages import by_id, catalogue

    known = by_id(catalogue())
    rules: list[str] = []
    every_id = [*(ids if isinstance(ids, list) else []), *from_imports]
    for message_id in every_id:
        message = known.get(str(message_id))
        for rule in message.rules if message is not None else ():
            if rule not in rules:
                rules.append(rule)
    out: dict[str, Any] = {"rules": rules}
    if isinstance(ids, list):
        out["found"] = bool(ids)
        # Messages only the old back-end prints beside ones only the gpuarray back-end
        # prints: one run started both (LD529), which Theano cannot do in one process.
        out["both_gpu_backends"] = both_backends_in_one_run(facts, known)
    if from_imports:
        out["import_check_ids"] = from_imports
    runtime_error = log_cuda_runtime_error(facts)
    if runtime_error:
        out["cuda_runtime_error"] = runtime_error
    out.update(numpy_api_mismatch(facts))
    unpickle = gpu_unpickle_failed(facts, every_id)
    if unpickle is not None:
        out["gpu_unpickle_failed"] = unpickle
    return out


def both_backends_in_one_run(facts: Mapping[str, Any], known: Mapping[str, Any]) -> bool:
    """A message only the old back-end prints and one only the gpuarray back-end prints,
    in the same run: the pasted command lines (log.runs) split a log of several attempts
    (device=gpu, then device=cuda) into runs."""
    runs = sorted(n for n in get(facts, "log.runs", []) or [] if isinstance(n, int))
    lines = {str(m.get("id")): m.get("line") for m in get(facts, "log.matches", []) or [] if isinstance(m, Mapping)}
    backends = ("old-backend", "gpuarray-backend")
    per_run: dict[int, set[str]] = {}
    anywhere: set[str] = set()  # an id recorded without its line belongs to every run
    for message_id in get(facts, "log.ids", []) or []:
        message = known.get(str(message_id))
        names = {name for name in message.shows if name in backends} if message is not None else set()
        line = lines.get(str(message_id))
        if isinstance(line, int) and not isinstance(line, bool):
            per_run.setdefault(bisect.bisect_right(runs, line), set()).update(names)
        else:
            anywhere.update(names)
    return any(len(names | anywhere) == 2 for names in [*per_run.values(), set()])


def numpy_api_mismatch(facts: Mapping[str, Any]) -> dict[str, Any]:
    """From numpy's "module compiled against API version X but this version of numpy is
    Y": the numpy series each C API version belongs to (rules/knowledge/numpy_c_api.toml),
    and the oldest numpy the module accepts; empty without the message or when a version
    is not in the table."""
    matches = get(facts, "log.matches")
    for match in matches if isinstance(matches, list) else ():
        if not isinstance(match, Mapping) or match.get("id") != "numpy-module-compiled-against-api-version":
            continue
        groups = match.get("groups")
        if not isinstance(groups, Mapping):
            return {}
        from legacydoc.knowledge.load import default

        built = default().numpy_series_for_c_api(groups.get("built"))
        have = default().numpy_series_for_c_api(groups.get("have"))
        if not built or not have:
            return {}
        out: dict[str, Any] = {"numpy_api_built": _series_span(built), "numpy_api_installed": _series_span(have),
                               "numpy_min_for_module": built[0]}
        recorded = parse_version(get(facts, "packages.numpy.version"))
        minimum = parse_version(built[0])
        if recorded is not None and minimum is not None:
            # the record's numpy is new enough: the log came from before it was installed
            out["numpy_recorded_accepts_module"] = recorded >= minimum
        return out
    return {}


def _series_span(series: Sequence[str]) -> str:
    return series[0] if len(series) == 1 else "%s-%s" % (series[0], series[-1])


def gpu_unpickle_failed(facts: Mapping[str, Any], ids: Sequence[Any]) -> Optional[bool]:
    """Theano could not rebuild a GPU array from a pickle: it says so, or its GPU context
    was missing inside the unpickler. False when the record's config now sets
    experimental.unpickle_gpu_on_cpu (the log came from before); None without such a log."""
    failed = "theano-unpickle-gpu-array-without-backend" in ids or (
        "theano-gpuarray-context-not-defined" in ids and "theano-gpu-unpickler-frame" in ids)
    if not failed:
        return None
    flag = effective_setting(facts, "experimental.unpickle_gpu_on_cpu")
    return not (flag is not None and flag.get("value") in BOOL_TRUE)


def _flat(prefix: str, values: Mapping[str, Any]) -> dict[str, Any]:
    return {prefix + "." + k: v for k, v in values.items() if v is not None}


def blas_fix(facts: Mapping[str, Any]) -> str:
    """The [blas] ldflags the writer would choose, as pasteable config lines, or, when no
    BLAS the compiler can link is known, what to install: never a flag that cannot link."""
    from legacydoc.theanorc.machine import blas_choice

    flags, _why = blas_choice(facts)
    if flags:
        return "[blas]\nldflags = %s" % flags
    family = get(facts, "packages.numpy_blas")
    seen = tr("numpy's %s is not a library the compiler can link") % family if family else \
        tr("no BLAS the compiler can link was recorded")
    return tr("Install a BLAS the compiler can link (%s; a pip numpy keeps its OpenBLAS inside the wheel): "
              "conda install mkl mkl-service, or on Linux sudo apt install libopenblas-dev; then run "
              "legacydoc theanorc --write, which writes the matching ldflags") % seen


def gpu_blockers(facts: Mapping[str, Any], backend: str = "gpuarray") -> tuple[str, ...]:
    """What stops a GPU back-end beyond the readiness basics (GPU, pygpu, compiler): the
    same list for check and for theanorc --write, so they never disagree. NVRTC is the
    gpuarray back-end's alone."""
    nvrtc = _libgpuarray_for_os(facts).get("nvrtc_found") if backend == "gpuarray" else None
    return _blockers(nvrtc, all_prohibited(facts))


def _for_os(facts: Mapping[str, Any], compute: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """compute(os) for the record's OS. Driver tables and library names differ between
    Linux and Windows: for a record that does not say its OS, only what both give."""
    recorded = get(facts, "system.os")
    if recorded:
        return compute(str(recorded))
    linux, windows = compute("linux"), compute("windows")
    return {k: v for k, v in linux.items() if k in windows and windows[k] == v}


def _libgpuarray_for_os(facts: Mapping[str, Any]) -> dict[str, Any]:
    return _for_os(facts, lambda o: libgpuarray_facts(facts, driver_facts(facts, o).get("max_cuda"), o))


def _blockers(nvrtc_found: Optional[bool], prohibited: bool = False) -> tuple[str, ...]:
    out: tuple[str, ...] = (tr("libgpuarray cannot load an NVRTC library it asks for"),) if nvrtc_found is False else ()
    if prohibited:
        out += (tr("every GPU is in the Prohibited compute mode"),)
    return out


def derive(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The ``derived`` table (flat dotted keys nested on output) for these facts."""
    recorded_os = get(facts, "system.os")
    # what depends on the OS goes through _for_os: an unrecorded OS is unknown, not Linux
    d: dict[str, Any] = {"os": str(recorded_os)} if recorded_os else {}
    flavour = theano_flavour(facts)
    theano, release = theano_facts(facts, flavour)
    d.update(_flat("theano", theano))
    era = era_of(flavour)
    d.update(_flat("theano", era_facts(facts, era)))
    d.update(_flat("cudnn", cudnn_era_facts(facts, era)))
    fraction = preallocate_fraction(facts)
    if fraction is not None:
        d["theano.preallocate_fraction"] = fraction
    ld = effective_setting(facts, "blas.ldflags")
    # As for the device: "not set" is known only when every config file was read.
    if ld is not None and not ld.get("unknown"):
        d["blas.ldflags_set"] = ld.get("source", "default") != "default"
        d["blas.ldflags"] = ld.get("value", "")
        d["blas.fix"] = blas_fix(facts)
    d.update(readiness_facts(facts))
    failure = gpu_failure(facts)
    if failure:
        d["gpu.failure"] = failure
    modes = compute_modes(facts)
    if modes is not None:
        d["gpu.compute_modes"] = modes
        d["gpu.all_prohibited"] = all_prohibited(facts)
    driver = _for_os(facts, lambda o: driver_facts(facts, o))
    d.update(_flat("driver", driver))
    nvcc = _for_os(facts, lambda o: nvcc_facts(facts, o, driver_facts(facts, o).get("max_cuda")))
    d.update(_flat("nvcc", nvcc))
    # the GPUs, one item each, as far as they were listed: without a list (nvidia-smi timed
    # out, a partial record) the rules about each GPU stay undecided, not passed
    gpus = gpu_list(facts, nvcc)
    if isinstance(get(facts, "gpu.devices"), list):
        d["gpus"] = gpus
    if isinstance(get(facts, "path.entries"), list):
        d["cuda.path_versions"] = path_cuda_versions(facts)
        # "one CUDA on PATH" only when every entry was looked into (two are two either way)
        if len(d["cuda.path_versions"]) > 1 or path_fully_scanned(facts):
            d["cuda.path_version_count"] = len(d["cuda.path_versions"])
    if isinstance(get(facts, "cuda.toolkits"), list):
        kits = [k for k in get(facts, "cuda.toolkits") if isinstance(k, Mapping) and k.get("version")]
        d["cuda.toolkit_versions"] = sorted({_mm(k["version"]) or str(k["version"]) for k in kits})
    d.update(_flat("loader", loader_facts(facts, nvcc.get("version"))))
    is_stub, stub = libcuda_stub(facts)
    if is_stub is not None:
        d["loader.libcuda_is_stub"] = is_stub
    if stub:
        d["loader.libcuda_stub"] = stub
    d.update(_flat("libgpuarray", _libgpuarray_for_os(facts)))
    d.update(_flat("libgpuarray", _for_os(facts, lambda o: toolkit_fit(driver_facts(facts, o).get("max_cuda"), o,
                                                                        gpus))))
    d.update(_flat("cudnn", cudnn_facts(facts, nvcc.get("version"))))
    off = cudnn_off_without_known_reason(facts, d)
    if off is not None:
        d["cudnn.off_without_known_reason"] = off
    d.update(_flat("gxx", compiler_facts(facts, nvcc.get("max_gcc"))))
    d.update(_flat("cxx", {**configured_facts(facts), **march_facts(facts), **narrowing_facts(facts)}))
    d.update(_flat("msvc", msvc_facts(facts, nvcc.get("version"))))
    d.update(_flat("pygpu", _for_os(facts, lambda o: pygpu_facts(facts, release, era,
                                                                  driver_facts(facts, o).get("max_cuda"), o))))
    # (gpu_blockers, from what was derived above)
    blockers = _blockers(d.get("libgpuarray.nvrtc_found"), d.get("gpu.all_prohibited") is True)
    d.update(_flat("theano", device_facts(facts, theano.get("version"), blockers)))
    if d.get("gxx.newer_than_some_cuda") is True:
        # an unknown release may be one with the old back-end; 0.10 and later have none (LD516)
        d["gxx.nvcc_may_refuse"] = theano.get("flavour") != "none" and readiness.old_backend_removed(
            theano.get("version")) is not True
    if d.get("gxx.too_new_for_nvcc") is True:
        d["gxx.too_new_for_nvcc_era_unknown"] = nvcc_use_unknown(
            theano.get("version"), d.get("theano.backend"), d.get("theano.flavour"))
    d.update(_flat("cache", cache_facts(facts)))
    d.update(_flat("cache", module_path_facts(facts, theano.get("version"), theano.get("flavour"))))
    batch, shared = shared_cache_facts(facts, theano.get("flavour"), theano.get("version"), config_files_read(facts))
    d.update(_flat("batch", batch))
    d.update(_flat("cache", shared))
    d.update(_flat("log", log_facts(facts, d.get("theano.backend"))))
    if d.get("theano.lib_cnmem") is not False:  # a release without lib.cnmem: LD511's
        ignored = cnmem_ignored(facts, d.get("theano.backend"), d.get("theano.backend_known"))
        if ignored is not None:
            d["theano.cnmem_ignored"] = ignored
    d.update(_flat("keras", keras_facts(facts)))
    if "keras.backend" not in d:
        banner = keras_backend_in_log(facts)
        if banner:
            d["keras.backend"], d["keras.backend_source"] = banner, "log"
    d.update(_flat("pymc3", pymc3_facts(facts)))
    on_pythonpath = theano_dir_on_pythonpath(facts)
    if on_pythonpath is not None:
        d["python.theano_dir_on_pythonpath"] = on_pythonpath
    shadowed = shadowed_packages(facts)
    if shadowed is not None:
        d["python.shadowed_packages"] = shadowed
    d.update(_flat("python", python_build_facts(facts, theano.get("version"))))
    return _nest(d)


def keras_backend_in_log(facts: Mapping[str, Any]) -> Optional[str]:
    """The backend Keras said it was using ("Using Theano backend."), where the log shows
    exactly one; None otherwise."""
    ids = get(facts, "log.ids")
    if not isinstance(ids, list):
        return None
    names: set[str] = set()
    if "keras-using-theano-backend" in ids:
        names.add("theano")
    for match in get(facts, "log.matches", []) or []:
        if isinstance(match, Mapping) and match.get("id") == "keras-using-other-backend":
            groups = match.get("groups")
            names.add(str(groups.get("backend", "tensorflow") if isinstance(groups, Mapping) else "tensorflow").lower())
    return names.pop() if len(names) == 1 else None


SHADOWABLE = (("numpy", "numpy"), ("lasagne", "Lasagne"), ("keras", "Keras"))


def shadowed_packages(facts: Mapping[str, Any]) -> Optional[list[str]]:
    """'Lasagne: imported from A, also at B' for each package of SHADOWABLE found in more
    than one sys.path folder; [] when the probe looked and found one copy each; None when
    the record does not say (no package list, or a record from before the probe looked)."""
    found = get(facts, "packages.found")
    if not isinstance(found, list):
        return None
    out, unlooked = [], False
    for module, label in SHADOWABLE:
        first, others = get(facts, "packages.%s_import_dir" % module), get(facts, "packages.%s_shadowed_dirs" % module)
        if isinstance(first, str) and isinstance(others, list) and others:
            out.append("%s: imported from %s, also at %s" % (label, first, ", ".join(str(o) for o in others)))
        elif module in found and not isinstance(first, str):
            unlooked = True  # installed, but the record never says where it is imported from
    return out if (out or not unlooked) else None


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in flat.items():
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


def enrich(record: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the record with the Theano config model (``config``) and ``derived``."""
    from legacydoc.theanorc import derive_config_facts

    facts = copy.deepcopy(dict(record))
    facts.update(derive_config_facts(facts))
    facts["derived"] = derive(facts)
    return facts
