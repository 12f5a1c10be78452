"""The command line. Thin on purpose: parse options, call the layers, pick a renderer.

Importing this module must stay cheap (no numpy): it is what every invocation pays.
"""

from __future__ import annotations

import enum
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

if TYPE_CHECKING:
    from legacydoc.probes import Probing

from legacydoc import __version__
from legacydoc.errors import UsageError
from legacydoc.i18n import tr
from legacydoc.render.registry import (
    BENCH_FORMATS,
    CHECK_FORMATS,
    DIFF_FORMATS,
    EXPLAIN_FORMATS,
    TRIAGE_FORMATS,
    choose,
    help_text,
)

app = typer.Typer(
    name="legacydoc",
    help="A doctor for legacy Theano environments: finds driver, CUDA, cuDNN, compiler, "
    "numpy and .theanorc mismatches before you do.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # click's plain formatter re-wraps each paragraph to the terminal and shows flags as
    # flags; rich kept the docstrings' line breaks mid-sentence and printed "<bool>".
    rich_markup_mode=None,
    epilog="Exit codes: 0 nothing wrong found; 1 problems found (check: errors, or warnings with --strict; "
    "explain: no known message); 2 bad usage or unreadable input (one line on stderr); 3 legacydoc "
    "itself failed (please report it).",
    context_settings={"help_option_names": ["-h", "--help"]},
)


class ProbeFormat(str, enum.Enum):
    text = "text"
    toml = "toml"


def _format_option(formats: dict) -> Any:
    """--format, its choices and help from the renderer registry; a bad value is a one-line
    usage error (registry.choose), like every other bad input."""
    return typer.Option("text", "--format", metavar="|".join(formats), help=help_text(formats))


def _version_callback(value: bool) -> None:
    if value:
        typer.echo("legacydoc %s" % __version__)
        raise typer.Exit()


def _use_lang(value: Optional[str]) -> None:
    from legacydoc import i18n

    i18n.use(i18n.choose(value))


LangOpt = typer.Option(
    None, "--lang", metavar="en|zh|auto",
    help="The language of the report: en, zh (Simplified Chinese) or auto (default: LEGACYDOC_LANG, "
    "else the locale: LANG/LC_ALL zh_*, or the Windows display language).",
)


ShellOpt = typer.Option(
    None, "--shell", metavar="bash|zsh|cmd|powershell",
    help="Write the fixes' commands for this shell (default: cmd for a Windows record, bash otherwise).",
)


def _use_shell(value: Optional[str]) -> None:
    from legacydoc import shells

    shells.use(shells.choose(value))


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, metavar="", help="Print the version and exit."
    ),
    lang: Optional[str] = LangOpt,
) -> None:
    """legacydoc: probe the machine, diagnose it, write a working .theanorc."""
    _use_lang(lang)
    _use_shell(None)


# Options every probing command takes, after the command name.
PythonOpt = typer.Option(
    None,
    "--python",
    metavar="PATH",
    help="The interpreter the legacy project runs in (default: active conda env or venv, "
    "then the first python on PATH, then legacydoc's own).",
)
ProjectOpt = typer.Option(
    None, "--project", metavar="DIR",
    help="The legacy project's folder: .theanorc files there, its imports and pins for the plan, and (check) the "
    "Theano API its code uses that the installed release lacks."
)
TimeoutOpt = typer.Option(10.0, "--timeout", metavar="SECONDS", help="Limit for each external command and probe.")
RulesOpt = typer.Option(None, "--rules", metavar="DIR", help="An extra rule pack directory (repeatable).")
ImportCheckOpt = typer.Option(
    False, "--import-check", metavar="",
    help="Also import numpy, theano and pygpu (and PyMC3, Lasagne where installed) in the target interpreter.",
)
LogOpt = typer.Option(
    None, "--log", metavar="FILE",
    help="The output of the run that failed (a traceback, a compile dump; - for stdin): its messages "
    "become evidence for the rules.",
)  # fmt: skip


def echo_any(text: str, color: Optional[bool] = None) -> None:
    """Print text whatever stdout's encoding: a log's Chinese on a cp1252 console, or
    through a pipe with PYTHONIOENCODING=latin-1, becomes '?' instead of a crash. With
    color=True the ANSI codes stay even off a terminal (FORCE_COLOR)."""
    try:
        typer.echo(text, nl=False, color=color)
    except UnicodeEncodeError:
        encoding = getattr(sys.stdout, "encoding", None) or "ascii"
        typer.echo(text.encode(encoding, "replace").decode(encoding, "replace"), nl=False, color=color)


def _read_log(log_name: Optional[str]) -> Any:
    """The --log input, read once, before any probing (an unreadable one fails first)."""
    if log_name is None:
        return None
    from legacydoc.logfile import read_log

    return read_log(log_name)


