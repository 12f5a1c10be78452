"""Build fixtures/reports/seed-000-windows-report.zip: the seed-000 Windows 10 machine's
report as it reaches a support desk after a trip through Windows tools.

The facts were recorded on Windows; the zip is then shaped the way Windows leaves a report
a user unpacked and packed again with Explorer: one top folder, CRLF line endings, a UTF-8
BOM on facts.toml, members marked as made on MS-DOS/FAT. tests/test_replay.py replays it
on Linux and expects the same diagnoses as the facts file itself.

Run from the repository root: python tools/make_windows_report_fixture.py
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from legacydoc import facts  # noqa: E402
from legacydoc.engine import load_rules  # noqa: E402
from legacydoc.redact import Redactor  # noqa: E402
from legacydoc.report import CommandOutput, build_members  # noqa: E402

SEED = REPO / "fixtures" / "seed-000-win10-python313-nvml-error" / "facts.toml"
TARGET = REPO / "fixtures" / "reports" / "seed-000-windows-report.zip"
TOP = "legacydoc-report/"
STAMP = (2026, 11, 30, 10, 5, 0)


def recorded_commands(node: Any) -> Iterator[dict]:
    """Every command record (a table with argv) in the facts, in file order."""
    if isinstance(node, dict):
        if isinstance(node.get("argv"), list):
            yield node
        for value in node.values():
            yield from recorded_commands(value)
    elif isinstance(node, list):
        for value in node:
            yield from recorded_commands(value)


def main() -> None:
    record = facts.load(SEED)
    commands = [
        CommandOutput(
            argv=cmd["argv"],
            rc=cmd.get("rc"),
            duration_s=cmd.get("duration_s", 0.0),
            timed_out=cmd.get("timed_out", False),
            encoding=cmd.get("encoding", ""),
            stdout=cmd.get("output", ""),
        )
        for cmd in recorded_commands(record)
    ]
    members, _result, _contents = build_members(
        record, load_rules(), commands, Redactor.for_record(record), "this machine", "legacydoc-report.zip"
    )
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(TARGET, "w", zipfile.ZIP_DEFLATED) as archive:
        folder = zipfile.ZipInfo(TOP, date_time=STAMP)
        folder.create_system = 0
        folder.external_attr = 0x10  # MS-DOS directory attribute
        archive.writestr(folder, b"")
        for name, data in members.items():
            text = data.decode("utf-8").replace("\n", "\r\n")
            raw = ("\ufeff" + text if name == "facts.toml" else text).encode("utf-8")
            info = zipfile.ZipInfo(TOP + name, date_time=STAMP)
            info.create_system = 0
            info.external_attr = 0x20  # MS-DOS archive attribute
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, raw)
    print("wrote %s" % TARGET.relative_to(REPO))


if __name__ == "__main__":
    main()
