"""The exact, typed shape of the facts record: every table and key the probes write, the
computed namespaces rules read (``derived``, ``config``, ``bench``) and each value's kind.

Kinds: ``"str"``, ``"int"``, ``"number"`` (int or float, never bool), ``"bool"``,
``list_of(kind)`` (a list of scalars), :class:`Table` (known keys), :class:`ListOf` (an array
of tables) and :class:`MapOf` (keys are open-ended names matching a pattern). A key written
only when it applies is declared all the same: absent is always fine, a wrong kind never is.
Rule loading asks :func:`is_known`, :func:`is_list` and :func:`is_item_field`; :func:`validate`
checks a record. Undeclared keys are allowed (older and newer writers) and listed by
:func:`undeclared_keys`. ``# new`` marks facts declared before the probes write them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Union

# --- the vocabulary -------------------------------------------------------------------------------
STR, INT, NUMBER, BOOL = "str", "int", "number", "bool"
ANY = "any"  # a free-form value nobody validates (unused so far: say why wherever it is used)
SCALARS = frozenset({STR, INT, NUMBER, BOOL, ANY})


@dataclass(frozen=True, eq=False)
class ListKind:
    """A list of scalars: ``list_of(STR)``."""
    item: str


def list_of(kind: str) -> ListKind:
    if kind not in SCALARS:
        raise ValueError(f"list_of takes a scalar kind, not {kind!r} (ListOf(Table) is for tables)")
    return ListKind(kind)


@dataclass(frozen=True, eq=False)
class MapOf:
    """A table keyed by names (env variables, distributions) that match ``key_pattern``.
    ``dotted``: keys hold dots (library file names), so a dotted fact name is split wherever
    the key part matches the pattern and the rest fits the value."""
    value: Kind
    key_pattern: str = r"[^.]+"
    dotted: bool = False

    def matches(self, key: str) -> bool:
        return re.fullmatch(self.key_pattern, key) is not None  # re caches the compiled pattern


@dataclass(frozen=True, eq=False)
class Table:
    """A table with known keys; ``extra`` types the other keys that match it."""
    fields: Mapping[str, Kind]
    extra: MapOf | None = None


@dataclass(frozen=True, eq=False)
class ListOf:
    """An array of tables (what for_each / some / none iterate)."""
    item: Table


Kind = Union[str, ListKind, MapOf, Table, ListOf]


# Every fact table may say why its probe failed or overran (probes/__init__.py).
PROBE_FIELDS: dict[str, Kind] = {"probe_error": STR, "probe_timed_out": BOOL, "probe_duration_s": NUMBER}


def fact_table(fields: Mapping[str, Kind], extra: MapOf | None = None) -> Table:
    """A top-level table filled by a probe: its fields plus the probe runner's."""
    return Table({**fields, **PROBE_FIELDS}, extra)


# --- shapes and names used in several tables ------------------------------------------------------
# probes/run.py CommandResult.to_fact(): one command as it ran.
COMMAND = Table({"argv": list_of(STR), "duration_s": NUMBER, "timed_out": BOOL, "rc": INT, "error": STR,
                 "encoding": STR, "output": STR})
DIST_NAME = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"  # PEP 503 normalised, as target.py keys packages
MODULE_NAME = ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# What the loader finds: libX.so[.N...], libX[.N...].dylib, X.dll (any case).
LIBRARY_FILE = r"lib[\w+-]+\.so(?:\.\d+)*|lib[\w+-]+(?:\.\d+)*\.dylib|[\w+-]+\.[dD][lL][lL]"
LIBRARY_KINDS = r"cudart|cublas|nvrtc|cudnn|libcuda|nvml"  # probes/libnames.py KINDS

# --- system (probes/system.py) --------------------------------------------------------------------
SYSTEM = fact_table({
    "os": STR, "os_name": STR, "os_release": STR, "os_version": STR, "machine": STR, "logical_cores": INT,
    "python_platform": STR, "cpu_model": STR, "cpu_mhz": INT, "cpu_flags": list_of(STR),
    "memory_total_mib": INT, "memory_available_mib": INT, "memory_error": STR, "wsl": BOOL,
    # who and where: redaction replaces them by <user>, <host>, <home> in shared output
    "user": STR, "user_aliases": list_of(STR), "hostname": STR, "host_aliases": list_of(STR), "home": STR,
    "home_aliases": list_of(STR), "home_has_space": BOOL, "home_non_ascii": BOOL,
    "distro": STR, "distro_version": STR, "glibc": STR, "macos_version": STR, "sip_enabled": BOOL,  # new
})

