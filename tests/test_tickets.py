"""The field corpus as the project's yardstick (fixtures/tickets/, scored by tests/corpus.py).

Every case is run through `check` twice, on its facts alone and with the reporter's log
(check --log), and the table by era, theme and OS is printed at the end of the session.
The floors below are the figures measured when they were last raised: a change that makes
legacydoc miss cases it used to find fails here. Raise them when recall improves; never
lower them to make a change pass.
"""

from __future__ import annotations

import re

import corpus
import pytest

from legacydoc import facts
from legacydoc.engine import load_rules

RULES = load_rules()
RULE_IDS = {rule.id for rule in RULES}
CASES = corpus.cases()

# Measured 2026-12-07 (527 cases): facts only 67, with the log 321 (see README); one below, for margin.
FLOOR_FACTS_ONLY = 66
FLOOR_WITH_LOG = 320
# Error claims the accepted answer rules out, each understood: the record lacks the fact
# that would overrule the evidence. A new one fails the test; a fixed one too.
# (case, run "facts" or "log") -> the rules claimed.
# Error claims the accepted answer contradicts (none left: gh-keras-3043's driver 367.27,
# an earlier build of the branch NVIDIA lists for CUDA 8.0, is no longer claimed too old).
KNOWN_CONTRADICTIONS: dict[tuple[str, str], list[str]] = {}


@pytest.fixture(scope="module")
def outcomes() -> tuple[list[corpus.Outcome], list[corpus.Outcome]]:
    facts_only, with_log = corpus.run(False, RULES), corpus.run(True, RULES)
    corpus.LAST_REPORT[:] = [corpus.report(facts_only, with_log)]
    return facts_only, with_log


def test_the_corpus_is_big_and_spread() -> None:
    assert len(CASES) >= 150
    by = {key: {str(c.expect.get(key, "")) for c in CASES} for key in ("era", "os", "theme")}
    assert {"windows", "linux", "darwin"} <= by["os"]
    assert {"old-backend", "new-backend", "cpu-only"} <= by["era"]
    versions = set()
    for case in CASES:
        record = facts.load(case.folder / "facts.toml")
        for dist in ("theano", "theano-pymc"):
            version = record.get("packages", {}).get(dist, {}).get("version")
            if version:
                versions.add(str(version)[:3])
    assert {"0.7", "0.8", "0.9", "1.0"} <= versions, versions


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_case_is_complete_and_cites_its_source(case: corpus.Case) -> None:
    facts.load(case.folder / "facts.toml")  # a valid record (exit-2 errors would raise)
    source = (case.folder / "source.md").read_text(encoding="utf-8")
    assert re.search(r"^- address: \S*(https?://|CSDN|csdn)", source, re.M), "no public address"
    assert case.expect.get("causes"), "no accepted cause"
    for rule in case.root_cause + list(case.expect.get("must_not", [])):
        assert rule in RULE_IDS, rule


def test_recall_does_not_fall(outcomes: tuple[list[corpus.Outcome], list[corpus.Outcome]]) -> None:
    facts_only, with_log = outcomes
    assert sum(o.found for o in facts_only) >= FLOOR_FACTS_ONLY, corpus.LAST_REPORT[0]
    assert sum(o.found for o in with_log) >= FLOOR_WITH_LOG, corpus.LAST_REPORT[0]


def test_no_new_error_claim_the_accepted_answer_rules_out(
    outcomes: tuple[list[corpus.Outcome], list[corpus.Outcome]],
) -> None:
    found = {}
    for run, results in (("facts", outcomes[0]), ("log", outcomes[1])):
        found.update({(o.case.id, run): o.contradicted for o in results if o.contradicted})
    assert found == KNOWN_CONTRADICTIONS, found


def test_a_cause_shown_as_an_alternative_names_the_accepted_one_beside_it(
    outcomes: tuple[list[corpus.Outcome], list[corpus.Outcome]]
) -> None:
    # A wrong cause is only excused from the count above when check shows it as one of the
    # possible causes of a log message: the accepted cause must then be found beside it.
    hedged = [o for results in outcomes for o in results if o.hedged]
    assert hedged, "no case exercises the alternatives"
    assert all(o.found for o in hedged), [(o.case.id, o.hedged, o.top) for o in hedged if not o.found]


def test_the_log_changes_the_diagnosis(outcomes: tuple[list[corpus.Outcome], list[corpus.Outcome]]) -> None:
    """check --log decides between causes: cases the facts alone miss and the log finds."""
    facts_only, with_log = outcomes
    decided = [b.case.id for a, b in zip(facts_only, with_log) if b.found and not a.found]
    assert len(decided) >= 10, decided
    # The log never costs a case the facts alone found.
    lost = [b.case.id for a, b in zip(facts_only, with_log) if a.found and not b.found]
    assert lost == [], lost

