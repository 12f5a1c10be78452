"""The parts of Theano's API a project's code uses: the modules it imports, the names it
imports from them and the attributes it reaches through them (``T.nnet.relu`` after
``import theano.tensor as T``). legacydoc/theanoapi.py compares them with what the installed
Theano release has.

Only what the code needs whatever happens is kept: an import in a try that catches
ImportError (or anything) may meet a missing name on purpose, and code under an if (other
than ``if __name__ == "__main__"``) may never run: ``if PROFILE: theano.ProfileMode()``,
``if hasattr(T.nnet, "relu")``. A name the file binds otherwise too (an assignment, a
parameter) is not followed as a module alias.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

# (module, name, kind, line): kind "module" (the module must exist; name is ""), "import"
# (from module import name) or "attribute" (module.name)
Use = tuple[str, str, str, int]

_CAUGHT = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "NameError", "Exception",
                     "BaseException"})


def _is_theano(module: str) -> bool:
    return module == "theano" or module.startswith("theano.")


_TRIES = tuple(getattr(ast, n) for n in ("Try", "TryStar") if hasattr(ast, n))
_MATCH = getattr(ast, "Match", None)


def _guarded(node: ast.AST) -> bool:
    """A block whose Theano uses may fail on purpose, or never run."""
    if isinstance(node, _TRIES):
        caught = [h.type for h in node.handlers]
        names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
                 for t in caught if t is not None for n in ast.walk(t)}
        return None in caught or bool(names & _CAUGHT)
    if isinstance(node, (ast.If, ast.IfExp, ast.While)):
        return not _is_main_test(node.test)
    if isinstance(node, ast.BoolOp):  # hasattr(T.nnet, "relu") and T.nnet.relu(x)
        return True
    return _MATCH is not None and isinstance(node, _MATCH)


def _is_main_test(test: ast.AST) -> bool:
    """``__name__ == "__main__"``: a script's body, run whenever the script is."""
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _unguarded(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node outside a guarded block."""
    pending = [tree]
    while pending:
        node = pending.pop()
        if node is not tree and _guarded(node):
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def _other_bindings(tree: ast.AST) -> set[str]:
    """Names the file binds other than by an import."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.Import):
            out.update(a.asname or a.name.split(".")[0] for a in node.names if not _is_theano(a.name))
        elif isinstance(node, ast.ImportFrom) and not (node.module and not node.level and _is_theano(node.module)):
            out.update(a.asname or a.name for a in node.names)
    return out


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str:
    """theano.tensor.nnet for ``T.nnet`` (T an alias of theano.tensor), else ''."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return ""
    return ".".join([aliases[node.id], *reversed(parts)])


def uses_ast(tree: ast.AST) -> Iterator[Use]:
    nodes = list(_unguarded(tree))
    aliases: dict[str, str] = {}
    ambiguous: set[str] = set()

    def bind(local: str, module: str) -> None:
        if aliases.get(local, module) != module:
            ambiguous.add(local)  # two modules under one name: which one a line means is not known
        aliases[local] = module

    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _is_theano(alias.name):
                    continue
                yield alias.name, "", "module", node.lineno
                if alias.asname:
                    bind(alias.asname, alias.name)
                else:  # "import theano.tensor.nnet" binds theano
                    bind(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and _is_theano(node.module):
            yield node.module, "", "module", node.lineno
            for alias in node.names:
                if alias.name != "*":
                    yield node.module, alias.name, "import", node.lineno
                    # T after "from theano import tensor as T" (a function bound so is never
                    # a module of the table: nothing is claimed about it)
                    bind(alias.asname or alias.name, node.module + "." + alias.name)
    for name in (_other_bindings(tree) | ambiguous) & set(aliases):
        del aliases[name]
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            owner = _dotted(node.value, aliases)
            if owner:
                yield owner, node.attr, "attribute", node.lineno


# The same read from the text of code Python 3 cannot parse (Python 2 scripts), one line at a
# time in one pass: import lines and dotted names, outside comments and strings (triple-quoted
# ones too), and not in a block opened by try, except, finally, if, elif, else or while (but
# ``if __name__ == '__main__':``), nor on a line with a conditional expression or a one-line
# if. Imports spread over several lines are not read (nothing is claimed about them).
_FROM_RE = re.compile(r"from[ \t]+(theano(?:\.\w+)*)[ \t]+import[ \t]+\(?([\w \t,]+?)\)?[ \t]*$")
_IMPORT_RE = re.compile(r"import[ \t]+([\w. \t,]+?)[ \t]*$")
_GUARD = re.compile(r"(?:try|except|finally|else|elif|while)\b|if\b(?!\s*__name__\s*==\s*[\"']__main__[\"']\s*:)")
_OPENER = re.compile(r"(?:if|elif|else|try|except|finally|while|for|def|class|with)\b")
_CONDITIONAL = re.compile(r"\bif\b.*\belse\b")
# names a line binds other than by a Theano import: they are not followed as module aliases
_BINDS = re.compile(r"^(\w+)\s*(?:,[\w\s,]*)?=(?!=)|\bfor\s+(\w+)\s+in\b|\bas\s+(\w+)|\bdef\s+\w+\s*\(([^)]*)\)"
                    r"|^from\s+[\w.]+\s+import\s+(.*)")


def _code_lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, the code without strings and comments, guarded) for each line of code."""
    stack: list[tuple[int, bool]] = []  # the open blocks: (their opener's indent, guarding)
    in_string = ""
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        if in_string:
            if in_string in line:
                in_string = ""
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        code = re.split(r"[#\"']", stripped, maxsplit=1)[0].rstrip()
        for quote in ('"""', "\'\'\'"):
            if stripped.count(quote) % 2 == 1:
                in_string = quote
                break
        guard = bool(_GUARD.match(stripped))
        one_line = guard and ":" in code and not code.endswith(":")  # "if X: theano.ProfileMode()"
        yield number, code, any(g for _, g in stack) or one_line or bool(_CONDITIONAL.search(code))
        if code.endswith(":") and _OPENER.match(stripped):
            stack.append((indent, guard))


def uses_text(text: str) -> Iterator[Use]:
    lines = list(_code_lines(text))
    aliases: dict[str, str] = {}
    rebound: set[str] = set()
    found: list[Use] = []
    for number, code, guarded in lines:
        imported = _FROM_RE.fullmatch(code) or _IMPORT_RE.fullmatch(code)
        if not imported:
            for match in _BINDS.finditer(code):
                for group in match.groups():
                    rebound.update(re.findall(r"\w+", group or ""))
            continue
        if guarded:
            continue
        if imported.re is _FROM_RE:
            module = imported.group(1)
            found.append((module, "", "module", number))
            for item in imported.group(2).split(","):
                words = item.split()
                if words and words[0] != "*":
                    found.append((module, words[0], "import", number))
                    local = words[2] if len(words) == 3 and words[1] == "as" else words[0]
                    aliases[local] = module + "." + words[0]
            continue
        for item in imported.group(1).split(","):
            words = item.split()
            if not words:
                continue
            local = words[2] if len(words) == 3 and words[1] == "as" else words[0].split(".")[0]
            if not _is_theano(words[0]):
                rebound.add(local)
                continue
            found.append((words[0], "", "module", number))
            aliases[local] = words[0] if len(words) == 3 else local
    yield from found
    for name in rebound:
        aliases.pop(name, None)
    if not aliases:
        return
    chain = re.compile(r"(?<![\w.])(%s)((?:\.\w+)+)" % "|".join(re.escape(a) for a in sorted(aliases, key=len,
                                                                                          reverse=True)))
    for number, code, guarded in lines:
        if guarded or re.match(r"(from|import)\b", code):
            continue
        for match in chain.finditer(code):
            parts = [aliases[match.group(1)], *match.group(2)[1:].split(".")]
            for i in range(1, len(parts)):
                yield ".".join(parts[:i]), parts[i], "attribute", number
