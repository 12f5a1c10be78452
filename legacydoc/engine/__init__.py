"""The rule engine: rules are TOML data, conditions are data, nothing is evaluated as code.

:mod:`.load` reads and validates rule packs, :mod:`.evaluate` runs them against a facts
record, :mod:`.model` holds what both share. The names below are the engine's API.
"""

from __future__ import annotations

from legacydoc.engine.evaluation import evaluate, fill, matches, truth, unknown_rules
from legacydoc.engine.load import builtin_rules_dir, find_rule, load_rule_file, load_rules, rule_from_table
from legacydoc.engine.model import LAYERS, SEVERITIES, Diagnosis, Rule, RuleError

__all__ = [
    "LAYERS",
    "SEVERITIES",
    "Diagnosis",
    "Rule",
    "RuleError",
    "builtin_rules_dir",
    "evaluate",
    "fill",
    "find_rule",
    "load_rule_file",
    "load_rules",
    "matches",
    "rule_from_table",
    "truth",
    "unknown_rules",
]
