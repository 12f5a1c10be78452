"""`check --format markdown`: paste-ready for a ticket or a GitHub issue."""

from __future__ import annotations

from legacydoc import facts as facts_module
from legacydoc.checkup import CheckResult
from legacydoc.engine import Diagnosis

STATUS_WORDS = {"ok": "ok", "warning": "warning", "error": "**error**", "unknown": "unknown"}


def _fence(text: str, lang: str = "") -> list[str]:
    # A fence longer than any backtick run inside keeps the block intact.
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    ticks = "`" * max(3, longest + 1)
    return [ticks + lang, text, ticks]


def _diagnosis(diag: Diagnosis, level: int) -> list[str]:
    out = ["%s %s: %s" % ("#" * level, diag.severity.upper(), diag.title), "", "`%s` %s" % (diag.id, diag.name), "", diag.why, ""]
    if diag.fix:
        out.append("Fix:")
        out.append("")
        out.extend(_fence("\n".join(diag.fix)))
        out.append("")
    for echo in diag.folded:
        out.extend(_diagnosis(echo, min(level + 1, 6)))
    return out


def render_check_markdown(result: CheckResult) -> str:
    out = ["## legacydoc check", "", "**Verdict:** " + result.verdict(), "", result.runs_on(), "", "| area | status | checks |", "|---|---|---|"]
    for area in result.areas:
        out.append("| %s | %s | %d |" % (area.title, STATUS_WORDS[area.status], area.checked))
    out.append("")
    for diag in result.diagnoses:
        out.extend(_diagnosis(diag, 3))
    record = {k: v for k, v in result.facts.items() if k != "derived"}
    out.extend(["<details><summary>Facts (TOML)</summary>", ""])
    out.extend(_fence(facts_module.dumps(record).rstrip("\n"), "toml"))
    out.extend(["", "</details>", ""])
    return "\n".join(out)
