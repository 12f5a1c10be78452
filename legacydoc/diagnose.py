"""The one way a facts record becomes diagnoses: redact, derive, run the rules.

``check``, ``report`` and ``bench`` all call :func:`diagnose`, so every output of a run
rests on the same redacted record and gives the same diagnoses (a report replayed with
``check --facts`` agrees with the report).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from legacydoc.checkup import CheckResult, run_check
from legacydoc.engine import Rule
from legacydoc.redact import Redactor


def diagnose(record: Mapping[str, Any], rules: Sequence[Rule], redactor: Redactor, source: str) -> CheckResult:
    """The check of ``record`` after redaction; ``result.facts`` is the redacted record
    plus what was derived from it."""
    return run_check(redactor.record(record), rules, source=redactor.text(source))
