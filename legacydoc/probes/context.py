"""What every probe is given: the options, the environment and a deadline.

Probes read the environment, PATH and the platform only through the context, never
from ``os.environ`` or ``sys.platform`` directly, so tests can hand them a chosen world
(a fake PATH with fake tools, a Windows-style environment) and the real subprocess path
still runs.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from legacydoc import structs
from legacydoc.probes.run import (
    DEFAULT_TIMEOUT_S,
    CommandLog,
    CommandResult,
    Running,
    candidate_encodings,
    run_command,
)
from legacydoc.structs import field, struct


def platform_family(platform: str) -> str:
    """'windows', 'linux' or 'darwin' (anything else is reported as itself)."""
    if platform.startswith("win") or platform == "cygwin":
        return "windows"
    if platform.startswith("linux"):
        return "linux"
    return platform


@struct
class ProbeContext:
    """Options and world for one probe run. Copy it with :meth:`for_probe` per probe."""

    python: Optional[str] = None  # --python
    project: Optional[Path] = None  # --project
    timeout: float = DEFAULT_TIMEOUT_S  # --timeout, per command and per probe
    import_check: bool = False  # --import-check
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    platform: str = sys.platform
    cwd: Path = field(default_factory=Path.cwd)
    encodings: Sequence[str] = ()  # extra decodings to try after UTF-8 and the locale's
    log: CommandLog = field(default_factory=CommandLog)
    deadline: Optional[float] = None  # time.monotonic() after which no command starts
    running: Running = field(default_factory=Running)  # shared by the per-probe copies
    mounts_file: str = "/proc/self/mounts"  # Linux's mount table; a test hands a recorded one

    # --- derived, read-only views -------------------------------------------------
    @property
    def family(self) -> str:
        return platform_family(self.platform)

    @property
    def is_windows(self) -> bool:
        return self.family == "windows"

    @property
    def pathmod(self) -> Any:
        """ntpath or posixpath: the path rules of the *probed* OS."""
        return ntpath if self.is_windows else posixpath

    @property
    def pathsep(self) -> str:
        return ";" if self.is_windows else ":"

    def env(self, name: str, default: str = "") -> str:
        """An environment variable; case-insensitive on Windows, as Windows is."""
        if name in self.environ:
            return self.environ[name]
        if self.is_windows:
            upper = name.upper()
            for key, value in self.environ.items():
                if key.upper() == upper:
                    return value
        return default

    @property
    def path_string(self) -> str:
        return self.env("PATH")

    def home(self) -> str:
        """The home directory as Python's expanduser sees it for this environment."""
        if self.is_windows:
            # Python >= 3.8 ignores HOME on Windows and uses USERPROFILE.
            home = self.env("USERPROFILE")
            if not home:
                drive, rest = self.env("HOMEDRIVE"), self.env("HOMEPATH")
                home = drive + rest
            return home
        home = self.env("HOME")
        if not home:
            try:
                home = str(Path.home())
            except Exception:
                home = ""
        return home

    def expanduser(self, path: str) -> str:
        if path == "~" or path.startswith("~/") or path.startswith("~\\"):
            home = self.home()
            if home:
                return home + path[1:]
        return path

    # --- tools ----------------------------------------------------------------------
    def which(self, name: str) -> Optional[str]:
        """Find ``name`` on the probe's PATH (with PATHEXT on Windows)."""
        try:
            return shutil.which(name, path=self.path_string)
        except Exception:
            return None

    def remaining(self) -> float:
        if self.deadline is None:
            return self.timeout
        return max(0.0, self.deadline - time.monotonic())

    def run(self, argv: Sequence[str], timeout: Optional[float] = None, **kwargs: Any) -> CommandResult:
        """Run a command under this probe's timeout and deadline; logged for reports."""
        budget = min(self.timeout if timeout is None else timeout, self.remaining())
        if budget <= 0:
            result = CommandResult(argv=[str(a) for a in argv], error="skipped: probe deadline reached")
        elif self.running.cancelled:
            result = CommandResult(argv=[str(a) for a in argv], error="skipped: probing was cancelled")
        else:
            kwargs.setdefault("running", self.running)
            kwargs.setdefault("env", dict(self.environ))
            if self.encodings and "encodings" not in kwargs:
                kwargs["encodings"] = candidate_encodings(self.encodings)
            result = run_command(argv, timeout=budget, **kwargs)
        self.log.add(result)
        return result

    def for_probe(self) -> "ProbeContext":
        """A copy whose deadline is one timeout from now (the per-probe budget)."""
        return structs.replace(self, deadline=time.monotonic() + self.timeout)
