"""All probes together: concurrent, bounded by one timeout, failures kept as facts."""

from __future__ import annotations

import time
from pathlib import Path

import tomli_w

from conftest import FakeTools, make_ctx, posix_only
from legacydoc import facts
from legacydoc.probes import PROBE_MODULES, collect_all, run_probe

HANGING_TOOLS = ("nvidia-smi", "nvcc", "g++", "gcc", "cl", "python", "python3", "ldconfig", "clang++")


@posix_only
def test_a_world_of_hung_tools_finishes_within_the_timeout_plus_a_second(tmp_path: Path) -> None:
    tools = FakeTools(tmp_path / "bin")
    for name in HANGING_TOOLS:
        tools.add(name, sleep=1000)
    ctx = make_ctx(tmp_path, [tools.bindir], timeout=2.0)
    started = time.monotonic()
    tables = collect_all(ctx)
    elapsed = time.monotonic() - started
    assert elapsed < ctx.timeout + 1.0, "took %.2f s" % elapsed
    assert tables["gpu"]["nvidia_smi"]["timed_out"] is True
    assert tables["python"]["probe_ok"] is False
    assert tables["compilers"]["gxx"]["timed_out"] is True
    record = facts.new_record(tables)
    assert facts.loads(facts.dumps(record)) == record


@posix_only
def test_nvml_unknown_error_is_recorded_verbatim_through_collect_all(tmp_path: Path) -> None:
    tools = FakeTools(tmp_path / "bin")
    tools.add("nvidia-smi", stdout="Failed to initialize NVML: Unknown Error\n", rc=255)
    tables = collect_all(make_ctx(tmp_path, [tools.bindir]), only=("gpu",))
    smi = tables["gpu"]["nvidia_smi"]
    assert smi["rc"] == 255
    assert smi["output"] == "Failed to initialize NVML: Unknown Error"


@posix_only
def test_gbk_output_everywhere_does_not_crash(tmp_path: Path) -> None:
    gbk = "'nvidia-smi' 不是内部或外部命令，也不是可运行的程序\n".encode("gbk")
    tools = FakeTools(tmp_path / "bin")
    for name in ("nvidia-smi", "nvcc", "g++", "gcc"):
        tools.add(name, stdout=gbk, stderr=gbk, rc=1)
    tables = collect_all(make_ctx(tmp_path, [tools.bindir]))
    for name in PROBE_MODULES:
        for table in tables.values():
            assert "probe_error" not in table, (name, table.get("probe_error"))
    tomli_w.dumps(facts.new_record(tables))


def test_a_crashing_probe_is_recorded_and_the_run_goes_on(tmp_path: Path, monkeypatch) -> None:
    from legacydoc.probes import system

    def boom(ctx):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(system, "collect", boom)
    out = run_probe("system", make_ctx(tmp_path))
    assert out["system"]["probe_error"].startswith("RuntimeError: disk on fire")
    tables = collect_all(make_ctx(tmp_path), only=("system", "env"))
    assert "probe_error" in tables["system"] and "probe_error" not in tables["env"]


@posix_only
def test_probes_started_in_groups_come_back_in_record_order(tmp_path: Path) -> None:
    from legacydoc.probes import Probing

    ctx = make_ctx(tmp_path, [FakeTools(tmp_path / "bin").bindir])
    probing = Probing(ctx).start(("target",))
    later = [name for name in PROBE_MODULES if name != "target"]
    tables = probing.start_soon(later).wait()
    from legacydoc.areas import FACT_TABLES

    assert list(tables) == [t.name for t in FACT_TABLES]  # every table, in record order


@posix_only
def test_cancelled_probing_kills_the_hung_target_interpreter_at_once(tmp_path: Path) -> None:
    from legacydoc.probes import Probing

    marker = tmp_path / "python.pid"
    python = tmp_path / "hung-python"
    python.write_text("#!/bin/sh\necho $$ > %s\nexec sleep 987606\n" % marker)
    python.chmod(0o755)
    started = time.monotonic()
    probing = Probing(make_ctx(tmp_path, python=str(python), timeout=60.0)).start(("target",))
    while not marker.exists() and time.monotonic() - started < 10:
        time.sleep(0.01)
    probing.cancel()
    tables = probing.wait()
    assert time.monotonic() - started < 10  # not the 60 s timeout
    assert tables["python"]["probe_ok"] is False
    assert tables["python"]["command"]["rc"] == -9
    time.sleep(0.2)
    state = Path("/proc/%s/status" % marker.read_text().strip())
    assert not state.exists() or "\nState:\tZ" in state.read_text()
