"""The rule engine: validation on load, data-only conditions, templating, ordering, folding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from legacydoc import engine, factschema
from legacydoc.engine import RuleError, evaluate, fill, load_rule_file, matches, rule_from_table
from legacydoc.engine.evaluation import MissingFact, truth

FACTS = {
    "schema": 1,
    "python": {"version": "3.13.0", "probe_ok": True},
    "packages": {
        "found": ["numpy"],
        "numpy": {"name": "numpy", "version": "2.2.1"},
        "theano": {"name": "Theano", "version": "1.0.5"},
    },
    "gpu": {
        "nvidia_smi": {"found": True, "rc": 255, "output": "Failed to initialize NVML: Unknown Error"},
        "devices": [
            {"index": 0, "name": "GeForce GTX 1660 SUPER", "compute_capability": "7.5"},
            {"index": 1, "name": "Tesla K80", "compute_capability": "3.7"},
        ],
    },
    "system": {"logical_cores": 8, "cpu_flags": ["avx", "avx2"]},
}


def base_rule(**over) -> dict:
    table = {
        "id": "T001",
        "name": "test-rule",
        "area": "packages",
        "layer": "versions",
        "severity": "error",
        "title": "numpy {packages.numpy.version} with Theano {packages.theano.version}",
        "why": "because",
        "fix": ['pip install "numpy<1.24"'],
        "when": [{"fact": "packages.numpy.version", "version": ">=1.24"}],
        "applies": {"theano": "any", "backend": "any"},
    }
    table.update(over)
    return table


@pytest.mark.parametrize(
    "cond, expected",
    [
        ({"fact": "packages.numpy.version", "version": ">=2"}, True),
        ({"fact": "packages.numpy.version", "version": ">=1.22,<1.24"}, False),
        ({"fact": "packages.scipy.version", "version": ">=0"}, False),  # absent fact
        ({"fact": "packages.scipy", "exists": False}, True),
        ({"fact": "packages.numpy", "exists": True}, True),
        ({"fact": "gpu.nvidia_smi.rc", "equals": 255}, True),
        ({"fact": "gpu.nvidia_smi.rc", "not_equals": 0}, True),
        ({"fact": "gpu.nvidia_smi.rc", "in": [9, 255]}, True),
        ({"fact": "gpu.nvidia_smi.rc", "not_in": [9, 255]}, False),
        ({"fact": "gpu.nvidia_smi.output", "matches": "NVML: Unknown Error"}, True),
        ({"fact": "system.logical_cores", "ge": 8}, True),
        ({"fact": "system.logical_cores", "lt": 8}, False),
        ({"fact": "system.cpu_flags", "contains": "avx512f"}, False),
        ({"fact": "system.cpu_flags", "empty": False}, True),
        ({"not": {"fact": "system.cpu_flags", "contains": "avx2"}}, False),
        ({"any": [{"fact": "gpu.nvidia_smi.rc", "equals": 0}, {"fact": "python.version", "version": ">=3.12"}]}, True),
        ({"all": [{"fact": "gpu.nvidia_smi.rc", "equals": 0}, {"fact": "python.version", "version": ">=3.12"}]}, False),
        ({"some": "gpu.devices", "where": {"fact": "item.compute_capability", "version": "<5"}}, True),
        ({"none": "gpu.devices", "where": {"fact": "item.name", "matches": "RTX"}}, True),
        ({"some": "gpu.devices", "where": {"fact": "item.name", "matches": "^A100"}}, False),
        # numeric compare on a string that is not a number is simply false
        ({"fact": "python.version", "gt": 3}, False),
    ],
)
def test_conditions(cond: dict, expected: bool) -> None:
    engine.load.validate_condition(cond, "t.toml", "T", None)
    assert matches(cond, FACTS) is expected


@pytest.mark.parametrize(
    "override, message",
    [
        ({"severity": "fatal"}, "severity 'fatal'"),
        ({"layer": "misc"}, "layer 'misc'"),
        ({"area": "misc"}, "area 'misc'"),
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"when": [{"fact": "packages.numpy.version", "newer_than": "1"}]}, "unknown operator 'newer_than'"),
        ({"when": [{"fact": "pakages.numpy.version", "version": ">1"}]}, "unknown fact name 'pakages.numpy.version'"),
        ({"when": [{"fact": "packages.numpy.version", "version": "~~1"}]}, "bad version specifier"),
        ({"when": [{"fact": "gpu.nvidia_smi.output", "matches": "("}]}, "bad regular expression"),
        ({"when": [{"fact": "gpu.nvidia_smi.rc", "in": 9}]}, "'in' needs a list"),
        ({"when": [{"fact": "gpu.nvidia_smi.rc", "equals": 9, "in": [9]}]}, "exactly one operator"),
        ({"when": [{"fact": "item.name", "exists": True}]}, "'item.name' used outside"),
        ({"when": [{"eval": "1"}]}, "unknown condition keys eval"),
        ({"title": "numpy {packages.numpy.vers1on}"}, "unknown fact name 'packages.numpy.vers1on'"),
        ({"fix": 3}, "'fix' must be a string or a list of steps"),
        ({"fix": [3]}, "'fix': a fix step is a string or a table of shell lines"),
    ],
)
def test_validation_errors_are_one_line_naming_file_and_rule(override: dict, message: str) -> None:
    table = base_rule(**override)
    with pytest.raises(RuleError) as err:
        rule_from_table(table, "rules/x.toml")
    text = str(err.value)
    assert message in text
    assert text.startswith("rules/x.toml: rule T001: ")
    assert "\n" not in text


def test_missing_key() -> None:
    table = base_rule()
    del table["why"]
    with pytest.raises(RuleError, match="missing key 'why'"):
        rule_from_table(table, "x.toml")


def test_fill_templates() -> None:
    text = "numpy {packages.numpy.version}, scipy {packages.scipy.version}"
    # Users read "unknown"; the test suite runs strict, where a missing fact is a bug.
    assert fill(text, FACTS, strict=False) == "numpy 2.2.1, scipy unknown"
    with pytest.raises(MissingFact, match="packages.scipy.version"):
        fill(text, FACTS)
    assert fill("{item.name} ({item.compute_capability})", FACTS, FACTS["gpu"]["devices"][1]) == "Tesla K80 (3.7)"
    assert fill("flags {system.cpu_flags}", FACTS) == "flags avx, avx2"


def test_for_each_fires_once_per_matching_item() -> None:
    rule = rule_from_table(
        base_rule(
            area="gpu",
            layer="drivers",
            title="{item.name} is compute {item.compute_capability}",
            for_each="gpu.devices",
            when={"fact": "item.compute_capability", "version": "<5"},
        ),
        "x.toml",
    )
    diags = evaluate([rule], FACTS)
    assert [d.title for d in diags] == ["Tesla K80 is compute 3.7"]
    assert diags[0].evidence == {"item.compute_capability": "3.7"}


@pytest.mark.parametrize("devices, undecided", [
    ([{"name": "Tesla K80", "compute_capability": "3.7"}], False),  # fires: decided
    ([{"name": "GTX 1080", "compute_capability": "6.1"}], False),  # passes: decided
    ([{"name": "GTX 1080", "compute_capability": "6.1"}, {"name": "an unknown board"}], True),
    (None, True),  # the GPUs were never listed
])
def test_a_for_each_rule_with_an_item_it_cannot_decide_is_undecided(devices, undecided) -> None:
    from legacydoc.engine.evaluation import unknown_rules

    rule = rule_from_table(base_rule(area="gpu", layer="drivers", title="{item.name}", for_each="gpu.devices",
                                     when={"fact": "item.compute_capability", "version": "<5"}), "x.toml")
    facts: dict[str, Any] = {"schema": 1, "gpu": {"driver_version": "535.104.05"}}
    if devices is not None:
        facts["gpu"]["devices"] = devices
    assert (rule.id in unknown_rules([rule], facts)) is undecided


def test_a_log_line_fires_a_per_item_rule_unless_every_recorded_thing_rules_it_out() -> None:
    old_gpu = rule_from_table(base_rule(area="gpu", layer="drivers", title="{item.name|a GPU} is old",
                                        for_each="gpu.devices", items_decide=True,
                                        when={"fact": "item.compute_capability", "version": "<3"}), "x.toml")
    log = {"schema": 1, "derived": {"log": {"rules": ["T001"]}}}

    def titles(devices: list) -> list[str]:
        return [d.title for d in evaluate([old_gpu], {**log, "gpu": {"devices": devices}})]

    assert titles([{"name": "GTX 580", "compute_capability": "2.0"}]) == ["GTX 580 is old"]
    assert titles([{"name": "GTX 1080", "compute_capability": "6.1"}]) == []  # the only GPU rules it out
    # one GPU undecided: the line is the evidence, for no GPU in particular
    assert titles([{"name": "GTX 1080", "compute_capability": "6.1"}, {"name": "a board"}]) == ["a GPU is old"]
    # an empty list rules nothing out either: no recorded GPU contradicts the line (nvidia-smi
    # may list none where CUDA still runs one, a GPU passed to a container, for instance)
    assert titles([]) == ["a GPU is old"]
    # a rule that does not say its items decide (its item field is measured against another
    # fact, as in_nvcc_range against the nvcc on PATH) still fires from the line
    loose = rule_from_table(base_rule(area="gpu", layer="drivers", title="{item.name|a GPU} is old",
                                      for_each="gpu.devices",
                                      when={"fact": "item.compute_capability", "version": "<3"}), "x.toml")
    assert [d.title for d in evaluate([loose], {**log, "gpu": {"devices": [{"name": "GTX 1080",
                                                                         "compute_capability": "6.1"}]}})] == [
        "a GPU is old"]
    # a list of findings of many kinds: one of another kind settles nothing about this one
    finding = rule_from_table(base_rule(area="config", layer="config", title="old back-end",
                                        for_each="config.findings",
                                        when={"fact": "item.kind", "in": ["old-gpu-backend"]}), "x.toml")
    other = {**log, "config": {"findings": [{"kind": "file-partial", "severity": "info"}]}}
    assert [d.title for d in evaluate([finding], other)] == ["old back-end"]
    assert factschema.enumerates("derived.gpus") and not factschema.enumerates("config.findings")
    with pytest.raises(RuleError, match="'items_decide' needs for_each over a list"):
        rule_from_table(base_rule(for_each="config.findings", items_decide=True,
                                  when={"fact": "item.kind", "equals": "x"}), "x.toml")


def _rule(rid: str, name: str, layer: str, severity: str = "error", explains: tuple = (), when=None) -> engine.Rule:
    return rule_from_table(
        base_rule(
            id=rid,
            name=name,
            layer=layer,
            severity=severity,
            explains=list(explains),
            title=name,
            when=when or {"fact": "schema", "equals": 1},
        ),
        "x.toml",
    )


def test_order_is_layer_then_severity_and_echoes_fold_under_the_cause() -> None:
    rules = [
        _rule("P1", "slow", "performance", "warning"),
        _rule("C1", "config-bad", "config"),
        _rule("V2", "info-version", "versions", "info"),
        _rule("D1", "driver-broken", "drivers", explains=("cuda-unusable",)),
        _rule("L1", "cuda-unusable", "libraries"),
        _rule("V1", "python-too-new", "versions"),
        _rule("X1", "never", "versions", when={"fact": "schema", "equals": 2}),
    ]
    diags = evaluate(rules, FACTS)
    assert [d.id for d in diags] == ["V1", "V2", "D1", "C1", "P1"]
    driver = diags[2]
    assert driver.explains == ["L1"]
    assert [f.id for f in driver.folded] == ["L1"]
    assert driver.to_dict()["explains"] == ["L1"]


def test_load_rule_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("[[rule]]\nid = 'A'\nthis is not toml")
    with pytest.raises(RuleError, match="broken.toml: not valid TOML"):
        load_rule_file(bad)
    other = tmp_path / "other.toml"
    other.write_text("[something]\nx = 1\n")
    with pytest.raises(RuleError, match="unknown top-level key 'something'"):
        load_rule_file(other)


def test_load_rules_rejects_duplicates_and_unknown_explains(tmp_path: Path) -> None:
    import tomli_w

    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "a.toml").write_text(tomli_w.dumps({"rule": [base_rule(), base_rule(name="other")]}))
    with pytest.raises(RuleError, match="duplicate id"):
        engine.load_rules([pack], include_builtin=False)
    (pack / "a.toml").write_text(tomli_w.dumps({"rule": [base_rule(explains=["ghost"])]}))
    with pytest.raises(RuleError, match="explains unknown rule 'ghost'"):
        engine.load_rules([pack], include_builtin=False)
    with pytest.raises(RuleError, match="rules directory not found"):
        engine.load_rules([tmp_path / "nope"], include_builtin=False)


# --- the [config_findings] table ---------------------------------------------------------

CONFIG_PACK = """
[config_findings]
applies = { theano = "any", backend = "any" }
area = "config"
layer = "config"
for_each = "config.findings"
why = "{item.message}"
fix = ["{item.fix_line}"]
references = ["Theano rel-1.0.5 theano/configparser.py"]

