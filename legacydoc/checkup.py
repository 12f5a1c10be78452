"""`check` as a function: facts in, ordered diagnoses and per-area statuses out.

No I/O here: the CLI gathers the facts (probe or --facts) and picks the renderer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from legacydoc import __version__, i18n
from legacydoc.areas import AREAS
from legacydoc.engine import Diagnosis, Rule, evaluate
from legacydoc.engine.evaluation import reads_the_project, unknown_rules
from legacydoc.facts import SCHEMA, get
from legacydoc.structs import field, struct

STATUS_ORDER = ("error", "warning", "unknown", "ok")


@struct
class AreaStatus:
    """One area's line on the first screen: its status, what was found, and how many checks ran."""

    name: str
    title: str
    status: str  # ok | warning | error | unknown (not probed, not in the record, failed or timed out)
    checked: int  # how many rules could decide about this area
    problems: int
    note: str = ""  # why it is unknown
    undecided: dict[str, list[str]] = field(default_factory=dict)  # rule id -> the facts it lacked
    summary: str = ""  # what was found: key versions and paths
    rules: list[str] = field(default_factory=list)  # every rule about this area (check -v)
    log_only: list[str] = field(default_factory=list)  # those that only a --log can fire
    # those that read what --project finds (or a --log), and it found nothing or did not run
    reads_project: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "status": self.status, "checked": self.checked}
        if self.summary:
            out["summary"] = self.summary
        if self.note:
            out["note"] = self.note
        if self.undecided:
            out["undecided"] = {rule: list(missing) for rule, missing in self.undecided.items()}
        if self.reads_project:  # decided by what check --project finds, or a --log
            out["reads_project"] = list(self.reads_project)
        return out


