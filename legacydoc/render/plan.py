"""The plan as text (terminal), markdown (PLAN.md) and JSON, for one shell family."""

from __future__ import annotations

import json

from legacydoc.i18n import tr
from legacydoc.plan.planner import Plan, Step, requirement
from legacydoc.shells import family

_OS = {"windows": "Windows", "linux": "Linux", "darwin": "macOS"}


def step_lines(step: Step, shell: str) -> list[str]:
    commands = step.commands
    want = family(shell)
    return list(commands.get(want) or commands.get("bash") or [])


def title(step: Step) -> str:
    """The step's title in the current language (its template translated, then filled)."""
    return tr(step.template) % step.args if step.template else tr(step.title)


def headline(plan: Plan) -> str:
    if plan.keep_env:
        where = tr("keep this environment (Python %s)") % plan.python
    else:
        where = tr("a new %s environment with Python %s") % (plan.env_kind, plan.python)
        if plan.python_now:
            where += tr(" (this one has %s)") % plan.python_now
    return tr("%s on %s: %s; device = %s") % (plan.theano, _OS.get(plan.os, plan.os), where, plan.device)


def steps_text(plan: Plan, shell: str, indent: str = "  ") -> list[str]:
    out = []
    for number, step in enumerate(plan.steps, 1):
        out.append("%s%d. %s%s" % (indent, number, title(step), "  " + tr("[manual]") if step.manual else ""))
        for line in step_lines(step, shell):
            out.append("%s     %s" % (indent, line))
    return out


def render_plan_text(plan: Plan, shell: str) -> str:
    out = ["%s %s" % (tr("The plan:"), headline(plan)), ""]
    out.append(tr("Pins (why):"))
    width = max(len(n) + len(p) for n, p in plan.packages.items()) + 2
    for name, pin in list(plan.packages.items()) + list(plan.conda_packages.items()):
        shown = requirement(name, pin)
        out.append("  %s  %s" % (shown.ljust(width), plan.reasons.get(name, "")))
    if "python" in plan.reasons:
        out.append("  %s  %s" % (("python " + plan.python).ljust(width), plan.reasons["python"]))
    out += ["", tr("Steps (for %s):") % shell]
    out += steps_text(plan, shell)
    if plan.env:
        out += ["", tr("Environment variables:") + " " + ", ".join(
            "%s=%s" % (name, value) if value else name + " " + tr("(cleared)") for name, value in plan.env.items())]
    if plan.cannot:
        out += ["", tr("Will not work yet:")] + ["  - " + c for c in plan.cannot]
    if plan.notes:
        out += ["", tr("Notes:")] + ["  - " + n for n in plan.notes]
    out += ["", tr("The .theanorc it writes:")] + ["  " + line if line else "" for line in plan.theanorc.splitlines()]
    return "\n".join(out) + "\n"


def render_plan_markdown(plan: Plan, shell: str) -> str:
    out = ["# The legacydoc plan", "", headline(plan) + ".", "", "## Pins and why", "",
           "| package | pin | why |", "|---|---|---|"]
    for name, pin in list(plan.packages.items()) + list(plan.conda_packages.items()):
        out.append("| %s | `%s` | %s |" % (name, pin, plan.reasons.get(name, "").replace("|", "\\|")))
    out.append("| python | `%s` | %s |" % (plan.python, plan.reasons.get("python", "").replace("|", "\\|")))
    out += ["", "## Steps (%s)" % shell, ""]
    for number, step in enumerate(plan.steps, 1):
        out.append("%d. **%s**%s: %s" % (number, step.title, " (manual)" if step.manual else "", step.why))
        lines = step_lines(step, shell)
        if lines:
            out += ["", "   ```", *("   " + line for line in lines), "   ```"]
    if plan.cannot:
        out += ["", "## Will not work yet", ""] + ["- " + c for c in plan.cannot]
    if plan.notes:
        out += ["", "## Notes", ""] + ["- " + n for n in plan.notes]
    out += ["", "Wheel availability: legacydoc's table generated %s from PyPI." % plan.wheels_generated]
    return "\n".join(out) + "\n"


def render_plan_json(plan: Plan) -> str:
    return json.dumps(plan.to_dict(), indent=2, ensure_ascii=False)
