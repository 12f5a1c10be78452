"""`legacydoc report`: one zip to attach to a support ticket.

Layout (flat)::

    report.md            the check, ready to paste (facts folded under <details>)
    report.json          the same check as `check --format json`
    facts.toml           the facts record; `legacydoc check --facts <zip>` replays it
    commands/index.json  every command run: argv, exit code, duration, timed out, file
    commands/NNN-tool.txt  its raw stdout and stderr, under a short header
    manifest.json        legacydoc version, facts schema, redaction, contents

Everything goes through one Redactor before it is written. The zip is written to a
temporary file beside the target and renamed over it, so a failure leaves nothing
half-written, and nothing is written anywhere else.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import re
import shlex
import time
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from legacydoc import __version__
from legacydoc import facts as facts_module
from legacydoc.factschema.kinds import is_int
from legacydoc.probes.run import CAPTURE_MAX_BYTES
from legacydoc.redact import PLACEHOLDERS, Redactor
from legacydoc.safe_io import replace_file
from legacydoc.structs import field, struct

# Raw outputs are kept whole up to this (per stream): enough for any real tool output,
# small enough to attach. The facts already hold the first lines of each.
STREAM_MAX_CHARS = 1024 * 1024
# An argument longer than this (the target probe's script) is abbreviated in the header;
# index.json keeps the full argv.
ARG_SHOWN_CHARS = 200

CONTENTS_TEXT = {
    "report.md": "the check, ready to paste into a ticket (facts folded under <details>)",
    "report.json": "the same check for machines (as check --format json)",
    "facts.toml": "the facts record; replay with: legacydoc check --facts {zip}",
    "commands/": "{n} raw command output{s} with argv, exit code and duration",
    "log.txt": "the log given with --log (redacted); its recognised messages are in facts.toml [log]",
    "manifest.json": "legacydoc version, facts schema, redaction, contents",
}


@struct
class CommandOutput:
    """One external command as the zip keeps it."""

    argv: list[str]
    rc: Optional[int] = None
    duration_s: float = 0.0
    timed_out: bool = False
    error: str = ""
    encoding: str = ""
    truncated: bool = False
    stdout: str = ""
    stderr: str = ""
    body: Optional[str] = None  # the text of a saved report's file, carried over as is

    @classmethod
    def from_result(cls, result: Any) -> "CommandOutput":
        """From a probes.run.CommandResult."""
        return cls(
            argv=[str(a) for a in result.argv],
            rc=result.rc,
            duration_s=round(float(result.duration_s), 3),
            timed_out=bool(result.timed_out),
            error=str(result.error or ""),
            encoding=str(result.encoding or ""),
            truncated=bool(getattr(result, "truncated", False)),
            stdout=result.stdout or "",
            stderr=result.stderr or "",
        )

    @classmethod
    def from_saved(cls, meta: Mapping[str, Any], body: str) -> "CommandOutput":
        """From a report zip's commands/index.json entry and file text."""
        argv = meta.get("argv")
        rc = meta.get("rc")
        return cls(
            argv=[str(a) for a in argv] if isinstance(argv, list) else [],
            rc=rc if is_int(rc) else None,
            duration_s=float(meta["duration_s"]) if isinstance(meta.get("duration_s"), (int, float)) else 0.0,
            timed_out=meta.get("timed_out") is True,
            error=str(meta.get("error") or ""),
            encoding=str(meta.get("encoding") or ""),
            truncated=meta.get("truncated") is True,
            body=body,
        )

    def redacted(self, red: Redactor) -> "CommandOutput":
        return CommandOutput(
            argv=[red.text(a) for a in self.argv],
            rc=self.rc,
            duration_s=self.duration_s,
            timed_out=self.timed_out,
            error=red.text(self.error),
            encoding=self.encoding,
            truncated=self.truncated,
            stdout=red.text(self.stdout),
            stderr=red.text(self.stderr),
            body=red.text(self.body) if self.body is not None else None,
        )

    def tool(self) -> str:
        """A file-name-safe short name of the program (its last path part)."""
        first = re.split(r"[\\/]", self.argv[0])[-1] if self.argv else "command"
        safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", first).strip("._") or "command"
        return safe[:40]

    def meta(self, file: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": file,
            "argv": list(self.argv),
            "rc": self.rc,
            "duration_s": self.duration_s,
            "timed_out": self.timed_out,
        }
        for key in ("error", "encoding"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.truncated:
            out["truncated"] = True
        return out

    def render(self) -> str:
        if self.body is not None:
            return self.body
        shown = [a if len(a) <= ARG_SHOWN_CHARS else "<%d characters, in index.json>" % len(a) for a in self.argv]
        lines = [
            "$ " + shlex.join(shown),
            "exit code: %s" % ("none (killed or not started)" if self.rc is None else self.rc),
            "duration: %.3f s" % self.duration_s,
            "timed out: %s" % ("yes" if self.timed_out else "no"),
        ]
        if self.error:
            lines.append("error: " + self.error)
        if self.encoding:
            lines.append("decoded as: " + self.encoding)
        if self.truncated:
            lines.append("output: cut at %d MiB while running" % (CAPTURE_MAX_BYTES >> 20))
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            cut = len(text) > STREAM_MAX_CHARS
            note = " (first %d characters)" % STREAM_MAX_CHARS if cut else " (empty)" if not text else ""
            lines.append("")
            lines.append("--- %s%s ---" % (name, note))
            if text:
                lines.append(text[:STREAM_MAX_CHARS].rstrip("\n"))
        return "\n".join(lines) + "\n"


@struct
class WrittenReport:
    path: Path
    size: int
    commands: int
    redaction: str
    verdict: str
    contents: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        """What `legacydoc report` prints: where the file is and what it holds."""
        width = max(len(name) for name, _ in self.contents)
        out = ["report written to %s (%s)" % (self.path, _size_text(self.size)), "  " + self.redaction]
        out.extend("  %-*s  %s" % (width, name, what) for name, what in self.contents)
        out.append("Verdict: " + self.verdict)
        return "\n".join(out)


def _size_text(size: int) -> str:
    if size < 1024:
        return "%d bytes" % size
    return "%.1f KiB" % (size / 1024) if size < 1 << 20 else "%.1f MiB" % (size / (1 << 20))


def _about(record: Mapping[str, Any], source: str, redactor: Redactor, commands: int, zip_name: str) -> str:
    """The report's own section of report.md: what this file is and how it was made."""
    placeholders = ", ".join("`%s` %s" % (p, what) for p, what in PLACEHOLDERS.items() if p != "<secret>")
    redaction = "yes: " + placeholders if redactor.identity else "no (made with --no-redact)"
    rows = [
        ("legacydoc", __version__),
        ("facts schema", str(facts_module.SCHEMA)),
        ("collected", str(record.get("collected_at", "?"))),
        ("source", "`%s`" % source.replace("`", "'")),
        ("redacted", redaction + "; secret environment values are always hidden"),
        ("raw command outputs", "%d, in `commands/`" % commands if commands else "none (rebuilt from saved facts)"),
    ]
    out = ["### About this report", "", "| | |", "|---|---|"]
    out.extend("| %s | %s |" % (k, v.replace("|", "\\|")) for k, v in rows)
    out.extend(["", "Replay it with today's rules: `legacydoc check --facts %s`" % zip_name, ""])
    return "\n".join(out)


# A replay reads members up to 4 MiB (legacydoc.replay): the log is kept well under that,
# counted in UTF-8 bytes (a GBK log grows when it is re-encoded).
LOG_MEMBER_HALF_BYTES = 3 * 1024 * 1024 // 2


def _bounded_log(text: str) -> str:
    """The log as the zip keeps it: whole, or its first and last part with a marker."""
    data = text.encode("utf-8", "replace")
    if len(data) <= 2 * LOG_MEMBER_HALF_BYTES:
        return text
    head = data[:LOG_MEMBER_HALF_BYTES].decode("utf-8", "ignore")
    tail = data[-LOG_MEMBER_HALF_BYTES:].decode("utf-8", "ignore")
    head = head[: head.rfind("\n") + 1] or head
    tail = tail[tail.find("\n") + 1:]
    return head + "[... legacydoc kept the first and last part of this log ...]\n" + tail


def build_members(
    record: Mapping[str, Any],
    rules: Sequence[Any],
    commands: Sequence[CommandOutput],
    redactor: Redactor,
    source: str,
    zip_name: str,
    log_text: Optional[str] = None,
    project: Any = None,
) -> tuple[dict[str, bytes], Any, list[tuple[str, str]]]:
    """Every file of the zip, redacted, as bytes; plus the check result and contents.
    ``project``: the --project scan (legacydoc.plan.project.ProjectScan), as check has it."""
    from legacydoc.diagnose import diagnose
    from legacydoc.render.registry import CHECK_FORMATS

    result = diagnose(record, rules, redactor, source, project=project)
    clean, source = result.record, result.source
    members: dict[str, str] = {}
    markdown = CHECK_FORMATS["markdown"].render(result, redactor)
    members["report.md"] = markdown.rstrip("\n") + "\n\n" + redactor.text(
        _about(clean, source, redactor, len(commands), zip_name)
    )
    members["report.json"] = CHECK_FORMATS["json"].render(result, redactor) + "\n"
    members["facts.toml"] = facts_module.dumps(clean)  # already redacted as data
    index = []
    for n, command in enumerate(commands, 1):
        command = command.redacted(redactor)
        name = "%03d-%s.txt" % (n, command.tool())
        members["commands/" + name] = command.render()
        index.append(command.meta(name))
    if index:
        members["commands/index.json"] = json.dumps(index, indent=2, ensure_ascii=False) + "\n"
    if log_text is not None:
        members["log.txt"] = _bounded_log(redactor.text(log_text))
    contents = [(name, CONTENTS_TEXT[name].format(zip=zip_name)) for name in ("report.md", "report.json", "facts.toml")]
    if index:
        contents.append(("commands/", CONTENTS_TEXT["commands/"].format(
            n=len(index), s="" if len(index) == 1 else "s")))
    if log_text is not None:
        contents.append(("log.txt", CONTENTS_TEXT["log.txt"]))
    contents.append(("manifest.json", CONTENTS_TEXT["manifest.json"]))
    encoded = {name: text.encode("utf-8") for name, text in members.items()}
    manifest = {
        "format": "legacydoc-report",
        "legacydoc_version": __version__,
        "facts_schema": facts_module.SCHEMA,
        "created_at": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "collected_at": clean.get("collected_at", ""),
        "source": source,
        "redacted": bool(clean.get("redacted")),
        "redaction": redactor.describe(),
        "placeholders": dict(PLACEHOLDERS) if redactor.identity else {"<secret>": PLACEHOLDERS["<secret>"]},
        "verdict": result.verdict(),
        "counts": {s: result.count(s) for s in ("error", "warning", "info")},
        "contents": [{"name": name, "bytes": len(data)} for name, data in encoded.items()],
    }
    manifest_text = redactor.json_text(json.dumps(manifest, indent=2, ensure_ascii=False)) + "\n"
    encoded["manifest.json"] = manifest_text.encode("utf-8")
    return encoded, result, contents


def zip_bytes(members: Mapping[str, bytes]) -> bytes:
    """The zip archive of ``members``, built in memory (a report is a few MiB at most)."""
    stamp = time.localtime()[:6]
    buffer = io.BytesIO()
    from legacydoc.replay import BOMB_MIN_BYTES, BOMB_RATIO

    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            # A log of ten thousand identical epoch lines deflates like a zip bomb, which
            # the reader refuses: such a member is stored as it is.
            if len(data) >= BOMB_MIN_BYTES and len(zlib.compress(data, 6)) * BOMB_RATIO // 2 < len(data):
                info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def write_zip(target: Path, members: Mapping[str, bytes]) -> int:
    """Write through the one safe writer (legacydoc.safe_io). Returns the size."""
    data = zip_bytes(members)
    replace_file(Path(target), data)
    return len(data)


def write_report(
    target: Path,
    record: Mapping[str, Any],
    rules: Sequence[Any],
    commands: Sequence[CommandOutput],
    redactor: Redactor,
    source: str,
    log_text: Optional[str] = None,
    project: Any = None,
) -> WrittenReport:
    target = Path(target)
    members, result, contents = build_members(record, rules, commands, redactor, source, target.name, log_text,
                                              project)
    size = write_zip(target, members)
    return WrittenReport(
        path=target.resolve(),
        size=size,
        commands=len(commands),
        redaction=redactor.describe(),
        verdict=result.verdict(),
        contents=contents,
    )