# --- python (probes/target.py and the target_script.py it runs) -----------------------------------
PYTHON = fact_table({
    # how the interpreter was chosen, and whether the script ran in it
    "selected_by": STR, "executable_requested": STR, "candidates_skipped": list_of(STR), "probe_ok": BOOL,
    "error": STR, "script_error": STR, "command": COMMAND,
    # what the script reported
    "version": STR, "version_info": list_of(INT), "release_level": STR, "sys_version": STR,
    "implementation": STR, "bits": INT, "executable": STR, "prefix": STR, "exec_prefix": STR,
    "base_prefix": STR, "real_prefix": STR, "env_kind": STR, "base_is_conda": BOOL, "platform": STR,
    "platform_platform": STR, "platform_platform_error": STR, "machine": STR, "sys_path": list_of(STR),
    "cwd": STR, "user_site": STR, "user_site_enabled": BOOL, "filesystem_encoding": STR,
})

# --- packages (probes/target.py) ------------------------------------------------------------------
_DIST: dict[str, Kind] = {
    "name": STR, "version": STR, "location": STR, "metadata": STR, "kind": STR, "installer": STR,
    "editable": BOOL, "develop": BOOL, "egg_link": STR,
}
PACKAGES = fact_table({
    "found": list_of(STR), "script_error": STR,
    "theano_import_dir": STR, "theano_shadowed_dirs": list_of(STR), "theano_claimed_by": list_of(STR),
    "theano_version_text": STR, "theano_version_source": STR, "theano_revision": STR,
    "theano_dir_in_sys_path": STR, "pygpu_import_dir": STR,
    "numpy_import_dir": STR, "numpy_shadowed_dirs": list_of(STR), "numpy_distutils": BOOL,
    "numpy_distutils_config": BOOL, "numpy_config_file": STR, "numpy_blas_opt_info": BOOL, "numpy_blas": STR,
    "numpy_blas_libraries": list_of(STR), "numpy_blas_source": STR, "numpy_blas_version": STR,
    # packages.conda.<conda package>, from conda-meta file names
    "conda": MapOf(Table({"version": STR, "build": STR, "channel": STR}),  # channel: new
                   r"[a-z0-9_][a-z0-9_-]*"),
    # packages.import_check.<module> (--import-check)
    "import_check": MapOf(Table({
        "ok": BOOL, "duration_s": NUMBER, "version": STR, "file": STR, "blas_opt_info": BOOL,
        "blas_opt_info_error": STR, "error": STR, "skipped": BOOL, "command": COMMAND,
    }), MODULE_NAME),
    # packages.<dist> (packages.theano-pymc): the first copy on sys.path, every copy under copies
}, extra=MapOf(Table({**_DIST, "copies": ListOf(Table(_DIST))}), DIST_NAME))

# --- gpu (probes/gpu.py) --------------------------------------------------------------------------
GPU = fact_table({
    "nvidia_smi": Table({
        "found": BOOL, "path": STR, "searched": list_of(STR), "query": COMMAND, "query_retry": COMMAND,
        "plain": COMMAND, "plain_skipped": STR, "smi_version": STR,
        # the query that stands (the retry when the driver rejected compute_cap)
        "rc": INT, "output": STR, "error": STR, "timed_out": BOOL,
    }),
    "devices": ListOf(Table({"index": INT, "name": STR, "memory_total_mib": INT, "compute_capability": STR,
                             "pci_bus_id": STR})),
    "count": INT, "driver_version": STR, "driver_cuda_version": STR, "proc_driver_version": STR,
    "driver_cuda_api_version": STR,  # new: cuDriverGetVersion as "9.0"
})