[config_findings.example]
"packages.theano" = { name = "Theano", version = "1.0.5" }
theanorc_file = { path = "/home/u/.theanorc", from = "default", exists = true, readable = true, kind = "file", encoding = "utf-8" }

[[config_findings.rule]]
id = "X1"
name = "x-one"
severity = "warning"
kinds = KINDS
title = "T"
fires = [{ theanorc = "[cudnn]\\nenable = True\\n" }]
"""


def test_config_findings_expand_into_ordinary_rules(tmp_path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(CONFIG_PACK.replace("KINDS", '["unknown-option"]'))
    [rule] = load_rule_file(path)
    assert rule.when == {"fact": "item.kind", "in": ["unknown-option"]}
    assert rule.for_each == "config.findings" and rule.why == "{item.message}"
    assert rule.references[-1].endswith("findings of kind unknown-option")
    [example] = rule.fires
    assert example["packages.theano"]["version"] == "1.0.5"
    assert example["theano_config.files"][0]["text"] == "[cudnn]\nenable = True\n"
    assert example["theano_config.files"][0]["path"] == "/home/u/.theanorc"


@pytest.mark.parametrize("kinds, message", [
    ('["no-such-kind"]', "unknown finding kind 'no-such-kind'"),
    ("[]", "'kinds' must be a non-empty list"),
    ('"unknown-option"', "'kinds' must be a non-empty list"),
])
def test_config_findings_refuse_bad_kinds(tmp_path, kinds: str, message: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(CONFIG_PACK.replace("KINDS", kinds))
    with pytest.raises(RuleError, match=message):
        load_rule_file(path)


def test_exists_is_unknown_for_a_table_never_probed() -> None:
    """`exists = false` claims absence only where the probe looked (its marker fact)."""
    probed = {"packages": {"found": ["numpy"]}}
    ticket = {"packages": {"theano": {"name": "Theano"}}}  # what a reporter said, no package list
    cond = {"fact": "packages.scipy", "exists": False}
    assert truth(cond, probed) is True
    assert truth(cond, ticket) is None
    assert truth({"fact": "derived.nvcc.version", "exists": False}, {}) is None
    # a table recorded in part (a report quoting one variable) says nothing of the rest
    cond = {"fact": "env.variables.KERAS_BACKEND", "exists": False}
    assert truth(cond, {"env": {"variables": {"OMP_NUM_THREADS": "2"}}}) is True
    assert truth(cond, {"env": {"partial": True, "variables": {"OMP_NUM_THREADS": "2"}}}) is None


def test_a_rules_repeats_come_after_every_rules_first_finding() -> None:
    # gh-theano-6556's .theanorc: three options Theano 1.0 ignores (one rule, three items) and
    # cuda.root at the toolkit's bin folder (another rule, same layer and severity). The
    # second problem must not sink below the repeats of the first.
    from legacydoc import facts
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules

    record = facts.load(Path(__file__).resolve().parent.parent / "fixtures" / "tickets" / "gh-theano-6556" / "facts.toml")
    ids = [d.id for d in run_check(record, load_rules(), source="test").diagnoses if d.severity == "warning"]
    assert ids.count("LD511") == 3 and "LD519" in ids, ids
    second_ld511 = [i for i, rule in enumerate(ids) if rule == "LD511"][1]
    assert ids.index("LD519") < second_ld511, ids


def _log_only(**over) -> engine.Rule:
    table = base_rule(title="from the log", log_only=True, **over)
    del table["when"]
    return rule_from_table(table, "x.toml")


def test_a_log_only_rule_fires_on_its_message_unless_the_record_shows_the_cause_gone() -> None:
    unless = {"fact": "packages.numpy.version", "version": "<1.24"}
    log = {"derived": {"log": {"rules": ["T001"]}}}
    assert [d.id for d in evaluate([_log_only(unless=unless)], {**FACTS, **log})] == ["T001"]  # numpy 2.2.1
    older = {**FACTS, **log, "packages": {"numpy": {"name": "numpy", "version": "1.21.6"}}}
    assert evaluate([_log_only(unless=unless)], older) == []
    unknown = {**log, "schema": 1}  # numpy not recorded: nothing shows the cause gone
    assert [d.id for d in evaluate([_log_only(unless=unless)], unknown)] == ["T001"]
    assert evaluate([_log_only(unless=unless)], FACTS) == []  # no message, no finding


def test_unless_on_a_rule_with_a_condition_stops_only_the_log_from_firing_it() -> None:
    # fires when scipy is recorded; the log alone fires it unless numpy is older than 1.24
    rule = rule_from_table(base_rule(when=[{"fact": "packages.scipy", "exists": True}],
                                     unless={"fact": "packages.numpy.version", "version": "<1.24"}), "x.toml")
    log = {"derived": {"log": {"rules": ["T001"]}}}
    older = {"name": "numpy", "version": "1.21.6"}
    with_scipy = {**FACTS, "packages": {**FACTS["packages"], "numpy": older, "scipy": {"name": "scipy"}}}
    assert [d.id for d in evaluate([rule], with_scipy)] == ["T001"]  # the facts: unless is not asked
    unknown = {**log, "schema": 1}  # scipy and numpy not recorded: the log fires it
    assert [d.id for d in evaluate([rule], unknown)] == ["T001"]
    assert evaluate([rule], {**unknown, "packages": {"numpy": older}}) == []
    with pytest.raises(RuleError, match="'unless' is for rules that do not iterate"):
        rule_from_table(base_rule(for_each="gpu.devices", unless={"fact": "schema", "equals": 1}), "x.toml")
    with pytest.raises(RuleError, match="unknown fact name"):
        _log_only(unless={"fact": "packages.numpy.vers1on", "equals": "1"})


def test_a_message_an_error_in_the_facts_accounts_for_is_no_evidence_for_its_other_causes() -> None:
    """"64-bit mode not compiled in" names three causes (LD404, LD406, LD402). A record that
    shows a 32-bit g++ under a 64-bit Python proves LD404; a missing libpython (LD406) or
    several toolchains (LD402) are then not what the message shows. Without the bitness
    facts, all three stay candidates."""
    from legacydoc import logscan
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules

    line = b"cc1plus.exe: sorry, unimplemented: 64-bit mode not compiled in\n"
    base = {"schema": 1, "system": {"os": "windows"}, "log": logscan.log_table(line, source="log.txt")}
    rules = load_rules()
    bare = [d.id for d in run_check(base, rules, source="test").diagnoses]
    assert {"LD406", "LD402"} <= set(bare), bare
    proven = {**base, "python": {"bits": 64},
              "compilers": {"found": True, "gxx": {"found": True, "bits": 32, "target": "i686-w64-mingw32"}}}
    ids = [d.id for d in run_check(proven, rules, source="test").diagnoses]
    assert ids[0] == "LD404" and "LD406" not in ids and "LD402" not in ids, ids
    # the facts prove it, and the log is quoted as its evidence all the same
    first = run_check(proven, rules, source="test").diagnoses[0]
    assert any("64-bit mode not compiled in" in quoted for quoted in first.evidence.get("log", [])), first.evidence


def test_causes_a_message_points_at_equally_are_shown_as_alternatives() -> None:
    """"cannot import name 'downsample'" is evidence for Lasagne 0.1 (LD112) and for the
    project's own code (LD157). With neither decided by the record, both fire, each naming
    the other as the alternative; a record that decides one leaves no alternative."""
    from legacydoc import logscan
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules

    line = b"ImportError: cannot import name 'downsample' from 'theano.tensor.signal'\n"
    base = {"schema": 1, "log": logscan.log_table(line, source="log.txt")}
    rules = load_rules()
    found = {d.id: d for d in run_check(base, rules, source="test").diagnoses}
    assert found["LD112"].alternatives == ["LD157"] and found["LD157"].alternatives == ["LD112"]
    assert found["LD112"].alternatives_message == "theano-cannot-import-downsample"
    assert found["LD112"].to_dict()["alternatives"] == ["LD157"]
    # the project scan shows no downsample import of its own: Lasagne it is, no alternative
    scanned = {**base, "project": {"python2_pickles": [], "downsample": ""}}
    decided = {d.id: d for d in run_check(scanned, rules, source="test").diagnoses}
    assert "LD157" not in decided and decided["LD112"].alternatives == []


def test_alternatives_are_said_in_text_and_markdown() -> None:
    from legacydoc import logscan
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules
    from legacydoc.render.check_markdown import render_check_markdown
    from legacydoc.render.check_text import render_check_text

    line = b"ImportError: cannot import name 'downsample'\n"
    result = run_check({"schema": 1, "log": logscan.log_table(line, source="log.txt")}, load_rules(), source="t")
    for text in (render_check_text(result), render_check_markdown(result)):
        flat = " ".join(text.split())  # the text is wrapped at the terminal's width
        assert "points at this and at LD157" in flat and "What tells them apart:" in flat


def test_a_traceback_that_names_the_importer_settles_the_alternatives() -> None:
    """Lasagne's pool.py in the traceback singles out LD112; a project file's frame, LD157.
    The message both point at is then accounted for: its other cause does not fire."""
    from legacydoc import logscan
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules

    rules = load_rules()
    error = "ImportError: cannot import name downsample\n"
    lasagne = ('  File "/usr/lib/python2.7/dist-packages/lasagne/layers/pool.py", line 6, in <module>\n'
               "    from theano.tensor.signal import downsample\n" + error)
    project = '  File "network3.py", line 43, in <module>\n    from theano.tensor.signal import downsample\n' + error
    elided = "    from lasagne.init import HeUniform, Constant\n...\n" + error
    for log, cause, other in ((lasagne, "LD112", "LD157"), (elided, "LD112", "LD157"), (project, "LD157", "LD112")):
        record = {"schema": 1, "log": logscan.log_table(log.encode(), source="log.txt")}
        found = {d.id: d for d in run_check(record, rules, source="test").diagnoses}
        assert cause in found and found[cause].alternatives == [] and other not in found, (log, list(found))
    # a Lasagne the record shows is not 0.1 cannot be what the frame singles out
    record = {"schema": 1, "log": logscan.log_table(lasagne.encode(), source="log.txt"),
              "packages": {"lasagne": {"name": "Lasagne", "version": "0.2.dev1"},
                           "theano": {"name": "Theano", "version": "1.0.5"}}}
    found = {d.id for d in run_check(record, rules, source="test").diagnoses}
    assert "LD112" not in found, found


def _run_log(text: str, rules: Any = None, **record: Any) -> dict[str, Any]:
    from legacydoc import logscan
    from legacydoc.checkup import run_check
    from legacydoc.engine import load_rules

    facts = {"schema": 1, "log": logscan.log_table(text.encode(), source="log.txt"), **record}
    return {d.id: d for d in run_check(facts, rules if rules is not None else load_rules(), source="t").diagnoses}



def test_a_lock_theano_names_an_owner_of_is_not_called_left_behind() -> None:
    """Theano takes over at once a lock whose owner it matches to this host and finds gone
    (compilelock.py), so a wait on a named process is most often a live one (a pool of
    workers, thejoker 105); an unreadable owner ('unknown process', Theano 3723) points at a
    stale lock, and the companion line alone at neither."""
    tail = "\nINFO (theano.gof.compilelock): To manually release the lock, delete /home/u/.theano/c/lock_dir\n"
    theano = {"theano": {"name": "Theano"}}
    assert "LD501" in _run_log("INFO (theano.gof.compilelock): Waiting for existing lock by unknown process "
                               "(I am process '2799')" + tail, packages=theano)
    assert "LD501" not in _run_log("INFO (theano.gof.compilelock): Waiting for existing lock by process '4242' "
                                   "(I am process '2799')" + tail, packages=theano)
    assert "LD501" not in _run_log(tail, packages=theano)


def test_k_t_missing_names_the_backend_only_where_keras_exports_it() -> None:
    """keras.backend re-exports theano_backend's T up to Keras 2.2.4 (import *); 2.2.5 to
    2.3.1 list their names without it, so K.T fails there on Theano too."""
    log = "    self.x = K.T.tensor4('x')\nAttributeError: 'module' object has no attribute 'T'\n"

    def packages(keras: str) -> dict[str, Any]:
        return {"theano": {"name": "Theano", "version": "1.0.5"}, "keras": {"name": "Keras", "version": keras}}

    assert "LD122" in _run_log(log, packages=packages("1.2.2"))
    assert "LD122" not in _run_log(log, packages=packages("2.3.1"))

def test_rules_of_one_cause_are_not_alternatives() -> None:
    # "g++ not available" names one cause, no g++, seen by LD400 and LD401: LD401 is
    # folded under LD400, and neither is offered as the other's rival.
    from legacydoc.messages import by_id, catalogue

    found = _run_log(by_id(catalogue())["theano-missing-gxx-cannot-compile"].example + "\n")
    assert "LD400" in found and found["LD400"].alternatives == []
    assert all(not d.alternatives for d in found["LD400"].folded)


def test_a_message_another_one_settles_offers_no_alternatives() -> None:
    # The isnan message singles out LD405; the MinGW .seh_savexmm message (LD405 or a second
    # MinGW, LD402) is then accounted for and offers no rival to either.
    from legacydoc.messages import by_id, catalogue

    known = by_id(catalogue())
    log = "\n".join(known[m].example for m in ("mingw-invalid-register-seh-savexmm", "compiler-isnan-on-integer"))
    found = _run_log(log + "\n")
    assert "LD405" in found and found["LD405"].alternatives == []
    assert "LD402" not in found or found["LD402"].alternatives == []


def test_a_log_only_rule_the_record_shows_gone_singles_nothing_out() -> None:
    # A log-only LD112 whose 'unless' holds (a Lasagne version recorded) does not fire, so
    # it cannot account for the downsample message: the code itself stays a candidate.
    from legacydoc.engine import load_rules
    from legacydoc.structs import replace

    gone = {"fact": "packages.lasagne.version", "exists": True}
    rules = [replace(r, log_only=True, when=[], unless=[gone]) if r.id == "LD112" else r for r in load_rules()]
    log = ('  File "/usr/lib/python2.7/dist-packages/lasagne/layers/pool.py", line 6, in <module>\n'
           "    from theano.tensor.signal import downsample\nImportError: cannot import name downsample\n")
    found = _run_log(log, rules, packages={"lasagne": {"name": "Lasagne", "version": "0.2.dev1"}})
    assert "LD112" not in found and "LD157" in found, list(found)
