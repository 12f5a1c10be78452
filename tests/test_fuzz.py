"""Property-based fuzzing of every entry point that reads what users (or strangers) send:
the facts loader with the whole check behind it, rule packs, the .theanorc/THEANO_FLAGS
parser with the config model behind it, and the report-zip reader.

The property is the CLI's contract: an input is either accepted (exit 0 or 1) or refused
with a one-line UsageError (exit 2); nothing else may escape (that would be exit 3, a
crash), and each example has a deadline. The number of examples per entry point is
LEGACYDOC_FUZZ_EXAMPLES (200 by default, for the quick loop; CI runs 5,000).
"""

from __future__ import annotations

import copy
import io
import json
import os
import resource
import subprocess
import sys
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO
from legacydoc import facts
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules, rule_from_table
from legacydoc.errors import UsageError
from legacydoc.theanorc import find_problems
from legacydoc.theanorc.flags import parse_flags
from legacydoc.theanorc.parser import parse_text

EXAMPLES = int(os.environ.get("LEGACYDOC_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=5),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
RULES = load_rules()
SEEDS = [facts.load(p) for p in sorted((REPO / "fixtures").glob("*/facts.toml"))]
SEEDS += [facts.load(p) for p in sorted((REPO / "fixtures" / "tickets").glob("*/facts.toml"))[:20]]

# Values of every kind TOML can hold, and the ones that broke things before: huge digit
# strings, deep nesting, odd unicode.
scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=40),
    st.sampled_from(["9" * 5000, "1." + "0" * 4400, "cuda" + "9" * 5000, "\ud7ff\u2028\x00", "", "0+untagged"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            out.append(prefix + (key,))
            out.extend(_paths(value, prefix + (key,)))
    elif isinstance(node, list):
        for index, value in enumerate(node[:3]):
            out.append(prefix + (index,))
            out.extend(_paths(value, prefix + (index,)))
    return out


@st.composite
def altered_records(draw: Any) -> dict:
    """A real record with a few values replaced by values of other kinds, and keys added."""
    record = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    paths = [p for p in _paths(record) if p[0] not in ("schema",)]
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(paths))
        replacement = draw(values)
        try:
            node = record
            for part in path[:-1]:
                node = node[part]
            node[path[-1]] = replacement
        except (LookupError, TypeError):
            continue  # an earlier replacement removed the way there
    if draw(st.booleans()):
        table = draw(st.sampled_from(list(facts.TABLES)))
        record.setdefault(table, {})
        if isinstance(record[table], dict):
            record[table][draw(st.text(min_size=1, max_size=12))] = draw(values)
    return record


@pytest.fixture(autouse=True)
def lenient_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Crashes are the question here: a text naming an unrecorded fact reads "unknown", as
    users see it (the rule tests and the field corpus hold rules to the strict standard)."""
    import legacydoc.engine.evaluation as evaluation

    monkeypatch.setattr(evaluation, "STRICT_TEMPLATES", False)


def _accepted_or_refused(call: Any) -> Any:
    try:
        return call()
    except UsageError as exc:
        text = str(exc)
        assert text and "\n" not in text.strip(), text
        return None


@FUZZ
@given(altered_records())
def test_facts_loader_and_check_accept_or_refuse_altered_records(record: dict) -> None:
    try:
        text = tomli_w.dumps(facts.prune(record))
    except (TypeError, ValueError):
        return  # not expressible in TOML: a user cannot send it either
    loaded = _accepted_or_refused(lambda: facts.loads(text, source="fuzz.toml"))
    if loaded is not None:
        result = run_check(loaded, RULES)
        assert result.exit_code() in (0, 1)
        result.to_dict()


@FUZZ
@given(st.text(max_size=400))
def test_facts_loader_on_arbitrary_text(text: str) -> None:
    header = 'schema = 1\nlegacydoc_version = "0.1.0"\ncollected_at = "x"\n'
    for candidate in (text, header + text):
        loaded = _accepted_or_refused(lambda c=candidate: facts.loads(c, source="fuzz.toml"))
        if loaded is not None:
            assert run_check(loaded, RULES).exit_code() in (0, 1)


rule_tables = st.fixed_dictionaries(
    {"id": st.sampled_from(["LD999", "", "X"]), "name": st.text(max_size=10), "area": st.sampled_from(["gpu", "nope"]),
     "layer": st.sampled_from(["drivers", "bad"]), "severity": st.sampled_from(["error", "fatal"]),
     "title": st.text(max_size=30), "why": st.text(max_size=30), "fix": st.one_of(st.text(max_size=20), values),
     "when": values},
    optional={"for_each": st.text(max_size=20), "explains": values, "evidence": values, "fires": values,
              "quiet": values, "references": values},
)


@FUZZ
@given(rule_tables, altered_records())
def test_rule_loading_refuses_or_the_rule_runs(table: dict, record: dict) -> None:
    rule = _accepted_or_refused(lambda: rule_from_table(table, "fuzz.toml"))
    if rule is not None:
        run_check(record, [rule])


config_text = st.text(
    alphabet=st.sampled_from(list("[]=:#;%()\\ \t\n\r\x0b\x0c\"'.,_-") + list("globaldevicecudnnfloatXcxx0123\u4e2d")),
    max_size=300,
)


@FUZZ
@given(config_text, config_text, st.sampled_from(["linux", "windows"]), st.sampled_from(["1.0.5", "0.9.0", "0.8.2"]))
def test_the_config_model_reads_any_theanorc_and_flags(text: str, flags: str, os_name: str, version: str) -> None:
    for dialect in ("py2", "py3", "py310"):
        parse_text(text, dialect)
    parse_flags(flags)
    record = {
        "schema": 1, "system": {"os": os_name},
        "python": {"probe_ok": True, "version": "3.8.18", "version_info": [3, 8, 18]},
        "packages": {"found": ["theano"], "theano": {"name": "Theano", "version": version}},
        "theano_config": {"files": [{"path": "/home/u/.theanorc", "from": "default", "exists": True, "readable": True,
                                     "kind": "file", "encoding": "utf-8", "text": text}],
                          "flags": {"THEANO_FLAGS": flags}},
    }
    find_problems(record)
    run_check(record, RULES)


member_names = st.sampled_from(["facts.toml", "manifest.json", "commands/index.json", "commands/001-x.txt",
                                "../evil", "/abs", "top/facts.toml", "a\\b", "FACTS.TOML", "commands/"])
good_facts = tomli_w.dumps(SEEDS[0]).encode()


@FUZZ
@given(st.lists(st.tuples(member_names, st.one_of(st.binary(max_size=200), st.just(good_facts),
                                                  st.builds(lambda v: json.dumps(v).encode(), values))),
                max_size=6))
def test_the_zip_reader_accepts_or_refuses_any_archive(members: list) -> None:
    from legacydoc import replay

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    path = Path(os.environ.get("PYTEST_FUZZ_TMP", "/tmp")) / ("fuzz-%d.zip" % os.getpid())
    path.write_bytes(buffer.getvalue())
    try:
        replayed = _accepted_or_refused(lambda: replay.load(path))
        if replayed is not None:
            run_check(replayed.record, RULES)
    finally:
        path.unlink()


def test_check_stays_under_100_mb_on_the_largest_record_it_accepts(tmp_path: Path) -> None:
    """Any accepted record: the biggest one the loader takes (its 2 MiB cap), packed with
    small tables (the costliest shape to parse), checked in a fresh process."""
    def record_of(n: int) -> bytes:
        entries = [{"index": i, "entry": "/opt/tool%d/bin" % i, "exists": True, "provides": ["x"]} for i in range(n)]
        return facts.dumps(facts.new_record({"path": {"entries": entries}})).encode()

    per_entry = len(record_of(1000)) / 1000
    n = int(facts.MAX_FILE_BYTES / per_entry)
    data = record_of(n)
    while len(data) > facts.MAX_FILE_BYTES:  # a step or two
        n -= 1 + (len(data) - facts.MAX_FILE_BYTES) // int(per_entry)
        data = record_of(n)
    path = tmp_path / "big.toml"
    path.write_bytes(data)
    code = ("import resource, runpy, sys; sys.argv = ['legacydoc', 'check', '--facts', %r];"
            "\ntry: runpy.run_module('legacydoc', run_name='__main__')"
            "\nexcept SystemExit as e: print('EXIT', e.code)"
            # VmHWM is this program's peak; ru_maxrss would also count the pages of the (big)
            # test process this child was forked from, before its exec
            "\nimport os; status = '/proc/self/status'"
            "\nhwm = [l.split()[1] for l in open(status) if l.startswith('VmHWM')] if os.path.exists(status) else []"
            "\nprint('MAXRSS_KB', hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)") % str(path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if line.startswith(("EXIT", "MAXRSS_KB")))
    assert lines.get("EXIT") in ("0", "1"), proc.stdout[-300:] + proc.stderr[-300:]
    assert int(lines["MAXRSS_KB"]) < 100 * 1024, lines


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS"), reason="needs RLIMIT_AS")
def test_the_cap_refuses_a_record_just_over_it(tmp_path: Path) -> None:
    path = tmp_path / "over.toml"
    path.write_bytes(b"#" * (facts.MAX_FILE_BYTES + 1))
    with pytest.raises(UsageError, match="more than the"):
        facts.load(path)


project_text = st.one_of(st.text(max_size=300), st.sampled_from([
    "dependencies:\n  - pip:\n    - x==1\n  - ::\n  - =\n", "install_requires=['a[' , 'b>=', \"c @ http\"]",
    "import theano.sandbox.cuda as c\nprint 'x'\n", "-e git+https://x#egg=\n", "numpy===1.0\n\x00\n",
]))


@FUZZ
@given(requirements=project_text, environment=project_text, setup=project_text, code=project_text)
def test_the_project_reader_and_planner_take_any_project(requirements: str, environment: str, setup: str,
                                                        code: str) -> None:
    import tempfile

    from legacydoc.plan.planner import PlanError, make_plan
    from legacydoc.plan.project import scan

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, text in (("requirements.txt", requirements), ("environment.yml", environment),
                           ("setup.py", setup), ("train.py", code)):
            (root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        found = scan(root)
        assert found.files_scanned == 4
        try:
            make_plan(SEEDS[0], found)
        except PlanError:
            pass  # a project pinning a numpy no wheel has is refused in words
