"""`check` for a terminal: a status line per area, then findings root cause first."""

from __future__ import annotations

from legacydoc.checkup import CheckResult
from legacydoc.engine import Diagnosis
from legacydoc.i18n import current, tr
from legacydoc.render.alternatives import alternatives_note, telling_apart
from legacydoc.render.columns import unfold, width, wrap

# Plain ASCII marks: they survive every Windows console code page (cp936 included).
MARKS = {"ok": "[ ok ]", "warning": "[warn]", "error": "[FAIL]", "unknown": "[ ?? ]"}
COLORS = {"ok": "32", "warning": "33", "error": "31", "unknown": "35", "info": "36"}


def _paint(text: str, status: str, color: bool) -> str:
    return "\033[%sm%s\033[0m" % (COLORS[status], text) if color and status in COLORS else text


def _wrap(text: str, indent: str, columns: int = 88) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n\n"):
        lines.extend(wrap(unfold(para), columns, indent, indent))
    return lines


def _diagnosis(diag: Diagnosis, number: str, color: bool, indent: str = "") -> list[str]:
    label = tr({"error": "ERROR", "warning": "WARNING", "info": "INFO"}[diag.severity])
    head = "%s%s %s %s [%s %s]" % (indent, number, _paint(label, diag.severity, color), diag.title, diag.id, diag.name)
    out = [head]
    pad = indent + "   "
    note = alternatives_note(diag)
    if note:
        out.extend(_wrap(note, pad))
        apart = telling_apart(diag)
        if apart:
            out.append(pad + tr("What tells them apart:"))
            for line in apart:
                out.extend(wrap(unfold(line), 88, pad + "  - ", pad + "    "))
    out.extend(_wrap(diag.why, pad))
    seen = diag.evidence.get("log") if isinstance(diag.evidence, dict) else None
    if seen:
        out.append(pad + tr("Seen in the log:"))
        out.extend(pad + "  " + line for line in seen)
    if diag.fix:
        out.append(pad + tr("Fix:"))
        for step in diag.fix:
            for i, line in enumerate(step.splitlines() or [""]):
                out.append(pad + ("  - " if i == 0 else "    ") + line)
    if diag.folded:
        out.append(pad + tr("This also explains:"))
    for j, echo in enumerate(diag.folded, 1):
        out.extend(_diagnosis(echo, "%s%d." % (number, j), color, pad))
    return out


def _counts(checked: int, problems: int, undecided: int) -> str:
    if current() == "zh":
        text = "%d 项检查" % checked
        text += "，%d 个问题" % problems if problems else ""
        return text + ("，%d 项无法判定" % undecided if undecided else "")
    text = "%d check%s" % (checked, "" if checked == 1 else "s")
    if problems:
        text += ", %d problem%s" % (problems, "" if problems == 1 else "s")
    return text + (", %d undecided" % undecided if undecided else "")


def render_check_text(result: CheckResult, color: bool = False) -> str:
    out = ["legacydoc check: %s" % result.source, ""]
    titles = {a.name: tr(a.title) for a in result.areas}
    title_columns = max(width(t) for t in titles.values())
    fired = {d.id for d in result.every()}
    by_log: set[str] = set()  # the rules a --log can fire
    if result.verbose:
        from legacydoc.messages import catalogue

        by_log = {rule for message in catalogue() for rule in message.rules}
    for area in result.areas:
        counts = _counts(area.checked, area.problems, len(area.undecided))
        if area.note:
            detail = "%s: %s (%s)" % (tr("unknown"), area.note, counts)
        elif area.summary:
            detail = "%s (%s)" % (area.summary, counts)
        else:
            detail = counts
        title = titles[area.name] + " " * (title_columns - width(titles[area.name]))
        out.append("  %s %s  %s" % (_paint(MARKS[area.status], area.status, color), title, detail))
        if result.verbose:
            for rule_id in area.rules:
                if rule_id in fired:
                    state = tr("fired")
                elif rule_id in area.log_only:
                    state = tr("reads the log (--log)")
                elif rule_id in area.reads_project:
                    state = (tr("reads the project's code (--project) and the log (--log)") if rule_id in by_log
                             else tr("reads the project's code (--project)"))
                elif rule_id in area.undecided:
                    missing = ", ".join(area.undecided[rule_id][:4])
                    state = tr("undecided") + (": %s: %s" % (tr("not recorded"), missing) if missing else "")
                else:
                    state = tr("passed")
                out.append("  %s %s %s" % (" " * (len(MARKS["ok"]) + title_columns + 2), rule_id, state))
    out.append("")
    if result.diagnoses:
        out.append(tr("Findings, root cause first:"))
        out.append("")
        for n, diag in enumerate(result.diagnoses, 1):
            out.extend(_diagnosis(diag, "%d." % n, color))
            out.append("")
    out += log_lines(result)
    out.append(result.runs_on())
    label = tr("Verdict:")
    out.append(label + ("" if label.endswith("：") else " ") + result.verdict())  # no space after a full-width colon
    out += _plan_lines(result)
    return "\n".join(out)


