"""`legacydoc report`, and redaction of every output format, as a user runs them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, FakeTools, posix_only
from legacydoc import facts
from test_cli import run_cli

SEED_002 = REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"
USER = "alexandrina"
HOST = "ws-lab-0042"
SECRET = "tok_9f8e7d6c5b4a3210"
UUID = "GPU-5e8f0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b"
SERIAL = "0324117046521"
LAYOUT = {"report.md", "report.json", "facts.toml", "manifest.json", "commands/index.json"}


class World:
    """A planted machine: its owner's name in the home folder, a PATH entry, the .theanorc,
    THEANO_FLAGS and nvidia-smi's output, plus a host name and a secret variable."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "Users" / USER
        self.home.mkdir(parents=True)
        # an unknown option, so the check's own findings quote the file's path
        (self.home / ".theanorc").write_text("[global]\ndevice = cpu\nfoo = /srv/%s/x\n" % USER)
        userbin = root / "srv" / USER / "bin"
        userbin.mkdir(parents=True)
        tools = FakeTools(root / "fakebin")
        tools.add(
            "nvidia-smi",
            stdout="GPU 0: GeForce GTX 1080 Ti (UUID: %s)\nSerial Number : %s\n"
            "Failed to initialize NVML: Unknown Error\nlog: %s/nvsmi.log (%s@%s, %s)\n"
            % (UUID, SERIAL, self.home, USER, HOST, SECRET),
            rc=255,
        )
        self.cwd = root / "work"
        self.cwd.mkdir()
        self.env = {
            "HOME": str(self.home),
            "USER": USER,
            "LOGNAME": USER,
            "USERNAME": USER,
            "HOSTNAME": HOST,
            "MY_API_TOKEN": SECRET,
            "THEANO_FLAGS": "base_compiledir=/srv/%s/theano-cache" % USER,
            "THEANORC": "",
            "PATH": "%s:%s:/usr/bin:/bin" % (tools.bindir, userbin),
            "NO_COLOR": "1",
        }
        self.env.pop("THEANORC")

    def run(self, *args: str):
        return run_cli(*args, "--timeout", "20", env=self.env, cwd=self.cwd)

    def planted(self) -> list[str]:
        return [USER, HOST, str(self.home), SECRET, UUID, SERIAL]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _leaks(text: str, world: World) -> list[str]:
    return [item for item in world.planted() if item in text]


def _zip_texts(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name).decode("utf-8") for name in archive.namelist()}


@posix_only
def test_no_output_format_shows_the_planted_names(world: World) -> None:
    outputs: dict[str, str] = {}
    for fmt in ("json", "markdown", "text"):
        proc = world.run("check", "--format", fmt)
        assert proc.returncode in (0, 1), proc.stderr
        outputs["check " + fmt] = proc.stdout + proc.stderr
    proc = world.run("probe", "--save", "saved.toml")
    assert proc.returncode == 0, proc.stderr
    outputs["probe text"] = proc.stdout
    outputs["probe --save"] = (world.cwd / "saved.toml").read_text(encoding="utf-8")
    outputs["probe toml"] = world.run("probe", "--format", "toml").stdout
    proc = world.run("report", "-o", "r.zip")
    assert proc.returncode == 0, proc.stderr
    outputs["report stdout"] = proc.stdout
    for name, text in _zip_texts(world.cwd / "r.zip").items():
        outputs["zip " + name] = text
    for name, text in outputs.items():
        assert not _leaks(text, world), "%s shows %s" % (name, _leaks(text, world))
    # ... and what was hidden reads as placeholders, so paths stay readable
    assert "<home>/.theanorc" in outputs["check json"]
    assert "/srv/<user>/bin" in outputs["probe --save"]
    assert "<gpu-uuid-1>" in outputs["zip facts.toml"] and "<serial-1>" in outputs["zip facts.toml"]
    assert facts.loads(outputs["probe --save"])["redacted"] is True
    assert any(n.startswith("zip commands/") and "nvidia-smi" in n for n in outputs)


@posix_only
def test_no_redact_shows_them_but_never_the_secret(world: World) -> None:
    shown = {
        "check json": world.run("check", "--format", "json", "--no-redact").stdout,
        "check markdown": world.run("check", "--format", "markdown", "--no-redact").stdout,
        "check text": world.run("check", "--no-redact").stdout,
        "probe toml": world.run("probe", "--format", "toml", "--no-redact").stdout,
    }
    assert world.run("report", "-o", "r.zip", "--no-redact").returncode == 0
    texts = _zip_texts(world.cwd / "r.zip")
    shown["zip facts.toml"] = texts["facts.toml"]
    shown["zip commands"] = "".join(t for n, t in texts.items() if n.startswith("commands/"))
    for name, text in shown.items():
        # the terminal text wraps long lines (at hyphens too), so it may split the home path
        assert (str(world.home) in text or name == "check text") and USER in text, name
        assert SECRET not in text, name
    for name in ("check markdown", "probe toml", "zip facts.toml", "zip commands"):
        assert HOST in shown[name] and UUID in shown[name] and SERIAL in shown[name], name
    record = facts.loads(shown["probe toml"])
    assert record["redacted"] is False and record["system"]["user"] == USER
    assert json.loads(texts["manifest.json"])["redacted"] is False


