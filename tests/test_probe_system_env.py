"""system and env probes: recorded /proc files, the environment allow-list."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import tomli_w

from conftest import DATA
from legacydoc import structs
from legacydoc.probes import env, system
from legacydoc.probes.context import ProbeContext


def test_meminfo_recorded_linux() -> None:
    text = (DATA / "proc" / "meminfo-linux-6.18.txt").read_text()
    out = system.parse_meminfo(text)
    total_kb = int(next(row for row in text.splitlines() if row.startswith("MemTotal")).split()[1])
    assert out["memory_total_mib"] == total_kb // 1024
    assert 0 < out["memory_available_mib"] <= out["memory_total_mib"]


def test_meminfo_old_kernel_without_memavailable() -> None:
    out = system.parse_meminfo((DATA / "proc" / "meminfo-linux-3.10-no-available.txt").read_text())
    assert out == {"memory_total_mib": 3951, "memory_available_mib": 120}


def test_meminfo_garbage_and_empty() -> None:
    assert system.parse_meminfo("") == {}
    assert system.parse_meminfo("MemTotal: lots\n\x00\xff") == {}


def test_cpuinfo_recorded_vm() -> None:
    out = system.parse_cpuinfo((DATA / "proc" / "cpuinfo-epyc-vm.txt").read_text())
    assert out["cpu_model"] == "AMD EPYC"
    assert out["cpu_mhz"] == 2596
    assert "avx2" in out["cpu_flags"] and "fma" in out["cpu_flags"] and "hypervisor" in out["cpu_flags"]


def test_cpuinfo_truncated() -> None:
    assert system.parse_cpuinfo("processor\t: 0\nmodel name\t: Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz\nflags\t: sse2 av") == {
        "cpu_model": "Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz",
        "cpu_flags": ["sse2"],
    }


def test_system_collect_here(tmp_path: Path) -> None:
    facts = system.collect(ProbeContext(cwd=tmp_path))
    assert facts["logical_cores"] == os.cpu_count()
    assert facts["os"] in ("linux", "windows", "darwin")
    if sys.platform.startswith("linux") and os.path.exists("/etc/os-release"):
        assert facts["distro"] and "distro_version" in facts or facts["distro"] in ("arch", "gentoo")
        assert facts.get("glibc", "2.").startswith("2.")  # glibc here, or not recorded (musl)
    tomli_w.dumps(facts)


def test_os_release_distribution_and_version() -> None:
    recorded = (DATA / "os-release" / "debian-12-recorded.txt").read_text()
    assert system.parse_os_release(recorded) == {"distro": "debian", "distro_version": "12"}
    # reconstructed (see tests/data/os-release/README.md): quoting varies by distribution
    assert system.parse_os_release('NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="16.04"\n') == {
        "distro": "ubuntu", "distro_version": "16.04"}
    assert system.parse_os_release("ID='centos'\nVERSION_ID='7'\n") == {"distro": "centos", "distro_version": "7"}
    assert system.parse_os_release("") == {} and system.parse_os_release("garbage\x00=\n") == {}


def test_glibc_version_is_a_version_or_nothing() -> None:
    value = system.glibc_version()
    assert value == "" or value.replace(".", "").isdigit()


def test_env_is_an_allow_list_without_secrets(tmp_path: Path) -> None:
    environ = {
        "PATH": "/usr/bin",
        "CUDA_PATH": "/usr/local/cuda",
        "CUDA_PATH_V10_2": "/opt/cuda-10.2",
        "THEANO_FLAGS": "floatX=float32",
        "MKL_THREADING_LAYER": "GNU",
        "OMP_NUM_THREADS": "4",
        "HOME": "/home/alice",
        "AWS_SECRET_ACCESS_KEY": "xyz",
        "CUDA_API_TOKEN": "leak-me-not",
        "GITHUB_TOKEN": "ghp_x",
        "USER": "alice",
    }
    out = env.collect(ProbeContext(environ=environ, cwd=tmp_path))
    assert set(out["variables"]) == {
        "PATH",
        "CUDA_PATH",
        "CUDA_PATH_V10_2",
        "THEANO_FLAGS",
        "MKL_THREADING_LAYER",
        "OMP_NUM_THREADS",
    }
    assert "leak-me-not" not in tomli_w.dumps(out)


# csrutil's answers, reconstructed from Apple's documentation of `csrutil status` (no Mac
# was at hand to record them): the sentence, then the state and a full stop.
SIP_ON = "System Integrity Protection status: enabled.\n"
SIP_OFF = "System Integrity Protection status: disabled.\n"
SIP_CUSTOM = "System Integrity Protection status: unknown (Custom Configuration).\n\nConfiguration:\n"


def test_csrutil_status_is_read_as_on_off_or_unknown() -> None:
    assert system.parse_csrutil_status(SIP_ON) is True
    assert system.parse_csrutil_status(SIP_OFF) is False
    assert system.parse_csrutil_status(SIP_CUSTOM) is None
    assert system.parse_csrutil_status("") is None


@pytest.mark.skipif(sys.platform == "win32", reason="fake tools are shell scripts")
@pytest.mark.parametrize("answer, rc, expected", [(SIP_ON, 0, True), (SIP_OFF, 0, False), (SIP_CUSTOM, 0, None),
                                                  ("csrutil: failed to read\n", 1, None)])
def test_the_macos_probe_records_sip_only_when_csrutil_says(fake_tools, ctx_factory, answer, rc, expected) -> None:
    fake_tools.add("csrutil", by_args={"status": (answer, rc)}, rc=2)
    fake_tools.add("sysctl", by_args={"brand_string": ("Intel(R) Core(TM) i7-4870HQ CPU @ 2.50GHz\n", 0),
                                      "hw.memsize": ("17179869184\n", 0)}, rc=1)
    ctx = structs.replace(ctx_factory(path_dirs=[fake_tools.bindir]), platform="darwin")
    facts = system.collect(ctx)
    assert facts["os"] == "darwin" and facts["memory_total_mib"] == 16384
    assert facts.get("sip_enabled") is expected
    tomli_w.dumps(facts)
