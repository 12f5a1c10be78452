"""`legacydoc bench` through the real CLI entry point: options, usage errors (exit 2, one
line), the JSON document with a real legacy target (Python 3.7 + numpy 1.19.5), the text
table, and the CLI's import staying free of numpy. Tiny sizes and budgets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from legacy_envs import legacy_venv
from legacydoc.cli import main

REPO = Path(__file__).resolve().parent.parent


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["bench", *args])
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


@pytest.mark.parametrize("args, message", [
    (["--size", "64", "--sizes", "32"], "--size and --sizes"),
    (["--sizes", "32,abc"], "is not a whole number"),
    (["--size", "4"], "must be a whole number from 8"),
    (["--seconds", "0"], "--seconds: must be more than 0"),
    (["--seconds", "1000"], "--seconds: must be more than 0"),
    (["--format", "xml"], "--format: must be one of text, json"),
    (["--timeout", "0"], "--timeout"),
])
def test_usage_errors_exit_2_with_one_line(capsys, args: list, message: str) -> None:
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert out == ""


def test_importing_the_cli_does_not_import_numpy() -> None:
    code = "import sys, legacydoc.cli, legacydoc.bench.command, legacydoc.bench.render; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=str(REPO), capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.legacy
def test_json_with_a_real_legacy_target(capsys, tmp_path: Path) -> None:
    python = legacy_venv("3.7", ["numpy==1.19.5"])
    code, out, err = run_cli(capsys, "--python", str(python), "--sizes", "32,64", "--seconds", "0.4",
                             "--format", "json", "--timeout", "20")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["bench_schema"] == 1 and doc["budget_s"] == 0.4
    assert doc["target_interpreter"] == {"path": str(python), "selected_by": "--python"}
    assert doc["target"]["numpy"] == "1.19.5" and doc["target"]["python"].startswith("3.7.")
    assert doc["target"]["same_as_machine"] is False
    for which in ("machine", "target"):
        side = doc[which]
        assert side["blas"]["family"] and isinstance(side["threads"], int)
        for dtype in ("float32", "float64"):
            assert set(side[dtype]["gflops"]) == {"median", "best", "worst"}
            assert set(side[dtype]["ms"]) == {"median", "best", "worst"}
            assert side[dtype]["n"] in (32, 64)
    assert "n512" not in doc["machine"]["float32"]  # 512 was not asked for
    facts = doc["facts"]["bench"]
    assert facts["target"]["numpy"] == "1.19.5" and "target_vs_machine" in facts
    assert doc["theano"] is None
    assert all(d["area"] == "performance" for d in doc["diagnoses"])
    # each side gets half the budget; float32 starts with its share, float64 gets what is left
    for which in ("machine", "target"):
        assert doc[which]["float32"]["budget_s"] == pytest.approx(0.2 * 0.55, abs=0.01)
        assert doc[which]["float64"]["budget_s"] <= 0.2


def test_text_in_legacydocs_own_interpreter(capsys, tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "--python", sys.executable, "--size", "32", "--seconds", "0.2")
    assert code == 0, err
    assert "CPU matrix product" in out
    assert "legacydoc's own interpreter: measured once" in out
    assert "float32 sustained" in out and "@ n=32" in out
    assert "The machine's limit" in out
    assert "Findings" in out
    assert "GFLOPS" not in err and "probing" not in err  # no progress off a terminal


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_progress_goes_to_a_terminal_on_stderr_a_line_per_size(tmp_path: Path) -> None:
    import os
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.Popen(
        [sys.executable, "-m", "legacydoc", "bench", "--python", sys.executable, "--sizes", "32,64", "--seconds",
         "0.4", "--format", "json"],
        stdout=subprocess.PIPE, stderr=slave, env=env, cwd=str(tmp_path))
    os.close(slave)
    out, _ = proc.communicate(timeout=120)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    err = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0
    assert "probing this machine" in err
    assert "float32 n=32:" in err and "float32 n=64:" in err and "float64 n=64:" in err
    assert "GFLOPS" not in out.decode() or json.loads(out)  # stdout stays the report alone


@pytest.mark.legacy
def test_theano_end_to_end_through_the_cli(capsys, monkeypatch, tmp_path: Path) -> None:
    """--theano on a real Theano 1.0.5 with blas.ldflags empty: the op, the fallback, and
    the finding with its fix, in one JSON document."""
    from legacy_envs import venvs_root

    python = legacy_venv("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"])
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("THEANO_FLAGS", "base_compiledir=%s,blas.ldflags=" % (venvs_root() / "theano-compiledir-bench"))
    code, out, err = run_cli(capsys, "--python", str(python), "--size", "64", "--seconds", "0.3", "--theano",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    theano = doc["theano"]
    assert theano["ok"] and theano["op"] == "Gemm" and theano["op_kind"] == "numpy_c_api"
    assert theano["numpy_c_api_warning"] is True and theano["n"] == 64
    assert set(theano["result"]["gflops"]) == {"median", "best", "worst"}
    ld611 = [d for d in doc["diagnoses"] if d["id"] == "LD611"]
    assert ld611 and "LD600" in ld611[0]["explains"]
    assert any(theano["ldflags_suggestion"] in step for step in ld611[0]["fix"])