def _log_table(log: Any, no_redact: bool) -> tuple[dict, str]:
    """The log's ``log`` table (legacydoc.logfile) and its text. The log was written on
    this machine, whatever record it goes with, so this machine's identity is taken out
    here; the record's own redaction follows, as for every output."""
    import os

    from legacydoc.logfile import log_facts
    from legacydoc.redact import for_this_machine

    here = for_this_machine(os.environ, identity=not no_redact)
    table = log_facts(log)
    table["matches"] = [
        dict(m, text=here.text(str(m.get("text", ""))),
             **({"groups": {k: here.text(str(v)) for k, v in m["groups"].items()}} if m.get("groups") else {}))
        for m in table["matches"]
    ]
    table["source"] = here.text(str(table["source"]))
    return table, here.text(log.text)


def _with_log(record: dict, log: Any, no_redact: bool) -> tuple[dict, Optional[str]]:
    """The record with the log's table added (as given when there is no log), and the text."""
    if log is None:
        return record, None
    table, text = _log_table(log, no_redact)
    return {**record, "log": table}, text


# An hour per command is far beyond any real probe; more would overflow the clocks.
MAX_TIMEOUT_S = 3600


def build_context(python: Optional[str], project: Optional[Path], timeout: float, import_check: bool):
    """A ProbeContext from the common options; bad values are usage errors."""
    from legacydoc.probes.context import ProbeContext

    if not (0 < timeout <= MAX_TIMEOUT_S):  # also refuses nan and inf
        raise UsageError(tr("--timeout: must be more than 0 and at most %d seconds, got %s") % (MAX_TIMEOUT_S, timeout))
    if project is not None and not project.is_dir():
        raise UsageError(tr("%s: --project is not a directory") % project)
    return ProbeContext(python=python, project=project, timeout=timeout, import_check=import_check)


def probe_machine(python: Optional[str], project: Optional[Path], timeout: float, import_check: bool) -> dict:
    """Run every probe and return the facts record."""
    return probe_with_log(python, project, timeout, import_check)[0]


def probe_with_log(python: Optional[str], project: Optional[Path], timeout: float, import_check: bool):
    """Run every probe; the facts record and the CommandLog of every command run (for report)."""
    from legacydoc import facts
    from legacydoc.probes import collect_all

    ctx = build_context(python, project, timeout, import_check)
    return facts.new_record(collect_all(ctx)), ctx.log


# The probe of the target interpreter, started ahead of the others.
TARGET_PROBE = ("target",)


def _start_target_probe(
    python: Optional[str], project: Optional[Path], timeout: float, import_check: bool
) -> "Probing":
    """The target probe, in the background (the others are started on the result)."""
    from legacydoc.probes import Probing

    return Probing(build_context(python, project, timeout, import_check)).start(TARGET_PROBE)


NoRedactOpt = typer.Option(
    False,
    "--no-redact",
    metavar="", help="Show the user name, host name, home folder, GPU UUIDs and serial numbers instead of "
    "<user>, <host>, <home>, ... (secret environment values stay hidden).",
)


def _redactor(record: dict, no_redact: bool):
    """The one redaction stage every output of this run goes through (legacydoc.redact)."""
    import os

    from legacydoc.redact import Redactor

    return Redactor.for_record(record, environ=os.environ, identity=not no_redact)


@app.command()
def probe(
    save: Optional[Path] = typer.Option(None, "--save", metavar="FILE", help="Write the facts record (TOML) here."),
    output_format: ProbeFormat = typer.Option(
        ProbeFormat.text, "--format", help="text: a summary by area; toml: the facts record on stdout."
    ),
    python: Optional[str] = PythonOpt,
    project: Optional[Path] = ProjectOpt,
    timeout: float = TimeoutOpt,
    import_check: bool = ImportCheckOpt,
    no_redact: bool = NoRedactOpt,
) -> None:
    """Read the machine (no judging) and print what was found; --save keeps the facts."""
    from legacydoc import facts
    from legacydoc.render.summary import render_summary, use_color
    from legacydoc.safe_io import check_writable

    if save is not None:
        check_writable(save, need_read=False)  # refuse before a probe that may take seconds
    started = time.monotonic()
    record = probe_machine(python, project, timeout, import_check)
    redactor = _redactor(record, no_redact)
    record = redactor.record(record)
    if output_format is ProbeFormat.toml:
        typer.echo(facts.dumps(record), nl=False)
    else:
        typer.echo(redactor.text(render_summary(record, color=use_color(sys.stdout))))
        typer.echo("probed in %.1f s" % (time.monotonic() - started))
    if save is not None:
        facts.save(record, save)
        typer.echo("facts saved to %s" % save, err=output_format is ProbeFormat.toml)


