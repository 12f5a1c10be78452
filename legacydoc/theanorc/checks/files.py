"""Checks on the config files themselves: skipped files, encodings, the structure
ConfigParser refuses, and lines that name no option of the installed Theano."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from legacydoc.i18n import tr
from legacydoc.theanorc import machine
from legacydoc.theanorc.checks.base import (
    Context,
    _fix_for_option,
    _quote,
    _where_option,
    config_lines,
)
from legacydoc.theanorc.checks.values import value_problems
from legacydoc.theanorc.discovery import theanorc_line
from legacydoc.theanorc.parser import DEFAULT_SECTION, Entry, split_lines
from legacydoc.theanorc.schema import canonical_name
from legacydoc.theanorc.sources import SourceFile
from legacydoc.theanorc.suggest import removed_in, removed_info, suggest_file

# Past this many missing THEANORC files, one finding names them all (one per file, each
# with a THEANORC line of every entry, would grow with the square of the list).
MISSING_ONE_BY_ONE = 5


def check_files(ctx: Context) -> None:
    missing = [s for s in ctx.config.files if s.status == "missing" and s.origin == "THEANORC"]
    grouped = {id(s) for s in missing} if len(missing) > MISSING_ONE_BY_ONE else set()
    if grouped:
        missing_theanorc_files(ctx, missing)
    for source in ctx.config.files:
        if id(source) in grouped:
            continue
        file_status(ctx, source)
        if not source.read:
            continue
        file_encoding(ctx, source)
        if source.parsed is None:
            continue
        file_structure(ctx, source)
        for entry in source.parsed.entries:
            if entry.section is not None:
                check_entry(ctx, source, entry)


def file_status(ctx: Context, source: SourceFile) -> None:
    listed = tr("listed in THEANORC") if source.origin == "THEANORC" else tr("one of the files Theano reads by default")
    if source.status in ("unreadable", "not-a-file"):
        fix = ("chmod u+r %s" % source.path
               if source.status == "unreadable" and not machine.is_windows(ctx.record) else "")
        ctx.add(
            "unreadable-theanorc", "warning",
            tr("%s is %s but %s; Theano skips it without a word, so none of its settings apply.") % (
                source.path, listed, source.reason),
            fix, file=source.path,
        )
    elif source.status == "missing" and source.origin == "THEANORC":
        ctx.add(
            "theanorc-file-missing", "info",
            tr("THEANORC names %s, which %s; Theano skips it silently.") % (source.path, source.reason),
            theanorc_line(ctx.record, drop=[source.path]), file=source.path,
        )


def missing_theanorc_files(ctx: Context, missing: list[SourceFile]) -> None:
    shown = ", ".join(s.path for s in missing[:3])
    ctx.add(
        "theanorc-file-missing", "info",
        tr("THEANORC names %d files that do not exist (%s, ...); Theano skips them silently.") % (len(missing), shown),
        theanorc_line(ctx.record, drop=[s.path for s in missing]), file=missing[0].path,
    )


def file_encoding(ctx: Context, source: SourceFile) -> None:
    if source.truncated:
        ctx.add(
            "file-truncated", "info",
            tr("%s is larger than the part legacydoc records (64 KiB); settings after that point were not checked. A "
            ".theanorc needs only a few lines.") % source.path, "", file=source.path,
        )
    if source.partial:
        ctx.add(
            "file-partial", "info",
            tr("%s: the record holds only an excerpt of it; options outside the excerpt are unknown, not unset.")
            % source.path, "", file=source.path,
        )
    problem = source.decode
    if problem is None:
        return
    lines = split_lines(str(source.fact.get("text", "")))
    line_text = lines[problem.line - 1] if problem.line and problem.line <= len(lines) else ""
    if problem.kind == "bom":
        fix = line_text.lstrip("\ufeff")
        message = tr("%s line 1: %s. Save the file as UTF-8 without BOM (or plain ASCII).") % (
            source.path, problem.message)
    elif source.fact.get("encoding") == "utf-16":
        fix = line_text
        message = tr("%s: %s. Save it as plain ASCII/UTF-8 text (Notepad: Save As, Encoding ANSI or UTF-8).") % (
            source.path, problem.message)
    elif line_text.lstrip().startswith(("#", ";")):
        # a comment: keep its ASCII words, close the gaps the other characters left
        fix = " ".join("".join(c for c in line_text if ord(c) < 128).split())
        fix = "" if fix in ("#", ";") else fix
        message = tr("%s line %s: %s. Keep .theanorc ASCII: write comments in English or delete them.") % (
            source.path, problem.line, problem.message)
    else:
        fix = ""
        message = tr("%s line %s: %s. Keep .theanorc ASCII: a value with other characters (a path) must move to an " \
                  "ASCII-only folder.") % (source.path, problem.line, problem.message)
    ctx.add(problem.kind, "error" if problem.fatal else "warning", message, fix, file=source.path,
             line=problem.line, import_fails=problem.fatal)


def file_structure(ctx: Context, source: SourceFile) -> None:
    parsed = source.parsed
    assert parsed is not None
    for issue in parsed.issues:
        if issue.kind == "missing-section-header":
            if source.decode is not None and source.decode.kind == "bom" and issue.line == 1:
                continue  # the BOM finding says it
            if any(f.kind == "missing-section-header" and f.file == source.path for f in ctx.out):
                continue  # configparser stops at the first one; one finding is enough
            if source.partial:
                continue  # an excerpt starts where the quote did: its header may be above it
            entry = next((e for e in parsed.entries if e.section is None and e.line == issue.line), None)
            section = "global"
            if entry is not None and "." in entry.option:
                known = ctx.schema.get(entry.option) or ctx.schema.get(entry.raw_option)
                if known is not None:
                    section = known["section"]
            ctx.add(
                "missing-section-header", "error",
                tr("%s line %d: %s comes before any [section] header; ConfigParser refuses the whole file and import "
                "theano fails with MissingSectionHeaderError. Put a [%s] line above it.") % (
                    source.path, issue.line, _quote(issue.text), section),
                "[%s]\n%s" % (section, issue.text.strip()), file=source.path, line=issue.line, import_fails=True,
            )
        elif issue.kind == "duplicate-section":
            merged = [e for e in parsed.entries if e.section == issue.section]
            body = {}
            for e in merged:
                body[e.option] = e
            fix = "[%s]\n%s" % (issue.section, "\n".join("%s = %s" % (e.raw_option, e.value) for e in body.values()))
            ctx.add(
                "duplicate-section", "error",
                tr("%s line %d: [%s] appears a second time (first at line %s); Python 3's ConfigParser refuses "
                   "this and import theano fails with DuplicateSectionError. Merge the two into one section.") % (
                    source.path, issue.line, issue.section, issue.first_line),
                fix, file=source.path, line=issue.line, section=issue.section, import_fails=True,
            )
        elif issue.kind == "duplicate-option":
            last = [e for e in parsed.entries if e.section == issue.section and e.option == issue.option][-1]
            ctx.add(
                "duplicate-option", "error",
                tr("%s line %d: %s sets %s a second time in [%s] (first at line %s); Python 3's ConfigParser refuses "
                "this and import theano fails with DuplicateOptionError. Keep one line.") % (
                    source.path, issue.line, _quote(issue.text), last.raw_option, issue.section, issue.first_line),
                config_lines(str(issue.section), last.raw_option, last.value), file=source.path, line=issue.line,
                section=issue.section, option=issue.option, value=last.value, import_fails=True,
            )
        elif issue.kind == "parse-error":
            ctx.add(
                "parse-error", "error",
                tr("%s line %d: %s is neither a [section], an option = value line nor a comment; ConfigParser refuses "
                "the file and import theano fails with ParsingError.") % (source.path, issue.line, _quote(issue.text)),
                _repair_line(ctx, issue.text, issue.section), file=source.path, line=issue.line,
                section=issue.section, import_fails=True,
            )
    if any(name == DEFAULT_SECTION for name, _ in parsed.sections):
        line = next(number for name, number in parsed.sections if name == DEFAULT_SECTION)
        ctx.add(
            "default-section", "info",
            tr("%s line %d: options under [DEFAULT] apply to every section that exists, so Theano may read them as "
            "[global] (or any other section) options; write them in the section they belong to.") % (source.path, line),
            "", file=source.path, line=line, section=DEFAULT_SECTION,
        )
    for entry in parsed.entries:
        if entry.continued and entry.section is not None:
            joined = entry.value.replace("\n", "\\n")
            lines = [entry.text.strip()] + [v for v in entry.value_lines[1:] if v]
            looks_set = any(re.match(r"^[\w.]+\s*[=:]", v) for v in lines[1:])
            where = (tr("line %d") % entry.end_line) if entry.end_line == entry.line + 1 else (
                tr("lines %d-%d") % (entry.line + 1, entry.end_line))
            ctx.add(
                "continuation-line", "warning",
                tr("%s %s: the indented line(s) after %s continue its value, so %s is read as '%s'%s. Start "
                "each option at the beginning of its line.") % (
                    source.path, where, _quote(entry.text), entry.raw_option, joined,
                    " and the indented options are never set" if looks_set else ""),
                "\n".join(lines), file=source.path, line=entry.line + 1, section=entry.section,
                option=entry.option, value=entry.value,
            )


def _repair_line(ctx: Context, text: str, section: Optional[str]) -> str:
    """'device cuda' -> 'device = cuda' when the first word is an option of the section
    (or what a known wrong name means: 'cnmem 0.8' under [lib] -> [gpuarray] preallocate)."""
    words = text.split(None, 1)
    if len(words) != 2 or section is None:
        return ""
    if ctx.schema.file_option(section, words[0]) is not None:
        return "%s = %s" % (words[0], words[1].strip())
    hit = suggest_file(section, words[0], words[1].strip(), ctx.schema)
    if hit is not None and hit.how in ("advice", "removed"):
        return _fix_for_option(hit.option, hit.value or words[1].strip())
    return ""


def check_entry(ctx: Context, source: SourceFile, entry: Entry) -> None:
    assert entry.section is not None
    if entry.section == DEFAULT_SECTION:
        return
    option = ctx.schema.file_option(entry.section, entry.option)
    if option is None:
        unknown_entry(ctx, source, entry)
        return
    setting = ctx.config.settings[canonical_name(option)]
    if not (setting.origin.source == "file" and setting.origin.file == source.path
            and setting.origin.line == entry.line):
        return  # overridden elsewhere: conflicting-values says so
    value_problems(ctx, setting, entry)


def _moved_fix(ctx: Context, target: Mapping[str, Any], value: str) -> str:
    """The lines that put a misplaced setting where Theano reads it. blas.ldflags gets
    the flags theanorc --write writes, so check and the written file never disagree
    (whether the user's own -l libraries link is not known); their own flags are named."""
    if canonical_name(target) != "blas.ldflags":
        return _fix_for_option(target, value)
    flags, _why = machine.blas_choice(ctx.record)
    fix = _fix_for_option(target, flags)
    own = " ".join(value.split())  # one line: a continuation line would leave the comment
    if own != flags:
        fix += "\n" + tr("# or your own flags (%s), once g++ links a test program with them") % own
    return fix


def unknown_entry(ctx: Context, source: SourceFile, entry: Entry) -> None:
    section, option, value = str(entry.section), entry.option, entry.value
    where = "%s: %s" % (tr("%s line %d") % (source.path, entry.line), _quote(entry.text))
    ignored = tr("Theano ignores unknown sections and options in config files without a word")
    # a dotted name: the part before the last dot is the section in Theano's lookup
    if "." in option or "__" in option:
        dotted_option = option.replace("__", ".")
        full = dotted_option if section == "global" else "%s.%s" % (section.replace("__", "."), dotted_option)
        if full.lower().startswith("global."):
            full = full[len("global."):]
        target = ctx._by_canonical_ci(full)
        if target is not None:
            kind = "dotted-key-in-global" if section == "global" else "unknown-option"
            ctx.add(
                kind, "warning",
                tr("%s does nothing: Theano looks %s up as %s, so under [%s] it is never read (%s).") % (
                    where, canonical_name(target), _where_option(target, ctx.schema.dunder), section, ignored),
                _moved_fix(ctx, target, value), file=source.path, line=entry.line, section=section,
                option=entry.raw_option, value=value, did_you_mean=canonical_name(target),
            )
            return
    dotted = "%s.%s" % (section, option) if section != "global" else option
    hit = suggest_file(section, option, value, ctx.schema)
    gone = removed_in(dotted, ctx.schema) or removed_in(ctx._canonical_ci(dotted), ctx.schema)
    info = removed_info(dotted)
    if gone:
        if hit is not None and hit.how not in ("advice", "removed"):
            hit = None  # a spelling guess is no replacement for a removed option
        why = (info or {}).get("why", "")
        message = tr("%s does nothing: %s was removed in %s, and %s.%s") % (
            where, ctx._written(section, entry.raw_option), gone, ignored, " %s." % why if why else "")
        if hit is not None:
            message += tr(" Use %s instead.") % _where_option(hit.option, ctx.schema.dunder)
        else:
            message += tr(" Delete the line.")
        fix = _moved_fix(ctx, hit.option, hit.value or value) if hit is not None else ""
        ctx.add("removed-option", "warning", message, fix, file=source.path, line=entry.line, section=section,
                 option=entry.raw_option, value=value, did_you_mean=hit.canonical if hit else None)
        return
    message = tr("%s does nothing: %s has no option %s, and %s.") % (
        where, ctx.release_name, ctx._written(section, entry.raw_option), ignored)
    if hit is not None:
        fix_value = hit.value or value
        message += tr(" Use %s instead%s.") % (
            _where_option(hit.option, ctx.schema.dunder), ": " + hit.why if hit.why else "")
        ctx.add("unknown-option", "warning", message, _moved_fix(ctx, hit.option, fix_value), file=source.path,
                 line=entry.line, section=section, option=entry.raw_option, value=value, did_you_mean=hit.canonical)
    else:
        message += tr(" Delete the line.")
        ctx.add("unknown-option", "warning", message, "", file=source.path, line=entry.line, section=section,
                 option=entry.raw_option, value=value)
