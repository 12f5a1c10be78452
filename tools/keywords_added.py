"""Keyword arguments that Theano's and Lasagne's functions and Lasagne's layers gained after
the releases people still have installed: the patterns of the catalogue messages
theano-keyword-added-after-release and lasagne-keyword-added-after-release
(rules/messages/field.toml), regenerated from the tags.

"f() got an unexpected keyword argument 'k'" names the function and the keyword, not the
library. A pair (f, k) is kept only when the release tag the user should upgrade to accepts
k in every definition of f (or passes it on through **kwargs), and an older tag has f with
neither k nor **kwargs, so that calling f with k failed there. Lasagne's layers take
**kwargs and hand them to Layer.__init__, whose error names only "__init__": a layer's
keyword is kept when no Lasagne 0.1 layer or function accepts it, and it is matched only
next to a Lasagne frame or the layer's own name on the line above.

Source files are read with Python 2.7's ast (Theano 0.6 and 0.7 are Python 2 source) from
git mirrors of github.com/Theano/Theano and github.com/Lasagne/Lasagne. Prints the two
patterns as TOML-ready JSON strings and, on stderr, every pair with the tag that first has it.

    python tools/keywords_added.py /path/to/Theano.git /path/to/Lasagne.git /path/to/python2.7
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

from theano_api_added import MODULES  # the modules users import from

THEANO_TAGS = ("rel-0.6", "rel-0.7", "rel-0.8.2", "rel-0.9.0", "rel-1.0.5")
# Lasagne's only release on PyPI, and master at the commit LD141 installs.
LASAGNE_TAGS = ("v0.1", "5d3c63cb315c50b1cbd27a6bc8664b406f34dd99")

# Run under Python 2.7: for each tag, every module-level function and every class's own
# __init__ in the package (tests left out): {tag: {"functions": {name: [[params, has_kwargs,
# path]]}, "inits": {class: [[params, has_kwargs, path]]}}}.
_READER = r'''
import ast, json, subprocess, sys
git, package, tags = sys.argv[1], sys.argv[2], sys.argv[3:]
def out(args):
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = p.communicate()[0]
    return text if p.returncode == 0 else None
def signature(fn):
    names = [a.id for a in fn.args.args if isinstance(a, ast.Name)]
    return [names, fn.args.kwarg is not None]
result = {}
for tag in tags:
    files = [p for p in out(["git", "--git-dir=" + git, "ls-tree", "-r", "--name-only", tag, package]).split()
             if p.endswith(".py") and "/tests/" not in p and "/test_" not in p]
    functions, inits = {}, {}
    for path in files:
        try:
            tree = ast.parse(out(["git", "--git-dir=" + git, "show", tag + ":" + path]) or "")
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                functions.setdefault(node.name, []).append(signature(node) + [path])
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        inits.setdefault(node.name, []).append(signature(item) + [path])
    result[tag] = {"functions": functions, "inits": inits}
print(json.dumps(result))
'''

Signatures = dict[str, list[list[Any]]]
Tags = dict[str, dict[str, Signatures]]


def read(git: str, package: str, tags: tuple[str, ...], python2: str) -> Tags:
    done = subprocess.run([python2, "-c", _READER, git, package, *tags], capture_output=True, text=True,
                          timeout=900, check=True)
    return json.loads(done.stdout)


def _accepts(definitions: list[list[Any]], keyword: str) -> bool:
    """Every definition takes the keyword, by name or through **kwargs."""
    return all(keyword in params or has_kwargs for params, has_kwargs, _path in definitions)


def _rejects(definitions: list[list[Any]], keyword: str) -> bool:
    """Every definition raises "unexpected keyword argument" for it."""
    return all(keyword not in params and not has_kwargs for params, has_kwargs, _path in definitions)


def _public(path: str) -> bool:
    """A function of a module users import from (scan's own module too), not one of the
    graph optimizers (local_*) that only Theano calls."""
    module = path[:-3].replace("/", ".")
    module = module[:-9] if module.endswith(".__init__") else module
    return module.startswith("lasagne") or bool(MODULES.match(module)) or module == "theano.scan_module.scan"


def added_function_keywords(by_tag: Tags, tags: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """{function: {keyword: the first tag whose definitions all accept it}} for keywords the
    newest tag accepts and some older tag rejected."""
    newest = by_tag[tags[-1]]["functions"]
    out: dict[str, dict[str, str]] = {}
    for name, definitions in newest.items():
        if name.startswith("local_") or not any(_public(path) for *_x, path in definitions):
            continue
        keywords = {k for params, _kw, _path in definitions for k in params if k not in ("self", "cls")}
        for keyword in keywords:
            if not _accepts(definitions, keyword):
                continue
            older = [by_tag[tag]["functions"].get(name) for tag in tags[:-1]]
            if not any(found and _rejects(found, keyword) for found in older):
                continue
            public = [[d for d in found if _public(d[2])] if found else None for found in older + [definitions]]
            first = next(tag for tag, found in zip(tags, public) if found and _accepts(found, keyword))
            out.setdefault(name, {})[keyword] = first
    return out


def added_layer_keywords(by_tag: Tags, tags: tuple[str, ...]) -> dict[str, list[str]]:
    """{layer class: [keywords]} its __init__ takes at the newest tag that no class __init__
    and no function took at the oldest (so no Lasagne 0.1 call could have accepted them)."""
    oldest, newest = by_tag[tags[0]], by_tag[tags[-1]]
    known = {k for table in (oldest["inits"], oldest["functions"]) for defs in table.values()
             for params, _kw, _path in defs for k in params}
    out: dict[str, list[str]] = {}
    for name, definitions in newest["inits"].items():
        if not name.endswith("Layer") or not all(path.startswith("lasagne/layers/") for *_x, path in definitions):
            continue
        fresh = sorted({k for params, _kw, _path in definitions for k in params} - known - {"self"})
        if fresh:
            out[name] = fresh
    return out


def _alternation(found: list[str]) -> str:
    return "|".join(sorted(found, key=lambda n: (-len(n), n)))


def function_pattern(added: dict[str, dict[str, str]]) -> str:
    """f() got an unexpected keyword argument 'k' (a module-level function's name is bare in
    every Python's wording; a dot before it would make it some class's method)."""
    parts = [r"%s\(\) got an unexpected keyword argument .(?:%s)." % (re.escape(name), _alternation(list(keywords)))
             for name, keywords in sorted(added.items())]
    return r"(?<![\w.])(?:%s)" % "|".join(parts)


def layer_pattern(functions: dict[str, dict[str, str]], layers: dict[str, list[str]]) -> str:
    """Lasagne's functions as above; a layer's keyword after a Lasagne layers frame, or
    after a source line that calls the layer by name (the statement's first line)."""
    every = sorted({k for keywords in layers.values() for k in keywords})
    error = r"[^\n]{0,80}__init__\(\) got an unexpected keyword argument .(?:%s)."
    parts = [function_pattern(functions)] if functions else []
    parts.append(r"lasagne[\\/]layers[\\/]\w{1,40}\.py.{0,3} line \d{1,6}, in __init__\n[^\n]{0,400}\n"
                 + error % _alternation(every))
    calls = [r"%s\([^\n]{0,400}\n(?:[^\n]{0,400}\n){0,2}?" % re.escape(name) + error % _alternation(keywords)
             for name, keywords in sorted(layers.items())]
    # (?=[A-Z]): one cheap test before trying every layer's branch at a position
    parts.append(r"\b(?=[A-Z])(?:%s)" % "|".join(calls))
    return "|".join(parts)


def main(argv: list[str]) -> int:
    theano_git, lasagne_git, python2 = argv
    theano = added_function_keywords(read(theano_git, "theano", THEANO_TAGS, python2), THEANO_TAGS)
    lasagne_tags = read(lasagne_git, "lasagne", LASAGNE_TAGS, python2)
    lasagne_functions = added_function_keywords(lasagne_tags, LASAGNE_TAGS)
    layers = added_layer_keywords(lasagne_tags, LASAGNE_TAGS)
    for name, keywords in sorted(theano.items()):
        print("theano", name, ", ".join("%s (%s)" % (k, t) for k, t in sorted(keywords.items())), file=sys.stderr)
    for name, keywords in sorted(lasagne_functions.items()):
        print("lasagne", name, ", ".join(sorted(keywords)), file=sys.stderr)
    for name, found in sorted(layers.items()):
        print("layer", name, ", ".join(found), file=sys.stderr)
    print(json.dumps(function_pattern(theano)))
    print(json.dumps(layer_pattern(lasagne_functions, layers)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
