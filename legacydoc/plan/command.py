"""What ``legacydoc plan`` runs: the plan for a record (and a project), shown or written
as a bundle of files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from legacydoc.errors import UsageError
from legacydoc.i18n import tr
from legacydoc.plan.planner import Plan, PlanError, make_plan
from legacydoc.plan.project import ProjectScan, scan


def scan_project(project: Optional[Path], home: Optional[Path] = None) -> Optional[ProjectScan]:
    """The project's scan; ``home``: this machine's home, whose ~/.keras/keras.json Keras
    reads when the project has none (None when the plan is for another machine)."""
    if project is None:
        return None
    if not project.is_dir():
        raise UsageError(tr("%s: --project is not a directory") % project)
    found = scan(project)
    if found.keras_json is None and home is not None:
        read_home_keras_json(found, home)
    return found


def read_home_keras_json(found: ProjectScan, home: Path) -> None:
    import json

    from legacydoc.safe_io import read_small

    path = home / ".keras" / "keras.json"
    data = read_small(str(path), 100_000)
    if data is None:
        return
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested deeply
        found.unreadable.append("%s: not JSON" % path)
        return
    if isinstance(value, dict):
        found.keras_json, found.keras_json_path = value, str(path)


def plan_for(record: Mapping[str, Any], project: Optional[ProjectScan]) -> Plan:
    try:
        return make_plan(record, project)
    except PlanError as exc:
        raise UsageError(tr("no plan: %s") % exc) from None


def write_files(plan: Plan, folder: Path, shell: str) -> list[str]:
    from legacydoc.plan.files import bundle, write_bundle
    from legacydoc.render.plan import render_plan_markdown

    return write_bundle(folder, bundle(plan, render_plan_markdown(plan, shell)))
