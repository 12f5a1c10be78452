"""The field corpus (fixtures/tickets/): real, publicly reported broken setups, each a facts
record holding only what the reporter stated, the error output they posted (log.txt), and
the accepted root cause. This module runs legacydoc on every case and scores it; the test
(tests/test_tickets.py) and tools/corpus_recall.py print the same table.

A case is *found* when one of its root-cause rules is among the first three error or
warning findings (top level, root causes first). It is scored twice: on the facts alone,
and on the facts with the reporter's log (check --log), which is what a support desk has.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from legacydoc import facts
from legacydoc.checkup import CheckResult, run_check
from legacydoc.engine import Rule, load_rules
from legacydoc.locate import loads_toml

REPO = Path(__file__).resolve().parent.parent
TICKETS = REPO / "fixtures" / "tickets"
TOP = 3
# The last report made in this session, printed at its end (tests/conftest.py).
LAST_REPORT: list[str] = []


@dataclass
class Case:
    id: str
    folder: Path
    expect: dict[str, Any]

    @property
    def root_cause(self) -> list[str]:
        return list(self.expect.get("root_cause", []))

    @property
    def log(self) -> Optional[Path]:
        path = self.folder / "log.txt"
        return path if path.is_file() else None


@dataclass
class Outcome:
    case: Case
    with_log: bool
    top: list[str]  # ids of the first error/warning findings
    found: bool
    contradicted: list[str] = field(default_factory=list)  # must_not ids claimed as errors
    why: str = ""  # for a miss: what each root-cause rule made of the facts
    # must_not ids shown as one of several possible causes of a log message (alternatives)
    hedged: list[str] = field(default_factory=list)


def cases(root: Path = TICKETS) -> list[Case]:
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        expect = loads_toml((folder / "expect.toml").read_text(encoding="utf-8"))
        out.append(Case(folder.name, folder, expect))
    return out


def check_case(case: Case, rules: list[Rule], with_log: bool) -> CheckResult:
    record = facts.load(case.folder / "facts.toml")
    if with_log and case.log is not None:
        from legacydoc import logscan

        record["log"] = logscan.log_table(case.log.read_bytes(), source="log.txt")
    return run_check(record, rules, source=case.id)


def score(case: Case, rules: list[Rule], with_log: bool) -> Outcome:
    result = check_case(case, rules, with_log)
    top = [d.id for d in result.diagnoses if d.severity in ("error", "warning")][:TOP]
    found = any(rule in top for rule in case.root_cause)
    must_not = set(case.expect.get("must_not", []))
    # A claim is what legacydoc puts forward as a cause: a top-level diagnosis. One folded
    # under another is shown as that cause's consequence (cudnn.h missing under a GPU cuDNN
    # cannot run on), which is what the accepted answers say of their symptoms.
    # A finding shown as one of several causes a log message points at (alternatives) is
    # not a claim that it is the cause: check says the record cannot tell them apart.
    wrong = [d for d in result.diagnoses if d.severity == "error" and d.id in must_not]
    contradicted = sorted({d.id for d in wrong if not d.alternatives})
    hedged = sorted({d.id for d in wrong if d.alternatives})
    return Outcome(case, with_log, top, found, contradicted, "" if found else why_missed(case, rules, result), hedged)


def why_missed(case: Case, rules: list[Rule], result: CheckResult) -> str:
    """Per root-cause rule (the first three): fired lower down, folded, undecided and the
    facts it lacked, or ruled out by the facts."""
    from legacydoc.engine.evaluation import reads_the_project, unknown_rules
    from legacydoc.explain import RULED_OUT, rule_status

    by_id = {rule.id: rule for rule in rules}
    ranked = [d.id for d in result.diagnoses if d.severity in ("error", "warning")]
    every = {d.id for d in result.every()}
    lacking = unknown_rules(rules, result.facts)
    parts = []
    for rule_id in case.root_cause[:3]:
        if rule_id in ranked:
            parts.append("%s ranked %d" % (rule_id, ranked.index(rule_id) + 1))
        elif rule_id in every:
            parts.append("%s folded or info" % rule_id)
        elif rule_id in lacking and reads_the_project(lacking[rule_id]):
            # the cases hold no project folder: like a log-only rule, it waits for the log
            parts.append("%s: its message is not in the log (nor a --project scan)" % rule_id)
        elif rule_id in lacking:
            parts.append("%s undecided (%s)" % (rule_id, ", ".join(lacking[rule_id][:2]) or "?"))
        elif rule_status(by_id.get(rule_id), result.facts) == RULED_OUT:
            parts.append("%s ruled out" % rule_id)
        elif rule_id in by_id and by_id[rule_id].log_only:
            parts.append("%s: its message is not in the log" % rule_id)
        else:
            parts.append("%s quiet" % rule_id)
    return "; ".join(parts)


def run(with_log: bool, rules: Optional[list[Rule]] = None, root: Path = TICKETS) -> list[Outcome]:
    rules = rules if rules is not None else load_rules()
    return [score(case, rules, with_log) for case in cases(root)]


def recall(outcomes: list[Outcome]) -> float:
    return sum(o.found for o in outcomes) / len(outcomes) if outcomes else 0.0


def table(outcomes: list[Outcome], by: str) -> list[tuple[str, int, int]]:
    groups: dict[str, list[Outcome]] = collections.defaultdict(list)
    for outcome in outcomes:
        groups[str(outcome.case.expect.get(by, "") or "?")].append(outcome)
    return sorted((name, sum(o.found for o in group), len(group)) for name, group in groups.items())


def report(facts_only: list[Outcome], with_log: list[Outcome]) -> str:
    lines = [
        "field corpus: %d cases; root cause among the first %d findings:" % (len(facts_only), TOP),
        "  facts only:      %5.1f%% (%d)" % (100 * recall(facts_only), sum(o.found for o in facts_only)),
        "  facts with log:  %5.1f%% (%d)" % (100 * recall(with_log), sum(o.found for o in with_log)),
    ]
    for by in ("era", "theme", "os"):
        lines.append("by %s (facts with log):" % by)
        for name, found, total in table(with_log, by):
            lines.append("  %-14s %3d/%-3d %5.1f%%" % (name, found, total, 100 * found / total))
    misses = [o for o in with_log if not o.found]
    lines.append("missed with the log (%d): accepted cause: expected -> first findings; why" % len(misses))
    for o in misses:
        lines.append("  %s: %s: %s -> %s; %s" % (
            o.case.id, ", ".join(o.case.expect.get("causes", [])),
            "/".join(o.case.root_cause) or "(no rule names this cause yet)",
            ", ".join(o.top) or "nothing", o.why))
    claims = [("facts only", o) for o in facts_only if o.contradicted] + \
        [("with the log", o) for o in with_log if o.contradicted]
    lines.append("error claims the accepted answer contradicts: %d" % len(claims))
    for run, o in claims:
        lines.append("  %s (%s): %s" % (o.case.id, run, ", ".join(o.contradicted)))
    hedged = [("facts only", o) for o in facts_only if o.hedged] + \
        [("with the log", o) for o in with_log if o.hedged]
    lines.append("wrong causes shown only as one of a log message's possible causes: %d" % len(hedged))
    for run, o in hedged:
        lines.append("  %s (%s): %s" % (o.case.id, run, ", ".join(o.hedged)))
    return "\n".join(lines)
