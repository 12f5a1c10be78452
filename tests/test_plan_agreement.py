"""One source of truth: on every fixture (the seeds and the field corpus), check, theanorc
--write --dry-run and plan agree on the device, the pins and the flags; and every command
line of the plan is valid in the shell it is written for."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from legacydoc import replay
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules
from legacydoc.plan.planner import make_plan
from legacydoc.render.plan import step_lines
from legacydoc.theanorc import command

FIXTURES = REPO / "fixtures"
# the seeds, the field corpus, and real environments recorded as starting points for plans
ALL_FACTS = [*sorted(FIXTURES.glob("*/facts.toml")), *sorted((FIXTURES / "tickets").glob("*/facts.toml")),
             *sorted((FIXTURES / "plan-starts").glob("*/facts.toml"))]
RULES = load_rules()
PIP_NUMPY = re.compile(r"numpy(==|<|<=|>=|~=)\s*([0-9][0-9.]*)")


def _config_value(text: str, option: str) -> str:
    found = re.findall(r"^%s = ?(.*)$" % re.escape(option), text, re.M)
    assert len(found) == 1, (option, found)
    return found[0].strip()


def _written(record: dict[str, Any], tmp_path: Path) -> str:
    """What theanorc --write --dry-run shows: the new file's lines from its diff."""
    out = io.StringIO()
    assert command.write(record, tmp_path / ".theanorc", dry_run=True, assume_yes=True, out=out) == 0
    return "\n".join(line[1:] for line in out.getvalue().splitlines() if line.startswith("+") and
                     not line.startswith("+++"))


@pytest.mark.parametrize("path", ALL_FACTS, ids=lambda p: p.parent.name)
def test_check_theanorc_write_and_plan_agree(path: Path, tmp_path: Path) -> None:
    record = dict(replay.load(path, with_commands=False).record)
    plan = make_plan(record)
    result = run_check(record, RULES, source=path.parent.name)
    assert result.plan is not None and result.plan.to_dict() == plan.to_dict()

    # the device and the BLAS flags: the written file, the plan's file and check's plan
    written = _written(record, tmp_path)
    assert plan.device == _config_value(plan.theanorc, "device")
    if plan.keep_env and "pygpu" not in plan.conda_packages:
        assert _config_value(written, "device") == plan.device
    elif _config_value(written, "device") != plan.device:
        # the plan's device is the one after its steps (pygpu installed, a new environment);
        # a GPU it gives up is named in what will not work
        assert plan.device != "cpu" or any("GPU" in c for c in plan.cannot), plan.cannot
    assert _config_value(written, "ldflags") == _config_value(plan.theanorc, "ldflags")

    # the plan never proposes a setup a rule condemns: Windows outside conda stays below 3.8 (LD318)
    if plan.os == "windows" and plan.env_kind != "conda" and not plan.python.startswith("2."):
        assert tuple(int(p) for p in plan.python.split(".")) < (3, 8), plan.python

    # the pins: no finding proposes another numpy than the plan, nor a bare range
    numpy = plan.packages["numpy"].lstrip("=")
    for diag in result.every():
        for line in diag.fix:
            if "pip install" not in line and "conda install" not in line:
                continue
            for op, version in PIP_NUMPY.findall(line):
                assert op == "==" and version == numpy, (diag.id, line, numpy)
        # a config line a fix hands over for .theanorc sets the flags the plan writes
        for line in diag.fix:
            for value in re.findall(r"^ldflags = ?(.*)$", line, re.M):
                assert value.strip() == _config_value(plan.theanorc, "ldflags"), (diag.id, line)