# --- cuda (probes/cuda.py) ------------------------------------------------------------------------
CUDA = fact_table({
    "env": MapOf(STR, r"(?i)CUDA_(?:PATH|HOME|ROOT|PATH_V\d+_\d+)"), "path_nvcc_all": list_of(STR),
    "theano_cuda_root": Table({"value": STR, "source": STR, "typed": STR}), "cwd_nvcc": STR,
    "nvcc": Table({
        "found": BOOL, "path": STR, "resolves_to": STR, "version": STR, "version_full": STR, "built_on": STR,
        "build": STR, "command": COMMAND, "timed_out": BOOL, "toolkit_root": STR,
    }),
    "toolkits": ListOf(Table({
        "root": STR, "found_by": list_of(STR), "link_target": STR, "aliases": list_of(STR), "exists": BOOL,
        "nvcc": STR, "has_include_cuda_h": BOOL, "lib_dirs": list_of(STR), "version": STR,
        "version_full": STR, "version_source": STR,
        # what each file says: version_files."version.json"
        "version_files": MapOf(STR, r"version\.(?:json|txt)", dotted=True),
        "nvcc_skipped": STR, "nvcc_timed_out": BOOL, "nvcc_command": COMMAND,
        "source": STR,  # new: installer | conda | distro
    })),
})

# --- cudnn (probes/cudnn.py) ----------------------------------------------------------------------
_DNN_PATHS: dict[str, Kind] = {"base_path": STR, "include_path": STR, "library_path": STR, "bin_path": STR}
CUDNN = fact_table({
    "headers": ListOf(Table({
        "path": STR, "link_target": STR, "found_by": list_of(STR), "header": STR, "exists": BOOL,
        "readable": BOOL, "major": INT, "minor": INT, "patch": INT, "version": STR, "version_number": INT,
        "includes_version_header": BOOL,
    })),
    "libraries": ListOf(Table({
        "path": STR, "link_target": STR, "found_by": list_of(STR), "name": STR,
        "kind": STR,  # dll | import_lib | so: not libraries.found's kinds
        "major": INT, "name_number": INT, "part": STR, "exists": BOOL,
        "version": STR,  # today from a full .so name only (libcudnn.so.7.6.5)
    })),
    # Theano's [dnn] paths, where each was set, and THEANO_FLAGS text that shlex altered
    "dnn_settings": Table({**_DNN_PATHS, "source": Table(_DNN_PATHS), "typed": Table(_DNN_PATHS)}),
    "include_dirs_searched": list_of(STR), "library_dirs_searched": list_of(STR),
    "env": MapOf(STR, r"CUDNN_(?:PATH|HOME|ROOT)"),
})

# --- libraries (probes/libraries.py; file names read by probes/libnames.py) -----------------------
LIBRARIES = fact_table({
    "os_rules": STR, "exe_dir_known": BOOL, "ldconfig": COMMAND,
    "ldconfig_cache": Table({
        "entries": INT, "unparsed": INT, "header_count": INT, "cache_file": STR, "generator": STR,
    }),
    "search_order": ListOf(Table({
        "order": INT, "dir": STR, "source": STR, "path_index": INT, "unexpanded_vars": list_of(STR),
        "means_cwd": BOOL, "loader_searches": BOOL, "duplicate_of": INT, "same_dir_as": INT, "error": STR,
    })),
    "found": ListOf(Table({
        "name": STR, "kind": STR, "path": STR, "dir": STR, "order": INT, "source": STR,
        # what the file name says (libnames.library_kind_and_version)
        "versioned": BOOL, "so_version": STR, "driver_version": STR, "component": STR, "cudnn": STR,
        "cuda": STR, "cuda_versions": list_of(STR), "shipped_name": BOOL, "bits": INT,
        # ld.so cache entries, and the file itself
        "arch": STR, "arch_mismatch": BOOL, "exists": BOOL, "loader_searches": BOOL, "link_to": STR,
        "dangling": BOOL,
    })),
    "found_truncated": BOOL, "scan_incomplete": BOOL, "kinds_found": list_of(STR),
    # winner.<kind>.<file name>: the copy the loader takes (winner.cudart."libcudart.so.10.2")
    "winner": MapOf(MapOf(Table({
        "path": STR, "dir": STR, "order": INT, "source": STR, "copies": INT, "cuda": STR, "cudnn": STR,
        "component": STR, "driver_version": STR,
    }), LIBRARY_FILE, dotted=True), LIBRARY_KINDS),
    "libgpuarray_names": MapOf(Table({"asks_for": STR, "fallback_names": list_of(STR), "found": list_of(STR)}),
                               r"libcuda|nvrtc|cublas"),
    "libcuda_version": STR,  # new: the driver's user-space libcuda version
    "driver_libs": ListOf(Table({"name": STR, "path": STR, "version": STR})),  # new
})

