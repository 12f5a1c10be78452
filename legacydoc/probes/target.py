"""The target probe: the Python interpreter the legacy project will run in.

That is not necessarily the interpreter legacydoc runs in: it is chosen from
``--python``, then ``CONDA_PREFIX``, ``VIRTUAL_ENV``, the first ``python`` on PATH and
last legacydoc's own. :mod:`legacydoc.probes.target_script` is run inside it (as
``python -c``, it works on CPython 2.7 and 3.4+) and reports, without importing anything
heavy, the interpreter itself and the distributions that matter to Theano. With
``--import-check`` numpy, pygpu and theano are also really imported there, each in its
own process so a crash or hang in one does not hide the others.

Facts: ``python.*`` (version, bits, prefixes, env kind, sys.path, how it was chosen,
``probe_ok``) and ``packages.*`` (one table per distribution found, keyed by its PEP 503
name, plus where ``theano`` would be imported from and who claims it, and numpy's BLAS
build info).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any, Callable

from legacydoc import locate
from legacydoc.probes import target_script
from legacydoc.probes.context import ProbeContext
from legacydoc.probes.run import CommandResult, neutral_folder
from legacydoc.structs import field, struct

# Imported with --import-check, cheapest first: theano imports the other two anyway.
IMPORT_MODULES = ("numpy", "pygpu", "theano")
# Frameworks imported too when installed (distribution -> module): their import is where
# a PyMC3 or Lasagne project first fails. Not Keras: its first import writes ~/.keras.
FRAMEWORK_IMPORTS = {"pymc3": "pymc3", "lasagne": "lasagne"}
REPORT_KEY = target_script.REPORT_KEY
IMPORT_KEY = "legacydoc_import_check"

# Runs as `python -c IMPORT_SOURCE <module>` in the target; must work on Python 2.7 too.
# It does not catch the import error: Python's own traceback is what the user would see,
# and its last line is what we record.
IMPORT_SOURCE = """\
import json, sys
name = sys.argv[1]
module = __import__(name)
out = {"%s": 1, "module": name}
out["version"] = str(getattr(module, "__version__", ""))
path = getattr(module, "__file__", None)
if path:
    if sys.version_info[0] == 2 and isinstance(path, str):
        path = path.decode(sys.getfilesystemencoding() or "utf-8", "replace")
    out["file"] = path
if name == "numpy":
    try:
        import numpy.distutils.__config__
        numpy.distutils.__config__.blas_opt_info
        out["blas_opt_info"] = True
    except Exception as exc:
        out["blas_opt_info"] = False
        out["blas_opt_info_error"] = "%%s: %%s" %% (type(exc).__name__, exc)
