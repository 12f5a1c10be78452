"""The shipped rule pack: it loads, every rule documents itself, and every rule's own
examples (``fires`` / ``quiet``) behave as written, through derive and the engine."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest

from legacydoc import facts
from legacydoc.checkup import run_check
from legacydoc.engine import Diagnosis, Rule, load_rules

RULES = load_rules()


def record_from_example(example: dict[str, Any]) -> dict[str, Any]:
    """A facts record with the example's dotted names set on empty tables."""
    record = facts.new_record({})
    for dotted, value in example.items():
        node = record
        parts = dotted.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return record


def fired_ids(record: dict[str, Any]) -> set[str]:
    return {diag.id for diag in run_check(record, RULES).every()}


def _cases(kind: str) -> list:
    return [
        pytest.param(rule, example, id="%s-%s-%d" % (rule.id, kind, n))
        for rule in RULES
        for n, example in enumerate(getattr(rule, kind))
    ]


def test_the_pack_is_big_enough_and_ids_are_stable_codes() -> None:
    assert len(RULES) >= 30
    for rule in RULES:
        assert rule.id.startswith("LD") and rule.id[2:].isdigit(), rule.id
        assert rule.name == rule.name.lower() and " " not in rule.name, rule.name


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_every_rule_has_a_firing_and_a_quiet_example_and_references(rule: Rule) -> None:
    assert rule.fires, "%s has no example that fires" % rule.id
    assert rule.quiet, "%s has no example that stays quiet" % rule.id
    assert rule.fix and all((step if isinstance(step, str) else step["bash"]).strip() for step in rule.fix)
    assert rule.references, "%s cites nothing" % rule.id


@pytest.mark.parametrize("rule, example", _cases("fires"))
def test_rule_fires_on_its_example(rule: Rule, example: dict) -> None:
    assert rule.id in fired_ids(record_from_example(example))


@pytest.mark.parametrize("rule, example", _cases("quiet"))
def test_rule_stays_quiet_on_its_example(rule: Rule, example: dict) -> None:
    assert rule.id not in fired_ids(record_from_example(example))


def firing_diagnoses() -> Iterator[tuple[Rule, Diagnosis]]:
    """Each rule's own diagnoses (folded ones too) on each of its firing examples."""
    for rule in RULES:
        for example in rule.fires:
            stack = list(run_check(record_from_example(example), RULES).diagnoses)
            while stack:
                diag = stack.pop()
                stack.extend(diag.folded)
                if diag.id == rule.id:
                    yield rule, diag


def test_templates_are_filled_on_firing_examples() -> None:
    """A firing example leaves no '{fact}' placeholder behind in a title."""
    for rule, diag in firing_diagnoses():
        assert "{" not in diag.title, (rule.id, diag.title)


# Finding kinds whose diagnosis comes from a rule in another layer (with its own fix),
# so rules/config.toml leaves them out instead of saying the same thing twice.
COVERED_ELSEWHERE = {
    "cuda-without-pygpu": "LD115",
    "cuda-without-gpu": "LD602",
    "cuda-without-compiler": "LD400",
    "blas-ldflags-needed": "LD105",
}


def test_every_config_finding_kind_reaches_a_rule() -> None:
    from legacydoc.theanorc.findings import KINDS

    covered: set[str] = set()
    for rule in RULES:
        if rule.for_each == "config.findings":
            cond = rule.when
            covered.update([cond["equals"]] if "equals" in cond else cond.get("in", []))
    ids = {r.id for r in RULES}
    for kind, rule_id in COVERED_ELSEWHERE.items():
        assert rule_id in ids
        covered.add(kind)
    assert set(KINDS) <= covered, sorted(set(KINDS) - covered)


def test_config_lines_in_fixes_paste_as_they_are() -> None:
    """A fix that gives .theanorc lines gives only those: on Python 3 anything after the
    value (a note in brackets, a '#' comment) becomes part of it."""
    assert paste_problems() == []


