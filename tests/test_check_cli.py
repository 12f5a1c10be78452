"""`legacydoc check`, `rules` and `rules explain` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from legacydoc import logscan
from legacydoc.areas import AREA_NAMES as AREAS
from legacydoc.engine import LAYERS, SEVERITIES
from legacydoc.messages import catalogue, shown_by_log
from test_cli import run_cli

SEED_000 = REPO / "fixtures" / "seed-000-win10-python313-nvml-error" / "facts.toml"
SEED_002 = REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"
HEALTHY = REPO / "fixtures" / "healthy-linux-gtx1080ti-cuda102" / "facts.toml"

# The documented shape of `check --format json` (README, "check --format json").
TOP_KEYS = {"legacydoc_version", "facts_schema", "source", "verdict", "runs_on", "target", "counts", "areas", "diagnoses",
            "log_unexplained", "plan"}
PLAN_KEYS = {"os", "python", "python_now", "keep_env", "env_kind", "theano", "packages", "conda_packages", "reasons",
             "device", "theanorc", "env", "steps", "cannot", "keras_json", "notes", "wheels_generated"}
DIAG_KEYS = {"id", "name", "area", "severity", "layer", "title", "why", "fix", "evidence", "references", "explains", "folded",
             "alternatives", "alternatives_message"}


def _validate_diagnosis(diag: dict) -> None:
    assert set(diag) == DIAG_KEYS
    assert diag["severity"] in SEVERITIES and diag["layer"] in LAYERS and diag["area"] in AREAS
    assert isinstance(diag["fix"], list) and all(isinstance(s, str) and s for s in diag["fix"])
    assert isinstance(diag["evidence"], dict)
    assert all(isinstance(i, str) for i in diag["explains"])
    assert [f["id"] for f in diag["folded"]] == diag["explains"]
    for folded in diag["folded"]:
        _validate_diagnosis(folded)


@pytest.mark.parametrize("fixture", [SEED_000, SEED_002, HEALTHY], ids=["000", "002", "healthy"])
def test_json_output_has_the_documented_shape(fixture: Path) -> None:
    proc = run_cli("check", "--facts", str(fixture), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == TOP_KEYS
    assert data["facts_schema"] == 1
    assert data["runs_on"] in ("cpu", "gpu", "unknown")
    assert isinstance(data["target"], dict)
    assert [a["name"] for a in data["areas"]] == list(AREAS)
    assert all(a["status"] in ("ok", "warning", "error", "unknown") for a in data["areas"])
    for diag in data["diagnoses"]:
        _validate_diagnosis(diag)
    assert (data["counts"]["error"] > 0) == (proc.returncode == 1)
    assert set(data["plan"]) == PLAN_KEYS
    assert [s["number"] for s in data["plan"]["steps"]] == list(range(1, len(data["plan"]["steps"]) + 1))


def test_exit_codes() -> None:
    assert run_cli("check", "--facts", str(SEED_000)).returncode == 1
    assert run_cli("check", "--facts", str(HEALTHY)).returncode == 0
    # seed 002 has warnings and errors; healthy has only info: --strict keeps it at 0
    assert run_cli("check", "--facts", str(HEALTHY), "--strict").returncode == 0


def test_strict_turns_warnings_into_failure(tmp_path: Path) -> None:
    # The healthy machine plus MKL 2019 without MKL_THREADING_LAYER: one warning (LD601).
    text = HEALTHY.read_text().replace(
        "[packages.six]", '[packages.mkl]\nname = "mkl"\nversion = "2019.0"\n\n[packages.six]'
    )
    facts_file = tmp_path / "f.toml"
    facts_file.write_text(text)
    data = json.loads(run_cli("check", "--facts", str(facts_file), "--format", "json").stdout)
    assert data["counts"]["warning"] == 1 and data["counts"]["error"] == 0
    assert run_cli("check", "--facts", str(facts_file)).returncode == 0
    assert run_cli("check", "--facts", str(facts_file), "--strict").returncode == 1


def test_markdown_output() -> None:
    proc = run_cli("check", "--facts", str(SEED_002), "--format", "markdown")
    assert proc.returncode == 1
    out = proc.stdout
    assert out.startswith("## legacydoc check")
    assert "| area | status | found | checks |" in out
    assert "```\n[dnn]\nenabled = True\n```" in out
    assert "<details><summary>Facts (TOML)</summary>" in out and "```toml" in out


def test_text_output_on_this_machine_says_where_theano_runs(tmp_path: Path) -> None:
    proc = run_cli("check", "--timeout", "20", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert "would run on the" in proc.stdout
    lines = proc.stdout.strip().splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("Verdict: "))
    # check ends with the plan, its steps numbered from 1
    assert lines[verdict + 2].startswith("The plan: ")
    assert lines[verdict + 3].startswith("  1. ")


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("not toml = = =", "not a TOML facts file"),
        ("schema = 2\n", "facts schema 2"),
    ],
)
def test_bad_facts_file_is_one_line_exit_2(tmp_path: Path, content: str, fragment: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(content)
    proc = run_cli("check", "--facts", str(bad))
    assert proc.returncode == 2
    assert fragment in proc.stderr and str(bad) in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_broken_rule_pack_is_one_line_exit_2(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "mine.toml").write_text(
        '[[rule]]\nid = "X1"\nname = "x"\narea = "gpu"\nlayer = "drivers"\nseverity = "error"\n'
        'applies = { theano = "any", backend = "any" }\ntitle = "t"\nwhy = "w"\nfix = ["f"]\nwhen = { fact = "gpu.drivr_version", exists = true }\n'
    )
    proc = run_cli("check", "--facts", str(HEALTHY), "--rules", str(pack))
    assert proc.returncode == 2
    assert "mine.toml: rule X1: unknown fact name 'gpu.drivr_version'" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for the interpreter")
def test_a_broken_rule_pack_stops_the_target_probe_already_running(tmp_path: Path) -> None:
    """The target interpreter is probed while the rules are read: a rule pack that fails
    to load must not leave it running behind legacydoc's exit 2."""
    import time

    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "mine.toml").write_text("[[rule]]\nid = \"X1\"\n")
    marker = tmp_path / "python.pid"
    python = tmp_path / "slow-python"
    python.write_text("#!/bin/sh\necho $$ > %s\nexec sleep 987607\n" % marker)
    python.chmod(0o755)
    started = time.monotonic()
    proc = run_cli("check", "--python", str(python), "--rules", str(pack), "--timeout", "60")
    assert proc.returncode == 2 and "mine.toml" in proc.stderr
    assert time.monotonic() - started < 30
    time.sleep(0.5)  # a process started as legacydoc exited has written its pid by now
    if not marker.exists():
        return  # cancelled before it started: nothing to leave behind
    pid = int(marker.read_text())
    try:
        status = Path("/proc/%d/status" % pid)
        assert not status.exists() or "\nState:\tZ" in status.read_text()
    finally:
        try:
            os.kill(pid, 9)
        except OSError:
            pass


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT and a POSIX shell script")
def test_ctrl_c_while_probing_stops_the_target_interpreter_too(tmp_path: Path) -> None:
    """The probes' commands run in sessions of their own, out of reach of the terminal's
    SIGINT: an interrupted check must kill them itself."""
    import signal
    import time

    marker = tmp_path / "python.pid"
    python = tmp_path / "hung-python"
    python.write_text("#!/bin/sh\necho $$ > %s\nexec sleep 987609\n" % marker)
    python.chmod(0o755)
    proc = subprocess.Popen([sys.executable, "-m", "legacydoc", "check", "--python", str(python), "--timeout", "60"],
                            cwd=str(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    deadline = time.monotonic() + 30
    # the shell creates the file before it writes the pid: wait for the whole line
    while not (marker.exists() and marker.read_text().endswith("\n")) and time.monotonic() < deadline:
        time.sleep(0.02)
    pid = int(marker.read_text())
    time.sleep(1.5)  # the rules are read by now: check waits for the probes
    try:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        time.sleep(0.2)
        status = Path("/proc/%d/status" % pid)
        assert not status.exists() or "\nState:\tZ" in status.read_text()
    finally:
        proc.kill()
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def test_a_users_rule_pack_adds_rules(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "site.toml").write_text(
        '[[rule]]\nid = "SITE1"\nname = "site-needs-float32"\narea = "config"\nlayer = "config"\n'
        'severity = "error"\napplies = { theano = "any", backend = "any" }\ntitle = "Our cluster needs floatX=float32, found {config.effective.floatX.value}"\n'
        'why = "house rule"\nfix = ["[global]\\nfloatX = float32"]\n'
        'when = { fact = "config.effective.floatX.value", not_equals = "float32" }\n'
    )
    proc = run_cli("check", "--facts", str(HEALTHY), "--rules", str(pack), "--format", "json")
    data = json.loads(proc.stdout)
    assert "SITE1" not in [d["id"] for d in data["diagnoses"]]  # healthy has float32
    proc = run_cli("rules", "--rules", str(pack))
    assert "SITE1" in proc.stdout


def test_rules_list_and_explain() -> None:
    proc = run_cli("rules")
    assert proc.returncode == 0
    assert "LD105" in proc.stdout and "numpy-blas-opt-info-removed" in proc.stdout
    by_id = run_cli("rules", "explain", "LD105")
    by_name = run_cli("rules", "explain", "numpy-blas-opt-info-removed")
    assert by_id.returncode == 0 and by_id.stdout == by_name.stdout
    assert "NoSectionError" in by_id.stdout and "Fix:" in by_id.stdout and "References:" in by_id.stdout
    missing = run_cli("rules", "explain", "LD999")
    assert missing.returncode == 2 and "no rule with id or name" in missing.stderr


def test_areas_never_probed_are_unknown_and_say_why_and_which_facts_were_missing(tmp_path: Path) -> None:
    """A partial record (what a ticket states) claims nothing about areas it does not hold."""
    record = tmp_path / "partial.toml"
    record.write_text('schema = 1\n[packages.theano]\nname = "Theano"\nversion = "1.0.5"\n'
                      '[gpu.nvidia_smi]\nfound = true\nrc = 0\ntimed_out = true\n')
    proc = run_cli("check", "--facts", str(record), "--format", "json")
    data = json.loads(proc.stdout)
    areas = {a["name"]: a for a in data["areas"]}
    assert areas["cudnn"]["status"] == "unknown" and areas["cudnn"]["note"] == "not in the record"
    assert areas["gpu"]["note"] == "timed out"  # and LD207 warns about the hang
    assert "LD305" in areas["cudnn"]["undecided"]  # cuDNN missing? not decidable here
    assert data["runs_on"] == "unknown"
    assert not [d for d in data["diagnoses"] if d["id"] in ("LD305", "LD401", "LD400", "LD115")]
    text = run_cli("check", "--facts", str(record)).stdout
    assert "[ ?? ] cuDNN" in text and "not in the record" in text and "would run is unknown" in text


def test_area_lines_say_what_was_found_and_v_lists_every_check(tmp_path: Path) -> None:
    data = json.loads(run_cli("check", "--facts", str(HEALTHY), "--format", "json").stdout)
    areas = {a["name"]: a for a in data["areas"]}
    assert "Python 3." in areas["python"]["summary"] and "numpy" in areas["packages"]["summary"]
    assert data["target"]["selected_by"] and data["target"]["version"].startswith("3.")
    text = run_cli("check", "--facts", str(HEALTHY), "-v").stdout
    assert "LD101 passed" in text and "LD123 reads the log (--log)" in text
    record = tmp_path / "partial.toml"
    record.write_text('schema = 1\n[packages.theano]\nname = "Theano"\n')
    verbose = run_cli("check", "--facts", str(record), "-v").stdout
    assert "unknown: not in the record" in verbose
    assert "LD100 undecided: not recorded: python.probe_ok" in verbose


NO_GPU_RECORD = r"""schema = 1
[system]
os = "linux"
[python]
probe_ok = true
version = "3.8.18"
executable = "/usr/bin/python3.8"
[packages]
found = ["theano", "numpy", "scipy"]
[packages.theano]
name = "Theano"
version = "1.0.5"
[packages.numpy]
name = "numpy"
version = "1.21.6"
[gpu.nvidia_smi]
found = false
searched = ["PATH"]
[cuda.nvcc]
found = false
[cudnn]
headers = []
libraries = []
[libraries.winner]
[path]
entries = []
[compilers]
found = true
[compilers.gxx]
found = true
path = "/usr/bin/g++"
version = "9.4.0"
version_major = 9
[[theano_config.files]]
path = "/home/u/.theanorc"
from = "default"
exists = true
readable = true
kind = "file"
text = "[global]\ndevice = cuda\nfloatX = float32\n"
"""


def test_without_a_gpu_the_gpu_back_ends_needs_fold_under_the_missing_driver(tmp_path: Path) -> None:
    """One device=cuda line on a machine with no NVIDIA driver: pygpu and cuDNN are moot."""
    record = tmp_path / "nogpu.toml"
    record.write_text(NO_GPU_RECORD)
    data = json.loads(run_cli("check", "--facts", str(record), "--format", "json").stdout)
    top = [d["id"] for d in data["diagnoses"]]
    assert top[0] == "LD200" and "LD115" not in top and "LD305" not in top, top
    assert {"LD115", "LD305"} <= set(data["diagnoses"][0]["explains"])


def test_colour_follows_no_color_force_color_and_term_dumb() -> None:
    import io

    from legacydoc.render.summary import use_color

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    cases = [({}, Tty(), True), ({"TERM": "dumb"}, Tty(), False), ({"NO_COLOR": "1"}, Tty(), False),
             ({"FORCE_COLOR": "1"}, io.StringIO(), True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, Tty(), False),
             ({"FORCE_COLOR": "0"}, io.StringIO(), False), ({}, io.StringIO(), False)]
    for env, stream, expected in cases:
        saved = {k: os.environ.pop(k, None) for k in ("TERM", "NO_COLOR", "FORCE_COLOR")}
        try:
            os.environ.update(env)
            assert use_color(stream) is expected, env
        finally:
            for k in ("TERM", "NO_COLOR", "FORCE_COLOR"):
                os.environ.pop(k, None)
                if saved[k] is not None:
                    os.environ[k] = saved[k]
    forced = run_cli("check", "--facts", str(HEALTHY), env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "\x1b[" in forced.stdout


# A record that says only what a reporter said: Python 3.8 on macOS, Theano installed,
# numpy's version not stated; and the first lines of their traceback (pymc-devs/pymc#5435).
NUMPY_UNSTATED = """schema = 1
[system]
os = "darwin"
[python]
version = "3.8.12"
[packages.theano]
name = "Theano"
version = "1.0.5"
"""
BLAS_SECTION_LOG = """NoSectionError                            Traceback (most recent call last)
File ./venv/lib/python3.8/site-packages/theano/configparser.py:238, in TheanoConfigParser.fetch_val_for_key(self, key, delete_key)
"""


def test_a_log_message_no_finding_explains_is_listed_with_what_would_settle_it(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    facts.write_text(NUMPY_UNSTATED, encoding="utf-8")
    log.write_text(BLAS_SECTION_LOG, encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    assert not [d for d in data["diagnoses"] if d["severity"] == "error"]
    [item] = data["log_unexplained"]
    assert item["message"] == "theano-config-no-section-blas" and item["line"] == 1
    assert "LD105" in item["undecided"] and "packages.numpy.version" in item["unknown_facts"]
    assert "LD119" in item["ruled_out"]  # it is about Theano before 1.0.4
    assert "do not explain" in data["verdict"]
    text = run_cli("check", "--facts", str(facts), "--log", str(log)).stdout
    assert "In the log, but not explained by these facts:" in text
    assert "legacydoc explain %s" % log in text
    markdown = run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "markdown").stdout
    assert "`theano-config-no-section-blas`" in markdown


def test_a_log_message_a_finding_explains_is_not_listed_again(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    # numpy 1.22 stated: the numpy rule decides, and its finding is what the log meant
    facts.write_text(NUMPY_UNSTATED + '[packages.numpy]\nname = "numpy"\nversion = "1.22.0"\n', encoding="utf-8")
    log.write_text(BLAS_SECTION_LOG, encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    assert "LD105" in {d["id"] for d in data["diagnoses"]} | {f["id"] for d in data["diagnoses"] for f in d["folded"]}
    assert data["log_unexplained"] == []
    assert "do not explain" not in data["verdict"]


def test_without_a_log_nothing_is_listed() -> None:
    data = json.loads(run_cli("check", "--facts", str(HEALTHY), "--format", "json").stdout)
    assert data["log_unexplained"] == []
    assert "In the log" not in run_cli("check", "--facts", str(HEALTHY)).stdout


def test_a_clean_verdict_says_how_many_areas_were_unknown(tmp_path: Path) -> None:
    facts = tmp_path / "facts.toml"
    facts.write_text(NUMPY_UNSTATED, encoding="utf-8")  # a reporter's few facts
    data = json.loads(run_cli("check", "--facts", str(facts), "--format", "json").stdout)
    unknown = sum(area["status"] == "unknown" for area in data["areas"])
    assert unknown >= 5
    assert data["verdict"].endswith("(%d of %d areas are unknown: nothing was checked there)." % (
        unknown, len(data["areas"])))
    healthy = json.loads(run_cli("check", "--facts", str(HEALTHY), "--format", "json").stdout)
    assert not any(area["status"] == "unknown" for area in healthy["areas"])
    assert "unknown" not in healthy["verdict"]


def test_a_healthy_banner_in_the_log_is_not_a_failure_to_explain(tmp_path: Path) -> None:
    log = tmp_path / "run.txt"
    log.write_text("Using gpu device 0: GeForce GTX 1080 Ti (CNMeM is disabled, cuDNN 7005)\n", encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(HEALTHY), "--log", str(log), "--format", "json").stdout)
    assert data["log_unexplained"] == []
    assert "do not explain" not in data["verdict"]


HOSTILE_LOG_TABLE = """
[log]
source = "a.txt\\n\\n## Verdict: all fine"
encoding = "utf-8"
lines = 3
truncated = false
ids = ["theano-config-no-section-blas"]
[[log.matches]]
id = "theano-config-no-section-blas"
line = 2
text = "boom\\n\\n## Injected heading \\u001b]0;pwned\\u0007"
"""


def test_log_text_from_a_record_cannot_forge_markdown_or_reach_the_terminal(tmp_path: Path) -> None:
    facts = tmp_path / "facts.toml"
    facts.write_text(NUMPY_UNSTATED + HOSTILE_LOG_TABLE, encoding="utf-8")
    markdown = run_cli("check", "--facts", str(facts), "--format", "markdown")
    text = run_cli("check", "--facts", str(facts))
    assert markdown.returncode == 0 and text.returncode == 0, markdown.stderr + text.stderr
    assert "theano-config-no-section-blas" in markdown.stdout and "Injected heading" in markdown.stdout
    assert not [line for line in markdown.stdout.splitlines() if line.startswith(("## Injected", "## Verdict"))]
    assert "\x1b" not in text.stdout and "\x07" not in text.stdout
    # the log named in the record is not a file here: the hint says LOG, and names the record
    assert "legacydoc explain LOG --facts %s" % facts in " ".join(text.stdout.split())


def test_every_unexplained_message_is_in_the_json_and_the_text_says_how_many_more(tmp_path: Path) -> None:
    from legacydoc.engine import load_rules
    from legacydoc.messages import catalogue
    from legacydoc.unsettled import MAX_SHOWN

    log, facts = tmp_path / "all.txt", tmp_path / "facts.toml"
    log.write_text("\n".join(m.example for m in catalogue()) + "\n", encoding="utf-8")
    facts.write_text("schema = 1\n", encoding="utf-8")  # nothing known: few causes can be settled
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    items = data["log_unexplained"]
    assert len(items) > MAX_SHOWN
    assert len({item["message"] for item in items}) == len(items)
    informational = {m.id for m in catalogue() if m.informational}
    assert informational and not informational & {item["message"] for item in items}
    log_only = {rule.id for rule in load_rules() if rule.log_only}
    for item in items:
        assert set(item["need_another_message"]) <= log_only
        assert not set(item["need_another_message"]) & set(item["undecided"])
    text = run_cli("check", "--facts", str(facts), "--log", str(log)).stdout
    assert "... and %d more (--format json lists them all)" % (len(items) - MAX_SHOWN) in text


def test_log_lines_quoted_as_a_findings_evidence_are_flattened_too(tmp_path: Path) -> None:
    facts = tmp_path / "facts.toml"
    table = HOSTILE_LOG_TABLE.replace("theano-config-no-section-blas", "theano-gpuarray-pygpu-not-imported")
    facts.write_text(NUMPY_UNSTATED + '[packages.pygpu]\nname = "pygpu"\nversion = "0.7.6"\n' + table, encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--format", "json").stdout)
    seen = [line for d in data["diagnoses"] for line in d["evidence"].get("log", [])]
    assert seen and all("\n" not in line and "\x1b" not in line for line in seen), data["diagnoses"]
    markdown = run_cli("check", "--facts", str(facts), "--format", "markdown").stdout
    assert not [line for line in markdown.splitlines() if line.lstrip("> -").startswith("## Injected")]


def test_on_a_working_gpu_the_nvidia_smi_failure_checks_pass_rather_than_stay_undecided() -> None:
    lines = [line.split() for line in run_cli("check", "-v", "--facts", str(HEALTHY)).stdout.splitlines()]
    states = {words[0]: words[1] for words in lines if len(words) >= 2 and words[0] in {"LD201", "LD202", "LD203"}}
    assert states == {"LD201": "passed", "LD202": "passed", "LD203": "passed"}, states


def test_the_explain_hint_names_a_log_file_and_says_log_for_standard_input(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    facts.write_text(NUMPY_UNSTATED, encoding="utf-8")
    log.write_text(BLAS_SECTION_LOG, encoding="utf-8")
    named = " ".join(run_cli("check", "--facts", str(facts), "--log", str(log)).stdout.split())
    assert "legacydoc explain %s --facts %s" % (log, facts) in named
    piped = subprocess.run([sys.executable, "-m", "legacydoc", "check", "--facts", str(facts), "--log", "-"],
                           input=BLAS_SECTION_LOG, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=str(REPO))
    assert "legacydoc explain LOG --facts %s" % facts in " ".join(piped.stdout.split()), piped.stderr


def _diagnoses(record: Path, *extra: str) -> dict:
    """check --facts RECORD --format json: its diagnoses by id."""
    done = run_cli("check", "--facts", str(record), "--format", "json", *extra)
    assert done.returncode in (0, 1), done.stderr
    return {d["id"]: d for d in json.loads(done.stdout)["diagnoses"]}


def test_code_that_imports_the_removed_downsample_is_named_with_its_file(tmp_path: Path) -> None:
    """LD157: from the project scan (file:line) against the recorded Theano, or from the
    traceback alone; a scanned project without the import leaves the message to Lasagne."""
    record = tmp_path / "facts.toml"
    record.write_text('schema = 1\n[system]\nos = "linux"\n[packages.theano]\nname = "Theano"\nversion = "1.0.5"\n')
    project = tmp_path / "project"
    project.mkdir()
    (project / "network3.py").write_text("import theano\nfrom theano.tensor.signal import downsample\n")
    log = tmp_path / "log.txt"
    log.write_text("ImportError: cannot import name 'downsample'\n")

    found = _diagnoses(record, "--project", str(project))
    assert "network3.py:2" in found["LD157"]["title"] and "1.0.5" in found["LD157"]["title"], found
    assert "LD157" in _diagnoses(record, "--log", str(log))  # the traceback alone: a candidate
    (project / "network3.py").write_text("import theano\nfrom theano.tensor.signal import pool\n")
    assert "LD157" not in _diagnoses(record, "--project", str(project), "--log", str(log))
    record.write_text(record.read_text().replace("1.0.5", "0.8.2"))
    (project / "network3.py").write_text("from theano.tensor.signal import downsample\n")
    assert "LD157" not in _diagnoses(record, "--project", str(project))  # 0.8.2 still has it


def test_gpu_only_layers_under_device_cpu_are_named_from_the_project_or_the_log(tmp_path: Path) -> None:
    """LD172: the project's import of lasagne.layers.dnn with device=cpu in the config; or
    Lasagne's refusal in the log with device=cpu; never with the device unknown or a GPU one."""
    record = tmp_path / "facts.toml"
    cpu = ('schema = 1\n[system]\nos = "linux"\n[packages.theano]\nname = "Theano"\nversion = "0.8.2"\n'
           '[theano_config]\nfiles = []\n[theano_config.flags]\nTHEANO_FLAGS = "device=%s"\n')
    record.write_text(cpu % "cpu")
    project = tmp_path / "project"
    project.mkdir()
    (project / "net.py").write_text("import lasagne\nfrom lasagne.layers import dnn\n")
    log = tmp_path / "log.txt"
    log.write_text("    raise ImportError(\"dnn not available\")  # pragma: no cover\nImportError: dnn not available\n")

    found = _diagnoses(record, "--project", str(project))
    assert "lasagne.layers.dnn (net.py:2)" in found["LD172"]["title"], found
    assert "LD172" in _diagnoses(record, "--log", str(log))
    # the import sits in a function the scan does not read: the log still decides
    (project / "net.py").write_text("def build():\n    from lasagne.layers import dnn\n")
    assert "LD172" not in _diagnoses(record, "--project", str(project))
    assert "LD172" in _diagnoses(record, "--project", str(project), "--log", str(log))
    # a GPU context beside the CPU device (Lasagne master's layers accept it): not claimed,
    # and the log then shows that context failing
    (project / "net.py").write_text("import lasagne\nfrom lasagne.layers import dnn\n")
    record.write_text(cpu % "cpu,init_gpu_device=cuda0")
    assert "LD172" not in _diagnoses(record, "--project", str(project))
    assert "LD172" not in _diagnoses(record, "--log", str(log))
    record.write_text(cpu % "gpu")  # the GPU was asked for and did not start: another cause
    assert "LD172" not in _diagnoses(record, "--log", str(log))
    record.write_text('schema = 1\n[system]\nos = "linux"\n')  # the device is not recorded
    assert "LD172" not in _diagnoses(record, "--log", str(log))


def test_lasagnes_requires_gpu_support_is_named_whatever_kept_the_gpu_off(tmp_path: Path) -> None:
    """LD175: Lasagne master's refusal proves no GPU back-end runs, not why: with the device
    unknown it is the finding; with device=cpu known, LD172 says it and folds LD175 under it."""
    record = tmp_path / "facts.toml"
    log = tmp_path / "log.txt"
    log.write_text("ImportError: requires GPU support -- see http://lasagne.readthedocs.org/en/latest/user/"
                   "installation.html#gpu-support\n")
    record.write_text('schema = 1\n[system]\nos = "windows"\n[packages.theano]\nname = "Theano"\n')
    found = _diagnoses(record, "--log", str(log))
    assert "LD175" in found and "LD172" not in found
    record.write_text('schema = 1\n[system]\nos = "windows"\n[packages.theano]\nname = "Theano"\n'
                      '[theano_config]\nfiles = []\n[theano_config.flags]\nTHEANO_FLAGS = "device=cpu"\n')
    found = _diagnoses(record, "--log", str(log))
    assert "LD172" in found and "LD175" not in found
    assert any(item["id"] == "LD175" for item in found["LD172"]["folded"]), found["LD172"]["folded"]
    # no NVIDIA driver: the root cause, with LD175 as what the code then runs into
    record.write_text('schema = 1\n[system]\nos = "linux"\n[packages.theano]\nname = "Theano"\n'
                      '[gpu.nvidia_smi]\nfound = false\n')
    found = _diagnoses(record, "--log", str(log))
    assert "LD200" in found and "LD175" not in found
    assert any(item["id"] == "LD175" for item in found["LD200"]["folded"]), found["LD200"]["folded"]
    # Lasagne 0.1's refusal checks the device flag only: not this rule
    log.write_text("ImportError: requires a GPU to work\n")
    assert "LD175" not in _diagnoses(record, "--log", str(log))


def test_possible_causes_of_one_message_are_one_error_in_the_verdict() -> None:
    """A downsample ImportError that names neither Lasagne nor the importing file shows two
    possible causes (LD112, LD157): one problem, whichever it turns out to be."""
    case = REPO / "fixtures" / "tickets" / "gh-deeplearningpython-5"
    proc = run_cli("check", "--facts", str(case / "facts.toml"), "--log", str(case / "log.txt"),
                   env={"LEGACYDOC_LANG": "en"})
    assert proc.returncode == 1
    assert "Verdict: 1 error (shown as 2 possible causes), 0 warnings" in proc.stdout, proc.stdout
    assert "[LD112" in proc.stdout and "[LD157" in proc.stdout


CUDA_ONLY = """schema = 1
legacydoc_version = "0.1.0"
collected_at = "2017-08-17T00:00:00+00:00"
redacted = true

[system]
os = "linux"

[packages.theano]
name = "Theano"
version = "1.0.5"

[theano_config.flags]
THEANO_FLAGS = "device=cuda"
"""


@pytest.mark.parametrize("line, first, quiet", [
    # the memory cuDNN's algorithm needs was not there: the card is full, the setup works
    ("RuntimeError: error selecting convolution algo: CUDNN_STATUS_ALLOC_FAILED", "LD614", "LD213"),
    ("MemoryError: Could not allocate GPU memory for FindEx", "LD614", "LD213"),
])
def test_the_status_cudnn_quotes_names_the_cause(tmp_path: Path, line: str, first: str, quiet: str) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    facts.write_text(CUDA_ONLY, encoding="utf-8")
    log.write_text(line + "\n", encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    errors = [d["id"] for d in data["diagnoses"] if d["severity"] == "error"]
    assert errors[:1] == [first] and quiet not in errors


def _check_with_log(facts: Path, log: Path, record: str) -> list[dict]:
    """check's diagnoses, as JSON, for this record and the log already written."""
    facts.write_text(record, encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    return list(data["diagnoses"])


OLD_GPU = '[gpu]\ncount = 1\n\n[[gpu.devices]]\nindex = 0\nname = "GeForce GTX 580"\ncompute_capability = "2.0"\n'
NEW_GPU = '[gpu]\ncount = 1\n\n[[gpu.devices]]\nindex = 0\nname = "GeForce GTX 1080"\ncompute_capability = "6.1"\n'
ARCH_MISMATCH = "RuntimeError: error doing cuDNN conv FWD operation: CUDNN_STATUS_ARCH_MISMATCH\n"


def test_cudnns_arch_mismatch_is_an_old_gpu_only_where_the_record_shows_one(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    log.write_text(ARCH_MISMATCH, encoding="utf-8")

    def errors(record: str) -> list[str]:
        return [d["id"] for d in _check_with_log(facts, log, record) if d["severity"] == "error"]

    # a Fermi card: no cuDNN runs there
    assert errors(CUDA_ONLY + OLD_GPU)[:1] == ["LD213"]
    # a GTX 1080 with float16 computed in float16: the same status, and the GPU is not the cause
    half = CUDA_ONLY.replace('"device=cuda"', '"device=cuda,floatX=float16,dnn.conv.precision=float16"')
    assert "LD213" not in errors(half + NEW_GPU)
    # no GPU recorded: nothing claimed about its age
    assert "LD213" not in errors(CUDA_ONLY)


def test_an_arch_mismatch_is_read_by_one_message_only() -> None:
    for line in ("RuntimeError: GpuDnnConv: error getting worksize: CUDNN_STATUS_ARCH_MISMATCH",
                 "could not create cuDNN handle: CUDNN_STATUS_ARCH_MISMATCH", ARCH_MISMATCH):
        assert [m.id for m in logscan.scan(line, catalogue())] == ["theano-cudnn-op-arch-mismatch"]


def test_a_feature_check_both_back_ends_print_claims_neither_back_end(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    facts.write_text(CUDA_ONLY.replace('"1.0.5"', '"0.8.2"'), encoding="utf-8")
    log.write_text("RuntimeError: cuDNN convolution timing requires cuDNN v3\n", encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    assert [d["id"] for d in data["diagnoses"] if d["severity"] == "error"][:1] == ["LD314"]
    # Theano 0.8.2 prints it in both back-ends: the log proves neither
    ids = [m.id for m in logscan.scan(log.read_text(encoding="utf-8"), catalogue())]
    assert shown_by_log({"log": {"ids": ids}}) == {}


def test_a_failed_cudnn_kernel_alone_names_no_setting(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    facts.write_text(CUDA_ONLY, encoding="utf-8")
    log.write_text("runtimeError: error doing operation:CUDNN_STATUS_EXECUTION_FAILED\n", encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    assert not [d for d in data["diagnoses"] if d["severity"] == "error"]
    [item] = data["log_unexplained"]
    # no rule stands behind it alone: nothing is claimed, nothing is said to be one fact away
    assert item["message"] == "theano-cudnn-op-execution-failed" and item["undecided"] == []
    # beside a finding, such a message is listed no more: the finding is what the user reads
    facts.write_text(CUDA_ONLY + OLD_GPU, encoding="utf-8")
    log.write_text(ARCH_MISMATCH + "runtimeError: error doing operation:CUDNN_STATUS_EXECUTION_FAILED\n", encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    assert "LD213" in [d["id"] for d in data["diagnoses"]] and data["log_unexplained"] == []


def test_healthy_start_up_lines_are_never_failures_to_explain(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "run.txt"
    facts.write_text(CUDA_ONLY, encoding="utf-8")
    log.write_text("Using Theano backend.\nMapped name None to device cuda0: GeForce GTX 1080 (0000:01:00.0)\n"
                   "Using cuDNN version 5110 on context None\n", encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    assert data["log_unexplained"] == [] and "do not explain" not in data["verdict"]


def test_a_log_line_for_one_gpu_claims_nothing_of_gpus_the_record_rules_out(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    log.write_text("Can not use cuDNN on context None: Device not supported\n", encoding="utf-8")

    def found(record: str) -> list[dict]:
        return [d for d in _check_with_log(facts, log, record) if d["id"] == "LD213"]

    # the line names the GPU's age; the record's only GPU is a Pascal: no "too old" about it
    assert found(CUDA_ONLY + NEW_GPU) == []
    # a Fermi recorded: named from the facts
    [old] = found(CUDA_ONLY + OLD_GPU)
    assert "GTX 580" in old["title"]
    # a GPU whose compute capability is unknown, or none recorded: the line is the evidence
    unknown = NEW_GPU.replace("GeForce GTX 1080", "Some Card").replace('compute_capability = "6.1"\n', "")
    assert len(found(CUDA_ONLY + unknown)) == 1
    assert len(found(CUDA_ONLY)) == 1


DEV_BUILD_REFUSAL = ('ValueError: Invalid value ("cpu") for configuration variable "gpu0". '
                     'Valid options start with one of "device", "opencl", "cuda"\n')


@pytest.mark.parametrize("released, fires", [(False, True), (True, False)])
def test_a_git_build_labelled_0_9_0_is_judged_by_its_log(tmp_path: Path, released: bool, fires: bool) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    # master kept the label 0.9.0 for weeks after the release, and dropped device=gpu in them
    facts.write_text(CUDA_ONLY.replace('"device=cuda"', '"device=gpu0"').replace('version = "1.0.5"', 'version = "0.9.0"')
                     .replace("[theano_config.flags]", "[packages]\ntheano_released = %s\n\n[theano_config.flags]"
                              % str(released).lower()), encoding="utf-8")
    log.write_text(DEV_BUILD_REFUSAL, encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    errors = [d["id"] for d in data["diagnoses"] if d["severity"] == "error"]
    # the released 0.9.0 takes device=gpu: that log came from another Theano
    assert ("LD516" in errors) is fires and (errors[:1] == ["LD516"]) is fires


def test_a_0_10_beta_refuses_device_gpu_from_the_facts(tmp_path: Path) -> None:
    facts = tmp_path / "facts.toml"
    facts.write_text(CUDA_ONLY.replace('"device=cuda"', '"device=gpu0"').replace('"1.0.5"', '"0.10.0b2"'),
                     encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--format", "json").stdout)
    assert [d["id"] for d in data["diagnoses"] if d["severity"] == "error"][:1] == ["LD516"]


def test_the_old_back_ends_deprecation_warning_is_no_refusal(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "run.txt"
    # Theano installed, its release not recorded: the log must not make 0.9's start-up a 1.0 refusal
    facts.write_text('schema = 1\n\n[packages.theano]\nname = "Theano"\n', encoding="utf-8")
    log.write_text("WARNING (theano.sandbox.cuda): The cuda backend is deprecated and will be removed in the next "
                   "release (v0.10).  Please switch to the gpuarray backend.\n"
                   "Using gpu device 0: GeForce GTX 1060 (CNMeM is disabled, cuDNN 5105)\n", encoding="utf-8")
    data = json.loads(run_cli("check", "--facts", str(facts), "--log", str(log), "--format", "json").stdout)
    assert "LD516" not in [d["id"] for d in data["diagnoses"]]
    assert data["log_unexplained"] == []


SELF_TEST = ("Exception: The nvidia driver version installed with this OS does not give good results for "
             "reduction.Installing the nvidia driver available on the same download page as the cuda package will "
             "fix the problem: http://developer.nvidia.com/cuda-downloads\n")
OLD_BACKEND_09 = CUDA_ONLY.replace('"device=cuda"', '"device=gpu0"').replace('"1.0.5"', '"0.9.0"')


def test_the_old_back_ends_self_test_blames_the_driver_for_a_volta_gpu(tmp_path: Path) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    log.write_text(SELF_TEST, encoding="utf-8")

    def found(record: str) -> list[dict]:
        return [d for d in _check_with_log(facts, log, record) if d["severity"] == "error"]

    volta = NEW_GPU.replace("GeForce GTX 1080", "TITAN V").replace('"6.1"', '"7.0"')
    errors = found(OLD_BACKEND_09 + volta)
    # the architecture, not the driver: the message's driver reading is settled by the GPU
    assert [d["id"] for d in errors] == ["LD174"] and "TITAN V" in str(errors[0]["evidence"])
    cuda = '\n[cuda.nvcc]\nfound = true\nversion = "%s"\n'
    # a Pascal card built by CUDA 9: the toolkit, not the driver
    assert [d["id"] for d in found(OLD_BACKEND_09 + NEW_GPU + cuda % "9.0")] == ["LD174"]
    # a Pascal card with CUDA 8, the release's own pair: the driver stays the message's reading
    assert [d["id"] for d in found(OLD_BACKEND_09 + NEW_GPU + cuda % "8.0")] == ["LD208"]
    # neither the toolkit nor the GPU recorded: both causes, each shown as one of the two
    both = found(OLD_BACKEND_09)
    assert sorted(d["id"] for d in both) == ["LD174", "LD208"] and all(d["alternatives"] for d in both)


def test_the_dev_build_refusal_is_read_by_one_message_only() -> None:
    refusal = DEV_BUILD_REFUSAL.strip()
    assert [m.id for m in logscan.scan(refusal, catalogue())] == ["theano-dev-build-refuses-gpu"]
    # Theano 0.9.0's own wording (it lists "gpu"): a value it refuses for another reason
    released = refusal.replace('"gpu0"', '"cpu  # no GPU"').replace('"device", "opencl"', '"device", "gpu", "opencl"')
    assert [m.id for m in logscan.scan(released, catalogue())] == ["theano-config-device-invalid"]
    # a long value (a Python 3 inline comment) is still read, by the general message
    long_value = refusal.replace('"gpu0"', '"gpu0  # the first card of the lab machine, as always"')
    assert [m.id for m in logscan.scan(long_value, catalogue())] == ["theano-config-device-invalid"]


def test_a_git_build_labelled_0_9_0_keeps_its_release_where_the_log_shows_the_old_back_end() -> None:
    from legacydoc.derive import derive
    from legacydoc.theanorc.schema import select_release

    record: dict = {"schema": 1, "packages": {"theano": {"name": "Theano", "version": "0.9.0"},
                                              "theano_released": False}}
    theano = derive(record)["theano"]
    assert "version" not in theano and theano["version_label"] == "0.9.0"
    assert select_release(record).version_unknown
    # "Using gpu device 0: ..." is the old back-end running: the code is the release's
    running = {**record, "log": {"ids": ["theano-cuda-using-gpu-device"]}}
    assert derive(running)["theano"]["version"] == "0.9.0"
    assert select_release(running).schema_id == "theano-0.9.0"
    # the released package is the release whatever the log says
    released = {**record, "packages": {**record["packages"], "theano_released": True}}
    assert derive(released)["theano"]["version"] == "0.9.0"


@pytest.mark.parametrize("line", [
    "NVRM: API mismatch: the client has the version 440.82, but",
    "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:229] kernel version 361.42 does not match DSO version "
    "352.79 -- cannot find working devices in this configuration",
])
def test_a_kernel_module_of_another_driver_version_is_named_from_the_kernel_log_or_tensorflow(
        tmp_path: Path, line: str) -> None:
    facts, log = tmp_path / "facts.toml", tmp_path / "err.txt"
    log.write_text(line + "\n", encoding="utf-8")
    errors = [d["id"] for d in _check_with_log(facts, log, CUDA_ONLY) if d["severity"] == "error"]
    assert errors[:1] == ["LD202"]


def test_device_gpu_on_a_release_without_the_old_back_end_is_only_the_refusal(tmp_path: Path) -> None:
    # import theano stops at the device setting: nvcc and its MSVC are never reached
    facts = tmp_path / "facts.toml"
    for version in ("1.0.5", "0.10.0b2"):
        facts.write_text('schema = 1\n[system]\nos = "windows"\n[packages.theano]\nname = "Theano"\n'
                         'version = "%s"\n[theano_config.flags]\nTHEANO_FLAGS = "device=gpu0"\n'
                         '[cuda.nvcc]\nfound = true\nversion = "8.0"\n[compilers.msvc]\nfound = false\n' % version,
                         encoding="utf-8")
        data = json.loads(run_cli("check", "--facts", str(facts), "--format", "json").stdout)
        assert [d["id"] for d in data["diagnoses"] if d["severity"] == "error"] == ["LD516"], version
