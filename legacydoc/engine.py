"""The rule engine: rules are TOML data, conditions are data, nothing is evaluated as code.

A rule file holds ``[[rule]]`` tables. A condition is one of

* ``{ fact = "a.b", <operator> = value }`` with operator ``exists`` (bool), ``equals``,
  ``not_equals``, ``in`` (list), ``not_in`` (list), ``matches`` (regex, searched),
  ``version`` (a PEP 440 specifier such as ``">=1.22,<1.24"``), ``lt`` / ``le`` / ``gt`` /
  ``ge`` (numbers), ``contains`` (a list fact holds the value), ``empty`` (bool);
* ``{ all = [...] }``, ``{ any = [...] }``, ``{ not = {...} }``;
* ``{ some = "a.list", where = {...} }`` / ``{ none = "a.list", where = {...} }``: some /
  no item of a list satisfies ``where``, in which ``item.x`` names the item's fields.

A rule with ``for_each = "a.list"`` is evaluated once per item (``item.x`` in its
condition and text), producing one diagnosis per matching item. A rule's ``when`` is a
condition or a list of conditions (all must hold). Text fields are templates:
``{packages.numpy.version}`` or ``{item.name}`` are replaced by the fact's value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from legacydoc import factnames
from legacydoc.areas import AREA_NAMES as AREAS
from legacydoc.errors import UsageError
from legacydoc.facts import get
from legacydoc.versions import parse_specifier, parse_version

LAYERS: tuple[str, ...] = ("versions", "drivers", "libraries", "compilers", "config", "performance")
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")
RULE_KEYS = {
    "id",
    "name",
    "area",
    "layer",
    "severity",
    "title",
    "why",
    "fix",
    "references",
    "explains",
    "when",
    "for_each",
    "evidence",
    "fires",
    "quiet",
}
REQUIRED_KEYS = ("id", "name", "area", "layer", "severity", "title", "why", "fix", "when")
FACT_OPERATORS = {
    "exists",
    "equals",
    "not_equals",
    "in",
    "not_in",
    "matches",
    "version",
    "lt",
    "le",
    "gt",
    "ge",
    "contains",
    "empty",
}
LIST_QUANTIFIERS = {"some", "none"}
_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.\-]*)\}")
_MISSING = object()


class RuleError(UsageError):
    """A rule file that cannot be used: one line naming the file and the rule."""


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    area: str
    layer: str
    severity: str
    title: str
    why: str
    fix: tuple[str, ...]
    when: Any
    source: str
    references: tuple[str, ...] = ()
    explains: tuple[str, ...] = ()
    for_each: str = ""
    evidence: tuple[str, ...] = ()
    # Example facts (dotted name -> value) on which the rule must fire / stay quiet;
    # the test suite runs every one, and `rules explain` shows them.
    fires: tuple[dict, ...] = ()
    quiet: tuple[dict, ...] = ()


@dataclass
class Diagnosis:
    id: str
    name: str
    area: str
    layer: str
    severity: str
    title: str
    why: str
    fix: list[str]
    evidence: dict[str, Any]
    references: list[str] = field(default_factory=list)
    explains: list[str] = field(default_factory=list)  # ids of folded diagnoses
    folded: list["Diagnosis"] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "area": self.area,
            "severity": self.severity,
            "layer": self.layer,
            "title": self.title,
            "why": self.why,
            "fix": list(self.fix),
            "evidence": dict(self.evidence),
            "references": list(self.references),
            "explains": list(self.explains),
        }


# --- loading and validation ---------------------------------------------------------


def _fail(source: str, rule_id: str, message: str) -> RuleError:
    where = "%s: rule %s" % (source, rule_id) if rule_id else source
    return RuleError("%s: %s" % (where, message))


def _check_fact_name(name: Any, source: str, rule_id: str, item_ok: bool) -> None:
    if not isinstance(name, str) or not name:
        raise _fail(source, rule_id, "a fact name must be a non-empty string, got %r" % (name,))
    if name.startswith("item."):
        if not item_ok:
            raise _fail(source, rule_id, "'%s' used outside for_each/some/none" % name)
        return
    if not factnames.is_known(name):
        raise _fail(source, rule_id, "unknown fact name '%s'" % name)


def _validate_condition(cond: Any, source: str, rule_id: str, item_ok: bool) -> None:
    if isinstance(cond, list):
        for sub in cond:
            _validate_condition(sub, source, rule_id, item_ok)
        return
    if not isinstance(cond, Mapping):
        raise _fail(source, rule_id, "a condition must be a table, got %r" % (cond,))
    keys = set(cond)
    if "fact" in keys:
        _check_fact_name(cond["fact"], source, rule_id, item_ok)
        ops = keys - {"fact"}
        unknown = ops - FACT_OPERATORS
        if unknown:
            raise _fail(source, rule_id, "unknown operator '%s'" % sorted(unknown)[0])
        if len(ops) != 1:
            raise _fail(source, rule_id, "condition on '%s' needs exactly one operator, has %d" % (cond["fact"], len(ops)))
        op = ops.pop()
        value = cond[op]
        if op == "matches":
            try:
                re.compile(value)
            except (re.error, TypeError) as exc:
                raise _fail(source, rule_id, "bad regular expression %r: %s" % (value, exc)) from None
        elif op == "version":
            if parse_specifier(value) is None:
                raise _fail(source, rule_id, "bad version specifier %r" % (value,))
        elif op in ("in", "not_in") and not isinstance(value, list):
            raise _fail(source, rule_id, "'%s' needs a list" % op)
        elif op in ("lt", "le", "gt", "ge") and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise _fail(source, rule_id, "'%s' needs a number" % op)
        elif op in ("exists", "empty") and not isinstance(value, bool):
            raise _fail(source, rule_id, "'%s' needs true or false" % op)
        return
    if keys in ({"all"}, {"any"}):
        sub = cond["all" if "all" in keys else "any"]
        if not isinstance(sub, list):
            raise _fail(source, rule_id, "'all'/'any' need a list of conditions")
        _validate_condition(sub, source, rule_id, item_ok)
        return
    if keys == {"not"}:
        _validate_condition(cond["not"], source, rule_id, item_ok)
        return
    quantifier = keys & LIST_QUANTIFIERS
    if quantifier and keys == quantifier | {"where"} and len(quantifier) == 1:
        _check_fact_name(cond[quantifier.pop()], source, rule_id, item_ok)
        _validate_condition(cond["where"], source, rule_id, True)
        return
    raise _fail(source, rule_id, "unknown condition keys %s" % ", ".join(sorted(map(str, keys))))


def _as_str_tuple(value: Any, key: str, source: str, rule_id: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _fail(source, rule_id, "'%s' must be a string or a list of strings" % key)


def rule_from_table(table: Any, source: str) -> Rule:
    if not isinstance(table, Mapping):
        raise _fail(source, "", "each [[rule]] must be a table")
    rule_id = str(table.get("id", "")) or "<no id>"
    unknown = set(table) - RULE_KEYS
    if unknown:
        raise _fail(source, rule_id, "unknown key '%s'" % sorted(unknown)[0])
    for key in REQUIRED_KEYS:
        if key not in table:
            raise _fail(source, rule_id, "missing key '%s'" % key)
    for key in ("id", "name", "area", "title", "why"):
        if not isinstance(table[key], str) or not table[key].strip():
            raise _fail(source, rule_id, "'%s' must be a non-empty string" % key)
    if table["layer"] not in LAYERS:
        raise _fail(source, rule_id, "layer %r is not one of %s" % (table["layer"], ", ".join(LAYERS)))
    if table["area"] not in AREAS:
        raise _fail(source, rule_id, "area %r is not one of %s" % (table["area"], ", ".join(AREAS)))
    if table["severity"] not in SEVERITIES:
        raise _fail(source, rule_id, "severity %r is not one of %s" % (table["severity"], ", ".join(SEVERITIES)))
    for_each = table.get("for_each", "")
    if for_each:
        _check_fact_name(for_each, source, rule_id, False)
    _validate_condition(table["when"], source, rule_id, bool(for_each))
    for text_key in ("title", "why"):
        _validate_template(table[text_key], source, rule_id, bool(for_each))
    fix = _as_str_tuple(table["fix"], "fix", source, rule_id)
    for line in fix:
        _validate_template(line, source, rule_id, bool(for_each))
    examples = {key: _examples(table.get(key, []), key, source, rule_id) for key in ("fires", "quiet")}
    evidence = _as_str_tuple(table.get("evidence", []), "evidence", source, rule_id)
    for name in evidence:
        _check_fact_name(name, source, rule_id, bool(for_each))
    return Rule(
        id=table["id"],
        name=table["name"],
        area=table["area"],
        layer=table["layer"],
        severity=table["severity"],
        title=table["title"].strip(),
        why=table["why"].strip(),
        fix=fix,
        when=table["when"],
        source=source,
        references=_as_str_tuple(table.get("references", []), "references", source, rule_id),
        explains=_as_str_tuple(table.get("explains", []), "explains", source, rule_id),
        for_each=for_each,
        evidence=evidence,
        fires=examples["fires"],
        quiet=examples["quiet"],
    )


def _examples(value: Any, key: str, source: str, rule_id: str) -> tuple[dict, ...]:
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise _fail(source, rule_id, "'%s' must be a list of tables of facts ([[rule.%s]])" % (key, key))
    for case in value:
        for name in case:
            _check_fact_name(name, source, rule_id, False)
    return tuple(dict(v) for v in value)


def _validate_template(text: str, source: str, rule_id: str, item_ok: bool) -> None:
    for name in _TEMPLATE.findall(text):
        _check_fact_name(name, source, rule_id, item_ok)


def builtin_rules_dir() -> Path:
    """rules/ inside the installed wheel (legacydoc.rules), or the checkout's rules/."""
    try:
        import importlib.resources as resources

        root = Path(str(resources.files("legacydoc.rules")))
        if root.is_dir():
            return root
    except (ImportError, ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parent.parent / "rules"


def load_rule_file(path: Path) -> list[Rule]:
    from legacydoc.facts import _toml_module

    toml = _toml_module()
    try:
        data = toml.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RuleError("%s: cannot read rule file: %s" % (path, exc.strerror or exc)) from None
    except UnicodeDecodeError as exc:
        raise RuleError("%s: not UTF-8 (byte %d)" % (path, exc.start)) from None
    except toml.TOMLDecodeError as exc:
        raise RuleError("%s: not valid TOML (%s)" % (path, exc)) from None
    unknown = set(data) - {"rule", "pack"}
    if unknown:
        raise RuleError("%s: unknown top-level key '%s' (expected [[rule]] tables)" % (path, sorted(unknown)[0]))
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        raise RuleError("%s: 'rule' must be an array of tables ([[rule]])" % path)
    return [rule_from_table(t, str(path)) for t in tables]


def load_rules(extra_dirs: Sequence[Path] = (), include_builtin: bool = True) -> list[Rule]:
    """Every ``*.toml`` rule pack (knowledge tables live in rules/knowledge and are skipped)."""
    dirs = ([builtin_rules_dir()] if include_builtin else []) + [Path(d) for d in extra_dirs]
    rules: list[Rule] = []
    for directory in dirs:
        if not directory.is_dir():
            raise RuleError("%s: rules directory not found" % directory)
        for path in sorted(directory.glob("*.toml")):
            rules.extend(load_rule_file(path))
    seen: dict[str, str] = {}
    names: dict[str, str] = {}
    for rule in rules:
        if rule.id in seen:
            raise RuleError("%s: rule %s: duplicate id (also in %s)" % (rule.source, rule.id, seen[rule.id]))
        if rule.name in names:
            raise RuleError("%s: rule %s: duplicate name '%s'" % (rule.source, rule.id, rule.name))
        seen[rule.id] = rule.source
        names[rule.name] = rule.id
    for rule in rules:
        for target in rule.explains:
            if target not in seen and target not in names:
                raise RuleError("%s: rule %s: explains unknown rule '%s'" % (rule.source, rule.id, target))
    return rules


# --- evaluation ----------------------------------------------------------------------


def _lookup(facts: Mapping[str, Any], name: str, item: Any) -> Any:
    if name.startswith("item."):
        if item is None:
            return _MISSING
        return get(item, name[5:], _MISSING) if isinstance(item, Mapping) else _MISSING
    if name == "item":
        return item if item is not None else _MISSING
    return get(facts, name, _MISSING)


def _compare_numbers(value: Any, op: str, bound: float) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return False
    if not isinstance(value, (int, float)):
        return False
    return {"lt": value < bound, "le": value <= bound, "gt": value > bound, "ge": value >= bound}[op]


def _fact_condition(cond: Mapping[str, Any], facts: Mapping[str, Any], item: Any) -> bool:
    name = cond["fact"]
    value = _lookup(facts, name, item)
    op = next(k for k in cond if k != "fact")
    expected = cond[op]
    if op == "exists":
        return (value is not _MISSING) == expected
    if value is _MISSING:
        return False  # every other operator needs the fact to be there
    if op == "equals":
        return value == expected
    if op == "not_equals":
        return value != expected
    if op == "in":
        return value in expected
    if op == "not_in":
        return value not in expected
    if op == "matches":
        return isinstance(value, (str, int, float)) and re.search(expected, str(value)) is not None
    if op == "version":
        version = parse_version(value)
        spec = parse_specifier(expected)
        return version is not None and spec is not None and spec.contains(version, prereleases=True)
    if op in ("lt", "le", "gt", "ge"):
        return _compare_numbers(value, op, expected)
    if op == "contains":
        return isinstance(value, (list, str)) and expected in value
    if op == "empty":
        return (not value) == expected
    raise AssertionError(op)  # validation rejects other operators


def matches(cond: Any, facts: Mapping[str, Any], item: Any = None) -> bool:
    """Does a (validated) condition hold for these facts (and this list item)?"""
    if isinstance(cond, list):
        return all(matches(c, facts, item) for c in cond)
    if "fact" in cond:
        return _fact_condition(cond, facts, item)
    if "all" in cond:
        return all(matches(c, facts, item) for c in cond["all"])
    if "any" in cond:
        return any(matches(c, facts, item) for c in cond["any"])
    if "not" in cond:
        return not matches(cond["not"], facts, item)
    quantifier = "some" if "some" in cond else "none"
    items = _lookup(facts, cond[quantifier], item)
    found = isinstance(items, list) and any(matches(cond["where"], facts, it) for it in items)
    return found if quantifier == "some" else not found


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_format_value(v) for v in value)
    return str(value)


