"""Writes rules/knowledge/theano_api.toml: per Theano release, the names and modules of
Theano's public API that the release lacks, with the release that has them. `legacydoc check
--project DIR` compares the names the project's code uses with it (legacydoc/theanoapi.py).

The names come from tools/theano_api_added.py's reader (Python's ast over every
theano/**/*.py at a tag, `from x import *` followed, names bound only under an if or a try
kept apart). A release is a group of tags, and a name counts as lacking only where every tag
of the group lacks it, even conditionally: a claim about 0.8.1 is read at rel-0.8.1.

* written_for = "newer": what rel-1.0.5 surely has that the group lacks (LD121);
* written_for = "older": what an older release surely had that the group lacks, with the
  last tag that had it (LD165); the old GPU back-end and theano.tensor.signal.downsample
  have rules of their own and are left out, as in theano_api_added.py;
* written_for = "theano-1.0": what rel-1.0.5 surely has that Theano-PyMC 1.1 lacks (LD166).

    python tools/theano_api_table.py /path/to/Theano.git /path/to/python2.7 \\
        /path/to/Theano-PyMC.git /path/to/python3 > rules/knowledge/theano_api.toml
"""

from __future__ import annotations

import builtins
import re
import sys

import tomli_w

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from theano_api_added import MODULES, NOT_API, REMOVED_ELSEWHERE, _read  # noqa: E402

NEWEST = "rel-1.0.5"
# (distribution, the versions a row speaks for, the tags read for them): every released
# version of the group has its tag here, so a claim is never carried over to an unread one
GROUPS = (
    ("Theano", "==0.7.0", ("rel-0.7",)),
    ("Theano", ">=0.8.0,<=0.8.2", ("rel-0.8.0", "rel-0.8.1", "rel-0.8.2")),
    ("Theano", "==0.9.0", ("rel-0.9.0",)),
    ("Theano", ">=1.0.0,<=1.0.5", ("rel-1.0.0", "rel-1.0.1", "rel-1.0.2", "rel-1.0.3", "rel-1.0.4", "rel-1.0.5")),
)
FORK = ("Theano-PyMC", ">=1.1.0,<=1.1.2", ("rel-1.1.0", "rel-1.1.1", "rel-1.1.2"))
OLDER = ("rel-0.7", "rel-0.8.0", "rel-0.8.1", "rel-0.8.2", "rel-0.9.0")  # oldest first
ORDER = OLDER + GROUPS[-1][2]
NAME = re.compile(r"[A-Za-z]\w*")

Tags = dict[str, dict[str, dict[str, list[str]]]]


def _public(module: str) -> bool:
    return bool(MODULES.match(module)) and not any(part.startswith("_") for part in module.split("."))


def _before(tags: tuple[str, ...]) -> tuple[str, ...]:
    """The older releases' tags read, oldest first."""
    return tuple(t for t in OLDER if ORDER.index(t) < ORDER.index(tags[0]))


def _had(found: dict[str, list[str]], kind: str) -> set[str]:
    """What a module surely has: `from m import X` also finds its submodules ("import").
    NOT_API drops the standard library and numpy imported into a module, never a submodule
    of Theano's own (theano/compat/six.py until 0.9.0)."""
    names = (set(found["sure"]) - NOT_API) | (set(found["subs"]) if kind == "import" else set())
    return {n for n in names if NAME.fullmatch(n)}


def _may(found: dict[str, list[str]]) -> set[str]:
    return set(found["may"]) | set(found["subs"])


def lacking(by_tag: Tags, newest: str, tags: tuple[str, ...], kind: str) -> dict[str, list[str]]:
    """{module: names} that `newest` surely has and every tag of the group lacks, even
    conditionally, for the public modules every tag of the group has."""
    out: dict[str, list[str]] = {}
    for module, found in by_tag[newest].items():
        if not _public(module) or any(module not in by_tag[t] for t in tags):
            continue
        missing = _had(found, kind)
        for tag in tags:
            missing -= _may(by_tag[tag][module])
        if missing:
            out[module] = sorted(missing)
    return out


def removed(by_tag: Tags, tags: tuple[str, ...], kind: str) -> dict[tuple[str, str], list[str]]:
    """{(module, last older tag that surely had them): names} every tag of the group lacks."""
    last: dict[tuple[str, str], str] = {}
    for old in _before(tags):
        for module, found in by_tag[old].items():
            if not (_public(module) or module == "theano.compat") or REMOVED_ELSEWHERE.match(module):
                continue
            if any(module not in by_tag[t] for t in tags):
                continue
            for name in _had(found, kind) - set(dir(builtins)):
                if all(name not in _may(by_tag[t][module]) for t in tags):
                    if not REMOVED_ELSEWHERE.match(module + "." + name):
                        last[(module, name)] = old  # oldest first: the last one stays
    out: dict[tuple[str, str], list[str]] = {}
    for (module, name), tag in last.items():
        out.setdefault((module, tag), []).append(name)
    return {key: sorted(names) for key, names in sorted(out.items())}


