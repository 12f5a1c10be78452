"""Loading rule packs: TOML data in, validated :class:`Rule` objects out.

A rule file holds ``[[rule]]`` tables, and may hold one ``[config_findings]`` table: rules
that each turn some kinds of the Theano config model's findings into a diagnosis, with
the text the finding carries (see rules/config.toml). Every problem is a one-line
:class:`RuleError` naming the file and the rule, raised before any rule runs.

A condition is one of

* ``{ fact = "a.b", <operator> = value }`` with operator ``exists`` (bool: was the fact
  recorded), ``equals``, ``not_equals``, ``in`` (list), ``not_in`` (list), ``matches``
  (regex, searched), ``version`` (a PEP 440 specifier such as ``">=1.22,<1.24"``), ``lt`` /
  ``le`` / ``gt`` / ``ge`` (numbers), ``contains`` / ``not_contains`` (a list or text holds
  the value), ``empty`` (bool);
* ``{ all = [...] }``, ``{ any = [...] }``, ``{ not = {...} }``;
* ``{ some = "a.list", where = {...} }`` / ``{ none = "a.list", where = {...} }``: some /
  no item of a list satisfies ``where``, in which ``item.x`` names the item's fields.

A rule with ``for_each = "a.list"`` is evaluated once per item (``item.x`` in its
condition and text). A rule's ``when`` is a condition or a list of conditions (all must
hold). Text fields are templates: ``{packages.numpy.version}`` is replaced by the value.
Fact names are checked against :mod:`legacydoc.factschema`, ``item.x`` against the fields
declared for that list.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from legacydoc import factschema, locate, parsecache
from legacydoc.areas import AREA_NAMES
from legacydoc.engine.evaluation import TEMPLATE
from legacydoc.engine.model import LAYERS, SEVERITIES, Rule, RuleError
from legacydoc.shells import Step, validate_step
from legacydoc.versions import parse_specifier

RULE_KEYS = frozenset({
    "id", "name", "area", "layer", "severity", "title", "why", "fix", "references", "explains",
    "when", "for_each", "evidence", "fires", "quiet", "applies", "log_only", "unless", "items_decide",
})
REQUIRED_KEYS = ("id", "name", "area", "layer", "severity", "title", "why", "fix", "applies")
# The back-ends a rule may name in `applies`: Theano's old CUDA back-end (device=gpu*,
# theano.sandbox.cuda, 0.7-0.9), the gpuarray one (device=cuda*/opencl*, pygpu, 0.9-1.0.5
# and Theano-PyMC), the CPU, and "unknown": the device setting was not read.
BACKENDS = ("old", "gpuarray", "cpu", "unknown")
FACT_OPERATORS = frozenset({
    "exists", "equals", "not_equals", "in", "not_in", "matches", "version", "lt", "le", "gt", "ge",
    "contains", "not_contains", "empty",
})
LIST_QUANTIFIERS = frozenset({"some", "none"})
# One item of a list a condition is iterating over: the list's name, None outside.
Scope = Optional[str]


def _fail(source: str, rule_id: str, message: str) -> RuleError:
    where = "%s: rule %s" % (source, rule_id) if rule_id else source
    return RuleError("%s: %s" % (where, message))


def _check_fact_name(name: Any, source: str, rule_id: str, scope: Scope) -> None:
    if not isinstance(name, str) or not name:
        raise _fail(source, rule_id, "a fact name must be a non-empty string, got %r" % (name,))
    if name.startswith("item."):
        if scope is None:
            raise _fail(source, rule_id, "'%s' used outside for_each/some/none" % name)
        if not factschema.is_item_field(scope, name[5:]):
            raise _fail(source, rule_id, "'%s': the items of '%s' have no field '%s'" % (name, scope, name[5:]))
        return
    if not factschema.is_known(name):
        raise _fail(source, rule_id, "unknown fact name '%s'" % name)


def _check_operator(cond: Mapping[str, Any], source: str, rule_id: str) -> None:
    ops = set(cond) - {"fact"}
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


def validate_condition(cond: Any, source: str, rule_id: str, scope: Scope) -> None:
    if isinstance(cond, list):
        for sub in cond:
            validate_condition(sub, source, rule_id, scope)
        return
    if not isinstance(cond, Mapping):
        raise _fail(source, rule_id, "a condition must be a table, got %r" % (cond,))
    keys = set(cond)
    if "fact" in keys:
        _check_fact_name(cond["fact"], source, rule_id, scope)
        _check_operator(cond, source, rule_id)
        return
    if keys in ({"all"}, {"any"}):
        sub = cond["all" if "all" in keys else "any"]
        if not isinstance(sub, list):
            raise _fail(source, rule_id, "'all'/'any' need a list of conditions")
        validate_condition(sub, source, rule_id, scope)
        return
    if keys == {"not"}:
        validate_condition(cond["not"], source, rule_id, scope)
        return
    quantifier = keys & LIST_QUANTIFIERS
    if quantifier and keys == quantifier | {"where"} and len(quantifier) == 1:
        listed = cond[quantifier.pop()]
        _check_fact_name(listed, source, rule_id, scope)
        if not factschema.is_list(listed):
            raise _fail(source, rule_id, "'%s' is not a list of tables" % listed)
        validate_condition(cond["where"], source, rule_id, listed)
        return
    raise _fail(source, rule_id, "unknown condition keys %s" % ", ".join(sorted(map(str, keys))))


def _as_str_tuple(value: Any, key: str, source: str, rule_id: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _fail(source, rule_id, "'%s' must be a string or a list of strings" % key)


def _fix_steps(value: Any, source: str, rule_id: str) -> tuple[Step, ...]:
    steps = [value] if isinstance(value, str) else value
    if not isinstance(steps, list):
        raise _fail(source, rule_id, "'fix' must be a string or a list of steps")
    for step in steps:
        problem = validate_step(step)
        if problem:
            raise _fail(source, rule_id, "'fix': %s" % problem)
    return tuple(step if isinstance(step, str) else dict(step) for step in steps)


def _validate_template(text: str, source: str, rule_id: str, scope: Scope) -> None:
    for name, _fallback in TEMPLATE.findall(text):
        _check_fact_name(name, source, rule_id, scope)


def _examples(value: Any, key: str, source: str, rule_id: str) -> tuple[dict, ...]:
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise _fail(source, rule_id, "'%s' must be a list of tables of facts ([[rule.%s]])" % (key, key))
    for case in value:
        for name in case:
            _check_fact_name(name, source, rule_id, None)
    return tuple(dict(v) for v in value)


def applies_condition(value: Any, source: str, rule_id: str) -> tuple[list[dict[str, Any]], str]:
    """``applies = { theano = "<specifier>" | "any", backend = [...] | "any" }`` as a condition
    on derived facts, and in words. Every rule says which era it is about: a rule for the
    old back-end must not speak about Theano 1.0, and the reverse."""
    if not isinstance(value, Mapping) or set(value) != {"theano", "backend"}:
        raise _fail(source, rule_id, "'applies' must be a table with 'theano' and 'backend'")
    cond: list[dict[str, Any]] = []
    words = []
    theano, backend = value["theano"], value["backend"]
    if theano != "any":
        if parse_specifier(theano) is None:
            raise _fail(source, rule_id, "applies.theano: not a version specifier or 'any': %r" % (theano,))
        cond.append({"fact": "derived.theano.version", "version": theano})
        words.append("Theano %s" % theano)
    else:
        words.append("any Theano")
    if backend != "any":
        if (not isinstance(backend, list) or not backend or not all(b in BACKENDS for b in backend)):
            raise _fail(source, rule_id, "applies.backend: 'any' or a list of %s" % ", ".join(BACKENDS))
        known = [b for b in backend if b != "unknown"]
        # "unknown": also when the device is not known (a fact about the installation that
        # matters once the GPU is configured), but never on a known other back-end.
        which: dict[str, Any] = {"fact": "derived.theano.backend", "in": known}
        if "unknown" in backend:
            which = {"any": [which, {"fact": "derived.theano.backend_known", "equals": False}]}
        cond.append(which)
        words.append("the %s back-end%s%s" % (" or ".join(known), "s" if len(known) > 1 else "",
                                                " or an unknown device" if "unknown" in backend else ""))
    else:
        words.append("any back-end")
    return cond, ", ".join(words)


def rule_from_table(table: Any, source: str, checked: bool = False) -> Rule:
    """A rule table as a :class:`Rule`; ``checked``: a verdict of this validator vouches
    for the table (see :func:`load_rule_file`), so it is only built, not checked again."""
    if not checked:
        _check_rule_table(table, source)
    return _build_rule(table, source)


def _check_rule_table(table: Any, source: str) -> None:
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
    if table["area"] not in AREA_NAMES:
        raise _fail(source, rule_id, "area %r is not one of %s" % (table["area"], ", ".join(AREA_NAMES)))
    if table["severity"] not in SEVERITIES:
        raise _fail(source, rule_id, "severity %r is not one of %s" % (table["severity"], ", ".join(SEVERITIES)))
    for_each = table.get("for_each", "")
    scope: Scope = None
    if for_each:
        _check_fact_name(for_each, source, rule_id, None)
        if not factschema.is_list(for_each):
            raise _fail(source, rule_id, "for_each: '%s' is not a list of tables" % for_each)
        scope = for_each
    log_only = table.get("log_only", False)
    if not isinstance(log_only, bool):
        raise _fail(source, rule_id, "'log_only' must be true or false")
    if log_only == ("when" in table):
        raise _fail(source, rule_id, "a rule needs a 'when' condition, or log_only = true (and no 'when')")
    if log_only and for_each:
        raise _fail(source, rule_id, "a log_only rule cannot iterate (for_each)")
    when = table.get("when", [])
    validate_condition(when, source, rule_id, scope)
    if "unless" in table and for_each:
        raise _fail(source, rule_id, "'unless' is for rules that do not iterate (for_each)")
    items_decide = table.get("items_decide", False)
    if not isinstance(items_decide, bool):
        raise _fail(source, rule_id, "'items_decide' must be true or false")
    if items_decide and not (for_each and factschema.enumerates(for_each)):
        raise _fail(source, rule_id, "'items_decide' needs for_each over a list that holds every recorded thing "
                    "of its kind (gpu.devices, derived.gpus)")
    unless = table.get("unless", [])
    if unless:
        validate_condition(unless, source, rule_id, None)
    applies_condition(table["applies"], source, rule_id)
    for text_key in ("title", "why"):
        _validate_template(table[text_key], source, rule_id, scope)
    for step in _fix_steps(table["fix"], source, rule_id):
        for line in ([step] if isinstance(step, str) else list(step.values())):
            _validate_template(line, source, rule_id, scope)
    for key in ("fires", "quiet"):
        _examples(table.get(key, []), key, source, rule_id)
    for name in _as_str_tuple(table.get("evidence", []), "evidence", source, rule_id):
        _check_fact_name(name, source, rule_id, scope)
    for key in ("references", "explains"):
        _as_str_tuple(table.get(key, []), key, source, rule_id)


def _build_rule(table: Mapping[str, Any], source: str) -> Rule:
    rule_id = table["id"]
    applies, applies_text = applies_condition(table["applies"], source, rule_id)
    fix = table["fix"]
    return Rule(
        id=rule_id,
        name=table["name"],
        area=table["area"],
        layer=table["layer"],
        severity=table["severity"],
        title=table["title"].strip(),
        why=table["why"].strip(),
        fix=tuple(step if isinstance(step, str) else dict(step) for step in ([fix] if isinstance(fix, str) else fix)),
        when=table.get("when", []),
        source=source,
        references=_as_str_tuple(table.get("references", []), "references", source, rule_id),
        explains=_as_str_tuple(table.get("explains", []), "explains", source, rule_id),
        for_each=table.get("for_each", ""),
        evidence=_as_str_tuple(table.get("evidence", []), "evidence", source, rule_id),
        fires=tuple(dict(case) for case in table.get("fires", [])),
        quiet=tuple(dict(case) for case in table.get("quiet", [])),
        applies=applies,
        applies_text=applies_text,
        log_only=table.get("log_only", False),
        unless=table.get("unless", []),
        items_decide=table.get("items_decide", False),
    )


# --- the config-findings table --------------------------------------------------------

CONFIG_SHARED_KEYS = frozenset({
    "area", "layer", "for_each", "why", "fix", "evidence", "references", "example", "rule", "applies",
})
CONFIG_RULE_KEYS = frozenset({
    "id", "name", "severity", "kinds", "title", "references", "explains", "fires", "quiet", "applies",
})


def _config_example(case: Any, base: Mapping[str, Any], source: str, rule_id: str) -> dict[str, Any]:
    """A compact example ``{ theanorc = "<file text>", <fact> = ... }`` as full facts: the
    text becomes the one config file of the shared ``example`` facts."""
    if not isinstance(case, Mapping):
        raise _fail(source, rule_id, "an example must be a table")
    facts = {k: v for k, v in base.items() if k != "theanorc_file"}
    out = dict(case)
    text = out.pop("theanorc", None)
    if text is not None:
        if not isinstance(text, str):
            raise _fail(source, rule_id, "'theanorc' in an example must be the file's text")
        file_fact = dict(base.get("theanorc_file", {}))
        file_fact["text"] = text
        facts["theano_config.files"] = [file_fact]
    facts.update(out)
    return facts


def config_rules(table: Any, source: str) -> list[dict[str, Any]]:
    """The ``[config_findings]`` table expanded into ordinary rule tables."""
    if not isinstance(table, Mapping):
        raise _fail(source, "", "'config_findings' must be a table")
    unknown = set(table) - CONFIG_SHARED_KEYS
    if unknown:
        raise _fail(source, "", "config_findings: unknown key '%s'" % sorted(unknown)[0])
    base = table.get("example", {})
    if not isinstance(base, Mapping):
        raise _fail(source, "", "config_findings.example must be a table of facts")
    shared = {k: table[k] for k in ("area", "layer", "for_each", "why", "fix", "evidence", "applies") if k in table}
    out = []
    for entry in table.get("rule", []):
        if not isinstance(entry, Mapping):
            raise _fail(source, "", "each [[config_findings.rule]] must be a table")
        rule_id = str(entry.get("id", "")) or "<no id>"
        extra = set(entry) - CONFIG_RULE_KEYS
        if extra:
            raise _fail(source, rule_id, "unknown key '%s'" % sorted(extra)[0])
        kinds = entry.get("kinds")
        if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds):
            raise _fail(source, rule_id, "'kinds' must be a non-empty list of finding kinds")
        from legacydoc.theanorc.findings import KINDS

        unknown_kinds = [k for k in kinds if k not in KINDS]
        if unknown_kinds:
            raise _fail(source, rule_id, "unknown finding kind '%s'" % unknown_kinds[0])
        rule = dict(shared)
        # An entry may narrow the shared era (a finding true of Theano 1.0 only).
        rule.update({k: entry[k] for k in ("id", "name", "severity", "title", "explains", "applies") if k in entry})
        rule["references"] = list(table.get("references", [])) + list(entry.get("references", [])) + [
            "legacydoc/theanorc/checks/base.py: the config model's findings of kind %s" % ", ".join(kinds)
        ]
        rule["when"] = {"fact": "item.kind", "in": list(kinds)}
        for key in ("fires", "quiet"):
            cases = entry.get(key, [])
            if not isinstance(cases, list):
                raise _fail(source, rule_id, "'%s' must be a list of examples" % key)
            rule[key] = [_config_example(case, base, source, rule_id) for case in cases]
        out.append(rule)
    return out


# --- files and packs --------------------------------------------------------------------


def builtin_rules_dir() -> Path:
    return locate.rules_dir()


@functools.lru_cache(maxsize=1)
def validator_id() -> str:
    """What decides whether a rule pack is valid: this module, the rule model, the template
    syntax, the fact schema, the areas, the shells' step check, the version specifiers and
    the config findings' kinds (their sources), the packaging library that parses the
    specifiers, and the Python that runs them. Empty when a source cannot be read: then no
    verdict is kept or trusted."""
    import sys

    import packaging

    from legacydoc import areas, shells, versions
    from legacydoc.engine import evaluation, model
    from legacydoc.theanorc import findings

    sources = [__file__, model.__file__, evaluation.__file__, areas.__file__, shells.__file__, versions.__file__,
               findings.__file__]
    sources += sorted(str(p) for p in Path(factschema.__file__).parent.glob("*.py"))
    try:
        joined = b"\0".join(Path(source).read_bytes() for source in sources)
    except (OSError, TypeError):
        return ""
    return "rules %s packaging %s python %d.%d" % (
        parsecache.digest(joined), packaging.__version__, *sys.version_info[:2])


def load_rule_file(path: Path) -> list[Rule]:
    """A rule pack's rules. Checking every rule takes 13-19 ms, a twentieth of a check: a
    pack this validator accepted before, as the same parsed data, is only built."""
    data, stored = locate.read_toml_stored(path, "rule file", RuleError)
    checker = validator_id() if stored is not None else ""
    key = b"rule pack\0" + stored if checker and stored is not None else None
    checked = key is not None and parsecache.known_valid(checker, key)
    unknown = set(data) - {"rule", "pack", "config_findings"}
    if unknown:
        raise RuleError("%s: unknown top-level key '%s' (expected [[rule]] tables)" % (path, sorted(unknown)[0]))
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        raise RuleError("%s: 'rule' must be an array of tables ([[rule]])" % path)
    if "config_findings" in data:
        tables = list(tables) + config_rules(data["config_findings"], str(path))
    rules = [rule_from_table(t, str(path), checked) for t in tables]
    if key is not None and not checked:
        parsecache.remember_valid(checker, key)
    return rules


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


def find_rule(rules: Sequence[Rule], key: str) -> Optional[Rule]:
    for rule in rules:
        if key in (rule.id, rule.name) or key.lower() in (rule.id.lower(), rule.name.lower()):
            return rule
    return None
