"""What ``legacydoc plan`` runs: the plan for a record (and a project), shown or written
as a bundle of files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional

from legacydoc.errors import UsageError
from legacydoc.plan.planner import Plan, PlanError, make_plan
from legacydoc.plan.project import ProjectScan, scan


def scan_project(project: Optional[Path]) -> Optional[ProjectScan]:
    if project is None:
        return None
    if not project.is_dir():
        raise UsageError("%s: --project is not a directory" % project)
    return scan(project)


def plan_for(record: Mapping[str, Any], project: Optional[ProjectScan]) -> Plan:
    try:
        return make_plan(record, project)
    except PlanError as exc:
        raise UsageError("no plan: %s" % exc) from None


def write_files(plan: Plan, folder: Path, shell: str) -> list[str]:
    from legacydoc.plan.files import bundle, write_bundle
    from legacydoc.render.plan import render_plan_markdown

    return write_bundle(folder, bundle(plan, render_plan_markdown(plan, shell)))
