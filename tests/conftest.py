"""Shared test helpers: fake executables on a PATH of their own, recorded outputs, a
ProbeContext pointed at a chosen world.

Fake tools are real executables (POSIX shell scripts) that print recorded bytes, exit
with recorded codes or hang, so probes exercise the real subprocess path.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
import tempfile
from pathlib import Path
from typing import Optional, Union

import pytest

from legacydoc.probes.context import ProbeContext

# The expected outputs are English: a Chinese locale on the test machine must not change
# them (tests of the Chinese output choose it themselves, with --lang or LEGACYDOC_LANG).
os.environ["LEGACYDOC_LANG"] = "en"
# The parsed-data cache of the runs the tests start stays out of the user's ~/.cache.
os.environ.setdefault("LEGACYDOC_CACHE_DIR", tempfile.mkdtemp(prefix="legacydoc-test-cache-"))

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parent.parent

posix_only = pytest.mark.skipif(os.name == "nt", reason="fake tools are POSIX shell scripts")


def data_bytes(relpath: str) -> bytes:
    """A recorded real output under tests/data/."""
    return (DATA / relpath).read_bytes()


class FakeTools:
    """A directory of fake executables, to be put (alone or first) on a probe's PATH."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        bindir.mkdir(parents=True, exist_ok=True)
        self._n = 0

    def add(
        self,
        name: str,
        stdout: Union[bytes, str] = b"",
        rc: int = 0,
        stderr: Union[bytes, str] = b"",
        sleep: Optional[float] = None,
        by_args: Optional[dict[str, tuple[Union[bytes, str], int]]] = None,
    ) -> Path:
        """Create ``bindir/name``. ``by_args`` maps a substring of the joined arguments
        to (stdout, rc), checked in order, falling back to ``stdout``/``rc``."""
        script = ["#!/bin/sh"]
        if sleep is not None:
            # exec so the sleeping process is the tool itself, as a hung driver call is
            script.append("exec sleep %s" % sleep)
        cases = list((by_args or {}).items())
        if cases:
            script.append('case "$*" in')
            for pattern, (out, code) in cases:
                path = self._payload(out)
                script.append("  *%s*) cat %s; exit %d ;;" % (_glob_escape(pattern), shlex.quote(str(path)), code))
            script.append("esac")
        if stderr:
            script.append("cat %s >&2" % shlex.quote(str(self._payload(stderr))))
        if stdout:
            script.append("cat %s" % shlex.quote(str(self._payload(stdout))))
        script.append("exit %d" % rc)
        target = self.bindir / name
        target.write_text("\n".join(script) + "\n")
        target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return target

    def _payload(self, content: Union[bytes, str]) -> Path:
        self._n += 1
        path = self.bindir.parent / ("payload-%d.bin" % self._n)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\\"'$` ;|&<>()" else c for c in text)


@pytest.fixture(autouse=True)
def strict_rule_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule whose text names a fact the record lacks raises in tests (users read
    "unknown"): its condition should have required that fact."""
    import legacydoc.engine.evaluation as evaluation

    monkeypatch.setattr(evaluation, "STRICT_TEMPLATES", True)


@pytest.fixture
def fake_tools(tmp_path: Path) -> FakeTools:
    return FakeTools(tmp_path / "fakebin")


def make_ctx(tmp_path: Path, path_dirs: Optional[list] = None, env: Optional[dict] = None, **kwargs) -> ProbeContext:
    """A POSIX ProbeContext whose PATH holds only ``path_dirs`` plus /bin:/usr/bin (so
    fake shell scripts can run ``cat`` and ``sleep``), HOME in tmp_path."""
    dirs = [str(p) for p in (path_dirs or [])] + ["/usr/bin", "/bin"]
    environ = {"PATH": os.pathsep.join(dirs), "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    environ.update(env or {})
    (tmp_path / "home").mkdir(exist_ok=True)
    kwargs.setdefault("timeout", 5.0)
    kwargs.setdefault("cwd", tmp_path)
    return ProbeContext(environ=environ, platform=sys.platform, **kwargs)


@pytest.fixture
def ctx_factory(tmp_path: Path):
    def factory(path_dirs: Optional[list] = None, env: Optional[dict] = None, **kwargs) -> ProbeContext:
        return make_ctx(tmp_path, path_dirs, env, **kwargs)

    return factory


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The field corpus's recall table, when tests/test_tickets.py ran."""
    import corpus

    for text in corpus.LAST_REPORT:
        terminalreporter.write_sep("-", "field corpus (fixtures/tickets)")
        terminalreporter.write_line(text)
