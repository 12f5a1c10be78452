"""Names Theano's public modules gained after 0.7: the pattern of the catalogue message
theano-name-added-after-release (rules/messages/field.toml), regenerated from the tags.

For each module users import from (MODULES), the names it has at rel-1.0.5 that the same
module lacked at rel-0.7, rel-0.8.2 or rel-0.9.0, read with Python 2.7's ast (0.7 is
Python 2 source) from a git mirror of github.com/Theano/Theano; `from x import *` is
followed. Prints the pattern as a TOML string.

    python tools/theano_api_added.py /path/to/Theano.git /path/to/python2.7
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

TAGS = ("rel-0.7", "rel-0.8.2", "rel-0.9.0", "rel-1.0.5")
MODULES = re.compile(
    r"^theano(\.(tensor(\.(nnet(\.(bn|abstract_conv|conv|conv3d2d|neighbours|nnet|ctc|blocksparse))?|signal(\.(pool|conv))?"
    r"|shared_randomstreams|extra_ops|nlinalg|slinalg|fft|basic))?|gpuarray(\.(dnn|basic_ops|type|multinomial|linalg))?"
    r"|sandbox\.(cuda(\.(dnn|basic_ops|var))?|rng_mrg|linalg)|ifelse|scan_module|compile(\.(nanguardmode|function"
    r"|sharedvalue|ops))?|gradient|printing|misc\.pkl_utils|d3viz))?$")
# Module-level imports of the standard library and numpy are not Theano's API.
NOT_API = set(sys.stdlib_module_names) | {"np", "numpy", "scipy", "six", "theano", "izip", "imap", "xrange", "reduce",
                                          "string_types", "integer_types", "PY3", "StringIO", "print_function",
                                          "absolute_import", "division", "iteritems", "itervalues", "iterkeys"}

# Run under Python 2.7: reads every theano/**/*.py at each tag and prints {tag: {module: [names]}}.
_READER = r'''
import ast, json, subprocess, sys
git, tags = sys.argv[1], sys.argv[2:]
def out(args):
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = p.communicate()[0]
    return text if p.returncode == 0 else None
def scan(body, names, stars):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                if a.name != "*":
                    names.add((a.asname or a.name).split(".")[0])
                elif isinstance(node, ast.ImportFrom):
                    stars.append((node.level or 0, node.module or ""))
        elif isinstance(node, ast.If):
            scan(node.body, names, stars); scan(node.orelse, names, stars)
        elif isinstance(node, ast.TryExcept):
            scan(node.body, names, stars); scan(node.orelse, names, stars)
            for h in node.handlers:
                scan(h.body, names, stars)
        elif isinstance(node, ast.TryFinally):
            scan(node.body, names, stars); scan(node.finalbody, names, stars)
result = {}
for tag in tags:
    files = [p for p in out(["git", "--git-dir=" + git, "ls-tree", "-r", "--name-only", tag, "theano"]).split()
             if p.endswith(".py") and "/tests/" not in p]
    mods = {}
    for p in files:
        m = p[:-3].replace("/", ".")
        mods[m[:-9] if m.endswith(".__init__") else m] = p
    raw = {}
    for m, p in mods.items():
        names, stars = set(), []
        scan(ast.parse(out(["git", "--git-dir=" + git, "show", tag + ":" + p]) or "").body, names, stars)
        package = m if p.endswith("__init__.py") else m.rsplit(".", 1)[0]
        if p.endswith("__init__.py"):
            names |= set(o[len(m) + 1:] for o in mods if o.startswith(m + ".") and "." not in o[len(m) + 1:])
        targets = []
        for level, name in stars:
            if level:
                base = package
                for _ in range(level - 1):
                    base = base.rsplit(".", 1)[0]
                targets.append(base + ("." + name if name else ""))
            else:
                targets.append(package + "." + name if package + "." + name in mods else name)
        raw[m] = (names, targets)
    memo = {}
    def public(m, depth=0):
        if m not in memo:
            memo[m] = set()
            if m in raw and depth < 20:
                names, targets = raw[m]
                full = set(names)
                for t in targets:
                    full |= public(t, depth + 1)
                memo[m] = set(n for n in full if not n.startswith("_"))
        return memo[m]
    result[tag] = dict((m, sorted(public(m))) for m in raw)
print(json.dumps(result))
'''


def added(by_tag: dict[str, dict[str, list[str]]]) -> dict[str, list[str]]:
    newest = by_tag[TAGS[-1]]
    out: dict[str, list[str]] = {}
    for module, names in newest.items():
        if not MODULES.match(module):
            continue
        missing: set[str] = set()
        for tag in TAGS[:-1]:
            if module in by_tag[tag]:
                missing |= set(names) - set(by_tag[tag][module])
        keep = sorted(n for n in missing - NOT_API if re.fullmatch(r"[A-Za-z]\w*", n))
        if keep:
            out[module] = keep
    return out


def pattern(names: dict[str, list[str]]) -> str:
    parts, heads, names_again = [], [], []
    for i, (module, found) in enumerate(sorted(names.items())):
        mod = re.escape(module)
        alt = "|".join(sorted(found, key=lambda n: (-len(n), n)))
        # Python < 3.7: the import line, then "cannot import name X" (the name bound back)
        parts.append(r"from %s import (?:(?!\bfrom\b|\bimport\b)[\w\s,()\\]){0,200}?\b(?P<n%d>%s)\b[^\n]{0,200}?"
                     r"ImportError: cannot import name .?(?P=n%d)\b" % (mod, i, alt, i))
        # Python 3.7+: the module is named; and an attribute looked up on the module
        parts.append(r"cannot import name .(%s). from .%s['\"]" % (alt, mod))
        parts.append(r"module .%s. has no attribute .(%s)\b" % (mod, alt))
        heads.append(r"%s\.(?P<a%d>%s)" % (_reached_as(module), i, alt))
        names_again.append("(?P=a%d)" % i)
    # Python 2 names no module ("'module' object has no attribute X"): the traceback's
    # source line just above must reach the name through the module (T.nnet.X, tt.X). One
    # branch for every module (a reference to a group that did not match fails): a branch
    # per module, each without a literal to search for, made a 4 MiB log take seconds.
    parts.append(r"\b(?:%s)\b[^\n]{0,300}\n(?:[ \t]*\n)?[^\n]{0,300}'module' object has no attribute .(?:%s)\b"
                 % ("|".join(heads), "|".join(names_again)))
    return "|".join(parts)


def _reached_as(module: str) -> str:
    """How code names the module on a source line: its last component (nnet, pool,
    dnn, theano), and T or tt for theano.tensor (the two usual aliases)."""
    if module == "theano.tensor":
        return "(?:T|tt|tensor)"
    return re.escape(module.rsplit(".", 1)[-1])


def main(argv: list[str]) -> int:
    git, python2 = argv
    done = subprocess.run([python2, "-c", _READER, git, *TAGS], capture_output=True, text=True, timeout=600,
                          check=True)
    print(json.dumps(pattern(added(json.loads(done.stdout)))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
