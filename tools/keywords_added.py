"""Keyword arguments that Theano's functions and Lasagne's functions and layers gained after
the releases people still have installed: the patterns of the catalogue messages
theano-keyword-added-after-release and lasagne-keyword-added-after-release
(rules/messages/field.toml, python_packages.toml), regenerated from the tags.

"f() got an unexpected keyword argument 'k'" names the function (before Python 3.10 even
a method by its bare name) and the keyword, not the library. A Theano pair (f, k) is kept
when:
- every definition of f at rel-1.0.5 takes k (by name or through **kwargs), and an older
  tag's definition of f in the same module took neither, nor did any other there;
- no method named f rejects k at rel-1.0.5, and Theano-PyMC 1.1.2 does not reject it
  (the message must not tell a user of either to install what they run);
- f is a plain function (not one an elemwise decorator turns into an Op).
A name that numpy (the numpy this tool runs under) or the Keras backend also defines (std,
prod, ones_like) counts only after a source line that calls it through Theano (T.std,
theano.tensor.std); x.std(ddof=1) on a variable is not matched.

A Lasagne layer's error names only "__init__": its keyword is kept for a layer Lasagne 0.1
already had, when master's layer takes it (itself, or its base class through **kwargs) and
nothing in Lasagne 0.1 did, and it counts after the layer's own frame
(super(Layer, self).__init__) or a line calling the layer.

Sources are read with Python 2.7's ast (Theano 0.6 and 0.7 are Python 2 source), Theano-PyMC
and Keras with Python 3's, from git mirrors of github.com/Theano/Theano, Lasagne/Lasagne,
pymc-devs/Theano-PyMC and keras-team/keras. Prints the two patterns as TOML-ready JSON
strings and, on stderr, every pair with the tag that first has it.

    python tools/keywords_added.py THEANO.git LASAGNE.git THEANO_PYMC.git KERAS.git python2.7
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import numpy
from theano_api_added import MODULES, _alternation  # the modules users import from; longest first

THEANO_TAGS = ("rel-0.6", "rel-0.7", "rel-0.8.2", "rel-0.9.0", "rel-1.0.5")
THEANO_PYMC_TAG = "rel-1.1.2"
KERAS_TAG = "2.3.1"
KERAS_BACKENDS = ("keras/backend/theano_backend.py", "keras/backend/tensorflow_backend.py")
# Lasagne's only release on PyPI, and master at the commit LD141 installs.
LASAGNE_TAGS = ("v0.1", "5d3c63cb315c50b1cbd27a6bc8664b406f34dd99")

# Runs under Python 2.7 and 3: for each tag, the module-level functions, the methods and
# each class's own __init__ in the package's files (tests left out):
# {tag: {"functions": {name: [[params, has_kwargs, path, elemwise]]}, "methods": {...},
# "inits": {class: [[params, has_kwargs, path, False]]}, "bases": {class: [base names]}}}.
_READER = r'''
import ast, json, subprocess, sys
git, package, tags = sys.argv[1], sys.argv[2], sys.argv[3:]
def out(args):
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = p.communicate()[0]
    return text if p.returncode == 0 else None
def decorator_name(d):
    d = getattr(d, "func", d)
    return getattr(d, "id", None) or getattr(d, "attr", None) or ""
def signature(fn, path):
    args = list(fn.args.args) + list(getattr(fn.args, "kwonlyargs", []))
    names = [getattr(a, "arg", None) or getattr(a, "id", None) for a in args]
    elemwise = any("elemwise" in decorator_name(d) for d in fn.decorator_list)
    return [[n for n in names if n], fn.args.kwarg is not None, path, elemwise]
result = {}
for tag in tags:
    listing = out(["git", "--git-dir=" + git, "ls-tree", "-r", "--name-only", tag, package])
    files = [p for p in listing.decode().split() if p.endswith(".py") and "/tests/" not in p and "/test_" not in p]
    functions, methods, inits, bases = {}, {}, {}, {}
    for path in files:
        try:
            tree = ast.parse(out(["git", "--git-dir=" + git, "show", tag + ":" + path]) or b"")
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                functions.setdefault(node.name, []).append(signature(node, path))
            elif isinstance(node, ast.ClassDef):
                bases[node.name] = [getattr(b, "id", None) or getattr(b, "attr", "") for b in node.bases]
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        table = inits if item.name == "__init__" else methods
                        table.setdefault(node.name if item.name == "__init__" else item.name, []).append(
                            signature(item, path))
    result[tag] = {"functions": functions, "methods": methods, "inits": inits, "bases": bases}
print(json.dumps(result))
'''

Definitions = list[list[Any]]  # [[params, has_kwargs, path, elemwise], ...]
Tables = dict[str, dict[str, Any]]  # "functions"/"methods"/"inits" -> name -> definitions; "bases" -> class -> names
Tags = dict[str, Tables]


def read(git: str, package: str, tags: tuple[str, ...], python: str) -> Tags:
    done = subprocess.run([python, "-c", _READER, git, package, *tags], capture_output=True, text=True,
                          timeout=900, check=True)
    return json.loads(done.stdout)


def _accepts(definitions: Definitions, keyword: str) -> bool:
    """Every definition takes the keyword, by name or through **kwargs."""
    return all(keyword in d[0] or d[1] for d in definitions)


def _rejects(definitions: Definitions, keyword: str) -> bool:
    """Every definition raises "unexpected keyword argument" for it."""
    return all(keyword not in d[0] and not d[1] for d in definitions)


def _public(path: str) -> bool:
    """A function of a module users import from (scan's own module too), not one of the
    graph optimizers (local_*) that only Theano calls."""
    module = path[:-3].replace("/", ".")
    module = module[:-9] if module.endswith(".__init__") else module
    return module.startswith("lasagne") or bool(MODULES.match(module)) or module == "theano.scan_module.scan"


def added_function_keywords(by_tag: Tags, tags: tuple[str, ...],
                            forks: tuple[Tables, ...] = ()) -> dict[str, dict[str, str]]:
    """{function: {keyword: the first tag that has it in the module where it was missing}};
    ``forks``: other newest releases (Theano-PyMC) that must not reject it either."""
    newest = by_tag[tags[-1]]
    out: dict[str, dict[str, str]] = {}
    for name, definitions in newest["functions"].items():
        if name.startswith("local_") or any(d[3] for d in definitions) or not any(_public(d[2]) for d in definitions):
            continue
        for keyword in {k for d in definitions for k in d[0] if k not in ("self", "cls")}:
            if not _accepts(definitions, keyword) or any(
                    _rejects([m], keyword) for m in newest["methods"].get(name, [])):
                continue
            if any(_rejects(t["functions"].get(name, []) + t["methods"].get(name, []), keyword)
                   and name in t["functions"] for t in forks):
                continue
            first = _first_in_same_module(by_tag, tags, name, keyword, {d[2] for d in definitions if keyword in d[0]})
            if first:
                out.setdefault(name, {})[keyword] = first
    return out


def _first_in_same_module(by_tag: Tags, tags: tuple[str, ...], name: str, keyword: str, paths: set[str]) -> str:
    """The first tag from which the function takes the keyword, if an older tag had the
    function in one of these modules without it (and no definition then took it); else ""."""
    missing = False
    for tag in tags[:-1]:
        found = by_tag[tag]["functions"].get(name, [])
        if found and _rejects(found, keyword) and any(d[2] in paths for d in found):
            missing = True
        elif missing and any(d[2] in paths and keyword in d[0] for d in found):
            return tag
    return tags[-1] if missing else ""


def _layer_params(tables: Tables, name: str, depth: int = 0) -> set[str]:
    """What a layer's constructor takes: its own __init__'s parameters and, where it hands
    **kwargs on, its base classes' (Conv2DLayer's num_groups is BaseConvLayer's)."""
    params: set[str] = set()
    for definition in tables["inits"].get(name, []):
        params.update(definition[0])
        if definition[1] and depth < 10:
            for base in tables.get("bases", {}).get(name, []):
                params |= _layer_params(tables, base, depth + 1)
    return params


def added_layer_keywords(by_tag: Tags, tags: tuple[str, ...]) -> dict[str, list[str]]:
    """{layer class: [keywords]} master's layer takes, of a layer Lasagne 0.1 had, that
    nothing in Lasagne 0.1 took (so on master that layer accepts them)."""
    oldest, newest = by_tag[tags[0]], by_tag[tags[-1]]
    known = {k for table in ("inits", "functions", "methods") for defs in oldest[table].values()
             for d in defs for k in d[0]}
    out: dict[str, list[str]] = {}
    for name, definitions in newest["inits"].items():
        if not name.endswith("Layer") or name not in oldest["inits"]:
            continue
        if not all(d[2].startswith("lasagne/layers/") for d in definitions):
            continue
        fresh = sorted(_layer_params(newest, name) - known - {"self"})
        if fresh:
            out[name] = fresh
    return out


def keras_backend_names(git: str) -> set[str]:
    """The functions Keras's backends define (K.std, K.prod ...): a bare error naming one
    of them may be Keras's."""
    names: set[str] = set()
    for path in KERAS_BACKENDS:
        text = subprocess.run(["git", "--git-dir=" + git, "show", "%s:%s" % (KERAS_TAG, path)], capture_output=True,
                              text=True, timeout=60, check=True).stdout
        names.update(re.findall(r"(?m)^def (\w+)\(", text))
    return names


def function_pattern(added: dict[str, dict[str, str]], shared: set[str]) -> str:
    """f() got an unexpected keyword argument 'k' (a module-level function's name is bare in
    every Python's wording; a dot before it would make it some class's method). A name in
    ``shared`` needs the call through Theano on a line just above."""
    bare, called = [], []
    for name, keywords in sorted(added.items()):
        error = r"%s\(\) got an unexpected keyword argument .(?:%s)." % (re.escape(name), _alternation(list(keywords)))
        if name in shared:
            called.append(r"\b(?:T|tt|TT|tensor|theano(?:\.tensor)?)\.%s\([^\n]{0,400}\n(?:[^\n]{0,400}\n){0,2}?"
                          r"[^\n]{0,60}?(?<![\w.])%s" % (re.escape(name), error))
        else:
            bare.append(error)
    parts = [r"(?<![\w.])(?:%s)" % "|".join(bare)] if bare else []
    return "|".join(parts + called)


def layer_pattern(functions: dict[str, dict[str, str]], layers: dict[str, list[str]]) -> str:
    """Lasagne's functions as above; a layer's keyword after its own frame, where Lasagne
    0.1's layer hands **kwargs to Layer.__init__, or after a source line that calls it."""
    error = r"[^\n]{0,80}__init__\(\) got an unexpected keyword argument .(?:%s)."
    parts = [function_pattern(functions, set())] if functions else []
    frames = [r"super\(%s, self\)\.__init__\([^\n]{0,300}\n" % re.escape(name) + error % _alternation(found)
              for name, found in sorted(layers.items())]
    calls = [r"%s\([^\n]{0,400}\n(?:[^\n]{0,400}\n){0,2}?" % re.escape(name) + error % _alternation(found)
             for name, found in sorted(layers.items())]
    # (?=[A-Z]) and the literal: one cheap test before trying every layer's branch
    parts.append(r"\b(?=[A-Z])(?:%s)|super\((?:%s)" % ("|".join(calls), "|".join(f[len("super\\("):] for f in frames)))
    return "|".join(parts)


def main(argv: list[str]) -> int:
    theano_git, lasagne_git, pymc_git, keras_git, python2 = argv
    pymc = read(pymc_git, "theano", (THEANO_PYMC_TAG,), sys.executable)[THEANO_PYMC_TAG]
    theano = added_function_keywords(read(theano_git, "theano", THEANO_TAGS, python2), THEANO_TAGS, (pymc,))
    shared = (set(dir(numpy)) | keras_backend_names(keras_git)) & set(theano)
    lasagne_tags = read(lasagne_git, "lasagne", LASAGNE_TAGS, python2)
    lasagne_functions = added_function_keywords(lasagne_tags, LASAGNE_TAGS)
    layers = added_layer_keywords(lasagne_tags, LASAGNE_TAGS)
    for name, keywords in sorted(theano.items()):
        print("theano", name, ", ".join("%s (%s)" % (k, t) for k, t in sorted(keywords.items())),
              "[needs T.%s( above]" % name if name in shared else "", file=sys.stderr)
    for name, keywords in sorted(lasagne_functions.items()):
        print("lasagne", name, ", ".join(sorted(keywords)), file=sys.stderr)
    for name, found in sorted(layers.items()):
        print("layer", name, ", ".join(found), file=sys.stderr)
    print(json.dumps(function_pattern(theano, shared)))
    print(json.dumps(layer_pattern(lasagne_functions, layers)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