# --- path (probes/path.py) ------------------------------------------------------------------------
PATH_ENTRY = Table({
    "index": INT, "entry": STR, "expanded": STR, "quoted": BOOL, "unexpanded_vars": list_of(STR),
    "unresolved_vars": list_of(STR), "empty": BOOL, "means_cwd": BOOL, "surrounding_space": BOOL,
    "duplicate_of": INT, "exists": BOOL, "provides": list_of(STR), "cuda_versions": list_of(STR),
    "not_scanned": BOOL, "error": STR,
})
SHADOWED = Table({"tool": STR, "library": STR, "kind": STR, "winner": STR, "winner_index": INT,
                  "others": list_of(STR), "other_indices": list_of(INT)})
PATH = fact_table({
    "variable": STR, "os_rules": STR, "separator": STR, "count": INT, "entries": ListOf(PATH_ENTRY),
    "duplicates": INT, "empty_entries": list_of(INT), "missing": list_of(INT), "unexpanded": list_of(INT),
    "shadowed": ListOf(SHADOWED), "shadowed_libraries": ListOf(SHADOWED), "scan_incomplete": BOOL,
    "ld_library_path_set": BOOL, "ld_library_path": ListOf(PATH_ENTRY),
    "dyld_library_path_set": BOOL, "dyld_library_path": ListOf(PATH_ENTRY),
})

# --- compilers (probes/compilers.py) --------------------------------------------------------------
_RAN: dict[str, Kind] = {"found": BOOL, "path": STR, "ok": BOOL, "timed_out": BOOL, "command": COMMAND}
GXX = Table({
    **_RAN, "source": STR,
    "version": STR, "version_major": INT, "version_line": STR, "vendor": STR, "target": STR, "bits": INT,
    "is_mingw": BOOL, "thread_model": STR, "exception_model": STR, "exception_model_source": STR,
    "clang_version": STR, "is_clang": BOOL,
})
COMPILERS = fact_table({
    "found": BOOL, "gxx_count": INT, "theano_cxx": STR, "conda_gxx_dirs": list_of(STR),
    "gxx": GXX, "gxx_all": ListOf(GXX),
    "gcc": Table({**_RAN, "also_on_path": list_of(STR), "version": STR, "version_major": INT, "vendor": STR,
                  "target": STR}),
    "msvc": Table({
        **_RAN, "also_on_path": list_of(STR), "version": STR, "msc_ver": INT, "msc_full_ver": INT,
        "arch": STR, "banner": STR,
        "visual_studio": STR,  # new
    }),
    "clang": Table({
        **_RAN, "also_on_path": list_of(STR), "version": STR, "version_major": INT, "vendor": STR,
        "is_apple": BOOL, "apple_build": STR, "target": STR, "thread_model": STR, "installed_dir": STR,
    }),
    "nvcc_host": Table({
        "found": BOOL, "source": STR, "compiler": STR, "path": STR, "version": STR, "timed_out": BOOL,
        "msc_ver": INT, "clang_major": INT, "gcc_major": INT,
        "env": MapOf(STR, r"NVCC_CCBIN|CUDAHOSTCXX|NVCC_PREPEND_FLAGS|NVCC_APPEND_FLAGS"),
    }),
    "xcode": Table({"found": BOOL, "version": STR, "path": STR}),  # new
})

# --- theano_config (probes/theano_config.py) ------------------------------------------------------
_FILE: dict[str, Kind] = {
    "path": STR, "abspath": STR, "is_symlink": BOOL, "symlink_target": STR, "stat_error": STR,
    "exists": BOOL, "readable": BOOL, "kind": STR, "size": INT, "read_error": STR, "error": STR,
    "encoding": STR, "bom": STR, "undecodable_offset": INT, "gbk_decodable": BOOL, "crlf": BOOL,
    "text": STR, "text_truncated": BOOL,
}
THEANO_CONFIG = fact_table({
    "files": ListOf(Table({**_FILE, "from": STR})),  # from: default | THEANORC
    "unread_files": ListOf(Table({**_FILE, "where": STR})),  # where: cwd | project | home
    "flags": MapOf(STR, r"(?:THEANO|AESARA|PYTENSOR)_FLAGS"), "theanorc_env": STR,
    "compiledir": Table({
        "base_compiledir": STR, "base_compiledir_raw": STR, "source": STR, "source_file": STR,
        "default_from": STR, "compiledir_setting": STR, "compiledir_setting_source": STR, "abspath": STR,
        "exists": BOOL, "not_a_directory": BOOL, "creatable": BOOL, "writable": BOOL, "subdirs_total": INT,
        "subdirs_truncated": BOOL, "scan_error": STR,
        "subdirs": ListOf(Table({
            "name": STR, "platform": STR, "processor": STR, "python_version": STR, "bitwidth": INT,
            "system": STR, "entries": INT, "entries_truncated": BOOL, "module_dirs": INT, "scan_error": STR,
            "lock_dir": Table({"lock_file": BOOL, "age_s": NUMBER, "owner": STR, "owner_pid": INT,
                               "owner_host": STR}),
        })),
    }),
})

