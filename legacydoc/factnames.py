"""The names a rule may use: every fact the probes write and every derived fact.

Rules are validated against this list on load, so a typo in a rule pack is a one-line
error instead of a rule that silently never fires. A pattern segment ``*`` matches one
name; a trailing ``**`` matches anything below.
"""

from __future__ import annotations

from functools import lru_cache

KNOWN_PATTERNS: tuple[str, ...] = (
    # header
    "schema",
    "legacydoc_version",
    "collected_at",
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
    # env
    "env.variables",
    "env.variables.*",
    # python / packages (target interpreter)
    "python.**",
    "packages.**",
    # gpu
    "gpu.**",
    # cuda / cudnn
    "cuda.**",
    "cudnn.**",
    # libraries / path
    "libraries.**",
    "path.**",
    # compilers
    "compilers.**",
    # theano_config
    "theano_config.theanorc_env",
    "theano_config.files",
    "theano_config.unread_files",
    "theano_config.flags",
    "theano_config.flags.*",
    "theano_config.compiledir",
    "theano_config.compiledir.**",
    # derived facts (legacydoc/derive.py)
    "derived.**",
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
