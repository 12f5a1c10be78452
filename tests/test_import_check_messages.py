"""The import check's own error lines (check --import-check) are read with the message
catalogue, as a log would be: the exception an import stopped on names its cause."""

from __future__ import annotations

import json
from pathlib import Path

import tomli_w

from legacydoc.checkup import run_check
from legacydoc.derive import enrich
from legacydoc.engine import load_rules
from test_cli import run_cli

NUMPY_BOOL = "AttributeError: module 'numpy' has no attribute 'bool'."


def _record(check: dict) -> dict:
    return {
        "schema": 1,
        "system": {"os": "linux"},
        "packages": {"theano": {"name": "Theano", "version": "1.0.5"}, "import_check": {"theano": check}},
    }


def _ids(record: dict) -> list[str]:
    return [d.id for d in run_check(record, load_rules()).diagnoses]


def test_a_failed_import_names_the_rule_its_message_is_evidence_for() -> None:
    record = _record({"ok": False, "error": NUMPY_BOOL})
    derived = enrich(record)["derived"]["log"]
    assert derived["import_check_ids"] == ["numpy-no-attribute-bool"]
    assert "found" not in derived  # no log was given
    diagnosis = next(d for d in run_check(record, load_rules()).diagnoses if d.id == "LD106")
    assert diagnosis.evidence["log"] == ["import theano: " + NUMPY_BOOL.rstrip(".")]


def test_a_skipped_or_passing_import_check_is_no_evidence() -> None:
    skipped = _record({"ok": False, "skipped": True, "error": NUMPY_BOOL})
    passed = _record({"ok": True, "version": "1.0.5"})
    for record in (skipped, passed):
        assert "log" not in enrich(record)["derived"]
        assert "LD106" not in _ids(record)


def test_the_record_can_still_overrule_the_import_check() -> None:
    # numpy 1.21.6 has np.bool: the error came from another numpy, the rule stays quiet
    record = _record({"ok": False, "error": NUMPY_BOOL})
    record["packages"]["numpy"] = {"name": "numpy", "version": "1.21.6"}
    assert "LD106" not in _ids(record)


def test_check_replaying_a_record_shows_the_import_check_as_evidence(tmp_path: Path) -> None:
    facts = tmp_path / "facts.toml"
    facts.write_text(tomli_w.dumps(_record({"ok": False, "error": NUMPY_BOOL})))
    proc = run_cli("check", "--facts", str(facts), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    found = {d["id"]: d for d in json.loads(proc.stdout)["diagnoses"]}
    assert found["LD106"]["evidence"]["log"] == ["import theano: " + NUMPY_BOOL.rstrip(".")]


def test_pygpu_failing_to_import_is_no_evidence_where_theano_never_loads_it() -> None:
    error = "ImportError: libgpuarray.so.3: cannot open shared object file: No such file or directory"
    for device, counted in (("cpu", False), ("gpu", False), ("cuda", True)):
        record = _record({"ok": True, "version": "1.0.5"})
        record["packages"]["import_check"]["pygpu"] = {"ok": False, "error": error}
        record["theano_config"] = {"flags": {"THEANO_FLAGS": "device=" + device}}
        log = enrich(record)["derived"].get("log", {})
        assert bool(log.get("import_check_ids")) == counted, device