# --- env (probes/env.py): its allow-list, so a misspelt variable name is caught -------------------
ENV = fact_table({
    "variables": MapOf(STR, r"(?i)PATH|LD_LIBRARY_PATH|DYLD_LIBRARY_PATH|CONDA_PREFIX|CONDA_DEFAULT_ENV|VIRTUAL_ENV"
                            r"|PYTHONPATH|PYTHONHOME|OMP_NUM_THREADS|GOTO_NUM_THREADS|LOCALAPPDATA"
                            r"|NVIDIA_VISIBLE_DEVICES|(?:CUDA_|CUDNN_|THEANO|AESARA|PYTENSOR|MKL_|OPENBLAS_|GPUARRAY_)\w*"),
})

# --- derived (legacydoc/derive.py DERIVED; computed for the rules, never saved) -------------------
DERIVED = Table({
    "os": STR,
    "theano": Table({
        "flavour": STR, "version": STR, "both_installed": BOOL, "python_ok": BOOL, "python_verdict": STR,
        "python_range": STR, "release_known": BOOL, "failures": list_of(STR), "device": STR, "wants_gpu": BOOL,
        "backend": STR, "device_index": INT, "device_exists": BOOL, "runs_on": STR, "cpu_reasons": list_of(STR),
        "unknown_reasons": list_of(STR),
    }),
    "blas": Table({"ldflags_set": BOOL, "ldflags": STR}),
    "gpu": Table({"usable": BOOL, "failure": STR}),
    "driver": Table({"max_cuda": STR, "max_cuda_source": STR}),
    "nvcc": Table({"version": STR, "min_driver": STR, "driver_ok": BOOL, "lowest_sm": INT, "highest_sm": INT,
                   "max_gcc": INT}),
    "gpus": ListOf(Table({"index": INT, "name": STR, "compute_capability": STR, "sm": INT, "nvcc_version": STR,
                          "nvcc_lowest_sm": INT, "nvcc_highest_sm": INT, "in_nvcc_range": BOOL})),
    "cuda": Table({"path_versions": list_of(STR), "path_version_count": INT, "toolkit_versions": list_of(STR)}),
    "loader": Table({"cudart_cuda": STR, "cudart_matches_nvcc": BOOL, "has_cudart": BOOL}),
    "libgpuarray": Table({"nvrtc_wanted": list_of(STR), "nvrtc_found": BOOL, "cublas_found": BOOL}),
    "cudnn": Table({"header_version": STR, "header_major": INT, "library_majors": list_of(INT),
                    "header_library_mismatch": BOOL, "cuda_builds": list_of(STR), "built_for_nvcc": BOOL,
                    "found": BOOL}),
    "gxx": Table({"found": BOOL, "count": INT, "gcc_major": INT, "too_new_for_nvcc": BOOL}),
    "pygpu": Table({"version": STR, "ok_for_theano": BOOL, "required": STR, "usable": BOOL, "evidence": STR}),
    "compiler": Table({"usable": BOOL}),
    "cache": Table({"foreign_dirs": list_of(STR), "stale_locks": list_of(STR)}),
})

