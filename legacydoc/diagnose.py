"""The one way a facts record becomes diagnoses: redact, derive, run the rules.

``check``, ``report`` and ``bench`` all call :func:`diagnose`, so every output of a run
rests on the same redacted record and gives the same diagnoses (a report replayed with
``check --facts`` agrees with the report).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Callable

from legacydoc.checkup import CheckResult, run_check
from legacydoc.engine import Rule
from legacydoc.redact import Redactor


def diagnose(record: Mapping[str, Any], rules: Sequence[Rule], redactor: Redactor, source: str,
             project: Any = None) -> CheckResult:
    """The check of ``record`` after redaction; ``result.facts`` is the redacted record
    plus what was derived from it (and the plan, for ``project`` if given)."""
    return run_check(redactor.record(record), rules, source=redactor.text(source), project=project)


def diagnose_file(path: Path, rules: Sequence[Rule], redactor_for: Callable[[Mapping[str, Any]], Redactor]
                  ) -> CheckResult:
    """``check --facts PATH`` as a function: a facts.toml or report zip, redacted with the
    redactor made for its record (a UsageError names what is wrong with the file)."""
    from legacydoc import replay

    replayed = replay.load(path, with_commands=False)
    return diagnose(replayed.record, rules, redactor_for(replayed.record), replayed.source)
