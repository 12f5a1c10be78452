"""Batch jobs sharing one compile cache on a network file system (rule LD545): the mount
table reader against the real findmnt, the compiledir probe with a recorded-shape mount
table, the batch-job and per-host facts, and `check --facts` before and after each fix."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest
from test_explain import cli

from legacydoc.derive import enrich
from legacydoc.engine.load import load_rules
from legacydoc.facts import new_record, save
from legacydoc.probes import env as env_probe
from legacydoc.probes import mounts, system, theano_config
from legacydoc.probes.context import ProbeContext
from legacydoc.probes.mounts import filesystem_of, folder_filesystem, parse_mounts
from legacydoc.sharedcache import NETWORK_FILESYSTEMS

# Reconstructed (not recorded): the shape of a cluster node's /proc/self/mounts, with an NFS
# home, a Lustre scratch, a local /tmp and a mount point with a blank (written \040).
CLUSTER_MOUNTS = """\
/dev/sda2 / xfs rw,relatime,attr2,inode64,noquota 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /tmp tmpfs rw,nosuid,nodev 0 0
nas01:/export/home /home nfs4 rw,relatime,vers=4.1,rsize=1048576,hard,proto=tcp,sec=sys 0 0
172.16.0.10@o2ib:/scratch /scratch lustre rw,flock,lazystatfs 0 0
nas01:/export/group\\040data /group\\040data nfs rw,relatime,vers=3 0 0
/dev/sdb1 /home/local xfs rw,relatime 0 0
"""


def test_the_mount_table_is_read_as_the_kernel_writes_it() -> None:
    mounts = parse_mounts(CLUSTER_MOUNTS + "garbage\n\n")
    assert ("/group data", "nfs") in mounts and len(mounts) == 7
    assert filesystem_of("/home/alice/.theano", mounts) == ("/home", "nfs4")
    assert filesystem_of("/home", mounts) == ("/home", "nfs4")
    assert filesystem_of("/home2/alice", mounts) == ("/", "xfs")  # a prefix of the name is not a parent
    assert filesystem_of("/home/local/alice", mounts) == ("/home/local", "xfs")  # the deepest mount wins
    assert filesystem_of("/scratch/alice/theano", mounts) == ("/scratch", "lustre")
    assert filesystem_of("/group data/x", mounts) == ("/group data", "nfs")
    # a point mounted twice: the later mount hides the earlier one
    assert filesystem_of("/home/a", mounts + [("/home", "autofs")]) == ("/home", "autofs")
    assert filesystem_of("relative", []) is None


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("findmnt") is None, reason="Linux findmnt")
def test_the_type_agrees_with_the_real_findmnt(tmp_path: Path) -> None:
    for folder in (tmp_path, Path.home(), Path("/proc/self"), tmp_path / "not" / "yet" / "made"):
        found = folder_filesystem(str(folder))
        target = folder
        while not target.exists():
            target = target.parent
        real = subprocess.run(["findmnt", "-n", "-o", "FSTYPE,TARGET", "-T", str(target)], capture_output=True,
                              text=True, timeout=30).stdout.split()
        assert [found["filesystem"], found["mount_point"]] == real[:2], folder


def test_an_unreadable_or_cut_table_leaves_the_type_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp_path = tmp_path.resolve()
    assert folder_filesystem(str(tmp_path), str(tmp_path / "no-such-table")) == {}
    table = tmp_path / "mounts"
    table.write_text("/dev/vda / xfs rw 0 0\nnas:/home %s nfs4 rw 0 0\n" % tmp_path)
    assert folder_filesystem(str(tmp_path / "x"), str(table))["filesystem"] == "nfs4"
    monkeypatch.setattr(mounts, "MAX_MOUNTS_BYTES", 30)  # the nfs4 line lies past the cut
    assert folder_filesystem(str(tmp_path / "x"), str(table)) == {}


def test_a_folder_reached_through_a_symlink_is_judged_where_it_lies(tmp_path: Path) -> None:
    tmp_path = tmp_path.resolve()
    (tmp_path / "nfs" / "alice").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "nfs" / "alice")
    table = tmp_path / "mounts"
    table.write_text("/dev/vda / xfs rw 0 0\nnas:/home %s nfs4 rw 0 0\n" % (tmp_path / "nfs"))
    assert folder_filesystem(str(tmp_path / "link" / ".theano" / "new"), str(table)) == {
        "filesystem": "nfs4", "mount_point": str(tmp_path / "nfs")}


# --- the compiledir probe ----------------------------------------------------------------------


def _world(tmp_path: Path, fstype: str = "nfs4", **env: str) -> tuple[Path, ProbeContext]:
    """A home folder the mount table says is on ``fstype``, /tmp-like scratch on ext4."""
    tmp_path = tmp_path.resolve()  # the table names real paths
    home = tmp_path / "home" / "alice"
    home.mkdir(parents=True)
    (tmp_path / "local").mkdir()
    table = tmp_path / "mounts"
    table.write_text("/dev/vda / xfs rw 0 0\nnas:/home %s %s rw 0 0\n/dev/sdb %s ext4 rw 0 0\n"
                     % (tmp_path / "home", fstype, tmp_path / "local"))
    (tmp_path / "bin").mkdir()
    environ = {"PATH": str(tmp_path / "bin"), "HOME": str(home), "USER": "alice"}  # no batch command on it
    environ.update(env)
    return home, ProbeContext(environ=environ, platform="linux", cwd=home, timeout=30.0, mounts_file=str(table))


def test_the_probe_records_where_the_cache_folder_lives(tmp_path: Path) -> None:
    home, ctx = _world(tmp_path)
    fact = theano_config.compiledir_facts(ctx, [])
    assert (fact["base_compiledir"], fact["filesystem"], fact["mount_point"]) == (
        str(home / ".theano"), "nfs4", str(tmp_path / "home"))  # not made yet: its parent's mount
    # an explicit compiledir is where the modules and the lock go, whatever base_compiledir says
    explicit = ctx.environ["HOME"].replace("home/alice", "local/run1")
    ctx = ProbeContext(environ={**ctx.environ, "THEANO_FLAGS": "compiledir=" + explicit}, platform="linux",
                       cwd=home, mounts_file=ctx.mounts_file)
    assert theano_config.compiledir_facts(ctx, [])["filesystem"] == "ext4"
    # elsewhere the type is not read: it stays unknown
    ctx = ProbeContext(environ=ctx.environ, platform="darwin", cwd=home, mounts_file=ctx.mounts_file)
    assert "filesystem" not in theano_config.compiledir_facts(ctx, [])


# --- derived facts -------------------------------------------------------------------------------


def _derived(variables: Optional[dict[str, str]], filesystem: Optional[str] = "nfs4", partial: bool = False,
             base: str = "/home/u/.theano", flags: str = "", commands: Optional[list[str]] = None,
             files_read: bool = True, theano: tuple[str, str] = ("Theano", "1.0.5"), **compiledir: str) -> dict[str, Any]:
    record: dict[str, Any] = {"schema": 1, "system": {"os": "linux"},
                              "packages": {theano[0].lower(): {"name": theano[0], "version": theano[1]}},
                              "theano_config": {"compiledir": {"base_compiledir": base, "exists": True, **compiledir}}}
    if filesystem:
        record["theano_config"]["compiledir"]["filesystem"] = filesystem
    if files_read:  # no config file anywhere, THEANO_FLAGS recorded
        record["theano_config"].update({"files": [], "flags": {}})
    if flags:
        record["theano_config"]["flags"] = {"THEANO_FLAGS": flags}
    if variables is not None:
        record["env"] = {"variables": variables, **({"partial": True} if partial else {})}
    if commands is not None:
        record["system"]["batch_commands"] = commands
    return enrich(record)["derived"]


def test_a_job_is_named_by_its_variable_and_a_login_node_by_its_submit_command() -> None:
    for variables, name in (({"SLURM_JOB_ID": "77"}, "Slurm"), ({"PBS_JOBID": "12.pbs01"}, "PBS"),
                              ({"LSB_JOBID": "5"}, "LSF"), ({"JOB_ID": "9", "SGE_ROOT": "/opt/sge"}, "Grid Engine")):
        assert _derived(variables)["batch"]["system"] == name, variables
    assert _derived({"SLURM_JOB_ID": "77"})["batch"]["job_id"] == "77"
    for commands, name in ((["sbatch"], "Slurm"), (["qsub"], "PBS or Grid Engine"), (["bsub"], "LSF")):
        batch = _derived({}, commands=commands)["batch"]
        assert (batch["system"], batch["evidence"]) == (name, commands[0])
    # neither a job nor a submit command, both recorded: none
    assert _derived({"JOB_ID": "9"}, commands=[])["batch"]["system"] == "none"  # JOB_ID alone is not Grid Engine's
    # an environment or a PATH not recorded, or quoted in part, does not say "no batch system"
    assert "batch" not in _derived({})  # submit commands never looked for
    assert "batch" not in _derived(None, commands=[])
    assert "batch" not in _derived({"PATH": "/usr/bin"}, partial=True, commands=[])
    assert _derived({"SLURM_JOB_ID": "77"}, partial=True)["batch"]["system"] == "Slurm"


def test_network_file_systems_and_private_folders() -> None:
    cache = _derived({"SLURM_JOB_ID": "77"})["cache"]
    assert (cache["on_network_filesystem"], cache["private_to_job_or_host"]) == (True, False)
    assert _derived({}, filesystem="xfs")["cache"]["on_network_filesystem"] is False
    assert "on_network_filesystem" not in _derived({}, filesystem=None).get("cache", {})
    # an automount point seen before it was mounted says nothing
    assert "on_network_filesystem" not in _derived({}, filesystem="autofs").get("cache", {})
    assert {"nfs4", "lustre", "gpfs", "beegfs"} <= NETWORK_FILESYSTEMS
    host_format = "compiledir_format=compiledir_%(short_platform)s-%(processor)s-%(python_version)s-%(python_bitwidth)s-%(hostname)s"
    assert _derived({"SLURM_JOB_ID": "77"}, flags=host_format)["cache"]["private_to_job_or_host"] is True
    # ...unless compiledir itself is set: then the format is not used
    assert _derived({"SLURM_JOB_ID": "77"}, flags=host_format + ",compiledir=/home/u/tc",
                    compiledir_setting="/home/u/tc")["cache"]["private_to_job_or_host"] is False
    assert _derived({"SLURM_JOB_ID": "77"}, base="/home/u/tc-77")["cache"]["private_to_job_or_host"] is True
    assert _derived({"SLURM_JOB_ID": "77"}, base="/home/u/tc-78")["cache"]["private_to_job_or_host"] is False
    # the job id as a whole word only: job 1 is not in /home/u1
    assert _derived({"SLURM_JOB_ID": "1"}, base="/home/u1/.theano")["cache"]["private_to_job_or_host"] is False
    # a cache folder per process: %(PID)s in .theanorc, as the config model writes it
    assert _derived({"SLURM_JOB_ID": "77"}, base="/home/u/tc-<PID>")["cache"]["private_to_job_or_host"] is True
    # a folder per host made by the shell ($(hostname)), as recorded and as redacted
    record_host = _derived({"SLURM_JOB_ID": "77"}, base="/home/u/tc-node7")
    assert record_host["cache"]["private_to_job_or_host"] is False  # the host name was not recorded
    assert _derived({"SLURM_JOB_ID": "77"}, base="/home/u/tc-<host>")["cache"]["private_to_job_or_host"] is True
    # a config file that was not read may set compiledir_format: unknown
    assert "private_to_job_or_host" not in _derived({"SLURM_JOB_ID": "77"}, files_read=False)["cache"]


def test_the_host_name_of_the_record_marks_a_per_host_folder() -> None:
    record: dict[str, Any] = {"schema": 1, "system": {"os": "linux", "hostname": "node7"},
                              "packages": {"theano": {"name": "Theano", "version": "1.0.5"}}, "env": {"variables": {}},
                              "theano_config": {"files": [], "flags": {},
                                                "compiledir": {"base_compiledir": "/home/u/tc-node7", "exists": True}}}
    assert enrich(record)["derived"]["cache"]["private_to_job_or_host"] is True


def test_only_theanos_own_lock_is_judged() -> None:
    assert _derived({})["cache"]["lock_kind"] == "directory"
    assert _derived({}, theano=("Theano-PyMC", "1.0.11"))["cache"]["lock_kind"] == "directory"
    # Theano-PyMC 1.0.15 moved to the filelock package: LD545's story is not its own
    assert _derived({}, theano=("Theano-PyMC", "1.1.2"))["cache"]["lock_kind"] == "filelock"
    assert "lock_kind" not in _derived({}, theano=("Theano-PyMC", ""))["cache"]


# --- check --facts, before and after each of LD545's fixes -----------------------------------------


def _check(tmp_path: Path, ctx: ProbeContext, name: str) -> dict[str, dict]:
    tables = {"system": system.collect(ctx), "python": {"version": "3.8.18"},
              "packages": {"theano": {"name": "Theano", "version": "1.0.5"}},
              "theano_config": theano_config.collect(ctx), "env": env_probe.collect(ctx)}
    path = tmp_path / (name + ".toml")
    save(new_record(tables), path)
    out = cli("check", "--facts", str(path), "--format", "json")
    assert out.returncode in (0, 1), out.stderr
    return {d["id"]: d for d in json.loads(out.stdout)["diagnoses"]}


def test_a_login_node_with_a_submit_command_is_warned_too(tmp_path: Path) -> None:
    # a fake qsub on PATH (the real one is only ever looked up, never run)
    bindir = tmp_path / "login-bin"
    bindir.mkdir()
    qsub = bindir / "qsub"
    qsub.write_text("#!/bin/sh\nexit 0\n")
    qsub.chmod(0o755)
    _home, ctx = _world(tmp_path / "login", PATH=str(bindir))
    found = _check(tmp_path, ctx, "login")["LD545"]
    assert "PBS or Grid Engine" in found["title"] and "(qsub)" in found["why"]


def _fix_steps() -> list[Any]:
    return next(rule for rule in load_rules() if rule.id == "LD545").fix


def test_check_warns_in_a_job_and_each_fix_silences_it(tmp_path: Path) -> None:
    home, ctx = _world(tmp_path / "job", SLURM_JOB_ID="4242")
    found = _check(tmp_path, ctx, "before")
    assert found["LD545"]["severity"] == "warning"
    assert "Slurm" in found["LD545"]["title"] and "nfs4" in found["LD545"]["title"]
    assert "(SLURM_JOB_ID)" in found["LD545"]["why"]
    # a machine that is neither in a job nor able to submit one, or a cache on a local disk: nothing
    assert "LD545" not in _check(tmp_path, _world(tmp_path / "desk")[1], "desk")
    assert "LD545" not in _check(tmp_path, _world(tmp_path / "local", "xfs", SLURM_JOB_ID="1")[1], "local")

    steps = _fix_steps()
    # 1. the .theanorc line, in a [global] section
    line = steps[0].split(":\n", 1)[1]
    assert line.startswith("compiledir_format = ")
    (home / ".theanorc").write_text("[global]\n" + line + "\n")
    assert "LD545" not in _check(tmp_path, ctx, "theanorc")
    (home / ".theanorc").unlink()
    # 2. and 4. the shell lines, run by a real bash in the job's environment
    bash = shutil.which("bash") or "/bin/bash"
    for step, name, tmpdir in ((steps[1], "flags", None), (steps[3], "mktemp", tmp_path / "job" / "local")):
        env = dict(ctx.environ, **({"TMPDIR": str(tmpdir)} if tmpdir else {}))
        shell_env = dict(env, PATH="/usr/bin:/bin")  # the job script's shell has mktemp
        exported = subprocess.run([bash, "-c", step["bash"] + '; printf %s "$THEANO_FLAGS"'], env=shell_env,
                                  capture_output=True, text=True, timeout=30).stdout
        assert exported.startswith(",")  # appended to an empty THEANO_FLAGS
        flagged = ProbeContext(environ={**env, "THEANO_FLAGS": exported}, platform="linux", cwd=home,
                               mounts_file=ctx.mounts_file)
        if tmpdir:  # a new folder on the node's own disk
            assert theano_config.collect(flagged)["compiledir"]["filesystem"] == "ext4"
        assert "LD545" not in _check(tmp_path, flagged, name)


def test_a_pbs_job_id_names_its_server_and_the_report_hides_it() -> None:
    """PBS writes the job id as <number>.<server> (qsub(1B)): the server is one of the site's
    hosts and is hidden as the machine's own name is; a folder named after the job stays the
    job's own folder once redacted."""
    from legacydoc.redact import HOST, Redactor

    record: dict[str, Any] = {
        "schema": 1, "system": {"os": "linux", "hostname": "node7"},
        "packages": {"theano": {"name": "Theano", "version": "1.0.5"}},
        "env": {"variables": {"PBS_JOBID": "4242.pbs01.cluster.example.edu"}},
        "theano_config": {"files": [], "flags": {}, "compiledir": {
            "base_compiledir": "/scratch/4242.pbs01.cluster.example.edu/theano", "exists": True}},
    }
    redacted = Redactor.for_record(record).record(record)
    text = json.dumps(redacted)
    assert "example.edu" not in text and "pbs01" not in text
    assert redacted["env"]["variables"]["PBS_JOBID"] == "4242." + HOST
    assert enrich(redacted)["derived"]["cache"]["private_to_job_or_host"] is True
    # a server named by a generic word: the name is hidden where it names the server, and
    # neither the variable's name nor an ordinary path is touched
    record["env"]["variables"]["PBS_JOBID"] = "4242.pbs.cluster.example.edu"
    record["theano_config"]["compiledir"]["base_compiledir"] = "/scratch/4242.pbs.cluster.example.edu/theano"
    record["path"] = {"entries": [{"entry": "/opt/pbs/bin"}]}
    redacted = Redactor.for_record(record).record(record)
    assert redacted["env"]["variables"] == {"PBS_JOBID": "4242." + HOST}
    assert redacted["path"]["entries"][0]["entry"] == "/opt/pbs/bin"
    assert enrich(redacted)["derived"]["cache"]["private_to_job_or_host"] is True
    # another folder of the same site is not the job's
    record["theano_config"]["compiledir"]["base_compiledir"] = "/scratch/shared/theano"
    assert enrich(Redactor.for_record(record).record(record))["derived"]["cache"]["private_to_job_or_host"] is False
