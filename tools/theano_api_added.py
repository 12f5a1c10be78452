"""Names Theano's public modules gained after 0.7, and those they lost by 1.0.5: the patterns
of the catalogue messages theano-name-added-after-release, theano-attribute-added-after-release
and the messages for the names later releases removed (theano-*-removed-after-release,
theano-*-gone-by-09, theano-*-not-in-theano-pymc-11 in rules/messages/field.toml),
regenerated from the tags.

For each module users import from (MODULES), the names it has at rel-1.0.5 that the same
module lacked at rel-0.7, rel-0.8.2 or rel-0.9.0, read with Python 2.7's ast (0.7 is
Python 2 source) from a git mirror of github.com/Theano/Theano; `from x import *` is
followed. Names bound only inside an if or a try, and submodules, are never claimed as
attributes a module always has. Prints the two patterns as TOML strings, a line each, then
the pattern of theano-module-added-after-release (the public modules an older tag lacked)
and, on stderr, those modules with their submodules. Then the same three patterns the other
way round: names and modules an older tag always had that rel-1.0.5 lacks altogether (on
stderr the last tag that had each), printed twice: for what rel-0.9.0 still had (gone in
1.0: theano-name-, theano-attribute- and theano-module-removed-after-release), then for what
only rel-0.8.2 or rel-0.7 had (theano-name-, theano-attribute- and theano-module-gone-by-09).

    python tools/theano_api_added.py /path/to/Theano.git /path/to/python2.7 [/path/to/Theano-PyMC.git /path/to/python3]

With the last two, two more patterns: the names and the modules Theano 1.0.5 has that
Theano-PyMC 1.1.2 lacks (code written for Theano run under PyMC3 3.11's Theano-PyMC).
"""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
from collections.abc import Callable

TAGS = ("rel-0.7", "rel-0.8.2", "rel-0.9.0", "rel-1.0.5")
# Theano-PyMC's release that PyMC3 3.11 requires, which reorganised Theano 1.0.5's modules
# (theano.gof -> theano.graph and theano.link, theano.scan_module -> theano.scan)
FORK_TAG = "rel-1.1.2"
MODULES = re.compile(
    r"^theano(\.(tensor(\.(nnet(\.(bn|abstract_conv|conv|conv3d2d|neighbours|nnet|ctc|blocksparse))?|signal(\.(pool|conv))?"
    r"|shared_randomstreams|extra_ops|nlinalg|slinalg|fft|basic))?|gpuarray(\.(dnn|basic_ops|type|multinomial|linalg))?"
    r"|sandbox\.(cuda(\.(dnn|basic_ops|var))?|rng_mrg|linalg)|ifelse|scan_module|compile(\.(nanguardmode|function"
    r"|sharedvalue|ops))?|gradient|printing|misc\.pkl_utils|d3viz))?$")
# Module-level imports of the standard library and numpy are not Theano's API.
NOT_API = set(sys.stdlib_module_names) | {"np", "numpy", "scipy", "six", "theano", "izip", "imap", "xrange", "reduce",
                                          "string_types", "integer_types", "PY3", "StringIO", "print_function",
                                          "absolute_import", "division", "iteritems", "itervalues", "iterkeys"}

