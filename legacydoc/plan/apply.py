"""What ``legacydoc fix`` runs: the plan's safe steps on this machine.

Safe means inside a Python environment: create one (venv, virtualenv for Python 2, or
conda), pip/conda install the pins, write ``.theanorc`` through the safe writer, then
check the result. Drivers, CUDA toolkits and system compilers are never touched: they are
printed as manual steps. Every command is shown before it runs, asked about unless
``--yes``, and run without a shell, with a time limit.
"""

from __future__ import annotations

import collections
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import BinaryIO, Callable, Optional

from legacydoc.errors import UsageError
from legacydoc.i18n import tr
from legacydoc.plan.planner import Plan
from legacydoc.structs import struct

INSTALL_TIMEOUT_S = 1800.0
CREATE_TIMEOUT_S = 600.0
PYENV_ROOT = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")

# How pip ends when a download broke off half-way: a connection reset or a read timeout
# while the file was coming. pip before 25.2 retries a connection it could not open
# (--retries) but does not resume a body cut off, and the environments fix creates carry
# such a pip. Another try is worth it, unlike a pin without a wheel, which would fail again.
BROKEN_DOWNLOAD = re.compile(
    r"Connection broken|Connection reset by peer|ConnectionResetError|IncompleteRead|ChunkedEncodingError"
    r"|ReadTimeoutError|Read timed out|not enough bytes were received"
)
# pip's own retries of a connection print the same words on lines it then recovers from
PIP_WARNING = re.compile(r"^\s*WARNING:|Retrying \(Retry\(")
TRIES_ON_BROKEN_DOWNLOAD = 3
TAIL_LINES = 8  # pip's last lines on stderr name the error that ended it


@struct
class Action:
    title: str
    argv: list[str]
    timeout: float
    pip: bool = False  # a pip step: tried again when its download broke off

    def shown(self) -> str:
        return " ".join(shlex.quote(a) for a in self.argv) if os.name != "nt" else subprocess.list2cmdline(self.argv)


def env_python(env_dir: Path, conda: bool, windows: bool = os.name == "nt") -> Path:
    """The interpreter of an environment that may not exist yet: conda puts python.exe at
    the root on Windows, a venv under Scripts; both use bin/python elsewhere."""
    if not windows:
        return env_dir / "bin" / "python"
    return env_dir / ("python.exe" if conda else "Scripts/python.exe")


def find_interpreter(version: str, which: Callable[[str], Optional[str]] = shutil.which) -> Optional[list[str]]:
    """A command that starts CPython ``version`` ("3.8"): pythonX.Y on PATH, a pyenv
    install, or the Windows py launcher; None when this machine has none."""
    found = which("python%s" % version)
    if found and os.sep + "shims" + os.sep not in found:  # a pyenv shim runs only when that version is selected
        return [found]
    pattern = str(PYENV_ROOT / "versions" / ("%s.*" % version) / "bin" / "python")
    candidates = sorted(glob.glob(pattern), reverse=True)
    if candidates:
        return [candidates[0]]
    launcher = which("py") if os.name == "nt" else None
    if launcher:
        return [launcher, "-%s" % version]
    return None


def _create_env(plan: Plan, env_dir: Path) -> list[Action]:
    if plan.env_kind == "conda":
        conda = shutil.which("conda")
        if conda is None:
            raise UsageError(tr("the plan needs conda (for pygpu), and conda is not on PATH; install Miniconda, "
                                "or use legacydoc plan -o DIR and its environment.yml"))
        extra = ["m2w64-toolchain"] if plan.os == "windows" else []
        conda_pins = ["%s%s" % kv for kv in plan.conda_packages.items()]
        return [Action("create a conda environment with Python %s" % plan.python,
                       [conda, "create", "-y", "-p", str(env_dir), "-c", "conda-forge", "python=%s" % plan.python,
                        "pip", *conda_pins, *extra], CREATE_TIMEOUT_S)]
    interpreter = find_interpreter(plan.python)
    if interpreter is None:
        raise UsageError(tr("no Python %s on this machine (not on PATH, not under %s): install it (pyenv install %s, "
                            "or python.org), then run legacydoc fix again") % (plan.python, PYENV_ROOT, plan.python))
    if plan.python.startswith("2."):
        import importlib.util

        if importlib.util.find_spec("virtualenv") is None:
            raise UsageError(tr("a Python 2.7 environment needs virtualenv before 20.22 next to legacydoc: "
                                "pip install \"virtualenv<20.22\", then run legacydoc fix again"))
        # Python 2 has no venv module; virtualenv before 20.22 still creates Python 2 environments
        return [Action("create a Python 2.7 environment (virtualenv)",
                       [sys.executable, "-m", "virtualenv", "-q", "-p", interpreter[-1], str(env_dir)],
                       CREATE_TIMEOUT_S)]
    return [Action("create a virtual environment with Python %s" % plan.python,
                   [*interpreter, "-m", "venv", str(env_dir)], CREATE_TIMEOUT_S)]


