"""Is Theano's compile cache shared by batch jobs on several machines? (rule LD545)

Theano serialises compilation with one lock folder per compiledir, and it can tell that a
lock's owner is dead only when the owner ran on its own host (theano/gof/compilelock.py,
rel-0.7 to rel-1.0.5: the pid is checked with os.kill only when the lock's hostname is
this one). A compiledir on a file system that every node of a cluster mounts is therefore
one queue for every job on every node, and a job the scheduler kills while it compiles
holds the others for compile.timeout (120 s by default) each time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from packaging.version import Version

from legacydoc.facts import effective_setting, env_variable, explicit_compiledir, get, text
from legacydoc.redact import HOST
from legacydoc.theanorc.effective import PID_PLACEHOLDER
from legacydoc.versions import parse_version

# The variable each batch system sets in every job, and only there:
# Slurm sbatch(1) "OUTPUT ENVIRONMENT VARIABLES"; OpenPBS qsub(1B) "ENVIRONMENT VARIABLES";
# IBM LSF "Environment variables set for job execution"; Grid Engine sets JOB_ID (with SGE_ROOT).
JOB_VARIABLES = (
    ("Slurm", "SLURM_JOB_ID", None),
    ("PBS", "PBS_JOBID", None),
    ("LSF", "LSB_JOBID", None),
    ("Grid Engine", "JOB_ID", "SGE_ROOT"),
)
# File systems that several machines mount at once, by the name the Linux kernel registers
# (the third field of /proc/self/mounts, which probes/mounts.py records). A FUSE file system
# shows as fuse.<name>.
NETWORK_FILESYSTEMS = frozenset({
    "nfs", "nfs4", "lustre", "gpfs", "beegfs", "cifs", "smb3", "smbfs", "ceph", "fuse.ceph-fuse",
    "fuse.glusterfs", "fuse.sshfs", "panfs", "afs", "wekafs",
})
# The submit command on PATH of a machine that sends jobs to the cluster (a login node).
SUBMIT_COMMANDS = (("sbatch", "Slurm"), ("bsub", "LSF"), ("qsub", "PBS or Grid Engine"))


def _job(facts: Mapping[str, Any]) -> tuple[Optional[dict[str, Any]], bool]:
    """(the job the probe ran in, or None; whether "no job" is known)."""
    all_known = True
    for system, variable, companion in JOB_VARIABLES:
        known, value = env_variable(facts, variable)
        all_known = all_known and known
        if not value:
            continue
        if companion is not None:
            companion_known, companion_value = env_variable(facts, companion)
            all_known = all_known and companion_known
            if not companion_value:
                continue
        return {"system": system, "evidence": variable, "job_id": value}, True
    return None, all_known


def batch_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """{system, evidence, job_id?}: the batch system whose job the probe ran in (evidence: its
    job variable), or whose submit command is on PATH (evidence: the command: a login node
    whose jobs run on other nodes). system "none" when neither shows and both were recorded
    whole; {} when either is unknown and nothing shows."""
    job, no_job_known = _job(facts)
    if job is not None:
        return job
    commands = get(facts, "system.batch_commands")
    if isinstance(commands, list):
        for command, system in SUBMIT_COMMANDS:
            if command in commands:
                return {"system": system, "evidence": command}
        if no_job_known:
            return {"system": "none"}
    return {}


def _names_token(folder: str, token: str) -> bool:
    """``token`` stands in the path as a whole word (job 1 is not in /home/u1/.theano)."""
    return re.search(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % re.escape(token), folder) is not None


def _host_names(facts: Mapping[str, Any]) -> list[str]:
    names = [HOST]  # a redacted record writes the host name as this placeholder
    for value in [get(facts, "system.hostname")] + list(get(facts, "system.host_aliases", []) or []):
        if isinstance(value, str) and value:
            names.append(value)
    return names


def private_cache(facts: Mapping[str, Any], job_id: Optional[str], files_read: bool) -> Optional[bool]:
    """Whether the cache folder is this job's, process's or host's own: its path holds the
    job id, the pid (%(PID)s in .theanorc) or the host name (a shell's $(hostname)), or
    compiledir_format holds %(hostname)s. None when the folder is not known, or when the
    format may come from a config file that was not read."""
    explicit = explicit_compiledir(facts)
    if explicit is None:  # compiledir_format counts only under base_compiledir
        setting = effective_setting(facts, "compiledir_format") or {}
        folder_format = text(setting.get("value"))
        if folder_format is None:
            return None
        if "%(hostname)s" in folder_format:
            return True
        if setting.get("source", "default") == "default" and not files_read:
            return None  # an unread file may set it
    # the probe's own answer first (it read this machine's HOME), then the config model's
    base = effective_setting(facts, "base_compiledir") or {}
    folder = explicit or text(get(facts, "theano_config.compiledir.base_compiledir")) or text(base.get("value"))
    if folder is None:
        return None
    tokens = [PID_PLACEHOLDER] + ([job_id] if job_id else []) + _host_names(facts)
    return any(_names_token(folder, token) for token in tokens)


def lock_kind(flavour: Optional[str], version: Optional[str]) -> Optional[str]:
    """"directory": Theano's own lock (a lock_dir folder, an owner checked only on its own
    host; Theano 0.7-1.0.5, Theano-PyMC before 1.0.15). "filelock": Theano-PyMC 1.0.15 and
    later lock with the filelock package (commit 0fa004e14), which the kernel releases when
    its owner dies. None when the release is not known."""
    if flavour == "theano":
        return "directory"
    parsed = parse_version(version) if flavour == "theano-pymc" else None
    if parsed is None:
        return None
    return "filelock" if parsed >= Version("1.0.15") else "directory"


def shared_cache_facts(
    facts: Mapping[str, Any], flavour: Optional[str], version: Optional[str], files_read: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(derived.batch.*, derived.cache.* additions)."""
    batch = batch_facts(facts)
    cache: dict[str, Any] = {}
    filesystem = get(facts, "theano_config.compiledir.filesystem")
    # an automount point not yet mounted says nothing about what will be mounted there
    if isinstance(filesystem, str) and filesystem and filesystem != "autofs":
        cache["on_network_filesystem"] = filesystem in NETWORK_FILESYSTEMS
    private = private_cache(facts, batch.get("job_id"), files_read)
    if private is not None:
        cache["private_to_job_or_host"] = private
    kind = lock_kind(flavour, version)
    if kind is not None:
        cache["lock_kind"] = kind
    return batch, cache