@posix_only
def test_the_zip_layout_and_what_report_prints(world: World) -> None:
    proc = world.run("report")
    assert proc.returncode == 0, proc.stderr
    target = world.cwd / "legacydoc-report.zip"
    assert sorted(p.name for p in world.cwd.iterdir()) == ["legacydoc-report.zip"]  # no temp file left
    out = proc.stdout
    assert "report written to %s" % target in out
    for name in ("report.md", "report.json", "facts.toml", "commands/", "manifest.json"):
        assert name in out
    assert out.strip().splitlines()[-1].startswith("Verdict: ")
    texts = _zip_texts(target)
    assert LAYOUT <= set(texts)
    manifest = json.loads(texts["manifest.json"])
    assert manifest["legacydoc_version"] and manifest["facts_schema"] == 1 and manifest["redacted"] is True
    assert {c["name"] for c in manifest["contents"]} == set(texts) - {"manifest.json"}
    index = json.loads(texts["commands/index.json"])
    assert index and {n for n in texts if n.startswith("commands/")} == {"commands/index.json"} | {
        "commands/" + e["file"] for e in index
    }
    smi = next(e for e in index if "nvidia-smi" in e["file"])
    assert smi["rc"] == 255 and isinstance(smi["argv"], list) and smi["duration_s"] >= 0
    body = texts["commands/" + smi["file"]]
    assert "exit code: 255" in body and "duration: " in body and "Failed to initialize NVML" in body
    md = texts["report.md"]
    assert md.startswith("## legacydoc check") and "| area | status | found | checks |" in md
    assert "<details><summary>Facts (TOML)</summary>" in md and "### About this report" in md
    assert facts.loads(texts["facts.toml"])["redacted"] is True
    # report.json is `check --format json` of the same facts: replaying the zip gives it back
    replay = run_cli("check", "--facts", str(target), "--format", "json")
    assert replay.returncode in (0, 1), replay.stderr
    mine, again = json.loads(texts["report.json"]), json.loads(replay.stdout)
    assert mine.pop("source") == "this machine" and again.pop("source").startswith("report ")
    assert mine == again


def test_report_from_saved_facts_and_from_a_report(tmp_path: Path) -> None:
    first = tmp_path / "a.zip"
    proc = run_cli("report", "--facts", str(SEED_002), "-o", str(first))
    assert proc.returncode == 0, proc.stderr
    texts = _zip_texts(first)
    assert set(texts) == LAYOUT - {"commands/index.json"}  # no raw outputs in a facts file
    assert "commands/" not in proc.stdout
    expected = json.loads(run_cli("check", "--facts", str(SEED_002), "--format", "json").stdout)
    mine = json.loads(texts["report.json"])
    assert mine["diagnoses"] == expected["diagnoses"] and mine["counts"] == expected["counts"]
    second = tmp_path / "b.zip"
    assert run_cli("report", "--facts", str(first), "-o", str(second)).returncode == 0
    assert json.loads(_zip_texts(second)["report.json"])["diagnoses"] == expected["diagnoses"]


def test_a_report_with_project_diagnoses_what_check_with_project_does(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "train.py").write_text("from theano.tensor.nnet import ctc\n")  # 1.0.5 has it
    (project / "old.py").write_text("import theano\nmode = theano.ProfileMode()\n")  # gone in 0.9
    record = tmp_path / "facts.toml"
    record.write_text('schema = 1\n[system]\nos = "linux"\n[packages]\nfound = ["theano"]\n'
                      '[packages.theano]\nname = "Theano"\nversion = "1.0.5"\n')
    target = tmp_path / "r.zip"
    proc = run_cli("report", "--facts", str(record), "--project", str(project), "-o", str(target))
    assert proc.returncode == 0, proc.stderr
    mine = json.loads(_zip_texts(target)["report.json"])
    expected = json.loads(run_cli("check", "--facts", str(record), "--project", str(project),
                                  "--format", "json").stdout)
    assert "LD165" in {d["id"] for d in mine["diagnoses"]}
    # 0.8.2 has ProfileMode but not ctc: the plan keeps 1.0.5 and says so
    assert mine["plan"]["theano"] == "Theano==1.0.5" and "lacks other API" in mine["plan"]["reasons"]["Theano"]
    assert mine["diagnoses"] == expected["diagnoses"] and mine["plan"] == expected["plan"]
    bad = run_cli("report", "--facts", str(record), "--project", str(tmp_path / "none"), "-o", str(target))
    assert bad.returncode == 2 and "--project is not a directory" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("where", ["missing-dir/r.zip", "."])
def test_unwritable_target_is_one_line_and_writes_nothing(tmp_path: Path, where: str) -> None:
    before = sorted(tmp_path.rglob("*"))
    proc = run_cli("report", "--facts", str(SEED_002), "-o", str(tmp_path / where), cwd=tmp_path)
    assert proc.returncode == 2
    assert "cannot write" in proc.stderr or "is a folder" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert sorted(tmp_path.rglob("*")) == before


def test_report_replaces_an_existing_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "r.zip"
    target.write_bytes(b"old contents")
    assert run_cli("report", "--facts", str(SEED_002), "-o", str(target)).returncode == 0
    assert zipfile.is_zipfile(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.zip"]


def test_markdown_escapes_placeholders_and_backslashes_in_prose() -> None:
    from legacydoc.render.check_markdown import md_text

    # GitHub would drop <home> as an unknown HTML tag and eat the backslash before "."
    assert md_text("<home>\\.theanorc") == "\\<home>\\\\.theanorc"
    assert md_text("`<home>\\.theanorc` stays in code") == "`<home>\\.theanorc` stays in code"
    assert md_text("C:\\Users\\x __init__ a_b") == "C:\\Users\\x \\_\\_init\\_\\_ a_b"
