"""The one place in legacydoc that starts processes.

Every external command goes through :func:`run_command`: an argument list (never a
shell), a hard timeout that kills the whole process tree, output decoded the way
Windows and Linux tools really print it, and a :class:`CommandResult` that records
what happened instead of raising.
"""

from __future__ import annotations

import codecs
import contextlib
import locale
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Optional

from legacydoc.structs import field, struct

DEFAULT_TIMEOUT_S = 10.0
# What one command may leave in the facts record: enough to quote an error, never a dump.
FACT_MAX_LINES = 40
FACT_MAX_CHARS = 4000
# What we keep in memory for parsers: bounded so a runaway tool cannot exhaust memory.
CAPTURE_MAX_BYTES = 4 * 1024 * 1024
# After a command ends, how long its output pipes may stay open before we stop reading.
DRAIN_S = 0.5
_IS_WINDOWS = os.name == "nt"


@struct
class CommandResult:
    """What one command did. ``rc`` is None when it never started or was killed."""

    argv: list[str]
    rc: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    timed_out: bool = False
    error: str = ""  # why it could not start (not found, permission denied, ...)
    encoding: str = ""  # which decoding succeeded for its output
    truncated: bool = False  # output went past CAPTURE_MAX_BYTES

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out and not self.error

    @property
    def output(self) -> str:
        """stdout then stderr, as a user in a terminal would have seen them."""
        if self.stdout and self.stderr:
            return self.stdout.rstrip("\n") + "\n" + self.stderr
        return self.stdout or self.stderr

    def to_fact(self, max_lines: int = FACT_MAX_LINES) -> dict[str, Any]:
        """The record of this command for the facts file (no None values)."""
        fact: dict[str, Any] = {
            "argv": list(self.argv),
            "duration_s": round(self.duration_s, 3),
            "timed_out": self.timed_out,
        }
        if self.rc is not None:
            fact["rc"] = self.rc
        if self.error:
            fact["error"] = self.error
        if self.encoding:
            fact["encoding"] = self.encoding
        text = head(self.output, max_lines)
        if text:
            fact["output"] = text
        return fact


def head(text: str, max_lines: int = FACT_MAX_LINES, max_chars: int = FACT_MAX_CHARS) -> str:
    """The first lines of ``text``, bounded in lines and characters, right-stripped."""
    lines = text.splitlines()[:max_lines]
    out = "\n".join(line.rstrip() for line in lines).rstrip()
    return out[:max_chars]


def candidate_encodings(extra: Iterable[str] = ()) -> list[str]:
    """UTF-8 first (what modern tools print), then the locale's encoding (cp936/GBK on
    Chinese Windows), then anything the caller adds. Duplicates are dropped."""
    names = ["utf-8"]
    try:
        names.append(locale.getpreferredencoding(False) or "")
    except Exception:  # a broken locale must not stop the probe
        pass
    if _IS_WINDOWS:
        # Console tools print in the OEM code page, which differs from the ANSI one
        # on Western systems (cp437/cp850 vs cp1252).
        try:
            import ctypes

            names.append("cp%d" % ctypes.windll.kernel32.GetOEMCP())  # type: ignore[attr-defined]
        except Exception:
            pass
    names.extend(extra)
    seen: list[str] = []
    for name in names:
        try:
            canonical = codecs.lookup(name).name
        except LookupError:
            continue
        if canonical not in seen:
            seen.append(canonical)
    return seen


