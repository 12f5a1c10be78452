"""`check` as a function: facts in, ordered diagnoses and per-area statuses out.

No I/O here: the CLI gathers the facts (probe or --facts) and picks the renderer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from legacydoc import __version__
from legacydoc.areas import AREAS
from legacydoc.engine import Diagnosis, Rule, evaluate
from legacydoc.facts import SCHEMA

STATUS_ORDER = ("error", "warning", "unknown", "ok")


@dataclass
class AreaStatus:
    name: str
    title: str
    status: str  # ok | warning | error | unknown (its probe failed)
    checked: int  # how many rules looked at this area
    problems: int
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "status": self.status, "checked": self.checked}
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class CheckResult:
    facts: Mapping[str, Any]  # the record plus what derive added (derived, config)
    diagnoses: list[Diagnosis]
    areas: list[AreaStatus]
    rules_checked: int = 0
    source: str = ""  # "this machine" or the facts file replayed
    record: Mapping[str, Any] = field(default_factory=dict)  # the record as given (redacted)

    def every(self) -> list[Diagnosis]:
        """Every diagnosis, the folded ones included (root causes before their echoes)."""
        return _flatten(self.diagnoses)

    def count(self, severity: str) -> int:
        """Diagnoses of this severity, folded echoes included."""
        total = 0
        for diag in self.diagnoses:
            total += diag.severity == severity
            total += sum(f.severity == severity for f in diag.folded)
        return total

    def exit_code(self, strict: bool = False) -> int:
        if self.count("error"):
            return 1
        if strict and self.count("warning"):
            return 1
        return 0

    def verdict(self) -> str:
        errors, warnings = self.count("error"), self.count("warning")
        if errors:
            return ("%d error%s, %d warning%s: this setup will not run the legacy project as it is; "
                    "fix the first error first.") % (
                errors,
                "" if errors == 1 else "s",
                warnings,
                "" if warnings == 1 else "s",
            )
        if warnings:
            return "no errors, %d warning%s: it should run, but read the warnings." % (
                warnings,
                "" if warnings == 1 else "s",
            )
        return "no problems found in %d checks." % self.rules_checked

    def runs_on(self) -> str:
        """One plain sentence: where Theano would run here, and why not on the GPU."""
        theano = (self.facts.get("derived") or {}).get("theano") or {}
        where = theano.get("runs_on", "cpu")
        reasons = "; ".join(theano.get("cpu_reasons", []))
        if theano.get("flavour", "none") == "none":
            return "Theano is not installed in the target Python; with it, it would run on the %s%s." % (
                where.upper(),
                " (%s)" % reasons if where == "cpu" and reasons else "",
            )
        return "Theano would run on the %s%s." % (
            where.upper(),
            " (%s)" % reasons if where == "cpu" and reasons else "",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "legacydoc_version": __version__,
            "facts_schema": SCHEMA,
            "source": self.source,
            "verdict": self.verdict(),
            "runs_on": ((self.facts.get("derived") or {}).get("theano") or {}).get("runs_on", "cpu"),
            "counts": {s: self.count(s) for s in ("error", "warning", "info")},
            "areas": [a.to_dict() for a in self.areas],
            "diagnoses": [_diag_dict(d) for d in self.diagnoses],
        }


def _diag_dict(diag: Diagnosis) -> dict[str, Any]:
    out = diag.to_dict()
    out["folded"] = [_diag_dict(f) for f in diag.folded]
    return out


def _flatten(diags: Sequence[Diagnosis]) -> list[Diagnosis]:
    out: list[Diagnosis] = []
    for diag in diags:
        out.append(diag)
        out.extend(_flatten(diag.folded))
    return out


def area_statuses(facts: Mapping[str, Any], rules: Sequence[Rule], diagnoses: Sequence[Diagnosis]) -> list[AreaStatus]:
    every = _flatten(diagnoses)
    statuses = []
    for area in AREAS:
        mine = [d for d in every if d.area == area.name]
        failed = [t for t in area.tables if (facts.get(t) or {}).get("probe_error")]
        if any(d.severity == "error" for d in mine):
            status = "error"
        elif any(d.severity == "warning" for d in mine):
            status = "warning"
        elif failed:
            status = "unknown"
        else:
            status = "ok"
        note = "probe failed: %s" % facts[failed[0]]["probe_error"] if failed else ""
        statuses.append(
            AreaStatus(
                name=area.name,
                title=area.title,
                status=status,
                checked=sum(1 for r in rules if r.area == area.name),
                problems=sum(1 for d in mine if d.severity in ("error", "warning")),
                note=note,
            )
        )
    return statuses


def run_check(record: Mapping[str, Any], rules: Sequence[Rule], source: str = "this machine") -> CheckResult:
    from legacydoc.derive import enrich

    facts = enrich(record)
    diagnoses = evaluate(rules, facts)
    return CheckResult(
        facts=facts,
        diagnoses=diagnoses,
        areas=area_statuses(facts, rules, diagnoses),
        rules_checked=len(rules),
        source=source,
        record=record,
    )