def fill(text: str, facts: Mapping[str, Any], item: Any = None) -> str:
    """Replace ``{a.b}`` by the fact's value (``?`` when absent)."""

    def replace(match: "re.Match[str]") -> str:
        value = _lookup(facts, match.group(1), item)
        return "?" if value is _MISSING else _format_value(value)

    return _TEMPLATE.sub(replace, text)


def _condition_facts(cond: Any, out: list[str]) -> None:
    if isinstance(cond, list):
        for c in cond:
            _condition_facts(c, out)
    elif isinstance(cond, Mapping):
        if "fact" in cond:
            out.append(cond["fact"])
        for key in ("all", "any"):
            if key in cond:
                _condition_facts(cond[key], out)
        if "not" in cond:
            _condition_facts(cond["not"], out)
        for key in ("some", "none"):
            if key in cond:
                out.append(cond[key])
                _condition_facts(cond["where"], out)


def _evidence(rule: Rule, facts: Mapping[str, Any], item: Any) -> dict[str, Any]:
    names: list[str] = list(rule.evidence)
    if not names:
        _condition_facts(rule.when, names)
    evidence: dict[str, Any] = {}
    for name in names:
        value = _lookup(facts, name, item)
        if value is not _MISSING and name not in evidence:
            if isinstance(value, list) and len(value) > 10:
                value = value[:10]
            evidence[name] = value
    return evidence