sys.stdout.write("\\n" + json.dumps(out, ensure_ascii=True) + "\\n")
""" % IMPORT_KEY


def script_source() -> str:
    return locate.target_script("legacydoc.probes", "target_script.py")


# --- choosing the interpreter ---------------------------------------------------------


@struct
class Choice:
    """Which interpreter to probe and why."""

    selected_by: str  # "--python", "CONDA_PREFIX", "VIRTUAL_ENV", "PATH" or "legacydoc"
    path: str  # what will be run (may not exist: running it records the failure)
    error: str = ""  # set when there is nothing to run at all
    skipped: list[str] = field(default_factory=list)  # candidates passed over, and why


def _interpreters_in(ctx: ProbeContext, directory: str) -> list[str]:
    """Where an env, prefix or bin directory keeps its python, in the order to try."""
    join = ctx.pathmod.join
    if ctx.is_windows:
        return [join(directory, "python.exe"), join(directory, "Scripts", "python.exe"),
                join(directory, "bin", "python.exe")]
    return [
        join(directory, "bin", "python"),
        join(directory, "bin", "python3"),
        join(directory, "python"),
        join(directory, "python3"),
    ]


def choose_interpreter(
    ctx: ProbeContext,
    is_file: Callable[[str], bool] = os.path.isfile,
    is_dir: Callable[[str], bool] = os.path.isdir,
    own_executable: str = "",
) -> Choice:
    """--python, else CONDA_PREFIX, else VIRTUAL_ENV, else PATH, else legacydoc's own.
    ``is_file``/``is_dir`` are injectable so Windows layouts can be tested anywhere."""
    skipped: list[str] = []
    if ctx.python:
        requested = ctx.expanduser(str(ctx.python))
        has_sep = any(sep in requested for sep in ("/", "\\")) or (ctx.is_windows and ":" in requested)
        if not has_sep and not is_dir(ctx.pathmod.join(str(ctx.cwd), requested)):
            # a bare name such as "python3.7": look it up like a shell would (an env
            # directory of that name in the working directory is handled below)
            found = ctx.which(requested)
            if found:
                return Choice("--python", found)
        if not ctx.pathmod.isabs(requested):
            requested = ctx.pathmod.join(str(ctx.cwd), requested)
        if is_dir(requested):
            for candidate in _interpreters_in(ctx, requested):
                if is_file(candidate):
                    return Choice("--python", candidate)
            return Choice("--python", requested, error="no Python interpreter found in directory %s" % requested)
        return Choice("--python", requested)

    # An activated conda env or venv is what the user means even if PATH says otherwise.
    for variable, subpaths in (
        ("CONDA_PREFIX", [("python.exe",)] if ctx.is_windows else [("bin", "python"), ("bin", "python3")]),
        ("VIRTUAL_ENV", [("Scripts", "python.exe")] if ctx.is_windows else [("bin", "python"), ("bin", "python3")]),
    ):
        prefix = ctx.env(variable)
        if not prefix:
            continue
        for sub in subpaths:
            candidate = ctx.pathmod.join(prefix, *sub)
            if is_file(candidate):
                return Choice(variable, candidate, skipped=skipped)
        skipped.append("%s=%s: no python in it" % (variable, prefix))

    for name in ("python",) if ctx.is_windows else ("python", "python3"):
        found = ctx.which(name)
        if found:
            return Choice("PATH", found, skipped=skipped)
    skipped.append("PATH: no python found")
    return Choice("legacydoc", own_executable or sys.executable, skipped=skipped)


# --- parsing ---------------------------------------------------------------------------


def parse_report(text: str, key: str = REPORT_KEY) -> dict[str, Any]:
    """The report a probe script printed: the last stdout line that is a JSON object
    carrying ``key`` (anything a sitecustomize or a warning printed before is ignored).
    Returns {} when there is none. Never raises."""
    try:
        lines = str(text).splitlines()
    except Exception:
        return {}
    for line in reversed(lines):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict) and key in data:
            return data
    return {}


def last_error_line(text: str) -> str:
    """The last non-empty line of an error output: for a Python traceback, the exception."""
    for line in reversed(str(text).splitlines()):
        if line.strip():
            return line.strip()[:500]
    return ""


# PEP 503 name, which is also a valid bare TOML key; one definition, the script's own
# (it must stand alone inside the target interpreter).
normalise_name = target_script.normalise


def clean(value: Any) -> Any:
    """TOML-safe: no None, tuples as lists, no lone surrogates (undecodable file names)."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value if v is not None]
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def packages_from_report(report: dict[str, Any]) -> dict[str, Any]:
    """``packages.*`` facts: one table per distribution (first copy on sys.path on top,
    every copy under ``copies`` when there are several) plus the script's other keys."""
    raw = report.get("packages")
    if not isinstance(raw, dict):
        return {}
    facts: dict[str, Any] = {}
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in raw.get("distributions") or []:
        if isinstance(record, dict) and isinstance(record.get("name"), str):
            groups.setdefault(normalise_name(record["name"]), []).append(record)
    for key, value in raw.items():
        if key != "distributions":
            facts[key] = value
    for name, records in groups.items():
        entry = dict(records[0])
        if len(records) > 1:
            entry["copies"] = [dict(r) for r in records]
        facts[name] = entry
    facts["found"] = sorted(groups)
    return facts


# --- running ---------------------------------------------------------------------------


def _command_fact(result: CommandResult, label: str) -> dict[str, Any]:
    """The command record, with the inline script replaced by its name (it is kilobytes)."""
    fact = result.to_fact()
    argv = list(fact.get("argv", []))
    if len(argv) >= 3 and argv[1] == "-c":
        argv[2] = label
    fact["argv"] = argv
    return fact


