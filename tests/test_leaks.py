"""Issue #10, defect 10: what theanorc prints, secrets inside URLs, the user name in any
case, and error messages on stderr are redacted like every other output."""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from conftest import REPO
from legacydoc import facts
from legacydoc.redact import Redactor
from test_cli import run_cli

SEED_002 = REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"


def _record_with_identity(tmp_path: Path) -> Path:
    """The seed-002 machine as saved with --no-redact: the real user name in every path."""
    text = SEED_002.read_text(encoding="utf-8").replace("<user>", "Alexandrina")
    record = facts.loads(text)
    record["redacted"] = False
    record["system"].update(user="Alexandrina", hostname="WS-LAB-0042", home="C:\\Users\\Alexandrina")
    path = tmp_path / "identity.toml"
    facts.save(record, path)
    return path


def test_theanorc_output_is_redacted_unless_asked(tmp_path: Path) -> None:
    saved = _record_with_identity(tmp_path)
    shown = run_cli("theanorc", "--facts", str(saved))
    assert shown.returncode == 0, shown.stderr
    assert "Alexandrina" not in shown.stdout and "<home>" in shown.stdout
    plain = run_cli("theanorc", "--facts", str(saved), "--no-redact")
    assert "C:\\Users\\Alexandrina" in plain.stdout


def test_theanorc_write_shows_a_redacted_diff_and_writes_the_real_file(tmp_path: Path) -> None:
    saved = _record_with_identity(tmp_path)
    target = tmp_path / "out.theanorc"
    dry = run_cli("theanorc", "--facts", str(saved), "--write", str(target), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Alexandrina" not in dry.stdout + dry.stderr
    done = run_cli("theanorc", "--facts", str(saved), "--write", str(target), "--yes")
    assert done.returncode == 0, done.stderr
    assert "Alexandrina" not in done.stdout
    assert "Alexandrina" in target.read_text()  # the file itself is the user's real config


def test_a_saved_record_does_not_choose_where_theanorc_writes(tmp_path: Path) -> None:
    """A record from elsewhere, or a crafted one, names paths on another machine."""
    proc = run_cli("theanorc", "--facts", str(_record_with_identity(tmp_path)), "--write")
    assert proc.returncode == 2 and "give the PATH" in proc.stderr


def test_secrets_in_urls_are_hidden_whatever_their_shape() -> None:
    red = Redactor(identity=False)
    assert red.text("https://u:p@ss-X@host/simple") == "https://<secret>@host/simple"
    assert red.text("pip install git+https://ghp_TOKEN123@github.com/x.git") == (
        "pip install git+https://<secret>@github.com/x.git")
    assert red.text("see https://host/a@b and a@b.com") == "see https://host/a@b and a@b.com"


def test_the_user_name_in_any_case_is_hidden() -> None:
    red = Redactor(users=["alexandrina"], homes=["/home/alexandrina"])
    assert red.text("/srv/Alexandrina/x ALEXANDRINA alexandrina") == "/srv/<user>/x <user> <user>"


def test_errors_on_stderr_do_not_show_the_home_folder(tmp_path: Path) -> None:
    home = os.path.expanduser("~")
    missing = Path(home) / "legacydoc-no-such-file.toml"
    proc = run_cli("check", "--facts", str(missing))
    assert proc.returncode == 2
    assert home not in proc.stderr and "<home>" in proc.stderr
    user = getpass.getuser()
    if user not in ("root", "runner") and len(user) >= 3:
        assert user not in proc.stderr
    shown = run_cli("check", "--facts", str(missing), "--no-redact")
    assert home in shown.stderr
