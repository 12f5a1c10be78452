"""What ``legacydoc theanorc`` and ``legacydoc theanorc --write [PATH]`` run.

``show(record)`` returns the report (files read, effective values with provenance,
findings); ``write(...)`` generates a config for the machine the facts describe, shows
the diff against the file on disk, backs that file up and replaces it atomically.
Exit codes of ``write``: 0 written, up to date or dry run; 1 the user declined;
2 refused (nothing touched, one line saying why, naming the file).
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Optional, Protocol, cast

from legacydoc.errors import UsageError
from legacydoc.i18n import tr
from legacydoc.safe_io import Refused, read_bytes, replace_file, resolve_target
from legacydoc.theanorc import machine
from legacydoc.theanorc.discovery import write_target
from legacydoc.theanorc.effective import EffectiveConfig, Setting, effective_config
from legacydoc.theanorc.findings import Finding, find_problems
from legacydoc.theanorc.sources import SourceFile
from legacydoc.theanorc.writer import generate

# Shown in the report even at their defaults: what people come to check.
SHOWN_DEFAULTS = ("device", "floatX", "mode", "cxx", "linker", "blas.ldflags", "cuda.root", "dnn.enabled",
                  "dnn.include_path", "gpuarray.preallocate", "base_compiledir")


def _check_record(record: Any) -> Mapping[str, Any]:
    if not isinstance(record, Mapping) or "schema" not in record and "theano_config" not in record:
        raise UsageError(tr("not a legacydoc facts record (no 'schema' and no 'theano_config' table)"))
    table = record.get("theano_config")
    if table is not None and not isinstance(table, Mapping):
        raise UsageError(tr("facts record: 'theano_config' must be a table"))
    return record


# --- show ----------------------------------------------------------------------------------


def _value_text(setting: Setting) -> str:
    if setting.value is None:
        note = setting.note or "unknown"
        return "(%s)" % (note if note.startswith("computed") else "computed at import: " + note)
    text = setting.value if setting.value != "" else '""'
    if setting.raw is not None:
        text += "   (from %r)" % setting.raw
    if not setting.ok:
        text += "   INVALID"
    return text


def _source_text(setting: Setting) -> str:
    if setting.origin.source == "file":
        # an Origin from a file always carries its (int) line number
        return tr("%s line %d") % (setting.origin.file, cast(int, setting.origin.line))
    if setting.origin.source == "THEANO_FLAGS":
        return "THEANO_FLAGS"
    return tr("default") + (" (%s)" % setting.note if setting.note and setting.value is not None else "")


def _finding_text(finding: Finding) -> list[str]:
    words = {"error": tr("ERROR"), "warning": tr("WARNING"), "info": tr("INFO")}
    lines = ["  %-7s %s" % (words.get(finding.severity, finding.severity).lower(), finding.message)]
    if finding.fix_line:
        fix = finding.fix_line.split("\n")
        lines.append("          %s %s" % (tr("fix:"), fix[0]))
        lines += ["               %s" % part for part in fix[1:]]
    elif finding.kind not in ("conflicting-values", "file-truncated", "file-partial", "default-section",
                              "interpolation"):
        lines.append("          %s %s" % (tr("fix:"), tr("delete the line")))
    return lines


def show(record: Mapping[str, Any]) -> str:
    """The effective Theano config with provenance and the findings, as readable text."""
    record = _check_record(record)
    config = effective_config(record)
    findings = find_problems(record, config)
    out = [tr("Theano config as %s reads it (%s; rules: %s)") % (
        config.release.label, config.release.reason, config.schema.id), ""]
    out.append(tr("Config files, in reading order (a later file overrides an earlier one):"))
    if not config.files:
        out.append("  " + tr("(none recorded)"))
    for index, source in enumerate(config.files, start=1):
        state = tr("read") if source.read else tr("skipped: %s") % source.reason
        if source.read and source.parsed is not None:
            count = len(source.parsed.entries)
            state += (tr(", %d option") if count == 1 else tr(", %d options")) % count
        out.append("  %d. %s  [%s; %s]" % (
            index, source.path, tr("from THEANORC") if source.origin == "THEANORC" else tr("default"), state))
    theanorc = machine.theanorc_env(record)
    out.append("THEANORC: %s" % (tr("not set") if theanorc is None else repr(theanorc)))
    out.append("THEANO_FLAGS: %s" % (repr(config.flags.raw) if config.flags.raw else tr("not set")))
    out.append("")
    if config.import_error:
        out.append(tr("import theano FAILS: %s") % config.import_error)
        out.append("")
    user = config.user_settings()
    out.append(tr("Set by you:") if user else tr("Set by you: nothing (every option has its default)"))
    width = max([len(s.key) for s in user] + [len(n) for n in SHOWN_DEFAULTS]) + 2
    for setting in user:
        out.append("  %s = %s" % (setting.key.ljust(width - 2), _value_text(setting)))
        out.append("  %s   %s" % (" " * (width - 2), tr("from %s") % _source_text(setting)))
        for other in setting.others:
            out.append("  %s   %s" % (" " * (width - 2), tr("(also set to %r at %s)") % (other.value, other.label)))
    found = [config.get(n) for n in SHOWN_DEFAULTS]
    shown = [s for s in found if s is not None and s.is_default]
    if shown:
        out.append(tr("Key options at their defaults:"))
        for setting in shown:
            out.append("  %s = %s" % (setting.key.ljust(width - 2), _value_text(setting)))
            out.append("  %s   %s" % (" " * (width - 2), _source_text(setting)))
    if config.unknown_flags:
        out.append("THEANO_FLAGS keys Theano does not recognise: %s"
                   % ", ".join(i.key or "" for i in config.unknown_flags))
    out.append("")
    if findings:
        errors = sum(f.severity == "error" for f in findings)
        header = tr("Findings (%d: %d error):") if errors == 1 else tr("Findings (%d: %d errors):")
        out.append(header % (len(findings), errors))
        for finding in findings:
            out += _finding_text(finding)
    else:
        out.append(tr("Findings: none. The config does what it says."))
    return "\n".join(out) + "\n"


# --- write --------------------------------------------------------------------------------


def _encode(text: str, old: Optional[bytes], windows: bool) -> bytes:
    crlf = (old is not None and b"\r\n" in old) or (old is None and windows)
    if crlf:
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8")


def _decoded(data: Optional[bytes]) -> list[str]:
    if data is None:
        return []
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return text.splitlines(keepends=True)


class Out(Protocol):
    """Where the command prints: a text stream, or one that redacts as it goes."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def _confirm(prompt: str, out: Out) -> Optional[bool]:
    """Ask on the terminal; None when there is no terminal to ask on."""
    if not (sys.stdin and sys.stdin.isatty()):
        return None
    out.write(prompt)
    out.flush()
    try:
        answer = input()
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _recorded_as(config: EffectiveConfig, target: Path) -> list[SourceFile]:
    """The config files of the record that are ``target``."""
    return [s for s in config.files if str(s.fact.get("abspath") or s.path) == str(target)]


