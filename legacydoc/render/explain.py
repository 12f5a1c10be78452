"""`legacydoc explain` as terminal text, JSON or Markdown (legacydoc.explain)."""

from __future__ import annotations

import json
import re
from typing import Any

from legacydoc.explain import CONFIRMED, Explanation, Found, RuleRef
from legacydoc.i18n import tr

EXPLAIN_SCHEMA = 1


def _rule_words(ref: RuleRef) -> str:
    return "%s %s: %s" % (ref.id, ref.name, tr(ref.status))


def _header(exp: Explanation) -> str:
    n = len(exp.found)
    what = (tr("%d known message") if n == 1 else tr("%d known messages")) % n if n else tr("no known message")
    cut = tr(", the middle skipped") if exp.truncated else ""
    return tr("%s: %s (%s, %d lines%s)") % (exp.source, what, exp.encoding, exp.lines, cut)


def _quoted(path: str) -> str:
    """A path as one shell word: double quotes work in bash, zsh, cmd and PowerShell."""
    return path if re.fullmatch(r"[\w./\\:+=@-]+", path) else '"%s"' % path.replace('"', '\\"')


def _settle_text(exp: Explanation, markdown: bool = False) -> list[str]:
    """What the reader can do next: without facts, the check that settles the causes."""
    ids = []
    for found in exp.found:
        for cause in found.causes:
            ids += [r.id for r in cause.rules if r.id not in ids]
    if not exp.found:
        from legacydoc.messages import catalogue

        return [tr("None of the %d error messages legacydoc knows is in this input; `legacydoc check` still "
                   "checks the machine itself.") % len(catalogue())]
    code = "`" if markdown else ""
    if exp.facts_source:
        confirmed = sorted({r.id for f in exp.found for c in f.causes for r in c.rules if r.status == CONFIRMED})
        out = [tr("Checked against %s.") % exp.facts_source]
        named = ", ".join(confirmed) if confirmed else tr("none of the causes")
        out.append(tr("Confirmed by the facts: %s.") % named)
        return out
    out = [tr("Without facts about the machine, legacydoc cannot tell these causes apart.")]
    if ids:
        if exp.source in ("stdin", "--text"):
            where, note = "FILE", tr(" (save the error output to FILE first)")
        else:
            where, note = _quoted(exp.source), ""
        out.append(tr("On the machine that failed, run %slegacydoc check --log %s%s%s: it settles them with %s.")
                   % (code, where, code, note, ", ".join(ids)))
    return out


def _found_lines(n: int, found: Found) -> list[str]:
    m = found.message
    lines = [tr("%d) line %d: %s") % (n, found.line, found.text),
             tr("   message:  %s (%s)") % (m.id, m.tool)]
    if m.releases:
        lines.append(tr("   printed by: %s") % m.releases)
    lines.append(tr("   source:   %s") % m.source)
    lines.append(tr("   means:    %s") % m.meaning)
    if found.causes:
        lines.append(tr("   likely causes, most likely first:"))
        for k, cause in enumerate(found.causes, 1):
            rules = "; ".join(_rule_words(r) for r in cause.rules)
            lines.append("     %d. %s%s" % (k, cause.text, " [%s]" % rules if rules else ""))
    if m.tells_apart:
        lines.append(tr("   what tells them apart:"))
        lines += ["     - %s" % t for t in m.tells_apart]
    if m.fixes:
        lines.append(tr("   fix:"))
        lines += ["     - %s" % f for f in m.fixes]
    if m.reports:
        lines.append(tr("   reported at: %s") % ", ".join(m.reports[:3]))
    return lines


def render_text(exp: Explanation, color: bool = False) -> str:
    lines = [_header(exp), ""]
    for n, found in enumerate(exp.found, 1):
        lines += _found_lines(n, found) + [""]
    lines += _settle_text(exp)
    return "\n".join(lines) + "\n"


def _ref_json(ref: RuleRef) -> dict[str, Any]:
    return {"id": ref.id, "name": ref.name, "status": ref.status}


def render_json(exp: Explanation, color: bool = False) -> str:
    data = {
        "schema": EXPLAIN_SCHEMA,
        "source": exp.source,
        "encoding": exp.encoding,
        "lines": exp.lines,
        "truncated": exp.truncated,
        "recognised": exp.recognised,
        "facts": exp.facts_source or None,
        "messages": [
            {
                "id": f.message.id,
                "line": f.line,
                "text": f.text,
                "tool": f.message.tool,
                "releases": f.message.releases,
                "source": f.message.source,
                "meaning": f.message.meaning,
                "causes": [
                    {"cause": c.cause, "text": c.text, "rules": [_ref_json(r) for r in c.rules]} for c in f.causes
                ],
                "tells_apart": list(f.message.tells_apart),
                "fixes": list(f.message.fixes),
                "reports": list(f.message.reports),
            }
            for f in exp.found
        ],
        "points_at": [_ref_json(r) for r in exp.points_at],
        "next": _settle_text(exp),
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


def render_markdown(exp: Explanation, color: bool = False) -> str:
    lines = ["# legacydoc explain", "", _header(exp), ""]
    for n, found in enumerate(exp.found, 1):
        m = found.message
        lines += ["## %d. `%s`" % (n, m.id), "", tr("Line %d:") % found.line, "", "```", found.text, "```", ""]
        lines += [tr("**Means:** %s") % m.meaning, "",
                  tr("Printed by %s (%s). Source: %s") % (m.tool, m.releases or "-", m.source), ""]
        if found.causes:
            lines.append(tr("**Likely causes, most likely first:**"))
            lines.append("")
            for k, cause in enumerate(found.causes, 1):
                rules = ", ".join("%s (%s)" % (r.id, tr(r.status)) for r in cause.rules)
                lines.append("%d. %s%s" % (k, cause.text, " — %s" % rules if rules else ""))
            lines.append("")
        if m.tells_apart:
            lines += [tr("**What tells them apart:**"), ""] + ["- %s" % t for t in m.tells_apart] + [""]
        if m.fixes:
            lines += [tr("**Fix:**"), ""] + ["- %s" % f for f in m.fixes] + [""]
    lines += _settle_text(exp, markdown=True)
    return "\n".join(lines) + "\n"

