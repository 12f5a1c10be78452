"""How check's time grows with the number of config files a record lists (issue #10,
defect 5: it grew with the cube). Prints the time ratio for 10x more entries, measured in
one run on this machine; linear work gives about 10, cubic about 1000.

    python benchmarks/theanorc_scaling.py
"""

from __future__ import annotations

import time

from legacydoc import facts
from legacydoc.checkup import run_check
from legacydoc.engine import load_rules


def record(n: int, exists: bool) -> dict:
    files = [
        {"path": "/home/u/rc%d" % i, "from": "THEANORC", "exists": exists, "readable": exists}
        | ({"kind": "file", "encoding": "utf-8", "text": "[global]\nfloatX = float32\n"} if exists else {})
        for i in range(n)
    ]
    return facts.new_record({
        "theano_config": {"files": files, "theanorc_env": ":".join(f["path"] for f in files)},
        "system": {"os": "linux"},
    })


def seconds(rules: list, n: int, exists: bool, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        rec = record(n, exists)
        started = time.perf_counter()
        run_check(rec, rules)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    rules = load_rules()
    for exists in (False, True):
        small, large = seconds(rules, 100, exists), seconds(rules, 1000, exists)
        print("%s files: 100 entries %.3f s, 1000 entries %.3f s, ratio %.1f (linear ~10, cubic ~1000)"
              % ("existing" if exists else "missing", small, large, large / small))


if __name__ == "__main__":
    main()
