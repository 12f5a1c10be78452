"""``legacydoc diff`` output: fixed, new and remaining findings, then the facts that changed."""

from __future__ import annotations

import json
from typing import Any

from legacydoc.render.check_markdown import md_cell
from legacydoc.reportdiff import Diff, FactChange, shown

NOT_RECORDED = "(not recorded)"


def _finding(f: dict[str, str]) -> str:
    return "%s %-7s %s" % (f["id"], f["severity"], f["title"])


def _change(c: FactChange) -> str:
    old = NOT_RECORDED if c.old is None else shown(c.old)
    new = NOT_RECORDED if c.new is None else shown(c.new)
    return "%s: %s -> %s" % (c.name, old, new)


def render_text(d: Diff, color: bool = False) -> str:
    lines = ["legacydoc diff", "  old: %s" % d.old.source, "       %s" % d.old.verdict,
             "  new: %s" % d.new.source, "       %s" % d.new.verdict]
    for title, items in (("Fixed", d.fixed), ("New", d.added), ("Remaining", d.remaining)):
        lines += ["", "%s (%d)" % (title, len(items))]
        lines += ["  " + _finding(f) for f in items] or ["  none"]
    lines += ["", "Facts that changed (%d)" % (len(d.changes) + d.changes_left_out)]
    lines += ["  " + _change(c) for c in d.changes] or ["  none"]
    if d.changes_left_out:
        lines.append("  ... and %d more (--format json has the first ones too)" % d.changes_left_out)
    return "\n".join(lines)


def render_markdown(d: Diff, color: bool = False) -> str:
    lines = ["# legacydoc diff", "", "- old: `%s`: %s" % (d.old.source, d.old.verdict),
             "- new: `%s`: %s" % (d.new.source, d.new.verdict)]
    for title, items in (("Fixed", d.fixed), ("New", d.added), ("Remaining", d.remaining)):
        lines += ["", "## %s (%d)" % (title, len(items)), ""]
        lines += ["- **%s** (%s) %s" % (f["id"], f["severity"], md_cell(f["title"])) for f in items] or ["none"]
    lines += ["", "## Facts that changed", ""]
    if d.changes:
        lines += ["| fact | old | new |", "|---|---|---|"]
        lines += ["| `%s` | %s | %s |" % (c.name, md_cell(NOT_RECORDED if c.old is None else shown(c.old)),
                                        md_cell(NOT_RECORDED if c.new is None else shown(c.new))) for c in d.changes]
    else:
        lines.append("none")
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
