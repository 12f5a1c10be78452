"""The command runner: timeouts that kill the tree, decoding, failures as data."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from conftest import posix_only
from legacydoc.probes.run import CAPTURE_MAX_BYTES, candidate_encodings, decode_output, head, run_command

GBK_TEXT = "无法与 NVIDIA 驱动程序通信"


def test_utf8_is_tried_first_and_bom_dropped() -> None:
    text, enc = decode_output("\ufeffDriver Version: 451.67\r\n".encode("utf-8"), ["utf-8", "gbk"])
    assert (text, enc) == ("Driver Version: 451.67\n", "utf-8")


def test_gbk_decodes_when_the_locale_encoding_is_gbk() -> None:
    text, enc = decode_output(GBK_TEXT.encode("gbk"), candidate_encodings(["gbk"]))
    assert text == GBK_TEXT
    assert enc == "gbk"


def test_undecodable_bytes_fall_back_to_replacement() -> None:
    text, enc = decode_output(b"ok \xff\xfe\xfa end", ["utf-8"])
    assert enc == "utf-8/replace"
    assert text.startswith("ok ") and text.endswith(" end") and "\ufffd" in text


def test_empty_output() -> None:
    assert decode_output(b"", ["utf-8"]) == ("", "")


def test_head_bounds_lines_and_chars() -> None:
    text = "\n".join("line %d   " % i for i in range(100))
    out = head(text, max_lines=3)
    assert out == "line 0\nline 1\nline 2"
    assert len(head("x" * 10000, max_chars=50)) == 50


def test_exit_code_and_streams_are_recorded() -> None:
    result = run_command([sys.executable, "-c", "import sys; print('out'); sys.stderr.write('err\\n'); sys.exit(3)"])
    assert result.rc == 3
    assert result.stdout == "out\n"
    assert result.stderr == "err\n"
    assert result.output == "out\nerr\n"
    assert not result.ok and not result.timed_out
    fact = result.to_fact()
    assert fact["rc"] == 3 and fact["output"] == "out\nerr" and fact["timed_out"] is False


def test_missing_executable_is_an_error_not_an_exception(tmp_path: Path) -> None:
    result = run_command([str(tmp_path / "no-such-tool")])
    assert result.rc is None
    assert "FileNotFoundError" in result.error
    assert "rc" not in result.to_fact()


def test_empty_argv() -> None:
    assert run_command([]).error == "empty command"


@posix_only
def test_timeout_kills_the_whole_process_tree(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild.pid"
    # The child starts a grandchild that would outlive a plain kill of the child.
    script = "sleep 60 & echo $! > %s; echo started; wait" % marker
    started = time.monotonic()
    result = run_command(["sh", "-c", script], timeout=1.0)
    elapsed = time.monotonic() - started
    assert result.timed_out and result.rc is None
    assert result.stdout == "started\n"  # output before the kill is kept
    assert elapsed < 5  # bounded: not the grandchild's 60 s
    pid = int(marker.read_text())
    time.sleep(0.2)
    assert not _running(pid)


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan killed in a container may wait for a reaper)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path("/proc/%d/status" % pid)
    if status.exists():
        return "\nState:\tZ" not in status.read_text()
    return True


@posix_only
def test_timeout_fact() -> None:
    fact = run_command(["sleep", "30"], timeout=0.5).to_fact()
    assert fact["timed_out"] is True and "rc" not in fact


def test_output_is_bounded_in_memory() -> None:
    code = "import sys; sys.stdout.write('x' * %d)" % (CAPTURE_MAX_BYTES + 100000)
    result = run_command([sys.executable, "-c", code], timeout=30)
    assert result.truncated
    assert len(result.stdout) == CAPTURE_MAX_BYTES


def test_stdin_text_is_fed() -> None:
    result = run_command([sys.executable, "-c", "import sys; print(sys.stdin.read().upper())"], stdin_text="abc")
    assert result.stdout.strip() == "ABC"


@posix_only
def test_a_background_child_holding_the_pipes_does_not_hang_the_run(tmp_path: Path) -> None:
    """Issue #10 defect 3: `sleep 987602 & echo ok` kept stdout open, so the run waited
    for the timeout, lost the output and left the child running."""
    marker = tmp_path / "child.pid"
    script = "sleep 987602 & echo $! > %s; echo ok" % marker
    started = time.monotonic()
    result = run_command(["sh", "-c", script], timeout=30.0)
    elapsed = time.monotonic() - started
    assert elapsed < 5, elapsed
    assert not result.timed_out and result.rc == 0
    assert result.stdout == "ok\n"
    time.sleep(0.2)
    assert not _running(int(marker.read_text()))  # killed with its group after the exit


@posix_only
def test_a_child_that_escapes_the_group_is_not_waited_for(tmp_path: Path) -> None:
    """setsid puts a child outside the group we can kill (documented): we stop reading
    shortly after the command exits instead of waiting for that child."""
    marker = tmp_path / "child.pid"
    script = "setsid sh -c 'echo $$ > %s; exec sleep 987603' & sleep 0.3; echo ok" % marker
    started = time.monotonic()
    result = run_command(["sh", "-c", script], timeout=30.0)
    assert time.monotonic() - started < 5
    assert not result.timed_out and result.rc == 0 and "ok" in result.stdout
    os.kill(int(marker.read_text()), 9)  # our own clean-up: nothing else will


@posix_only
def test_the_gpu_probe_keeps_its_result_when_nvidia_smi_leaves_a_child(tmp_path: Path) -> None:
    from conftest import FakeTools, make_ctx
    from legacydoc.probes import run_probe

    tools = FakeTools(tmp_path / "bin")
    smi = tools.add("nvidia-smi", stdout="0, GeForce GTX 1080, 8119, 440.33.01, 00000000:01:00.0, 6.1\n")
    smi.write_text("#!/bin/sh\nsleep 987604 &\n" + smi.read_text().split("\n", 1)[1])
    started = time.monotonic()
    tables = run_probe("gpu", make_ctx(tmp_path, [tools.bindir], timeout=20.0).for_probe())
    assert time.monotonic() - started < 10
    gpu = tables["gpu"]
    assert "probe_error" not in gpu and gpu["nvidia_smi"]["rc"] == 0
    assert gpu.get("devices", [{}])[0].get("name") == "GeForce GTX 1080"


@posix_only
def test_cancel_kills_a_running_command_and_refuses_new_ones(tmp_path: Path) -> None:
    import threading

    from legacydoc.probes.run import Running

    marker = tmp_path / "child.pid"
    running = Running()
    box: dict = {}

    def work() -> None:
        box["result"] = run_command(["sh", "-c", "echo $$ > %s; exec sleep 987604" % marker], timeout=60, running=running)

    thread = threading.Thread(target=work)
    started = time.monotonic()
    thread.start()
    while not marker.exists() and time.monotonic() - started < 10:
        time.sleep(0.01)
    running.cancel()
    thread.join(10)
    assert time.monotonic() - started < 5  # not the 60 s timeout
    assert box["result"].rc == -9 and not box["result"].timed_out
    time.sleep(0.2)
    assert not _running(int(marker.read_text()))
    late = tmp_path / "late.pid"
    result = run_command(["sh", "-c", "echo $$ > %s; exec sleep 987605" % late], timeout=60, running=running)
    assert result.rc == -9  # started after the cancel: killed at once
