"""Every output format, in one table: its name, what it renders, and which redaction it
needs. The CLI's --format choices come from here, so adding a format (SARIF, JUnit) is a
renderer module plus one row below.

A renderer takes the thing it renders (a CheckResult, a BenchReport) and ``color`` (for
terminal text) and returns text. Redaction is applied to that text by the caller, through
the one Redactor of the run: "text" formats go through ``Redactor.text`` and "json" ones
through ``Redactor.json_text`` (which keeps the JSON valid).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from legacydoc.errors import UsageError
from legacydoc.i18n import tr
from legacydoc.structs import struct


@struct(frozen=True)
class Format:
    """An output format of check and report: its name, help line, and renderer."""

    name: str
    help: str
    redaction: str  # "text" | "json"
    target: str  # "module:function", imported only when used (the CLI stays light)

    def renderer(self) -> Callable[..., str]:
        module, function = self.target.split(":")
        return getattr(importlib.import_module(module), function)

    def render(self, subject: Any, redactor: Any, color: bool = False) -> str:
        text = self.renderer()(subject, color=color)
        return redactor.json_text(text) if self.redaction == "json" else redactor.text(text)


CHECK_FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", "terminal text, a status line per area then the findings", "text",
               "legacydoc.render.check_text:render_check_text"),
        Format("json", "one stable, versioned JSON object", "json", "legacydoc.render.check_json:render_check_json"),
        Format("markdown", "a ticket-ready report, facts folded in <details>", "text",
               "legacydoc.render.check_markdown:render_check_markdown"),
    )
}

EXPLAIN_FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", "each message: meaning, causes, what tells them apart, fix", "text",
               "legacydoc.render.explain:render_text"),
        Format("json", "the same as one JSON object", "json", "legacydoc.render.explain:render_json"),
        Format("markdown", "ready to paste into a ticket", "text", "legacydoc.render.explain:render_markdown"),
    )
}

TRIAGE_FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", "counts per root cause, GPU, driver, CUDA, Python and Theano", "text",
               "legacydoc.render.triage:render_text"),
        Format("markdown", "the same counts as tables", "text", "legacydoc.render.triage:render_markdown"),
        Format("csv", "one row per record, for a spreadsheet", "text", "legacydoc.render.triage:render_csv"),
        Format("json", "counts and one entry per record", "json", "legacydoc.render.triage:render_json"),
    )
}

DIFF_FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", "fixed, new and remaining findings, then the facts that changed", "text",
               "legacydoc.render.diff:render_text"),
        Format("markdown", "the same, ready for the ticket", "text", "legacydoc.render.diff:render_markdown"),
        Format("json", "the same as one JSON object", "json", "legacydoc.render.diff:render_json"),
    )
}

BENCH_FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", "a short table", "text", "legacydoc.bench.render:render_text"),
        Format("json", "every figure", "json", "legacydoc.bench.render:render_json"),
    )
}


def choose(formats: dict[str, Format], name: str, option: str = "--format") -> Format:
    """The format called ``name`` (any case); a usage error naming the choices otherwise."""
    found = formats.get(str(name).lower())
    if found is None:
        raise UsageError(tr("%s: must be one of %s, got %r") % (option, ", ".join(formats), name))
    return found


def help_text(formats: dict[str, Format]) -> str:
    return "; ".join("%s: %s" % (f.name, f.help) for f in formats.values()) + "."