def actions(plan: Plan, env_dir: Path, current_python: Optional[str],
            current_prefix: Optional[str] = None) -> tuple[list[Action], Path]:
    """The commands fix runs, in order, and the python of the environment they end in."""
    out: list[Action] = []
    if plan.keep_env:
        if not current_python:
            raise UsageError(
                tr("the plan keeps the environment, but which python it is was not recorded; give --python"))
        python = Path(current_python)
        if plan.conda_packages:  # pygpu into the conda environment in use (a new one gets it at creation)
            conda = shutil.which("conda")
            if conda is None or not current_prefix:
                raise UsageError(tr("the plan installs pygpu with conda, and %s; run the plan's conda line yourself")
                                 % ("conda is not on PATH" if conda is None else "the environment's prefix was "
                                    "not recorded"))
            out.append(Action("install %s from conda-forge" % ", ".join(plan.conda_packages),
                              [conda, "install", "-y", "-p", current_prefix, "-c", "conda-forge",
                               *("%s%s" % kv for kv in plan.conda_packages.items())], INSTALL_TIMEOUT_S))
    else:
        if env_dir.exists() and any(env_dir.iterdir()):
            raise UsageError(tr("%s: exists and is not empty; give another --env folder (nothing is overwritten)")
                             % env_dir)
        out += _create_env(plan, env_dir)
        python = env_python(env_dir, plan.env_kind == "conda")
    for step in plan.steps:
        if step.pip:
            yes = ["-y"] if step.pip == "uninstall" else []
            out.append(Action(step.title.lower(), [str(python), "-m", "pip", step.pip, *yes, *step.packages],
                              INSTALL_TIMEOUT_S, pip=True))
    return out, python


def broken_download(lines: list[str]) -> Optional[str]:
    """The line of pip's last lines that says its download broke off, when that is the
    error pip ended on; None otherwise (pip's warnings about retries it recovered from,
    which use the same words, do not count)."""
    for line in reversed(lines):
        if not PIP_WARNING.search(line) and BROKEN_DOWNLOAD.search(line):
            return line.strip()
    return None


def _writer_to(stream: Optional[BinaryIO]) -> Callable[[bytes], None]:
    """Pass a command's bytes on as they are: to ``stream``, else to our stderr's byte
    layer, decoded where stderr has none (an embedding that replaced it)."""
    target = stream if stream is not None else getattr(sys.stderr, "buffer", None)

    def write(raw: bytes) -> None:
        if target is not None:
            target.write(raw)
            target.flush()
        else:
            sys.stderr.write(raw.decode("utf-8", "replace"))
            sys.stderr.flush()

    return write


def _run_watching_stderr(argv: list[str], timeout: float, show: Callable[[bytes], None]) -> tuple[int, list[str]]:
    """Run a command; (exit code, the last lines of its stderr). Its stdout goes straight to
    ours, so pip keeps its progress bars; its stderr (pip's warnings, errors and traceback)
    is passed on as it comes and read. Raises subprocess.TimeoutExpired (the command
    killed) and OSError as subprocess.run does."""
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    # UTF-8 from a Python child whatever the code page, as our own stderr expects
    env = {**os.environ, "PYTHONIOENCODING": os.environ.get("PYTHONIOENCODING") or "utf-8"}
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    stderr = proc.stderr

    def copy() -> None:
        showing = True
        for raw in iter(stderr.readline, b""):
            if raw.strip():
                tail.append(raw.decode("utf-8", "replace").rstrip())
            if showing:
                try:
                    show(raw)
                except Exception:  # stderr closed or gone (| head, pythonw): keep draining, quietly
                    showing = False

    reader = threading.Thread(target=copy, daemon=True)
    reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except BaseException:  # the time limit, or Ctrl-C: the command does not outlive fix
        proc.kill()
        proc.wait()
        reader.join(timeout=5.0)  # a grandchild may hold the pipe open; it is not waited for
        stderr.close()
        raise
    reader.join()  # every line read before judging how the command ended
    stderr.close()
    return code, list(tail)


def run_action(action: Action, write: Callable[[str], None], echo: Optional[BinaryIO] = None) -> bool:
    """Run one command; False (and why) when it fails. A pip step whose download broke off
    is run again, up to TRIES_ON_BROKEN_DOWNLOAD times in all. ``echo``: where the
    command's stderr is passed on (ours by default)."""
    shown = _writer_to(echo)
    for attempt in range(1, TRIES_ON_BROKEN_DOWNLOAD + 1):
        try:
            code, tail = _run_watching_stderr(action.argv, action.timeout, shown)
        except subprocess.TimeoutExpired:
            write("legacydoc: stopped: %s took longer than %d s\n" % (action.title, action.timeout))
            return False
        except OSError as exc:
            write("legacydoc: stopped: %s: %s\n" % (action.title, exc.strerror or exc))
            return False
        if code == 0:
            return True
        broken = broken_download(tail) if action.pip else None
        if broken is None:
            write("legacydoc: stopped: %s failed (exit code %d)\n" % (action.title, code))
            return False
        if attempt < TRIES_ON_BROKEN_DOWNLOAD:
            write(tr("legacydoc: the download broke off (%s); trying again (%d of %d)") % (
                broken[:160], attempt + 1, TRIES_ON_BROKEN_DOWNLOAD) + "\n")
    write(tr("legacydoc: stopped: %s failed: the download broke off %d times; run legacydoc fix again later, or "
             "point pip at a package index mirror near you (PIP_INDEX_URL)") % (action.title, TRIES_ON_BROKEN_DOWNLOAD)
          + "\n")
    return False


def manual_steps(plan: Plan) -> list[str]:
    return ["%s: %s" % (s.title, s.why) for s in plan.steps if s.manual]


def write_keras_json(plan: Plan, home: Path) -> Optional[Path]:
    """~/.keras/keras.json with the plan's backend and image_data_format (the old file is
    backed up). None when the plan has no Keras."""
    import json

    from legacydoc.safe_io import replace_file

    if not plan.keras_json:
        return None
    target = home / ".keras" / "keras.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, (json.dumps(plan.keras_json, indent=4) + "\n").encode("utf-8"), keep_backup=True)
    return target