def _import_diagnosis() -> None:
    """Import the modules that diagnosing and rendering a check use."""
    import legacydoc.checkup  # noqa: F401
    import legacydoc.diagnose  # noqa: F401
    import legacydoc.plan.command  # noqa: F401
    import legacydoc.plan.planner  # noqa: F401
    import legacydoc.render.check_text  # noqa: F401
    import legacydoc.theanorc.findings  # noqa: F401
    from legacydoc.knowledge.load import default

    default()  # the knowledge tables, read from disk: diagnosing reads them first thing


def _load_rules(rules_dirs: Optional[list[Path]]) -> list:
    from legacydoc.engine import load_rules

    return load_rules(rules_dirs or [])


@app.command()
def check(
    facts_file: Optional[Path] = typer.Option(
        None, "--facts", metavar="FILE", help="Diagnose a saved facts record instead of probing this machine."
    ),
    output_format: str = _format_option(CHECK_FORMATS),
    strict: bool = typer.Option(False, "--strict", metavar="", help="Exit 1 on warnings too."),
    verbose: bool = typer.Option(
        False, "-v", "--verbose",
        metavar="", help="List every check of each area: fired, passed, or undecided and the facts it lacked.",
    ),
    rules_dirs: Optional[list[Path]] = RulesOpt,
    python: Optional[str] = PythonOpt,
    project: Optional[Path] = ProjectOpt,
    timeout: float = TimeoutOpt,
    import_check: bool = ImportCheckOpt,
    log_file: Optional[str] = LogOpt,
    no_redact: bool = NoRedactOpt,
    lang: Optional[str] = LangOpt,
    shell: Optional[str] = ShellOpt,
) -> None:
    """Probe (or replay --facts FILE: a facts.toml or a report zip), run the rules, print
    diagnoses root cause first; --log FILE adds what the failed run printed as evidence.
    Every format is redacted unless --no-redact.

    Exit code: 0 no error found, 1 errors found (or warnings with --strict), 2 bad usage.
    """
    if lang is not None:
        _use_lang(lang)
    _use_shell(shell)
    chosen = choose(CHECK_FORMATS, output_format)
    probing = None
    if facts_file is None:
        # The target interpreter is the slowest probe (behind a pyenv shim, bash starts
        # six times before Python does): it runs while the rules are read.
        probing = _start_target_probe(python, project, timeout, import_check)
    try:
        rules = _load_rules(rules_dirs)  # a broken rule pack fails before the other probes
        log = _read_log(log_file)
        if facts_file is not None:
            from legacydoc import replay

            replayed = replay.load(facts_file, with_commands=False)
            record, source = replayed.record, replayed.source
        else:
            assert probing is not None  # started above: there is no --facts
            from legacydoc import facts
            from legacydoc.probes import PROBE_MODULES

            probing.start_soon([name for name in PROBE_MODULES if name not in TARGET_PROBE])
            # The probes mostly wait on other processes: meanwhile this thread imports what
            # diagnosing needs (a third of the run's wall time on a warm machine).
            _import_diagnosis()
            record = facts.new_record(probing.wait())
            source = "this machine"
    except BaseException:
        # a usage error, Ctrl-C: what was started for the probes (each in a session of
        # its own, out of reach of the terminal's SIGINT) must not outlive us
        if probing is not None:
            probing.cancel()
        raise
    record, _text = _with_log(record, log, no_redact)
    # Redacted facts in, so every format agrees with the report and with a replay of it.
    redactor = _redactor(record, no_redact)
    from legacydoc import shells
    from legacydoc.diagnose import diagnose  # imported while the probes ran (_import_diagnosis)
    from legacydoc.plan.command import scan_project
    from legacydoc.render.summary import use_color

    result = diagnose(record, rules, redactor, source,
                      project=scan_project(project, home=Path.home() if facts_file is None else None))
    result.verbose = verbose
    result.shell = shells.for_facts(result.record)
    # Named in the explain hint: redacted like the rest of the output.
    result.facts_file = redactor.text(str(facts_file)) if facts_file is not None else ""
    result.log_file = redactor.text(log_file) if log_file not in (None, "-") else ""
    color = use_color(sys.stdout)
    echo_any(chosen.render(result, redactor, color=color) + "\n", color=color or None)
    raise typer.Exit(result.exit_code(strict))