def _stale(config: EffectiveConfig, target: Path, current: Optional[bytes]) -> list[str]:
    """A note when the file on disk is not what the facts recorded (edited since). A
    target recorded only in part never gets here: write() refuses it first."""
    for source in _recorded_as(config, target):
        if not isinstance(source.fact.get("text"), str):
            continue
        if source.fact.get("encoding") not in ("utf-8", "utf-8-sig"):
            continue  # its recorded text is not its bytes: cannot compare
        now = (current or b"").decode("utf-8", errors="replace").lstrip("\ufeff")
        if now != source.fact["text"]:
            return ["%s changed since the facts were recorded: options are kept from the recorded text" % target]
    return []


def _refuse_part_known(config: EffectiveConfig, target: Path) -> None:
    """The new file is built from the recorded text: when the record holds only part of
    the target (an excerpt, or cut at the probe's size limit), the rest would be lost."""
    if any(source.truncated or source.partial for source in _recorded_as(config, target)):
        raise Refused(tr("the record holds only part of %s, so rewriting it would drop the rest; run legacydoc "
                         "theanorc --write on that machine without --facts, or give another PATH") % target)


def _choose_target(record: Mapping[str, Any], path: Optional[Path]) -> tuple[Path, str, tuple[str, ...]]:
    if path is not None:
        text = str(path)
        if not text or "\0" in text:
            raise UsageError(tr("--write: not a usable path: %r") % text)
        return Path(os.path.abspath(os.path.expanduser(text))), "the path you gave", ()
    target = write_target(record)
    if target is None:
        raise Refused(tr("cannot tell which file Theano reads (no theano_config facts and no home folder); give PATH"))
    if machine.is_windows(record) != (os.name == "nt"):
        raise Refused(
            tr("%s belongs to the %s machine the facts come from, not this one; give PATH to write the file here")
            % (target.path, machine.family(record)))
    return Path(target.path), target.why, target.others


