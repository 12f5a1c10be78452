"""Evaluating validated rules against a facts record.

Conditions have three answers: true, false, and unknown (``None``). A fact that is not in
the record is *unknown*, never "absent": absence is something a probe records (``found =
false``, an empty list), so only what was seen can be missing. Unknown spreads the way
Kleene's logic says (``not`` unknown is unknown; ``all`` is false if any part is false,
else unknown if any part is; ``any`` is true if any part is true), and a rule fires only
when its condition is true. The one operator that looks at the record itself is
``exists``: it asks whether a fact was recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from legacydoc.engine.model import LAYERS, SEVERITIES, Diagnosis, Rule
from legacydoc.facts import get
from legacydoc.i18n import rule_text
from legacydoc.shells import for_facts, line_for
from legacydoc.versions import parse_specifier, parse_version

# {fact.name} or {fact.name|text to print when the fact is not recorded}
TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.\-]*)(?:\|([^{}]*))?\}")
MISSING = object()
# What a user reads where a text names a fact that is not in the record.
UNKNOWN_TEXT = "unknown"
Truth = Optional[bool]


class MissingFact(LookupError):
    """A rule's text names a fact the record lacks (raised only in strict mode)."""


# The test suite turns this on: a rule that fires while its text needs an unrecorded fact
# is a bug in the rule (its condition should have required the fact).
STRICT_TEMPLATES = False


def lookup(facts: Mapping[str, Any], name: str, item: Any) -> Any:
    """The value of a fact (``item.x`` for the current list item), or MISSING."""
    if name.startswith("item."):
        if item is None:
            return MISSING
        return get(item, name[5:], MISSING) if isinstance(item, Mapping) else MISSING
    if name == "item":
        return item if item is not None else MISSING
    return get(facts, name, MISSING)


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


def _probed(facts: Mapping[str, Any], name: str) -> bool:
    """Was the table holding this fact probed? Derived facts are left out when unknown, so
    a missing one says nothing; a missing item field is simply not there."""
    from legacydoc.factschema.tables import PROBE_MARKERS

    table = name.split(".", 1)[0]
    if table == "derived":
        return False
    if get(facts, table + ".partial") is True:
        return False  # a table recorded in part (a report quoting some variables) says nothing of the rest
    marker = PROBE_MARKERS.get(table)
    if marker is not None and get(facts, marker) is None:
        return False
    if table == "packages":
        return _distribution_watched(facts, name)
    return True


def _distribution_watched(facts: Mapping[str, Any], name: str) -> bool:
    """A packages.<distribution> fact was looked for: the probe lists what it watches
    (packages.watched); a record from before that list is judged by the list of then."""
    from legacydoc.factschema.tables import PACKAGES, WATCHED_BEFORE_THE_LIST

    key = name.split(".")[1] if "." in name else ""
    if not key or key in PACKAGES.fields:
        return True  # a key the probe script reports itself, not a distribution
    watched = get(facts, "packages.watched")
    return key in (watched if isinstance(watched, list) else WATCHED_BEFORE_THE_LIST)


def _fact_condition(cond: Mapping[str, Any], facts: Mapping[str, Any], item: Any) -> Truth:
    value = lookup(facts, cond["fact"], item)
    op = next(k for k in cond if k != "fact")
    expected = cond[op]
    if op == "exists":
        if value is MISSING and not _probed(facts, cond["fact"]):
            return None  # never looked for: neither there nor absent
        return (value is not MISSING) == expected
    if value is MISSING:
        return None  # not recorded: nothing can be said about it
    if op == "equals":
        return bool(value == expected)
    if op == "not_equals":
        return bool(value != expected)
    if op == "in":
        return value in expected
    if op == "not_in":
        return value not in expected
    if op == "matches":
        return isinstance(value, (str, int, float)) and re.search(expected, str(value)) is not None
    if op == "version":
        version = parse_version(value)
        spec = parse_specifier(expected)
        if version is None or spec is None:
            return None  # a version we cannot read is not known
        return spec.contains(version, prereleases=True)
    if op in ("lt", "le", "gt", "ge"):
        return _compare_numbers(value, op, expected)
    if op == "contains":
        return isinstance(value, (list, str)) and expected in value
    if op == "not_contains":
        return isinstance(value, (list, str)) and expected not in value
    if op == "empty":
        return (not value) == expected
    raise AssertionError(op)  # validation rejects other operators


