"""derived.theano.failure: each known Theano failure is hit, not hit, or unknown (its
deciding version not recorded) -- never "not hit" for lack of a version."""

from __future__ import annotations

import re

from legacydoc import knowledge
from legacydoc.derive import enrich
from legacydoc.engine import load_rules
from legacydoc.engine.evaluation import condition_facts

FAILURE_FACT = re.compile(r"^derived\.theano\.failure\.(.+)$")


def _failure_rows() -> list[dict]:
    return list(knowledge.default()._rows("theano_releases", "failure"))


def test_failure_ids_are_unique() -> None:
    ids = [row["id"] for row in _failure_rows()]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_every_failure_a_rule_reads_is_in_the_table() -> None:
    known = {row["id"] for row in _failure_rows()}
    read = set()
    for rule in load_rules():
        names: list[str] = []
        condition_facts(rule.when, names)
        read |= {m.group(1) for m in map(FAILURE_FACT.match, names) if m}
    assert read, "no rule reads derived.theano.failure.*"
    assert read <= known, sorted(read - known)


def _failure(packages: dict) -> dict:
    return enrich({"schema": 1, "packages": packages})["derived"]["theano"]["failure"]


def test_an_unrecorded_numpy_leaves_the_numpy_failures_unknown() -> None:
    verdicts = _failure({"theano": {"name": "Theano", "version": "1.0.5"}})
    assert "numpy-bool-alias" not in verdicts and "numpy2-gemm-compile" not in verdicts
    assert "python312-safeconfigparser" not in verdicts  # nor the Python one without a Python


def test_a_recorded_numpy_decides_them() -> None:
    theano = {"name": "Theano", "version": "1.0.5"}
    assert _failure({"theano": theano, "numpy": {"name": "numpy", "version": "1.26.4"}})["numpy-bool-alias"] is True
    assert _failure({"theano": theano, "numpy": {"name": "numpy", "version": "1.21.6"}})["numpy-bool-alias"] is False


def test_a_failure_of_other_releases_is_not_hit_whatever_is_unknown() -> None:
    # numpy-bool-alias applies to Theano 0.9 and later: 0.8.2 never hits it
    verdicts = _failure({"theano": {"name": "Theano", "version": "0.8.2"}})
    assert verdicts["numpy-bool-alias"] is False


def test_a_failure_without_a_version_condition_is_listed_but_not_decided() -> None:
    # old-gpu-backend hangs on a setting (device=gpu), not on a version: the list names it
    # for the release, the verdicts leave it unknown
    packages = {"theano": {"name": "Theano", "version": "1.0.5"}}
    theano = enrich({"schema": 1, "packages": packages})["derived"]["theano"]
    assert "old-gpu-backend" in theano["failures"]
    assert "old-gpu-backend" not in theano["failure"]


def test_no_cudnn_found_decides_the_cudnn_failures() -> None:
    packages = {"theano": {"name": "Theano", "version": "1.0.5"}}
    unknown = enrich({"schema": 1, "packages": packages})["derived"]["theano"]["failure"]
    assert "cudnn8-removed-api" not in unknown  # cuDNN never looked for
    absent = enrich({"schema": 1, "packages": packages, "cudnn": {"headers": []}})["derived"]["theano"]["failure"]
    assert absent["cudnn8-removed-api"] is False and absent["cudnn-too-new-warning"] is False