@struct
class CheckResult:
    """Everything a check found, ready for any output format."""

    facts: Mapping[str, Any]  # the record plus what derive added (derived, config)
    diagnoses: list[Diagnosis]
    areas: list[AreaStatus]
    rules_checked: int = 0
    source: str = ""  # "this machine" or the facts file replayed
    record: Mapping[str, Any] = field(default_factory=dict)  # the record as given (redacted)
    verbose: bool = False  # text output lists every check of each area (check -v)
    plan: Any = None  # legacydoc.plan.planner.Plan, made by run_check before the rules
    plan_error: str = ""  # why no plan could be made
    shell: str = "bash"  # the shell the plan's commands are shown for
    log_unexplained: list[dict[str, Any]] = field(default_factory=list)  # legacydoc.unsettled
    facts_file: str = ""  # the --facts FILE replayed ("" when this machine was probed)
    log_file: str = ""  # the --log FILE ("" for none or standard input)

    def every(self) -> list[Diagnosis]:
        """Every diagnosis, the folded ones included (root causes before their echoes)."""
        return _flatten(self.diagnoses)

    def _of(self, severity: str) -> list[Diagnosis]:
        """Diagnoses of this severity, their folded echoes included."""
        return [d for top in self.diagnoses for d in [top, *top.folded] if d.severity == severity]

    def count(self, severity: str) -> int:
        return len(self._of(severity))

    def problems(self, severity: str) -> tuple[int, int]:
        """(problems, findings) of this severity: the findings that are possible causes of
        one log message (alternatives) are one problem."""
        findings = self._of(severity)
        groups = {d.alternatives_message or "#%d" % i for i, d in enumerate(findings)}
        return len(groups), len(findings)

    def exit_code(self, strict: bool = False) -> int:
        if self.count("error"):
            return 1
        if strict and self.count("warning"):
            return 1
        return 0

    def verdict(self) -> str:
        (errors, error_findings), warnings = self.problems("error"), self.count("warning")
        if i18n.current() == "zh":
            if errors:
                shown = "（列为 %d 个可能的原因）" % error_findings if error_findings != errors else ""
                return ("%d 个错误%s，%d 个警告：按现在的环境，这个旧项目跑不起来；"
                        "请先解决第一个错误。") % (errors, shown, warnings)
            if warnings:
                return "没有错误，%d 个警告：应该能运行，但请看一下警告。" % warnings
            text = "%d 项检查没有发现问题" % self.rules_checked
            if self.unknown_areas():
                text += "（%d 个方面的情况未知，无法检查）" % self.unknown_areas()
            if self.log_unexplained:
                text += "，但日志中有 %d 条消息是现有信息解释不了的" % len(self.log_unexplained)
            return text + "。"
        if errors:
            # possible causes of one log message are one error, whichever it turns out to be
            shown = " (shown as %d possible causes)" % error_findings if error_findings != errors else ""
            return ("%d error%s%s, %d warning%s: this setup will not run the legacy project as it is; "
                    "fix the first error first.") % (
                errors,
                "" if errors == 1 else "s",
                shown,
                warnings,
                "" if warnings == 1 else "s",
            )
        if warnings:
            return "no errors, %d warning%s: it should run, but read the warnings." % (
                warnings,
                "" if warnings == 1 else "s",
            )
        text = "no problems found in %d checks" % self.rules_checked
        if self.unknown_areas():
            unknown = self.unknown_areas()
            text += " (%d of %d areas are unknown: nothing was checked there)" % (unknown, len(self.areas))
        if self.log_unexplained:
            count = len(self.log_unexplained)
            text += ", but the log shows %d message%s they do not explain" % (count, "" if count == 1 else "s")
        return text + "."

    def unknown_areas(self) -> int:
        """Areas not probed, not in the record, or whose probe failed or timed out."""
        return sum(area.status == "unknown" for area in self.areas)

    def target(self) -> dict[str, Any]:
        """The interpreter checked, and why it was the one chosen."""
        python = self.facts.get("python") or {}
        out = {k: python[k] for k in ("executable", "executable_requested", "selected_by", "version")
               if isinstance(python, Mapping) and python.get(k) not in (None, "")}
        return out

    def runs_on(self) -> str:
        """One plain sentence: where Theano would run here, and why not on the GPU."""
        theano = (self.facts.get("derived") or {}).get("theano") or {}
        where = theano.get("runs_on", "cpu")
        reasons = "; ".join(theano.get("cpu_reasons", []))
        if i18n.current() == "zh":
            # The reasons are facts in English (versions, paths, messages): quoted as they are.
            if where == "unknown":
                missing = "; ".join(theano.get("unknown_reasons", [])) or "the facts it depends on were not recorded"
                return "Theano 会在哪里运行：未知（缺少这些信息：%s）。" % missing
            place = "GPU" if where == "gpu" else "CPU"
            why = "（%s）" % reasons if where == "cpu" and reasons else ""
            if theano.get("flavour", "none") == "none":
                return "目标 Python 中没有安装 Theano；装上后它会在 %s 上运行%s。" % (place, why)
            return "Theano 会在 %s 上运行%s。" % (place, why)
        if where == "unknown":
            missing = "; ".join(theano.get("unknown_reasons", [])) or "the facts it depends on were not recorded"
            return "Where Theano would run is unknown: not recorded: %s." % missing
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
            "runs_on": ((self.facts.get("derived") or {}).get("theano") or {}).get("runs_on", "unknown"),
            "target": self.target(),
            "counts": {s: self.count(s) for s in ("error", "warning", "info")},
            "areas": [a.to_dict() for a in self.areas],
            "diagnoses": [_diag_dict(d) for d in self.diagnoses],
            "log_unexplained": self.log_unexplained,
            **self._plan_dict(),
        }

    def _plan_dict(self) -> dict[str, Any]:
        if self.plan is not None:
            return {"plan": self.plan.to_dict()}
        return {"plan_error": self.plan_error} if self.plan_error else {}


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


