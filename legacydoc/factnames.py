"""The names a rule may use: every fact the probes write and every derived fact.

Rules are validated against this list on load, so a typo in a rule pack is a one-line
error instead of a rule that silently never fires. A pattern segment ``*`` matches one
name; a trailing ``**`` matches anything below.
"""

from __future__ import annotations

from functools import lru_cache

from legacydoc.derive import DERIVED as _DERIVED
from legacydoc.probes.target_script import MATTERS as _DISTS

_DIST_KEYS = (
    "name", "version", "location", "metadata", "kind", "installer", "editable", "develop",
    "egg_link", "copies",
)

KNOWN_PATTERNS: tuple[str, ...] = (
    # header
    "schema",
    "legacydoc_version",
    "collected_at",
    "redacted",
    # every table carries these when its probe failed or overran
    "*.probe_error",
    "*.probe_timed_out",
    "*.probe_duration_s",
    # system
    "system.os",
    "system.os_name",
    "system.os_release",
    "system.os_version",
    "system.machine",
    "system.logical_cores",
    "system.python_platform",
    "system.cpu_model",
    "system.cpu_mhz",
    "system.cpu_flags",
    "system.memory_total_mib",
    "system.memory_available_mib",
    "system.memory_error",
    "system.wsl",
    # who and where: redaction replaces these by <user>, <host>, <home> in shared output
    *("system." + k for k in (
        "user", "user_aliases", "hostname", "host_aliases", "home", "home_aliases",
        "home_has_space", "home_non_ascii",
    )),
    # env
    "env.variables",
    "env.variables.*",
    # python (target interpreter)
    *("python." + k for k in (
        "selected_by", "executable_requested", "candidates_skipped", "probe_ok", "version",
        "version_info", "release_level", "sys_version", "implementation", "bits", "executable",
        "prefix", "exec_prefix", "base_prefix", "real_prefix", "env_kind", "base_is_conda",
        "platform", "platform_platform", "machine", "sys_path", "cwd", "user_site",
        "user_site_enabled", "filesystem_encoding", "error", "script_error", "command", "command.**",
    )),
    # packages: one table per distribution that matters, plus scalar facts
    *("packages.%s.%s" % (d, k) for d in _DISTS for k in _DIST_KEYS),
    *("packages." + d for d in _DISTS),
    *("packages." + k for k in (
        "found", "theano_import_dir", "theano_shadowed_dirs", "theano_claimed_by",
        "theano_version_text", "theano_version_source", "theano_revision", "theano_dir_in_sys_path",
        "pygpu_import_dir", "numpy_import_dir", "numpy_shadowed_dirs", "numpy_distutils",
        "numpy_distutils_config", "numpy_blas_opt_info", "numpy_config_file", "numpy_blas",
        "numpy_blas_libraries", "numpy_blas_source", "numpy_blas_version", "conda", "conda.*",
        "conda.*.version", "conda.*.build", "import_check", "import_check.*",
    )),
    *("packages.import_check.*." + k for k in (
        "ok", "duration_s", "version", "file", "blas_opt_info", "error", "skipped", "command", "command.**",
    )),
    # gpu
    *("gpu.nvidia_smi." + k for k in (
        "found", "path", "searched", "query", "query.**", "query_retry", "query_retry.**", "plain",
        "plain.**", "plain_skipped", "rc", "output", "error", "timed_out", "smi_version",
    )),
    "gpu.nvidia_smi",
    "gpu.driver_version",
    "gpu.driver_cuda_version",
    "gpu.count",
    "gpu.devices",
    "gpu.proc_driver_version",
    # cuda / cudnn
    "cuda.**",
    "cudnn.**",
    # libraries / path
    "libraries.**",
    "path.**",
    # compilers
    *("compilers." + k for k in ("found", "gxx_count", "theano_cxx", "conda_gxx_dirs", "gxx_all")),
    *("compilers.%s.**" % k for k in ("gxx", "gcc", "msvc", "clang", "nvcc_host")),
    *("compilers." + k for k in ("gxx", "gcc", "msvc", "clang", "nvcc_host")),
    # theano_config
    "theano_config.theanorc_env",
    "theano_config.files",
    "theano_config.unread_files",
    "theano_config.flags",
    "theano_config.flags.*",
    "theano_config.compiledir",
    "theano_config.compiledir.**",
    # derived facts (legacydoc/derive.py documents each one)
    *("derived." + name for name in _DERIVED),
    "derived.gpus",
    # the Theano config model's findings
    "config.**",
    # benchmark results
    "bench.**",
)


def _match(pattern: tuple[str, ...], name: tuple[str, ...]) -> bool:
    if not pattern:
        return not name
    head = pattern[0]
    if head == "**":
        return True
    if not name:
        return False
    if head != "*" and head != name[0]:
        return False
    return _match(pattern[1:], name[1:])


@lru_cache(maxsize=4096)
def is_known(name: str) -> bool:
    parts = tuple(name.split("."))
    if any(not part for part in parts):
        return False
    return any(_match(tuple(p.split(".")), parts) for p in KNOWN_PATTERNS)


def is_list(name: str) -> bool:
    """Temporary: any known name may be iterated (the typed schema replaces this)."""
    return is_known(name)


def is_item_field(list_name: str, field: str) -> bool:
    """Temporary: every item field is accepted (the typed schema replaces this)."""
    return bool(field)