# --- config (legacydoc/theanorc/findings.py derive_config_facts; computed) ------------------------
SETTING = Table({"source": STR, "value": STR, "file": STR, "line": INT, "invalid": BOOL, "note": STR})
CONFIG = Table({
    "theano_flavour": STR, "theano_version": STR, "schema": STR, "schema_reason": STR,
    "files_read": list_of(STR), "import_fails": BOOL, "import_error": STR, "finding_kinds": list_of(STR),
    "findings": ListOf(Table({"kind": STR, "severity": STR, "message": STR, "fix_line": STR, "file": STR,
                              "line": INT, "section": STR, "option": STR, "value": STR, "did_you_mean": STR,
                              "import_fails": BOOL})),
    # findings.KEY_OPTIONS nested by their dots (effective.blas.ldflags.value): an exact list,
    # not a MapOf, since only these options are computed
    "effective": Table({
        "device": SETTING, "floatX": SETTING, "mode": SETTING, "cxx": SETTING, "base_compiledir": SETTING,
        "init_gpu_device": SETTING, "force_device": SETTING, "linker": SETTING, "optimizer": SETTING,
        "allow_gc": SETTING, "blas": Table({"ldflags": SETTING}), "cuda": Table({"root": SETTING}),
        "gpuarray": Table({"preallocate": SETTING}), "lib": Table({"cnmem": SETTING}),
        "dnn": Table({"enabled": SETTING, **dict.fromkeys(_DNN_PATHS, SETTING)}),
    }),
})

# --- bench (legacydoc/bench/facts.py build(); added by `legacydoc bench`) -------------------------
_SIDE: dict[str, Kind] = {
    "ok": BOOL, "error": STR, "python": STR, "executable": STR, "numpy": STR, "blas": STR, "blas_version": STR,
    "blas_library": STR, "blas_core": STR, "threads": INT, "threads_source": STR, "float32_gflops": NUMBER,
    "float32_n": INT, "float64_gflops": NUMBER, "float64_n": INT, "n512_float32_gflops": NUMBER,
    "f32_over_f64": NUMBER,
}
BENCH = Table({
    "seconds": NUMBER, "elapsed_s": NUMBER, "machine": Table(_SIDE),
    "target": Table({**_SIDE, "same_as_machine": BOOL}),
    "target_vs_machine": NUMBER, "target_slowdown": NUMBER, "f32_over_f64": NUMBER, "cores": INT, "threads": INT,
    "threads_limited": BOOL, "threads_limit_var": STR, "threads_limit_value": INT, "threads_limit_blas": STR,
    "threads_limit_float32_gflops": NUMBER, "env": MapOf(STR, ENV_NAME),
    "peak": Table({"gflops_float32": NUMBER, "gflops_float64": NUMBER, "vector": STR, "uncertain": BOOL,
                   "fraction_float32": NUMBER}),
    "theano": Table({
        "ran": BOOL, "ok": BOOL, "stage": STR, "message": STR, "op": STR, "op_kind": STR, "cthunk": BOOL,
        "floatx": STR, "device": STR, "ldflags": STR, "n": INT, "gflops": NUMBER, "vs_numpy": NUMBER,
        "speedup_vs_machine": NUMBER, "capi_warning": BOOL, "ldflags_fix": STR,
    }),
    "gpu": Table({"name": STR, "peak_tflops": NUMBER, "speedup_low": NUMBER, "speedup_high": NUMBER,
                  "seed_bar": STR}),
})

# --- the record -----------------------------------------------------------------------------------
HEADER: dict[str, Kind] = {"schema": INT, "legacydoc_version": STR, "collected_at": STR, "redacted": BOOL}
# In legacydoc/areas.py FACT_TABLES order (a test holds the two together).
FACT_TABLES: dict[str, Table] = {
    "system": SYSTEM, "python": PYTHON, "packages": PACKAGES, "gpu": GPU, "cuda": CUDA, "cudnn": CUDNN,
    "libraries": LIBRARIES, "path": PATH, "compilers": COMPILERS, "theano_config": THEANO_CONFIG, "env": ENV,
}
COMPUTED: dict[str, Table] = {"derived": DERIVED, "config": CONFIG, "bench": BENCH}
RECORD = Table({**HEADER, **FACT_TABLES, **COMPUTED})

# --- names ----------------------------------------------------------------------------------------
MAX_NAME_PARTS = 64  # far beyond any declared path; bounds the work on hostile names