def _all(answers: Iterable[Truth]) -> Truth:
    unknown = False
    for answer in answers:
        if answer is False:
            return False
        unknown = unknown or answer is None
    return None if unknown else True


def _any(answers: Iterable[Truth]) -> Truth:
    unknown = False
    for answer in answers:
        if answer is True:
            return True
        unknown = unknown or answer is None
    return None if unknown else False


def truth(cond: Any, facts: Mapping[str, Any], item: Any = None) -> Truth:
    """True, False or None (unknown) for a validated condition."""
    if isinstance(cond, list):
        return _all(truth(c, facts, item) for c in cond)
    if "fact" in cond:
        return _fact_condition(cond, facts, item)
    if "all" in cond:
        return _all(truth(c, facts, item) for c in cond["all"])
    if "any" in cond:
        return _any(truth(c, facts, item) for c in cond["any"])
    if "not" in cond:
        inner = truth(cond["not"], facts, item)
        return None if inner is None else not inner
    quantifier = "some" if "some" in cond else "none"
    items = lookup(facts, cond[quantifier], item)
    if not isinstance(items, list):
        return None
    found = _any(truth(cond["where"], facts, it) for it in items)
    if found is None:
        return None
    return found if quantifier == "some" else not found


def matches(cond: Any, facts: Mapping[str, Any], item: Any = None) -> bool:
    """Does a (validated) condition certainly hold for these facts (and this list item)?"""
    return truth(cond, facts, item) is True


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(format_value(v) for v in value)
    return str(value)


def fill(text: str, facts: Mapping[str, Any], item: Any = None, strict: Optional[bool] = None) -> str:
    """Replace ``{a.b}`` by the fact's value; a fact not in the record reads "unknown"
    (and raises MissingFact in strict mode)."""
    strict = STRICT_TEMPLATES if strict is None else strict

    def replace(match: "re.Match[str]") -> str:
        value = lookup(facts, match.group(1), item)
        if value is MISSING and match.group(2) is not None:
            return match.group(2)
        if value is MISSING:
            if strict:
                raise MissingFact("{%s} in %r is not in the facts" % (match.group(1), text[:80]))
            return UNKNOWN_TEXT
        return format_value(value)

    filled = TEMPLATE.sub(replace, text)
    # an empty fallback ("Lasagne {packages.lasagne.version|} imports ...") leaves two spaces
    return re.sub(r"(?<=\S)  +(?=\S)", " ", filled) if "|" in text else filled


def condition_facts(cond: Any, out: list[str]) -> None:
    """Every fact name a condition reads, in order (with repeats)."""
    if isinstance(cond, list):
        for c in cond:
            condition_facts(c, out)
    elif isinstance(cond, Mapping):
        if "fact" in cond:
            out.append(cond["fact"])
        for key in ("all", "any"):
            if key in cond:
                condition_facts(cond[key], out)
        if "not" in cond:
            condition_facts(cond["not"], out)
        for key in ("some", "none"):
            if key in cond:
                out.append(cond[key])
                condition_facts(cond["where"], out)


def _evidence(rule: Rule, facts: Mapping[str, Any], item: Any) -> dict[str, Any]:
    names: list[str] = list(rule.evidence)
    if not names:
        condition_facts(rule.when, names)
    evidence: dict[str, Any] = {}
    for name in names:
        value = lookup(facts, name, item)
        if value is not MISSING and name not in evidence:
            if isinstance(value, list) and len(value) > 10:
                value = value[:10]
            evidence[name] = value
    return evidence


