"""The probe layer: each module reads one area of the machine and judges nothing.

A probe module has ``collect(ctx) -> dict``; the tables it fills are named in
:mod:`legacydoc.areas`. A one-table probe returns that table, a multi-table probe a
mapping ``{table: data}``. :func:`collect_all` runs every probe concurrently, each with
its own deadline, so a run takes as long as the slowest probe, not the sum of them. A
probe that raises or overruns is recorded as ``<table>.probe_error``; the run goes on.
"""

from __future__ import annotations

import importlib
import threading
import time
import traceback
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


def collect_all(
    ctx: ProbeContext,
    only: Optional[tuple[str, ...]] = None,
    on_done: Optional[Callable[[str], None]] = None,
) -> dict[str, dict]:
    """Run the probes concurrently; returns ``{table: facts}`` for every table."""
    names = only or PROBE_MODULES
    results: dict[str, dict[str, dict]] = {}
    lock = threading.Lock()

    def worker(probe_name: str, probe_ctx: ProbeContext) -> None:
        out = run_probe(probe_name, probe_ctx)
        with lock:
            results[probe_name] = out
        if on_done is not None:
            on_done(probe_name)

    # Daemon threads, not an executor: a probe stuck in a system call must not keep the
    # interpreter from exiting after we have given up on it.
    threads = []
    for name in names:
        thread = threading.Thread(target=worker, args=(name, ctx.for_probe()), name="probe-" + name, daemon=True)
        thread.start()
        threads.append((name, thread))
    deadline = time.monotonic() + ctx.timeout + GRACE_S
    for _name, thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))

    tables: dict[str, dict] = {}
    with lock:
        for name, _thread in threads:
            if name in results:
                tables.update(results[name])
            else:
                message = "probe did not finish within %.1f s" % (ctx.timeout + GRACE_S)
                for table in _tables_of(name):
                    tables[table] = {"probe_error": message, "probe_timed_out": True}
    return tables
