"""The fact tables the probes write, table by table in legacydoc/areas.py order. A key written
only when it applies is declared all the same; ``# new`` marks facts declared before the
probes write them."""

from __future__ import annotations

from legacydoc.factschema.kinds import (
    BOOL,
    INT,
    NUMBER,
    STR,
    Kind,
    ListOf,
    MapOf,
    Table,
    fact_table,
    list_of,
)

# --- shapes and names used in several tables ------------------------------------------------------
# probes/run.py CommandResult.to_fact(): one command as it ran.
COMMAND = Table({"argv": list_of(STR), "duration_s": NUMBER, "timed_out": BOOL, "rc": INT, "error": STR,
                 "encoding": STR, "output": STR})
DIST_NAME = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"  # PEP 503 normalised, as target.py keys packages
MODULE_NAME = ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# What the loader finds: libX.so[.N...], libX[.N...].dylib, X.dll (any case).
LIBRARY_FILE = r"lib[\w+-]+\.so(?:\.\d+)*|lib[\w+-]+(?:\.\d+)*\.dylib|[\w+-]+\.[dD][lL][lL]"
LIBRARY_KINDS = r"cudart|cublas|nvrtc|cudnn|libcuda|nvml|ptxjit"  # probes/libnames.py KINDS

# --- system (probes/system.py) --------------------------------------------------------------------
SYSTEM = fact_table({
    "os": STR, "os_name": STR, "os_release": STR, "os_version": STR, "machine": STR, "logical_cores": INT,
    "python_platform": STR, "cpu_model": STR, "cpu_mhz": INT, "cpu_flags": list_of(STR),
    "memory_total_mib": INT, "memory_available_mib": INT, "memory_error": STR, "wsl": BOOL,
    # who and where: redaction replaces them by <user>, <host>, <home> in shared output
    "user": STR, "user_aliases": list_of(STR), "hostname": STR, "host_aliases": list_of(STR), "home": STR,
    "home_aliases": list_of(STR), "home_has_space": BOOL, "home_non_ascii": BOOL,
    "distro": STR, "distro_version": STR, "glibc": STR, "macos_version": STR, "sip_enabled": BOOL,
    "batch_commands": list_of(STR),  # sbatch, qsub, bsub found on PATH ([]: none)
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
    # where Theano compiles and links each module (probes/target_script.py build_facts; new):
    # the Python headers, and on Linux the libpython files in Theano's link folders
    "headers": Table({"source": STR, "include_dir": STR, "plat_include_dir": STR, "python_h": BOOL,
                      "pyconfig_h": BOOL}),
    "libpython": Table({
        "ldlibrary": STR, "libdir": STR, "include_name": STR, "stdlib_parent": STR,
        "dirs_listed": list_of(STR), "files": list_of(STR),
    }),
    "build_error": STR,
})

# --- packages (probes/target.py) ------------------------------------------------------------------
_DIST: dict[str, Kind] = {
    "name": STR, "version": STR, "location": STR, "metadata": STR, "kind": STR, "installer": STR,
    "editable": BOOL, "develop": BOOL, "egg_link": STR,
}
PACKAGES = fact_table({
    "found": list_of(STR), "script_error": STR,
    # the distributions the probe looked for (probes/target_script.py MATTERS); older
    # records lack it, and then WATCHED_BEFORE_THE_LIST stands for it
    "watched": list_of(STR),
    "theano_import_dir": STR, "theano_shadowed_dirs": list_of(STR), "theano_claimed_by": list_of(STR),
    "theano_version_text": STR, "theano_version_source": STR, "theano_revision": STR,
    "theano_released": BOOL,  # new: generated_version.py says release = True (a package built for PyPI)
    "theano_dir_in_sys_path": STR, "pygpu_import_dir": STR, "mpi4py_import_dir": STR,
    # the C sources Theano compiles at run time, found in its package folder or not
    "theano_c_sources": MapOf(BOOL, r"[a-z_]+"),
    "numpy_import_dir": STR, "numpy_shadowed_dirs": list_of(STR), "numpy_distutils": BOOL,
    "lasagne_import_dir": STR, "lasagne_shadowed_dirs": list_of(STR),
    "keras_import_dir": STR, "keras_shadowed_dirs": list_of(STR),
    "numpy_distutils_config": BOOL, "numpy_config_file": STR, "numpy_blas_opt_info": BOOL, "numpy_blas": STR,
    "numpy_blas_libraries": list_of(STR), "numpy_blas_source": STR, "numpy_blas_version": STR,
    # packages.conda.<conda package>, from conda-meta file names
    "conda": MapOf(Table({"version": STR, "build": STR, "channel": STR}),  # channel: new
                   r"[a-z0-9_][a-z0-9_-]*"),
    # packages.keras_config: the keras.json the installed Keras reads (probes/target_script.py)
    "keras_config": Table({"path": STR, "from": STR, "exists": BOOL, "error": STR, "backend": STR,
                           "image_data_format": STR, "image_dim_ordering": STR, "floatx": STR}),
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
                             "pci_bus_id": STR,
                             # new: from plain nvidia-smi's table (default, exclusive_process, ...)
                             "compute_mode": STR}), enumerates=True),
    "count": INT, "driver_version": STR, "driver_cuda_version": STR, "proc_driver_version": STR,
    "driver_cuda_api_version": STR,  # new: cuDriverGetVersion as "9.0"
    # Linux: nvidia_uvm in /proc/modules, and /dev/nvidia-uvm a character device
    "uvm_module_loaded": BOOL, "uvm_device_node": BOOL,
    # new, Linux: the MPS control daemon's pipe folder and whether it exists; whether plain
    # nvidia-smi's process list shows an MPS server
    "mps_pipe_dir": STR, "mps_pipe_dir_exists": BOOL, "mps_server_listed": BOOL,
    # false: none among the processes this PID namespace shows (a container sees only its own)
    "mps_process_running": BOOL,
    # macOS (no nvidia-smi there): /Library/Frameworks/CUDA.framework/CUDA is installed
    "macos_cuda_driver": BOOL,
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
    # the kinds this platform's names were matched against: a kind not listed was not looked for
    "kinds_scanned": list_of(STR),
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
    "clang_version": STR, "is_clang": BOOL, "clang_is_apple": BOOL,
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
    # the compiler a cxx setting names (its value and where it was set), run with -v
    "cxx_configured": Table({**GXX.fields, "setting": STR}),
    # xcode-select -p's folder; tools: xcode | command-line-tools (whose version: xcodebuild or the receipt)
    "xcode": Table({"found": BOOL, "version": STR, "path": STR, "tools": STR}),
})