def diagnose(rule: Rule, facts: Mapping[str, Any], item: Any, from_log: bool = False) -> Diagnosis:
    # Fired by a message in the log: facts its text names may really be unknown.
    strict = False if from_log else None
    shell = for_facts(facts)
    evidence = _evidence(rule, facts, item)
    quoted = log_evidence(rule.id, facts)
    if quoted:
        evidence["log"] = quoted
    return Diagnosis(
        id=rule.id,
        name=rule.name,
        area=rule.area,
        layer=rule.layer,
        severity=rule.severity,
        title=fill(rule_text(rule.id, "title", rule.title), facts, item, strict),
        why=fill(rule_text(rule.id, "why", rule.why), facts, item, strict),
        # A templated step can fill to nothing (a finding without a corrected line).
        fix=[step for step in (fill(line_for(line, shell), facts, item, strict)
                               for line in rule_text(rule.id, "fix", rule.fix)) if step.strip()],
        evidence=evidence,
        references=list(rule.references),
    )


def log_evidence(rule_id: str, facts: Mapping[str, Any]) -> list[str]:
    """The log lines (as matched) of the messages that are evidence for this rule, and the
    import check's errors that are."""
    if rule_id not in (get(facts, "derived.log.rules") or []):
        return []
    from legacydoc.derive import import_check_matches
    from legacydoc.errors import flat_line
    from legacydoc.messages import by_id, catalogue

    known = by_id(catalogue())
    out = []
    matches = get(facts, "log.matches")
    for match in matches if isinstance(matches, list) else []:
        message = known.get(str(match.get("id"))) if isinstance(match, Mapping) else None
        if message is not None and rule_id in message.rules:
            line = match.get("line")
            out.append("line %s: %s" % (line if isinstance(line, int) else "?", flat_line(match.get("text", ""))))
    if get(facts, "derived.log.import_check_ids"):
        for module, message_id, text in import_check_matches(facts, get(facts, "derived.theano.backend")):
            message = known.get(message_id)
            if message is not None and rule_id in message.rules:
                out.append("import %s: %s" % (module, flat_line(text)))
    return out[:5]


def fires(rule: Rule, facts: Mapping[str, Any], log_rules: frozenset = frozenset()) -> Optional[str]:
    """'facts' when the rule's condition holds, 'log' when a message in the log is evidence
    for it and the recorded facts do not contradict it, else None. Either way the rule must
    apply to this Theano release and back-end, as far as they are known."""
    applies = truth(rule.applies, facts)
    if applies is False:
        return None
    gone = bool(rule.unless) and truth(rule.unless, facts) is True
    if rule.log_only:
        return "log" if rule.id in log_rules and not gone else None
    when = truth(rule.when, facts)
    if when is True and applies is True:
        return "facts"
    if rule.id in log_rules and when is not False and not gone:
        return "log"
    return None


def _sort_key(diag: Diagnosis) -> tuple[int, int, str]:
    return (LAYERS.index(diag.layer), SEVERITIES.index(diag.severity), diag.id)


def unknown_rules(rules: Iterable[Rule], facts: Mapping[str, Any]) -> dict[str, list[str]]:
    """Rules that could not be decided (their condition is unknown), with the facts they
    read that are not in the record: what a fuller record would settle."""
    out: dict[str, list[str]] = {}
    for rule in rules:
        applies = truth(rule.applies, facts)
        if rule.log_only or applies is False:
            continue  # decided by a log, or about another Theano era
        if rule.for_each:
            items = lookup(facts, rule.for_each, None)
            verdicts = [truth(rule.when, facts, item) for item in items] if isinstance(items, list) else []
            # undecided: no list, an item whose condition is unknown (no fired one beside it),
            # or a fired item of an unknown era
            undecided = not isinstance(items, list) or (True not in verdicts and None in verdicts) or (
                applies is None and True in verdicts)
        else:
            when = truth(rule.when, facts)
            # true, but whether it is about this Theano release or back-end is not known
            undecided = when is None or (when is True and applies is None)
        if undecided:
            names: list[str] = [rule.for_each] if rule.for_each else []
            condition_facts(rule.when, names)
            if applies is None:
                condition_facts(rule.applies, names)
            missing = [n for n in dict.fromkeys(names)
                       if not n.startswith("item") and lookup(facts, n, None) is MISSING]
            out[rule.id] = missing
    return out