@app.command()
def report(
    output: Path = typer.Option(
        Path("legacydoc-report.zip"), "-o", "--output", metavar="FILE", help="Where to write the zip."
    ),
    facts_file: Optional[Path] = typer.Option(
        None, "--facts", metavar="FILE", help="Rebuild from a saved facts.toml or report zip instead of probing."
    ),
    rules_dirs: Optional[list[Path]] = RulesOpt,
    python: Optional[str] = PythonOpt,
    project: Optional[Path] = ProjectOpt,
    timeout: float = TimeoutOpt,
    import_check: bool = ImportCheckOpt,
    log_file: Optional[str] = LogOpt,
    no_redact: bool = NoRedactOpt,
    lang: Optional[str] = LangOpt,
    shell: Optional[str] = ShellOpt,
) -> None:
    """Write one zip to attach to a support ticket: report.md, report.json, facts.toml,
    the raw command outputs, the --log (as log.txt) and a manifest. Redacted unless
    --no-redact."""
    from legacydoc.report import CommandOutput, write_report
    from legacydoc.safe_io import check_writable

    if lang is not None:
        _use_lang(lang)
    _use_shell(shell)
    check_writable(output, need_read=False)  # refuse before probing
    rules = _load_rules(rules_dirs)
    log = _read_log(log_file)
    log_text: Optional[str] = None
    if facts_file is not None:
        from legacydoc import replay

        replayed = replay.load(facts_file)
        record, source = replayed.record, replayed.source
        commands = [CommandOutput.from_saved(meta, body) for meta, body in replayed.commands]
        log_text = replayed.log_text  # a report rebuilt from a report keeps its log
    else:
        record, probe_log = probe_with_log(python, project, timeout, import_check)
        source = "this machine"
        commands = [CommandOutput.from_result(r) for r in probe_log.results]
    record, new_log = _with_log(record, log, no_redact)
    if new_log is not None:
        log_text = new_log
    from legacydoc.plan.command import scan_project

    # the project's code, as check reads it: its findings and the plan belong in the report too
    scanned = scan_project(project, home=Path.home() if facts_file is None else None)
    written = write_report(output, record, rules, commands, _redactor(record, no_redact), source, log_text, scanned)
    typer.echo(written.summary())