# Run under Python 2.7: reads every theano/**/*.py at each tag and prints
# {tag: {module: {"sure": [...], "subs": [...], "may": [...]}}}.
_READER = r'''
import ast, json, subprocess, sys
git, tags = sys.argv[1], sys.argv[2:]
# Python 2's ast (Theano 0.7 is Python 2 source) or Python 3's (Theano-PyMC 1.1 is Python 3 only)
TRIES = tuple(getattr(ast, n) for n in ("TryExcept", "TryFinally", "Try") if hasattr(ast, n))
ANNOTATED = getattr(ast, "AnnAssign", None)
def out(args):
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    text = p.communicate()[0]
    return text if p.returncode == 0 else None
def scan(body, names, stars, cond, pkg, subimports, conditional=False):
    # names bound only inside an if or a try are recorded apart (cond): they may be absent;
    # pkg: a package's own __init__, whose imports of its submodules (from .x import y,
    # import pkg.x) make them attributes of the package
    bound = cond if conditional else names
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bound.add(n.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                if a.name != "*":
                    bound.add((a.asname or a.name).split(".")[0])
                elif isinstance(node, ast.ImportFrom):
                    stars.append((node.level or 0, node.module or "", conditional))
            if pkg and not conditional:
                if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                    subimports.add(node.module.split(".")[0])
                paths = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else [])
                for path in paths:
                    if path.startswith(pkg + "."):
                        subimports.add(path[len(pkg) + 1:].split(".")[0])
        elif isinstance(node, ast.If):
            scan(node.body, names, stars, cond, pkg, subimports, True)
            scan(node.orelse, names, stars, cond, pkg, subimports, True)
        elif isinstance(node, TRIES) and getattr(node, "handlers", None):
            scan(node.body, names, stars, cond, pkg, subimports, True)
            scan(node.orelse, names, stars, cond, pkg, subimports, True)
            for h in node.handlers:
                scan(h.body, names, stars, cond, pkg, subimports, True)
            scan(getattr(node, "finalbody", []), names, stars, cond, pkg, subimports, conditional)
        elif isinstance(node, TRIES):  # try/finally: the body always runs
            scan(node.body, names, stars, cond, pkg, subimports, conditional)
            scan(node.finalbody, names, stars, cond, pkg, subimports, conditional)
        elif ANNOTATED and isinstance(node, ANNOTATED) and isinstance(node.target, ast.Name):
            bound.add(node.target.id)
        elif isinstance(node, ast.Delete) and not conditional:
            # "del x" after a loop at module level (theano/tensor/basic.py at rel-1.0.5)
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names.discard(t.id)
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
        names, stars, cond, subimports = set(), [], set(), set()
        is_package = p.endswith("__init__.py")
        source = out(["git", "--git-dir=" + git, "show", tag + ":" + p]) or ""
        if not isinstance(source, bytes) and source.startswith(u"\ufeff"):  # Python 3 text with a BOM
            source = source[1:]
        scan(ast.parse(source).body, names, stars, cond, m if is_package else None, subimports)
        package = m if is_package else m.rsplit(".", 1)[0]
        subs = set()
        if is_package:
            subs = set(o[len(m) + 1:] for o in mods if o.startswith(m + ".") and "." not in o[len(m) + 1:])
            names |= subimports & subs  # a submodule its __init__ always imports is an attribute
        targets = []
        for level, name, conditional in stars:
            if level:
                base = package
                for _ in range(level - 1):
                    base = base.rsplit(".", 1)[0]
                target = base + ("." + name if name else "")
            else:
                target = package + "." + name if package + "." + name in mods else name
            targets.append((target, conditional))
        raw[m] = (names, cond, subs, targets)
    memo = {}
    def public(m, sure, depth=0):
        # sure: only names bound whatever happens at import (attributes a module always has);
        # else every name it may have, submodules included (what an older release "lacked")
        key = (m, sure)
        if key not in memo:
            memo[key] = set()
            if m in raw and depth < 20:
                names, cond, subs, targets = raw[m]
                full = set(names) if sure else set(names) | cond | subs
                for t, conditional in targets:
                    if not (sure and conditional):
                        full |= public(t, sure, depth + 1)
                memo[key] = set(n for n in full if not n.startswith("_"))
        return memo[key]
    result[tag] = dict((m, {"sure": sorted(public(m, True)), "subs": sorted(raw[m][2]),
                            "may": sorted(public(m, False))}) for m in raw)
print(json.dumps(result))
'''


