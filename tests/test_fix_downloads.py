"""``legacydoc fix`` tries a pip download that broke off again, and nothing else.

The environments fix creates carry an old pip (23.0.1 with Python 3.8, older with 3.6 and
2.7), which gives up on a download cut short half-way: CI lost a whole run to one
``ConnectionResetError`` from PyPI that way. Here a real pip from a real Python 3.8 venv
installs from a package index served on 127.0.0.1 that cuts the wheel's download short a
chosen number of times, with a TCP reset, as the failed run saw.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import zipfile
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from legacy_envs import find_python
from legacydoc.plan.apply import TRIES_ON_BROKEN_DOWNLOAD, Action, run_action

PACKAGE = "legacydoc-download-probe"
PIP_READ_TIMEOUT_S = 1
SLOW_PAGE_S = 3
WHEEL = "legacydoc_download_probe-1.0-py3-none-any.whl"


def _wheel() -> bytes:
    """A small pure-Python wheel; the padding is stored, not deflated, so that half of the
    download is really half of the file."""
    info = "legacydoc_download_probe-1.0.dist-info/"
    files = {
        "legacydoc_download_probe/__init__.py": b"VERSION = '1.0'\n",
        "legacydoc_download_probe/padding.bin": bytes(range(256)) * 1024,
        info + "METADATA": b"Metadata-Version: 2.1\nName: legacydoc-download-probe\nVersion: 1.0\n",
        info + "WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[info + "RECORD"] = "".join("%s,,\n" % name for name in [*files, info + "RECORD"]).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
    return buffer.getvalue()


class FlakyIndex(ThreadingHTTPServer):
    """A PEP 503 index with one package whose first ``breaks`` downloads are reset half-way."""

    daemon_threads = True

    def __init__(self, breaks: int, slow_pages: int = 0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.breaks = breaks
        self.slow_pages = slow_pages  # index pages answered after pip's read timeout (PIP_DEFAULT_TIMEOUT)
        self.wheel = _wheel()
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d/simple/" % self.server_address[1]

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the resets are on purpose


class _Handler(BaseHTTPRequestHandler):
    server: FlakyIndex

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.requests[self.path] += 1
            count = self.server.requests[self.path]
        if self.path == "/simple/%s/" % PACKAGE:
            digest = hashlib.sha256(self.server.wheel).hexdigest()
            self._send(b'<html><body><a href="/files/%s#sha256=%s">%s</a></body></html>'
                       % (WHEEL.encode(), digest.encode(), WHEEL.encode()), "text/html")
        elif self.path == "/files/" + WHEEL:
            if count > self.server.breaks:
                self._send(self.server.wheel, "application/octet-stream")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(self.server.wheel)))
            self.end_headers()
            self.wfile.write(self.server.wheel[: len(self.server.wheel) // 2])
            self.wfile.flush()
            # SO_LINGER 0: close() sends a TCP reset, "Connection reset by peer" at pip's end
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        else:
            if count <= self.server.slow_pages:
                time.sleep(SLOW_PAGE_S)
            self.send_error(404)

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass  # the socket was reset above


@contextlib.contextmanager
def _index(breaks: int, slow_pages: int = 0) -> Iterator[FlakyIndex]:
    server = FlakyIndex(breaks, slow_pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def old_pip_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh Python 3.8 venv: ensurepip gives it pip 23.0.1, which does not resume."""
    base = find_python("3.8")
    if base is None:
        pytest.skip("no Python 3.8 interpreter on this machine")
    where = tmp_path_factory.mktemp("py38") / "venv"
    subprocess.run([str(base), "-m", "venv", str(where)], check=True, timeout=300, capture_output=True)
    return where / "bin" / "python"


@pytest.fixture
def pip_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """pip sees only the local index: no machine config or PIP_* setting, an empty cache of
    its own, no proxy."""
    for name in list(os.environ):
        if name.upper().startswith("PIP_") or name.lower() in ("http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_CACHE_DIR", str(tmp_path / "pip-cache"))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    monkeypatch.setenv("PIP_NO_INPUT", "1")