def _plan_lines(result: CheckResult) -> list[str]:
    """The plan, last: numbered steps, the ones that unblock most first (legacydoc plan has more)."""
    from legacydoc.render.plan import headline, steps_text

    if result.plan is None:
        return ["", "%s %s" % (tr("The plan:"), result.plan_error)] if result.plan_error else []
    out = ["", "%s %s" % (tr("The plan:"), headline(result.plan))]
    out += steps_text(result.plan, result.shell)
    out.append(tr("(legacydoc plan -o DIR writes it as files: requirements.txt, environment.yml, theanorc, PLAN.md)"))
    return out


def log_lines(result: CheckResult, bullet: str = "  ") -> list[str]:
    """The log's messages that no finding explains, with the checks that could not decide."""
    from legacydoc.unsettled import MAX_SHOWN

    if not result.log_unexplained:
        return []
    out = [tr("In the log, but not explained by these facts:"), ""]
    for item in result.log_unexplained[:MAX_SHOWN]:
        out.append("%s%s: %s" % (bullet, where_in_log(item), item["message"]))
        out.extend(_wrap(item["text"], bullet + "   "))
        for line in undecided_lines(item):
            out.extend(_wrap(line, bullet + "   "))
    more = len(result.log_unexplained) - MAX_SHOWN
    if more > 0:
        out.append(bullet + tr("... and %d more (--format json lists them all)") % more)
    out.append("")
    out += _wrap(explain_hint(result), "")
    out.append("")
    return out


def where_in_log(item: dict) -> str:
    line = item.get("line")
    return tr("line %d") % line if isinstance(line, int) and line > 0 else tr("in the log")


def explain_hint(result: CheckResult) -> str:
    """The explain command that goes further: the --log file (LOG for standard input or a
    log that came inside the record), and the record replayed (explain then weighs each
    cause against it)."""
    log = _quoted(result.log_file) if result.log_file else "LOG"
    if not result.facts_file:
        return tr("legacydoc explain %s lists each message's causes and what tells them apart; "
                  "the unknown facts named above would settle them.") % log
    return tr("legacydoc explain %s --facts %s weighs each message's causes against this record; "
              "the unknown facts named above would settle them.") % (log, _quoted(result.facts_file))


def _quoted(path: str) -> str:
    return '"%s"' % path if any(c.isspace() for c in path) else path


def undecided_lines(item: dict) -> list[str]:
    """What could not settle a log message: the rules undecided (and the facts they lacked),
    and those the facts ruled out."""
    out = []
    if item["undecided"]:
        rules = ", ".join(item["undecided"])
        facts = ", ".join(item.get("unknown_facts") or [])
        out.append(tr("undecided: %s (unknown: %s)") % (rules, facts) if facts else tr("undecided: %s") % rules)
    if item["ruled_out"]:
        out.append(tr("ruled out by the facts: %s") % ", ".join(item["ruled_out"]))
    if item.get("need_another_message"):
        out.append(tr("these fire only on a message that is not in the log: %s")
                   % ", ".join(item["need_another_message"]))
    return out
