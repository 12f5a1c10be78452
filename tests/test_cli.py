"""The command line, run as a user runs it: a real process, real exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from legacydoc import __version__, facts


def run_cli(*args: str, env: dict | None = None, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    full_env.update(env or {})
    # Run the checkout's package (the same one the tests import).
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "legacydoc", *args],
        cwd=str(cwd),
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == "legacydoc %s" % __version__


def test_help_lists_probe() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "probe" in proc.stdout


def test_importing_the_cli_does_not_import_numpy() -> None:
    code = "import sys, legacydoc.cli; print('numpy' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(REPO), capture_output=True, text=True)
    assert proc.stdout.strip() == "False", proc.stderr


@pytest.mark.parametrize("entry, args, collecting, frozen", [
    # run() (the installed command, python -m): no cycle collector, frozen for a quick exit
    ("run", ["--no-such-option"], False, True),
    # triage runs over any number of reports: the collector is back on
    ("run", ["triage", "/no/such/folder"], True, True),
    # main(), which tests and embedders call, leaves the collector alone
    ("main", ["--no-such-option"], True, False),
])
def test_the_command_runs_without_the_collector_and_main_keeps_it(
        entry: str, args: list[str], collecting: bool, frozen: bool) -> None:
    code = ("import atexit, gc; atexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count() > 0)); "
            "from legacydoc.cli import %s; %s()" % (entry, entry))
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=str(REPO),
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 2, proc.stderr  # the exit code is main's
    assert proc.stdout.strip().splitlines()[-1] == "%s %s" % (collecting, frozen)


def test_the_installed_command_is_run() -> None:
    from legacydoc.locate import loads_toml  # tomllib is 3.11+, the project runs on 3.9

    scripts = loads_toml((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"legacydoc": "legacydoc.cli:run"}


def test_probe_save_loads_back_equal(tmp_path: Path) -> None:
    target = tmp_path / "f.toml"
    proc = run_cli("probe", "--save", str(target), "--timeout", "20", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "facts saved to" in proc.stdout
    record = facts.load(target)
    assert record["schema"] == 1
    assert set(facts.TABLES) <= set(record)
    assert record["system"]["logical_cores"] == os.cpu_count()
    # A second save of the loaded record is byte-identical: nothing lost or reordered.
    again = tmp_path / "g.toml"
    facts.save(record, again)
    assert again.read_bytes() == target.read_bytes()


def test_probe_format_toml_prints_the_record(tmp_path: Path) -> None:
    proc = run_cli("probe", "--format", "toml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = facts.loads(proc.stdout)
    assert record["system"]["os"] in ("linux", "windows", "darwin")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("probe", "--timeout", "0"), "--timeout: must be more than 0"),
        (("probe", "--timeout", "-3"), "--timeout: must be more than 0"),
        (("probe", "--project", "/no/such/dir"), "--project is not a directory"),
    ],
)
def test_bad_options_exit_2_with_one_line(args: tuple, fragment: str) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert fragment in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_unknown_option_is_usage_error() -> None:
    proc = run_cli("probe", "--no-such-option")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_save_to_unwritable_place_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("probe", "--save", str(tmp_path / "missing-dir" / "f.toml"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "cannot write" in proc.stderr and "does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_flags_do_not_look_like_they_take_a_value_in_help() -> None:
    for command in ("check", "probe", "report", "explain", "theanorc", "bench", "triage", "diff"):
        proc = run_cli(command, "--help", env={"COLUMNS": "120"})
        flagged = [line for line in proc.stdout.splitlines() if "<bool>" in line]
        assert proc.returncode == 0 and not flagged, (command, flagged)
        assert "-h, --help" in proc.stdout


def test_help_wraps_whole_paragraphs_and_names_the_exit_codes() -> None:
    for width in ("60", "100"):
        proc = run_cli("--help", env={"COLUMNS": width})
        lines = proc.stdout.splitlines()
        assert proc.returncode == 0 and max(len(line) for line in lines) <= int(width)
        # every command's first sentence whole: none cut short with "..."
        assert not [line for line in lines if line.rstrip().endswith("...") and not line.startswith("Usage:")]
        text = " ".join(proc.stdout.split())
        for code in ("0 nothing wrong found", "1 problems found", "2 bad usage", "3 legacydoc itself failed"):
            assert code in text
    # a docstring's own line breaks are not kept mid-sentence: the paragraph is re-wrapped
    check = run_cli("check", "--help", env={"COLUMNS": "200"}).stdout
    assert "│" not in check and "╭" not in check
    assert "run the rules, print diagnoses root cause first; --log FILE" in " ".join(check.split())
    first = check.split("\n\n")[1].splitlines()
    assert len(first) >= 2 and all(len(line) > 60 for line in first[:-1]), first  # filled, not broken early


def test_the_narrowed_app_gives_each_command_the_same_help_and_errors() -> None:
    """main() builds only the command asked for (startup, #14): its help, its option errors
    and its exit codes must be those the whole app gives."""
    import typer.main
    from typer.testing import CliRunner

    from legacydoc.cli import _command_name, app, app_for

    names = [_command_name(c) for c in app.registered_commands] + [g.name for g in app.registered_groups]
    assert {"check", "probe", "rules", "theanorc", "bench", "triage", "diff"} <= set(names)
    runner = CliRunner()
    for name in names:
        narrowed = app_for([name])
        assert narrowed is not app
        assert list(typer.main.get_command(narrowed).commands) == [name]  # type: ignore[attr-defined]
        for args in ([name, "--help"], [name, "--no-such-option"], [name, "-x", "1"]):
            whole = runner.invoke(app, args, prog_name="legacydoc", env={"COLUMNS": "100"})
            alone = runner.invoke(narrowed, args, prog_name="legacydoc", env={"COLUMNS": "100"})
            assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output), (name, args)
    # not a command: the whole app, so its errors (and --help) name every command
    for args in ([], ["--help"], ["--lang", "zh", "check"], ["chek"], ["che"]):
        assert app_for(args) is app
