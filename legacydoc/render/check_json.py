"""`check --format json`: one stable, versioned object for machines."""

from __future__ import annotations

import json

from legacydoc.checkup import CheckResult


def render_check_json(result: CheckResult, color: bool = False) -> str:
    return json.dumps(result.to_dict(), indent=2, ensure_ascii=False, sort_keys=False)