def failure_reason(result: CommandResult) -> str:
    """Why running an interpreter gave no report (also used by the bench)."""
    if result.error:
        return "could not run the interpreter: %s" % result.error
    if result.timed_out:
        return "timed out after %.1f s" % result.duration_s
    if result.rc is not None and result.rc < 0:
        return "killed by signal %d" % -result.rc
    if result.rc:
        line = last_error_line(result.stderr or result.stdout)
        return "exit code %d%s" % (result.rc, (": " + line) if line else "")
    return "no report in the interpreter's output"


def import_check(ctx: ProbeContext, python: str, module: str) -> dict[str, Any]:
    """Import ``module`` in the target, in a process of its own, from an empty folder."""
    with neutral_folder() as folder:
        result = ctx.run([python, "-c", IMPORT_SOURCE, module], cwd=folder)
    report = parse_report(result.stdout, IMPORT_KEY)
    fact: dict[str, Any] = {"ok": bool(report) and result.ok, "duration_s": round(result.duration_s, 3)}
    for key in ("version", "file", "blas_opt_info", "blas_opt_info_error"):
        if key in report and report[key] != "":
            fact[key] = report[key]
    if not fact["ok"]:
        if result.timed_out:
            fact["error"] = "timed out after %.1f s" % result.duration_s
        elif result.error:
            fact["error"] = result.error
        else:
            # the exception line of the traceback, e.g. "AttributeError: module 'numpy'
            # has no attribute 'bool'."; a crash leaves only the exit code
            fact["error"] = last_error_line(result.stderr) or failure_reason(result)
        fact["command"] = _command_fact(result, "<legacydoc import check>")
    return fact


def collect(ctx: ProbeContext) -> dict[str, dict[str, Any]]:
    python: dict[str, Any] = {}
    packages: dict[str, Any] = {}
    choice = choose_interpreter(ctx)
    python["selected_by"] = choice.selected_by
    python["executable_requested"] = choice.path
    if choice.skipped:
        python["candidates_skipped"] = choice.skipped
    if choice.error:
        python["probe_ok"] = False
        python["error"] = choice.error
        return clean({"python": python, "packages": packages})

    with neutral_folder() as folder:
        result = ctx.run([choice.path, "-c", script_source(), str(ctx.cwd)], cwd=folder)
    report = parse_report(result.stdout)
    if report:
        facts = report.get("python")
        if isinstance(facts, dict):
            python.update({k: v for k, v in facts.items() if k not in python})
        packages.update(packages_from_report(report))
        for table, table_facts in (("python", python), ("packages", packages)):
            if report.get(table + "_error"):
                table_facts["script_error"] = str(report[table + "_error"])
    python["probe_ok"] = bool(report) and result.ok and isinstance(report.get("python"), dict)
    if not python["probe_ok"]:
        python["error"] = failure_reason(result) if not (report and result.ok) else "the probe script failed"
        python["command"] = _command_fact(result, "<legacydoc target_script.py>")

    if ctx.import_check:
        found = packages.get("found")
        frameworks = tuple(module for dist, module in FRAMEWORK_IMPORTS.items()
                           if isinstance(found, list) and dist in found)
        packages["import_check"] = _import_checks(ctx, choice.path, result, IMPORT_MODULES + frameworks)
    return clean({"python": python, "packages": packages})


def _import_checks(ctx: ProbeContext, python: str, probe: CommandResult,
                   modules: tuple[str, ...] = IMPORT_MODULES) -> dict[str, Any]:
    if probe.timed_out or probe.error:
        # don't start an interpreter that would not start or hung a moment ago
        why = "not run: the interpreter probe %s" % ("timed out" if probe.timed_out else "could not start it")
        return {m: {"ok": False, "skipped": True, "error": why} for m in modules}
    # In parallel: theano's import can take most of the probe's time budget by itself.
    checks: dict[str, Any] = {}
    lock = threading.Lock()

    def work(module: str) -> None:
        try:
            fact = import_check(ctx, python, module)
        except Exception as exc:  # a bug here must not lose the other modules
            fact = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
        with lock:
            checks[module] = fact

    threads = [threading.Thread(target=work, args=(m,), daemon=True) for m in modules]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(ctx.remaining() + 5.0)
    for module in modules:
        checks.setdefault(module, {"ok": False, "error": "did not finish in time"})
    return {m: checks[m] for m in modules}