def write(
    record: Mapping[str, Any],
    path: Optional[Path],
    dry_run: bool,
    assume_yes: bool,
    out: Out,
    confirm: Optional[Callable[[str], bool]] = None,
    err: Optional[Out] = None,
) -> int:
    """``legacydoc theanorc --write [PATH]``: see the module docstring for exit codes.
    ``confirm`` (tests, GUIs) replaces the terminal question."""
    err = err if err is not None else out  # refusals: stderr from the CLI
    record = _check_record(record)
    config = effective_config(record)
    try:
        target, why, others = _choose_target(record, path)
        _refuse_part_known(config, target)
        current = read_bytes(resolve_target(target))
    except Refused as exc:
        err.write(tr("legacydoc: not written: %s") % exc + "\n")
        return 2
    except OSError as exc:
        err.write(tr("legacydoc: not written: cannot read %s: %s") % (target, exc.strerror or exc) + "\n")
        return 2
    generated = generate(record, config, str(target))
    data = _encode(generated.text, current, machine.is_windows(record))
    out.write(tr("Target: %s (%s)") % (target, why) + "\n")
    for other in others:
        out.write(tr("Theano also reads %s: its settings for options not in the new file still apply.") % other + "\n")
    for note in generated.notes + _stale(config, target, current):
        out.write(tr("Note: %s.") % note + "\n")
    for dropped in generated.dropped:
        out.write(tr("Dropped: %s") % dropped + "\n")
    diff = list(difflib.unified_diff(_decoded(current), _decoded(data),
                                     fromfile=str(target) if current is not None else "/dev/null",
                                     tofile=str(target)))
    if current == data:
        out.write(tr("%s is already up to date: nothing to write.") % target + "\n")
        return 0
    out.write("".join(diff) if diff else tr("(only line endings or bytes that do not decode differ)") + "\n")
    if not diff[-1:] or not diff[-1].endswith("\n"):
        out.write("\n")
    if dry_run:
        out.write(tr("Dry run: nothing written.") + "\n")
        return 0
    if not assume_yes:
        prompt = "Write %s%s? [y/N] " % (target, " (the old file is backed up first)" if current is not None else "")
        answer = confirm(prompt) if confirm is not None else _confirm(prompt, out)
        if answer is None:
            err.write(tr("legacydoc: not written: %s: no terminal to confirm on; run again with --yes") % target + "\n")
            return 2
        if not answer:
            out.write(tr("Not written.") + "\n")
            return 1
    try:
        result = replace_file(target, data, keep_backup=True)
    except Refused as exc:
        err.write(tr("legacydoc: not written: %s") % exc + "\n")
        return 2
    if result.backup is not None:
        out.write(tr("Wrote %s (the previous file is saved as %s).") % (result.target, result.backup) + "\n")
    else:
        out.write(tr("Wrote %s.") % result.target + "\n")
    return 0


def effective(record: Mapping[str, Any]) -> EffectiveConfig:
    """The effective config (for renderers that want more than show())."""
    return effective_config(_check_record(record))