# --- theano_config (probes/theano_config.py) ------------------------------------------------------
_FILE: dict[str, Kind] = {
    "path": STR, "abspath": STR, "is_symlink": BOOL, "symlink_target": STR, "stat_error": STR,
    "exists": BOOL, "readable": BOOL, "kind": STR, "size": INT, "read_error": STR, "error": STR,
    "encoding": STR, "bom": STR, "undecodable_offset": INT, "gbk_decodable": BOOL, "crlf": BOOL,
    "text": STR, "text_truncated": BOOL,
    # only part of the file was recorded (a quoted excerpt): what it sets stands, the rest is unknown
    "text_partial": BOOL,
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
        # the mount holding the cache folder (Linux's mount table): "nfs4", "lustre", "ext4"...
        "filesystem": STR, "mount_point": STR,
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
    # the record names only some variables (a report quoting a few): one it lacks is unknown
    "partial": BOOL,
    "variables": MapOf(STR, r"(?i)PATH|LD_LIBRARY_PATH|DYLD_LIBRARY_PATH|CONDA_PREFIX|CONDA_DEFAULT_ENV|VIRTUAL_ENV"
                            r"|PYTHONPATH|PYTHONHOME|OMP_NUM_THREADS|GOTO_NUM_THREADS|LOCALAPPDATA"
                            r"|NVIDIA_VISIBLE_DEVICES|TMPDIR|TEMP|TMP|LSCRATCH|SLURM_JOB_ID|PBS_JOBID|LSB_JOBID|JOB_ID|SGE_ROOT"
                            r"|CPATH|C_INCLUDE_PATH|CPLUS_INCLUDE_PATH"
                            r"|(?:CUDA_|CUDNN_|THEANO|AESARA|PYTENSOR|MKL_|OPENBLAS_|GPUARRAY_|KERAS_)\w*"),
})

# --- which fact says a table was probed ------------------------------------------------------------
# A fact missing from a probed table is absent; missing from a table never probed (a ticket,
# a partial replay) it is unknown. The engine's `exists` reads these.
# The distributions the probe looked for before records listed them (packages.watched):
# in such a record any other package is unknown, never absent.
WATCHED_BEFORE_THE_LIST = frozenset({
    "theano", "theano-pymc", "pygpu", "numpy", "scipy", "mkl", "mkl-service", "six",
    "nose", "aesara", "pytensor", "lasagne", "keras", "pylearn2", "chainer",
    "tensorflow", "tensorflow-gpu", "pymc3", "pymc", "h5py", "pillow", "pydot", "pydot-ng",
})

PROBE_MARKERS: dict[str, str] = {
    "system": "system.os", "python": "python.probe_ok", "packages": "packages.found", "gpu": "gpu.nvidia_smi",
    "cuda": "cuda.nvcc", "cudnn": "cudnn.headers", "libraries": "libraries.winner", "path": "path.entries",
    "compilers": "compilers.gxx", "theano_config": "theano_config.files", "env": "env.variables",
}

# --- the record -----------------------------------------------------------------------------------
HEADER: dict[str, Kind] = {"schema": INT, "legacydoc_version": STR, "collected_at": STR, "redacted": BOOL}
# In legacydoc/areas.py FACT_TABLES order (a test holds the two together).
FACT_TABLES: dict[str, Table] = {
    "system": SYSTEM, "python": PYTHON, "packages": PACKAGES, "gpu": GPU, "cuda": CUDA, "cudnn": CUDNN,
    "libraries": LIBRARIES, "path": PATH, "compilers": COMPILERS, "theano_config": THEANO_CONFIG, "env": ENV,
}