def _resolve(root: Kind, name: str) -> list[Kind]:
    """Every kind a dotted ``name`` can end at below ``root`` (several only through dotted keys)."""
    parts = name.split(".")
    if len(parts) > MAX_NAME_PARTS or not all(parts):
        return []
    found: list[Kind] = []
    work: list[tuple[Kind | None, int]] = [(root, 0)]
    while work:
        kind, at = work.pop()
        if at == len(parts) or kind == ANY:  # "any" holds whatever lies below it
            found.append(kind)  # type: ignore[arg-type]
            continue
        if isinstance(kind, Table):
            if parts[at] in kind.fields:
                work.append((kind.fields[parts[at]], at + 1))
                continue
            kind = kind.extra  # a fixed field wins over a map key of the same name
        if isinstance(kind, MapOf):
            for end in range(at + 1, len(parts) + 1) if kind.dotted else (at + 1,):
                if kind.matches(".".join(parts[at:end])):
                    work.append((kind.value, end))
    return found


@lru_cache(maxsize=8192)
def _kinds_of(name: str) -> tuple[Kind, ...]:
    return tuple(_resolve(RECORD, name))


def is_known(name: str) -> bool:
    """Whether a rule may read ``name``: a path through tables and maps to a leaf, a list or a
    table ("gpu.nvidia_smi", "packages.pygpu.version", "env.variables.PATH")."""
    return isinstance(name, str) and bool(_kinds_of(name))


def is_list(name: str) -> bool:
    """Whether ``name`` is an array of tables (what for_each / some / none iterate)."""
    return isinstance(name, str) and any(isinstance(k, ListOf) for k in _kinds_of(name))


@lru_cache(maxsize=4096)
def _item_field(list_name: str, field: str) -> bool:
    return any(_resolve(k.item, field) for k in _kinds_of(list_name) if isinstance(k, ListOf))


def is_item_field(list_name: str, field: str) -> bool:
    """Whether ``field`` (dotted: "lock_dir.age_s", "command.rc") is in the items of ``list_name``."""
    return isinstance(list_name, str) and isinstance(field, str) and _item_field(list_name, field)


def declared_names(kind: Kind = RECORD, path: str = "") -> Iterator[tuple[str, Kind]]:
    """Every declared path with its kind, in declaration order; a map key reads ``<name>``,
    a list's items ``[]`` ("packages.<name>.copies[].version")."""
    if path:
        yield path, kind
    children = list(kind.fields.items()) if isinstance(kind, Table) else []
    mapped = kind.extra if isinstance(kind, Table) else kind
    if isinstance(mapped, MapOf):
        children.append(("<name>", mapped.value))
    for key, value in children:
        yield from declared_names(value, _join(path, key))
    if isinstance(kind, ListOf):
        yield from declared_names(kind.item, path + "[]")


def leaf_names() -> list[str]:
    """The declared leaf facts: scalars and lists of scalars."""
    return [path for path, kind in declared_names() if isinstance(kind, (str, ListKind))]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# --- validation -----------------------------------------------------------------------------------
MAX_PROBLEMS = 500  # a record of garbage gets a readable answer, not a million lines
_CONTAINERS = (Mapping, list, tuple)


def _kind_text(kind: Kind) -> str:
    if isinstance(kind, (ListKind, ListOf)):
        return "a list of " + (kind.item if isinstance(kind, ListKind) else "tables")
    return "a table" if isinstance(kind, (Table, MapOf)) else kind


def _value_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return "a table"
    return "a list" if isinstance(value, (list, tuple)) else type(value).__name__


_TYPES: dict[str, Any] = {STR: str, INT: int, NUMBER: (int, float), BOOL: bool, ANY: object}


def _fits(kind: str, value: Any) -> bool:
    return isinstance(value, _TYPES[kind]) and not (kind in (INT, NUMBER) and isinstance(value, bool))


def _key_text(key: str) -> str:
    # TOML's spelling of a key with dots in it: libraries.winner.cudart."libcudart.so.10"
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else '"{}"'.format(key.replace('"', '\\"'))


def _child_kind(kind: Kind, key: str) -> Kind | None:
    if isinstance(kind, Table) and key in kind.fields:
        return kind.fields[key]
    mapped = kind.extra if isinstance(kind, Table) else kind  # a fixed field wins over a map key
    return mapped.value if isinstance(mapped, MapOf) and mapped.matches(key) else None


