"""What legacydoc.structs saves against dataclasses, and what it costs (issue #14, speed).

Two ratios measured in one run, interleaved: making a class (paid once per class at
import: a check imports about 47) and making an instance (paid per object: a check makes
a few thousand). Each class has six fields, two of them with factories, as legacydoc's do.

    python benchmarks/structs.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import statistics
import time
from typing import Any, Callable

from legacydoc import structs


def _namespace(make_field: Callable[..., Any]) -> dict[str, Any]:
    return {
        "__annotations__": {"a": "int", "b": "str", "c": "list", "d": "dict", "e": "int", "f": "str"},
        "__doc__": "A class shaped like legacydoc's.",
        "b": "", "c": make_field(default_factory=list), "d": make_field(default_factory=dict), "e": 0, "f": "x",
    }


def _make_class(kind: str, frozen: bool) -> Any:
    if kind == "struct":
        return structs.struct(frozen=frozen)(type("C", (), _namespace(structs.field)))
    return dataclasses.dataclass(frozen=frozen)(type("C", (), _namespace(dataclasses.field)))


def _time(action: Callable[[], Any], repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        action()
    return (time.perf_counter() - started) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    rounds = max(1, parser.parse_args().rounds)
    for frozen in (False, True):
        per_class: dict[str, list[float]] = {"struct": [], "dataclass": []}
        per_instance: dict[str, list[float]] = {"struct": [], "dataclass": []}
        for _ in range(rounds):
            for kind in ("struct", "dataclass"):  # interleaved: a busy moment hits both
                per_class[kind].append(_time(functools.partial(_make_class, kind, frozen), 5))
                cls = _make_class(kind, frozen)
                per_instance[kind].append(_time(functools.partial(cls, 1, "b", e=2), 200))
        label = "frozen" if frozen else "plain"
        for what, figures in (("class", per_class), ("instance", per_instance)):
            ours, theirs = (statistics.median(figures[k]) for k in ("struct", "dataclass"))
            print("%-6s %-8s struct %8.2f us  dataclass %8.2f us  ratio %.2f"
                  % (label, what, ours * 1e6, theirs * 1e6, ours / theirs))


if __name__ == "__main__":
    main()
