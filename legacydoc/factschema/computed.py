"""The namespaces rules read but the record never holds: ``derived`` (legacydoc/derive.py),
``config`` (the Theano config model's findings) and ``bench`` (legacydoc bench)."""

from __future__ import annotations

from legacydoc.factschema.kinds import BOOL, INT, NUMBER, STR, Kind, ListOf, MapOf, Table, list_of
from legacydoc.factschema.tables import _DNN_PATHS, ENV_NAME

# --- derived (legacydoc/derive.py DERIVED; computed for the rules, never saved) -------------------
DERIVED = Table({
    "os": STR,
    "theano": Table({
        "flavour": STR, "version": STR, "version_label": STR, "both_installed": BOOL, "python_ok": BOOL,
        "python_verdict": STR,
        "python_range": STR, "release_known": BOOL, "version_unknown": BOOL, "failures": list_of(STR),
        # failure id (rules/knowledge/theano_releases.toml) -> hit or not; left out when unknown
        "failure": MapOf(BOOL, r"[a-z0-9][a-z0-9-]*"),
        "device": STR, "wants_gpu": BOOL,
        "backend": STR, "device_index": INT, "device_exists": BOOL, "gpu_unpinned": BOOL, "runs_on": STR,
        "on_cpu": BOOL,
        "cpu_reasons": list_of(STR), "c_sources_missing": list_of(STR), "c_sources_complete": BOOL,
        "unknown_reasons": list_of(STR), "backend_known": BOOL, "backend_from_log": STR, "visible_gpus": INT,
        "device_gpu": STR, "old_backend": STR, "cudnn_min": INT, "cnmem_ignored": BOOL,
        "cudnn_warn_from": INT, "lib_cnmem": BOOL, "hypot_fix": BOOL, "numpy_min": STR, "numpy_too_old": BOOL,
        "preallocate_fraction": NUMBER, "config_not_used": list_of(STR), "log_contradicts_config": BOOL,
    }),
    "blas": Table({"ldflags_set": BOOL, "ldflags": STR, "fix": STR}),
    "gpu": Table({"usable": BOOL, "failure": STR, "compute_modes": list_of(STR), "all_prohibited": BOOL}),
    "driver": Table({"max_cuda": STR, "max_cuda_source": STR, "branch": INT}),
    "nvcc": Table({"version": STR, "min_driver": STR, "driver_ok": BOOL, "lowest_sm": INT, "highest_sm": INT,
                   "max_gcc": INT}),
    "gpus": ListOf(Table({"index": INT, "name": STR, "compute_capability": STR, "sm": INT, "nvcc_version": STR,
                          "nvcc_lowest_sm": INT, "nvcc_highest_sm": INT, "in_nvcc_range": BOOL}),
                   enumerates=True),
    "cuda": Table({"path_versions": list_of(STR), "path_version_count": INT, "toolkit_versions": list_of(STR)}),
    "loader": Table({"cudart_cuda": STR, "cudart_matches_nvcc": BOOL, "has_cudart": BOOL, "has_ptxjit": BOOL,
                     "libcuda_is_stub": BOOL, "libcuda_stub": STR}),
    "libgpuarray": Table({"nvrtc_wanted": list_of(STR), "nvrtc_found": BOOL, "cublas_found": BOOL,
                          "toolkits_named": list_of(STR), "toolkits_that_fit": list_of(STR), "toolkit_fix": STR}),
    "cudnn": Table({"header_version": STR, "header_major": INT, "library_majors": list_of(INT),
                    "library_versions": list_of(STR), "header_library_mismatch": BOOL, "cuda_builds": list_of(STR),
                    "built_for_nvcc": BOOL,
                    "found": BOOL, "version_number": INT, "too_old_for_theano": BOOL,
                    "newer_than_theano": BOOL, "off_without_known_reason": BOOL}),
    "cxx": Table({"rejects_narrowing": BOOL, "narrowing_compiler": STR, "narrowing_why": STR, "cxxflags_fix": STR,
                  "set_in_config": BOOL, "configured_found": BOOL, "configured_path": STR, "march_skipped": BOOL}),
    "gxx": Table({"found": BOOL, "found_from_log": STR, "count": INT, "gcc_major": INT, "too_new_for_nvcc": BOOL,
                  "newer_than_some_cuda": BOOL, "newest_cuda_rejecting": STR, "oldest_cuda_accepting": STR,
                  "too_new_for_nvcc_era_unknown": BOOL, "nvcc_may_refuse": BOOL}),
    "pygpu": Table({"version": STR, "api": INT, "rejects_cuda_major_gt_9": BOOL, "ok_for_theano": BOOL,
                    "would_fail": list_of(STR), "context_per_log": BOOL, "libgpuarray_version": STR,
                    "matches_libgpuarray": BOOL, "required": STR, "usable": BOOL, "evidence": STR,
                    "installed_not_importable": BOOL, "fits_theano": STR, "newest_theano_rejects": BOOL,
                    "newest_theano": STR}),
    "compiler": Table({"usable": BOOL}),
    "msvc": Table({"msc_ver": INT, "nvcc_msc_min": INT, "nvcc_msc_max": INT, "supported_by_nvcc": BOOL}),
    "cache": Table({"foreign_dirs": list_of(STR), "stale_locks": list_of(STR), "module_path_length": INT,
                    "module_path_exact": BOOL, "on_network_filesystem": BOOL, "private_to_job_or_host": BOOL,
                    "lock_kind": STR}),
    "batch": Table({"system": STR, "evidence": STR, "job_id": STR}),
    "log": Table({"rules": list_of(STR), "found": BOOL, "import_check_ids": list_of(STR), "cuda_runtime_error": STR,
                  "gpu_unpickle_failed": BOOL, "both_gpu_backends": BOOL, "numpy_api_built": STR,
                  "numpy_api_installed": STR, "numpy_min_for_module": STR,
                  "numpy_recorded_accepts_module": BOOL}),
    "keras": Table({"backend": STR, "backend_source": STR, "layout": STR, "layout_source": STR,
                    "config_path": STR}),
    "pymc3": Table({"parallel_chains": BOOL}),
    "python": Table({"theano_dir_on_pythonpath": STR, "shadowed_packages": list_of(STR), "libpython_link": STR,
                     "libpython_file": STR, "headers_ok": BOOL, "headers_missing": STR,
                     "headers_elsewhere": BOOL, "short_version": STR}),
})