def reads_the_project(missing: list[str]) -> bool:
    """Undecided only for want of what check --project finds in the project's code (its
    facts are there only when it found something): like a log-only rule's message, an input
    the user may give, not a gap in the record."""
    return bool(missing) and all(name.startswith("project.") for name in missing)


def _proven_error(rule: Rule, facts: Mapping[str, Any]) -> bool:
    """The facts alone make this rule fire as an error (not a log's evidence)."""
    if rule.severity != "error" or rule.log_only or truth(rule.applies, facts) is not True:
        return False
    if rule.for_each:
        items = lookup(facts, rule.for_each, None)
        return any(matches(rule.when, facts, item) for item in (items if isinstance(items, list) else []))
    return truth(rule.when, facts) is True


def _possible(rule: Rule, facts: Mapping[str, Any]) -> bool:
    """The facts do not rule the rule out: its era, and its condition (a log-only rule's
    'unless': the record shows the cause gone), as far as they are known."""
    if truth(rule.applies, facts) is False:
        return False
    if rule.unless and truth(rule.unless, facts) is True:
        return False
    return rule.log_only or truth(rule.when, facts) is not False


def _log_messages(by_rule: Mapping[str, Rule], facts: Mapping[str, Any]) -> tuple[list[Any], set[str]]:
    """The catalogue messages found in the log (and the import check's errors), and the ids
    of those something else accounts for: one of their causes is an error the record proves
    ("64-bit mode not compiled in" with a 32-bit g++ recorded), or one that another message
    of the log points at alone and the facts allow (Lasagne's pool.py importing downsample,
    under "cannot import name 'downsample'")."""
    ids = [*(get(facts, "log.ids") or []), *(get(facts, "derived.log.import_check_ids") or [])]
    from legacydoc.messages import by_id, catalogue

    known = by_id(catalogue())
    messages = [known[i] for i in dict.fromkeys(str(i) for i in ids) if i in known]
    singled_out = {m.rules[0] for m in messages
                   if len(m.rules) == 1 and m.rules[0] in by_rule and _possible(by_rule[m.rules[0]], facts)}
    settled = {m.id for m in messages
               if any(r in by_rule and _proven_error(by_rule[r], facts) for r in m.rules)
               or (len(m.rules) > 1 and any(r in singled_out for r in m.rules))}
    return messages, settled


def log_candidates(rules: Iterable[Rule], facts: Mapping[str, Any]) -> frozenset:
    """The rules a message in the log (or the import check) is evidence for, less the other
    causes of a message something else accounts for (:func:`_log_messages`): a missing
    libpython when a 32-bit g++ is proven, the project's own code when Lasagne's pool.py is
    the importer."""
    every = get(facts, "derived.log.rules") or []
    if not every:
        return frozenset()
    messages, settled = _log_messages({rule.id: rule for rule in rules}, facts)
    accounted: set[str] = set()
    open_: set[str] = set()  # candidates of a message nothing else accounts for
    for message in messages:
        (accounted if message.id in settled else open_).update(message.rules)
    return frozenset(r for r in every if r not in accounted or r in open_)


def _rivals(message: Any, first: Rule, second: Rule) -> bool:
    """Two causes of one message that exclude each other: no cause of the message names
    both (LD400 and LD401 are one cause, no g++, seen from two sides), and neither explains
    the other (then one is folded under the other, not beside it)."""
    if any(first.id in cause.rules and second.id in cause.rules for cause in message.causes):
        return False
    explained = {*first.explains, *second.explains}
    return not ({first.id, first.name, second.id, second.name} & explained)


