"""`check --format markdown`: paste-ready for a ticket or a GitHub issue."""

from __future__ import annotations

import re

from legacydoc import facts as facts_module
from legacydoc.checkup import CheckResult
from legacydoc.engine import Diagnosis
from legacydoc.i18n import tr
from legacydoc.render.alternatives import alternatives_note, telling_apart

STATUS_WORDS = {"ok": "ok", "warning": "warning", "error": "**error**", "unknown": "unknown"}


_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def _escape(text: str) -> str:
    # A backslash before punctuation would be eaten (<home>\.theanorc); "<" would start
    # an HTML tag GitHub drops (<user>); lone _ and * would start emphasis.
    text = re.sub(r"\\(?=[!-/:-@\[-`{-~])", r"\\\\", text)
    text = text.replace("<", "\\<").replace("*", "\\*")
    return re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)


def md_text(text: str) -> str:
    """Prose for markdown: code spans kept as they are, everything else escaped."""
    out, pos = [], 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_escape(text[pos : match.start()]))
        out.append(match.group(0))
        pos = match.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


def md_cell(text: str) -> str:
    """Text inside a markdown table cell: a '|' would end the cell, a newline the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _fence(text: str, lang: str = "") -> list[str]:
    # A fence longer than any backtick run inside keeps the block intact.
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    ticks = "`" * max(3, longest + 1)
    return [ticks + lang, text, ticks]


def _diagnosis(diag: Diagnosis, level: int) -> list[str]:
    title, why = md_text(diag.title), md_text(diag.why)
    label = tr({"error": "ERROR", "warning": "WARNING", "info": "INFO"}[diag.severity])
    out = ["%s %s: %s" % ("#" * level, label, title), "", "`%s` %s" % (diag.id, diag.name), ""]
    note = alternatives_note(diag)
    if note:
        out.extend([md_text(note), ""])
        apart = telling_apart(diag)
        if apart:
            out.extend([tr("What tells them apart:"), "", *("- " + md_text(line) for line in apart), ""])
    out.extend([why, ""])
    if diag.fix:
        out.append(tr("Fix:"))
        out.append("")
        out.extend(_fence("\n".join(diag.fix)))
        out.append("")
    for echo in diag.folded:
        out.extend(_diagnosis(echo, min(level + 1, 6)))
    return out


def _plan(result: CheckResult) -> list[str]:
    from legacydoc.render.plan import headline, step_lines
    from legacydoc.render.plan import title as step_title

    title = "### %s" % tr("The plan:").rstrip(":：")
    if result.plan is None:
        return [title, "", md_text(result.plan_error), ""] if result.plan_error else []
    out = [title, "", md_text(headline(result.plan)), ""]
    for number, step in enumerate(result.plan.steps, 1):
        out.append("%d. %s%s" % (number, md_text(step_title(step)), " " + tr("[manual]") if step.manual else ""))
        lines = step_lines(step, result.shell)
        if lines:
            out.extend(["", *("   " + line for line in _fence("\n".join(lines), "")), ""])
    out.append("")
    return out


def _log(result: CheckResult) -> list[str]:
    """The log's messages no finding explains (legacydoc.unsettled)."""
    from legacydoc.render.check_text import explain_hint, undecided_lines, where_in_log
    from legacydoc.unsettled import MAX_SHOWN

    if not result.log_unexplained:
        return []
    out = ["### %s" % tr("In the log, but not explained by these facts:").rstrip(":："), ""]
    for item in result.log_unexplained[:MAX_SHOWN]:
        out.append("- %s: `%s`: %s" % (md_text(where_in_log(item)), item["message"], md_text(item["text"])))
        out.extend("  - " + md_text(line) for line in undecided_lines(item))
    more = len(result.log_unexplained) - MAX_SHOWN
    if more > 0:
        out.append("- " + md_text(tr("... and %d more (--format json lists them all)") % more))
    out += ["", md_text(explain_hint(result)), ""]
    return out


def render_check_markdown(result: CheckResult, color: bool = False) -> str:
    out = ["## legacydoc check", "", "**%s** " % tr("Verdict:") + md_text(result.verdict()), "",
           md_text(result.runs_on()), ""]
    out.extend(["| %s | %s | %s | %s |" % (tr("area"), tr("status"), tr("found"), tr("checks")), "|---|---|---|---|"])
    for area in result.areas:
        word = STATUS_WORDS[area.status]
        word = word if word.startswith("*") else tr(word)
        status = word + (" (%s)" % md_cell(md_text(area.note)) if area.note else "")
        found = md_cell(md_text(area.summary))
        out.append("| %s | %s | %s | %d |" % (tr(area.title), status, found, area.checked))
    out.append("")
    for diag in result.diagnoses:
        out.extend(_diagnosis(diag, 3))
    out.extend(_log(result))
    out.extend(_plan(result))
    record = {k: v for k, v in result.facts.items() if k not in ("derived", "plan")}
    out.extend(["<details><summary>%s</summary>" % tr("Facts (TOML)"), ""])
    out.extend(_fence(facts_module.dumps(record).rstrip("\n"), "toml"))
    out.extend(["", "</details>", ""])
    return "\n".join(out)
