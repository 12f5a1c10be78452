"""A Theano that is installed but whose release the record does not name (a ticket, a
partial replay): the config model claims only what every candidate release would say, and
a message in the log that only some releases print narrows the candidates."""

from __future__ import annotations

from typing import Any

from legacydoc import derive, logscan
from legacydoc.engine import load_rules
from legacydoc.engine.evaluation import evaluate

RULES = load_rules()
THEANORC = "[global]\ndevice = gpu\nfloatX = float32\n\n[lib]\ncnmem = 1\n"


def _record(version: Any = None, log: str = "") -> dict[str, Any]:
    theano: dict[str, Any] = {"name": "Theano"}
    if version:
        theano["version"] = version
    record: dict[str, Any] = {
        "schema": 1,
        "packages": {"theano": theano},
        "theano_config": {"files": [{"path": "~/.theanorc", "from": "default", "exists": True, "text": THEANORC}]},
    }
    if log:
        record["log"] = logscan.log_table(log.encode(), source="log.txt")
    return record


def _kinds(record: dict[str, Any]) -> set[str]:
    return set(derive.enrich(record)["config"]["finding_kinds"])


def test_a_known_1_0_release_says_the_old_backend_and_cnmem_are_gone() -> None:
    assert {"old-gpu-backend", "removed-option"} <= _kinds(_record("1.0.5"))


def test_an_unknown_release_claims_neither() -> None:
    enriched = derive.enrich(_record())
    assert not {"old-gpu-backend", "removed-option"} & set(enriched["config"]["finding_kinds"])
    assert "release was not recorded" in enriched["config"]["schema_reason"]
    # lib.cnmem exists in the releases that have device=gpu: its value is read, not dropped.
    assert enriched["derived"]["theano"]["preallocate_fraction"] == 1.0
    fired = {d.id for d in evaluate(RULES, enriched)}
    assert "LD528" in fired and not {"LD511", "LD516"} & fired


def test_a_log_from_theano_1_0_brings_the_claims_back() -> None:
    log = "ValueError: You are tring to use the old GPU back-end. It was removed from Theano.\n"
    assert "old-gpu-backend" in _kinds(_record(log=log))


def test_a_log_from_the_old_backend_keeps_the_old_releases() -> None:
    log = "Using gpu device 0: Tesla K40c (CNMeM is disabled, cuDNN 5005)\n"
    enriched = derive.enrich(_record(log=log))
    assert "old-gpu-backend" not in enriched["config"]["finding_kinds"]
    assert enriched["derived"]["theano"]["backend"] == "old"


def test_a_log_that_shows_a_failed_pygpu_import_makes_pygpu_unusable() -> None:
    log = "ERROR (theano.gpuarray): pygpu was configured but could not be imported or is too old\n"
    record: dict[str, Any] = {"schema": 1, "packages": {"theano": {"name": "Theano"}},
                              "log": logscan.log_table(log.encode(), source="log.txt")}
    derived = derive.enrich(record)["derived"]
    # pygpu unusable; whether it is installed at all is unknown (the package list was not read)
    assert derived["pygpu"]["usable"] is False and "installed_not_importable" not in derived["pygpu"]
    assert derived["theano"]["backend"] == "gpuarray"
    record["packages"]["pygpu"] = {"name": "pygpu", "version": "0.7.2"}
    derived = derive.enrich(record)["derived"]
    assert derived["pygpu"]["installed_not_importable"] is True
    fired = {d.id for d in evaluate(RULES, derive.enrich(record))}
    assert "LD135" in fired and "LD115" not in fired