def paste_problems() -> list[tuple[str, str]]:
    """Config lines in the fixes of every rule's firing examples that would not paste."""
    bad = []
    for rule, diag in firing_diagnoses():
        for step in diag.fix:
            lines = step.splitlines()
            for before, line in zip(lines, lines[1:]):
                if re.search(r"\[[\w.]+\]\s*$", before) and " = " in line:
                    if not before.strip().startswith("["):  # prose before the section header
                        bad.append((rule.id, before))
                    value = line.split(" = ", 1)[1]
                    if "  " in value or "#" in value or ";" in value or " (" in value:
                        bad.append((rule.id, line))
    return bad


def test_g_plus_plus_not_detected_blames_the_gpu_only_when_the_device_is_known() -> None:
    """Theano prints "g++ not detected" whatever the device: from the log alone it is
    LD401 (no compiler); LD400 (the GPU needs one) only with device=gpu/cuda recorded."""
    log = {"ids": ["theano-gxx-not-detected"],
           "matches": [{"id": "theano-gxx-not-detected", "line": 1, "text": "g++ not detected !"}]}
    theano = {"theano": {"name": "Theano", "version": "0.8.2"}}
    unknown_device = fired_ids({"packages": theano, "log": log})
    assert "LD401" in unknown_device and "LD400" not in unknown_device
    gpu = fired_ids({"packages": theano, "log": log, "theano_config": {"flags": {"THEANO_FLAGS": "device=gpu"}}})
    assert "LD400" in gpu


def _absence_claims(node: Any) -> Iterator[str]:
    """Every fact a condition says is absent (``exists = false``), anywhere in a rule."""
    if isinstance(node, dict):
        if node.get("exists") is False and isinstance(node.get("fact"), str):
            yield node["fact"]
        for value in node.values():
            yield from _absence_claims(value)
    elif isinstance(node, list):
        for value in node:
            yield from _absence_claims(value)


def test_a_package_is_claimed_absent_only_where_the_probe_looks_for_it() -> None:
    """The probe records only the distributions in its MATTERS list: any other one is
    missing from every record, installed or not, so `exists = false` on it would claim an
    absence nobody saw (LD170's mpi4py needed adding there)."""
    from legacydoc.factschema.tables import PACKAGES
    from legacydoc.probes.target_script import MATTERS

    script_keys = set(PACKAGES.fields)
    claimed = {fact.split(".")[1] for rule in RULES for part in (rule.when, rule.unless)
               for fact in _absence_claims(part) if fact.startswith("packages.")}
    assert claimed, "no rule claims a package absent: the test would check nothing"
    assert sorted(name for name in claimed if name not in MATTERS and name not in script_keys) == []


def test_a_package_added_to_the_watch_list_is_unknown_in_older_records() -> None:
    """Records list what the probe looked for (packages.watched); one written before that
    list is judged by the list of then, so a package watched since (mpi4py) is unknown there,
    not absent, and the probe never stops watching what older records were judged by."""
    from legacydoc.engine.evaluation import truth
    from legacydoc.factschema.tables import WATCHED_BEFORE_THE_LIST
    from legacydoc.probes.target_script import MATTERS

    assert WATCHED_BEFORE_THE_LIST <= set(MATTERS)
    absent = [{"fact": "packages.mpi4py", "exists": False}]
    old = facts.new_record({"packages": {"found": ["numpy", "theano"]}})
    new = facts.new_record({"packages": {"found": ["numpy", "theano"], "watched": list(MATTERS)}})
    assert truth(absent, old) is None
    assert truth(absent, new) is True
    assert truth([{"fact": "packages.h5py", "exists": False}], old) is True  # watched all along


def test_a_rule_about_the_old_back_end_never_applies_to_a_release_without_it() -> None:
    """device=gpu under Theano 0.10 or 1.0 fails at import (LD516): no rule of the old
    back-end may claim more about it (nvcc, MSVC, cuDNN's old ops)."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from legacydoc.readiness import OLD_BACKEND_GONE

    for rule in load_rules():
        backends = next((c["in"] for c in rule.applies if c.get("fact") == "derived.theano.backend"), None)
        spec = next((c["version"] for c in rule.applies if c.get("fact") == "derived.theano.version"), None)
        if backends != ["old"] or spec is None:
            continue
        assert not SpecifierSet(spec).contains(Version(OLD_BACKEND_GONE), prereleases=True), rule.id
