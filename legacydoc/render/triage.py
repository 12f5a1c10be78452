"""``legacydoc triage`` output: counts per dimension, then the refused files."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from legacydoc.i18n import current, tr
from legacydoc.render.check_markdown import md_cell
from legacydoc.triage import DIMENSIONS, Triage


def _header(t: Triage) -> str:
    records = len(t.entries)
    line = (tr("%d record diagnosed, %d refused") if records == 1
            else tr("%d records diagnosed, %d refused")) % (records, len(t.refused))
    if t.other_files:
        line += (tr(", %d other TOML file skipped (no facts record)") if t.other_files == 1
                 else tr(", %d other TOML files skipped (no facts record)")) % t.other_files
    if t.skipped:
        line += tr(", %d more files not read (over the limit)") % t.skipped
    return line


def render_text(t: Triage, color: bool = False) -> str:
    lines = [tr("legacydoc triage: %s") % _header(t)]
    counts = t.counts()
    shown = t.shown_values()
    total = len(t.entries) or 1
    for name, title in DIMENSIONS if t.entries else ():
        lines += ["", tr(title)]
        for value, count in counts[name]:
            lines.append("  %5d  %3d%%  %s" % (count, round(100 * count / total), shown.get((name, value), value)))
    if t.refused:
        lines += ["", tr("Refused (each on its own; the others were read)")]
        lines += ["  %s: %s" % (r.path, r.shown or r.why) for r in t.refused]
    return "\n".join(lines)


def render_markdown(t: Triage, color: bool = False) -> str:
    lines = ["# legacydoc triage", "", _header(t) + ("。" if current() == "zh" else ".")]
    counts = t.counts()
    shown = t.shown_values()
    total = len(t.entries) or 1
    for name, title in DIMENSIONS:
        lines += ["", "## " + tr(title), "", tr("| count | share | value |"), "|---:|---:|---|"]
        lines += ["| %d | %d%% | %s |" % (c, round(100 * c / total), md_cell(shown.get((name, v), v)))
                  for v, c in counts[name]]
    if t.refused:
        lines += ["", "## " + tr("Refused"), "", tr("| file | why |"), "|---|---|"]
        lines += ["| %s | %s |" % (md_cell(r.path), md_cell(r.shown or r.why)) for r in t.refused]
    return "\n".join(lines)


def render_csv(t: Triage, color: bool = False) -> str:
    """One row per record: a spreadsheet counts and filters it as the desk likes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["file", "status", "errors", "warnings"] + [name for name, _t in DIMENSIONS])
    for e in t.entries:
        writer.writerow([e.path, "read", e.errors, e.warnings] + [e.values[name] for name, _t in DIMENSIONS])
    for r in t.refused:
        writer.writerow([r.path, "refused: " + r.why, "", ""] + [""] * len(DIMENSIONS))
    return out.getvalue().rstrip("\n")


def render_json(t: Triage, color: bool = False) -> str:
    data: dict[str, Any] = {
        "records": len(t.entries),
        "refused": [{"file": r.path, "why": r.why} for r in t.refused],
        "not_read_over_limit": t.skipped,
        "other_files": t.other_files,
        "counts": {name: [{"value": v, "count": c} for v, c in t.counts()[name]] for name, _t in DIMENSIONS},
        "entries": [{"file": e.path, "errors": e.errors, "warnings": e.warnings, **e.values} for e in t.entries],
    }
    return json.dumps(data, indent=2, ensure_ascii=False)