class _Walk:
    """One iterative pass over a record. Each object is checked once per kind, so shared or
    cyclic references cannot make it loop; nesting stops at ``max_depth``."""
    def __init__(self, max_depth: int, undeclared: list[str] | None) -> None:
        self.max_depth = max_depth
        self.undeclared = undeclared
        self.problems: list[str] = []
        self.seen: set[tuple[int, int]] = set()
        # (path, value, kind or None when undeclared, depth)
        self.work: list[tuple[str, Any, Kind | None, int]] = []

    def run(self, record: Any) -> list[str]:
        self.work.append(("", record, RECORD, 0))
        while self.work and len(self.problems) <= MAX_PROBLEMS:
            path, value, kind, depth = self.work.pop()
            try:
                self.check(path, value, kind, depth)
            except Exception as exc:  # noqa: BLE001 - a hostile Mapping must not stop the rest
                self.note(f"{path or 'record'}: cannot be read ({type(exc).__name__})")
        if len(self.problems) > MAX_PROBLEMS:
            self.problems[MAX_PROBLEMS:] = [f"record: more problems not listed (stopped after {MAX_PROBLEMS})"]
        return self.problems

    def note(self, problem: str) -> None:
        if len(self.problems) <= MAX_PROBLEMS:  # one past the limit marks the cut
            self.problems.append(problem)

    def fail(self, path: str, expected: str, value: Any) -> None:
        self.note(f"{path or 'record'}: expected {expected}, found {_value_text(value)}")

    def check(self, path: str, value: Any, kind: Kind | None, depth: int) -> None:
        if isinstance(value, _CONTAINERS):
            if depth > self.max_depth:
                self.note(f"{path}: nested deeper than {self.max_depth} levels")
                return
            if (id(value), id(kind)) in self.seen:
                return
            self.seen.add((id(value), id(kind)))
        if isinstance(kind, str):
            if not _fits(kind, value):
                self.fail(path, kind, value)
        elif isinstance(kind, (ListKind, ListOf)):
            self.check_list(path, value, kind, depth)
        elif kind is None:  # undeclared: only how deep it goes is checked
            if depth == 1:
                self.note(f"{path}: not a table of the facts record")
            pairs = (value.items() if isinstance(value, Mapping)
                     else enumerate(value) if isinstance(value, _CONTAINERS) else ())
            self.work.extend(reversed([
                (_join(path, _key_text(k)) if isinstance(k, str) else f"{path}[{k!r:.40}]", c, None, depth + 1)
                for k, c in pairs if isinstance(c, _CONTAINERS)
            ]))
        elif not isinstance(value, Mapping):
            self.fail(path, "a table", value)
        else:
            self.check_table(path, value, kind, depth)

    def check_list(self, path: str, value: Any, kind: ListKind | ListOf, depth: int) -> None:
        if not isinstance(value, (list, tuple)):
            self.fail(path, _kind_text(kind), value)
            return
        items = []
        for index, item in enumerate(value):
            where = f"{path}[{index}]"
            if isinstance(kind, ListKind):
                if not _fits(kind.item, item):
                    self.fail(where, kind.item, item)
            elif not isinstance(item, Mapping):
                self.fail(where, "a table", item)
            else:
                items.append((where, item, kind.item, depth + 1))
        self.work.extend(reversed(items))

    def check_table(self, path: str, value: Mapping, kind: Kind, depth: int) -> None:
        children = []
        for key, child in value.items():
            if not isinstance(key, str):
                self.note(f"{path or 'record'}: key {repr(key)[:40]} is not a string")
                continue
            where = _join(path, _key_text(key))
            child_kind = _child_kind(kind, key)
            if child_kind is None and path and self.undeclared is not None:
                self.undeclared.append(where)
            children.append((where, child, child_kind, depth + 1))
        self.work.extend(reversed(children))


def _run(record: Any, max_depth: int, undeclared: list[str] | None) -> list[str]:
    try:
        return _Walk(max_depth, undeclared).run(record)
    except Exception as exc:  # noqa: BLE001 - validation reports, it never crashes
        return [f"record: validation failed ({type(exc).__name__})"]


def validate(record: Mapping[str, Any], max_depth: int = 32) -> list[str]:
    """Every place ``record`` disagrees with the schema, one line each naming the dotted path
    ("gpu.devices: expected a list of tables, found int"), plus nesting deeper than
    ``max_depth`` and unknown top-level tables. Undeclared keys in a known table are
    allowed. Never raises."""
    return _run(record, max_depth, None)


def undeclared_keys(record: Mapping[str, Any], max_depth: int = 32) -> list[str]:
    """Paths of the keys this schema does not declare (allowed, but worth declaring when a
    probe gains a fact). Never raises."""
    found: list[str] = []
    _run(record, max_depth, found)
    return found
