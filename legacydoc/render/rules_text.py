"""`legacydoc rules` and `rules explain`: the rules document themselves."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence

from legacydoc.engine import LAYERS, Rule


def render_rule_list(rules: Sequence[Rule]) -> str:
    ordered = sorted(rules, key=lambda r: (LAYERS.index(r.layer), r.id))
    width = max((len(r.name) for r in ordered), default=4)
    lines = ["%-7s %-*s %-8s %-12s %s" % ("id", width, "name", "severity", "layer", "title")]
    for rule in ordered:
        lines.append("%-7s %-*s %-8s %-12s %s" % (rule.id, width, rule.name, rule.severity, rule.layer, rule.title))
    lines.append("")
    lines.append("%d rules. 'legacydoc rules explain ID' prints one in full." % len(ordered))
    return "\n".join(lines)


def _condition_text(cond: object) -> str:
    return json.dumps(cond, ensure_ascii=False)


def render_rule(rule: Rule) -> str:
    out = [
        "%s  %s" % (rule.id, rule.name),
        "severity: %s    layer: %s    area: %s" % (rule.severity, rule.layer, rule.area),
        "",
        rule.title,
        "",
    ]
    for para in rule.why.split("\n\n"):
        out.extend(textwrap.wrap(" ".join(para.split()), width=88))
        out.append("")
    out.append("Fix:")
    for step in rule.fix:
        if isinstance(step, str):
            out.append("  - " + step.replace("\n", "\n    "))
        else:  # one line per shell
            out.extend("  - %s: %s" % (shell, line) for shell, line in step.items())
    out.append("")
    if rule.for_each:
        out.append("For each item of: " + rule.for_each)
    if rule.log_only:
        out.append("Fires when: a message in the log (check --log) or in the import check's errors is evidence for it")
        if rule.unless:
            out.append("Unless: " + _condition_text(rule.unless))
    else:
        out.append("Fires when: " + _condition_text(rule.when))
    if rule.explains:
        out.append("Explains (folds): " + ", ".join(rule.explains))
    if rule.references:
        out.append("References:")
        out.extend("  - " + ref for ref in rule.references)
    out.append("Defined in: " + rule.source)
    return "\n".join(out)