def _bash_ok(lines: list[str]) -> str:
    proc = subprocess.run(["bash", "-n"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30)
    return proc.stderr


def _cmd_problem(line: str) -> str:
    """cmd.exe's rules for what a plan writes: quotes in pairs, no POSIX syntax."""
    if line.count('"') % 2:
        return "unbalanced quotes"
    if re.search(r"(^|\s)(export|source|\.)\s|\$\(|\$[A-Za-z_]|/bin/activate|'", line):
        return "POSIX syntax"
    return ""


def _powershell_problem(line: str) -> str:
    if line.count('"') % 2 or line.count("'") % 2:
        return "unbalanced quotes"
    if re.search(r"(^|\s)(export|set)\s+[A-Z_]+=|/bin/activate|&&", line):
        return "POSIX or cmd syntax"
    return ""


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to parse with")
@pytest.mark.parametrize("path", ALL_FACTS, ids=lambda p: p.parent.name)
def test_every_plan_line_is_valid_in_its_shell(path: Path) -> None:
    record = dict(replay.load(path, with_commands=False).record)
    plan = make_plan(record)
    bash = [line for step in plan.steps for line in step_lines(step, "bash")]
    assert _bash_ok(bash) == "", bash
    for step in plan.steps:
        for line in step_lines(step, "cmd"):
            assert _cmd_problem(line) == "", (step.title, line)
        for line in step_lines(step, "powershell"):
            assert _powershell_problem(line) == "", (step.title, line)
    if plan.os == "windows" and plan.env_kind == "venv":
        # a venv is activated differently in cmd than in bash (conda's lines are the same)
        env_step = next((s for s in plan.steps if s.kind == "env"), None)
        if env_step is not None:
            assert step_lines(env_step, "cmd") != step_lines(env_step, "bash")


def test_the_shell_checkers_can_fail() -> None:
    assert _bash_ok(['python -m pip install "numpy==1.21.6']) != ""
    assert _cmd_problem(". theano-legacy/bin/activate") and _cmd_problem('set "X=1')
    assert _powershell_problem("export X=1") and _powershell_problem('$env:X = "1')


# --- the plan's end state passes check ----------------------------------------------------------

# Areas whose errors a plan can leave standing only when it says so (a GPU it cannot fix,
# a compiler to install by hand): everything else must be clean after the plan.
LEFT_TO_MANUAL = {"gpu", "cuda", "cudnn", "libraries", "path", "performance", "cache"}


def _end_state(record: dict[str, Any], plan: Any) -> dict[str, Any]:
    """The record as it would read after the plan: its Python, exactly its packages (in a
    new environment nothing else), its .theanorc as the only config file."""
    import copy

    after = copy.deepcopy(record)
    packages = after.setdefault("packages", {})
    if not plan.keep_env:
        python = after.setdefault("python", {})
        python.update(version=plan.python + ".0", version_info=[int(p) for p in plan.python.split(".")] + [0],
                      env_kind=plan.env_kind, probe_ok=True)
        packages.clear()
        packages["found"] = []
    for step in plan.steps:
        if step.pip == "uninstall":
            for name in step.packages:
                packages.pop(name.lower(), None)
    from legacydoc.knowledge.load import tables

    # what a URL pin installs: the framework table names the version (Lasagne master: 0.2.dev1)
    by_url = {row.get("install", "").split()[-1]: str(row["from"])
              for row in tables()["theano_releases"].rows("framework") if row.get("install")}
    for name, pin in list(plan.packages.items()) + list(plan.conda_packages.items()):
        if "://" in pin:
            packages[name.lower()] = {"name": name, "version": by_url[pin]}
        elif pin.startswith(("==", "=")):
            packages[name.lower()] = {"name": name, "version": pin.lstrip("=")}
        if isinstance(packages.get("found"), list) and name.lower() not in packages["found"]:
            packages["found"].append(name.lower())
    packages.pop("theano_claimed_by", None)
    packages.pop("import_check", None)  # like the log: what the old setup's imports said
    packages.pop("theano_version_text", None)
    config = after.setdefault("theano_config", {})
    files = config.get("files") or []
    target = next((f.get("path") for f in files if isinstance(f, dict) and f.get("from") == "default"), None)
    config["files"] = [{"path": target or "/home/u/.theanorc", "from": "default", "exists": True, "readable": True,
                        "kind": "file", "encoding": "utf-8", "text": plan.theanorc}]
    config.pop("flags", None)
    if any("m2w64-toolchain" in line for step in plan.steps for lines in step.commands.values() for line in lines):
        # conda's MinGW-w64 (g++ 5.3.0, x86_64), first on PATH in the activated environment
        after["compilers"] = {**after.get("compilers", {}), "found": True, "gxx_count": 1, "gxx": {
            "found": True, "ok": True, "is_mingw": True, "bits": 64, "target": "x86_64-w64-mingw32", "version": "5.3.0",
            "version_major": 5}}
    if plan.env:  # the variables the plan sets (or clears) in the shell that runs the project
        variables = after.setdefault("env", {}).setdefault("variables", {})
        if isinstance(variables, dict):
            variables.update(plan.env)
    after.pop("log", None)  # the failed run's output describes the old setup
    return after


@pytest.mark.parametrize("path", ALL_FACTS, ids=lambda p: p.parent.name)
def test_after_the_plan_check_finds_no_error_the_plan_could_have_avoided(path: Path) -> None:
    record = dict(replay.load(path, with_commands=False).record)
    plan = make_plan(record)
    result = run_check(_end_state(record, plan), RULES, source="after the plan")
    left = [(d.id, d.title) for d in result.every() if d.severity == "error" and d.area not in LEFT_TO_MANUAL
            and not (d.area == "compilers" and any(s.manual for s in plan.steps))]
    assert left == []
