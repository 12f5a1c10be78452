"""The probe layer: each module reads one area of the machine and judges nothing.

A probe module has ``collect(ctx) -> dict``; the tables it fills are named in
:mod:`legacydoc.areas`. A one-table probe returns that table, a multi-table probe a
mapping ``{table: data}``. :func:`collect_all` runs every probe concurrently, each with
its own deadline, so a run takes as long as the slowest probe, not the sum of them. A
probe that raises or overruns is recorded as ``<table>.probe_error``; the run goes on.
:class:`Probing` does the same in steps: ``check`` starts the slowest probe (the target
interpreter) before reading the rules, the others after, and cancels all of them if it
stops early (a broken rule pack, Ctrl-C).
"""

from __future__ import annotations

import importlib
import threading
import time
import traceback
from collections.abc import Sequence
from typing import Any, Callable, Optional

from legacydoc.areas import PROBE_MODULES, tables_of_probe
from legacydoc.factschema import prune
from legacydoc.probes.context import ProbeContext

# Slack on top of the per-probe timeout before a probe thread is abandoned: room for
# killing a hung process tree and decoding its output.
GRACE_S = 1.0


def _load(name: str) -> Any:
    return importlib.import_module("legacydoc.probes." + name)


def _tables_of(name: str) -> tuple[str, ...]:
    return tables_of_probe(name) or (name,)


def _as_tables(name: str, tables: tuple[str, ...], value: Any) -> dict[str, dict]:
    if not isinstance(value, dict):
        raise TypeError("probe %s returned %s, not a dict" % (name, type(value).__name__))
    if len(tables) == 1:
        return {tables[0]: value}
    return {t: dict(value.get(t, {})) for t in tables}


def run_probe(name: str, ctx: ProbeContext) -> dict[str, dict]:
    """Run one probe; any exception becomes a recorded fact instead of a crash."""
    tables = _tables_of(name)
    started = time.monotonic()
    try:
        module = _load(name)
        result = _as_tables(name, tables, module.collect(ctx))
    except Exception as exc:
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        # %s, not %d: FrameSummary.lineno is Optional[int] (the text is the same for a number)
        where = " (%s:%s)" % (last[0].filename.rsplit("/", 1)[-1], last[0].lineno) if last else ""
        message = "%s: %s%s" % (type(exc).__name__, exc, where)
        result = {t: {"probe_error": message} for t in tables}
    elapsed = round(time.monotonic() - started, 3)
    for name, table in result.items():
        # What the machine printed may be anything (a target interpreter's report, say):
        # values of the wrong kind are removed, and the removal is itself recorded.
        dropped = prune({name: table}) if isinstance(table, dict) else []
        if dropped:
            table["probe_dropped"] = dropped[:50]
        table.setdefault("probe_duration_s", elapsed)
    return result


class Probing:
    """Probes running in their own threads: started in groups (the slowest one first,
    while the caller still has work of its own), then waited for together."""

    def __init__(self, ctx: ProbeContext, on_done: Optional[Callable[[str], None]] = None) -> None:
        self.ctx = ctx
        self._on_done = on_done
        self._lock = threading.Lock()
        self._results: dict[str, dict[str, dict]] = {}
        # (name, thread, when it must be given up on)
        self._threads: list[tuple[str, threading.Thread, float]] = []
        self._starters: list[threading.Thread] = []

    def start(self, names: Sequence[str]) -> "Probing":
        for name in names:
            # Daemon threads, not an executor: a probe stuck in a system call must not
            # keep the interpreter from exiting after we have given up on it.
            thread = threading.Thread(
                target=self._work, args=(name, self.ctx.for_probe()), name="probe-" + name, daemon=True
            )
            thread.start()
            self._threads.append((name, thread, time.monotonic() + self.ctx.timeout + GRACE_S))
        return self

    def start_soon(self, names: Sequence[str]) -> "Probing":
        """:meth:`start` from a thread of its own: each new thread takes the GIL for its
        imports, and starting nine of them one by one held up the caller for 25-30 ms."""
        starter = threading.Thread(target=self.start, args=(list(names),), name="probe-starter", daemon=True)
        starter.start()
        self._starters.append(starter)
        return self

    def _work(self, name: str, ctx: ProbeContext) -> None:
        out = run_probe(name, ctx)
        with self._lock:
            self._results[name] = out
        if self._on_done is not None:
            self._on_done(name)

    def cancel(self) -> None:
        """Give up: kill the commands still running, then give the probes up to GRACE_S
        to end (a command being started as we cancel is killed once it is registered,
        and each probe removes its temporary folder)."""
        self.ctx.running.cancel()
        deadline = time.monotonic() + GRACE_S
        for starter in list(self._starters):
            starter.join(max(0.0, deadline - time.monotonic()))
        for _name, thread, _at in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))

    def wait(self) -> dict[str, dict]:
        """``{table: facts}`` for every table of every started probe, in probe order; a
        probe that did not finish in time is recorded as timed out."""
        for starter in self._starters:
            starter.join()
        for _name, thread, give_up_at in self._threads:
            thread.join(max(0.0, give_up_at - time.monotonic()))
        order = {name: i for i, name in enumerate(PROBE_MODULES)}
        tables: dict[str, dict] = {}
        with self._lock:
            for name, _thread, _at in sorted(self._threads, key=lambda t: order.get(t[0], len(order))):
                if name in self._results:
                    tables.update(self._results[name])
                else:
                    message = "probe did not finish within %.1f s" % (self.ctx.timeout + GRACE_S)
                    for table in _tables_of(name):
                        tables[table] = {"probe_error": message, "probe_timed_out": True}
        return tables


def collect_all(
    ctx: ProbeContext,
    only: Optional[tuple[str, ...]] = None,
    on_done: Optional[Callable[[str], None]] = None,
) -> dict[str, dict]:
    """Run the probes concurrently; returns ``{table: facts}`` for every table."""
    return Probing(ctx, on_done).start(only or PROBE_MODULES).wait()
