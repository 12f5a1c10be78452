"""The plan as files a user (or CI) can run: environment.yml, requirements.txt, theanorc,
activate.sh / activate.bat / activate.ps1, PLAN.md, and keras.json when the project uses
Keras. Written with safe_io.replace_file: an existing file is backed up, never truncated."""

from __future__ import annotations

from pathlib import Path

from legacydoc.errors import UsageError
from legacydoc.i18n import tr
from legacydoc.plan.planner import Plan, requirement
from legacydoc.safe_io import replace_file


def requirements_txt(plan: Plan) -> str:
    lines = ["# pip requirements of the legacydoc plan (Python %s). Install with:" % plan.python,
             "#   python -m pip install -r requirements.txt"]
    for name, pin in plan.packages.items():
        lines.append(requirement(name, pin))
    return "\n".join(lines) + "\n"


def environment_yml(plan: Plan) -> str:
    channels = ["conda-forge"] if plan.conda_packages else ["defaults"]
    lines = ["# conda environment of the legacydoc plan. Create it with:",
             "#   conda env create -f environment.yml", "name: theano-legacy", "channels:"]
    lines += ["  - %s" % c for c in channels]
    lines += ["dependencies:", "  - python=%s" % plan.python, "  - pip"]
    lines += ["  - %s%s" % kv for kv in plan.conda_packages.items()]
    if plan.os == "windows":
        lines.append("  - m2w64-toolchain")
    lines.append("  - pip:")
    for name, pin in plan.packages.items():
        lines.append("    - %s" % requirement(name, pin))
    return "\n".join(lines) + "\n"


# Each activate script: its first line, its shell family (legacydoc.shells), THEANORC
# pointing at the bundle's theanorc, and its line ending.
_ACTIVATE = {
    "activate.sh": ("# source this file: . ./activate.sh", "bash", 'export THEANORC="$(pwd)/theanorc"', "\n"),
    "activate.bat": ("@echo off\r\nrem run in cmd: call activate.bat", "cmd", 'set "THEANORC=%~dp0theanorc"', "\r\n"),
    "activate.ps1": ("# run in PowerShell: . .\\activate.ps1", "powershell",
                     '$env:THEANORC = Join-Path $PSScriptRoot "theanorc"', "\r\n"),
}


def activate(plan: Plan, name: str) -> str:
    """The environment variables of the plan, and THEANORC pointing at the bundle's theanorc."""
    from legacydoc.shells import assignment

    head, family, theanorc, end = _ACTIVATE[name]
    lines = [head] + [assignment(family, k, v) for k, v in plan.env.items()] + [theanorc]
    return end.join(lines) + end


def bundle(plan: Plan, markdown: str) -> dict[str, str]:
    files = {
        "environment.yml": environment_yml(plan),
        "requirements.txt": requirements_txt(plan),
        "theanorc": plan.theanorc,
        **{name: activate(plan, name) for name in _ACTIVATE},
        "PLAN.md": markdown,
    }
    if plan.keras_json:
        import json

        files["keras.json"] = json.dumps(plan.keras_json, indent=4) + "\n"
    return files


def write_bundle(folder: Path, files: dict[str, str]) -> list[str]:
    """Write every file into ``folder`` (created if missing); the names written."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(tr("%s: -o must be a folder, and this is a file") % folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(tr("%s: cannot create the folder: %s") % (folder, exc.strerror or exc)) from None
    written = []
    for name, text in files.items():
        newline_ok = text if name.endswith((".bat", ".ps1")) else text.replace("\r\n", "\n")
        replace_file(folder / name, newline_ok.encode("utf-8"), keep_backup=True)
        written.append(name)
    return written