def _alternatives(
    by_rule: Mapping[str, Rule], facts: Mapping[str, Any], on_log_alone: set[str]
) -> dict[str, tuple[list[str], str]]:
    """For each rule fired on the log alone, the rival causes one open message of the log
    points at that fired on it alone too, and that message: the log shows that one of them
    happened, the record does not say which (a downsample ImportError: Lasagne 0.1 or the
    project's own code). A message something else accounts for, or one whose candidates
    another message points at alone, leaves no doubt."""
    if len(on_log_alone) < 2:
        return {}
    messages, settled = _log_messages(by_rule, facts)
    sure: set[str] = set()
    groups: list[tuple[Any, list[str]]] = []
    for message in messages:
        if message.id in settled:
            continue
        group = [r for r in message.rules if r in on_log_alone and r in by_rule]
        if len(group) == 1:
            sure.add(group[0])
        elif group:
            groups.append((message, group))
    out: dict[str, tuple[list[str], str]] = {}
    for message, group in groups:
        if any(r in sure for r in group):
            continue
        for rule_id in group:
            others = [o for o in group if o != rule_id and _rivals(message, by_rule[rule_id], by_rule[o])]
            if others and rule_id not in out:
                out[rule_id] = (others, message.id)
    return out


def _all_ruled_out(rule: Rule, facts: Mapping[str, Any], items: Any) -> bool:
    """Every recorded thing certainly contradicts a per-item rule that says its items decide
    (each GPU recorded is Kepler or newer): a log line cannot make it true of one the record
    has. The loader allows items_decide only over lists that hold every recorded thing."""
    if not (rule.items_decide and isinstance(items, list) and items):
        return False
    return all(truth(rule.when, facts, it) is False for it in items)


def evaluate(rules: Iterable[Rule], facts: Mapping[str, Any]) -> list[Diagnosis]:
    """Every diagnosis, root causes first; diagnoses a firing rule explains are folded
    under it (kept in ``folded``, their ids listed in ``explains``); one of several causes
    a message of the log equally points at lists the others (``alternatives``)."""
    fired: list[tuple[Rule, Diagnosis]] = []
    on_log_alone: set[str] = set()
    rules = list(rules)
    log_rules = log_candidates(rules, facts)
    for rule in rules:
        if rule.for_each:
            applies = truth(rule.applies, facts)
            if applies is False:
                continue
            items = lookup(facts, rule.for_each, None)
            hits = [item for item in (items if isinstance(items, list) else []) if matches(rule.when, facts, item)]
            if applies is True and hits:
                fired.extend((rule, diagnose(rule, facts, item)) for item in hits)
            elif rule.id in log_rules and (hits or not _all_ruled_out(rule, facts, items)):
                # The era is unknown, the log says it happened: the matching items are the
                # evidence; without any (the config was not read, an item is undecided) it
                # fires once, item-less.
                fired.extend((rule, diagnose(rule, facts, item, from_log=True)) for item in hits or [None])
                on_log_alone.add(rule.id)
            continue
        how = fires(rule, facts, log_rules)
        if how is not None:
            fired.append((rule, diagnose(rule, facts, None, from_log=how == "log")))
            if how == "log":
                on_log_alone.add(rule.id)
    for rule_id, (others, message_id) in _alternatives({r.id: r for r in rules}, facts, on_log_alone).items():
        for _rule, diag in fired:
            if diag.id == rule_id:
                diag.alternatives, diag.alternatives_message = list(others), message_id

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
    # Within a layer and severity, a rule's second finding (another option, another GPU)
    # comes after every rule's first: the first screen shows different problems before
    # the repeats of one.
    repeat: dict[int, int] = {}
    count: dict[str, int] = {}
    for diag in top:
        repeat[id(diag)] = count.get(diag.id, 0)
        count[diag.id] = repeat[id(diag)] + 1
    return sorted(top, key=lambda diag: (*_sort_key(diag)[:2], repeat[id(diag)], diag.id))