def _diagnose(rule: Rule, facts: Mapping[str, Any], item: Any) -> Diagnosis:
    return Diagnosis(
        id=rule.id,
        name=rule.name,
        area=rule.area,
        layer=rule.layer,
        severity=rule.severity,
        title=fill(rule.title, facts, item),
        why=fill(rule.why, facts, item),
        # A templated step can fill to nothing (a finding without a corrected line).
        fix=[step for step in (fill(line, facts, item) for line in rule.fix) if step.strip()],
        evidence=_evidence(rule, facts, item),
        references=list(rule.references),
    )


def _sort_key(diag: Diagnosis) -> tuple[int, int, str]:
    return (LAYERS.index(diag.layer), SEVERITIES.index(diag.severity), diag.id)


def evaluate(rules: Iterable[Rule], facts: Mapping[str, Any]) -> list[Diagnosis]:
    """Every diagnosis, root causes first; diagnoses a firing rule explains are folded
    under it (kept in ``folded``, their ids listed in ``explains``)."""
    rules = list(rules)
    fired: list[tuple[Rule, Diagnosis]] = []
    for rule in rules:
        if rule.for_each:
            items = _lookup(facts, rule.for_each, None)
            for item in items if isinstance(items, list) else []:
                if matches(rule.when, facts, item):
                    fired.append((rule, _diagnose(rule, facts, item)))
        elif matches(rule.when, facts):
            fired.append((rule, _diagnose(rule, facts, None)))

    by_key: dict[str, list[Diagnosis]] = {}
    for rule, diag in fired:
        by_key.setdefault(rule.id, []).append(diag)
        by_key.setdefault(rule.name, []).append(diag)
    folded_ids: set[int] = set()
    for rule, diag in sorted(fired, key=lambda pair: _sort_key(pair[1])):
        if id(diag) in folded_ids:
            continue
        for target in rule.explains:
            for echo in by_key.get(target, []):
                if echo is not diag and id(echo) not in folded_ids:
                    folded_ids.add(id(echo))
                    diag.folded.append(echo)
                    if echo.id not in diag.explains:
                        diag.explains.append(echo.id)
    top = [diag for _rule, diag in fired if id(diag) not in folded_ids]
    return sorted(top, key=_sort_key)


def find_rule(rules: Iterable[Rule], key: str) -> Optional[Rule]:
    for rule in rules:
        if key in (rule.id, rule.name) or key.lower() in (rule.id.lower(), rule.name.lower()):
            return rule
    return None
