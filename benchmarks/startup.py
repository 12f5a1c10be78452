"""How long a person waits for legacydoc, against tools they know (issue #14, speed).

Measured in one run on this machine, the commands interleaved in a new random order each
round, so that a busy moment, or what one command leaves behind, hits all of them alike;
each figure is the median wall time of --runs runs, after one uncounted warm-up run of
each (as installed: bytecode is cached):

- ``legacydoc --help`` against ``python -c "import typer"`` (the floor any typer CLI
  pays): goal at most 1.5x;
- ``legacydoc check`` (probing this machine) against ``numba -s`` (numba's system
  report, when numba is installed in this interpreter): goal at most 0.30x;
- ``legacydoc check --facts FILE`` (a replay: no probing), for reference.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FACTS = REPO / "fixtures" / "tickets" / "gh-libgpuarray-474" / "facts.toml"


# As installed: pip writes every module's bytecode at install time, so the runs may cache
# theirs too (a shell that sets PYTHONDONTWRITEBYTECODE would time the compiler instead).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(REPO)


def wall(argv: list[str]) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=str(REPO), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    # Not wait(timeout=...): with a timeout, Python polls with sleeps of up to 50 ms, which
    # is what a 0.1 s command's figure then measures. A timer kills a hung run instead.
    watchdog = threading.Timer(300, process.kill)
    watchdog.start()
    try:
        process.wait()
    finally:
        watchdog.cancel()
    return time.perf_counter() - started


def _target(tool: list[str]) -> str:
    """The interpreter ``legacydoc check`` probes here, and why it chose it."""
    import json

    done = subprocess.run(tool + ["check", "--format", "json"], cwd=str(REPO), env=ENV,
                          capture_output=True, text=True, timeout=300)
    try:
        target = json.loads(done.stdout)["target"]
        return "%s (chosen by %s)" % (target.get("executable_requested"), target.get("selected_by"))
    except (ValueError, KeyError, TypeError):
        return "unknown (check --format json printed no target)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = max(1, parser.parse_args().runs)
    py = sys.executable
    # What a person types: the installed entry point (python -m adds runpy's own cost).
    script = Path(py).parent / ("legacydoc.exe" if os.name == "nt" else "legacydoc")
    tool = [str(script)] if script.exists() else [py, "-m", "legacydoc"]
    commands = {
        "legacydoc --help": tool + ["--help"],
        "import typer": [py, "-c", "import typer"],
        "legacydoc check": tool + ["check"],
        "legacydoc check --facts": tool + ["check", "--facts", str(FACTS)],
    }
    if importlib.util.find_spec("numba") is not None:
        commands["numba -s"] = [py, "-m", "numba", "-s"]
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # a warm-up, not counted: bytecode and disk caches
        wall(argv)
    # A fresh order each round: a command must not always run right after the same one
    # (numba -s leaves work behind that slowed whatever came next by 40 ms).
    order = random.Random(14)
    names = list(commands)
    for _ in range(runs):
        order.shuffle(names)
        for name in names:
            times[name].append(wall(commands[name]))
    median = {name: statistics.median(values) for name, values in times.items()}
    # What check examined decides much of its time: behind a pyenv shim, bash starts six
    # times before the target Python does (an activated venv or conda env has none).
    print("check examined: %s" % _target(tool))
    for name, value in median.items():
        print("%-26s %6.3f s (median of %d)" % (name, value, runs))
    print()
    ratio = median["legacydoc --help"] / median["import typer"]
    print("--help / import typer    %.2f  (goal <= 1.5: %s)" % (ratio, "met" if ratio <= 1.5 else "NOT met"))
    if "numba -s" in median:
        ratio = median["legacydoc check"] / median["numba -s"]
        print("check / numba -s         %.2f  (goal <= 0.30: %s)" % (ratio, "met" if ratio <= 0.30 else "NOT met"))
    else:
        print("check / numba -s         not measured: numba is not installed in %s" % py)


if __name__ == "__main__":
    main()