def _timed_out(value: Any, depth: int = 0) -> bool:
    """A command of this table ran past its timeout (``timed_out = true`` anywhere in it)."""
    if depth > 4:
        return False
    if isinstance(value, Mapping):
        return value.get("timed_out") is True or any(_timed_out(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_timed_out(v, depth + 1) for v in value[:50])
    return False


def why_unknown(facts: Mapping[str, Any], tables: Sequence[str], live: bool) -> str:
    """Why nothing can be said about an area: '' when its tables were read."""
    from legacydoc.factschema.tables import PROBE_MARKERS

    for table in tables:
        value = facts.get(table)
        if isinstance(value, Mapping) and value.get("probe_error"):
            return "%s: %s" % (i18n.tr("probe failed"), value["probe_error"])
        marker = PROBE_MARKERS.get(table)
        if marker is not None and get(facts, marker) is None:
            return i18n.tr("not probed") if live else i18n.tr("not in the record")
        if _timed_out(value):
            return i18n.tr("timed out")
    return ""


def area_statuses(
    facts: Mapping[str, Any], rules: Sequence[Rule], diagnoses: Sequence[Diagnosis], live: bool = True
) -> list[AreaStatus]:
    every = _flatten(diagnoses)
    from legacydoc.render.summary import area_line  # what was found, one line an area

    undecided_all = unknown_rules(rules, facts)
    statuses = []
    for area in AREAS:
        mine = [d for d in every if d.area == area.name]
        note = why_unknown(facts, area.tables, live)
        if any(d.severity == "error" for d in mine):
            status = "error"
        elif any(d.severity == "warning" for d in mine):
            status = "warning"
        elif note:
            status = "unknown"
        else:
            status = "ok"
        area_rules = [r for r in rules if r.area == area.name]
        undecided = {r.id: undecided_all[r.id] for r in area_rules
                     if r.id in undecided_all and not reads_the_project(undecided_all[r.id])}
        statuses.append(
            AreaStatus(
                name=area.name,
                title=area.title,
                status=status,
                checked=len(area_rules) - len(undecided),
                problems=sum(1 for d in mine if d.severity in ("error", "warning")),
                note=note,
                undecided=undecided,
                summary="" if note else area_line(facts, area.tables),
                rules=[r.id for r in area_rules],
                log_only=[r.id for r in area_rules if r.log_only],
                reads_project=[r.id for r in area_rules
                               if r.id in undecided_all and reads_the_project(undecided_all[r.id])],
            )
        )
    return statuses


def run_check(record: Mapping[str, Any], rules: Sequence[Rule], source: str = "this machine",
              project: Any = None) -> CheckResult:
    """``project``: a legacydoc.plan.project.ProjectScan for the plan, or None."""
    from legacydoc.derive import enrich
    from legacydoc.plan.planner import PlanError, make_plan
    from legacydoc.plan.project import DOWNSAMPLE

    facts = enrich(record)
    if project is not None:
        from legacydoc.knowledge import tables
        from legacydoc.theanoapi import api_gaps

        facts["project"] = {"python2_pickles": list(project.py2_pickles),
                            "downsample": project.uses(DOWNSAMPLE) or "",
                            **api_gaps(project.theano_api_uses(), facts, tables()["theano_api"].data)}
        if project.gpu_only:  # none found is not none there: an import in a function is not looked at
            facts["project"]["gpu_only"] = project.gpu_only
        # likewise: a setting in a file the scan could not parse is not seen. THEANO_FLAGS set
        # after `import keras` only counts where Keras is known to run on Theano.
        keras_on_theano = get(facts, "derived.keras.backend") == "theano"
        late = [item.text for item in project.late_settings if keras_on_theano or not item.needs_keras_on_theano]
        if late:
            facts["project"]["late_settings"] = late
    plan, plan_error = None, ""
    try:
        # The plan first: the rules' fixes quote its pins, so no finding proposes another.
        plan = make_plan(record, project)
        facts["plan"] = plan.facts()
    except PlanError as exc:
        plan_error = str(exc)
    diagnoses = evaluate(rules, facts)
    areas = area_statuses(facts, rules, diagnoses, live=source == "this machine")
    from legacydoc.unsettled import unsettled_messages

    lacking = {rule: missing for area in areas for rule, missing in area.undecided.items()}
    every = _flatten(diagnoses)
    return CheckResult(
        facts=facts,
        diagnoses=diagnoses,
        areas=areas,
        rules_checked=len(rules),
        source=source,
        record=record,
        plan=plan,
        plan_error=plan_error,
        log_unexplained=unsettled_messages(facts, rules, {d.id for d in every}, lacking,
                                           found_problems=any(d.severity in ("error", "warning") for d in every)),
    )