def decode_output(data: bytes, encodings: Sequence[str] = ()) -> tuple[str, str]:
    """Decode tool output. Returns (text, encoding used); never raises.

    A UTF-8 BOM is dropped; CRLF becomes LF. When no encoding decodes cleanly, UTF-8
    with replacement characters is the last resort (reported as ``utf-8/replace``).
    """
    if not data:
        return "", ""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    for name in encodings or candidate_encodings():
        try:
            text = data.decode(name)
        except (UnicodeDecodeError, LookupError):
            continue
        return _normalise_newlines(text), name
    return _normalise_newlines(data.decode("utf-8", errors="replace")), "utf-8/replace"


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _kill_tree(proc: subprocess.Popen) -> None:
    """Kill the process and everything it started (it runs in its own group)."""
    try:
        if _IS_WINDOWS:
            # taskkill /T walks the child tree; it is the documented way to do this.
            subprocess.run(
                ["taskkill", "/F", "/T", "/PID", str(proc.pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=5,
            )
        else:
            os.killpg(proc.pid, signal.SIGKILL)
    except Exception:
        pass
    try:
        proc.kill()
    except Exception:
        pass


class Running:
    """The commands of one probe session that are still running. A session given up on
    (a bad rule pack found while the target interpreter was already being probed, say)
    is cancelled: what runs is killed, and nothing more starts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen] = set()
        self.cancelled = False

    def add(self, proc: subprocess.Popen) -> bool:
        """Track ``proc``; False (and the caller kills it) once the session is cancelled."""
        with self._lock:
            if not self.cancelled:
                self._procs.add(proc)
                return True
        return False

    def discard(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(proc)

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            procs = list(self._procs)
        for proc in procs:  # their pumps see them end and return as usual
            _kill_tree(proc)


class _Capture:
    """Output of one stream, bounded: a runaway tool must not fill memory."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.kept = 0
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        room = CAPTURE_MAX_BYTES - self.kept
        if len(chunk) > room:
            self.truncated = True
        if room > 0:
            self.chunks.append(chunk[:room])
            self.kept += len(self.chunks[-1])


def _kill_group(proc: subprocess.Popen) -> None:
    """After the command exits, whatever it left running in its process group goes too: a
    background child holding the output pipes would keep us waiting and outlive us."""
    if _IS_WINDOWS:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:  # the group is already empty
        pass


def _pump_posix(proc: subprocess.Popen, captures: list[_Capture], deadline: float) -> bool:
    """Read stdout and stderr in this thread until both close (no reader thread to get
    stuck). Returns whether the command ran past ``deadline``. When it ends, its group is
    killed and the pipes get DRAIN_S to close: a child that escaped the group (setsid) and
    still holds them is not waited for."""
    import selectors

    selector = selectors.DefaultSelector()
    for stream, capture in zip((proc.stdout, proc.stderr), captures):
        if stream is not None:
            fd = stream.fileno()
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ, capture)
    timed_out = False
    ended_at: Optional[float] = None
    try:
        while selector.get_map():
            now = time.monotonic()
            if ended_at is None:
                if proc.poll() is not None:
                    ended_at = now
                    _kill_group(proc)
                elif now >= deadline:
                    timed_out = True
                    ended_at = now
                    _kill_tree(proc)
            elif now - ended_at > DRAIN_S:
                break
            for key, _events in selector.select(timeout=0.05):
                try:
                    chunk = os.read(key.fd, 65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    key.data.add(chunk)
                else:
                    selector.unregister(key.fd)
    finally:
        selector.close()
    if ended_at is None:
        # both pipes closed while it runs on: wait for it, within the deadline
        try:
            proc.wait(timeout=max(0.01, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_tree(proc)
        else:
            _kill_group(proc)
    if timed_out:
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    return timed_out


def _read_thread(stream: Any, capture: _Capture) -> None:
    try:
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            capture.add(chunk)
    except Exception:
        pass


def _pump_threads(proc: subprocess.Popen, captures: list[_Capture], deadline: float) -> bool:
    """Windows (no select on pipes): a reader thread per stream, waited for DRAIN_S after
    the command ends, then abandoned (daemon) if something else still holds the pipe."""
    readers = [
        threading.Thread(target=_read_thread, args=(stream, capture), daemon=True)
        for stream, capture in zip((proc.stdout, proc.stderr), captures)
        if stream is not None
    ]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_tree(proc)
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    for reader in readers:
        reader.join(timeout=DRAIN_S)
    return timed_out


def run_command(
    argv: Sequence[str],
    timeout: float = DEFAULT_TIMEOUT_S,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[str] = None,
    encodings: Sequence[str] = (),
    stdin_text: Optional[str] = None,
    running: Optional[Running] = None,
) -> CommandResult:
    """Run ``argv`` (a list, no shell) for at most ``timeout`` seconds. Never raises.
    With ``running``, the process can be killed by :meth:`Running.cancel`."""
    argv = [str(a) for a in argv]
    result = CommandResult(argv=argv)
    if not argv:
        result.error = "empty command"
        return result
    kwargs: dict[str, Any] = {}
    if _IS_WINDOWS:
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) | getattr(
            subprocess, "CREATE_NO_WINDOW", 0
        )
    else:
        kwargs["start_new_session"] = True  # own process group, so the tree can be killed
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            **kwargs,
        )
    except OSError as exc:
        result.error = "%s: %s" % (type(exc).__name__, exc.strerror or exc)
        result.duration_s = time.monotonic() - started
        return result
    except (ValueError, TypeError) as exc:  # e.g. NUL byte in an argument
        result.error = "%s: %s" % (type(exc).__name__, exc)
        return result

    if running is not None and not running.add(proc):
        _kill_tree(proc)  # cancelled between the caller's check and the start
    captures = [_Capture(), _Capture()]
    if stdin_text is not None and proc.stdin is not None:
        try:
            proc.stdin.write(stdin_text.encode("utf-8"))
            proc.stdin.close()
        except OSError:
            pass
    pump = _pump_threads if _IS_WINDOWS else _pump_posix
    try:
        result.timed_out = pump(proc, captures, started + max(timeout, 0.01))
    finally:
        if running is not None:
            running.discard(proc)
    result.duration_s = time.monotonic() - started
    if not result.timed_out:
        result.rc = proc.returncode
    if not _IS_WINDOWS:
        # Only safe without reader threads: closing a pipe another thread reads blocks.
        for stream in (proc.stdout, proc.stderr, proc.stdin):
            try:
                if stream is not None:
                    stream.close()
            except Exception:
                pass
    result.truncated = captures[0].truncated or captures[1].truncated
    out_chunks, err_chunks = captures[0].chunks, captures[1].chunks
    codecs_to_try = list(encodings) or candidate_encodings()
    result.stdout, enc_out = decode_output(b"".join(out_chunks), codecs_to_try)
    result.stderr, enc_err = decode_output(b"".join(err_chunks), codecs_to_try)
    result.encoding = enc_out or enc_err
    return result


@struct
class CommandLog:
    """Every command run during one probe session, for support reports."""

    results: list[CommandResult] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, result: CommandResult) -> None:
        with self._lock:
            self.results.append(result)


@contextlib.contextmanager
def neutral_folder() -> Iterator[str]:
    """An empty folder to start a Python child in: `python -c` puts the current
    folder first on sys.path, and the user's folder may hold a numpy.py, a json.py or a
    timeit.py that would be imported, and run, in place of the real module."""
    folder = tempfile.mkdtemp(prefix="legacydoc-child-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
