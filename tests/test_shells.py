"""Fix commands in the reader's shell: cmd on a Windows record, bash elsewhere, --shell to
choose; a step that sets a variable pastes as is in each."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_rules import firing_diagnoses

from conftest import REPO
from legacydoc import shells
from legacydoc.engine import load_rules
from legacydoc.errors import UsageError

STEP = {"bash": "export X=1", "cmd": 'set "X=1"', "powershell": '$env:X = "1"'}
BASH_ONLY = re.compile(r"(^|\s)(export|unset) [A-Z_]+|^[A-Z_]{3,}=\S* python")


@pytest.mark.parametrize("shell, line", [("bash", "export X=1"), ("zsh", "export X=1"), ("cmd", 'set "X=1"'),
                                         ("powershell", '$env:X = "1"')])
def test_each_shell_gets_its_line(shell: str, line: str) -> None:
    assert shells.line_for(STEP, shell) == line
    assert shells.line_for("plain text", shell) == "plain text"


def test_missing_shell_lines_fall_back() -> None:
    assert shells.line_for({"bash": "export X=1", "cmd": 'set "X=1"'}, "powershell") == 'set "X=1"'
    assert shells.line_for({"bash": "export X=1"}, "cmd") == "export X=1"


@pytest.mark.parametrize("step, message", [({"fish": "set -x X 1"}, "not 'fish'"), ({"cmd": "set X=1"}, "needs a bash"),
                                           ({}, "a string or a table"), ({"bash": ""}, "non-empty")])
def test_bad_steps_are_named(step: dict, message: str) -> None:
    assert message in shells.validate_step(step)


def test_a_rule_pack_with_a_bad_step_is_refused(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "x.toml").write_text('[[rule]]\nid = "LD990"\nname = "x"\narea = "config"\nlayer = "config"\n'
                                 'severity = "info"\napplies = { theano = "any", backend = "any" }\ntitle = "t"\n'
                                 'why = "w"\nfix = [{ fish = "set -x A 1" }]\nlog_only = true\n')
    with pytest.raises(UsageError, match="LD990.*'fix'"):
        load_rules([pack])


@pytest.mark.parametrize("shell", ["cmd", "powershell"])
def test_no_bash_only_line_reaches_a_windows_shell(shell: str) -> None:
    shells.use(shell)
    try:
        # (rules only a Linux record can fire keep their Linux lines)
        bad = [(rule.id, step) for rule, diag in firing_diagnoses() for step in diag.fix
               if BASH_ONLY.search(step) and "'derived.os', 'equals': 'linux'" not in str(rule.when)]
    finally:
        shells.use(None)
    assert bad == []


def _check(tmp_path: Path, os_name: str, *args: str) -> list[str]:
    record = tmp_path / ("%s.toml" % os_name)
    record.write_text('schema = 1\n[system]\nos = "%s"\n[packages.theano]\nname = "Theano"\nversion = "1.0.5"\n'
                      '[packages.mkl]\nname = "mkl"\nversion = "2019.0"\n[env]\nvariables = {}\n' % os_name)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--facts", str(record), "--format", "json",
                           *args], cwd=str(REPO), env=env, capture_output=True, text=True, timeout=120)
    ld601 = next(d for d in json.loads(proc.stdout)["diagnoses"] if d["id"] == "LD601")
    return ld601["fix"]


def test_the_records_os_chooses_and_shell_overrides(tmp_path: Path) -> None:
    assert _check(tmp_path, "windows")[0] == 'set "MKL_THREADING_LAYER=GNU"'
    assert _check(tmp_path, "linux")[0] == "export MKL_THREADING_LAYER=GNU"
    assert _check(tmp_path, "windows", "--shell", "powershell")[0] == '$env:MKL_THREADING_LAYER = "GNU"'
    assert _check(tmp_path, "windows", "--shell", "bash")[0] == "export MKL_THREADING_LAYER=GNU"


def test_a_bad_shell_is_one_line(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--facts", "x.toml", "--shell", "fish"],
                          cwd=str(REPO), env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--shell: must be one of bash, zsh, cmd, powershell" in proc.stderr


# THEANO_FLAGS=<value> as a fix step writes it in bash, cmd or PowerShell (quoted or not).
FLAGS_ASSIGNMENT = re.compile(r"THEANO_FLAGS\s*=\s*(?P<q>['\"]?)(?P<value>(?(q)[^'\"]*|[^\s'\"]*))")


def _fix_texts(node: object, in_fix: bool = False, shell: str = "") -> list[tuple[str, str]]:
    """(shell, text) for every string under a 'fix' or 'fixes' key of a parsed catalogue:
    a shell table's key, else '' (prose, or a line for any shell)."""
    if isinstance(node, dict):
        steps = in_fix and set(node) <= set(shells.STEP_KEYS)
        return [t for key, value in node.items()
                for t in _fix_texts(value, in_fix or key in ("fix", "fixes"), key if steps else shell)]
    if isinstance(node, list):
        return [t for value in node for t in _fix_texts(value, in_fix, shell)]
    return [(shell, node)] if in_fix and isinstance(node, str) else []


def _as_the_shell_passes_it(shell: str, text: str) -> str:
    """bash removes its own quotes and backslashes before Python sees the variable."""
    if shell != "bash":
        return text
    import shlex

    try:
        return " ".join(shlex.split(text, comments=False))
    except ValueError:
        return text


def test_no_fix_sets_theano_flags_that_theano_would_read_otherwise() -> None:
    """Theano splits THEANO_FLAGS with shlex, which eats unquoted backslashes: a fix with
    base_compiledir=C:\\theano_cache would give Theano C:theano_cache, a folder relative to
    the current directory of drive C."""
    import tomllib

    from legacydoc.theanorc.flags import parse_flags

    assert FLAGS_ASSIGNMENT.search('set "THEANO_FLAGS=base_compiledir=C:\\tc"').group("value") == "base_compiledir=C:\\tc"
    assert parse_flags("base_compiledir=C:\\tc").backslashes_lost  # what the test looks for
    # bash's own escaping comes first: C:\\\\tc in an unquoted bash line reaches Theano as C:\\tc
    assert _as_the_shell_passes_it("bash", "export THEANO_FLAGS=base_compiledir=C:\\\\tc").endswith("=C:\\tc")
    files = sorted((REPO / "rules").rglob("*.toml"))
    assert len(files) > 20
    bad = []
    for path in files:
        for shell, text in _fix_texts(tomllib.loads(path.read_text(encoding="utf-8"))):
            for match in FLAGS_ASSIGNMENT.finditer(_as_the_shell_passes_it(shell, text)):
                if parse_flags(match.group("value")).backslashes_lost:
                    bad.append((path.name, shell, match.group(0)))
    assert bad == []
