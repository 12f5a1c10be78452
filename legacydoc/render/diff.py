"""``legacydoc diff`` output: fixed, new and remaining findings, then the facts that changed."""

from __future__ import annotations

import json
from typing import Any

from legacydoc.i18n import N_, tr
from legacydoc.render.check_markdown import md_cell
from legacydoc.render.columns import width
from legacydoc.reportdiff import Diff, FactChange, shown

NOT_RECORDED = N_("(not recorded)")
SEVERITIES = {"error": N_("error"), "warning": N_("warning"), "info": N_("info")}


def _severity(f: dict[str, str]) -> str:
    return tr(SEVERITIES[f["severity"]]) if f["severity"] in SEVERITIES else f["severity"]


def _sections(d: Diff) -> tuple[tuple[str, list[dict[str, str]]], ...]:
    return ((tr("Fixed (%d)"), d.fixed), (tr("New (%d)"), d.added), (tr("Remaining (%d)"), d.remaining))


def _value(value: object) -> str:
    return tr(NOT_RECORDED) if value is None else shown(value)


def _finding(f: dict[str, str]) -> str:
    severity = _severity(f)
    return "%s %s %s" % (f["id"], severity + " " * (7 - width(severity)), f["title"])


def _change(c: FactChange) -> str:
    return "%s: %s -> %s" % (c.name, _value(c.old), _value(c.new))


def _side(template: str, source: str, verdict: str) -> list[str]:
    """'  old: SOURCE' and its verdict below, under the source."""
    said = tr(template)
    return ["  " + said % source, "  " + " " * width(said.split("%s")[0]) + verdict]


def render_text(d: Diff, color: bool = False) -> str:
    lines = ["legacydoc diff"]
    lines += _side(N_("old: %s"), d.old.source, d.old.verdict) + _side(N_("new: %s"), d.new.source, d.new.verdict)
    for title, items in _sections(d):
        lines += ["", title % len(items)]
        lines += ["  " + _finding(f) for f in items] or ["  " + tr("none")]
    lines += ["", tr("Facts that changed (%d)") % (len(d.changes) + d.changes_left_out)]
    lines += ["  " + _change(c) for c in d.changes] or ["  " + tr("none")]
    if d.changes_left_out:
        lines.append("  " + tr("... and %d more (--format json has the first ones too)") % d.changes_left_out)
    return "\n".join(lines)


def render_markdown(d: Diff, color: bool = False) -> str:
    lines = ["# legacydoc diff", "", "- " + tr("old: `%s`: %s") % (d.old.source, d.old.verdict),
             "- " + tr("new: `%s`: %s") % (d.new.source, d.new.verdict)]
    for title, items in _sections(d):
        lines += ["", "## " + title % len(items), ""]
        lines += [tr("- **%s** (%s) %s") % (f["id"], _severity(f), md_cell(f["title"])) for f in items] or [tr("none")]
    lines += ["", "## " + tr("Facts that changed"), ""]
    if d.changes:
        lines += [tr("| fact | old | new |"), "|---|---|---|"]
        lines += ["| `%s` | %s | %s |" % (c.name, md_cell(_value(c.old)), md_cell(_value(c.new))) for c in d.changes]
    else:
        lines.append(tr("none"))
    return "\n".join(lines)


def render_json(d: Diff, color: bool = False) -> str:
    def side(s: Any) -> dict[str, Any]:
        return {"source": s.source, "verdict": s.verdict}

    data = {
        "old": side(d.old), "new": side(d.new),
        "fixed": d.fixed, "new_findings": d.added, "remaining": d.remaining,
        "fact_changes": [{"fact": c.name, "old": c.old, "new": c.new} for c in d.changes],
        "fact_changes_left_out": d.changes_left_out,
    }
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)