def missing_modules(by_tag: Tags, source_tags: tuple[str, ...], tags: tuple[str, ...]) -> dict[str, str]:
    """{module: the last source tag that has it} for the public modules a source tag has
    whose parent package every tag of the group has without them (the import fails on that
    module). Source tags run oldest first."""
    out: dict[str, str] = {}
    for source in source_tags:
        for module in by_tag[source]:
            parent, _, last = module.rpartition(".")
            if not parent or last.startswith(("test", "_")) or REMOVED_ELSEWHERE.match(module):
                continue
            if not (_public(module) or _public(parent) or parent == "theano.compat"):
                continue
            if all(module not in by_tag[t] and parent in by_tag[t] for t in tags):
                out[module] = source
    # the first missing package is what the import names: its submodules are not listed
    return {m: t for m, t in sorted(out.items()) if m.rpartition(".")[0] not in out}


def rows(by_tag: Tags, fork: Tags) -> dict[str, list[dict[str, object]]]:
    lacks: list[dict[str, object]] = []
    lacks_module: list[dict[str, object]] = []

    def add(dist: str, versions: str, written_for: str, found_in: str, module: str,
            imports: list[str], attributes: list[str]) -> None:
        # what an attribute lookup lacks, an import lacks too; the rest are submodules
        if imports or attributes:
            row = {"dist": dist, "versions": versions, "written_for": written_for, "found_in": found_in,
                   "module": module, "names": attributes}
            submodules = sorted(set(imports) - set(attributes))
            if submodules:
                row["submodules"] = submodules
            lacks.append({**row, "confidence": "V"})

    def newer(found: Tags, dist: str, versions: str, tags: tuple[str, ...], written_for: str) -> None:
        """What rel-1.0.5 has that every tag of the group lacks."""
        imports, attributes = lacking(found, NEWEST, tags, "import"), lacking(found, NEWEST, tags, "attribute")
        for module in sorted(set(imports) | set(attributes)):
            add(dist, versions, written_for, NEWEST, module, imports.get(module, []), attributes.get(module, []))
        modules = missing_modules(found, (NEWEST,), tags)
        if modules:
            lacks_module.append({"dist": dist, "versions": versions, "written_for": written_for, "found_in": NEWEST,
                                 "modules": sorted(modules), "confidence": "V"})

    for dist, versions, tags in GROUPS:
        if NEWEST not in tags:
            newer(by_tag, dist, versions, tags, "newer")
        gone_imports, gone_attributes = removed(by_tag, tags, "import"), removed(by_tag, tags, "attribute")
        for module, last in sorted(set(gone_imports) | set(gone_attributes)):
            add(dist, versions, "older", last, module, gone_imports.get((module, last), []),
                gone_attributes.get((module, last), []))
        gone_modules = missing_modules(by_tag, _before(tags), tags)
        for last in sorted(set(gone_modules.values())):
            lacks_module.append({"dist": dist, "versions": versions, "written_for": "older", "found_in": last,
                                 "modules": sorted(m for m, t in gone_modules.items() if t == last),
                                 "confidence": "V"})
    dist, versions, tags = FORK
    newer({NEWEST: by_tag[NEWEST], **fork}, dist, versions, tags, "theano-1.0")
    return {"lacks": lacks, "lacks_module": lacks_module}


HEADER = """\
# Generated by tools/theano_api_table.py; do not edit by hand. What each Theano release lacks
# of the API another release has, read at the tags (every released version of a row's range
# was read): the top-level names of Theano's public modules (theano, theano.tensor and its
# nnet and signal submodules, theano.gpuarray, theano.sandbox.rng_mrg, theano.compile ...),
# `from x import *` followed, a name bound only under an if or a try never claimed missing.
#
# Row fields ([[lacks]]: names of one module; [[lacks_module]]: whole modules):
#   dist, versions   the installed distribution and the versions the row speaks for
#   written_for      newer: the names are in found_in, a later release (LD121); older: found_in
#                    is the last release that had them (LD165); theano-1.0: Theano 1.0.5 has
#                    them and Theano-PyMC 1.1 moved or dropped them (LD166)
#   names            `from <module> import X` and <module>.X both fail
#   submodules       only `from <module> import X` fails: X is a submodule where found_in has it,
#                    and an attribute only once imported
#   confidence       V = read at the tags
"""


def main(argv: list[str]) -> int:
    git, python2, fork_git, python3 = argv
    tags = sorted({t for _, _, group in GROUPS for t in group} | set(OLDER) | {NEWEST})
    by_tag = _read(python2, git, tuple(tags))
    fork = _read(python3, fork_git, FORK[2])
    data: dict[str, object] = {
        "source": "github.com/Theano/Theano tags %s; github.com/pymc-devs/Theano-PyMC tags %s (theano/**/*.py, "
                  "read by tools/theano_api_added.py's reader)" % (", ".join(tags), ", ".join(FORK[2])),
        **rows(by_tag, fork),
    }
    sys.stdout.write(HEADER + "\n" + tomli_w.dumps(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