def added(by_tag: dict[str, dict[str, dict[str, list[str]]]], kind: str) -> dict[str, list[str]]:
    """Per module, the names the newest tag surely has that an older tag lacked (not even
    conditionally). kind "import": what `from module import X` finds (its sure names and
    its submodules, which the import loads); "attribute": what module.X finds without an
    import (its sure names only: a submodule is an attribute only once imported)."""
    newest = by_tag[TAGS[-1]]
    out: dict[str, list[str]] = {}
    for module, found in newest.items():
        if not MODULES.match(module):
            continue
        names = set(found["sure"]) | (set(found["subs"]) if kind == "import" else set())
        missing: set[str] = set()
        for tag in TAGS[:-1]:
            if module in by_tag[tag]:
                missing |= names - set(by_tag[tag][module]["may"])
        keep = sorted(n for n in missing - NOT_API if re.fullmatch(r"[A-Za-z]\w*", n))
        if keep:
            out[module] = keep
    return out


# Removed names: the old back-end's package is a stub in 1.0.5 that raises its own error
# (theano-old-gpu-backend-removed), and downsample has a message of its own
# (theano-cannot-import-downsample); Python's builtins bound by an import are nobody's API.
REMOVED_ELSEWHERE = re.compile(r"^theano\.(sandbox\.cuda(\.|$)|tensor\.signal\.downsample$)")
BUILTINS = set(dir(builtins))


def removed(by_tag: dict[str, dict[str, dict[str, list[str]]]], kind: str,
            tags: tuple[str, ...] = TAGS) -> dict[str, dict[str, str]]:
    """Per module the newest tag still has, the names an older tag surely had that the newest
    lacks altogether (not even under a condition, nor as a submodule), each with the last
    tag that had it. kind as in added(): "import" also counts the old submodules."""
    newest = by_tag[tags[-1]]
    out: dict[str, dict[str, str]] = {}
    for tag in tags[:-1]:
        for module, found in by_tag[tag].items():
            if not (MODULES.match(module) or module == "theano.compat") or REMOVED_ELSEWHERE.match(module):
                continue
            if module not in newest:
                continue
            subs = set(found["subs"]) if kind == "import" else set()
            # a bundled module (theano.compat.six) is API, the same name imported is not
            names = (set(found["sure"]) - NOT_API - BUILTINS) | subs
            gone = names - set(newest[module]["may"]) - set(newest[module]["subs"])
            for name in gone:
                if re.fullmatch(r"[A-Za-z]\w*", name) and not REMOVED_ELSEWHERE.match(module + "." + name):
                    out.setdefault(module, {})[name] = tag  # TAGS run oldest first: the last one stays
    return out


def removed_modules(by_tag: dict[str, dict[str, dict[str, list[str]]]],
                    tags: tuple[str, ...] = TAGS) -> dict[str, str]:
    """{module: the last tag that had it} for the modules an older tag had, and the newest
    lacks while it has their parent package (the first missing one is what the ImportError
    names); test files are no API."""
    newest = by_tag[tags[-1]]
    out: dict[str, str] = {}
    for tag in tags[:-1]:
        for module in by_tag[tag]:
            parent, last = module.rsplit(".", 1) if "." in module else ("", module)
            if module in newest or parent not in newest or last.startswith("test") or REMOVED_ELSEWHERE.match(module):
                continue
            out[module] = tag
    return out


def _alternation(found: list[str]) -> str:
    return "|".join(sorted(found, key=lambda n: (-len(n), n)))


def pattern(imports: dict[str, list[str]], attributes: dict[str, list[str]]) -> str:
    """theano-name-added-after-release: imports of such a name, and Python 3's attribute error."""
    parts = []
    for i, (module, found) in enumerate(sorted(imports.items())):
        mod, alt = re.escape(module), _alternation(found)
        # Python < 3.7: the import line, then "cannot import name X" (the name bound back)
        parts.append(r"from %s import (?:(?!\bfrom\b|\bimport\b)[\w\s,()\\]){0,200}?\b(?P<n%d>%s)\b[^\n]{0,200}?"
                     r"ImportError: cannot import name .?(?P=n%d)\b" % (mod, i, alt, i))
        # Python 3.7+: the module is named
        parts.append(r"cannot import name .(%s). from .%s['\"]" % (alt, mod))
    for module, found in sorted(attributes.items()):
        parts.append(r"module .%s. has no attribute .(%s)\b" % (re.escape(module), _alternation(found)))
    return "|".join(parts)