@app.command()
def explain(
    log_file: Optional[str] = typer.Argument(
        None, metavar="[FILE|-]", help="The log or traceback to explain; - or nothing reads standard input."
    ),
    text: Optional[str] = typer.Option(
        None, "--text", "-t", metavar="TEXT", help="The error message itself, pasted on the command line."
    ),
    facts_file: Optional[Path] = typer.Option(
        None, "--facts", metavar="FILE",
        help="A facts record or report zip of the machine that failed: each cause is then confirmed, "
        "ruled out or left unknown.",
    ),
    output_format: str = _format_option(EXPLAIN_FORMATS),
    rules_dirs: Optional[list[Path]] = RulesOpt,
    no_redact: bool = NoRedactOpt,
    lang: Optional[str] = LangOpt,
) -> None:
    """Explain an error message: what it means, its likely causes in order, the facts that
    tell them apart, the fix. Reads a file, standard input (- or nothing) or --text;
    any console encoding (GBK too), wrapped lines, CRLF and colour codes are fine.

    Exit code: 0 a known message was found, 1 none was, 2 the input cannot be read.
    """
    import os

    from legacydoc.explain import explain as explain_log
    from legacydoc.logfile import LogInput
    from legacydoc.logscan import clean
    from legacydoc.redact import for_this_machine

    if lang is not None:
        _use_lang(lang)
    chosen = choose(EXPLAIN_FORMATS, output_format)
    rules = _load_rules(rules_dirs)
    if text is not None and log_file is not None:
        raise UsageError(tr("explain: give a FILE or --text, not both"))
    record = None
    facts_source = ""
    if facts_file is not None:
        from legacydoc import replay

        replayed = replay.load(facts_file, with_commands=False)
        # its path is on this machine, whatever machine the record describes
        record = replayed.record
        facts_source = for_this_machine(os.environ, identity=not no_redact).text(replayed.source)
    if text is not None:
        pasted = clean(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
        log = LogInput(pasted, "utf-8", "--text", False, len(pasted))
    else:
        if log_file in (None, "-") and sys.stdin is not None and sys.stdin.isatty():
            typer.echo("Paste the error message, then press Ctrl-D (Windows: Ctrl-Z, Enter).", err=True)
        log = _read_log(log_file or "-")
    table, _text = _log_table(log, no_redact)  # this machine's identity out of the log
    redactor = (_redactor(record, no_redact) if record is not None
                else for_this_machine(os.environ, identity=not no_redact))
    result = explain_log(table, rules, record, facts_source)
    echo_any(chosen.render(result, redactor))
    raise typer.Exit(result.exit_code())


@app.command()
def triage(
    paths: list[Path] = typer.Argument(..., metavar="DIR|ZIP|TOML...",
                                       help="Report zips, facts.toml files, or folders holding them."),
    output_format: str = _format_option(TRIAGE_FORMATS),
    rules_dirs: Optional[list[Path]] = RulesOpt,
    no_redact: bool = NoRedactOpt,
) -> None:
    """The support desk's overview: diagnose many reports and facts files (folders are
    searched for *.zip and *.toml) and count them by root cause, GPU, driver, CUDA, Python
    and Theano. A file that cannot be read is refused on its own; the others go on.

    Exit code: 0 at least one record read, 2 none could be read.
    """
    import os

    _collect_garbage()  # any number of reports: memory must not grow with each

    from legacydoc.redact import for_this_machine
    from legacydoc.triage import triage as run_triage

    chosen = choose(TRIAGE_FORMATS, output_format)
    rules = _load_rules(rules_dirs)
    on_terminal = sys.stderr.isatty()

    def progress(number: int, total: int, path: Path) -> None:
        if on_terminal and (number == 1 or number % 25 == 0 or number == total):
            typer.echo("reading %d/%d" % (number, total), err=True)

    result = run_triage(paths, rules, lambda record: _redactor(record, no_redact), progress)
    # The records were redacted one by one; the desk's own paths with this machine's identity.
    typer.echo(chosen.render(result, for_this_machine(os.environ, identity=not no_redact)))
    if not result.entries:
        raise UsageError(tr("no record could be read from %s") % ", ".join(str(p) for p in paths))


@app.command()
def diff(
    old: Path = typer.Argument(..., metavar="OLD", help="The earlier report zip or facts.toml."),
    new: Path = typer.Argument(..., metavar="NEW", help="The later one."),
    output_format: str = _format_option(DIFF_FORMATS),
    rules_dirs: Optional[list[Path]] = RulesOpt,
    no_redact: bool = NoRedactOpt,
) -> None:
    """What changed between two reports of one user: findings fixed, new and remaining,
    and the facts that changed. A fact only one side recorded is shown as not recorded on
    the other, not as removed.

    Exit code: 0 compared, 2 a file could not be read.
    """
    import os

    from legacydoc.redact import for_this_machine
    from legacydoc.reportdiff import diff_files

    chosen = choose(DIFF_FORMATS, output_format)
    rules = _load_rules(rules_dirs)
    result = diff_files(old, new, rules, lambda record: _redactor(record, no_redact))
    typer.echo(chosen.render(result, for_this_machine(os.environ, identity=not no_redact)))


rules_app = typer.Typer(help="List the rules, or explain one.", no_args_is_help=False, invoke_without_command=True)
app.add_typer(rules_app, name="rules")


@rules_app.callback(invoke_without_command=True)
def rules_list(
    ctx: typer.Context,
    rules_dirs: Optional[list[Path]] = RulesOpt,
) -> None:
    """List every rule: id, name, severity, layer and title."""
    if ctx.invoked_subcommand is not None:
        return
    from legacydoc.render.rules_text import render_rule_list

    typer.echo(render_rule_list(_load_rules(rules_dirs)))


@rules_app.command("explain")
def rules_explain(
    rule: str = typer.Argument(..., metavar="ID", help="A rule id (LD101) or name (numpy-aliases-removed)."),
    rules_dirs: Optional[list[Path]] = RulesOpt,
) -> None:
    """Print one rule in full: what it checks, why it matters, the fix, references."""
    from legacydoc.engine import find_rule
    from legacydoc.render.rules_text import render_rule

    rules = _load_rules(rules_dirs)
    found = find_rule(rules, rule)
    if found is None:
        raise UsageError(tr("no rule with id or name %r (see 'legacydoc rules')") % rule)
    typer.echo(render_rule(found))


@app.command()
def theanorc(
    write: bool = typer.Option(
        False, "--write", metavar="", help="Write a correct config for this machine (diff, backup, atomic)."
    ),
    path: Optional[Path] = typer.Argument(
        None, metavar="[PATH]", help="With --write: where to write (default: the file Theano will really read)."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", metavar="", help="With --write: show the file and the diff, write nothing."
    ),
    yes: bool = typer.Option(
        False, "--yes", "-y", metavar="", help="With --write: do not ask before replacing a file."
    ),
    facts_file: Optional[Path] = typer.Option(
        None, "--facts", metavar="FILE", help="Use a saved facts record instead of probing this machine."
    ),
    python: Optional[str] = PythonOpt,
    project: Optional[Path] = ProjectOpt,
    timeout: float = TimeoutOpt,
    import_check: bool = ImportCheckOpt,
    no_redact: bool = NoRedactOpt,
    lang: Optional[str] = LangOpt,
) -> None:
    """Show the effective Theano config (every value and where it comes from) and what is
    wrong with it; --write generates a correct one."""
    if lang is not None:
        _use_lang(lang)
    from legacydoc.redact import RedactingWriter
    from legacydoc.theanorc import command

    if path is not None and not write:
        raise UsageError(tr("PATH is only used with --write"))
    if dry_run and not write:
        raise UsageError(tr("--dry-run is only used with --write"))
    if facts_file is not None:
        from legacydoc import replay

        if write and path is None:
            # a record made elsewhere (or crafted) never chooses where to write on this machine
            raise UsageError(tr("%s: with --facts, give the PATH to write to") % facts_file)
        record = replay.load(facts_file, with_commands=False).record
    else:
        record = probe_machine(python, project, timeout, import_check)
    redactor = _redactor(record, no_redact)
    if not write:
        typer.echo(redactor.text(command.show(record)))
        return
    # What is shown (the diff, the paths) is redacted; the file written never is.
    out, err = RedactingWriter(sys.stdout, redactor), RedactingWriter(sys.stderr, redactor)
    raise typer.Exit(command.write(record, path, dry_run=dry_run, assume_yes=yes, out=out, err=err))


class PlanFormat(str, enum.Enum):
    text = "text"
    json = "json"


ShellChoiceOpt = typer.Option(
    None, "--shell", metavar="SHELL",
    help="bash, zsh, cmd or powershell: the shell the commands are written for (default: cmd on Windows "
    "facts, bash elsewhere).",
)  # fmt: skip


@app.command()
def plan(
    facts_file: Optional[Path] = typer.Option(
        None, "--facts", metavar="FILE", help="Plan for a saved facts record instead of probing this machine."
    ),
    output: Optional[Path] = typer.Option(
        None, "-o", "--output", metavar="DIR",
        help="Write environment.yml, requirements.txt, theanorc, activate.sh/.bat/.ps1 and PLAN.md here "
        "(existing files are backed up).",
    ),
    output_format: PlanFormat = typer.Option(PlanFormat.text, "--format", help="text, or json (the same plan)."),
    python: Optional[str] = PythonOpt,
    project: Optional[Path] = typer.Option(
        None, "--project", metavar="DIR",
        help="The legacy project: its imports, requirements.txt, setup.py, environment.yml and keras.json "
        "shape the plan.",
    ),
    timeout: float = TimeoutOpt,
    shell: Optional[str] = ShellChoiceOpt,
    lang: Optional[str] = LangOpt,
) -> None:
    """One plan for this machine and project: the Python, the pins (each with a wheel for it),
    the steps in order, and the .theanorc that theanorc --write writes. Drivers and CUDA
    toolkits are named as manual steps, never installed.

    Exit code: 0 a plan was made, 2 bad usage or no plan possible.
    """
    from legacydoc import shells
    from legacydoc.plan.command import plan_for, scan_project, write_files
    from legacydoc.render.plan import render_plan_json, render_plan_text

    if lang is not None:
        _use_lang(lang)
    chosen_shell = shells.choose(shell)
    scanned = scan_project(project, home=Path.home() if facts_file is None else None)
    if facts_file is not None:
        from legacydoc import replay

        record = replay.load(facts_file, with_commands=False).record
    else:
        record = probe_machine(python, project, timeout, False)
    made = plan_for(record, scanned)
    shell_name = chosen_shell or shells.for_facts(record)
    if output_format is PlanFormat.json:
        typer.echo(render_plan_json(made))
    else:
        typer.echo(render_plan_text(made, shell_name), nl=False)
    if output is not None:
        written = write_files(made, output, shell_name)
        typer.echo("wrote %s in %s" % (", ".join(written), output), err=output_format is PlanFormat.json)


@app.command()
def fix(
    python: Optional[str] = PythonOpt,
    project: Optional[Path] = typer.Option(
        None, "--project", metavar="DIR", help="The legacy project (its imports and pins shape the plan)."
    ),
    env_dir: Path = typer.Option(
        Path("theano-legacy"), "--env", metavar="DIR",
        help="Where a new environment goes when the plan needs one (must not exist or be empty).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", metavar="", help="Show every command; run nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", metavar="", help="Do not ask before each command (scripts)."),
    timeout: float = TimeoutOpt,
) -> None:
    """Apply the plan's safe steps on this machine: create the environment (venv, or conda
    for pygpu), install the pins, write .theanorc with the safe writer, then check the
    result. Asks before each command. Never touches drivers, CUDA toolkits or system
    compilers: those are printed as manual steps.

    Exit code: 0 done and check finds no error, 1 a command failed, was declined or check
    still finds errors, 2 bad usage or nothing to confirm on (use --yes or --dry-run).
    """
    import json

    from legacydoc.checkup import run_check
    from legacydoc.facts import get
    from legacydoc.plan import apply
    from legacydoc.plan.command import plan_for, scan_project
    from legacydoc.render.plan import headline
    from legacydoc.theanorc import command

    scanned = scan_project(project, home=Path.home())
    record = probe_machine(python, project, timeout, False)
    made = plan_for(record, scanned)
    todo, new_python = apply.actions(made, env_dir.absolute(), get(record, "python.executable"),
                                     get(record, "python.prefix"))
    typer.echo("The plan: " + headline(made))
    later = ["legacydoc theanorc --write --python %s" % new_python, "legacydoc check --python %s" % new_python]
    if dry_run:
        typer.echo("legacydoc fix would run, in order:")
        for number, action in enumerate(todo, 1):
            typer.echo("  %d. %s" % (number, action.shown()))
        if made.keras_json:
            later.append("write ~/.keras/keras.json: %s" % json.dumps(made.keras_json))
        for number, line in enumerate(later, len(todo) + 1):
            typer.echo("  %d. %s" % (number, line))
        _manual(apply.manual_steps(made))
        typer.echo("Dry run: nothing was run.")
        return
    if not yes and not (sys.stdin and sys.stdin.isatty()):
        raise UsageError(tr("fix asks before each command and there is no terminal to ask on; "
                            "run again with --yes, or --dry-run to see the commands"))
    for action in todo:
        typer.echo("-> %s" % action.shown())
        if not yes and not typer.confirm("Run it?", default=False):
            typer.echo("Stopped: nothing more was run.")
            raise typer.Exit(1)
        if not apply.run_action(action, lambda text: typer.echo(text, err=True, nl=False)):
            raise typer.Exit(1)
    new_record = probe_machine(str(new_python), project, timeout, False)
    written = command.write(new_record, None, dry_run=False, assume_yes=yes, out=sys.stdout, err=sys.stderr)
    if written != 0:
        raise typer.Exit(1 if written == 1 else 2)
    if made.keras_json and (yes or typer.confirm("Write ~/.keras/keras.json (backend theano)?", default=False)):
        typer.echo("Wrote %s." % apply.write_keras_json(made, Path.home()))
    # Probed again: the check must read the .theanorc just written.
    result = run_check(probe_machine(str(new_python), project, timeout, False), _load_rules(None),
                       source=str(new_python))
    typer.echo(result.runs_on())
    typer.echo("Verdict: " + result.verdict() + "  (details: legacydoc check --python %s)" % new_python)
    _manual(apply.manual_steps(made))
    raise typer.Exit(result.exit_code())


def _manual(steps: list[str]) -> None:
    if steps:
        typer.echo("Not done by fix (manual steps):")
        for step in steps:
            typer.echo("  - " + step)


@app.command()
def bench(
    seconds: Optional[float] = typer.Option(
        None, "--seconds", metavar="SECONDS",
        help="Time budget for the GEMM measurements, both numpys together (default 6).",
    ),
    size: Optional[int] = typer.Option(None, "--size", metavar="N", help="Measure n x n matrices of this size only."),
    sizes: Optional[str] = typer.Option(
        None, "--sizes", metavar="N,N,...",
        help="Measure these sizes (default: from 512 up until the rate stops rising).",
    ),
    theano: bool = typer.Option(
        False, "--theano", metavar="", help="Also time the product through theano.function in the target interpreter "
        "(compiling takes up to two minutes the first time)."
    ),
    output_format: str = _format_option(BENCH_FORMATS),
    plot: Optional[Path] = typer.Option(
        None, "--plot", metavar="FILE",
        help="Also draw GFLOPS against n into FILE (.png or .svg; needs matplotlib: pip install \"legacydoc[plot]\").",
    ),
    python: Optional[str] = PythonOpt,
    project: Optional[Path] = ProjectOpt,
    timeout: float = TimeoutOpt,
    import_check: bool = ImportCheckOpt,
    no_redact: bool = NoRedactOpt,
) -> None:
    """Time the CPU matrix product in legacydoc's numpy and the target's, estimate the
    machine's peak, say what it means for training and a GPU, and diagnose slow setups.
    Says whether the figures can be trusted (uneven runs, a busy CPU, a moving clock) and
    measures uneven sizes again.

    Exit code: 0 measured, 2 bad usage."""
    _collect_garbage()  # seconds of measuring loops
    # numpy is imported only here, inside the measurement (the CLI itself stays light).
    from legacydoc.bench.command import BenchOptions, run_bench
    from legacydoc.bench.gemm import DEFAULT_SECONDS, MAX_SECONDS, check_sizes, parse_sizes
    chosen_format = choose(BENCH_FORMATS, output_format)
    budget = DEFAULT_SECONDS if seconds is None else seconds
    if not (0 < budget <= MAX_SECONDS):
        raise UsageError(tr("--seconds: must be more than 0 and at most %g, got %s") % (MAX_SECONDS, budget))
    if size is not None and sizes is not None:
        raise UsageError(tr("--size and --sizes: give one or the other"))
    try:
        chosen = check_sizes([size]) if size is not None else parse_sizes(sizes) if sizes is not None else []
    except ValueError as exc:
        raise UsageError(tr("--size/--sizes: %s") % exc) from None
    from legacydoc.bench.plot import check_plot_target, write_plot

    check_plot_target(plot)  # refused before minutes of measuring
    from legacydoc import facts
    from legacydoc.probes import collect_all

    ctx = build_context(python, project, timeout, import_check)
    # Progress on stderr, only for a person at a terminal: a pipe or a CI log stays clean.
    on_terminal = sys.stderr is not None and sys.stderr.isatty()
    if on_terminal:
        typer.echo(tr("legacydoc bench: probing this machine ..."), err=True)
    record = facts.new_record(collect_all(ctx))
    # The interpreter paths in the output can hold the user's name: the same redaction stage.
    redactor = _redactor(record, no_redact)
    options = BenchOptions(seconds=budget, sizes=chosen, theano=theano)
    progress = (lambda line: typer.echo(redactor.text(line), err=True)) if on_terminal else None
    report = run_bench(ctx, options, record=record, redactor=redactor, progress=progress)
    typer.echo(chosen_format.render(report, redactor))
    if plot is not None:
        typer.echo("plot written to %s" % redactor.text(str(write_plot(report, plot))), err=True)


def _short_helps() -> None:
    """The command list shows each command's first sentence whole, not cut at 45 characters."""
    for info in app.registered_commands:
        if info.short_help is None and info.callback is not None:
            first = " ".join((info.callback.__doc__ or "").split("\n\n")[0].split())
            info.short_help = first.split(". ")[0].split("; ")[0].rstrip(".")


_short_helps()


def _shown_error(message: str, argv: Optional[list]) -> str:
    """An error names files, which hold the home folder: redacted like every output (the
    facts may not exist yet, so this machine's identity is used)."""
    import os

    from legacydoc.redact import for_this_machine

    args = sys.argv[1:] if argv is None else argv
    return for_this_machine(os.environ, identity="--no-redact" not in args).text(message)


def _command_name(info: Any) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


def app_for(args: list[str]) -> typer.Typer:
    """The app narrowed to the command the arguments name. typer converts every command's
    options at each start, 5.5 ms for all of them against 1 ms for one; the command's own
    help, options and errors are the same either way. Anything else (no command, an option
    first, a name that is not a command) gets the whole app."""
    import copy

    name = args[0] if args else ""
    commands = [c for c in app.registered_commands if _command_name(c) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    narrowed = copy.copy(app)
    narrowed.registered_commands = commands
    narrowed.registered_groups = groups
    return narrowed


def main(argv: Optional[list] = None) -> None:
    """Entry point: no traceback ever reaches the user."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        code = app_for(args)(args=args, prog_name="legacydoc", standalone_mode=False)
    except UsageError as exc:
        typer.echo("legacydoc: error: %s" % _shown_error(str(exc), argv), err=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("legacydoc: aborted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        typer.echo("legacydoc: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # click's own usage errors and anything unexpected
        # Duck-typed: newer typer vendors its own copy of click's exception classes.
        show = getattr(exc, "show", None)
        exit_code = getattr(exc, "exit_code", None) if callable(show) else None
        if callable(show) and isinstance(exit_code, int):
            show()
            sys.exit(exit_code)
        typer.echo("legacydoc: internal error: %s: %s (please report this)" % (type(exc).__name__, exc), err=True)
        sys.exit(3)
    sys.exit(code if isinstance(code, int) else 0)


def run() -> None:
    """The installed ``legacydoc`` command and ``python -m legacydoc``: :func:`main` in a
    short-lived process, without the cycle collector. Its passes took 16 ms of a 0.19 s
    check, and those at exit 25-35 ms more; what they would free goes back to the OS with
    the process. triage and bench, which run long, turn it back on. Tests call main() and
    keep their collector as it was."""
    import gc

    gc.disable()
    try:
        main()
    finally:
        gc.freeze()  # the interpreter's own passes at exit skip frozen objects


def _collect_garbage() -> None:
    """Turn the cycle collector back on for a command that runs long or over many inputs."""
    import gc

    gc.enable()

