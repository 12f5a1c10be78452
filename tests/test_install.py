"""The shipped artifact: a non-editable `pip install .` into a fresh venv gives a working
tool with the rule pack inside the wheel. Slow (installs numpy and typer from PyPI), so
it runs once per session and skips when the package index cannot be reached."""

from __future__ import annotations

import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("install")
    # Copy the tracked tree only, as a fresh clone would have it (no build/ or caches).
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    src = root / "src"
    for name in filter(None, files.decode().split("\0")):
        target = src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (REPO / name).is_file():
            shutil.copy2(REPO / name, target)
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    proc = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "--quiet", str(src)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if proc.returncode != 0:
        pytest.skip("pip install failed (no package index?): %s" % proc.stderr.strip().splitlines()[-1:])
    return bindir


def _run(bindir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(bindir / "legacydoc"), *args], cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300)


def test_probe_save_round_trips_from_the_installed_tool(installed: Path, tmp_path: Path) -> None:
    proc = _run(installed, "probe", "--save", "f.toml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    check = subprocess.run(
        [str(installed / "python"), "-c",
         "from legacydoc import facts; r = facts.load('f.toml'); facts.save(r, 'g.toml'); print(r['schema'])"],
        cwd=str(tmp_path), capture_output=True, text=True,
    )  # fmt: skip
    assert check.stdout.strip() == "1", check.stderr
    assert (tmp_path / "f.toml").read_bytes() == (tmp_path / "g.toml").read_bytes()


def test_rules_and_knowledge_ship_inside_the_wheel(installed: Path, tmp_path: Path) -> None:
    proc = _run(installed, "rules", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "LD105" in proc.stdout
    where = subprocess.run(
        [str(installed / "python"), "-c",
         "from legacydoc.engine import builtin_rules_dir; from legacydoc import knowledge; "
         "print(builtin_rules_dir()); print(knowledge.default().min_driver('10.2', 'linux'))"],
        cwd=str(tmp_path), capture_output=True, text=True,
    )  # fmt: skip
    rules_dir, min_driver = where.stdout.split()
    assert "site-packages" in rules_dir and min_driver == "440.33"


def test_every_data_file_under_rules_ships_and_chinese_works_installed(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(installed / "python"), "-c",
                            "from legacydoc.engine import builtin_rules_dir; print(builtin_rules_dir())"],
                           cwd=str(tmp_path), capture_output=True, text=True)
    shipped = Path(where.stdout.strip())
    wanted = {p.relative_to(REPO / "rules").as_posix() for p in (REPO / "rules").rglob("*.toml")}
    found = {p.relative_to(shipped).as_posix() for p in shipped.rglob("*.toml")}
    assert wanted - found == set()
    proc = _run(installed, "--lang", "zh", "check", "--facts",
                str(REPO / "fixtures" / "seed-002-win10-gtx1660s-cuda102" / "facts.toml"), cwd=tmp_path)
    assert proc.returncode == 1 and "结论：" in proc.stdout, proc.stderr


def test_check_runs_and_the_cli_does_not_import_numpy(installed: Path, tmp_path: Path) -> None:
    proc = _run(installed, "check", "--format", "json", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    code = "import sys, legacydoc.cli; print('numpy' in sys.modules)"
    out = subprocess.run([str(installed / "python"), "-c", code], cwd=str(tmp_path), capture_output=True, text=True)
    assert out.stdout.strip() == "False"