def _install(python: Path, index: FlakyIndex, monkeypatch: pytest.MonkeyPatch, *packages: str
             ) -> tuple[bool, str, str]:
    monkeypatch.setenv("PIP_INDEX_URL", index.url)
    # the venv is shared by this module's tests: each starts without the package
    subprocess.run([str(python), "-m", "pip", "uninstall", "-y", PACKAGE], capture_output=True, timeout=120)
    said: list[str] = []
    shown = io.BytesIO()
    ok = run_action(Action("install the pinned packages", [str(python), "-m", "pip", "install", *packages], 600.0,
                           pip=True), said.append, shown)
    return ok, "".join(said), shown.getvalue().decode("utf-8", "replace")


@pytest.mark.legacy
@pytest.mark.slow
def test_a_download_reset_once_is_tried_again_and_installs(old_pip_python: Path, pip_env: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with _index(breaks=1) as index:
        ok, said, shown = _install(old_pip_python, index, monkeypatch, PACKAGE + "==1.0")
        assert "Connection reset by peer" in shown or "Connection broken" in shown, shown[-2000:]
        assert ok, said + shown[-2000:]
        assert index.requests["/files/" + WHEEL] == 2
        assert "trying again (2 of %d)" % TRIES_ON_BROKEN_DOWNLOAD in said
    proc = subprocess.run([str(old_pip_python), "-c", "import legacydoc_download_probe as m; print(m.VERSION)"],
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "1.0", proc.stderr


@pytest.mark.legacy
@pytest.mark.slow
def test_a_download_that_always_breaks_stops_after_the_last_try(old_pip_python: Path, pip_env: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with _index(breaks=100) as index:
        ok, said, _shown = _install(old_pip_python, index, monkeypatch, PACKAGE + "==1.0")
        assert not ok
        assert index.requests["/files/" + WHEEL] == TRIES_ON_BROKEN_DOWNLOAD
        assert said.count("trying again") == TRIES_ON_BROKEN_DOWNLOAD - 1
        assert said.splitlines()[-1].startswith("legacydoc: stopped: install the pinned packages failed: "
                                                "the download broke off %d times" % TRIES_ON_BROKEN_DOWNLOAD)


@pytest.mark.legacy
@pytest.mark.slow
def test_a_pin_the_index_does_not_have_is_not_tried_again(old_pip_python: Path, pip_env: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with _index(breaks=0) as index:
        ok, said, shown = _install(old_pip_python, index, monkeypatch, "legacydoc-no-such-package==1.0")
        assert not ok
        assert "No matching distribution found" in shown, shown[-2000:]
        assert index.requests["/simple/legacydoc-no-such-package/"] == 1
        assert said == "legacydoc: stopped: install the pinned packages failed (exit code 1)\n"


def test_a_pip_that_gave_up_resuming_is_tried_again_too(pip_env: None, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    """pip 25.2 and later resume a broken download themselves, then end with "not enough
    bytes were received": the pip running these tests, into a --target folder."""
    with _index(breaks=1000) as index:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        said: list[str] = []
        shown = io.BytesIO()
        argv = [sys.executable, "-m", "pip", "install", "--target", str(tmp_path / "t"), PACKAGE + "==1.0"]
        assert not run_action(Action("install the pinned packages", argv, 600.0, pip=True), said.append, shown)
        assert index.requests["/simple/%s/" % PACKAGE] == TRIES_ON_BROKEN_DOWNLOAD
        assert len(said) == TRIES_ON_BROKEN_DOWNLOAD
        assert "the download broke off %d times" % TRIES_ON_BROKEN_DOWNLOAD in said[-1]


@pytest.mark.legacy
@pytest.mark.slow
def test_a_slow_index_page_pip_recovered_from_is_not_a_broken_download(old_pip_python: Path, pip_env: None,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """pip's "Retrying ... Read timed out" warnings come before its real error (a pin the
    index does not have): that error decides, and it is not tried again."""
    monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", str(PIP_READ_TIMEOUT_S))
    with _index(breaks=0, slow_pages=2) as index:
        ok, said, shown = _install(old_pip_python, index, monkeypatch, "legacydoc-no-such-package==1.0")
        assert "Read timed out" in shown and "No matching distribution found" in shown, shown[-2000:]
        assert not ok
        assert said == "legacydoc: stopped: install the pinned packages failed (exit code 1)\n"


# what pip 23.0.1 printed last when PyPI reset a download (this project's CI, 2026-12-05)
RECORDED_RESET = ("pip._vendor.urllib3.exceptions.ProtocolError: (\"Connection broken: ConnectionResetError(104, "
                  "'Connection reset by peer')\", ConnectionResetError(104, 'Connection reset by peer'))")


def _fake(tmp_path: Path, fail_times: int, last_line: str) -> list[str]:
    """A command that counts its runs, fails the first ``fail_times`` with ``last_line`` on
    stderr (exit code 2, as pip's unexpected errors), then succeeds."""
    runs = tmp_path / "runs"
    script = ("import sys\nn = len(open(%r).read()) if __import__('os').path.exists(%r) else 0\n"
              "open(%r, 'a').write('x')\n"
              "if n < %d:\n    sys.stderr.write(%r + '\\n'); raise SystemExit(2)\n"
              % (str(runs), str(runs), str(runs), fail_times, last_line))
    return [sys.executable, "-c", script]


def test_a_pip_step_is_tried_again_after_a_reset(tmp_path: Path) -> None:
    said: list[str] = []
    shown = io.BytesIO()
    argv = _fake(tmp_path, 1, RECORDED_RESET)
    assert run_action(Action("install the pinned packages", argv, 60.0, pip=True), said.append, shown)
    assert (tmp_path / "runs").read_text() == "xx"
    assert shown.getvalue().decode().strip() == RECORDED_RESET
    assert said == ["legacydoc: the download broke off (%s); trying again (2 of 3)\n" % RECORDED_RESET[:160]]


def test_only_pip_steps_are_tried_again(tmp_path: Path) -> None:
    """conda has its own retries: a conda step that printed the same words, and installs a
    package called pip, ran once."""
    said: list[str] = []
    argv = [*_fake(tmp_path, 1, RECORDED_RESET), "create", "-y", "python=3.6", "pip", "pygpu=0.7.6"]
    assert not run_action(Action("create a conda environment with Python 3.6", argv, 60.0), said.append,
                          io.BytesIO())
    assert (tmp_path / "runs").read_text() == "x"
    assert said == ["legacydoc: stopped: create a conda environment with Python 3.6 failed (exit code 2)\n"]


def test_a_command_that_hangs_is_stopped_at_its_time_limit() -> None:
    said: list[str] = []
    shown = io.BytesIO()
    script = "import sys, time; sys.stderr.write('started\\n'); sys.stderr.flush(); time.sleep(120)"
    ok = run_action(Action("install the pinned packages", [sys.executable, "-c", script], 2.0, pip=True),
                    said.append, shown)
    assert not ok
    assert shown.getvalue().strip() == b"started"
    assert said == ["legacydoc: stopped: install the pinned packages took longer than 2 s\n"]


def test_a_command_that_cannot_start_says_why() -> None:
    said: list[str] = []
    ok = run_action(Action("create a virtual environment", ["/nonexistent/legacydoc-python", "-m", "venv"], 10.0),
                    said.append, io.BytesIO())
    assert not ok
    assert said[0].startswith("legacydoc: stopped: create a virtual environment: ")


class _ClosedPipe(io.BytesIO):
    def write(self, data: bytes) -> int:  # type: ignore[override]
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_went_away_does_not_stall_the_command(tmp_path: Path) -> None:
    """legacydoc fix 2>&1 | head: the command's stderr, more than a pipe holds, is still
    drained, so the command ends on its own instead of blocking on a full pipe; and its last
    lines still decide whether it is tried again."""
    said: list[str] = []
    lines = "import sys\nfor i in range(20000): sys.stderr.write('line %d of pip output\\n' % i)\n"
    ok = run_action(Action("install the pinned packages", [sys.executable, "-c", lines], 60.0, pip=True),
                    said.append, _ClosedPipe())
    assert ok, said
    assert said == []
    argv = _fake(tmp_path, 1, RECORDED_RESET)
    assert run_action(Action("install the pinned packages", argv, 60.0, pip=True), said.append, _ClosedPipe())
    assert len(said) == 1 and "trying again" in said[0]