def python2_attribute_pattern(attributes: dict[str, list[str]]) -> str:
    """theano-attribute-added-after-release: Python 2 names no module ("'module' object has
    no attribute X"), so the traceback's source line just above must reach the name through
    the module (T.nnet.X, tt.X). A message of its own, and one branch for every module (a
    reference to a group that did not match fails): without a literal to search for, it
    slowed the other message's branches when it was one of them."""
    heads, again = [], []
    for i, (module, found) in enumerate(sorted(attributes.items())):
        heads.append(r"%s\.(?P<a%d>%s)" % (_reached_as(module), i, _alternation(found)))
        again.append("(?P=a%d)" % i)
    return (r"\b(?:%s)\b[^\n]{0,300}\n(?:[ \t]*\n)?[^\n]{0,300}'module' object has no attribute .(?:%s)\b"
            % ("|".join(heads), "|".join(again)))


def _reached_as(module: str) -> str:
    """How code names the module on a source line: its last component (nnet, pool,
    dnn, theano), and T or tt for theano.tensor (the two usual aliases)."""
    if module == "theano.tensor":
        return "(?:T|tt|tensor)"
    return re.escape(module.rsplit(".", 1)[-1])


def added_modules(by_tag: dict[str, dict[str, dict[str, list[str]]]]) -> dict[str, list[str]]:
    """{module: [its submodules at the newest tag]} for the public modules the newest tag has
    that an older tag lacked while it had their parent package: the first missing one is
    what the ImportError names."""
    newest = by_tag[TAGS[-1]]
    out: dict[str, list[str]] = {}
    for module in newest:
        parent = module.rsplit(".", 1)[0]
        if not MODULES.match(module) or "." not in module:
            continue
        if any(module not in by_tag[tag] and parent in by_tag[tag] for tag in TAGS[:-1]):
            out[module] = sorted(m[len(module) + 1:] for m in newest if m.startswith(module + ".")
                                 and "." not in m[len(module) + 1:])
    return out


def module_pattern(modules: dict[str, list[str]]) -> str:
    """theano-module-added-after-release: Python 3 names the missing module in full (not
    when "'theano' is not a package": a user's own theano.py). Python 2 names it only from
    the missing part on ("No module named gpuarray.type"), which theano.sandbox.gpuarray,
    gone from 1.0, also gives: it counts only after an import line that reaches the module
    outside theano.sandbox."""
    full = _alternation([re.escape(m) for m in modules])
    heads = _alternation([re.escape(m.rsplit(".", 1)[1]) for m in modules])
    return (r"No module named '(?:%s)'(?!;)|(?:from|import) theano\.(?!sandbox\.)[\w.]{0,80}?\b(?P<m>%s)\b"
            r"[^\n]{0,200}\n(?:[^\n]{0,300}\n){0,3}?[^\n]{0,60}No module named (?P=m)\b" % (full, heads))


def removed_module_pattern(modules: dict[str, str], python2: bool = True) -> str:
    """theano-module-removed-after-release and its kin: Python 3 names the module in full. Python 2 names only
    the missing part ("No module named six.moves" for theano.compat.six.moves), which a module
    added later can share (gpuarray): that form counts only after an import line naming the
    removed module in full."""
    full = r"No module named '(?:%s)'(?!;)" % _alternation([re.escape(m) for m in modules])
    if not python2:  # Theano-PyMC runs on Python 3 only
        return full
    bare = _alternation([r"%s(?![\w])[^\n]{0,200}\n(?:[^\n]{0,300}\n){0,3}?[^\n]{0,60}No module named %s\b"
                         % (re.escape(m), re.escape(m.rsplit(".", 1)[1])) for m in modules])
    return r"%s|(?:from|import) (?:%s)" % (full, bare)


