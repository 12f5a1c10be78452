"""Real legacy interpreters and cached virtual environments for tests.

Interpreters come from pyenv (``/root/.pyenv/versions/<version>*/bin/python``, or
``$LEGACYDOC_PYENV_VERSIONS``); a test that needs one that is absent is skipped, never
failed. Venvs with pinned packages from PyPI are built once and cached under
``$LEGACYDOC_TEST_VENVS`` or ``<repo>/.legacy-venvs``:

- idempotent: a marker file holding the spec is written last, so a venv without one (a
  build that was interrupted) is rebuilt, and a changed spec gets a new directory;
- concurrency-safe: one lock directory per venv (``mkdir`` is atomic), so parallel test
  runs wait for each other instead of building over each other;
- bounded in time: every step has a timeout, and a build that fails (no network, no
  wheel for that Python) skips the tests that wanted it.

    python = legacy_venv("3.7", ["numpy==1.19.5"])   # Path to the venv's python
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import pytest

from legacydoc.plan.apply import TAIL_LINES, broken_download

REPO = Path(__file__).resolve().parent.parent
PYENV_VERSIONS = Path(os.environ.get("LEGACYDOC_PYENV_VERSIONS", "/root/.pyenv/versions"))
MARKER = ".legacydoc-venv.json"
DEFAULT_BUILD_TIMEOUT_S = 900.0
# A lock older than this is left over from a killed run, not a build in progress.
STALE_LOCK_S = DEFAULT_BUILD_TIMEOUT_S + 300.0
# Variables that would make the venv build see another environment than its own.
_SCRUB = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONNOUSERSITE", "PIP_REQUIRE_VIRTUALENV")


def _version_key(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else -1 for p in re.split(r"[.\-]", name))


def find_python(version: str) -> Optional[Path]:
    """The newest pyenv interpreter whose version is ``version`` or starts with
    ``version.`` ("3.7" -> 3.7.16, never 3.70), or None."""
    try:
        names = [p.name for p in PYENV_VERSIONS.iterdir()]
    except OSError:
        return None
    matches = [n for n in names if n == version or n.startswith(version + ".")]
    for name in sorted(matches, key=_version_key, reverse=True):
        python = PYENV_VERSIONS / name / "bin" / "python"
        if python.is_file() and os.access(python, os.X_OK):
            return python
    return None


def require_python(version: str) -> Path:
    """:func:`find_python`, or skip the calling test."""
    python = find_python(version)
    if python is None:
        pytest.skip("no Python %s under %s" % (version, PYENV_VERSIONS))
    return python


def venvs_root() -> Path:
    return Path(os.environ.get("LEGACYDOC_TEST_VENVS") or (REPO / ".legacy-venvs"))


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env["PIP_NO_INPUT"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(argv: Sequence[str], timeout: float) -> tuple[bool, str]:
    """Run a build step; (ok, tail of its output). Never raises."""
    try:
        proc = subprocess.run(
            [str(a) for a in argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=_clean_env(),
            timeout=max(timeout, 1.0),
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return False, "timed out after %.0f s: %s" % (timeout, " ".join(map(str, argv)))
    except OSError as exc:
        return False, "%s: %s" % (type(exc).__name__, exc)
    tail = "\n".join(proc.stdout.decode("utf-8", "replace").splitlines()[-15:])
    return proc.returncode == 0, tail


class _Lock:
    """A lock directory: ``mkdir`` either creates it or fails, atomically, everywhere."""

    def __init__(self, path: Path, deadline: float) -> None:
        self.path = path
        self.deadline = deadline

    def __enter__(self) -> "_Lock":
        while True:
            try:
                self.path.mkdir()
                (self.path / "owner").write_text("%d %f\n" % (os.getpid(), time.time()))
                return self
            except FileExistsError:
                pass
            try:
                age = time.time() - self.path.stat().st_mtime
            except OSError:
                continue  # released in between: try again at once
            if age > STALE_LOCK_S or (age > 5.0 and not self._owner_alive()):
                # left behind by a killed run (SIGKILL skips __exit__)
                shutil.rmtree(self.path, ignore_errors=True)
                continue
            if time.monotonic() > self.deadline:
                pytest.skip("timed out waiting for the venv lock %s" % self.path)
            time.sleep(0.5)

    def _owner_alive(self) -> bool:
        if os.name == "nt":
            return True  # os.kill(pid, 0) would terminate the process on Windows
        try:
            pid = int((self.path / "owner").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return True  # being written just now: give it the benefit of the doubt
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True  # exists but not ours (PermissionError), or not checkable here
        return True

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def venv_python(env_dir: Path) -> Path:
    return env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _ready(env_dir: Path, spec: dict) -> bool:
    try:
        recorded = json.loads((env_dir / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return recorded == spec and venv_python(env_dir).exists()


def legacy_venv(
    version: str,
    packages: Sequence[str] = (),
    timeout: float = DEFAULT_BUILD_TIMEOUT_S,
    pip_args: Sequence[str] = (),
) -> Path:
    """The python of a cached venv made from pyenv's Python ``version`` with ``packages``
    (pip requirement strings, pinned: ``numpy==1.19.5``) installed. Builds it when absent
    or incomplete; skips the calling test when the interpreter is missing or the build
    fails or takes longer than ``timeout`` seconds."""
    base = require_python(version)
    spec = {
        "python": str(base),
        "packages": list(packages),
        "pip_args": list(pip_args),
    }
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:10]
    root = venvs_root()
    env_dir = root / ("py%s-%s" % (base.parent.parent.name, digest))
    if _ready(env_dir, spec):
        return venv_python(env_dir)

    deadline = time.monotonic() + timeout
    root.mkdir(parents=True, exist_ok=True)
    with _Lock(root / (env_dir.name + ".lock"), deadline):
        if _ready(env_dir, spec):  # another run built it while we waited
            return venv_python(env_dir)
        shutil.rmtree(env_dir, ignore_errors=True)
        if version.startswith("2"):
            # Python 2 has no venv module; virtualenv, if that interpreter has it.
            create = [base, "-m", "virtualenv", "-q", env_dir]
        else:
            create = [base, "-m", "venv", env_dir]
        ok, out = _run(create, min(180.0, deadline - time.monotonic()))
        if not ok:
            shutil.rmtree(env_dir, ignore_errors=True)
            pytest.skip("could not create a Python %s venv: %s" % (version, out))
        python = venv_python(env_dir)
        if packages:
            argv = [python, "-m", "pip", "install", "--no-input", "--disable-pip-version-check"]
            argv += list(pip_args) + list(packages)
            ok, out = _run(argv, deadline - time.monotonic())
            for _again in range(2):  # a download PyPI cut short is tried again, as legacydoc fix does
                if ok or not broken_download(out.splitlines()[-TAIL_LINES:]) or deadline - time.monotonic() < 60:
                    break
                ok, out = _run(argv, deadline - time.monotonic())
            if not ok:
                # most likely no network or no wheel for this Python: not a test failure
                pytest.skip("pip could not install %s into Python %s: %s" % (" ".join(packages), version, out))
        marker = env_dir / MARKER
        tmp = env_dir / (MARKER + ".tmp")
        tmp.write_text(json.dumps(spec, sort_keys=True))
        os.replace(tmp, marker)  # written last and atomically: a marker means complete
        return python


def probed_record(ctx_factory: Any, spec: tuple[str, Sequence[str]], collected_at: str,
                  **tables: Any) -> dict[str, Any]:
    """A record of what check's target probe finds in the venv of ``spec``, with ``tables``
    added: what a GPU machine (nvidia-smi, cuDNN's header) and the user's flags would add."""
    from legacydoc.probes import target

    ctx = ctx_factory(python=str(legacy_venv(*spec)), timeout=120.0)
    record: dict[str, Any] = {"schema": 1, "collected_at": collected_at, "redacted": False}
    record.update(target.collect(ctx.for_probe()))
    record.update(tables)
    return record