# --- plan (legacydoc/plan/planner.py Plan.facts(); computed by check for the rules' fixes) -------
PLAN = Table({"python": STR, "new_env": BOOL, "theano": STR, "device": STR, "numpy": STR, "install": STR,
              "fix": STR, "pins": STR})
# What check --project found in the project folder (legacydoc/plan/project.py); paths are
# relative to it. Absent when no project was scanned.
PROJECT = Table({"python2_pickles": list_of(STR), "downsample": STR,
                 # "lasagne.layers.dnn (net.py:3)": the first import of a Lasagne layer module
                 # that needs a GPU, outside any try, if or function; absent when none was found
                 "gpu_only": STR,
                 # "os.environ['THEANO_FLAGS'] (train.py:5) after import keras (train.py:2)":
                 # settings nothing reads (legacydoc/plan/late_settings.py); absent when none
                 "late_settings": list_of(STR),
                 # uses of Theano's API the installed release lacks (legacydoc/theanoapi.py):
                 # "theano.tensor.nnet.relu (net.py:12)"; absent when there is none, or the
                 # release is one the table does not speak for
                 "theano_lacks": list_of(STR), "theano_removed": list_of(STR), "theano_pymc_lacks": list_of(STR)})

# --- log (check/report --log FILE: legacydoc/logscan.py log_table; saved with the record) -------
LOG = Table({
    "source": STR, "encoding": STR, "lines": INT, "truncated": BOOL, "ids": list_of(STR),
    "runs": list_of(INT),
    "matches": ListOf(Table({"id": STR, "line": INT, "text": STR, "groups": MapOf(STR, r"[A-Za-z_][A-Za-z0-9_]*")})),
})

# --- config (legacydoc/theanorc/findings.py derive_config_facts; computed) ------------------------
SETTING = Table({"source": STR, "value": STR, "file": STR, "line": INT, "invalid": BOOL, "note": STR, "unknown": BOOL})
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
        "compiledir": SETTING, "compiledir_format": SETTING,
        "init_gpu_device": SETTING, "force_device": SETTING, "linker": SETTING, "optimizer": SETTING,
        "allow_gc": SETTING, "warn_float64": SETTING, "blas": Table({"ldflags": SETTING}),
        "cuda": Table({"root": SETTING}), "nvcc": Table({"flags": SETTING, "fastmath": SETTING}),
        "gcc": Table({"cxxflags": SETTING}),
        "gpuarray": Table({"preallocate": SETTING}), "lib": Table({"cnmem": SETTING}),
        "dnn": Table({"enabled": SETTING, **dict.fromkeys(_DNN_PATHS, SETTING)}),
        "experimental": Table({"unpickle_gpu_on_cpu": SETTING}),
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
    "threads_limit_float32_gflops": NUMBER, "env": MapOf(STR, ENV_NAME), "trustworthy": BOOL, "noise_reasons": STR,
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