def _read(python: str, git: str, tags: tuple[str, ...]) -> dict[str, dict[str, dict[str, list[str]]]]:
    done = subprocess.run([python, "-c", _READER, git, *tags], capture_output=True, text=True, timeout=600,
                          check=True)
    return json.loads(done.stdout)


def main(argv: list[str]) -> int:
    git, python2 = argv[:2]
    by_tag = _read(python2, git, TAGS)
    imports, attributes = added(by_tag, "import"), added(by_tag, "attribute")
    print(json.dumps(pattern(imports, attributes)))
    print(json.dumps(python2_attribute_pattern(attributes)))
    modules = added_modules(by_tag)
    for module, subs in sorted(modules.items()):
        print(module, ", ".join(subs), file=sys.stderr)
    print(json.dumps(module_pattern(modules)))
    gone_imports, gone_attributes = removed(by_tag, "import"), removed(by_tag, "attribute")
    for module, last in sorted(gone_imports.items()):
        print(module, ", ".join("%s (%s)" % (n, t) for n, t in sorted(last.items())), file=sys.stderr)
    gone_modules = removed_modules(by_tag)
    for module, tag in sorted(gone_modules.items()):
        print(module, tag, file=sys.stderr)
    # by the release that dropped them: what 0.9.0 still had (gone in 1.0), then what only
    # 0.8.2 or 0.7 had (gone by 0.9), so that a rule can tell a recorded 0.9.0 apart
    for lasts in ((TAGS[-2],), TAGS[:-2]):
        def last_had_by(module: str, name: str, last: str, lasts: tuple[str, ...] = lasts) -> bool:
            return last in lasts

        imports_then, attributes_then = _kept(gone_imports, last_had_by), _kept(gone_attributes, last_had_by)
        print(json.dumps(pattern(_names(imports_then), _names(attributes_then))))
        print(json.dumps(python2_attribute_pattern(_names(attributes_then))))
        print(json.dumps(removed_module_pattern({m: t for m, t in gone_modules.items() if t in lasts})))
    if len(argv) == 4:  # and what Theano-PyMC 1.1 dropped of Theano 1.0.5 (Python 3 source)
        fork_git, python3 = argv[2:]
        pair = {TAGS[-1]: by_tag[TAGS[-1]], FORK_TAG: _read(python3, fork_git, (FORK_TAG,))[FORK_TAG]}
        tags = (TAGS[-1], FORK_TAG)
        # a name some older Theano lacked too is left to theano-name-added-after-release:
        # the same error would not say which of the two the code met
        def new_to_the_fork(module: str, name: str, last: str) -> bool:
            return name not in imports.get(module, [])

        fork_imports = _kept(removed(pair, "import", tags), new_to_the_fork)
        fork_attributes = _kept(removed(pair, "attribute", tags), new_to_the_fork)
        for module, last in sorted(fork_imports.items()):
            print(FORK_TAG, "lacks", module, ", ".join(sorted(last)), file=sys.stderr)
        print(json.dumps(pattern(_names(fork_imports), _names(fork_attributes))))
        fork_modules = {m: t for m, t in removed_modules(pair, tags).items() if m not in modules}
        print(FORK_TAG, "lacks the modules", ", ".join(sorted(fork_modules)), file=sys.stderr)
        print(json.dumps(removed_module_pattern(fork_modules, python2=False)))
    return 0


def _kept(found: dict[str, dict[str, str]],
          keep: Callable[[str, str, str], bool]) -> dict[str, dict[str, str]]:
    """{module: {name: last tag}} for the names keep(module, name, last tag) accepts."""
    kept = {module: {n: t for n, t in names.items() if keep(module, n, t)} for module, names in found.items()}
    return {module: names for module, names in kept.items() if names}


def _names(found: dict[str, dict[str, str]]) -> dict[str, list[str]]:
    return {module: sorted(names) for module, names in found.items()}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
