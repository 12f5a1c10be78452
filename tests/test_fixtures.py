"""Recorded machines in fixtures/: each facts file must produce the diagnoses its
expect.toml names (at top level, or folded under a root cause) and none it forbids."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from legacydoc import facts
from legacydoc.checkup import run_check
from legacydoc.engine import Diagnosis, load_rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = sorted(p for p in FIXTURES.iterdir() if (p / "facts.toml").is_file())
RULES = load_rules()
EXPECT_KEYS = {"description", "must", "folded", "must_not", "must_not_severity"}


def _walk(diags: list[Diagnosis], depth: int = 0):
    for diag in diags:
        yield diag, depth
        yield from _walk(diag.folded, depth + 1)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture_produces_what_it_expects(case: Path) -> None:
    expect = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8"))
    assert set(expect) <= EXPECT_KEYS, "unknown keys in %s/expect.toml" % case.name
    assert expect.get("description"), "%s needs a description" % case.name
    result = run_check(facts.load(case / "facts.toml"), RULES, source=case.name)
    everything = list(_walk(result.diagnoses))
    top = {d.id for d, depth in everything if depth == 0}
    folded = {d.id for d, depth in everything if depth > 0}
    for rule_id in expect.get("must", []):
        assert rule_id in top, "%s: %s not at top level (top: %s)" % (case.name, rule_id, sorted(top))
    for rule_id in expect.get("folded", []):
        assert rule_id in folded, "%s: %s not folded (folded: %s)" % (case.name, rule_id, sorted(folded))
    for rule_id in expect.get("must_not", []):
        assert rule_id not in top | folded, "%s: %s fired" % (case.name, rule_id)
    for severity in expect.get("must_not_severity", []):
        bad = [d.id for d, _ in everything if d.severity == severity]
        assert not bad, "%s: unexpected %s diagnoses %s" % (case.name, severity, bad)


def test_there_are_scenario_fixtures() -> None:
    names = {c.name for c in CASES}
    assert any(n.startswith("seed-000") for n in names)
    assert any(n.startswith("seed-002") for n in names)
    assert any(n.startswith("healthy-linux") for n in names)


def _check(case: str):
    return run_check(facts.load(FIXTURES / case / "facts.toml"), RULES, source=case)


def test_seed_002_names_its_three_wrong_config_entries_with_their_replacements() -> None:
    result = _check("seed-002-win10-gtx1660s-cuda102")
    config = [d for d, _ in _walk(result.diagnoses) if d.area == "config"]
    assert sorted((d.evidence["item.section"], d.evidence["item.option"]) for d in config) == [
        ("cudnn", "enable"),
        ("global", "compiler"),
        ("lib", "cnmem"),
    ]
    fixes = sorted(step for d in config for step in d.fix)
    assert fixes == ["[dnn]\nenabled = True", "[global]\ncxx = g++", "[gpuarray]\npreallocate = 0.8"]


def test_seed_000_says_gpu_unusable_and_what_to_install_instead() -> None:
    from legacydoc.render.check_text import render_check_text

    text = render_check_text(_check("seed-000-win10-python313-nvml-error"))
    assert "The GPU is unusable" in text and "NVML: Unknown Error" in text
    assert "Python 3.13.0 cannot run any Theano release" in text
    # the fix is the plan's: a Python that Theano runs on, with pins that have wheels there
    assert "a new Python 3.7 environment with numpy==1.21.6" in text  # 3.7: Windows outside conda (LD318)
    assert "(Theano==1.0.5 does not run on Python 3.13)" in text
    assert "numpy 2.2.1" in text  # folded under the Python root cause, still shown


def test_healthy_linux_runs_on_the_gpu() -> None:
    result = _check("healthy-linux-gtx1080ti-cuda102")
    assert result.facts["derived"]["theano"]["runs_on"] == "gpu"
    assert result.exit_code() == 0
